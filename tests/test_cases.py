"""Every conformance case — the public ones in ../shared/cases and ours in tests/cases — passes."""

from pathlib import Path

import pytest

from pbem.cases import case_files, load_case, run_case

HERE = Path(__file__).parent
SHARED = HERE.parent.parent / "shared" / "cases"
DIRS = [HERE / "cases"] + ([SHARED] if SHARED.is_dir() else [])
FILES = case_files([str(d) for d in DIRS if d.is_dir()])


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_case(path):
    result = run_case(load_case(path))
    assert result.passed, result.line()
