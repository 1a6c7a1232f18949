"""CASES.md "Whole rounds": round cases run the steps around the nations' turns; bad ones are clear errors."""

from pathlib import Path

import pytest

from pbem.cases import load_case, run_case
from pbem.errors import CaseError

ROUNDS = Path(__file__).parent / "cases" / "classic" / "rounds"


def _case(tmp_path, text: str):
    p = tmp_path / "case.yaml"
    p.write_text(text)
    return load_case(p)


def test_at_least_fifteen_round_cases_of_ours():
    assert len(list(ROUNDS.glob("*.yaml"))) >= 15


def test_a_wrong_expectation_fails_with_what_differed(tmp_path):
    case = _case(tmp_path, "id: x\nrules: classic\nround: 9\nstart: round_start\nstop: after_round_start\n"
                           "setup:\n  Essex: {Saxons: 2}\norders:\n  Saxons: VOTE Saxons\n"
                           "expect:\n  bretwalda: Angles\n  winner: [red]\n")
    result = run_case(case)
    assert not result.passed
    assert "bretwalda: expected Angles, got Saxons" in result.line()


@pytest.mark.parametrize("extra, key", [
    ("start: end_of_round\nplay: [Saxons]\nstop: end_of_round\n", "start"),
    ("start: round_start\nstop: end_of_turn\n", "stop"),
    ("start: round_start\nplay: Saxons\nstop: end_of_round\n", "play"),
    ("start: round_start\nstop: end_of_round\nplayers: 7\n", "players"),
    ("start: round_start\nstop: after_movement\n", "stop"),
])
def test_malformed_round_case_names_file_and_key(tmp_path, extra, key):
    with pytest.raises(CaseError) as e:
        _case(tmp_path, f"id: x\nrules: classic\nround: 9\n{extra}setup: {{}}\nexpect: {{}}\n")
    assert str(e.value).startswith(f"{tmp_path / 'case.yaml'}: {key}:")
