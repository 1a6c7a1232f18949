"""Issue 3 — `pbem rules show`: the ruleset data as plain text, <= 72 columns."""

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.data.loader import load

RS = load("classic")


def show(*args, ok=True):
    r = CliRunner().invoke(cli, ["rules", "show", *args])
    if ok:
        assert r.exit_code == 0, r.output
        for line in r.output.splitlines():
            assert len(line) <= 72, line
    return r


def flat(text):
    """The output with line wrapping undone (wrapping depends on the width, not the facts)."""
    return " ".join(text.split())


def test_rules_is_a_group_with_show():
    r = CliRunner().invoke(cli, ["rules", "--help"])
    assert r.exit_code == 0 and "show" in r.output


def test_summary():
    out = show("classic").output
    assert "Britannia (Avalon Hill classic rules" in out
    assert "Ruleset classic, data version 2" in out and "no overrides" in out
    assert "37 land areas (Wales 7, Scotland 10, England 20), 17 hiland" in out
    assert "6 seas; 4 straits" in out
    assert "1 Romans (R)" in out and "17 Normans (N)" in out
    assert "end of turns 4, 7, 10, 13, 16" in out and "end of turn 5" in out
    assert "Bretwalda: 2 points" in out and "King: 4 points" in out
    assert "Saxons 4, Normans 5, Norwegians 5" in out
    assert "Welsh 5, Brigantes 4, Picts 3" in out
    assert "4 players:" in out and "3 players (doubt 8: provisional)" in out
    for d in RS.doubts:
        assert f"\n  {d['n']} [{d['status']}] {d['topic']}" in out


def test_summary_is_the_default_ruleset():
    assert show().output == show("classic").output


def test_area_york():
    out = show("classic", "--area", "York").output
    assert out.startswith("York (york): England, clear, coastal")
    assert "Land neighbours: Bernicia, Cheshire, Lindsey, March, North Mercia,\n  Pennines" in out
    assert "Seas: Frisian Sea, North Sea" in out
    assert "Starting armies (3.0): Brigantes 1" in out
    assert "Brigantes: hold 2 (turns 4, 13, 16); 4 (turns 7, 10)" in out
    assert "Romans: capture 2 (turns 1-3), Limes 6 (end of turn 5)" in out
    assert "Danes: hold 8 (turns 13, 16), capture 2 (turn 11); 8 (turn 12)" in out
    assert "doubt 19:" in out and "doubt 17:" in out
    assert "May not land here:" in out and "Dubliners" in out


def test_area_by_alias_and_prefix_case_insensitive():
    assert show("--area", "clywd").output == show("--area", "Clwyd").output
    assert show("--area", "n. mercia").output == show("--area", "NORTH_MERCIA").output
    out = show("--area", "Linds").output
    assert out.startswith("Lindsey (lindsey)") and "doubt 2:" in out and "doubt (Lindsey, terrain)" in out


def test_area_with_straits_and_settled_doubt():
    out = show("--area", "Devon").output
    assert "Straits (5.15): Dyfed, Gwent" in out
    out = show("--area", "Cornwall").output
    assert "settled (Cornwall" in out and "5.15" in out


def test_area_that_is_a_sea():
    out = show("--area", "Irish Sea").output
    assert out.startswith("Irish Sea (irish_sea): sea")
    assert "Coast: Cheshire, Cumbria, Dalriada, Galloway, Strathclyde" in out
    assert "doubt 1:" in out
    out = show("--area", "Channel").output
    assert "At sea from the start (3.0): Romans 15" in out
    assert "Land only from here, never to another sea: Romans, Normans" in out


def test_round_7():
    out = show("classic", "--round", "7").output
    assert out.startswith("Turn 7 of 16")
    assert "Romano-British: 2 cavalry, placed as population increase" in out
    assert "Angles: 7 armies, North Sea, invaders" in out
    assert "Scots: 3 armies, Irish Sea, raiders" in out
    assert "Major invasions (7.3): Scots, Angles" in out
    assert "Arthur (Romano-British)" in out and "Urien (Brigantes; doubt 6)" in out
    assert "Boats (5.4): Irish, Scots, Jutes, Saxons, Angles" in out
    assert "Holding points at the end of the turn (occasion 2 of 5" in out
    assert "doubt 15:" in out and "doubt (turn 7, Urien)" in out


def test_round_1_shows_the_romans_at_sea_and_the_settled_doubt():
    out = show("--round", "1").output
    assert "Romans: 15 armies in the English Channel from the start (3.0)" in out
    assert "settled (turn 1, Romans arrival): 3.0" in out


def test_round_14_danes():
    out = show("--round", "14").output
    assert "Danes: 6 armies, Frisian Sea, invaders" in out
    assert "Canute may become King (4 points, 12.4)" in out
    assert "King check" in out and "doubt 13:" in out


def test_round_16_king():
    out = show("--round", "16").output
    assert "King among Harold, William, Harald Hardrada only" in out


def test_round_5_limes_and_9_bretwalda():
    assert "Roman Limes points" in show("--round", "5").output
    assert "Bretwalda vote (2 points" in show("--round", "9").output


def test_nation_saxons():
    out = flat(show("classic", "--nation", "Saxons").output)
    assert out.startswith("Saxons (saxons), code SX, colour red (4 players)")
    assert "Order of play: 15 of 17, after the Jutes and before the Angles" in out
    assert "Pieces: 20 armies, 8 burhs" in out
    assert "Landing (7.4): only in" in out and "(7.47)" in out
    assert "Harold (turn 15, to the end)" in out and "Aelle (turn 6, doubt 6)" in out
    assert "King in turn 16 (Harold): 4 (12.5)" in out
    assert "Hold, end of turns 10, 13, 16:" in out
    assert "Player colour (13.0): 3 players red, 4 players red, 5 players red" in out
    assert "doubt 6:" in out and "doubt (Saxons, Aelle)" in out


def test_nation_that_never_increases():
    out = show("--nation", "norw").output
    assert "Population: never increases (2.24)" in out
    assert "from the North Sea only" in out and "never to another sea" in out


def test_nation_romano_british_and_romans():
    out = show("--nation", "romano-british").output
    assert "increases from turn 7 (10.5)" in out and "Arthur (turn 7)" in out
    out = show("--nation", "Romans").output
    assert "Start (3.0): English Channel 15" in out and "no overpopulation limit (6.0)" in out
    assert "Limes, end of turn 5:" in out


@pytest.mark.parametrize("args, message", [
    (["--nation", "Sax"], "Did you mean Saxons?"),
    (["--nation", "York"], "York is an area, not a nation"),
    (["--area", "Nort"], "'Nort' matches more than one area or sea: North Mercia, North Sea"),
    (["--area", "Esex"], "Did you mean Essex"),
    (["--round", "17"], "no turn 17"),
    (["chess"], "unknown ruleset"),
    (["--override", "ruleset.constants.mvoe=3"], "did you mean move"),
])
def test_errors_exit_1_with_a_message(args, message):
    r = show(*args, ok=False)
    assert r.exit_code == 1
    assert message in r.output


def test_override_is_shown_in_the_header():
    out = show("--override", "ruleset.constants.move=3").output
    assert "1 override:\n  ruleset.constants.move = 3" in out
    out = show("--round", "3", "--override", "ruleset.constants.move=3").output
    assert out.startswith("Ruleset classic, data version 2") and "Turn 3 of 16" in out


def test_malformed_override_is_a_usage_error():
    r = show("--override", "nonsense", ok=False)
    assert r.exit_code == 2


def test_several_views_at_once():
    out = show("--area", "Kent", "--nation", "Jutes", "--round", "4").output
    assert "Kent (kent)" in out and "Jutes (jutes)" in out and "Turn 4 of 16" in out


def test_every_area_sea_nation_and_turn_renders_within_72_columns():
    from pbem.commands.rules import area_text, nation_text, round_text, summary_text

    texts = [summary_text(RS)]
    texts += [area_text(RS, a) for a in [*RS.areas, *RS.seas]]
    texts += [nation_text(RS, n) for n in RS.nations]
    texts += [round_text(RS, r) for r in RS.rounds]
    for lines in texts:
        for line in lines:
            assert len(line) <= 72, line
            assert "None" not in line and "frozenset" not in line, line


def test_optional_rules_are_listed_and_ireland_said_not_playable():
    """Issue 31 — classic 16.1 and 16.251 as per-game options (game.yaml `options`), 16.2 not playable."""
    out = flat(show("classic").output)
    assert "16.1 Pict raiders [not in play; option pict_raiders]" in out
    assert "16.251 Brittany [not in play; option brittany]" in out
    assert "16.2 Ireland (Schmidt variant) [not playable]" in out
    on = flat(show("classic", "--override", "ruleset.optional_rules.brittany.play=true").output)
    assert "16.251 Brittany [in play; option brittany]" in on
