"""YAML for game saves: one human-readable block style everywhere, comments kept in game.yaml.

* `dump_yaml(data)`      plain data -> text (block style, explicit `null`, multi-line strings as `|`
                         blocks when that reads back exactly, no line wrapping; list items such as
                         events one per line as JSON mappings); written by pbem.store.blockyaml
* `load_plain(path)`     text -> plain dicts/lists (state.yaml, log entries): pbem.store.blockyaml's
                         reader for files in that style, ruamel's safe loader (libyaml, C) for any
                         other YAML (files written by hand or by older versions)
* `load_roundtrip(path)` text -> ruamel CommentedMap that keeps comments and quotes (game.yaml);
                         `dump_roundtrip` writes it back byte for byte when nothing changed.

A file that is not valid YAML raises SaveError naming the file, the key near the error and the line.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

from pbem.errors import GameError
from pbem.store import blockyaml


class SaveError(GameError):
    """A game file is damaged or of an unknown format; names the file and the key."""

    def __init__(self, file: str | Path, key: str, message: str, *, hint: str = "") -> None:
        super().__init__(f"{file}: {key}: {message}", hint=hint)
        self.file = str(file)
        self.key = key


def _represent_none(representer, _data):
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def _make_rt() -> YAML:
    y = YAML(typ="rt")
    y.indent(mapping=2, sequence=4, offset=2)
    y.width = 4096
    y.preserve_quotes = True
    y.default_flow_style = False
    y.representer.add_representer(type(None), _represent_none)
    return y


_RT = _make_rt()
_SAFE = YAML(typ="safe")   # the C loader when ruamel.yaml.clib is installed

# characters a literal block cannot carry back unchanged
_NOT_LITERAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def _literal_ok(s: str) -> bool:
    return "\n" in s and not _NOT_LITERAL.search(s) and not s.startswith((" ", "\t")) \
        and not s.endswith("\n\n")


def _prepare(x: Any) -> Any:
    """Multi-line strings become literal blocks where they read back exactly; strings with control
    characters or unicode line breaks are written double-quoted with escapes."""
    if isinstance(x, str):
        if _NOT_LITERAL.search(x):   # control characters and unicode line breaks: escaped
            return DoubleQuotedScalarString(x)
        return LiteralScalarString(x) if _literal_ok(x) else x
    if isinstance(x, dict):
        return {k: _prepare(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_prepare(v) for v in x]
    return x


def dump_yaml(data: Any, header: str = "") -> str:
    """Plain data -> block-style YAML text; `header` lines are written as `# ` comments on top."""
    try:
        return blockyaml.dump(data, header)
    except TypeError:    # not plain data (ruamel's types, ...): ruamel's emitter
        pass
    buf = io.StringIO()
    if header:
        for line in header.splitlines():
            buf.write(f"# {line}".rstrip() + "\n")
    _RT.dump(_prepare(data), buf)
    return buf.getvalue()


def dump_roundtrip(data: Any) -> str:
    buf = io.StringIO()
    _RT.dump(data, buf)
    return buf.getvalue()


def read_bytes(path: Path, label: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError as e:
        raise SaveError(label, "-", "file missing") from e
    except OSError as e:
        raise SaveError(label, "-", f"cannot read: {e.strerror or e}") from e


def utf8_text(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SaveError(label, "-", f"not UTF-8 text (byte {e.start})") from e


def _read_text(path: Path, label: str) -> str:
    return utf8_text(read_bytes(path, label), label)


_KEY_LINE = re.compile(r"^(\s*)(?:-\s+)*([^\s#'\"\-][^:#]*?|'[^']*'|\"[^\"]*\")\s*:(?:\s|$)")


def key_near(text: str, line: int) -> str:
    """The dotted key path in effect at 0-based `line` (best effort, for error messages)."""
    stack: list[tuple[int, str]] = []
    for raw in text.splitlines()[: line + 1]:
        m = _KEY_LINE.match(raw)
        if not m:
            continue
        indent = len(m.group(1)) + (len(raw) - len(raw.lstrip(" -")) - len(m.group(1)))
        key = m.group(2).strip("'\"")
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, key))
    return ".".join(k for _, k in stack) or "-"


def _yaml_error(label: str, text: str, e: YAMLError) -> SaveError:
    mark = e.problem_mark if isinstance(e, MarkedYAMLError) else None
    if mark is None:
        return SaveError(label, "-", f"not valid YAML: {e}")
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    key = key_near(text, mark.line)
    return SaveError(label, key, f"not valid YAML near line {mark.line + 1}, column {mark.column + 1}: {problem}")


def parse_plain(text: str, label: str) -> Any:
    try:
        return blockyaml.read(text)
    except blockyaml.NotBlockStyle:
        pass
    try:
        value = _SAFE.load(text)
    except YAMLError as e:
        raise _yaml_error(label, text, e) from e
    except Exception as e:   # constructor errors that are not YAMLError subclasses (bad unicode, ...)
        raise SaveError(label, "-", f"not valid YAML: {e}") from e
    _refuse_non_finite(value, label)
    return value


def _refuse_non_finite(x: Any, label: str) -> None:
    """A save holds no .nan or .inf (JSON, and so the state and event hashes, have no such number):
    a file that has one was not written by pbem and is refused."""
    if isinstance(x, float) and not math.isfinite(x):
        raise SaveError(label, "-", f"{x!r} is not a number a save can hold")
    if isinstance(x, dict):
        for v in x.values():
            _refuse_non_finite(v, label)
    elif isinstance(x, list):
        for v in x:
            _refuse_non_finite(v, label)


def load_plain(path: Path, label: str | None = None) -> Any:
    label = label or str(path)
    return parse_plain(_read_text(path, label), label)


def load_roundtrip(path: Path, label: str | None = None) -> Any:
    label = label or str(path)
    return parse_roundtrip(_read_text(path, label), label)


def parse_roundtrip(text: str, label: str) -> Any:
    try:
        return _RT.load(text)
    except YAMLError as e:
        raise _yaml_error(label, text, e) from e
    except Exception as e:
        raise SaveError(label, "-", f"not valid YAML: {e}") from e
