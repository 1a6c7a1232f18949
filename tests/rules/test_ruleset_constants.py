"""Issue 15 item 4 — typed constants per ruleset: ruleset.yaml `constants` become the hooks' frozen
constants class (rs.const), checked when the file loads."""
from __future__ import annotations

import dataclasses

import pytest

from pbem.data.loader import load, load_from_tables, raw_tables
from pbem.errors import DataError
from pbem.rules.ruleset import Constants
from pbem.rules.rulesets.classic import ClassicConstants, DanesWithdrawal
from pbem.rules.rulesets.ffg2 import Ffg2Constants, LegionWithdrawal


def test_each_ruleset_has_its_constants_class():
    classic, ffg2 = load("classic"), load("ffg2")
    assert type(classic.const) is ClassicConstants and type(ffg2.const) is Ffg2Constants
    assert classic.const.hit_fast is None and ffg2.const.hit_fast == 4   # FFG 25
    assert classic.const.danes_withdrawal == DanesWithdrawal(round=14, armies=4, planned_invasion=6)   # 10.6
    assert ffg2.const.roman_legion_withdrawal == LegionWithdrawal(round=2, keep=12)   # FFG 32
    assert classic.const.roman_reinforce_rounds == (4, 5)   # 10.3


def test_constants_are_frozen_and_keep_the_written_numbers():
    rs = load("classic")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.const.hit = 4   # type: ignore[misc]
    # an int where a float is asked stays an int: the population the engine saves is logged as written
    assert load("ffg2").const.pop_max_saved_without_army == 5 and isinstance(load("ffg2").const.pop_max_saved_without_army, int)


def test_every_value_comes_from_ruleset_yaml():
    for ruleset in ("classic", "ffg2"):
        rs = load(ruleset)
        for f in dataclasses.fields(rs.const):
            value = getattr(rs.const, f.name)
            if f.name in rs.constants:
                raw = rs.constants[f.name]
                if dataclasses.is_dataclass(value):
                    assert dataclasses.asdict(value) == dict(raw)
                else:
                    assert value == (tuple(raw) if isinstance(raw, list) else raw)
            else:
                assert value is None and f.default is None


def test_overrides_reach_the_typed_constants():
    assert load("classic", {"ruleset.constants.move": 3}).const.move == 3


@pytest.mark.parametrize("change, key, words", [
    (lambda c: c.pop("hit_hard"), "constants.hit_hard", "missing"),
    (lambda c: c.update(roman_reinforce_to=2.5), "constants.roman_reinforce_to", "whole number"),
    (lambda c: c.update(danes_withdrawal={"round": 14, "armies": 4}), "constants.danes_withdrawal.planned_invasion", "missing"),
    (lambda c: c.update(roman_reinforce_rounds=5), "constants.roman_reinforce_rounds", "list"),
    (lambda c: c.update(hit_fastt=4), "constants.hit_fastt", "not a constant"),
])
def test_a_missing_or_mistyped_constant_names_the_file_and_key(change, key, words):
    t = raw_tables("classic")
    change(t["ruleset"]["constants"])
    with pytest.raises(DataError) as e:
        load_from_tables(t)
    assert e.value.file == "pbem/data/classic/ruleset.yaml" and e.value.key == key
    assert words in str(e.value)


def test_generic_constants_are_the_base_of_every_ruleset_class():
    assert issubclass(ClassicConstants, Constants) and issubclass(Ffg2Constants, ClassicConstants)
