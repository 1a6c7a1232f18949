"""The `pbem` command line: a thin layer over the library.

Each command lives in pbem/commands/<module>.py and is registered here. A PbemError becomes a
one-paragraph message on stderr and exit code 1; usage errors exit 2 (click); success 0.

A command's module is imported only when that command runs (or for --help), so that `pbem run`
from cron does not pay for the engine, the renderer or the bots before it knows it has work.
"""

from __future__ import annotations

import gc
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
    "store": ["new", "status", "replay", "export", "import_", "reveal", "rebuild_state", "verify_dice"],
    "render": ["render", "report"],
    "bots": ["selfplay", "bench", "pace"],
    "moderate": ["moderate"],
    "odds": ["odds"],
    "site": ["site"],
    "prune": ["prune"],
}


def command_name(attr: str) -> str:
    """The name click gives the command defined as `attr` (import_ -> import, verify_dice -> verify-dice)."""
    return attr.rstrip("_").replace("_", "-")


class PbemGroup(click.Group):
    """Imports a command's module on first use (see the module doc)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        _register()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            module = next((m for m, names in COMMAND_MODULES.items()
                           if any(command_name(n) == cmd_name for n in names)), None)
            if module is not None:
                _register(module)
            if cmd_name not in self.commands:     # a command named otherwise than its function
                _register()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except PbemError as e:
            click.echo(f"pbem: {e}", err=True)
            ctx.exit(e.exit_code)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except OSError as e:      # a folder that cannot be read or written, a full disk
            click.echo(f"pbem: {e.strerror or e}{f': {e.filename}' if e.filename else ''}", err=True)
            ctx.exit(1)
        except Exception as e:  # noqa: BLE001 - never a traceback (issue 18); say what broke
            click.echo(f"pbem: unexpected error: {type(e).__name__}: {e}", err=True)
            ctx.exit(1)


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pbem")
def cli() -> None:
    """Play-by-email adjudicator for Britannia: the classic Avalon Hill rules, Fantasy Flight 2nd edition, and Duel Britannia."""


_REGISTERED: set[str] = set()


def _register(only: str | None = None) -> None:
    """Import the command modules (or one) and add their commands to the group."""
    for module, names in COMMAND_MODULES.items():
        if module in _REGISTERED or (only is not None and module != only):
            continue
        _REGISTERED.add(module)
        mod = importlib.import_module(f"pbem.commands.{module}")   # imported when first needed (start-up time)
        for name in names:
            cli.add_command(getattr(mod, name))


# A command is a short-lived process that allocates many small objects and keeps few cycles: the
# collector's first generation is checked every 10 000 allocations instead of every 700 (a burst of
# 1 000 mails spent 50 ms in 140 collections, 20 ms in a handful; issue 33). Memory is held by
# what is still referenced, not by the collector's pace: the peak of a run stays as it was.
COLLECTOR_THRESHOLDS = (10_000, 20, 20)


def main(argv: list[str] | None = None) -> None:
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    try:
        cli.main(args=argv, prog_name="pbem", standalone_mode=True)
    except PbemError as e:  # raised outside a command's invoke (e.g. while parsing options)
        click.echo(f"pbem: {e}", err=True)
        sys.exit(e.exit_code)


if __name__ == "__main__":
    main()
