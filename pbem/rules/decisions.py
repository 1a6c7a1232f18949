"""The decision machine: what is owed now, and by whom (issue 15). One pure function, `pending`, read
by the prompts, the validation, the bots, `pbem status` and the cron job alike.

Decisions (kinds):
* `vote`    — rule 12.2: at the start of a round with a Bretwalda (or King) check, each nation with
              votes owes a VOTE; the round starts when every voter has voted or at the deadline.
* `turn`    — rule 4.0: the nation to move owes its turn orders. Orders waiting that the rules refuse
              against the position its turn starts from leave the decision open (a correction is
              owed, `problems` says why) until the deadline, when they are used as they are.
* `defence` — rule 8.2 in wait mode (game option `decisions: wait`): a defender about to be attacked by
              the first movement of the nation to move, with no standing DEFEND for that area, owes a
              retreat decision (`options`: the legal retreat targets) until the decision deadline.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.errors import OrderProblem
from pbem.rules.book import OrdersBook
from pbem.rules.flow import votes_owed
from pbem.rules.legal import check_turn, retreat_options, vote_options
from pbem.rules.orders import Defend, Move
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState

DEADLINES = {"vote": "vote", "turn": "turn", "defence": "decision"}


@dataclass(frozen=True)
class Decision:
    nation: str
    kind: str                          # vote | turn | defence
    options: tuple[str, ...] = ()      # defence: legal retreat targets
    area: str | None = None            # defence: the area attacked
    attacker: str | None = None        # defence: the nation about to attack
    origins: tuple[str, ...] = ()      # defence: where the attackers come from
    problems: tuple[OrderProblem, ...] = ()   # turn: why the orders waiting need correcting

    @property
    def deadline_kind(self) -> str:
        return DEADLINES[self.kind]

    @property
    def correction(self) -> bool:
        return bool(self.problems)

    def describe(self, rs: Ruleset, round_: int) -> str:
        """One line for replies, prompts and `pbem status`."""
        who = f"the {rs.display(self.nation)}"
        if self.kind == "vote":
            return f"VOTE for {who} (Bretwalda, round {round_})"
        if self.kind == "defence":
            return (f"a retreat decision for {who} in {rs.display(str(self.area))} (DEFEND {rs.display(str(self.area))}: "
                    f"HOLD or RETREAT TO ...), the {rs.display(str(self.attacker))} are about to attack")
        if self.correction:
            return f"corrected orders for {who} (round {round_}, to move now)"
        return f"orders for {who} (round {round_}, to move now)"


def pending(rs: Ruleset, state: GameState, book: OrdersBook, *, wait_for_defenders: bool = False) -> list[Decision]:
    """Every decision owed before the next step can be played (empty: play it now)."""
    if state.finished:
        return []
    if state.next_nation is None:
        if not votes_owed(rs, state):
            return []
        return [Decision(n, "vote") for n in sorted(vote_options(rs, state)) if book.get(n).vote is None]
    nation = state.next_nation
    own = book.get(nation)
    if not own.has_turn_orders:
        return [Decision(nation, "turn")]
    problems = check_turn(rs, state, own.orders()).problems
    if own.unread:
        problems.append(OrderProblem("syntax", 0, "", f"{own.unread} line(s) of the orders could not be read"))
    if problems:
        return [Decision(nation, "turn", problems=tuple(problems))]
    if not wait_for_defenders:
        return []
    out = []
    for defender, area, origins in attacked(rs, state, nation, own.turn):
        if _has_defend(state, book, defender, area):
            continue
        targets = retreat_options(rs, state, nation, area, defender, list(origins))
        out.append(Decision(defender, "defence", tuple(targets), area, nation, tuple(origins)))
    return out


def attacked(rs: Ruleset, state: GameState, nation: str, orders) -> list[tuple[str, str, tuple[str, ...]]]:
    """(defender, area, attacker origins) for every land area the nation's first movement attacks."""
    found: dict[tuple[str, str], list[str]] = {}
    for m in orders:
        if not isinstance(m, Move) or m.cycle != 1 or m.kind == "leader" or not rs.is_land(m.path[-1]):
            continue
        for other in state.occupants(m.path[-1]):
            if other != nation:
                found.setdefault((other, m.path[-1]), []).append(m.path[-2])
    return [(d, a, tuple(origins)) for (d, a), origins in found.items()]


def _has_defend(state: GameState, book: OrdersBook, defender: str, area: str) -> bool:
    kept = state.standing.get(defender, {})
    if f"defend:{area}" in kept or "defend:all" in kept:
        return True
    return any(isinstance(o, Defend) and o.area in (area, "all") for o in book.get(defender).standing)
