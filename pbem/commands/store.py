"""Game-store commands: new, status, replay, export, import, reveal, rebuild-state, verify-dice."""

from __future__ import annotations

import json
import sys

import click

from pbem.errors import GameError

GAMES_DIR = click.option("--dir", "games_dir", default="games", show_default=True, metavar="GAMES_DIR",
                         help="Directory holding the games (a GAME argument may also be a path).")


def _open(game: str, games_dir: str):
    from pbem.store.game import Game, resolve_game

    return Game.open(resolve_game(game, games_dir))


def _languages(langs: tuple[str, ...], names: list[str]) -> dict[str, str]:
    """`--lang` values -> player name -> language: `NAME=LANG`, or the k-th plain value for the k-th
    `--player`."""
    out: dict[str, str] = {}
    plain = 0
    for value in langs:
        name, sep, lang = value.rpartition("=")
        if not sep:
            if plain >= len(names):
                raise click.BadParameter(f"{value!r}: there is no --player number {plain + 1} for it "
                                         "(write --lang NAME=LANGUAGE)", param_hint="--lang")
            name = names[plain]
            plain += 1
        out[name] = lang
    return out


@click.command()
@click.argument("game_id")
@click.option("--ruleset", default="classic", show_default=True)
@click.option("--players", "n_players", type=int, default=4, show_default=True, help="Number of players.")
@click.option("--player", "player_specs", multiple=True, metavar="NAME=ADDRESS",
              help="Name a player (in colour order); repeat. Unnamed players are named after their colour.")
@click.option("--lang", "langs", multiple=True, metavar="[NAME=]LANGUAGE",
              help="A player's language (en, ru; English by default): the k-th --lang is the k-th --player's, "
                   "or NAME=LANGUAGE names the player; repeat.")
@click.option("--moderator", default="moderator@localhost", show_default=True, metavar="ADDRESS")
@click.option("--position", "position", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Start from this position (a game moved over mid-game; docs/POSITIONS.md).")
@click.option("--dry-run", is_flag=True, help="With --position: only check the file; create nothing.")
@GAMES_DIR
def new(game_id: str, ruleset: str, n_players: int, player_specs: tuple[str, ...], langs: tuple[str, ...],
        moderator: str, position: str | None, dry_run: bool, games_dir: str) -> None:
    """Create a game: settings, start position (rule 3.0, or --position), dice secret, tokens."""
    from pbem.store.game import create_game, parse_player_spec

    specs = [parse_player_spec(s) for s in player_specs]
    languages = _languages(langs, [name for name, _ in specs])
    if dry_run:
        if not position:
            raise click.UsageError("--dry-run checks a --position FILE")
        from pbem.data.loader import load
        from pbem.errors import DataError
        from pbem.position.file import read_position_file

        try:
            rs = load(ruleset)
        except DataError as e:
            raise GameError(f"ruleset {ruleset!r}: {e.message}") from e
        pos = read_position_file(position, ruleset=rs, game=game_id)
        for w in pos.warnings:
            click.echo(f"warning: {w}", err=True)
        st = pos.state
        at = {"round_start": "the round to start", "end_of_round": "the round's closing steps due"}.get(pos.start)
        areas = sum(1 for a in st.areas.values() if any(not s.empty() for s in a.values()))
        click.echo(f"{position}: a valid position: round {st.round}, "
                   + (at or f"the {rs.display(st.next_nation)} to move") + f", pieces in {areas} areas, "
                   f"{sum(st.vp.values())} VP so far ({len(pos.warnings)} warning(s)); nothing created")
        return
    if position:
        from pbem.position.game import new_from_position

        game, pos = new_from_position(games_dir, game_id, position, ruleset=ruleset, players=n_players,
                                      player_specs=specs, moderator=moderator, languages=languages)
        for w in pos.warnings:
            click.echo(f"warning: {w}", err=True)
    else:
        game = create_game(games_dir, game_id, ruleset=ruleset, players=n_players, player_specs=specs,
                           moderator=moderator, languages=languages)
    created = game.entry(1)
    rs = game.ruleset()
    click.echo(f"created {game.path} ({rs.name}, {n_players} players)")
    if position:
        st = game.state
        at = f"the {rs.display(st.next_nation)} to move" if st.next_nation else "the round to start"
        click.echo(f"start: the position in {position}: round {st.round}, {at}")
        click.echo("  (the first turn mail shows this position to every player to confirm)")
    elif not str(created.get("start", "")).startswith("pbem.rules.turn"):
        click.echo(f"warning: start position from {created.get('start')}", err=True)
    click.echo(f"dice commitment: {game.commitment}")
    click.echo("  (publish it in the first report; `pbem reveal` shows the secret when the game is over)")
    click.echo("players (send each their token privately):")
    for p in game.players():
        nations = ", ".join(rs.display(n) for n in p["nations"])
        lang = f", language {p['language']}" if p.get("language") else ""
        click.echo(f"  {p['name']} <{p['address']}> ({p.get('colour', '?')}{lang}): token {p['token']} — {nations}")
    mod = game.settings.get("moderator") or {}
    click.echo(f"moderator <{mod.get('address')}>: token {mod.get('token')}")


@click.command()
@click.argument("game")
@GAMES_DIR
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--log", "show_log", is_flag=True, help="Also list the log: the entry numbers that `pbem moderate "
              "GAME rollback ENTRY` and `pbem render/report --round --nation` refer to.")
@click.option("--disk", "show_disk", is_flag=True, help="Also show what the game folder holds on disk, by part "
              "(what `pbem prune` may trim).")
@click.option("--now", default=None, help="Pretend it is this time (ISO 8601, UTC), as `pbem run --now`.")
def status(game: str, games_dir: str, as_json: bool, show_log: bool, show_disk: bool, now: str | None) -> None:
    """Round, nation to move, orders in, deadline, absences and scores."""
    from pbem.commands.run import parse_now
    from pbem.service.status import game_status

    g = _open(game, games_dir)
    st = game_status(g, now=parse_now(now) if now else None)
    if show_disk and not as_json:
        from pbem.store.retention import disk_usage

        click.echo(f"on disk ({g.path}):")
        for line in disk_usage(g.path).lines():
            click.echo(line)
        click.echo("")
    if show_log and not as_json:
        rs = g.ruleset()
        for e in g.entries():
            what = {"turn": lambda e: f"round {e.get('round')}: " + (rs.display(e.get("nation")) if e.get("nation")
                                                                       else str(e.get("step")).replace("_", " ")),
                    "orders": lambda e: f"orders for the {rs.display(e.get('nation'))} from {e.get('player')}",
                    "moderator": lambda e: f"moderator {e.get('action')} by {e.get('who')}: {e.get('why')}",
                    }.get(e.kind, lambda e: e.kind)(e)
            click.echo(f"{e.id:6d}  {e.time}  {what}")
        click.echo("")
    if as_json:
        click.echo(json.dumps(st.to_dict(), indent=2, sort_keys=True))
    else:
        rs = g.ruleset()
        click.echo(st.text(rs))
        if rs.version_line():   # a game keeps the rules it was created with
            click.echo(f"rules: {rs.version_line()}")


@click.command()
@click.argument("sources", metavar="GAME_DIR_OR_ARCHIVE...", nargs=-1, required=True)
@GAMES_DIR
@click.option("--recorded-dice", is_flag=True, help="Use the logged faces even when the secret is here.")
@click.option("--check-start", is_flag=True, help="Also compare the logged start with the engine's start position.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0,
              help="Games replayed in parallel processes (many games); default 0: one per CPU.")
@click.option("--fresh", is_flag=True, help="Kept for scripts: every replay now parses every log file "
              "itself (the parsed-log cache .log-index.jsonl takes no part in a check).")
@click.option("--log-hash", "log_hash", metavar="N:HASH",
              help="Check that the log still holds entry N with this running hash (printed in every turn mail).")
def replay(sources: tuple[str, ...], games_dir: str, recorded_dice: bool, check_start: bool, quiet: bool,
           jobs: int, log_hash: str | None, fresh: bool) -> None:
    """Re-adjudicate games from their logs and check every stored hash; exit 1 on divergence.

    Give one game (directory, id or archive), several, or a folder of games and archives: each game
    gets one line (ok / DIVERGES / ERROR), a divergence its details, and a total at the end."""
    from pbem.store.replaymany import expand_sources

    many = expand_sources(list(sources), games_dir)
    expect = None
    if log_hash:
        from pbem.store.loghash import parse_expectation

        try:
            expect = parse_expectation(log_hash)
        except ValueError as e:
            raise GameError(f"--log-hash: {e}", hint="copy it from a turn mail: --log-hash 17:3f2a...") from e
        if len(many) != 1:
            raise GameError("--log-hash checks one game")
    if len(sources) == 1 and many == list(sources):
        _replay_one(sources[0], games_dir, recorded_dice, check_start, quiet, expect, fresh)
    else:
        _replay_many(many, games_dir, recorded_dice, check_start, quiet, jobs, fresh)


def _replay_one(source: str, games_dir: str, recorded_dice: bool, check_start: bool, quiet: bool,
                expect: tuple[int, str] | None = None, fresh: bool = False) -> None:
    from pbem.store.archive import open_source
    from pbem.store.game import Game
    from pbem.store.replay import replay as run_replay

    start = None
    if check_start:
        from pbem.rules.turn import new_game_state as start
    with open_source(source, games_dir) as path:
        game = Game.open(path, editable=False)
        n = game.last_entry_id()
        show = not quiet and n > 1
        with click.progressbar(length=n, label=f"replaying {game.id}", file=sys.stderr,
                               show_pos=True) if show else _NoBar() as bar:
            report = run_replay(game, start=start, use_secret=not recorded_dice, progress=bar.update, log_hash=expect,
                                fresh=fresh)
    click.echo(report.summary())
    if not report.ok:
        sys.exit(1)


def _replay_many(sources: list[str], games_dir: str, recorded_dice: bool, check_start: bool, quiet: bool,
                 jobs: int, fresh: bool = False) -> None:
    import time

    from pbem.store.replaymany import replay_many

    t0 = time.perf_counter()
    bad = steps = 0
    lines: list[str] = []
    with click.progressbar(length=len(sources), label=f"replaying {len(sources)} games", file=sys.stderr,
                           show_pos=True, show_eta=True) if not quiet else _NoBar() as bar:
        for res in replay_many(sources, games_dir, jobs=jobs, use_secret=not recorded_dice, check_start=check_start,
                               fresh=fresh):
            bar.update(1)
            bad += not res.ok
            steps += res.steps
            lines.append(res.line())
            lines.extend(f"         {d}" for d in res.details())
    for line in lines:
        click.echo(line)
    took = time.perf_counter() - t0
    click.echo(f"{len(sources)} games replayed ({steps} steps) in {took:.1f} s: {len(sources) - bad} match, "
               f"{bad} {'diverges or fails' if bad == 1 else 'diverge or fail'}")
    if bad:
        sys.exit(1)


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int) -> None:
        return None


@click.command()
@click.argument("game")
@click.option("--to", "dest", type=click.Path(dir_okay=False), help="Archive to write (.tar.gz).")
@click.option("--html", "html_dir", type=click.Path(file_okay=False),
              help="Instead: write the game's static web pages into this folder (see `pbem site`).")
@click.option("--include-secret", is_flag=True, help="Include the sealed dice secret (to move a running game).")
@click.option("--public", is_flag=True, help="Leave out raw mails; redact tokens and addresses.")
@click.option("--position", "position", type=click.Path(dir_okay=False, allow_dash=True), metavar="FILE",
              help="Instead: write the current position (the form `pbem new --position` reads; - for stdout).")
@GAMES_DIR
def export(game: str, dest: str | None, html_dir: str | None, include_secret: bool, public: bool, position: str | None,
           games_dir: str) -> None:
    """Write a portable archive of a game (everything needed to replay it), its web pages (--html) or its
    current position (--position)."""
    from pbem.store.archive import export_game

    g = _open(game, games_dir)
    if position:
        from pbem.position.game import export_position
        from pbem.store.fs import atomic_write

        text = export_position(g)
        if position == "-":
            click.echo(text, nl=False)
        else:
            atomic_write(position, text)
            click.echo(f"position of {g.id} (round {g.state.round}) written to {position}")
    if html_dir:
        from pbem.commands.site import write_site

        for line in write_site(str(g.path.parent), html_dir, only=(g.path.name,)).lines():
            click.echo(line)
    if not dest:
        if position or html_dir:
            return
        raise click.UsageError("say where: --to ARCHIVE.tar.gz, --html DIR or --position FILE")
    names = export_game(g, dest, include_secret=include_secret, public=public)
    secret = any(n.endswith("/secret") for n in names)
    click.echo(f"exported {g.id} to {dest}: {len(names)} files" + (" (with the dice secret)" if secret else ""))


@click.command(name="import")
@click.argument("archive", type=click.Path(dir_okay=False))
@GAMES_DIR
def import_(archive: str, games_dir: str) -> None:
    """Unpack a game archive into GAMES_DIR/<id>."""
    from pbem.store.archive import import_game

    g = import_game(archive, games_dir)
    click.echo(f"imported {g.id} into {g.path} (round {g.state.round}, {g.last_entry_id()} log entries)")
    if g.secret() is None:
        click.echo("note: the dice secret is not in the archive: the game can be replayed, not played on")


@click.command()
@click.argument("game")
@GAMES_DIR
@click.option("--who", default=None, help="Who reveals (default: the moderator's address).")
@click.option("--why", default="game over: dice secret revealed", show_default=True)
@click.option("--force", is_flag=True, help="Reveal even though the game is not finished.")
def reveal(game: str, games_dir: str, who: str | None, why: str, force: bool) -> None:
    """Publish the dice secret (into game.yaml and the log) so anyone can verify the dice."""
    from pbem.store.dicecheck import reveal_secret

    g = _open(game, games_dir)
    secret, eid = reveal_secret(g, who=who, why=why, force=force)
    click.echo(f"dice secret of {g.id}: {secret}")
    click.echo(f"commitment: {g.commitment}")
    click.echo(f"logged as entry {eid}" if eid else "(it was revealed before)")


@click.command(name="rebuild-state")
@click.argument("game")
@GAMES_DIR
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def rebuild_state(game: str, games_dir: str, yes: bool) -> None:
    """Rebuild state.yaml from the log (the position after its last entry).

    The repair when state.yaml follows log entries that are gone (a torn last entry deleted): the
    game stops until then. Restore the entries from a backup instead when you have them."""
    from pbem.store.game import Game, resolve_game
    from pbem.store.recover import rebuild_state as rebuild

    g = Game.open(resolve_game(game, games_dir))
    last = g.last_entry_id()
    at = g.state_file_entry()
    click.echo(f"{g.label('state.yaml')} follows entry {at if at is not None else '?'}; the log ends at entry {last}")
    if not yes:
        click.confirm(f"make state.yaml the position after entry {last}, derived from the log?", abort=True)
    before, last = rebuild(g)
    click.echo(f"state.yaml of {g.id} rebuilt: the position after entry {last} (it followed entry "
               f"{before if before is not None else '?'}); `pbem replay {g.id}` checks the log")


@click.command(name="verify-dice")
@click.argument("source", metavar="GAME_DIR_OR_ARCHIVE")
@GAMES_DIR
def verify_dice(source: str, games_dir: str) -> None:
    """Recompute every logged die with the revealed secret; exit 1 on the first mismatch."""
    from pbem.store.archive import open_source
    from pbem.store.dicecheck import verify_dice as run_verify
    from pbem.store.game import Game

    with open_source(source, games_dir) as path:
        report = run_verify(Game.open(path))
    click.echo(report.summary())
    if not report.ok:
        sys.exit(1)


__all__ = ["new", "status", "replay", "export", "import_", "reveal", "rebuild_state", "verify_dice"]
