"""Read orders back: parse, then (with a position) ask the rules core whether they are legal.

`check_orders(text, ruleset, state=None, nation=None, validate=None) -> CheckResult` is what a
player's reply is made of: every line read, in canonical form, with OK or its problems. The rules are
NOT repeated here: legality comes from `validate(ruleset, state, nation_orders) -> [OrderProblem]`,
by default `pbem.rules.legal.validate` when that exists.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pbem.errors import OrderProblem
from pbem.orders.canonical import canonical
from pbem.orders.parser import ParsedMessage, parse_message
from pbem.rules.orders import NationOrders, Order
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

    @property
    def ok(self) -> bool:
        return self.order is not None and not self.problems


@dataclass
class CheckResult:
    parsed: ParsedMessage
    lines: list[CheckedLine]
    general: list[OrderProblem] = field(default_factory=list)   # problems not tied to a line read
    validated: bool = False        # True when the rules core checked the orders against a position

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


def default_validator() -> Validator | None:
    """`pbem.rules.legal.validate` if the rules core provides it."""
    try:
        mod = importlib.import_module("pbem.rules.legal")
    except ModuleNotFoundError as e:
        if e.name not in ("pbem.rules.legal",):
            raise
        return None
    fn = getattr(mod, "validate", None)
    return fn if callable(fn) else None


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
    fn = validate or default_validator()
    if fn is None:
        return result
    by_line = {ln.line: ln for ln in lines}
    for section in parsed.sections:
        for p in fn(ruleset, state, section) or []:
            target = by_line.get(p.line) if p.line else None
            if target is None:
                result.general.append(p)
            elif p not in target.problems:
                target.problems.append(p)
    result.validated = True
    return result
