"""Every `orders:` block of the conformance cases parses, with the lines the cases name."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from pbem.orders.canonical import canonical_lines
from pbem.orders.names import resolve
from pbem.orders.parser import parse_message

ROOTS = [Path(__file__).resolve().parents[1] / "cases", Path("/work/shared/cases")]
FILES = sorted({p.resolve() for root in ROOTS if root.is_dir() for p in root.rglob("*.yaml")})


def load_case_ruleset(ruleset_id: str):
    from pbem.data.loader import load  # noqa: PLC0415
    return load(ruleset_id)


def _blocks():
    for f in FILES:
        data = YAML(typ="safe", pure=True).load(f.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("orders"), dict):
            continue
        for nation, text in data["orders"].items():
            yield pytest.param(f, nation, str(text), data.get("expect") or {}, data.get("nation"),
                               data.get("rules"), id=f"{f.stem}:{nation}")


BLOCKS = list(_blocks())


@pytest.mark.skipif(not BLOCKS, reason="no conformance cases found")
@pytest.mark.parametrize("path,nation,text,expect,active,rules", BLOCKS)
def test_case_orders_parse(rs, path, nation, text, expect, active, rules):
    if rules and rules != rs.id:
        rs = load_case_ruleset(rules)   # a case is written in its own ruleset's names and order language
    nid = resolve(rs, nation, ("nation",))
    pm = parse_message(text, rs, default_nation=nid)
    assert pm.problems == [], [p.describe() for p in pm.problems]
    assert [s.nation for s in pm.sections] == [nid]
    orders = pm.sections[0].orders
    written = [ln for ln in text.splitlines() if ln.strip()]
    assert len(orders) == len(written)
    for o in orders:
        assert o.text == text.splitlines()[o.line - 1].strip()
    if "line" in expect and nation == active:
        assert any(o.line == expect["line"] for o in orders)
    # read back and parsed again: the same orders
    again = parse_message("\n".join(canonical_lines(orders, rs)), rs, default_nation=nid)
    assert again.problems == [] and again.sections[0].orders == orders


def test_cases_were_found():
    if not Path("/work/shared/cases").is_dir() and not BLOCKS:
        pytest.skip("no cases on this machine")
    assert len(BLOCKS) >= 10
