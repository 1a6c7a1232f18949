"""Issue 19, item 10 — map details a player reads: no "0" on a fort-only stack, one arrow count per
final leg (a two-leg move and a one-leg move into the same area), names above arrows, colour names as
drawn."""

from __future__ import annotations

from pbem.data.loader import load
from pbem.render import map as m
from pbem.render import style
from pbem.render.geometry import load_geometry
from pbem.rules.events import Moved


class _Ax:
    def __init__(self):
        self.texts = []

    def text(self, x, y, s, **kw):
        self.texts.append((s, kw.get("zorder")))

    def add_patch(self, p):
        pass

    def plot(self, *a, **kw):
        pass


def test_a_fort_alone_is_not_drawn_with_a_zero():
    rs = load("classic")
    assert m.counter_label("romans", {"fort": True}, rs) == style.nation_code("romans", rs)
    assert m.counter_label("romans", {"armies": 2, "fort": True}, rs).endswith(" 2")


def test_moves_into_one_area_show_one_count_of_all_arriving():
    rs = load("classic")
    geo = load_geometry()
    ax = _Ax()
    events = [Moved(nation="belgae", kind="armies", count=2, path=["kent", "essex", "suffolk"], leader=None, raiders=0,
                    cycle=1, line=1),
              Moved(nation="belgae", kind="armies", count=1, path=["essex", "suffolk"], leader=None, raiders=0, cycle=1,
                    line=2)]
    m._draw_events(ax, rs, None, events, geo, m.layout(geo))
    counts = [s for s, z in ax.texts if z == 16]
    assert counts == ["3"], counts
    names_on_top = {s for s, z in ax.texts if z == 17}
    assert {"Kent", "Essex", "Suffolk"} <= names_on_top


def test_colours_are_named_as_drawn():
    assert style.colour_name("purple") == "Purple (drawn pink)"
    assert style.colour_name("red") == "Red (drawn orange-red)"
    assert style.colour_name("green") == "Green"
