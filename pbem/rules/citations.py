"""A family's own rule numbers in the texts players read (issue 30 item 5): the generic rules' messages
cite the classic sections ("rule 10.2, 5.2"); a family with its own rule book rewrites each section
through its table (Rules.citation_table) at display, and says how it cites a section it does not map
(Rules.UNMAPPED_CITATION). Logged event texts keep their bytes: only shown text is rewritten."""

from __future__ import annotations

import re
from collections.abc import Mapping

CITATION = re.compile(r"(?<!\w)(rules?|Rules?|[Пп]равил[а-я]*) (\d+\.\d+(?:, \d+\.\d+)*)\b")
"""a generic citation: "rule 6.0", "rules 5.12, 5.13, 9.1" or "rule 10.2, 5.2", or the same in a
Russian player's text ("правило 10.2", "правила 5.12, 5.13")."""

SECTIONS = re.compile(r"\((\d+\.\d+(?:, \d+\.\d+)*)\)")
"""a bare section `pbem rules show` cites: "(14.2)" or "(11.1, 11.2)"."""


def _split(numbers: str, table: Mapping[str, str]) -> tuple[list[str], list[str]]:
    sections = [s.strip() for s in numbers.split(",")]
    return list(dict.fromkeys(table[s] for s in sections if s in table)), [s for s in sections if s not in table]


def cite_sections(text: str, table: Mapping[str, str], unmapped: Mapping[str, str], *, bare: bool = False) -> str:
    """`text` with every generic citation in the family's numbering (each section through the table, "rule 10.2" -> the family's number for it)."""

    def one(m: re.Match) -> str:
        own, rest = _split(m.group(2), table)
        if rest:
            russian = not m.group(1).lower().startswith("rule")
            word = m.group(1) if russian else ("rules" if len(rest) > 1 else "rule")
            form = unmapped.get("ru" if russian else "en", "{word} {sections}")
            own.append(form.format(word=word, sections=", ".join(rest)))
        return ", ".join(own)

    def section(m: re.Match) -> str:
        own, rest = _split(m.group(1), table)
        return "(" + ", ".join(own + ([unmapped.get("bare", "{sections}").format(sections=", ".join(rest))]
                                      if rest else [])) + ")"

    text = CITATION.sub(one, text)
    return SECTIONS.sub(section, text) if bare else text
