"""The archive site: every game as a static, self-contained web page (`pbem site`, `pbem export --html`).

`build_site(games_dir, out)` writes out/index.html and a turn-by-turn viewer per game; see build.py.
build.py (the engine, the report, the templates) is imported only when asked for: `pbem run` with
`site_dir:` first asks pbem.site.fresh whether any game changed at all (issue 33).
"""

from __future__ import annotations

from typing import Any

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# site alone, measured): pbem.site.build +266.

__all__ = ["SiteReport", "build_site"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from pbem.site import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
