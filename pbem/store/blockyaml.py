"""A fast writer and reader for the block-style YAML of state.yaml and the log entries.

ruamel.yaml (even its libyaml parser) builds every node in Python: reading the ~400 entries of a
16-round game took ~0.6 s, writing a state ~30 ms. Game saves hold plain data only (dicts, lists,
str, int, float, bool, None), so they are written here in one fixed block style and read back by a
line reader that knows exactly that style:

* mappings `key: value`, nested ones indented by 2; sequences `- item` indented by 2 under their key
  (the style the files always had); `{}` and `[]` for empty ones;
* strings plain when they are made of letters, digits, space and `_-./()',+` only (and start with
  a letter or `_`), multi-line texts as `|` / `|-` literal blocks when they read back exactly, every
  other string double-quoted with JSON escapes (a subset of YAML's) -- plus the characters YAML
  itself would not carry (C1 controls, U+2028/2029, BOM) escaped as `\\uXXXX`;
* `null`, `true`, `false`, integers, floats as Python writes them (always with `.` or `e`).

`read(text)` returns None for anything outside that style (comments after values, flow collections,
anchors, tags, a BOM, CR line ends, files written by hand or by older versions in ruamel's style it
does not know): the caller then reads the file with ruamel, so every valid YAML file still loads, and
to the same value. tests/store/test_blockyaml.py checks the reader and writer against ruamel.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# a string written without quotes: reads back as the same string under YAML 1.1 and 1.2
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_\-./ ()',+@!?=;&*%]*")
_RESERVED = frozenset(
    w for base in ("null", "true", "false", "yes", "no", "on", "off", "y", "n")
    for w in (base, base.capitalize(), base.upper())
)
# hex digests (state hashes, mail ids) stay unquoted: a letter from a, c, d, f makes them no number
_HEX = re.compile(r"[0-9a-f]*[acdf][0-9a-f]*")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:e[-+][0-9]+)?|e[-+][0-9]+)")
# characters JSON leaves raw in a string but YAML would read otherwise (line breaks) or refuse
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
# characters a literal block cannot carry: control characters (tab excepted), YAML line breaks
_NOT_LITERAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")
# characters that make the reader hand the whole file to ruamel
_READER_REFUSES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


class NotBlockStyle(Exception):
    """The text is not in the style this module writes (the caller reads it with ruamel)."""


# --- writing ---------------------------------------------------------------------------------------
def _quoted(s: str) -> str:
    q = json.dumps(s, ensure_ascii=False)
    if _YAML_UNSAFE.search(q):
        q = _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", q)
    return q


def _literal_ok(s: str) -> bool:
    if "\n" not in s or _NOT_LITERAL.search(s) or s.startswith((" ", "\t", "\n")) or s.endswith("\n\n"):
        return False
    lines = s.split("\n")
    body = lines[:-1] if s.endswith("\n") else lines
    # a line of blanks only, or trailing blanks on the last line, would not read back the same
    return not any(line and not line.strip(" \t") for line in body) and body[-1] == body[-1].rstrip(" \t")


def _is_plain(s: str) -> bool:
    """Whether `s` is written (and read) without quotes."""
    return bool((_PLAIN.fullmatch(s) and s[-1] != " " and s not in _RESERVED) or (len(s) >= 16 and _HEX.fullmatch(s)))


def scalar(x: Any) -> str:
    """One scalar as written on its line (a multi-line text is handled by the caller)."""
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if isinstance(x, int):
        return str(int(x))
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            raise TypeError(f"cannot write the number {x!r}")
        r = repr(float(x))
        return r if "." in r else r.replace("e", ".0e")     # 1e+16 -> 1.0e+16 (YAML 1.1 wants the dot)
    if isinstance(x, str):
        if _is_plain(x):
            return x
        return _quoted(x)
    raise TypeError(f"not a plain value: {type(x).__name__}")


def _key(k: Any) -> str:
    if isinstance(k, bool) or not isinstance(k, (str, int)):
        raise TypeError(f"not a plain key: {k!r}")
    return scalar(k)


def dump(data: Any, header: str = "") -> str:
    """Plain data -> block-style YAML text; `header` lines become `# ` comments on top.
    TypeError for anything that is not plain data (the caller then uses ruamel)."""
    out: list[str] = []
    if header:
        out.extend(f"# {line}".rstrip() for line in header.splitlines())
    if isinstance(data, dict) and data:
        _mapping(data, 0, out)
    elif isinstance(data, (list, tuple)) and data:
        _sequence(data, 0, out)
    else:
        out.append(_inline(data))
    return "\n".join(out) + "\n"


def _literal_head(s: str) -> str:
    return "|" if s.endswith("\n") else "|-"


def _literal_lines(s: str) -> list[str]:
    return (s[:-1] if s.endswith("\n") else s).split("\n")


def _inline(v: Any) -> str:
    """The text after `key: ` or `- ` for a value that fits on the line (or starts a literal)."""
    if isinstance(v, dict):
        if v:
            raise AssertionError("non-empty mapping is not inline")
        return "{}"
    if isinstance(v, (list, tuple)):
        if v:
            raise AssertionError("non-empty sequence is not inline")
        return "[]"
    return scalar(v)


def _value(prefix: str, v: Any, indent: int, out: list[str]) -> None:
    """Write `prefix` (`key:` or `-`) and the value `v`, whose nested lines go at `indent`."""
    if isinstance(v, dict) and v:
        if prefix.endswith("-"):
            first = len(out)
            _mapping(v, indent, out)
            out[first] = prefix[:-1] + "- " + out[first][indent:]
        else:
            out.append(prefix)
            _mapping(v, indent, out)
    elif isinstance(v, (list, tuple)) and v:
        out.append(prefix)
        _sequence(v, indent, out)
    elif isinstance(v, str) and "\n" in v and _literal_ok(v):
        out.append(f"{prefix} {_literal_head(v)}")
        pad = " " * indent
        out.extend(pad + ln if ln else "" for ln in _literal_lines(v))
    else:
        out.append(f"{prefix} {_inline(v)}")


def _mapping(d: dict, indent: int, out: list[str]) -> None:
    pad = " " * indent
    for k, v in d.items():
        _value(f"{pad}{_key(k)}:", v, indent + 2, out)


def _flow(d: dict) -> str | None:
    """A mapping on one line as JSON (JSON is YAML), when nothing in it needs a literal block."""
    try:
        text = json.dumps(d, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        return None
    if _YAML_UNSAFE.search(text):
        text = _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _flat(x: Any) -> bool:
    """Whether a list item can go on one line as JSON: string keys only, no multi-line text."""
    if isinstance(x, dict):
        return all(isinstance(k, str) and _flat(v) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return all(_flat(v) for v in x)
    if isinstance(x, str):
        return "\n" not in x
    return x is None or isinstance(x, (bool, int)) or (isinstance(x, float) and math.isfinite(x))


def _sequence(items: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    for v in items:
        if isinstance(v, dict) and v:
            line = _flow(v) if _flat(v) else None
            if line is not None:
                out.append(f"{pad}- {line}")
            else:
                _value(f"{pad}-", v, indent + 2, out)
        elif isinstance(v, (list, tuple)) and v:
            out.append(f"{pad}-")
            _sequence(v, indent + 2, out)
        else:
            _value(f"{pad}-", v, indent + 2, out)


# --- reading ---------------------------------------------------------------------------------------
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_SINGLE = re.compile(r"'(?:[^']|'')*'")
_KEY = re.compile(r'("(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'|[A-Za-z0-9_\-][A-Za-z0-9_\-./ ()\',+@!?=;&*%]*?):(?: (.*))?')
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _scalar(tok: str) -> Any:
    c = tok[:1]
    if c == '"':
        if not _QUOTED.fullmatch(tok) or _SURROGATE_ESCAPE.search(tok):
            raise NotBlockStyle(tok)
        try:
            return json.loads(tok)
        except ValueError as e:      # a YAML escape JSON does not know (\x41, \e, \N, ...)
            raise NotBlockStyle(tok) from e
    if c == "'":
        if not _SINGLE.fullmatch(tok):
            raise NotBlockStyle(tok)
        return tok[1:-1].replace("''", "'")
    if tok == "null":
        return None
    if tok == "true":
        return True
    if tok == "false":
        return False
    if tok == "{}":
        return {}
    if tok == "[]":
        return []
    if _INT.fullmatch(tok):
        return int(tok)
    if _FLOAT.fullmatch(tok):
        return float(tok)
    if _is_plain(tok):
        return tok
    raise NotBlockStyle(tok)


def _unique(pairs: list[tuple[str, Any]]) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):      # YAML refuses a key twice; JSON would keep the last
        raise NotBlockStyle("duplicate key in a JSON mapping")
    return d


def _no_constant(name: str) -> Any:
    raise NotBlockStyle(f"{name} is not a number pbem writes")     # NaN, Infinity: JSON has no such number


_json_mapping = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_no_constant).decode


def _key_of(tok: str) -> Any:
    if tok[:1] in "\"'":
        return _scalar(tok)
    if _INT.fullmatch(tok):
        return int(tok)
    if _is_plain(tok):
        return tok
    raise NotBlockStyle(tok)


class _Reader:
    __slots__ = ("lines", "n", "i")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.n = len(lines)
        self.i = 0

    def skip_blank(self) -> None:
        lines, i, n = self.lines, self.i, self.n
        while i < n:
            s = lines[i]
            t = s.lstrip(" ")
            if t and t[0] != "#":
                break
            i += 1
        self.i = i

    def indent_here(self) -> int:
        """Indent of the next content line (-1 at the end)."""
        self.skip_blank()
        if self.i >= self.n:
            return -1
        s = self.lines[self.i]
        return len(s) - len(s.lstrip(" "))

    def node(self, indent: int) -> Any:
        s = self.lines[self.i][indent:]
        if s == "-" or s.startswith("- "):
            return self.sequence(indent)
        return self.mapping(indent)

    def mapping(self, indent: int) -> dict:
        out: dict = {}
        lines = self.lines
        while True:
            ind = self.indent_here()
            if ind < indent:
                return out
            if ind > indent:
                raise NotBlockStyle(f"line {self.i + 1}: unexpected indentation")
            s = lines[self.i][indent:]
            if s == "-" or s.startswith("- "):
                raise NotBlockStyle(f"line {self.i + 1}: a sequence where a mapping key was expected")
            m = _KEY.fullmatch(s)
            if m is None:
                raise NotBlockStyle(f"line {self.i + 1}: not a `key: value` line")
            key = _key_of(m.group(1))
            if key in out:
                raise NotBlockStyle(f"line {self.i + 1}: duplicate key")
            self.i += 1
            out[key] = self.value(m.group(2), indent, in_mapping=True)

    def sequence(self, indent: int) -> list:
        out: list = []
        lines = self.lines
        while True:
            ind = self.indent_here()
            if ind < indent:
                return out
            if ind > indent:
                raise NotBlockStyle(f"line {self.i + 1}: unexpected indentation")
            s = lines[self.i][indent:]
            if s == "-":
                self.i += 1
                out.append(self.value(None, indent, in_mapping=False))
                continue
            if not s.startswith("- "):
                return out
            rest = s[2:]
            if rest[:1] == "{":          # a mapping on one line, as JSON
                self.i += 1
                try:
                    item = _json_mapping(rest)
                except ValueError as e:
                    raise NotBlockStyle(f"line {self.i}: not a JSON mapping") from e
                if not isinstance(item, dict):
                    raise NotBlockStyle(f"line {self.i}: not a JSON mapping")
                out.append(item)
            elif _KEY.fullmatch(rest):
                # `- key: value`: a mapping whose keys line up two columns in
                lines[self.i] = " " * (indent + 2) + rest
                out.append(self.mapping(indent + 2))
            elif rest == "-" or rest.startswith("- "):
                lines[self.i] = " " * (indent + 2) + rest
                out.append(self.sequence(indent + 2))
            else:
                self.i += 1
                out.append(self.value(rest, indent, in_mapping=False))

    def value(self, rest: str | None, indent: int, *, in_mapping: bool) -> Any:
        """The value after `key:` / `-` on the line just read (`rest` None: nothing after it)."""
        if rest is None or rest == "":
            ind = self.indent_here()
            if ind > indent:
                return self.node(ind)
            if in_mapping and ind == indent and self.i < self.n:
                s = self.lines[self.i][indent:]
                if s == "-" or s.startswith("- "):
                    return self.sequence(indent)
            return None
        if rest[0] == "|":
            return self.literal(rest, indent)
        return _scalar(rest)

    def literal(self, head: str, indent: int) -> str:
        if head == "|":
            chomp = "clip"
        elif head == "|-":
            chomp = "strip"
        else:
            raise NotBlockStyle(f"line {self.i}: block scalar header {head!r}")
        lines, n = self.lines, self.n
        body: list[str] = []
        block = -1
        i = self.i
        while i < n:
            s = lines[i]
            t = s.lstrip(" ")
            if not t:
                if s:
                    raise NotBlockStyle(f"line {i + 1}: blanks-only line in a literal block")
                body.append("")
                i += 1
                continue
            ind = len(s) - len(t)
            if block < 0:
                if ind <= indent:
                    break
                block = ind
            elif ind < block:
                break
            body.append(s[block:])
            i += 1
        if block < 0:
            raise NotBlockStyle(f"line {self.i}: empty literal block")
        # trailing empty lines belong to the chomping, not to the text; the reader stops before them
        while body and body[-1] == "":
            body.pop()
            i -= 1
        self.i = i
        text = "\n".join(body)
        return text + "\n" if chomp == "clip" else text


def read(text: str) -> Any:
    """The value of a text in this module's style; raises NotBlockStyle for anything else."""
    if _READER_REFUSES.search(text) or "\r" in text or _SURROGATE_ESCAPE.search(text):
        raise NotBlockStyle("characters the reader leaves to ruamel")
    lines = text.split("\n")
    r = _Reader(lines)
    ind = r.indent_here()
    if ind < 0:
        raise NotBlockStyle("empty document")
    if ind != 0:
        raise NotBlockStyle("indented document")
    first = lines[r.i]
    if first.startswith(("---", "...", "%")):
        raise NotBlockStyle("document markers")
    if first == "-" or first.startswith("- ") or _KEY.fullmatch(first):
        value = r.node(0)
    else:
        r.i += 1
        value = r.value(first, -1, in_mapping=False)
    if r.indent_here() != -1:
        raise NotBlockStyle(f"line {r.i + 1}: text after the document")
    return value
