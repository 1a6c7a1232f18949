"""Typed orders -> their canonical ORDERS.md text, with display names.

`canonical(order, ruleset)` prints one order (`3 Essex -> Suffolk`, `2 cavalry York -> Lindsey`,
`Egbert Sussex -> Downlands`, `DEFEND North Mercia: RETREAT TO Hwicce AFTER ROUND 1`). Parsing the
canonical text gives an equal order. A move's cycle is not part of its line: `canonical_lines` prints
a list of orders and puts `SECOND MOVEMENT` before the first second-cycle move when the list lacks it.
"""

from __future__ import annotations

from collections.abc import Iterable

from pbem.rules.orders import (
    Allow,
    Attack,
    AwayLine,
    Battles,
    Brittany,
    ClearDefend,
    Defend,
    Disband,
    GameLine,
    LanguageLine,
    Losses,
    Move,
    NationLine,
    NationOrders,
    Order,
    Pass,
    Place,
    PlaceLeader,
    SecondMovement,
    Settle,
    Stay,
    Submit,
    TimezoneLine,
    TokenLine,
    Vote,
    Withdraw,
)

_LOSSES = {"raiders_first": "RAIDERS FIRST", "settlers_first": "SETTLERS FIRST", "cavalry_last": "CAVALRY LAST"}


def _n(rs, ident: str) -> str:
    return rs.display(ident)


def _area(rs, ident: str) -> str:
    return "ALL" if ident == "all" else rs.display(ident)


def _list(rs, ids: Iterable[str]) -> str:
    return ", ".join(rs.display(i) for i in ids)


def canonical(order: Order, ruleset) -> str:
    """The canonical line of one order."""
    rs = ruleset
    match order:
        case Move(kind="leader"):
            return f"{_n(rs, order.leader)} {' -> '.join(_n(rs, p) for p in order.path)}"
        case Move(kind="cavalry"):
            return f"{order.count} cavalry {' -> '.join(_n(rs, p) for p in order.path)}"
        case Move():
            return f"{order.count} {' -> '.join(_n(rs, p) for p in order.path)}"
        case Place():
            return f"PLACE {_list(rs, order.areas)}"
        case PlaceLeader():
            return f"LEADER {_n(rs, order.leader)} IN {_n(rs, order.area)}"
        case Stay():
            return f"STAY {order.count} {_n(rs, order.sea)}"
        case SecondMovement():
            return "SECOND MOVEMENT"
        case Brittany():
            return f"BRITTANY {order.count} {_n(rs, order.area)}"
        case Battles():
            return f"BATTLES {_list(rs, order.areas)}"
        case Attack(mode="retreat_after"):
            return f"ATTACK {_n(rs, order.area)}: RETREAT AFTER ROUND {order.after_round}"
        case Attack(mode="retreat_if_outnumbered"):
            return f"ATTACK {_n(rs, order.area)}: RETREAT IF OUTNUMBERED"
        case Attack():
            return f"ATTACK {_n(rs, order.area)}: FIGHT"
        case Withdraw():
            return f"WITHDRAW {_n(rs, order.area)}"
        case Settle():
            return f"SETTLE {_n(rs, order.area)}"
        case Disband():
            return f"DISBAND {_list(rs, order.areas)}"
        case Vote():
            return f"VOTE {_n(rs, order.nation)}"
        case Submit():
            return f"SUBMIT TO {_n(rs, order.to)}"
        case Allow():
            return f"ALLOW {_n(rs, order.nation)}"
        case Pass():
            return "PASS"
        case Defend(hold=True):
            return f"DEFEND {_area(rs, order.area)}: HOLD"
        case Defend(split_counts=()):
            s = f"DEFEND {_area(rs, order.area)}: RETREAT TO {_n(rs, order.to) if order.to else '?'}"
            if order.if_outnumbered:
                s += " IF OUTNUMBERED"
            if order.after_round is not None:
                s += f" AFTER ROUND {order.after_round}"
            return s
        case Defend():
            s = f"DEFEND {_area(rs, order.area)}: RETREAT " + ", ".join(
                f"{'REST' if n is None else n} TO {_n(rs, a)}" for n, a in order.parts())
            if order.if_outnumbered:
                s += " IF OUTNUMBERED"
            if order.after_round is not None:
                s += f" AFTER ROUND {order.after_round}"
            return s
        case ClearDefend():
            return f"CLEAR DEFEND {_area(rs, order.area)}"
        case Losses():
            return f"LOSSES {_area(rs, order.area)}: {_LOSSES.get(order.preference, order.preference.upper())}"
        case GameLine():
            return f"GAME {order.game}"
        case NationLine():
            return f"NATION {_n(rs, order.nation)}"
        case TokenLine():
            return f"TOKEN {order.token}"
        case TimezoneLine():
            return f"TIMEZONE {order.zone}"
        case LanguageLine():
            return f"LANGUAGE {order.language}"
        case AwayLine():
            return f"AWAY {order.start} TO {order.end}"
    raise TypeError(f"no canonical form for {type(order).__name__}")


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
