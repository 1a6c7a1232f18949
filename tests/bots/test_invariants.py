"""The invariant checks notice what they are meant to notice."""

from __future__ import annotations

from pbem.bots import invariants as inv
from pbem.rules.state import Stack
from pbem.rules.turn import new_game_state


def start(rs):
    return new_game_state(rs, "inv")


def test_start_position_is_clean(rs):
    assert inv.position(rs, start(rs)) == []
    assert inv.overpopulation(rs, start(rs), "welsh", 1) == []


def test_stacking(rs):
    s = start(rs)
    s.stack("kent", "belgae").armies = 4
    assert inv.stacking(rs, s) == []              # one larger group is allowed (5.2)
    s.stack("essex", "belgae").armies = 4
    assert any("belgae" in v for v in inv.stacking(rs, s))
    s2 = start(rs)
    s2.stack("powys", "welsh").armies = 5         # hiland: at most 4 in the one big group
    assert inv.stacking(rs, s2)


def test_overpopulation_and_exemptions(rs):
    s = start(rs)
    s.stack("kent", "belgae").armies = 30
    assert inv.overpopulation(rs, s, "belgae", 3)
    s.stack("essex", "saxons").armies = 9
    assert inv.overpopulation(rs, s, "saxons", 4) == []   # exempt in turns 4-5
    assert inv.overpopulation(rs, s, "saxons", 6)
    s.stack("kent", "romans").armies = 12
    assert inv.overpopulation(rs, s, "romans", 2) == []


def test_pieces(rs):
    s = start(rs)
    s.stack("nowhere", "belgae").armies = 1
    s.stack("kent", "atlanteans").armies = 1
    s.stack("essex", "belgae").raiders = 5
    s.stack("wessex", "belgae").fort = True
    s.stack("north_sea", "romans").fort = True
    s.stack("sussex", "belgae").armies = -1
    s.stack("norfolk", "belgae").leaders.append("arthur")
    s.stack("suffolk", "belgae").leaders.append("boudicca")
    s.stack("lindsey", "belgae").leaders.append("boudicca")
    s.dead_leaders.add("boudicca")
    s.stack("english_channel", "romans").armies = 40
    got = "\n".join(inv.pieces(rs, s))
    for want in ("'nowhere'", "'atlanteans'", "raiders", "fort of the belgae", "forts are on land, of the nations that hold them",
                 "armies = -1", "arthur (romano_british)", "boudicca is dead", "boudicca is on the board 2 times",
                 "romans have 40 armies"):
        assert want in got, want


def test_ledger_and_end(rs):
    s = start(rs)
    s.score("welsh", 3, "test", "hold")
    assert inv.ledger(s) == []
    s.vp["welsh"] = 4
    assert inv.ledger(s)
    s = start(rs)
    s.finished = True
    assert inv.finished(rs, s)          # finished in round 1
    s.round = 16
    assert inv.finished(rs, s) == []
    s.round = 17
    assert inv.game_end(rs, s)
    s = start(rs)
    assert inv.finished(rs, s)          # not finished


def test_stack_is_plain(rs):
    # the invariants read Stack fields; a Stack with everything is still clean where it may stand
    s = start(rs)
    s.areas["kent"]["romans"] = Stack(armies=1, fort=True)
    assert inv.pieces(rs, s) == []


def test_battles_over_and_raiders(rs):
    s = start(rs)
    s.stack("kent", "saxons").armies = 2
    assert any("kent is held by belgae and saxons" in v for v in inv.battles_over(rs, s))
    s = start(rs)
    s.stack("kent", "saxons").leaders.append("aelle")
    assert any("aelle" in v for v in inv.battles_over(rs, s))
    s = start(rs)
    st = s.stack("kent", "belgae")
    st.armies, st.raiders = 2, 1
    assert inv.raiders_home(rs, s, "belgae") and inv.raiders_home(rs, s, "welsh") == []
    s.stack("english_channel", "saxons").armies = 3
    s.areas["english_channel"]["saxons"].raiders = 3
    assert inv.raiders_home(rs, s, "saxons") == []      # at sea is home
