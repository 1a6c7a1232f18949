"""`pbem case run PATH...` — run conformance cases (the case format: docs/CASES.md)."""

from __future__ import annotations

import click

from pbem.cases import run_paths


@click.group()
def case() -> None:
    """Conformance cases: the rules as data."""


@case.command("run")
@click.argument("paths", nargs=-1, required=True)
@click.option("--quiet", "-q", is_flag=True, help="Print only failures and the closing line.")
def run_cmd(paths: tuple[str, ...], quiet: bool) -> None:
    """Run the case files (or folders of them) in PATHS; exit 1 if any fails or cannot be read."""
    results, errors = run_paths(list(paths))
    for r in results:
        if not (quiet and r.passed):
            click.echo(r.line())
    for e in errors:
        click.echo(e)
    failed = sum(not r.passed for r in results) + len(errors)
    click.echo(f"{len(results) - sum(not r.passed for r in results)} passed, {failed} failed")
    if failed:
        raise SystemExit(1)
