"""The order forms of the Duel family beyond the generic ones (pbem.orders.forms), accepted by
DuelRules.order_forms (their rules: pbem.rules.rulesets.duel_arrivals).

- ARRIVE N <sea> — [Appearance At Sea]: of this turn's armies the aid lets appear in either of two
  seas ("North Sea/English Channel"), N appear in <sea> (the others in the first sea the aid names).
- HITS A: FORT FIRST | FORT LAST [, RAIDERS FIRST | SETTLERS FIRST] — [Allocation Of Hits And
  Elimination Of Armies]: the side hit allocates its hits (a standing order, sent in advance; in
  Duel it takes the place of LOSSES).
- VICTORS A: RETREAT TO B (or split parts) — [Retreat Options]: the victorious attacker's retreat.
- LOSE A[, B ...] — [Phase I]: when the population table says the nation loses armies, "an army of
  your choice": one army from each area named, in the order written (`LOSE 2 Kent` names Kent twice).
- REMOVE A[, B ...] — [Appearance At Sea]: armies due to appear at sea lack pieces (the army limit),
  so one existing army of each area named is taken off to make that many more available at sea.
- WITHHOLD <leader> — [Eruption]: a leader whose nation has no area does not appear (nor his armies).
"""

from __future__ import annotations

from pbem.records import record
from pbem.rules.orders import Losses, Order, OrderForm, register_form


@record
class ArriveIn(Order):
    """ARRIVE N <sea> — N arriving armies appear in <sea>, one of the two seas the aid offers."""

    count: int
    sea: str


@record
class LoseArmies(Order):
    """LOSE A[, B ...] — [Phase I] the armies lost by the population table: one from each area named."""

    areas: tuple[str, ...]


@record
class RemoveForArrivals(Order):
    """REMOVE A[, B ...] — [Appearance At Sea] one army of each area named leaves the board so that as
    many more of the armies due at sea are available."""

    areas: tuple[str, ...]


@record
class WithholdLeader(Order):
    """WITHHOLD <leader> — [Eruption] the leader (and necessarily his armies) does not appear."""

    leader: str


def _arrive(reader, rest: str) -> Order:
    words = rest.split()
    if len(words) < 2:
        raise reader.syntax("expected ARRIVE, a number and a sea", "ARRIVE")
    return ArriveIn(count=reader.count(words[0], "ARRIVE"), sea=reader.names.place(" ".join(words[1:])))


def _areas_list(rs, areas: tuple[str, ...]) -> str:
    return ", ".join(rs.display(a) for a in areas)


def _withhold(reader, rest: str) -> Order:
    if not rest.strip():
        raise reader.syntax("which leader?", "WITHHOLD")
    return WithholdLeader(leader=reader.names.get(rest, ("leader",)))


ARRIVE = register_form(OrderForm(
    "ARRIVE", ArriveIn, "ARRIVE N <sea>  (Duel: an arrival in one of two seas)", "ARRIVE 2 {sea}", _arrive,
    lambda o, rs: f"ARRIVE {o.count} {rs.display(o.sea)}",
    meaning="of this turn's armies that may appear in either of two seas, N appear in this one",
    translations={"ru": ("прибыть", "прибытие")}))


# --- Phase IV: the side hit allocates its hits; the victorious attacker's retreat -----------------
@record
class Hits(Losses):
    """HITS A|ALL: FORT FIRST | FORT LAST | RAIDERS FIRST | SETTLERS FIRST (a standing order, as LOSSES
    is elsewhere) — [Allocation Of Hits And Elimination Of Armies] "the player suffering hits decides how
    to allocate them": the hits go to the fortification before the armies (FORT FIRST) or after them
    (FORT LAST, the default); RAIDERS / SETTLERS FIRST says which armies fall first (raiders by default).
    Two choices may stand on one line, comma-separated. [Cavalry]: the 6s go to the cavalry first
    whatever the order says."""

    fort_first: bool = False


HITS_CHOICES = {"fort first": ("fort", True), "fort last": ("fort", False),
                "raiders first": ("armies", "raiders_first"), "settlers first": ("armies", "settlers_first")}


def _hits(reader, rest: str) -> Order:
    head, _, tail = rest.partition(":")
    if not head.strip() or not tail.strip():
        raise reader.syntax("expected HITS A: FORT FIRST (or FORT LAST, RAIDERS FIRST, SETTLERS FIRST)", "HITS")
    area = reader.names.area_or_all(head.strip())
    chosen: dict[str, object] = {}
    for part in tail.split(","):
        words = " ".join(part.replace("_", " ").split()).lower()
        what = HITS_CHOICES.get(words)
        if what is None:
            raise reader.syntax(f"'{part.strip()}' is not FORT FIRST, FORT LAST, RAIDERS FIRST or SETTLERS FIRST", "HITS")
        if what[0] in chosen:
            raise reader.syntax(f"two choices for the {'fort' if what[0] == 'fort' else 'armies'}", "HITS")
        chosen[what[0]] = what[1]
    return Hits(area=area, preference=str(chosen.get("armies", "raiders_first")), fort_first=bool(chosen.get("fort")))


def _print_hits(o: Hits, rs) -> str:
    words = ["FORT FIRST" if o.fort_first else "FORT LAST"]
    if o.preference != "raiders_first":
        words.append(o.preference.replace("_", " ").upper())
    return f"HITS {'ALL' if o.area == 'all' else rs.display(o.area)}: {', '.join(words)}"


HITS = register_form(OrderForm(
    "HITS", Hits, "HITS A: FORT FIRST  or  FORT LAST  [, RAIDERS FIRST  or  SETTLERS FIRST]  (A may be ALL)",
    "HITS {area}: FORT FIRST", _hits, _print_hits, kind="standing",
    meaning="how the hits on your pieces fall between the fortification and the armies, and which armies "
            "fall first ([Allocation Of Hits And Elimination Of Armies]; the 6s always go to the cavalry first: [Cavalry])",
    translations={"ru": ("попадания",)}))


@record
class Victors(Order):
    """VICTORS A: RETREAT TO B | RETREAT N TO B[, N TO C][, REST TO D] — [Retreat Options] "if all
    defenders have been eliminated or have retreated, the victorious attacker can still retreat to any
    area they occupy with no other nation present": after its battle in A is won, the attacker's pieces
    there go one area, in the parts given (REST last takes what is left; without it the others stay)."""

    area: str
    counts: tuple[int, ...] = ()
    to: tuple[str, ...] = ()
    rest_to: str | None = None

    def parts(self) -> list[tuple[int | None, str]]:
        """(count, area) in the order given; count None = all that are left."""
        return list(zip(self.counts, self.to)) + ([(None, self.rest_to)] if self.rest_to else [])


def _victors(reader, rest: str) -> Order:
    head, _, tail = rest.partition(":")
    words = tail.split(None, 1)
    if not head.strip() or len(words) < 2 or words[0].lower() != "retreat":
        raise reader.syntax("expected VICTORS A: RETREAT TO B (or RETREAT 2 TO B, REST TO C)", "VICTORS")
    area = reader.names.place(head.strip())
    body = words[1].strip()
    if body.lower().startswith("to "):
        return Victors(area=area, rest_to=reader.names.place(body[3:].strip()))
    counts: list[int] = []
    to: list[str] = []
    rest_to = None
    parts = [p.strip() for p in body.split(",")]
    for i, part in enumerate(parts):
        n, sep, where = part.partition(" ")
        if not where.lower().startswith("to ") or not (n.isdigit() or n.lower() == "rest"):
            raise reader.syntax(f"'{part}' is not 'N TO B' or 'REST TO B'", "VICTORS")
        target = reader.names.place(where[3:].strip())
        if n.lower() == "rest":
            if i != len(parts) - 1:
                raise reader.syntax("REST TO B comes last", "VICTORS")
            rest_to = target
            continue
        if int(n) < 1:
            raise reader.syntax("a retreating group has at least 1 unit", "VICTORS")
        counts.append(int(n))
        to.append(target)
    return Victors(area=area, counts=tuple(counts), to=tuple(to), rest_to=rest_to)


def _print_victors(o: Victors, rs) -> str:
    if not o.counts:
        return f"VICTORS {rs.display(o.area)}: RETREAT TO {rs.display(o.rest_to)}"
    return f"VICTORS {rs.display(o.area)}: RETREAT " + ", ".join(
        f"{'REST' if n is None else n} TO {rs.display(a)}" for n, a in o.parts())


VICTORS = register_form(OrderForm(
    "VICTORS", Victors, "VICTORS A: RETREAT TO B  or  VICTORS A: RETREAT 2 TO B, REST TO C",
    "VICTORS {area}: RETREAT TO {next}", _victors, _print_victors,
    meaning="after you win the battle in A, your pieces there retreat one area, to areas only you occupy "
            "or where they attacked from ([Retreat Options])",
    translations={"ru": ("победители",)}))
LOSE = register_form(OrderForm(
    "LOSE", LoseArmies, "LOSE A[, B ...]  (Duel: the armies Phase I takes)", "LOSE {area}, {next}",
    lambda reader, rest: LoseArmies(areas=reader.names.places(rest, "LOSE", counts=True)),
    lambda o, rs: f"LOSE {_areas_list(rs, o.areas)}",
    meaning="when the population table loses armies, one army of each area named goes, in this order "
            "([Phase I]: an army of your choice; else from the biggest stack)",
    translations={"ru": ("потерять", "потеря")}))
REMOVE = register_form(OrderForm(
    "REMOVE", RemoveForArrivals, "REMOVE A[, B ...]  (Duel: make room for arrivals at sea)", "REMOVE {area}",
    lambda reader, rest: RemoveForArrivals(areas=reader.names.places(rest, "REMOVE", counts=True)),
    lambda o, rs: f"REMOVE {_areas_list(rs, o.areas)}",
    meaning="when the army limit leaves too few armies for those due at sea, one army of each area named "
            "leaves the board and one more appears at sea ([Appearance At Sea])",
    translations={"ru": ("убрать",)}))
WITHHOLD = register_form(OrderForm(
    "WITHHOLD", WithholdLeader, "WITHHOLD <leader>  (Duel: a leader who would erupt does not appear)",
    "WITHHOLD {leader}", _withhold, lambda o, rs: f"WITHHOLD {rs.display(o.leader)}",
    meaning="a leader whose nation has no area does not appear this turn, nor his armies ([Eruption])",
    translations={"ru": ("удержать",)}))
