"""Reading a ruleset's YAML files: plain data, and the `# doubt:` comments they carry, by data path.

The reference files keep the structure and the doubt comments of the public sources they were
gathered from; reading keeps those comments (Ruleset.data_doubts), which needs ruamel's round-trip
parser (pbem/data/cache.py keeps the result between processes). names.<language>.yaml (the names
players may write in another language) is read here too.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Mapping
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from pbem.data import folders
from pbem.errors import DataError

FILES = folders.FILES


def file_label(ruleset_id: str, name: str) -> str:
    """How errors name a ruleset file: pbem/data/<id>/<name>.yaml (a folder outside the package: its path)."""
    return folders.label(ruleset_id, f"{name}.yaml")


def _plain(node: Any) -> Any:
    """ruamel round-trip nodes -> plain dict / list / int / float / str / bool / None."""
    if isinstance(node, Mapping):
        return {_plain(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_plain(v) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node


def _node_lines(root: Any, prefix: str) -> dict[int, str]:
    """0-based line -> the shallowest data path of a node that starts on that line."""
    lines: dict[int, str] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, CommentedMap):
            for k, v in node.items():
                p = f"{path}.{k}"
                try:
                    lines.setdefault(node.lc.key(k)[0], p)
                except (KeyError, TypeError, AttributeError):
                    pass
                walk(v, p)
        elif isinstance(node, CommentedSeq):
            for i, v in enumerate(node):
                p = f"{path}.{i}"
                try:
                    lines.setdefault(node.lc.item(i)[0], p)
                except (KeyError, TypeError, AttributeError, IndexError):
                    pass
                walk(v, p)

    walk(root, prefix)
    return lines


def _comment_of(line: str) -> tuple[int, str] | None:
    """(column, text after '#') of the YAML comment on a line, quotes respected; None if none."""
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote == "'":
            if ch == "'":
                if i + 1 < len(line) and line[i + 1] == "'":
                    i += 1
                else:
                    quote = ""
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = ""
        elif ch in "'\"" and (i == 0 or line[i - 1] in " \t[{,:-"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i, line[i + 1:].strip()
        i += 1
    return None


def _doubt_comments(text: str, root: Any, name: str) -> dict[str, str]:
    """Inline `# doubt:` comments -> {data path: comment}. A comment at the end of a line belongs to
    the node on that line; a comment line to the next node; the file's header block is skipped."""
    lines = _node_lines(root, name)
    starts = sorted(lines)
    notes: dict[str, str] = {}
    for n, line in enumerate(text.splitlines()):
        c = _comment_of(line)
        if c is None:
            continue
        col, comment = c
        m = re.search(r"(?<!# )\bdoubt:\s*", comment)   # not a quoted '"# doubt:"' in prose
        if not m:
            continue
        full_line = not line[:col].strip()
        if full_line and col == 0 and (not starts or n < starts[0]):
            continue   # the file's header block
        if full_line:
            k = bisect.bisect_right(starts, n)
            if k == len(starts):
                continue
            path = lines[starts[k]]
        elif n in lines:
            path = lines[n]
        else:
            k = bisect.bisect_right(starts, n) - 1
            if k < 0:
                continue
            path = lines[starts[k]]
        body = comment[m.end():] if m.start() == 0 else comment
        body = re.sub(r"\s+", " ", body).strip()
        notes[path] = f"{notes[path]} / {body}" if path in notes else body
    return notes


def read_file(ruleset_id: str, name: str) -> tuple[dict, dict[str, str]]:
    """One file of a ruleset's folder: (plain tables, its `# doubt:` comments by data path)."""
    path = folders.file_path(ruleset_id, f"{name}.yaml")
    label = file_label(ruleset_id, name)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise DataError(label, "-", "file missing") from e
    try:
        root = YAML(typ="rt").load(text)
    except YAMLError as e:
        raise DataError(label, "-", f"not valid YAML: {e}") from e
    if not isinstance(root, Mapping):
        raise DataError(label, "-", "top level must be a mapping")
    return _plain(root), _doubt_comments(text, root, name)


# --- names.<language>.yaml ----------------------------------------------------------------------

LANGUAGES = ("ru",)       # the languages of names files a ruleset may have
_NAME_KINDS = {"areas": "area", "seas": "sea", "nations": "nation", "leaders": "leader"}


def names_label(ruleset_id: str, lang: str) -> str:
    return folders.label(ruleset_id, f"names.{lang}.yaml")


@functools.lru_cache(maxsize=8)
def names_file(ruleset_id: str, lang: str) -> dict | None:
    """The parsed names file (plain data), None when the ruleset has none."""
    label = names_label(ruleset_id, lang)
    try:
        text = folders.file_path(ruleset_id, f"names.{lang}.yaml").read_text(encoding="utf-8")
    except (DataError, FileNotFoundError, NotADirectoryError):   # no such ruleset folder, no such file
        return None
    except OSError as e:
        raise DataError(label, "-", f"unreadable: {e}") from e
    try:
        root = YAML(typ="safe", pure=True).load(text)
    except YAMLError as e:
        raise DataError(label, "-", f"not valid YAML: {e}") from e
    if not isinstance(root, Mapping):
        raise DataError(label, "-", "top level must be a mapping")
    if root.get("language") != lang:
        raise DataError(label, "language", f"must be {lang!r}")
    return _plain(root)
