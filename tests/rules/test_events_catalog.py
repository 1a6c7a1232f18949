"""Issue 15 item 5 — typed events: one catalog (pbem.rules.events), the log's dicts unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.errors import GameError
from pbem.rules import events
from pbem.rules.events import KINDS, Moved, from_dict, make

RULES = Path(events.__file__).parent
EMITTED = re.compile(r"""(?:emit|make)\(\s*["']([a-z_]+)["']""")


def _kinds_in_engine_source() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in RULES.rglob("*.py"):
        if path.name == "events.py":
            continue
        for kind in EMITTED.findall(path.read_text(encoding="utf-8")):
            found.setdefault(kind, set()).add(path.relative_to(RULES).as_posix())
    return found


def test_every_event_kind_the_engine_emits_is_in_the_catalog():
    found = _kinds_in_engine_source()
    assert len(found) > 30, found     # the scan sees the engine's events
    assert set(found) <= set(KINDS), {k: v for k, v in found.items() if k not in KINDS}


def test_an_unknown_kind_or_field_is_a_bug_raised_at_once():
    with pytest.raises(KeyError, match="unknown event kind"):
        make("teleported", nation="jutes")
    with pytest.raises(TypeError):
        make("fort_built", area="kent", armies=3)       # no such field
    with pytest.raises(TypeError):
        make("fort_built")                              # a missing field


def test_events_are_frozen_and_slotted():
    ev = make("fort_built", round=2, turn="romans", area="kent")
    assert not hasattr(ev, "__dict__")
    with pytest.raises(AttributeError):
        ev.area = "essex"   # type: ignore[misc]


def test_optional_fields_are_left_out_required_none_kept():
    """The dicts as the engine always wrote them: `arrived` has `cavalry` only when cavalry came, round
    events have no `turn`, `moved.leader` and `battle_end.winner` are kept when None."""
    assert make("arrived", round=1, turn="x", nation="x", sea="s", armies=2, raiders=False).to_dict() == {
        "type": "arrived", "round": 1, "turn": "x", "nation": "x", "sea": "s", "armies": 2, "raiders": False}
    assert list(make("round_started", round=3).to_dict()) == ["type", "round"]
    moved = Moved(round=1, turn="x", nation="x", kind="armies", count=1, path=["a", "b"], leader=None, raiders=0,
                  cycle=1, line=1)
    assert "leader" in moved.to_dict()


def test_a_damaged_logged_event_is_a_game_error():
    with pytest.raises(GameError):
        from_dict({"type": "moved", "nation": "jutes"})
    with pytest.raises(GameError):
        from_dict({"nation": "jutes"})


class _Recording(BotGame):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.events: list = []

    def on_step(self, step):
        self.events += step.events
        super().on_step(step)


@pytest.mark.parametrize("ruleset", ["classic", "ffg2"])
def test_a_selfplay_games_events_round_trip_dict_typed_dict(ruleset):
    """Every event of a whole bot game: typed -> dict -> typed -> dict, the same dict, keys in the same
    order (the log, hashes and replays keep exactly these dicts)."""
    game = _Recording(load(ruleset), 7, bot="random", players=4)
    game.play()
    assert len(game.events) > 200
    seen = set()
    for ev in game.events:
        d = ev.to_dict()
        back = from_dict(d)
        assert back == ev
        assert list(back.to_dict().items()) == list(d.items())
        seen.add(ev.KIND)
    assert {"moved", "battle", "battle_round", "battle_end", "population", "scored", "round_started"} <= seen


def test_every_kind_has_a_rule_docstring_and_report_lines_come_from_the_catalog():
    rs = load("classic")
    for kind, cls in KINDS.items():
        assert cls.__doc__ and cls.__doc__.strip(), kind
    ev = make("leader_killed", round=9, turn="saxons", area="kent", nation="saxons", leader="alfred", by="danes")
    assert ev.describe(rs) == "Alfred (Saxons) is killed in Kent"
