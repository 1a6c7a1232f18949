"""Issue 31 "Also" 3 — every worked example of the classic rule book and every numbered Fantasy Flight
difference has a case in tests/cases/ (docs/CASES.md "What the cases cover" lists them; its list of
rule sections without a case stays empty)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
DOC = (ROOT / "docs" / "CASES.md").read_text(encoding="utf-8")


def _cited_differences() -> set[int]:
    """The FFG difference numbers the ffg2 cases cite (`ffg2 difference 5`, `differences 8 and 11`)."""
    cited: set[int] = set()
    for path in (CASES / "ffg2").rglob("*.yaml"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("cite:"):
                for m in re.finditer(r"differences? ((?:\d+(?:, | and )?)+)", line):
                    cited |= {int(n) for n in re.findall(r"\d+", m.group(1))}
    return cited


def test_every_ffg_difference_has_a_case():
    missing = set(range(1, 57)) - _cited_differences()
    assert not missing, f"FFG differences without a case: {sorted(missing)}"


def test_every_worked_example_listed_has_its_case():
    rows = re.findall(r"^\| ([\d.]+) +\| .+ \| (\S+\.yaml) \|$", DOC, flags=re.M)
    assert len(rows) >= 16
    missing = [f for _, f in rows if not (CASES / "classic" / f).is_file()]
    assert not missing, missing
    for rule, f in rows:   # the case cites the rule of its example
        cite = next(x for x in (CASES / "classic" / f).read_text(encoding="utf-8").splitlines() if x.startswith("cite:"))
        assert rule in cite, (f, rule, cite)


def test_no_rule_section_is_left_without_a_case():
    assert "Rule sections without a case: none." in DOC


def _duel_rows() -> list[tuple[str, str, list[str]]]:
    """The rows of CASES.md "Duel Britannia: a case for every rule paragraph": section, rule, cases."""
    part = DOC.split("## Duel Britannia: a case for every rule paragraph", 1)[1]
    return [(sec, rule, re.findall(r"[\w.-]+\.yaml", files))
            for sec, rule, files in re.findall(r"^\| (\[[^]]+\]) \| (.+?) \| (.+?) \|$", part, flags=re.M)]


def test_every_duel_rule_paragraph_has_a_case_citing_its_section():
    """Issue 29 — at least one case per rule paragraph of the Duel rules, each citing its section."""
    rows = _duel_rows()
    assert len(rows) >= 60
    for section, rule, files in rows:
        assert files, (section, rule)
        for f in files:
            path = CASES / "duel" / f
            assert path.is_file(), (section, f)
            text = path.read_text(encoding="utf-8")
            assert re.search(r"^rules: duel$", text, flags=re.M), f
            cite = next(x for x in text.splitlines() if x.startswith("cite:"))
            assert section.lower() in cite.lower(), (f, section, cite)


def test_every_duel_case_is_listed_under_a_rule_paragraph():
    listed = {f for _, _, files in _duel_rows() for f in files}
    unlisted = sorted(p.name for p in (CASES / "duel").rglob("*.yaml") if p.name not in listed)
    assert not unlisted, f"Duel cases missing from CASES.md's table: {unlisted}"
