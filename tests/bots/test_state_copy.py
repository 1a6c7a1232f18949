"""GameState.copy() is written out by hand; it must behave as copy.deepcopy did."""

from __future__ import annotations

import copy
import pickle

import pytest

from pbem.rules.state import GameState, LedgerEntry


def test_copy_equals_deepcopy(positions):
    for s in positions[::7]:
        c = s.copy()
        assert c == copy.deepcopy(s)
        assert c.to_dict() == s.to_dict()
        assert type(c) is GameState


def test_copy_is_independent(positions):
    s = next(p for p in positions if p.ledger and p.standing and p.captured)
    before = copy.deepcopy(s)
    c = s.copy()
    area = next(iter(c.areas))
    nation = next(iter(c.areas[area]))
    c.areas[area][nation].armies += 5
    c.areas[area][nation].leaders.append("x")
    c.areas["new_area"] = {}
    assert c.ledger[0] is s.ledger[0]      # rule 14.3: history, shared by the copies, read-only
    with pytest.raises(TypeError):
        c.ledger[0]["points"] = 999
    c.ledger.append({"x": 1})
    c.vp["x"] = 1
    c.population["x"] = 1.0
    next(iter(c.captured.values())).add("x")
    next(iter(c.standing.values()))["x"] = {"type": "Defend"}
    c.forts_built.add("x")
    c.dead_leaders.add("x")
    c.kings.append("x")
    c.subjects["x"] = "y"
    c.raided_from["x"] = "y"
    c.extras.setdefault("roman_permission", set()).add("x")
    c.leader_killed_by["x"] = "y"
    assert s == before


def test_copy_of_nested_ledger_values():
    s = GameState()
    s.ledger.append({"round": 1, "nation": "welsh", "points": 1, "extra": {"a": [1, 2]}})
    c = s.copy()
    c.ledger[0]["extra"]["a"].append(3)
    assert s.ledger[0]["extra"]["a"] == [1, 2]


def test_ledger_entries_read_back_read_only_and_pickle():
    s = GameState()
    s.score("welsh", 2, "held Gwynedd", "holding")
    e = s.ledger[0]
    assert type(e) is LedgerEntry and e == pickle.loads(pickle.dumps(e)) == copy.deepcopy(e)
    again = GameState.from_dict(s.to_dict())
    assert type(again.ledger[0]) is LedgerEntry and again.to_dict() == s.to_dict()
    assert type(s.to_dict()["ledger"][0]) is dict
    for change in (lambda: e.update(points=3), lambda: e.pop("points"), lambda: e.setdefault("x", 1)):
        with pytest.raises(TypeError):
            change()
