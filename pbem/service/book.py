"""Build the orders book (pbem.rules.book) from a game's log: every orders entry is parsed once here,
and the service hands typed orders on from this point (ORDERS.md: last one wins, per decision)."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.log.entries import voided_turns  # noqa: F401 - the one definition, used here and by the walk
from pbem.orders.parser import parse_message
from pbem.rules.book import OrdersBook
from pbem.rules.orders import Order
from pbem.store.game import LogEntry

_CACHE: dict[tuple[int, str, str], tuple[object, tuple[Order, ...]]] = {}
_CACHE_MAX = 8192


def _parsed(rs, nation: str, text: str) -> tuple[Order, ...]:
    """Parsed once per ruleset object and text (orders are frozen dataclasses: safe to share)."""
    key = (id(rs), nation, text)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is rs:
        return hit[1]
    sec = parse_message(text, rs, default_nation=nation).section(nation)
    orders = tuple(sec.orders) if sec is not None else ()
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = (rs, orders)
    return orders


def entry_orders(rs, entry: LogEntry) -> list[Order]:
    """The typed orders of one orders entry (its nation's section)."""
    return list(_parsed(rs, str(entry.get("nation")), str(entry.get("text") or "")))


def redone_turns(entries: list[LogEntry]) -> dict[str, int]:
    """Nation -> id of the latest rollback that undid one of its turns (its orders must be asked again)."""
    out: dict[str, int] = {}
    for m in entries:
        if m.kind == "moderator" and m.get("action") == "rollback":
            lo = int(m.get("to_entry") or 0)
            for e in entries:
                if e.kind == "turn" and e.get("nation") and lo <= e.id < m.id:
                    out[e["nation"]] = m.id
    return out


@dataclass
class _Built:
    """The last book built: from these entries (the very objects), with the turns it was built by."""

    rs: object
    entries: list[LogEntry]
    last_turn: dict[str, int]
    redo: dict[str, int]
    book: OrdersBook


_LAST: list[_Built] = []


def build_book(rs, entries: list[LogEntry]) -> OrdersBook:
    """The orders waiting now: turn orders from each nation's latest message that had any, received
    after its last turn; the latest VOTE since the last round start; standing orders in order.
    Turn orders sent before a rollback that undid the nation's turn are a draft (NationBook.draft).

    The book is a function of the entries: when they are the last book's entries (the same objects,
    Game.entries hands them out again while the game's lock is held) followed by orders entries
    only, those are filed into a copy of the last book (an orders entry changes no turn, rollback or
    round start): a burst of mail does not rebuild the book from the whole log per mail (issue 33)."""
    last = _LAST[0] if _LAST else None
    if last is not None and last.rs is rs and _extends(last.entries, entries):
        book = last.book.copy()
        for e in entries[len(last.entries):]:
            _file(rs, book, e, last.last_turn, last.redo)
        _LAST[:] = [_Built(rs, list(entries), last.last_turn, last.redo, book.copy())]
        return book
    voided = voided_turns(entries)
    redo = redone_turns(entries)
    last_turn: dict[str, int] = {}
    for e in entries:
        if e.kind == "turn" and e.get("nation") and e.id not in voided:
            last_turn[e["nation"]] = e.id
    book = OrdersBook()
    for e in entries:
        if e.kind == "turn" and e.get("step") == "start_round" and e.id not in voided:
            book.round_started()
        _file(rs, book, e, last_turn, redo)
    _LAST[:] = [_Built(rs, list(entries), last_turn, redo, book.copy())]
    return book


def _extends(before: list[LogEntry], entries: list[LogEntry]) -> bool:
    """`entries` are `before` (the same objects) and then orders entries only."""
    n = len(before)
    if len(entries) < n or any(a is not b for a, b in zip(before, entries)):
        return False
    return all(e.kind == "orders" for e in entries[n:])


def _file(rs, book: OrdersBook, e: LogEntry, last_turn: dict[str, int], redo: dict[str, int]) -> None:
    """File one entry's orders into the book (anything but an orders entry files nothing)."""
    if e.kind != "orders" or not e.get("nation"):
        return
    nation = str(e["nation"])
    # `unread` since format 1.1; older entries only counted every problem (then: parse problems and
    # the refusals of the nation to move, which were checked against the position of its turn)
    unread = e.get("unread", e.get("problems") or 0)
    book.add(nation, e.id, entry_orders(rs, e), newer_than_turn=e.id > last_turn.get(nation, 0),
             unread=int(unread or 0), draft=e.id < redo.get(nation, 0))
