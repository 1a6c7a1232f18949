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
