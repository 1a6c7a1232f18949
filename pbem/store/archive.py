"""Portable game archives (`pbem export` / `pbem import`), and reading a game from a directory or an
archive alike (`open_source`, for replay and verify-dice).

An archive is a gzipped tar with one top directory, the game id, holding game.yaml, state.yaml,
log/ and mail/ (the raw mails). The dice secret goes in only once revealed (or with
include_secret=True, to move a running game to another host). A `public` archive leaves out the
raw mails and replaces tokens and addresses with "redacted". Archives are reproducible: the same game
gives the same bytes (fixed times, owners and modes, sorted members).
"""

from __future__ import annotations

import copy
import gzip
import io
import shutil
import tarfile
import tempfile
import uuid
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from pbem.errors import GameError
from pbem.store.fs import atomic_write
from pbem.store.game import LOG, SECRET, SETTINGS, STATE, SUBDIRS, Game, check_game_id, resolve_game
from pbem.store.yamlio import dump_roundtrip

MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
MAX_MEMBERS = 200_000
REDACTED = "redacted"


def _public_settings(game: Game) -> str:
    s = copy.deepcopy(game.settings)
    for p in s.get("players") or []:
        p["token"] = REDACTED
        p["address"] = REDACTED
    mod = s.get("moderator")
    if mod:
        mod["token"] = REDACTED
        mod["address"] = REDACTED
    if s.get("observers"):
        s["observers"] = [REDACTED for _ in s["observers"]]
    return dump_roundtrip(s)


def archive_members(game: Game, *, include_secret: bool = False, public: bool = False) -> list[tuple[str, bytes, int]]:
    """(path inside the game directory, bytes, mode) of everything an archive holds, sorted."""
    out: list[tuple[str, bytes, int]] = []
    settings = _public_settings(game).encode() if public else (game.path / SETTINGS).read_bytes()
    out.append((SETTINGS, settings, 0o644))
    out.append((STATE, (game.path / STATE).read_bytes(), 0o644))
    dirs = [LOG] if public else [LOG, "mail"]
    for d in dirs:
        base = game.path / d
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*")):
            if p.is_file() and not p.name.startswith("."):
                out.append((p.relative_to(game.path).as_posix(), p.read_bytes(), 0o644))
    if (game.revealed_secret() is not None or include_secret) and (game.path / SECRET).is_file():
        game.local_secret()   # checks it against the commitment
        out.append((SECRET, (game.path / SECRET).read_bytes(), 0o600))
    return sorted(out)


def _tarinfo(name: str, size: int, mode: int, is_dir: bool = False) -> tarfile.TarInfo:
    ti = tarfile.TarInfo(name)
    ti.size = 0 if is_dir else size
    ti.mode = 0o755 if is_dir else mode
    ti.type = tarfile.DIRTYPE if is_dir else tarfile.REGTYPE
    ti.mtime = 0
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    return ti


def export_game(game: Game, dest: Path | str, *, include_secret: bool = False, public: bool = False) -> list[str]:
    """Write the archive (atomically); returns the member names."""
    dest = Path(dest)
    with game.lock():
        members = archive_members(game, include_secret=include_secret, public=public)
    top = game.id
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tf:
        tf.addfile(_tarinfo(top, 0, 0, is_dir=True))
        seen_dirs = set()
        for name, data, mode in members:
            parent = PurePosixPath(name).parent
            for d in reversed([parent, *parent.parents]):
                if str(d) != "." and d not in seen_dirs:
                    seen_dirs.add(d)
                    tf.addfile(_tarinfo(f"{top}/{d}", 0, 0, is_dir=True))
            tf.addfile(_tarinfo(f"{top}/{name}", len(data), mode), io.BytesIO(data))
    atomic_write(dest, raw.getvalue())
    return [f"{top}/{name}" for name, _, _ in members]


def extract_archive(archive: Path | str, dest: Path) -> Path:
    """Extract a game archive safely into `dest`; returns the game directory (dest/<id>).

    Refuses absolute names, `..`, links and devices, more than one top directory, and sizes over
    MAX_ARCHIVE_BYTES."""
    archive = Path(archive)
    if not archive.is_file():
        raise GameError(f"no archive {archive}")
    total = 0
    top: str | None = None
    try:
        with tarfile.open(archive, "r:*") as tf:
            for i, m in enumerate(tf):
                if i >= MAX_MEMBERS:
                    raise GameError(f"{archive}: too many files for a game archive")
                parts = PurePosixPath(m.name).parts
                if not parts or m.name.startswith("/") or ".." in parts or "\\" in m.name:
                    raise GameError(f"{archive}: unsafe file name {m.name!r}")
                if top is None:
                    top = parts[0]
                    check_game_id(top)
                elif parts[0] != top:
                    raise GameError(f"{archive}: more than one top directory ({top}, {parts[0]})")
                target = dest.joinpath(*parts)
                if m.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                elif m.isfile():
                    total += m.size
                    if total > MAX_ARCHIVE_BYTES:
                        raise GameError(f"{archive}: too big for a game archive")
                    fh = tf.extractfile(m)
                    assert fh is not None
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(fh.read())
                    target.chmod(0o600 if parts[-1] == SECRET else 0o644)
                else:
                    raise GameError(f"{archive}: {m.name!r} is not a plain file or directory")
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise GameError(f"{archive}: not a readable game archive ({e})") from e
    if top is None:
        raise GameError(f"{archive}: empty archive")
    return dest / top


def import_game(archive: Path | str, games_dir: Path | str = "games") -> Game:
    """Unpack an archive into games_dir/<id> (which must not exist) and open it."""
    games_dir = Path(games_dir)
    games_dir.mkdir(parents=True, exist_ok=True)
    tmp = games_dir / f".import-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        path = extract_archive(archive, tmp)
        game = Game.open(path)
        if game.id != path.name:
            raise GameError(f"{archive}: the directory is {path.name} but game.yaml says id {game.id}")
        game.state  # noqa: B018 -- validates state.yaml
        game.local_secret()
        for sub in SUBDIRS:
            (path / sub).mkdir(exist_ok=True)
        final = games_dir / game.id
        if final.exists():
            raise GameError(f"{final} exists already", hint="import into another --dir, or remove it first")
        path.rename(final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Game.open(final)


def is_archive(path: Path) -> bool:
    try:
        return path.is_file() and tarfile.is_tarfile(path)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile):
        return False


@contextmanager
def open_source(arg: str | Path, games_dir: str | Path = "games") -> Iterator[Path]:
    """A game directory from a directory, a game id under games_dir, or an archive (unpacked into a
    temporary directory for the duration)."""
    p = Path(arg)
    if p.is_file():
        if not is_archive(p):
            raise GameError(f"{p} is neither a game directory nor a game archive")
        with tempfile.TemporaryDirectory(prefix="pbem-") as tmp:
            yield extract_archive(p, Path(tmp))
        return
    yield resolve_game(arg, games_dir)
