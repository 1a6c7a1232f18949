"""The jinja2 environment for every mail and report: StrictUndefined, templates/ next to the package
(a source checkout) or pbem/templates (an installed package)."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

import pbem
from pbem.errors import PbemError


def template_dirs() -> list[Path]:
    pkg = Path(pbem.__file__).resolve().parent
    return [p for p in (pkg.parent / "templates", pkg / "templates") if p.is_dir()]


@functools.lru_cache(maxsize=4)
def environment(dirs: tuple[str, ...] | None = None) -> jinja2.Environment:
    paths = list(dirs) if dirs else [str(p) for p in template_dirs()]
    if not paths:
        raise PbemError("the templates are missing", hint="expected a templates/ folder next to the pbem package or in it")
    return jinja2.Environment(loader=jinja2.FileSystemLoader(paths), undefined=jinja2.StrictUndefined,
                              autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


def render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)
