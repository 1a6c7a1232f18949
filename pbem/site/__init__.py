"""The archive site: every game as a static, self-contained web page (`pbem site`, `pbem export --html`).

`build_site(games_dir, out)` writes out/index.html and a turn-by-turn viewer per game; see build.py.
"""

from pbem.site.build import SiteReport, build_site

__all__ = ["SiteReport", "build_site"]
