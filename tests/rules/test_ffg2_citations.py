"""Issue 30 item 5 — each ruleset speaks its own rules: over a played FFG 2nd edition game, the replies
to (deliberately wrong) orders and the prompts cite the FFG differences ("FFG 10") or mark a rule the
FFG rules share with the classic ones ("shared classic rule 5.1"), never a bare classic section number.
The generic rules' messages keep citing the classic sections (the logged events keep their bytes);
the family's Rules.cite rewrites them at display, from ruleset.yaml `citations`."""
from __future__ import annotations

import re

import pytest

from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.orders.check import check_orders
from pbem.orders.reply import order_warnings, render_reply
from pbem.report.prompt import prompt_text
from tests.bots.conftest import game_positions

BARE = re.compile(r"(?<!classic )\b[Rr]ules? \d+\.\d+")
"""a classic section cited as if it were this ruleset's own: "rule 10.2" not preceded by "classic\""""


@pytest.fixture(scope="module")
def ffg():
    return load("ffg2")


def positions(rs, seed: int):
    return game_positions(rs, seed, "random")


def wrong_orders(rs, state, nation: str) -> str:
    """A mail that asks too much: every stack to every neighbour, new armies into every area."""
    lines = [f"NATION {rs.nations[nation].name}"]
    for area in state.areas_of(nation):
        n = state.areas[area][nation].armies if hasattr(state.areas[area][nation], "armies") else 1
        for b in sorted(rs.neighbours(area)):
            lines.append(f"{max(n, 1)} {rs.display(area)} -> {rs.display(b)}")
    lines.append("PLACE " + ", ".join(rs.display(a) for a in sorted(rs.areas)[:6] if rs.is_land(a)))
    return "\n".join(lines) + "\n"


def test_cite_rewrites_classic_sections_into_ffg_numbers(ffg):
    say = ffg.rules.cite
    assert say(ffg, "no second army in Kent (rule 10.2, 5.2)") == "no second army in Kent (FFG 10, FFG 13)"
    assert say(ffg, "too many (rules 5.12, 5.13, 9.1)") == "too many (FFG 15, shared classic rules 5.12, 9.1)"
    assert say(ffg, "exempt (rule 6.0)") == "exempt (FFG 12)"
    classic = load("classic")
    assert classic.rules.cite(classic, "exempt (rule 6.0)") == "exempt (rule 6.0)"


def test_ffg2_replies_and_prompts_cite_no_bare_classic_rule(ffg):
    raw_bare, own, bare = 0, 0, []
    for state in positions(ffg, 3)[::7]:
        nation = state.next_nation
        if nation is None:
            continue
        r = check_orders(wrong_orders(ffg, state, nation), ffg, state, nation=nation)
        raw_bare += sum(len(BARE.findall(p.message)) for p in r.problems)
        texts = [render_reply(r, ffg, warnings=order_warnings(r, ffg, state, nation)),
                 prompt_text("g", ffg, state, [nation], what="your orders", deadline="soon")]
        for text in texts:
            own += text.count("FFG ") + text.count("shared classic")
            bare += BARE.findall(text)
    assert raw_bare > 0, "the generic messages cite classic sections: the scan must meet some"
    assert own > 0
    assert bare == []


def test_rules_show_ffg2_cites_ffg_numbers():
    from click.testing import CliRunner

    from pbem.cli import cli

    ffg = CliRunner().invoke(cli, ["rules", "show", "ffg2"]).output
    classic = CliRunner().invoke(cli, ["rules", "show", "classic"]).output
    assert "Order of play (FFG 4):" in ffg and "(FFG 35)" in ffg and "(classic 14.2)" in ffg
    assert re.findall(r"\(\d+\.\d+\)", ffg) == []
    assert "(14.2)" in classic and "Order of play (4.0):" in classic  # classic speaks its own numbers
    assert max(len(line) for line in ffg.splitlines()) <= 72


def test_ffg2_turn_reports_cite_no_bare_classic_rule(ffg):
    from pbem.report import report_text
    from pbem.report.facts import build_report

    g = BotGame(ffg, 4, bot="random")
    steps = []
    inner = g.on_step
    g.on_step = lambda step: (steps.append(step), inner(step))[1]
    g.play()
    settings = {"id": "g", "dice": {"commitment": "c0ffee"}, "players": []}
    raw_bare, bare = 0, []
    for step in steps:
        if step.nation is None:
            continue
        report = build_report(ffg, step.state, step.events, settings, played=step.nation, round_played=step.round)
        raw_bare += len(BARE.findall(report_text(report)))
        bare += BARE.findall(report_text(report, rs=ffg))
    assert raw_bare > 0, "the generic event lines cite classic sections: the scan must meet some"
    assert bare == []


RUSSIAN_BARE = re.compile(r"(?<!FFG )\b[Пп]равил[а-я]* \d+\.\d+(?:, \d+\.\d+)*(?![\d.,]| \(общие)")
"""a classic section cited in a Russian text as if it were this ruleset's own ("правило 10.2")."""


def test_ffg2_russian_replies_cite_ffg_numbers_too(ffg):
    """Issue 30 item 5 in a Russian player's reply: "правило 10.2" became "FFG 10" as in English, and a
    shared section says it is shared ("правила 5.12, 5.13 (общие с классическими)")."""
    assert ffg.rules.cite(ffg, "нельзя (правило 10.2, 5.2)") == "нельзя (FFG 10, FFG 13)"
    assert ffg.rules.cite(ffg, "(правила 5.12, 5.13)") == "(FFG 15, правила 5.12 (общие с классическими))"
    own, bare = 0, []
    for state in positions(ffg, 3)[::9]:
        nation = state.next_nation
        if nation is None:
            continue
        r = check_orders(wrong_orders(ffg, state, nation), ffg, state, nation=nation)
        text = render_reply(r, ffg, warnings=order_warnings(r, ffg, state, nation, language="ru"), language="ru")
        own += text.count("FFG ") + text.count("общие с классическими")
        bare += RUSSIAN_BARE.findall(text)
    assert own > 0
    assert bare == []


def test_the_guides_ffg2_order_list_cites_ffg_numbers(ffg):
    """Issue 30 item 5: the players' guide's list of ffg2's order forms cites ffg2's own rules."""
    from pbem.orders.language import guide_lines

    lines = "\n".join(line.split("`: ", 1)[-1] for line in guide_lines(ffg))  # the meanings, not the syntax
    assert "(FFG 10)" in lines and "(FFG 12)" in lines
    assert BARE.findall(lines) == []
