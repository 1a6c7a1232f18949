"""Read orders back: parse, then (with a position) ask the rules core whether they are legal.

`check_orders(text, ruleset, state=None, nation=None, validate=None) -> CheckResult` is what a
player's reply is made of: every line read, in canonical form, with OK or its problems. The rules are
NOT repeated here: legality comes from the rules core, which plays the nation's whole turn from the
position (`pbem.rules.legal.check_turn`: validation = adjudication); a test may pass its own
`validate(ruleset, state, nation_orders) -> [OrderProblem]`. Orders of a nation that does not move
next are checked against today's position too (`CheckResult.later`): the reply says they are
checked again when that nation's turn comes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pbem.errors import OrderProblem
from pbem.orders.canonical import canonical
from pbem.orders.parser import ParsedMessage, parse_message
from pbem.rules.legal import TurnCheck, check_turn
from pbem.rules.orders import ClearDefend, Losses, NationOrders, Order, Vote, standing_key
from pbem.rules.state import GameState

Validator = Callable[[Any, GameState, NationOrders], list[OrderProblem]]


@dataclass
class CheckedLine:
    line: int
    text: str                      # the original line
    nation: str | None
    order: Order | None
    canonical: str | None          # the order read back (None: the line could not be read)
    problems: list[OrderProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # a legal order that will have no effect: why
    partly_played: bool = False    # refused, yet what of it the rules allow is still carried out

    @property
    def ok(self) -> bool:
        return self.order is not None and not self.problems


@dataclass
class CheckResult:
    parsed: ParsedMessage
    lines: list[CheckedLine]
    general: list[OrderProblem] = field(default_factory=list)   # problems not tied to a line read
    validated: bool = False        # True when the rules core checked the orders against a position
    later: list[str] = field(default_factory=list)   # nations checked against today's position, not their turn's
    # nation -> its orders' validation play from the position (check_turn: problems, unused orders and
    # the events with neutral dice), for the reply's warnings and the decisions it lists: the turn is
    # played once per mail, not once per question (issue 33)
    checks: dict[str, TurnCheck] = field(default_factory=dict)

    @property
    def problems(self) -> list[OrderProblem]:
        out = [p for ln in self.lines for p in ln.problems] + list(self.general)
        return sorted(out, key=lambda p: (p.line == 0, p.line))

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def game(self) -> str | None:
        return self.parsed.game

    @property
    def nations(self) -> list[str]:
        return self.parsed.nations


def check_orders(text: str | bytes, ruleset, state: GameState | dict | None = None, *,
                 nation: str | None = None, validate: Validator | None = None) -> CheckResult:
    parsed = parse_message(text, ruleset, default_nation=nation)
    lines = [CheckedLine(e.line, e.text, e.nation, e.order,
                         canonical(e.order, ruleset) if e.order is not None else None, list(e.problems))
             for e in parsed.lines]
    result = CheckResult(parsed, lines)
    if state is None:
        return result
    if isinstance(state, dict):
        state = GameState.from_dict(state)
    by_line = {ln.line: ln for ln in lines}
    for section in parsed.sections:
        if validate is not None:
            found, unused = list(validate(ruleset, state, section) or []), {}
        else:
            # the nation to move: its first movement kept too, for the reply's warnings and odds
            checked = check_turn(ruleset, state, section, keep_first=section.nation == state.next_nation)
            found, unused = checked.problems, checked.unused
            result.checks[section.nation] = checked
        for p in found:
            target = by_line.get(p.line) if p.line else None
            if target is None:
                result.general.append(p)
            elif p not in target.problems:
                target.problems.append(p)
        for line, why in unused.items():
            if line in by_line:
                by_line[line].notes.append(why)
        if validate is None and found:
            for line in still_played(ruleset, state, section, {p.line for p in found if p.line}):
                by_line[line].partly_played = True
        votes = [o for o in section.orders if isinstance(o, Vote)]
        for o in votes[:-1]:     # the orders book keeps the last VOTE (rule 12.2: one vote per nation)
            if o.line in by_line:
                by_line[o.line].notes.append(f"the VOTE on line {votes[-1].line} replaces it (only the last VOTE "
                                             "counts)")
        _note_replaced_standing_orders(section, by_line)
        _note_second_movement_without_invasion(ruleset, state, section, by_line)
        if section.nation != state.next_nation and not state.finished and \
                any(not isinstance(o, Vote) for o in section.turn_orders()):
            result.later.append(section.nation)
    result.validated = True
    return result


def _note_replaced_standing_orders(section: NationOrders, by_line: dict) -> None:
    """A standing order (DEFEND, CLEAR DEFEND, LOSSES) is kept per kind and area, the last one
    written (rules.orders.standing_key): an earlier one for the same area does nothing."""
    standing = section.standing_orders()
    last = {standing_key(o): o for o in standing}
    for o in standing:
        later = last[standing_key(o)]
        if later is not o and o.line in by_line:
            word = "CLEAR DEFEND" if isinstance(later, ClearDefend) else "LOSSES" if isinstance(later, Losses) \
                else "DEFEND"
            by_line[o.line].notes.append(f"the {word} on line {later.line} replaces it (a standing order for an "
                                         "area is the last one written)")


def _note_second_movement_without_invasion(ruleset, state: GameState, section: NationOrders, by_line: dict) -> None:
    """Rule 7.3 — SECOND MOVEMENT is for a major invasion: for the nation to move without one this
    turn the line does nothing (the engine refuses the moves after it)."""
    from pbem.rules.orders import SecondMovement
    from pbem.rules.turn import cycles

    if section.nation != state.next_nation or cycles(ruleset, state, section.nation) == 2:
        return
    for o in section.orders:
        if isinstance(o, SecondMovement) and o.line in by_line:
            by_line[o.line].notes.append(f"the {ruleset.nations[section.nation].name} have no major invasion this "
                                         "turn (rule 7.3): the moves after this line are refused")


def renumber(result: CheckResult, mail_lines: list[int] | None) -> CheckResult:
    """A check of logged (canonical) orders told with the line numbers of the mail they came from
    (issue 30: one set of line numbers): `mail_lines[i]` is the mail's line of canonical line i+1
    (the orders entry's `mail_lines`; None, e.g. an entry from before it was logged: unchanged)."""
    if not mail_lines:
        return result

    def mail(line: int) -> int:
        return mail_lines[line - 1] if 0 < line <= len(mail_lines) else line

    for ln in result.lines:
        ln.line = mail(ln.line)
        ln.problems = [replace(p, line=mail(p.line)) for p in ln.problems]
    result.general = [replace(p, line=mail(p.line)) for p in result.general]
    return result


def still_played(ruleset, state: GameState, section: NationOrders, refused: set[int]) -> set[int]:
    """Refused lines of the nation to move that its turn, played as it stands, still carries out in
    part (e.g. a BATTLES line naming one area without a battle orders the others): the reply says
    so rather than "dropped" (issue 30: a line is played or the reply says it will not be)."""
    from pbem.rules.dice import NeutralDice
    from pbem.rules.events import OrderDropped, OrderUnused
    from pbem.rules.turn import play_nation_turn

    if section.nation != state.next_nation or state.finished or not refused:
        return set()
    played = play_nation_turn(ruleset, state, section.nation, {section.nation: section}, NeutralDice(), strict=False)
    named: set[int] = set()
    for ev in played.events:
        if isinstance(ev, (OrderDropped, OrderUnused)):
            continue
        named |= set(getattr(ev, "lines", None) or []) | {getattr(ev, "line", 0) or 0}
    return (named & refused) - {0}
