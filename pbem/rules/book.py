"""The orders book: every nation's orders waiting to be used, typed, per decision, with the log entries
they came from (ORDERS.md: a later message for the same nation and decision replaces the earlier one;
standing orders are kept until changed).

The book is plain data; pbem.service.book builds it from a game's log (each orders entry parsed once).
The rules core reads it (`pbem.rules.decisions.pending`); a step gets `voters()` or `for_turn()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from pbem.rules.orders import STANDING_TYPES, NationOrders, Order, Pass, Vote


@dataclass
class NationBook:
    """One nation's orders waiting: its turn orders (the latest message that had any, received after its
    last turn), its latest VOTE (this round start), its standing orders in the order received."""

    nation: str
    turn: list[Order] = field(default_factory=list)
    turn_entry: int | None = None
    unread: int = 0                   # lines of the turn orders' message that could not be read
    draft: list[Order] = field(default_factory=list)   # turn orders sent before a rollback undid the turn
    draft_entry: int | None = None
    vote: Vote | None = None
    vote_entry: int | None = None
    standing: list[Order] = field(default_factory=list)
    standing_entries: list[int] = field(default_factory=list)

    @property
    def has_turn_orders(self) -> bool:
        return self.turn_entry is not None

    def orders(self) -> NationOrders:
        """Everything waiting, as the engine gets it: turn orders, standing orders, the vote."""
        out = list(self.turn) + list(self.standing)
        if self.vote is not None:
            out.append(self.vote)
        return NationOrders(self.nation, out)

    def entries(self, *, turn: bool = False, vote: bool = False, standing: bool = False) -> list[int]:
        """The orders entries the chosen parts came from (recorded in the turn entry that uses them)."""
        ids = set(self.standing_entries) if standing else set()
        if turn and self.turn_entry is not None:
            ids.add(self.turn_entry)
        if vote and self.vote_entry is not None:
            ids.add(self.vote_entry)
        return sorted(ids)


@dataclass
class OrdersBook:
    nations: dict[str, NationBook] = field(default_factory=dict)

    def get(self, nation: str) -> NationBook:
        return self.nations.get(nation) or NationBook(nation)

    def copy(self) -> OrdersBook:
        """A copy to file more orders into (the orders themselves are frozen: shared)."""
        return OrdersBook({n: replace(nb, turn=list(nb.turn), draft=list(nb.draft), standing=list(nb.standing),
                                      standing_entries=list(nb.standing_entries))
                           for n, nb in self.nations.items()})

    def add(self, nation: str, entry: int, orders: list[Order], *, newer_than_turn: bool = True,
            unread: int = 0, draft: bool = False) -> None:
        """File the orders of one orders entry (in log order). `newer_than_turn`: the entry came after
        the nation's last turn, so its turn orders are for the coming one; `unread`: lines of its
        message that could not be read (the player is asked to correct them); `draft`: sent before a
        rollback undid the nation's turn, so the turn orders are only a draft (asked again; played at the
        deadline)."""
        nb = self.nations.setdefault(nation, NationBook(nation))
        standing = [o for o in orders if isinstance(o, STANDING_TYPES)]
        votes = [o for o in orders if isinstance(o, Vote)]
        turn = [o for o in orders if not isinstance(o, (*STANDING_TYPES, Vote))]
        if standing:
            nb.standing += standing
            nb.standing_entries.append(entry)
        if votes:
            nb.vote, nb.vote_entry = votes[-1], entry
        if (turn or unread) and newer_than_turn:
            if draft:
                nb.draft, nb.draft_entry = turn, entry
                nb.turn, nb.turn_entry, nb.unread = [], None, 0
            else:
                nb.turn, nb.turn_entry, nb.unread = turn, entry, unread
                nb.draft, nb.draft_entry = [], None

    def turn_played(self, nation: str) -> None:
        """The nation's turn used its turn orders: later turns need new ones."""
        nb = self.nations.get(nation)
        if nb is not None:
            nb.turn, nb.turn_entry, nb.unread = [], None, 0

    def play_draft(self, nation: str) -> None:
        """The deadline came after a rollback without new orders: the draft is played."""
        nb = self.get(nation)
        if nb.draft:
            nb.turn, nb.turn_entry = nb.draft, nb.draft_entry
            nb.draft, nb.draft_entry = [], None
            self.nations[nation] = nb

    def round_started(self) -> None:
        """Ballots are for one round start only (rule 12.2)."""
        for nb in self.nations.values():
            nb.vote, nb.vote_entry = None, None

    def voters(self) -> dict[str, NationOrders]:
        """The VOTE of every nation that sent one (the orders of a round start)."""
        return {n: NationOrders(n, [nb.vote]) for n, nb in self.nations.items() if nb.vote is not None}

    def for_turn(self, nation: str, supplied: list[Order] | None = None) -> dict[str, NationOrders]:
        """The orders a nation's turn gets: the nation's own (or `supplied`, e.g. the no-orders rule's
        PASS with its standing orders) and every other nation's orders waiting: their standing orders
        answer the decisions of this turn (8.2) and a waiting SUBMIT TO may apply during it (11.1)."""
        out: dict[str, NationOrders] = {}
        for n, nb in self.nations.items():
            if n == nation:
                continue
            if nb.standing or nb.turn:
                out[n] = NationOrders(n, list(nb.turn) + list(nb.standing))
        own = self.get(nation)
        if supplied is not None:
            out[nation] = NationOrders(nation, list(supplied) + list(own.standing))
        elif own.has_turn_orders or own.standing:
            out[nation] = NationOrders(nation, list(own.turn) + list(own.standing))
        return out


def no_orders() -> list[Order]:
    """The no-orders rule's hold: PASS."""
    return [Pass(text="PASS")]
