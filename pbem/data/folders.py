"""Where rulesets live: every folder with a ruleset.yaml is one, found, not listed.

A ruleset is a folder named by its id holding the five files of FILES (ruleset.yaml, map.yaml,
nations.yaml, timeline.yaml, victory_points.yaml) and optionally names.<language>.yaml. They are
found in two places:
  - the installed package (pbem/data/<id>/): classic, ffg2 and whatever a release adds;
  - the folders named by the environment variable PBEM_RULESETS (separated as PATH is: `:` on
    Linux), or added with `add_folder(path)`: each is a ruleset folder itself or holds ruleset
    folders. A game may so play a board typed in by its owner without editing the installed package.
A folder outside the package may not take the id of a package ruleset (a saved game names its
ruleset by id, and classic and ffg2 games must replay as they were made).

ruleset.yaml `extends: <id>` lets a folder hold only the files it changes: a file it lacks is read
from that ruleset's folder (e.g. a typed-in map.yaml, the rest from the package's ruleset).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pbem.data import data_path
from pbem.errors import DataError

FILES = ("ruleset", "map", "nations", "timeline", "victory_points")
ENV = "PBEM_RULESETS"
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_EXTENDS = re.compile(r"^extends:\s*([a-z][a-z0-9_]*)\s*(?:#.*)?$", re.M)

_added: list[Path] = []


def _package_root() -> Path:
    """The installed package's data folder (tests point it elsewhere)."""
    return data_path()


def add_folder(path: str | os.PathLike[str]) -> str | None:
    """Search `path` for rulesets too (a ruleset folder, or a folder of them), for the rest of the
    process. Returns the id when `path` is itself a ruleset folder."""
    p = Path(path).resolve()
    if not p.is_dir():
        raise DataError(str(path), "-", "not a folder")
    if p not in _added:
        _added.append(p)
    return p.name if (p / "ruleset.yaml").is_file() else None


def _outside_roots() -> list[Path]:
    roots = [Path(x) for x in os.environ.get(ENV, "").split(os.pathsep) if x.strip()]
    return [*roots, *_added]


def _rulesets_in(root: Path) -> dict[str, Path]:
    if (root / "ruleset.yaml").is_file():
        return {root.name: root}
    try:
        children = sorted(root.iterdir())
    except OSError:
        return {}
    return {c.name: c for c in children if (c / "ruleset.yaml").is_file()}


def folders() -> dict[str, Path]:
    """Every ruleset found: id -> its folder (the package's first, then PBEM_RULESETS, then added)."""
    out = _rulesets_in(_package_root())
    package = set(out)
    for root in _outside_roots():
        for rid, folder in _rulesets_in(root).items():
            if not _ID.match(rid):
                continue   # not a ruleset id (a backup copy, a hidden folder)
            if rid in package and folder.resolve() != out[rid].resolve():
                raise DataError(str(folder / "ruleset.yaml"), "id",
                                f"{rid!r} is a ruleset of the installed package; give this one another id "
                                "(a folder name and ruleset.yaml id of its own)")
            out.setdefault(rid, folder)
    return out


def known_rulesets() -> tuple[str, ...]:
    """The ids of every ruleset found, sorted."""
    return tuple(sorted(folders()))


def folder(ruleset_id: str) -> Path:
    """The folder of a ruleset; DataError naming the known ones when there is none."""
    found = folders()
    if ruleset_id not in found:
        raise DataError(ruleset_id, "ruleset", f"unknown ruleset; known: {', '.join(sorted(found))}")
    return found[ruleset_id]


def is_package(ruleset_id: str) -> bool:
    return (_package_root() / ruleset_id / "ruleset.yaml").is_file()


def file_path(ruleset_id: str, name: str, _seen: tuple[str, ...] = ()) -> Path:
    """The file `<name>` of a ruleset (`map.yaml`, `names.ru.yaml`): its own, else (ruleset.yaml
    `extends`) the extended ruleset's. Not checked for existence when nothing extends."""
    home = folder(ruleset_id)
    own = home / name
    if own.exists() or name == "ruleset.yaml":
        return own
    base = _extends(home)
    if base is None:
        return own
    if base in (*_seen, ruleset_id):
        raise DataError(str(home / "ruleset.yaml"), "extends", f"extends itself through {base!r}")
    return file_path(base, name, (*_seen, ruleset_id))


def _extends(home: Path) -> str | None:
    """ruleset.yaml `extends: <id>` (read as a line: the files are parsed later, once)."""
    try:
        m = _EXTENDS.search((home / "ruleset.yaml").read_text(encoding="utf-8"))
    except OSError:
        return None
    return m.group(1) if m else None


def label(ruleset_id: str, name: str) -> str:
    """How errors name a ruleset's file: pbem/data/<id>/<name> for the package's (and for tables
    given in memory), the path itself for a folder outside the package."""
    if not is_package(ruleset_id):
        try:
            return str(file_path(ruleset_id, name))
        except DataError:
            pass
    return f"pbem/data/{ruleset_id}/{name}"
