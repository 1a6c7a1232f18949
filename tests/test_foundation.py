"""Issue 2 — the CLI skeleton and the error model."""

from click.testing import CliRunner

from pbem import __version__
from pbem.cli import cli
from pbem.errors import OrderError, OrderProblem, PbemError


def test_version():
    r = CliRunner().invoke(cli, ["--version"])
    assert r.exit_code == 0 and __version__ in r.output


def test_help_lists_commands():
    r = CliRunner().invoke(cli, ["--help"])
    assert r.exit_code == 0
    for name in ("case", "check", "rules"):
        assert name in r.output


def test_order_error_names_every_problem():
    e = OrderError([OrderProblem("syntax", 2, "3 Essex ->", "the path ends with an arrow"),
                    OrderProblem("unknown-name", 5, "1 Esex -> Kent", "no area Esex", "did you mean Essex?")])
    assert isinstance(e, PbemError)
    assert "line 2" in str(e) and "line 5" in str(e) and e.kind == "syntax"


def test_pyproject_lists_every_package():
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(root).parts) for p in (root / "pbem").rglob("__init__.py")}
    assert found <= listed, f"add to pyproject [tool.setuptools] packages: {sorted(found - listed)}"
    assert (root / "templates" / "report.txt.j2").is_file() and (root / "templates" / "reply.txt.j2").is_file()
