"""Every error `pbem new --position` can find in a typed-in position, with the line it names, and the
warnings for legal but unusual positions. The base is tests/position/round9.yaml (valid, round 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.errors import PositionError
from pbem.position.file import read_position

BASE = (Path(__file__).parent / "round9.yaml").read_text(encoding="utf-8")


def edited(old: str, new: str, text: str = BASE) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def line_with(text: str, marker: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


def error_of(text: str) -> str:
    with pytest.raises(PositionError) as e:
        read_position(text, label="pos.yaml")
    return str(e.value)


# (test id, text replaced, replacement, what the error says, the text on the line it must name)
ERRORS = [
    ("rule-4.0-round-out-of-range", "round: 9", "round: 17", "must be a round number 1-16", "round: 17"),
    ("round-not-a-number", "round: 9", "round: nine", "must be a round number", "round: nine"),
    ("start-unknown", "start: nation_turn", "start: movement", "must be one of round_start", "start: movement"),
    ("start-game-over", "start: nation_turn", "start: game_over", "a finished game cannot be continued", "start:"),
    ("rule-4.0-nation-missing", "nation: Picts\n", "", "name the nation to move next", None),
    ("rule-4.0-nation-skipped", "nation: Picts", "nation: Normans", "their turn is skipped (4.0)", "nation: Normans"),
    ("round-start-with-a-nation", "start: nation_turn", "start: round_start", "has no nation to move", "nation: Picts"),
    ("nation-unknown", "nation: Picts", "nation: Vikings", "Vikings", "nation: Vikings"),
    ("area-unknown", "Alban: {Picts: 1}", "Albion: {Picts: 1}", "Albion", "Albion"),
    ("leader-unknown", "Alban: {Picts: 1}", "Alban: {Picts: {armies: 1, leaders: [Kenneth]}}", "Kenneth", "Alban:"),
    ("piece-kind-unknown", "Alban: {Picts: 1}", "Alban: {Picts: {armies: 1, ships: 2}}", "unknown piece kind", "Alban:"),
    ("stack-not-a-mapping", "Alban: {Picts: 1}", "Alban: {Picts: many}", "a stack is a number of armies", "Alban:"),
    ("nation-listed-twice", "Alban: {Picts: 1}", "Alban: {Picts: 1}\n  alban: {Picts: 1}", "listed twice",
     "alban: {Picts"),
    ("negative-armies", "Alban: {Picts: 1}", "Alban: {Picts: -1}", "armies cannot be negative", "Alban:"),
    ("rule-7.1-more-raiders-than-armies", "Irish Sea: {Scots: {armies: 3, raiders: true}}",
     "Irish Sea: {Scots: {armies: 3, raiders: 4}}", "4 raiders but only 3 armies", "Irish Sea:"),
    ("rule-10.4-fort-not-roman", "Kent: {Saxons: 1}", "Kent: {Saxons: {armies: 1, fort: true}}",
     "only the Romans build forts", "Kent:"),
    ("burhs-at-sea", "Irish Sea: {Scots: {armies: 3, raiders: true}}", "Irish Sea: {Scots: 3, Saxons: {burhs: 1}}",
     "forts and burhs stand on land", "Irish Sea:"),
    ("rule-7.13-raiders-ashore", "Skye: {Scots: 1}", "Skye: {Scots: {armies: 1, raiders: 1}}", "raiders ashore",
     "Skye:"),
    ("rule-7.0-never-at-sea", "Irish Sea: {Scots: {armies: 3, raiders: true}}",
     "Irish Sea: {Scots: {armies: 3, raiders: true}, Welsh: 1}", "never go to sea", "Irish Sea:"),
    ("piece-limit-armies", "Irish Sea: {Scots: {armies: 3, raiders: true}}", "Irish Sea: {Scots: 11}",
     "the Scots have 12 armies on the board; the ruleset has 11", "Irish Sea:"),
    ("piece-limit-cavalry", "Alban: {Picts: 1}", "Alban: {Picts: {armies: 1, cavalry: 1}}",
     "the Picts have 1 cavalry on the board; the ruleset has 0", "Alban:"),
    ("turn-record-chart-not-arrived", "Frisian Sea: {Angles: {armies: 1, raiders: true}}",
     "Frisian Sea: {Angles: {armies: 1, raiders: true}}\n  North Sea: {Danes: 3}", "the Danes arrive in round 11",
     "North Sea:"),
    ("turn-record-chart-arrives-at-own-turn", "round: 9", "round: 4", "the Angles arrive in round 4", "Bernicia:"),
    ("rule-10.5-romano-british-too-early", "round: 9", "round: 5", "the Romano-British come in round 6", "Cornwall:"),
    ("rule-10.5-romans-gone", "Kent: {Saxons: 1}", "Kent: {Romans: 1}", "the Romans leave at the start of round 6",
     "Kent:"),
    ("rule-9.0-leader-of-another-nation", "Alban: {Picts: 1}", "Alban: {Picts: {armies: 1, leaders: [Offa]}}",
     "Offa leads the Angles, not the Picts", "Alban:"),
    ("rule-9.0-leader-before-its-round", "North Mercia: {Brigantes: 2}",
     "North Mercia: {Brigantes: 2}\n  Cumbria: {Angles: {armies: 1, leaders: [Offa]}}", "Offa is on the board from",
     "Cumbria:"),
    ("rule-9.0-leader-before-its-turn", "Norfolk: {Angles: 1}", "Norfolk: {Angles: {armies: 1, leaders: [Oswiu]}}",
     "not in round 9 before their turn", "Norfolk:"),
    ("rule-9.2-dead-leader", "Cornwall: {Romano-British: 2}",
     "Cornwall: {Romano-British: {armies: 2, leaders: [Arthur]}}", "Arthur is dead", "Cornwall:"),
    ("rule-8.0-battle-unfought", "Kent: {Saxons: 1}", "Kent: {Saxons: 1, Angles: 1}", "Angles and Saxons both hold Kent",
     "Kent:"),
    ("rule-2.24-never-increase", "population: {Angles: 1,", "population: {Romans: 1, Angles: 1,",
     "never increase population", "population:"),
    ("rule-10.1-saved-count-too-big", "Caledonians: 2, Irish: 1", "Caledonians: 3, Irish: 1", "a saved count is 0 to 2.5",
     "population:"),
    ("rule-10.1-saved-count-steps", "Caledonians: 2, Irish: 1", "Caledonians: 0.3, Irish: 1", "in steps of 0.5",
     "population:"),
    ("rule-10.4-forts-built-at-sea", "forts_built: [Avalon,", "forts_built: [North Sea, Avalon,",
     "is a sea: forts are built on land", "forts_built:"),
    ("rule-11-subject-of-itself", "  dead_leaders: [Arthur]", "  subjects: {Welsh: Welsh}\n  dead_leaders: [Arthur]",
     "cannot submit to itself", "subjects:"),
    ("vp-not-a-number", "vp: {Angles: 18,", "vp: {Angles: lots,", "must be a number", "vp:"),
    ("state-key-unknown", "  dead_leaders: [Arthur]", "  treasury: 5\n  dead_leaders: [Arthur]", "unknown key",
     "treasury:"),
    ("top-key-unknown", "rules: classic", "rules: classic\nweather: rain", "unknown key", "weather:"),
    ("rules-other", "rules: classic", "rules: duel", "the position is for 'duel'", "rules: duel"),
    ("format-other", "format: 1", "format: 2", "position format 1", "format: 2"),
    ("setup-misspelt", "setup:\n", "setpu:\n", "unknown key", "setpu:"),
]


@pytest.mark.parametrize("old,new,message,marker", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_names_the_line(old, new, message, marker):
    text = edited(old, new)
    err = error_of(text)
    assert message in err
    if marker is not None:
        line = line_with(text, marker)
        assert any(f"pos.yaml:{line}:" in x and message in x for x in err.splitlines()), err
    else:
        assert "pos.yaml" in err


def test_rule_9_0_leader_on_the_board_twice():
    text = edited("Norfolk: {Angles: 1}", "Norfolk: {Angles: {armies: 1, leaders: [Ida]}}")
    text = edited("York: {Angles: 2}", "York: {Angles: {armies: 2, leaders: [Ida]}}", text)
    text = edited("round: 9", "round: 7", text)
    err = error_of(text)
    assert f"pos.yaml:{line_with(text, 'York:')}: setup.York.Angles: Ida is on the board twice" in err


def test_rule_5_2_stacking_one_larger_group_only():
    text = edited("Gwynedd: {Welsh: 1}", "Gwynedd: {Welsh: 4}")
    read_position(text, label="pos.yaml")   # one group above the limit is allowed
    text = edited("Powys: {Welsh: 1}", "Powys: {Welsh: 3}", text)
    err = error_of(text)
    for area in ("Gwynedd", "Powys"):
        assert f"pos.yaml:{line_with(text, area + ':')}: setup.{area}.Welsh: " in err
    assert err.count("break the stacking limits") == 2


def test_setup_missing():
    text = BASE[:BASE.index("setup:")]
    assert "setup: missing" in error_of(text)


def test_setup_not_a_mapping():
    text = edited("setup:\n  Alban: {Picts: 1}", "setup: [Alban]\nnotes:\n  Alban: {Picts: 1}")
    assert "setup: must map areas to their pieces" in error_of(text)


def test_not_yaml_and_not_a_mapping():
    assert "not YAML" in error_of("round: [9\n")
    assert "a position is a mapping" in error_of("- round 9\n")


def test_every_error_is_listed_at_once():
    text = edited("Kent: {Saxons: 1}", "Kent: {Romans: 1}")
    text = edited("Alban: {Picts: 1}", "Alban: {Picts: -1}", text)
    err = error_of(text)
    assert err.splitlines()[0] == "pos.yaml: 3 errors in the position:"   # Kent's armies fight too (8.0)
    assert "the Romans leave" in err and "armies cannot be negative" in err


def test_the_base_position_is_clean():
    pos = read_position(BASE, label="pos.yaml")
    assert pos.warnings == [] and pos.state.next_nation == "picts" and pos.state.round == 9


# --- warnings: legal, but unusual -------------------------------------------------------------------
WARNINGS = [
    ("rule-6.0-overpopulated", "Wessex: {Saxons: 2}", "Wessex: {Saxons: 3}\n  Cumbria: {Saxons: 6}",
     "overpopulation (6.0)"),
    ("leader-without-armies", "Pennines: {Angles: 2}\n", "Pennines: {Angles: 2}\n  Cumbria: {Angles: {leaders: [Oswiu]}}\n",
     "Oswiu stands without Angles armies"),
    ("negative-vp", "vp: {Angles: 18,", "vp: {Angles: -2,", "the Angles have -2 victory points"),
]


def test_warnings_do_not_stop_the_import():
    for name, old, new, message in WARNINGS:
        text = edited(old, new)
        if "Oswiu" in new:
            text = edited("nation: Picts", "nation: Normans", text).replace("nation: Normans", "start: end_of_round") \
                .replace("start: nation_turn\n", "")
        pos = read_position(text, label="pos.yaml")
        assert any(message in w for w in pos.warnings), (name, pos.warnings)
        assert all(w.startswith("pos.yaml:") for w in pos.warnings)


def test_rule_10_4_a_fort_on_the_board_counts_as_built():
    text = edited("round: 9", "round: 3")
    text = text[:text.index("setup:")] + "setup:\n  Kent: {Romans: {armies: 2, fort: true}}\n  York: {Brigantes: 1}\n"
    text = edited("nation: Picts", "nation: Brigantes", text)
    pos = read_position(text, label="pos.yaml")
    assert "kent" in pos.state.forts_built
    assert any("not listed among the forts ever built" in w for w in pos.warnings)


def test_rule_12_1_bretwalda_before_the_voting_rounds():
    text = BASE + "  bretwalda: Picts\n"
    text = edited("round: 9", "round: 8", text)
    pos = read_position(text, label="pos.yaml")
    assert any("a Bretwalda before round 9" in w for w in pos.warnings)


def test_fuzzed_files_give_an_error_never_a_traceback():
    """Never a traceback for bad input: random damage to the file is a PositionError (or still valid)."""
    import random

    rnd = random.Random(22)
    lines = BASE.splitlines()
    junk = ["", "-1", "x", "[", "{a: 1}", "true", "9.5", "[Kent, 3]", "null", ":", "Essex", "{armies: x}", ".inf",
            "{Picts: {armies: .inf}}", "{Picts: {leaders: Oswiu}}", "{Picts: {fort: [1]}}", "[[1]]", "2026-01-01",
            "{Picts: {leaders: [3]}}", "{1: 2}", "0x10"]
    for _ in range(600):
        cut = list(lines)
        for _ in range(rnd.randint(1, 3)):
            i = rnd.randrange(len(cut))
            line = cut[i]
            if rnd.random() < 0.3:
                del cut[i]
            elif ":" in line:
                head, _, _ = line.partition(":") if rnd.random() < 0.5 else line.rpartition(":")
                cut[i] = f"{head}: {rnd.choice(junk)}"
            else:
                cut[i] = line + rnd.choice(junk)
        try:
            read_position("\n".join(cut) + "\n", label="fuzz.yaml")
        except PositionError:
            pass


def test_rule_12_3_king_before_the_king_rounds():
    pos = read_position(BASE + "  kings: [Saxons]\n", label="pos.yaml")
    assert any("a King before round 12" in w for w in pos.warnings)


def test_rule_9_0_dead_before_arriving_and_killed_means_dead():
    text = edited("dead_leaders: [Arthur]", "dead_leaders: [Arthur, Alfred]")
    text = edited("leader_killed_by: {Arthur: Saxons}", "leader_killed_by: {Arthur: Saxons, Oswiu: Picts}", text)
    pos = read_position(text, label="pos.yaml")
    assert any(f"pos.yaml:{line_with(text, 'dead_leaders:')}: state.dead_leaders: Alfred is dead before round 12" in w
               for w in pos.warnings), pos.warnings
    assert any("Oswiu was killed but is not among the dead leaders" in w for w in pos.warnings)
    assert "oswiu" in pos.state.dead_leaders


def test_forms_of_the_blocks():
    """Each block has its form: an area maps nations, `state` and its records are mappings or lists."""
    text = edited("Alban: {Picts: 1}", "Alban: [Picts]")
    assert f"pos.yaml:{line_with(text, 'Alban:')}: setup.Alban: must map nations to pieces" in error_of(text)
    text = edited("population: {Angles: 1,", "population: [Angles, 1,").replace("0.5}", "0.5]")
    assert "state.population: must be a mapping" in error_of(text)
    text = edited("forts_built: [Avalon, Cornwall, Devon, Downlands, Essex, Kent, Sussex, Wessex]", "forts_built: {Kent: 1}")
    assert f"pos.yaml:{line_with(text, 'forts_built:')}: state.forts_built: must be a list of names" in error_of(text)
    text = BASE[:BASE.index("state:")] + "state: [vp]\n"
    assert "state: must be a mapping" in error_of(text)


def test_a_file_that_cannot_be_read(tmp_path):
    from pbem.position.file import read_position_file

    with pytest.raises(PositionError, match="cannot read"):
        read_position_file(tmp_path / "missing.yaml")
    (tmp_path / "latin1.yaml").write_bytes("round: 9 # Æthelred\n".encode("latin-1"))
    with pytest.raises(PositionError, match="cannot read"):
        read_position_file(tmp_path / "latin1.yaml")
