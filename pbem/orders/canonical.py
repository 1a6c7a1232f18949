"""Typed orders -> their canonical ORDERS.md text, with display names.

`canonical(order, ruleset)` prints one order (`3 Essex -> Suffolk`, `2 cavalry York -> Lindsey`,
`Egbert Sussex -> Downlands`, `DEFEND North Mercia: RETREAT TO Hwicce AFTER ROUND 1`). Parsing the
canonical text gives an equal order. Each form of the order language prints its own orders (the
registry of pbem.rules.orders; the generic forms in pbem.orders.forms), so the read-back, the
parser and the guide's list are the same forms. A move's cycle is not part of its line: `canonical_lines` prints
a list of orders and puts `SECOND MOVEMENT` before the first second-cycle move when the list lacks it.
"""

from __future__ import annotations

from collections.abc import Iterable

import pbem.orders.forms  # noqa: F401  (registers the generic forms)
import pbem.rules.rulesets  # noqa: F401  (the rules families register their own forms)
from pbem.rules.orders import Move, NationOrders, Order, SecondMovement, Stay, form_of


def _n(rs, ident: str) -> str:
    return rs.display(ident)


def canonical(order: Order, ruleset) -> str:
    """The canonical line of one order: its form's (pbem.rules.orders.OrderForm.canonical)."""
    form = form_of(order)
    if form is None:
        raise TypeError(f"no canonical form for {type(order).__name__}")
    return form.canonical(order, ruleset)


def canonical_lines(orders: Iterable[Order] | NationOrders, ruleset) -> list[str]:
    """The canonical lines of a nation's orders, `SECOND MOVEMENT` put in where a cycle-2 move or STAY needs it."""
    if isinstance(orders, NationOrders):
        orders = orders.orders
    out: list[str] = []
    second = False
    for o in orders:
        if isinstance(o, SecondMovement):
            second = True
        elif isinstance(o, (Move, Stay)) and o.cycle == 2 and not second:
            out.append("SECOND MOVEMENT")
            second = True
        out.append(canonical(o, ruleset))
    return out


def canonical_text(sections: Iterable[NationOrders], ruleset) -> str:
    """A whole message: `NATION x` then its lines, for every section."""
    out: list[str] = []
    for sec in sections:
        out.append(f"NATION {_n(ruleset, sec.nation)}")
        out.extend(canonical_lines(sec, ruleset))
    return "\n".join(out) + ("\n" if out else "")
