"""Turn reports: the facts (report.json) and their text (templates/report.txt.j2)."""

from __future__ import annotations

import json
from typing import Any

from pbem.report.facts import build_report
from pbem.templating import render


def report_text(report: dict[str, Any], language: str = "en", rs=None) -> str:
    """The report's text in `language` (its facts in that language: pbem.report.localize.localize)."""
    text = render("report.txt.j2", language=language, r=report)
    # `rs`: the game's ruleset, whose Rules.cite gives its own rule numbers (issue 30 item 5)
    return rs.rules.cite(rs, text) if rs is not None else text


def report_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True, default=str) + "\n"


__all__ = ["build_report", "report_json", "report_text"]
