"""The order forms of the classic family beyond the generic ones (pbem.orders.forms): registered
here, accepted by ClassicRules.order_forms (and so by ffg2, which inherits them).

- BRITTANY N A — optional rule 16.251: armies leave for Brittany before the movement (the ruleset's
  `optional_rules`; the validator refuses it in a game without the rule).
- ALLOW <nation> — rule 11.1: each turn the overlord may allow a subject nation to increase.

A form reads its line with the parser's reader (pbem.orders.forms explains `reader`): no parsing
code of its own beyond the words of the form.
"""

from __future__ import annotations

from pbem.rules.orders import Allow, Brittany, Order, OrderForm, register_form


def _brittany(reader, rest: str) -> Order:
    words = rest.split()
    if len(words) < 2:
        raise reader.syntax("expected BRITTANY, a number and an area", "BRITTANY")
    return Brittany(count=reader.count(words[0], "BRITTANY"), area=reader.names.place(" ".join(words[1:])))


def _allow(reader, rest: str) -> Order:
    if not rest:
        raise reader.syntax("which subject nation?", "ALLOW")
    return Allow(nation=reader.names.get(rest, ("nation",)))


BRITTANY = register_form(OrderForm(
    "BRITTANY", Brittany, "BRITTANY N A  (optional rule 16.251)", "BRITTANY 2 {area}", _brittany,
    lambda o, rs: f"BRITTANY {o.count} {rs.display(o.area)}",
    meaning="armies leave for Brittany before the movement",
    translations={"ru": ("бретань",)}))
ALLOW = register_form(OrderForm(
    "ALLOW", Allow, "ALLOW <nation>", "ALLOW {nation}", _allow, lambda o, rs: f"ALLOW {rs.display(o.nation)}",
    meaning="the overlord lets a subject nation increase population this turn (rule 11.1)",
    translations={"ru": ("разрешить", "позволить")}))
