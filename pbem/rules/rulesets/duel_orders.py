"""The order forms of the Duel family beyond the generic ones (pbem.orders.forms), accepted by
DuelRules.order_forms (their rules: pbem.rules.rulesets.duel_arrivals).

- ARRIVE N <sea> — [Appearance At Sea]: of this turn's armies the aid lets appear in either of two
  seas ("North Sea/English Channel"), N appear in <sea> (the others in the first sea the aid names).
- LOSE A[, B ...] — [Phase I]: when the population table says the nation loses armies, "an army of
  your choice": one army from each area named, in the order written (`LOSE 2 Kent` names Kent twice).
- REMOVE A[, B ...] — [Appearance At Sea]: armies due to appear at sea lack pieces (the army limit),
  so one existing army of each area named is taken off to make that many more available at sea.
- WITHHOLD <leader> — [Eruption]: a leader whose nation has no area does not appear (nor his armies).
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.rules.orders import Order, OrderForm, register_form


@dataclass(frozen=True)
class ArriveIn(Order):
    """ARRIVE N <sea> — N arriving armies appear in <sea>, one of the two seas the aid offers."""

    count: int
    sea: str


@dataclass(frozen=True)
class LoseArmies(Order):
    """LOSE A[, B ...] — [Phase I] the armies lost by the population table: one from each area named."""

    areas: tuple[str, ...]


@dataclass(frozen=True)
class RemoveForArrivals(Order):
    """REMOVE A[, B ...] — [Appearance At Sea] one army of each area named leaves the board so that as
    many more of the armies due at sea are available."""

    areas: tuple[str, ...]


@dataclass(frozen=True)
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
    meaning="of this turn's armies that may appear in either of two seas, N appear in this one"))
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
