"""The examples of docs/CASES.md are real cases: each yaml block of the guide runs and passes."""

import re
from pathlib import Path

import pytest

from pbem.cases import load_case, run_case

GUIDE = Path(__file__).parent.parent / "docs" / "CASES.md"
BLOCKS = re.findall(r"```yaml\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_guide_example_passes(index, tmp_path):
    path = tmp_path / f"example{index}.yaml"
    path.write_text(BLOCKS[index], encoding="utf-8")
    result = run_case(load_case(path))
    assert result.passed, result.line()


def test_moderate_help_names_the_option_that_lists_the_log():
    from click.testing import CliRunner

    from pbem.cli import cli

    out = CliRunner().invoke(cli, ["moderate", "--help"]).output
    assert "pbem status GAME --log" in " ".join(out.split())


def test_readme_says_a_txt_order_file_needs_a_from_line():
    readme = (GUIDE.parent.parent / "README.md").read_text(encoding="utf-8")
    assert "`.txt` file names its sender" in readme and "`From: <player's address>`" in readme
