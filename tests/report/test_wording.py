"""Issue 30 item 7: counts agree with their nouns in the report ("1 raider appears", not "1 raiders appear")."""

from __future__ import annotations

from pbem.data.loader import load
from pbem.rules.events import Arrived, Settled, Withdrew


def test_one_raider_is_singular():
    rs = load("classic")
    assert Arrived(round=1, turn="jutes", nation="jutes", sea="north_sea", armies=1, raiders=True).describe(rs) \
        .endswith("1 raider appears in the North Sea")
    assert "2 invaders appear" in Arrived(round=1, turn="romans", nation="romans", sea="north_sea", armies=2,
                                          raiders=False).describe(rs)
    assert "1 raider settles in Kent" in Settled(round=1, turn="jutes", nation="jutes", area="kent", armies=1,
                                                  line=1).describe(rs)
    assert "1 raider withdraws from Kent" in Withdrew(round=1, turn="jutes", nation="jutes", area="kent",
                                                       sea="north_sea", armies=1, line=1).describe(rs)
