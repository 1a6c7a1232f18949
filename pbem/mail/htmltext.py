"""HTML-only mail to plain text (ORDERS.md: "HTML-only mail is read from its text").

Stdlib html.parser only: tags are dropped, entities unescaped, block elements and <br> become line
breaks, script/style/head content is skipped. Never raises.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK = {
    "p", "div", "br", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6",
    "pre", "blockquote", "hr", "section", "article", "header", "footer", "dt", "dd", "title",
}
_SKIP = {"script", "style", "head", "template", "noscript"}


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.quote = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _SKIP:
            self.skip += 1
        elif tag == "pre":
            self.pre += 1
            self.parts.append("\n")
        elif tag == "blockquote":
            self.quote += 1
            self.parts.append("\n")
        elif tag in _BLOCK:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs) -> None:
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self.parts.append("\n")
        elif tag == "blockquote":
            self.quote = max(0, self.quote - 1)
            self.parts.append("\n")
        elif tag in _BLOCK and tag != "br":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            data = data.replace("\r\n", "\n").replace("\r", "\n")
        else:
            data = re.sub(r"[ \t\r\n\f\v]+", " ", data)
        if self.quote:
            # Quoted text stays recognisable as a quote ("> "), so the orders parser ignores it.
            prefix = "> " * self.quote
            if not self.parts or self.parts[-1].endswith("\n"):
                data = prefix + data.lstrip()
            data = data.replace("\n", "\n" + prefix)
        self.parts.append(data)


def html_to_text(html: str) -> str:
    """Return the readable text of an HTML document, one block per line, trimmed."""
    parser = _TextParser()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # html.parser is lenient, but never let markup break intake
        return re.sub(r"<[^>]*>", " ", html)
    text = "".join(parser.parts).replace("\xa0", " ")
    lines = [line.strip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")
