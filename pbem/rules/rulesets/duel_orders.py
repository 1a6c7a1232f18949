"""The order forms of the Duel family beyond the generic ones (pbem.orders.forms), accepted by
DuelRules.order_forms.

- ARRIVE N <sea> — [Appearance At Sea]: of this turn's armies the aid lets appear in either of two
  seas ("North Sea/English Channel"), N appear in <sea> (the others in the first sea the aid names).
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.rules.orders import Order, OrderForm, register_form


@dataclass(frozen=True)
class ArriveIn(Order):
    """ARRIVE N <sea> — N arriving armies appear in <sea>, one of the two seas the aid offers."""

    count: int
    sea: str


def _arrive(reader, rest: str) -> Order:
    words = rest.split()
    if len(words) < 2:
        raise reader.syntax("expected ARRIVE, a number and a sea", "ARRIVE")
    return ArriveIn(count=reader.count(words[0], "ARRIVE"), sea=reader.names.place(" ".join(words[1:])))


ARRIVE = register_form(OrderForm(
    "ARRIVE", ArriveIn, "ARRIVE N <sea>  (Duel: an arrival in one of two seas)", "ARRIVE 2 {sea}", _arrive,
    lambda o, rs: f"ARRIVE {o.count} {rs.display(o.sea)}",
    meaning="of this turn's armies that may appear in either of two seas, N appear in this one"))
