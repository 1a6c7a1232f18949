"""The `pbem` command line: a thin layer over the library.

Each command lives in pbem/commands/<module>.py and is registered here. A PbemError becomes a
one-paragraph message on stderr and exit code 1; usage errors exit 2 (click); success 0.
"""

from __future__ import annotations

import importlib
import sys

import click

from pbem import __version__
from pbem.errors import PbemError

# module -> names of the click commands it defines
COMMAND_MODULES = {
    "run": ["run"],
    "check": ["check"],
    "case": ["case"],
    "rules": ["rules"],
    "store": ["new", "status", "replay", "export", "import_", "reveal", "verify_dice"],
    "render": ["render", "report"],
    "bots": ["selfplay", "bench"],
    "moderate": ["moderate"],
    "odds": ["odds"],
    "site": ["site"],
}


class PbemGroup(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except PbemError as e:
            click.echo(f"pbem: {e}", err=True)
            ctx.exit(e.exit_code)


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pbem")
def cli() -> None:
    """Play-by-email adjudicator for Britannia (classic Avalon Hill rules)."""


def _register() -> None:
    for module, names in COMMAND_MODULES.items():
        try:
            mod = importlib.import_module(f"pbem.commands.{module}")
        except ModuleNotFoundError as e:
            if e.name != f"pbem.commands.{module}":
                raise
            continue
        for name in names:
            cmd = getattr(mod, name, None)
            if isinstance(cmd, click.Command):
                cli.add_command(cmd)


_register()


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="pbem", standalone_mode=True)
    except PbemError as e:  # raised outside a command's invoke (e.g. while parsing options)
        click.echo(f"pbem: {e}", err=True)
        sys.exit(e.exit_code)


if __name__ == "__main__":
    main()
