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

from collections.abc import Collection, Mapping, Sequence

from pbem.errors import OrderProblem
from pbem.records import record
from pbem.rules.battle import attacker_origins, battle_areas
from pbem.rules.book import OrdersBook
from pbem.rules.context import MoveRecord, TurnContext
from pbem.rules.events import Moved
from pbem.rules.flow import votes_owed
from pbem.rules.legal import _NoDice, check_turn, first_movement, retreat_options, vote_options
from pbem.rules.orders import Defend, NationOrders
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState

DEADLINES = {"vote": "vote", "turn": "turn", "defence": "decision"}


@record
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


def pending(rs: Ruleset, state: GameState, book: OrdersBook, *, wait_for_defenders: bool = False,
            checked: Mapping[str, tuple[NationOrders, Sequence[OrderProblem]]] | None = None) -> list[Decision]:
    """Every decision owed before the next step can be played (empty: play it now). `checked`: nation
    -> orders already validated against this `state` and the problems `check_turn` found in them (a
    mail's, just logged): when the book holds exactly those orders they are not played again."""
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
    orders = own.orders()
    known = checked.get(nation) if checked else None
    problems = list(known[1]) if known is not None and known[0] == orders else check_turn(rs, state, orders).problems
    if own.unread:
        problems.append(OrderProblem("syntax", 0, "", f"{own.unread} line(s) of the orders could not be read"))
    if problems:
        return [Decision(nation, "turn", problems=tuple(problems))]
    if not wait_for_defenders:
        return []
    out = []
    for defender, area, origins in attacked(rs, state, nation, own.orders()):
        if _has_defend(state, book, defender, area):
            continue
        targets = retreat_options(rs, state, nation, area, defender, list(origins))
        out.append(Decision(defender, "defence", tuple(targets), area, nation, tuple(origins)))
    return out


def may_owe(state: GameState, nations: Collection[str], *, wait_for_defenders: bool = False) -> bool:
    """Can these nations owe a decision now (`pending_for`)? In a vote, any voter; otherwise only the
    nation to move (its turn), and, when the game waits for them, the defenders of its attacks: a
    caller may skip gathering the orders book for a player who can owe nothing."""
    return state.next_nation is None or state.next_nation in nations or wait_for_defenders


def pending_for(rs: Ruleset, state: GameState, book: OrdersBook, nations: Collection[str], *,
                wait_for_defenders: bool = False,
                checked: Mapping[str, tuple[NationOrders, Sequence[OrderProblem]]] | None = None) -> list[Decision]:
    """The decisions of `pending` owed by these nations (a player's: the reply to their mail). Outside
    a vote, only the nation to move owes its turn, and only defenders of its attacks (when the game
    waits for them) anything else: a player who has neither owes nothing, and the turn of another
    nation is not checked for them."""
    if not may_owe(state, nations, wait_for_defenders=wait_for_defenders):
        return []
    return [d for d in pending(rs, state, book, wait_for_defenders=wait_for_defenders, checked=checked)
            if d.nation in nations]


def attacked(rs: Ruleset, state: GameState, nation: str, orders: NationOrders) -> list[tuple[str, str, tuple[str, ...]]]:
    """Rule 8.0 — (defender, area, the areas its retreat may not enter, 8.2) for every battle the nation's
    first movement brings: the engine's own movement, played to the end of the first movement phase
    without dice (legal.first_movement), its battle areas (battle.battle_areas) and the attacker
    origins the ruleset bars (Rules.retreat_barred_origins: an overrun's too, where the ruleset says so).
    Nothing re-derived from the orders' end points: a move through, a subject's area or a refused order
    is judged as the turn will judge it."""
    result = first_movement(rs, state, nation, orders)
    ctx = TurnContext(rs, result.state, nation, {}, _NoDice())
    ctx.moves = [MoveRecord(ev.nation, ev.kind, ev.count, ev.raiders, tuple(ev.path), ev.cycle, ev.line, ev.leader)
                 for ev in result.events if isinstance(ev, Moved) and ev.nation == nation and ev.cycle == 1]
    out = []
    for area in battle_areas(ctx):
        barred = tuple(dict.fromkeys(rs.rules.retreat_barred_origins(ctx, area, attacker_origins(ctx, area))))
        out += [(other, area, barred) for other, st in result.state.areas[area].items()
                if other != nation and st.armies + st.cavalry + st.fort + st.burhs]
    return out


def _has_defend(state: GameState, book: OrdersBook, defender: str, area: str) -> bool:
    kept = state.standing.get(defender, {})
    if f"defend:{area}" in kept or "defend:all" in kept:
        return True
    return any(isinstance(o, Defend) and o.area in (area, "all") for o in book.get(defender).standing)
