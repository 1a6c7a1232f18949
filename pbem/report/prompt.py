"""The prompt mail: what a nation may do this turn, from pbem.rules.preview (the turn code itself).

Rendered from templates/prompt.txt.j2. Every prompt names the players' guide (docs/PLAYERS.md, also
attached to the mail) for the whole order language.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pbem.orders.language import prompt_words
from pbem.rules.events import units
from pbem.rules.preview import TurnStart, no_army_reason, turn_start
from pbem.rules.turn import cycles
from pbem.templating import render

GUIDE_NAME = "PLAYERS.md"


def order_words(language: str, rs) -> str:
    """The order words of a ruleset in one line (pbem.orders.language.prompt_words), in `language`:
    each line's first words as a player of that language writes them (pbem.guide.in_russian)."""
    if language == "en":
        return prompt_words(rs)
    from pbem.guide import in_russian
    from pbem.i18n import _, tr
    from pbem.orders.language import language as order_language
    from pbem.orders.language import lead_words
    from pbem.orders.phrases import form_text

    return ", ".join(in_russian(lead_words(f), rs) if f.leading_word
                     else tr(language, _("moves (%(form)s)"), form=form_text(language, f.syntax.split("  or  ", 1)[0]))
                     for f in order_language(rs).order_forms())


def guide_name(language: str = "en") -> str:
    """The file name of the players' guide in `language` (docs/PLAYERS.md, docs/PLAYERS.ru.md)."""
    from pbem.i18n import GUIDES

    return GUIDES.get(language, GUIDE_NAME)


def players_guide(language: str = "en") -> bytes:
    """The players' guide as shipped: docs/PLAYERS.md (PLAYERS.<language>.md) beside the package, or
    pbem/docs in an install."""
    import pbem

    pkg = Path(pbem.__file__).resolve().parent
    name = guide_name(language)
    for p in (pkg.parent / "docs" / name, pkg / "docs" / name):
        if p.is_file():
            return p.read_bytes()
    return b""


def move_lines(rs, start: TurnStart, state=None) -> list[str]:
    """One line per group: where it stands and every place it can reach, next-door areas by name and
    farther ones with the whole path to write (rules 5.1-5.5, 7.11: the same search the validator uses).
    With `state`, every path listed is one the validator accepts as a move of its own (issue 30): one
    army of the group, or the leader (after its LEADER line when it arrives this turn); a path refused
    alone (a leader that may not end without armies, a sea invaders may not stay in) is left out."""
    out = []
    settled: dict[tuple[str, ...], object] = {}     # the LEADER lines -> the position after the population phase
    for g in start.groups:
        what = rs.display(g.leader) if g.kind == "leader" else units(g.count, g.kind)
        paths = {d: path for d, path in g.destinations.items()
                 if state is None or _accepted(rs, state, start, g, path, settled)}
        near = sorted(rs.display(d) for d, path in paths.items() if len(path) == 2)
        far = sorted((len(path), " -> ".join(rs.display(p) for p in path)) for d, path in paths.items()
                     if len(path) > 2)
        dests = ", ".join(near + [p for _, p in far]) or "nowhere"
        alone = " (on its own; with armies of theirs moving along it may end where they do)" \
            if g.kind == "leader" and len(paths) < len(g.destinations) else ""
        out.append(f"{what} in {rs.display(g.start)}: {dests}{alone}")
    return out


def _accepted(rs, state, start: TurnStart, group, path, settled: dict | None = None) -> bool:
    """Whether the move of one piece of `group` along `path` alone passes the validator (check_turn:
    no problem on its line).

    A move line is judged when the movement carries it out (5.1-5.5, 7.11: refused there or not at
    all), so only the movement is played for each path: the population phase, which only the
    LEADER lines before it change, is played once for all the paths of the same LEADER lines
    (`settled`); each path from the movement (a start the engine has for corrections) on the position it
    leaves, to the end of that movement. tests/report/test_prompt_paths.py checks that this accepts
    exactly the paths the whole turn, played from its start for each, accepts, over bot games of every
    ruleset (issue 33: the prompt of each turn of an archived game's site played ~30 whole turns)."""
    from pbem.orders.parser import parse_message
    from pbem.rules.dice import NeutralDice
    from pbem.rules.orders import NationOrders
    from pbem.rules.turn import play_nation_turn

    head = rs.display(group.leader) if group.kind == "leader" else (
        "1 cavalry" if group.kind == "cavalry" else "1")
    enter = tuple(f"LEADER {rs.display(ld.leader)} IN {rs.display(ld.area)}" for ld in start.leaders
                  if ld.leader == group.leader)
    text = "\n".join([*enter, f"{head} {' -> '.join(rs.display(p) for p in path)}"]) + "\n"
    section = parse_message(text, rs, default_nation=start.nation).section(start.nation)
    if section is None:
        return False
    line = len(enter) + 1
    settled = {} if settled is None else settled
    after = settled.get(enter)
    if after is None:
        first = NationOrders(start.nation, [o for o in section.orders if o.line != line])
        after = settled[enter] = play_nation_turn(rs, state, start.nation, {start.nation: first}, NeutralDice(),
                                                  stop="after_population", strict=False).state
    played = play_nation_turn(rs, after, start.nation, {start.nation: section}, NeutralDice(), start="movement",
                              stop="after_movement", strict=False)
    return not any(p.line == line for p in played.problems)


def turn_lines(rs, state, nation: str) -> list[str]:
    """What the nation gets and may do this turn (prompt and report 'NEXT' section)."""
    s = turn_start(rs, state, nation)
    name = rs.display(nation)
    lines = []
    own = rs.rules.population_prompt(rs, state, nation)   # a family with its own economy writes its lines
    if own is not None:
        lines += own
    elif not s.increases:
        lines.append(f"New armies: none (the {name} do not increase population this turn).")
    elif not s.new_armies:
        lines.append(f"New armies: none (population count {s.count:g}, {s.saved_before:g} of it saved; "
                     f"{no_army_reason(rs, s)}).")
    else:
        lines.append(f"New armies: {s.new_armies} (population count {s.count:g}, {s.saved_before:g} of it saved). "
                     f"PLACE them in: {', '.join(rs.display(a) for a in s.places)}")
    for a in s.arrivals:
        word = "raider" if a.raiders else "invader"
        lines.append(f"Arriving: {a.armies} {word}{'' if a.armies == 1 else 's'} in the {rs.display(a.sea)}"
                     + (" (after the raid: WITHDRAW or SETTLE)" if a.raiders else "")
                     + rs.rules.arrival_note(rs, a.raiders))
    if cycles(rs, state, nation) == 2:
        lines.append("Major invasion: two movements this turn, each followed by its battles. Write the moves "
                     "of the first, then a line SECOND MOVEMENT, then the moves of the second.")
    for ld in s.leaders:
        lines.append(f"Leader arriving: {rs.display(ld.leader)} (LEADER {rs.display(ld.leader)} IN <area>: "
                     f"{', '.join(rs.display(a) for a in ld.choices)}; else {rs.display(ld.area)})")
    moves = move_lines(rs, s, state)
    if moves:
        lines.append("Moves (next-door areas by name; farther ones with the path to write):")
        lines += [f"  {m}" for m in moves]
    return lines


def prompt_text(game_id: str, rs, state, nations: Sequence[str], *, what: str, deadline: str,
                reminder: bool = False, guide_url: str = "", draft: str = "", still_wrong: Sequence[str] = (),
                language: str = "en") -> str:
    """The prompt (or reminder) for `nations`; `still_wrong`: what the rules refuse in the orders waiting
    (our reply to their mail said so; the lines are the mail's), repeated so the player need not look it up."""
    from pbem.i18n import name

    names = ", ".join(name(language, rs, n) for n in nations)
    from pbem.report.localize import turn_line

    turn = [] if state.next_nation is None else [turn_line(language, rs, t) for t in turn_lines(rs, state, nations[0])]
    text = render("prompt.txt.j2", language=language, game=game_id, round=state.round, what=what, names=names,
                  first=name(language, rs, nations[0]), deadline=deadline, rules=rs.name, reminder=reminder, turn=turn,
                  order_words=order_words(language, rs),
                  vote_lines=[] if state.next_nation is not None else [turn_line(language, rs, t)
                                                                       for t in _vote_lines(rs, state)],
                  guide_url=guide_url, guide_name=guide_name(language), draft=draft.splitlines(),
                  still_wrong=list(still_wrong))
    return rs.rules.cite(rs, text)  # the ruleset's own rule numbers (issue 30 item 5)


def _vote_lines(rs, state) -> list[str]:
    from pbem.rules.legal import vote_options

    votes = vote_options(rs, state)
    return ["Bretwalda vote (rule 12.2), votes by nation: "
            + (", ".join(f"{rs.display(n)} {v}" for n, v in votes.items()) or "none"),
            "send: VOTE <nation>"]


GUIDE_LINE = ("Players' guide attached as PLAYERS.md: the whole order language with examples, what the "
              "reply and the report show, and how to check the dice.")


def guide_line(language: str = "en") -> str:
    """GUIDE_LINE in `language`, naming its guide."""
    from pbem.i18n import _, tr

    return tr(language, _("Players' guide attached as %(name)s: the whole order language with examples, what the "
                          "reply and the report show, and how to check the dice."), name=guide_name(language))


def guide_attachments(language: str = "en") -> list[tuple[str, bytes, str]]:
    """The players' guide (in `language`) as a mail attachment (none if the guide is not shipped)."""
    guide = players_guide(language)
    return [(guide_name(language), guide, "text/markdown")] if guide else []
