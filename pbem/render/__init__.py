"""The map picture (PNG) of a game position: `render_map(ruleset, state, title=...)`."""

from pbem.render.map import render_map

__all__ = ["render_map"]
