"""The victory-point chart of a game: VP per player (top) and per nation (bottom) after every turn
shown, with the rounds marked on the x axis. Matplotlib's object API (Figure), never pyplot."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg", force=False)

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from pbem.render import style  # noqa: E402

LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)))


def vp_chart(turns: Sequence[Mapping[str, Any]], players: Sequence[Mapping[str, Any]], rs: Any) -> bytes:
    """PNG of the VP over the turns. `turns`: site records with `round`, `players` {name: vp} and
    `nations` {nation: vp}; `players`: [{name, colour, nations}] from the game's settings."""
    fig = Figure(figsize=(10, 7.5), dpi=100)
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True)
    xs = list(range(1, len(turns) + 1))
    for p in players:
        colour = style.PLAYER_COLOURS.get(style.drawn_seat(str(p.get("colour")).lower(), rs) or "", style.UNKNOWN_NATION)
        top.plot(xs, [t["players"].get(p["name"], 0) for t in turns], color=colour, lw=2.2, marker="o", ms=3,
                 label=str(p["name"]))
    top.set_ylabel("VP per player")
    top.legend(loc="upper left", fontsize=9, frameon=False)
    seen = 0
    for p in players:
        for k, nation in enumerate(p.get("nations") or []):
            ys = [t["nations"].get(nation, 0) for t in turns]
            if not any(ys):
                continue          # a nation that never scored only clutters the chart
            seen += 1
            bottom.plot(xs, ys, color=style.nation_colour(nation, rs), ls=LINE_STYLES[k % len(LINE_STYLES)], lw=1.6,
                        label=f"{rs.display(nation)} ({p['name']})")
    bottom.set_ylabel("VP per nation")
    if seen:
        bottom.legend(loc="upper left", fontsize=8, frameon=False, ncol=2)
    else:
        bottom.text(0.5, 0.5, "no nation has scored yet", ha="center", va="center", transform=bottom.transAxes)
    ticks, labels, last = [], [], None
    for x, t in zip(xs, turns):
        if t["round"] != last:
            ticks.append(x)
            labels.append(str(t["round"]))
            last = t["round"]
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
        for x in ticks[1:]:
            ax.axvline(x - 0.5, color="#999999", lw=0.6, alpha=0.6)
    bottom.set_xticks(ticks, labels)
    bottom.set_xlabel("round (each point: the scores after one turn)")
    if xs:
        bottom.set_xlim(0.5, len(xs) + 0.5)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
