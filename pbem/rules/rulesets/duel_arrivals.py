"""The choices of Duel's Phases I and II and the sea status of a nation turn (seed 003, the Duel
rulebook chapter; [Section] names a section of it). DuelRules (duel.py) calls these at its hooks.

- [Phase I] "you lose an army of your choice": LOSE A, B ... names the areas whose armies go, in
  order; without it (or for what it leaves) one at a time from the biggest stack (`phase_one_losses`).
- [Appearance At Sea] "when armies are due to appear at sea, but not enough armies are available (to
  the nation's maximum), you have the option to remove some existing armies in order to make enough
  armies available at sea": REMOVE A, B ... (`make_room_at_sea`); without it those armies "simply
  aren't available" ([Phase II]).
- [Eruption] "you may choose not to have the leader (and necessarily the army) appear": WITHHOLD
  <leader>, for a leader whose nation occupies no area (`withheld`, `withhold_leaders`).
- [Raiders], [Intruders]: "raider" and "intruder" are the condition of ALL the nation's armies at sea
  in its turn (`sea_status`, `set_sea_status`): raiders and intruders may land, fight and go back to
  their sea after the battles (or stay, raiders then scoring no raid points for that area; the Jutes
  of round 1 must withdraw: ruleset.yaml duel.must_withdraw), intruders score no raid points; in any
  other turn the armies at sea are invaders: they must land and stay on land (or die), and never
  retreat to sea (`must_come_ashore`, `SEA_RETREAT_BARRED`).
"""

from __future__ import annotations

from pbem.errors import OrderProblem
from pbem.i18n import _
from pbem.rules import population
from pbem.rules.context import TurnContext
from pbem.rules.events import Event, Names, event
from pbem.rules.orders import NationOrders
from pbem.rules.ruleset import Ruleset
from pbem.rules.rulesets.duel_orders import LoseArmies, RemoveForArrivals, WithholdLeader

RAIDER, INTRUDER, INVADER = "raider", "intruder", "invader"
SEA_RETREAT_BARRED = _("invaders do not retreat to sea; only raiders and intruders do ([Intruders])")
LAND_THEM = _("land them: armies still at sea after the movement are lost")   # the hint of a STAY refused

# the refusals below (and DuelRules.stay_at_sea_refusal, settle_refusal) in a player's language
# (Rules.refusal_phrases: pattern, message marked for the catalog)
REFUSALS: tuple[tuple[str, str], ...] = (
    (r'^the (?P<nation>.+) have no army in (?P<areas>.+) to lose \(\[Phase I\]\)$',
     _('the %(nation)s have no army in %(areas)s to lose ([Phase I])')),
    (r'^the (?P<nation>.+) have no army in (?P<areas>.+) to remove \(\[Appearance At Sea\]\)$',
     _('the %(nation)s have no army in %(areas)s to remove ([Appearance At Sea])')),
    (r'^no armies of the (?P<nation>.+) are due at sea this turn: REMOVE makes room only for arrivals at sea '
     r'beyond the army limit \(\[Appearance At Sea\]\)$',
     _('no armies of the %(nation)s are due at sea this turn: REMOVE makes room only for arrivals at sea '
       'beyond the army limit ([Appearance At Sea])')),
    (r'^every army due at sea this turn has a piece \(the (?P<nation>.+) army limit leaves room\): REMOVE makes '
     r'room only for arrivals at sea beyond the army limit \(\[Appearance At Sea\]\)$',
     _('every army due at sea this turn has a piece (the %(nation)s army limit leaves room): REMOVE makes room '
       'only for arrivals at sea beyond the army limit ([Appearance At Sea])')),
    (r'^only (?P<n>\d+) of the (?P<nation>.+) armies due at sea lack a piece: REMOVE at most (?P<m>\d+) '
     r'\(\[Appearance At Sea\]\)$',
     _('only %(n)s of the %(nation)s armies due at sea lack a piece: REMOVE at most %(m)s ([Appearance At Sea])')),
    (r'^(?P<leader>.+) does not appear in the (?P<nation>.+) turn (?P<n>\d+) \(\[Phase II\]\)$',
     _('%(leader)s does not appear in the %(nation)s turn %(n)s ([Phase II])')),
    (r'^(?P<leader>.+) appears with the (?P<nation>.+) pieces on the board: only a leader whose nation has no '
     r'area may choose not to appear \(\[Eruption\]\)$',
     _('%(leader)s appears with the %(nation)s pieces on the board: only a leader whose nation has no area may '
       'choose not to appear ([Eruption])')),
    (r'^the (?P<nation>.+) are invaders this turn: their armies at sea must land and stay on land \(or die\) '
     r'\(\[Intruders\]\)$',
     _('the %(nation)s are invaders this turn: their armies at sea must land and stay on land (or die) '
       '([Intruders])')),
    (r'^the (?P<nation>.+) must withdraw to sea after their raid this turn \(\[Raiding and Intruding\]\)$',
     _('the %(nation)s must withdraw to sea after their raid this turn ([Raiding and Intruding])')),
    (r'^the (?P<nation>.+) lose no army this turn: the population change is \+(?P<n>\d+) \(\[Phase I\]\)$',
     _('the %(nation)s lose no army this turn: the population change is +%(n)s ([Phase I])')),
)


# --- [Raiders], [Intruders]: the condition of the nation's armies at sea ------------------------------
def sea_status(rs: Ruleset, rnd: int, nation: str) -> str:
    """[Raiders], [Intruders] — what the nation's armies at sea are in its turn of round `rnd`: raiders
    or intruders when the aid's timeline says so (ruleset.yaml duel.raiders, duel.intruders), else
    invaders."""
    if nation in rs.extras["duel_raiders"].get(rnd, ()):
        return RAIDER
    if nation in rs.extras["duel_intruders"].get(rnd, ()):
        return INTRUDER
    return INVADER


def set_sea_status(ctx: TurnContext) -> None:
    """[Raiders] — "'Raider' and 'intruder' refer to all armies at sea in that nation's turn": after
    the arrivals every army of the nation at sea is a raider (one that goes back to its sea after the
    battles) in a raid or intrude turn, and none is in any other (they are invaders)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    going_back = sea_status(rs, state.round, nation) != INVADER
    for area, stacks in state.areas.items():
        st = stacks.get(nation)
        if st is not None and rs.is_sea(area):
            st.raiders = st.armies if going_back else 0


def must_come_ashore(ctx: TurnContext) -> bool:
    """[Intruders] — "when armies at sea are neither raiders nor intruders, they must land and stay on
    land in that turn (or die)"."""
    return sea_status(ctx.rs, ctx.state.round, ctx.nation) == INVADER


def may_stay_ashore(ctx: TurnContext) -> bool:
    """[Raiders] "raiders usually have the option to stay in the area they've raided"; not those the aid
    says must withdraw (ruleset.yaml duel.must_withdraw: the Jutes of round 1, [Raiding and Intruding]
    "(and then must withdraw)")."""
    return ctx.nation not in ctx.rs.extras["duel_must_withdraw"].get(ctx.state.round, ())


# --- [Phase I]: the armies lost -----------------------------------------------------------------------
def phase_one_losses(ctx: TurnContext, occupied: list[str], n: int) -> tuple[dict[str, int], list[int], list[OrderProblem]]:
    """[Phase I] "you lose an army of your choice": one army from each area the LOSE lines name, in the
    order written (an area named with no army of the nation is refused); the rest, by default, one at a
    time from the biggest stack (ties: the area of least increase value, then by id); an area's
    ordinary armies before its cavalry. Returns the armies lost per area, the LOSE lines used and the
    problems."""
    rs, state, nation, value = ctx.rs, ctx.state, ctx.nation, ctx.rs.extras["duel_population"]
    orders = ctx.own().of(LoseArmies)
    problems: list[OrderProblem] = []
    wanted: list[str] = []
    for o in orders:
        bad = [a for a in o.areas if a not in occupied]
        if bad:
            problems.append(OrderProblem(
                "not-your-unit", o.line, o.text,
                f"the {rs.nations[nation].name} have no army in {', '.join(rs.display(a) for a in bad)} to lose "
                "([Phase I])", "occupied: " + ", ".join(rs.display(a) for a in occupied)))
            continue
        wanted += o.areas
    lost: dict[str, int] = {}
    for _k in range(n):
        while wanted and not state.areas[wanted[0]][nation].units:
            wanted.pop(0)   # named more often than it has armies: the next area named
        options = [a for a in occupied if state.areas[a][nation].units]
        if not options:
            break
        area = wanted.pop(0) if wanted else min(
            options, key=lambda a: (-state.areas[a][nation].units, value[a], a))
        take_one(ctx, area)
        lost[area] = lost.get(area, 0) + 1
    state.prune()
    lines = [o.line for o in orders if not any(p.line == o.line for p in problems)]
    return lost, lines, problems


def take_one(ctx: TurnContext, area: str) -> None:
    """One army of the nation leaves `area` (an ordinary army, else the cavalry; a raider last)."""
    st = ctx.state.areas[area][ctx.nation]
    if st.armies:
        st.armies -= 1
        st.raiders = min(st.raiders, st.armies)
    else:
        st.cavalry -= 1


def unused_losses(ctx: TurnContext, why: str) -> None:
    """[Phase I] — the LOSE lines of a turn the table loses no army in: each said to have no effect."""
    for o in ctx.own().of(LoseArmies):
        ctx.emit("order_unused", nation=ctx.nation, line=o.line, text=o.text, reason=why)


# --- [Appearance At Sea]: room for the armies due at sea ---------------------------------------------
def due_at_sea(ctx: TurnContext) -> int:
    """[Phase II] — how many armies the aid's timeline brings the nation at sea this turn."""
    return sum(a.armies for a in ctx.rs.round_info(ctx.state.round).arrivals
               if a.nation == ctx.nation and a.sea is not None)


def make_room_at_sea(ctx: TurnContext) -> list[OrderProblem]:
    """[Appearance At Sea] — when the nation's army limit leaves fewer armies than are due at sea, each
    area a REMOVE line names gives up one army (in the order written), as many as are short; so as many
    more appear at sea. Refused: REMOVE when no army due at sea lacks a piece, an area with no army of
    the nation on land, more armies than are short."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    orders = ctx.own().of(RemoveForArrivals)
    if not orders:
        return []
    name = rs.nations[nation].name
    short = max(0, due_at_sea(ctx) - population.free_armies(ctx, nation))
    land = population.placement_areas(ctx, nation)
    problems: list[OrderProblem] = []
    removed: dict[str, int] = {}
    used: list[int] = []
    for o in orders:
        if not short:
            problems.append(OrderProblem("not-now", o.line, o.text, (
                f"no armies of the {name} are due at sea this turn: REMOVE makes room only for arrivals at "
                "sea beyond the army limit ([Appearance At Sea])") if not due_at_sea(ctx) else (
                f"every army due at sea this turn has a piece (the {name} army limit leaves room): REMOVE "
                "makes room only for arrivals at sea beyond the army limit ([Appearance At Sea])")))
            continue
        bad = [a for a in o.areas if a not in land or not state.areas[a][nation].units]
        if bad:
            problems.append(OrderProblem(
                "not-your-unit", o.line, o.text,
                f"the {name} have no army in {', '.join(rs.display(a) for a in bad)} to remove ([Appearance At Sea])",
                "occupied: " + ", ".join(rs.display(a) for a in land)))
            continue
        if len(o.areas) > short:
            problems.append(OrderProblem(
                "not-now", o.line, o.text,
                f"only {short} of the {name} armies due at sea lack a piece: REMOVE at most {short} "
                "([Appearance At Sea])"))
            continue
        for a in o.areas:
            if not state.areas[a][nation].units:
                continue
            take_one(ctx, a)
            removed[a] = removed.get(a, 0) + 1
            short -= 1
        used.append(o.line)
    state.prune()
    if removed:
        ctx.emit("duel_made_room", nation=nation, removed=removed, lines=used)
        # the units' record of the removal (the generic event of armies taken off by a family's rule)
        ctx.emit("legions_withdrawn", nation=nation, removed=removed)
    return problems


# --- [Eruption]: a leader who does not appear ---------------------------------------------------------
def erupting(ctx: TurnContext) -> bool:
    """[Eruption] — has the nation no piece on the board (its arriving leaders then appear by the
    eruption rule, in an area it could score for, and may be withheld)?"""
    return not ctx.state.units_of(ctx.nation)


def withheld(ctx: TurnContext, leader: str) -> bool:
    """[Eruption] — does a WITHHOLD line keep `leader` off the board this turn (his nation occupies no
    area)?"""
    return erupting(ctx) and any(o.leader == leader for o in ctx.own().of(WithholdLeader))


def withhold_leaders(ctx: TurnContext) -> list[OrderProblem]:
    """[Eruption] — the WITHHOLD lines, judged before the leaders appear: each withheld leader is
    recorded (he and his armies do not appear); refused for a leader who does not appear this turn, or
    whose nation occupies an area (he then appears with its pieces, [Phase II])."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    entering = {ld for nat, ld in rs.round_info(state.round).leaders if nat == nation
                and ld not in state.dead_leaders and ld not in state.leaders_on_board()}
    problems: list[OrderProblem] = []
    for o in ctx.own().of(WithholdLeader):
        if o.leader not in entering:
            problems.append(OrderProblem("not-now", o.line, o.text,
                                         f"{rs.display(o.leader)} does not appear in the {rs.nations[nation].name} "
                                         f"turn {state.round} ([Phase II])"))
        elif not erupting(ctx):
            problems.append(OrderProblem("not-now", o.line, o.text,
                                         f"{rs.display(o.leader)} appears with the {rs.nations[nation].name} pieces "
                                         "on the board: only a leader whose nation has no area may choose not to "
                                         "appear ([Eruption])"))
        else:
            ctx.emit("duel_leader_withheld", nation=nation, leader=o.leader, line=o.line)
    return problems


@event("duel_made_room")
class DuelMadeRoom(Event):
    """[Appearance At Sea] — armies taken off the board (area -> armies; REMOVE lines) so that as many
    more of those due at sea appear."""

    nation: str
    removed: dict[str, int]
    lines: list[int]

    def describe(self, names: Names) -> str | None:
        return (f"{names.display(self.nation)} remove " + ", ".join(
            f"{n} in {names.display(a)}" for a, n in sorted(self.removed.items()))
            + " to make room for their arrivals at sea ([Appearance At Sea])")


@event("duel_leader_withheld")
class DuelLeaderWithheld(Event):
    """[Eruption] — a leader whose nation has no area does not appear (WITHHOLD line), nor his armies."""

    nation: str
    leader: str
    line: int

    def describe(self, names: Names) -> str | None:
        return (f"{names.display(self.nation)}: {names.display(self.leader)} does not appear, nor his armies "
                "([Eruption])")


# --- the prompt: what Phases I and II bring and the choices they leave ---------------------------------
def prompt_lines(rs: Ruleset, state, nation: str) -> list[str]:
    """[Phase I], [Phase II] — the prompt's lines on the start of the nation's turn, played by the turn
    code itself up to the leaders' arrival (no orders, no dice): the population change and the LOSE
    choice, the arrivals at sea the army limit leaves out (REMOVE), the leaders who erupt (WITHHOLD),
    what the armies at sea are this turn."""
    from pbem.rules.legal import _NoDice, placement_options  # these play turns (import the families): late
    from pbem.rules.turn import play_nation_turn

    res = play_nation_turn(rs, state, nation, {nation: NationOrders(nation)}, _NoDice(), stop="before_leaders",
                           strict=False)
    name = rs.nations[nation].name
    out: list[str] = []
    arrived = 0
    for ev in res.events:
        if getattr(ev, "nation", None) != nation:
            continue
        if ev.KIND == "arrived":
            arrived += ev.armies
        if ev.KIND != "duel_maintenance":
            continue
        head = f"Phase I: increase points {ev.points} - armies {ev.armies} = {ev.points - ev.armies}"
        if ev.change < 0:
            gone = ", ".join(rs.display(a) for a, k in sorted(ev.lost.items()) for _k in range(k))
            out.append(f"{head}: the {name} lose {-ev.change} {'army' if ev.change == -1 else 'armies'} of their "
                       f"choice (LOSE A[, B ...]; by default from {gone}) ([Phase I]).")
        elif ev.gained:
            out.append(f"{head}: {ev.gained} new {'army' if ev.gained == 1 else 'armies'}. PLACE them in: "
                       + ", ".join(rs.display(a) for a in placement_options(rs, state, nation)))
        else:
            out.append(f"{head}: no new army (the army limit, or only areas of no increase value) ([Phase I]).")
    due = sum(a.armies for a in rs.round_info(state.round).arrivals if a.nation == nation and a.sea is not None)
    if due > arrived:
        out.append(f"Arrivals at sea: {due - arrived} of the {due} due have no piece (the {name} army limit "
                   f"is {rs.nations[nation].max_armies}): REMOVE A[, B ...] takes as many armies off the board to "
                   "make room ([Appearance At Sea]).")
    if not res.state.units_of(nation):
        for nat, leader in rs.round_info(state.round).leaders:
            if nat == nation and leader not in state.dead_leaders and leader not in state.leaders_on_board():
                out.append(f"{rs.display(leader)} erupts (the {name} have no area): WITHHOLD {rs.display(leader)} "
                           "keeps him and his armies off the board ([Eruption]).")
    if any(rs.is_sea(a) and nation in st for a, st in res.state.areas.items()):
        status = sea_status(rs, state.round, nation)
        out.append(f"Armies at sea: {status}s this turn: " + {
            RAIDER: "they may land, fight and go back to their sea after the battles (WITHDRAW, the default), "
                    "or stay (SETTLE: no raid points for that area) ([Raiders])"
                    if nation not in rs.extras["duel_must_withdraw"].get(state.round, ()) else
                    "they may land, fight and must go back to their sea after the battles ([Raiding and Intruding])",
            INTRUDER: "they may land, fight, retreat to sea and go back to it after the battles (WITHDRAW) or stay "
                      "(SETTLE); no raid points ([Intruders])",
            INVADER: "they must land and stay on land: those left at sea are lost, none retreats to sea "
                     "([Intruders])"}[status] + ".")
    return out
