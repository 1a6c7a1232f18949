"""Mail-text hygiene: turn what people paste into mails into clean order lines.

Line numbers always refer to the ORIGINAL text: lines are split only at CR LF, CR and LF, and each
original line gives exactly one `Line`.

What is cleaned (a line at a time):
- Windows (CR LF) and old Mac (CR) line endings; a byte-order mark; bytes are read as UTF-8;
- zero-width and bidi characters, soft hyphens (removed);
- non-breaking and other unicode spaces, tabs, control characters (a space); runs of spaces (one);
- Unicode compatibility forms (NFKC: full-width letters and digits, ligatures);
- en/em dashes, minus signs and other hyphens (`-`); smart quotes (straight quotes);
- arrows `→ ⇒ ➔ ➜ ➡ ⟶ ⟹ ⇨ ↦` and `=>`, `-->`, `- >` (`->`);
- stray HTML: tags are dropped and entities decoded (`-&gt;` is `->`, `&nbsp;` a space);
- `#` starts a comment; a line ending in `.` or `;` loses it; a line of only `-`, `=`, `*`, `~`
  or `_` (at least three: a separator) is skipped.

What is ignored:
- lines quoted from an earlier mail (starting with `>`, also `&gt;`);
- everything from a signature line `-- ` (or `--` alone) on, and from the lines mail programs put
  above a quoted original (`-----Original Message-----`, a line of underscores, `Begin forwarded
  message:`); a line `On <date>, <someone> wrote:` is skipped.
"""

from __future__ import annotations

import html
import re
import unicodedata

from pbem.records import record

MAX_LINE = 400   # characters of a cleaned line; longer lines are not read as orders

_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u200e\u200f"
                                      "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u034f"), None)
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d"
_ARROWS = "\u2192\u21d2\u2794\u279c\u279d\u279e\u279f\u27a0\u27a1\u27f6\u27f9\u21e8\u21e2\u21a6\u21fe\u2b62\u2b95"
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
           "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
           "\u00ab": '"', "\u00bb": '"'}
_TABLE = {**{ord(c): "-" for c in _DASHES}, **{ord(c): " -> " for c in _ARROWS},
          **{ord(k): v for k, v in _QUOTES.items()}, **_ZERO_WIDTH}

_TAG = re.compile(r"<\s*/?\s*[a-zA-Z!][^<>]*>")
_ARROW_ASCII = re.compile(r"\s*(?:-+\s*>|=+>)\s*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_SPACES = re.compile(r"\s+")
_WROTE = re.compile(r"^on\b.{0,200}\bwrote:?$", re.IGNORECASE)
_RULE = re.compile(r"^[-=*~_+. ]{3,}$")
_STOP = re.compile(r"^(?:-{2,}\s*original message\s*-{2,}|_{10,}|begin forwarded message:?)$", re.IGNORECASE)


_GREETING = re.compile(
    r"^(?:hi|hello|hallo|hey|hiya|howdy|dear|greetings|good\s+(?:morning|afternoon|evening|day)|yo)\b"
    r"|^(?:thanks?|thank\s+you|thx|ta|cheers|regards|best|best\s+wishes|kind\s+regards|best\s+regards|"
    r"warm\s+regards|many\s+thanks|yours|yours\s+truly|sincerely|ciao|bye|see\s+you|later|have\s+fun|"
    r"good\s+luck|gl|hf|ok|okay)\b[\s\w,!.']{0,40}$"
    r"|^sent\s+from\s+my\b|^get\s+outlook\s+for\b|^sent\s+(?:with|via|using)\b"
    r"|\b(?:here\s+(?:are|is)\s+my\s+(?:orders|moves|turn)|my\s+orders\s+(?:for|are|below))\b"
    # the same in Russian: hello, good day/evening/morning, thanks, regards, bye, good luck, my orders
    r"|^(?:привет|здравствуй(?:те)?|добр(?:ый|ое|ого)\s+(?:день|вечер|утро|дня|вечера)|доброе\s+утро)\b"
    r"|^(?:спасибо|благодарю|с\s+уважением|всего\s+(?:доброго|хорошего)|пока|удачи|до\s+встречи)\b"
    r"[\s\w,!.']{0,40}$"
    r"|\b(?:вот\s+мои\s+(?:приказы|ходы|заказы)|мои\s+приказы)\b",
    re.IGNORECASE)
_BARE_WORDS = re.compile(r"^[^\W\d_][\w'.-]*(?:\s+[^\W\d_][\w'.-]*){0,2}[\s!,.]*$")


def chatter(text: str) -> str:
    """Why a cleaned line that is not an order is plainly ordinary mail text ('' if it may be a
    mistyped order): a greeting, a sign-off, a mail program's tag line ("Sent from my iPhone"), or a
    bare word or two such as a name. The parser ignores such lines and the reply says so."""
    s = text.strip()
    if _GREETING.search(s):
        return "a greeting or sign-off"
    if _BARE_WORDS.match(s) and "->" not in s:
        return "a name or a word or two, not an order"
    return ""


@record
class Line:
    """One line of the original text."""

    number: int     # 1-based
    original: str   # as written, without its line break
    text: str       # cleaned; "" when there is nothing to read
    ignored: str = ""   # why it is not read: "" | blank | comment | quoted | signature | too-long

    @property
    def quoted(self) -> str:
        """The original line for quoting back (stripped, shortened when very long)."""
        return quote(self.original)


def quote(original: str, limit: int = 160) -> str:
    s = " ".join(_printable(original[: limit * 4]).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _printable(s: str) -> str:
    # lone surrogates and control characters do not belong in a reply
    s = s.encode("utf-8", "replace").decode("utf-8")
    return "".join(c if c.isprintable() or c == " " else " " for c in s)


def as_text(data: str | bytes | bytearray) -> str:
    if isinstance(data, (bytes, bytearray)):
        data = bytes(data).decode("utf-8", "replace")
    elif not isinstance(data, str):
        data = str(data)
    return data[1:] if data.startswith("\ufeff") else data


def split_lines(text: str) -> list[str]:
    """The original lines (CR LF, CR and LF end a line; nothing else does)."""
    return _NEWLINE.split(text)


def normalize(line: str) -> str:
    """Unicode and HTML clean-up of one line (no comment or quote handling)."""
    s = line
    if s.isascii() and s.isprintable() and "<" not in s and "&" not in s:
        if ">" in s:
            s = _ARROW_ASCII.sub(" -> ", s)
        return _SPACES.sub(" ", s).strip()
    if "<" in s:
        s = _TAG.sub(" ", s)
    if "&" in s:
        s = html.unescape(s)
    s = s.translate(_TABLE)
    s = unicodedata.normalize("NFKC", s)
    s = s.translate(_TABLE)
    out = []
    for c in s:
        if c.isspace() or unicodedata.category(c) in ("Cc", "Zs", "Zl", "Zp"):
            out.append(" ")
        elif unicodedata.category(c) in ("Cf", "Cs"):
            continue
        else:
            out.append(c)
    s = "".join(out)
    if ">" in s:
        s = _ARROW_ASCII.sub(" -> ", s)
    return _SPACES.sub(" ", s).strip()


def clean_lines(text: str | bytes) -> list[Line]:
    """Every original line with its cleaned text (or why it is ignored)."""
    text = as_text(text)
    lines: list[Line] = []
    stopped = ""
    for i, raw in enumerate(split_lines(text), start=1):
        if stopped:
            lines.append(Line(i, raw, "", stopped))
            continue
        if len(raw) > 8 * MAX_LINE:     # not an order whatever it holds; do not clean a megabyte
            s = normalize(raw[: 2 * MAX_LINE])
            if s.startswith(">"):
                lines.append(Line(i, raw, "", "quoted"))
            else:
                lines.append(Line(i, raw, s[:MAX_LINE], "too-long"))
            continue
        s = normalize(raw)
        if s == "--" or _STOP.match(s):
            stopped = "signature"
            lines.append(Line(i, raw, "", stopped))
            continue
        if s.startswith(">"):
            lines.append(Line(i, raw, "", "quoted"))
            continue
        if _WROTE.match(s):
            lines.append(Line(i, raw, "", "quoted"))
            continue
        if _RULE.match(s):
            lines.append(Line(i, raw, "", "blank"))
            continue
        had = bool(s)
        if "#" in s:
            s = s.split("#", 1)[0].strip()
        s = s.rstrip(".;").strip()
        if not s:
            lines.append(Line(i, raw, "", "comment" if had else "blank"))
            continue
        if len(s) > MAX_LINE:
            lines.append(Line(i, raw, s[:MAX_LINE], "too-long"))
            continue
        lines.append(Line(i, raw, s))
    return lines
