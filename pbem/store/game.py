"""A game on disk (games/<id>/): settings, the current state, the append-only log, the dice secret.

```
game.yaml        settings (format 1), edited by moderators; comments survive every save
state.yaml       the current GameState (derivable from the log) + its hash and the log entry it follows
log/NNNNNN-<kind>.yaml   append-only entries: created, orders, turn, moderator
secret           the dice secret (hex), never exported unless revealed
inbox/ outbox/ mail/     the folder transport and the raw copy of every incoming mail
.lock            the file lock that keeps two pbem processes off one game
```
Every file is written atomically (pbem.store.fs). See pbem/store/FORMAT.md for the file formats.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import operator
import os
import re
import secrets as _secrets
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import filelock
import orjson
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from pbem import __version__
from pbem.errors import DataError, GameBusy, GameError
from pbem.i18n import DEFAULT as DEFAULT_LANGUAGE
from pbem.i18n import LANGUAGES
from pbem.log.entries import POSITION_ACTIONS, sets_position
from pbem.rules.dice import HmacDice, commitment
from pbem.rules.events import Event, from_dicts
from pbem.rules.state import GameState, Stack
from pbem.store.fs import TEMP_PREFIX, atomic_write, clean_temp_files, create_exclusive
from pbem.store.hashing import canonical_json, plain, sha256_text, state_hash
from pbem.store.loghash import chain_hashes, running_hashes
from pbem.store.settings_keys import OPTION_VALUES, check_hand_edits
from pbem.store.yamlio import (
    SaveError,
    dump_roundtrip,
    dump_yaml,
    load_plain,
    load_roundtrip,
    parse_plain,
    parse_roundtrip,
    read_bytes,
    utf8_text,
)

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# game alone, measured): pbem.store.recover +28, pbem.rules.turn +14, pbem.data.loader +11.

log = logging.getLogger("pbem.store")
FORMAT = 1
KINDS = ("created", "orders", "turn", "moderator")
RESERVED = ("entry", "kind", "time")
SETTINGS = "game.yaml"
STATE = "state.yaml"
LOG = "log"
SECRET = "secret"
LOCK = ".lock"
INDEX = ".log-index.jsonl"   # a cache of parsed log entries; never exported, rebuilt when missing
INDEX_HEAD = json.dumps({"format": FORMAT})
OLD_INDEX = ".log-index.json"   # the cache as earlier versions wrote it (rewritten whole per entry)
SUBDIRS = ("log", "inbox", "outbox", "mail")
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
ENTRY_NAME = re.compile(r"^(\d{6,})-([a-z_]+)\.yaml$")
HEX64 = re.compile(r"[0-9a-f]{64}")
_STATE_ENTRY = re.compile(rb"^entry: (\d+)\r?$", re.M)   # state.yaml's `entry:` line (top level)
DEFAULT_LOCK_TIMEOUT = 120.0
ENGINE_START = "pbem.rules.turn.new_game_state"   # the `start` of a created entry with the engine's start
SECRET_MODE = 0o600     # files holding tokens or the secret: readable by the owner only


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        t = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def rules_fingerprint(ruleset_id: str, overrides: Mapping[str, Any]) -> str:
    return sha256_text(canonical_json({"ruleset": ruleset_id, "overrides": overrides}))


def check_game_id(game_id: str) -> str:
    if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id) or ".." in game_id:
        raise GameError(f"bad game id {game_id!r}",
                        hint="letters, digits, '-', '_' and '.', starting with a letter or digit, at most 64")
    return game_id


# --- log entries ------------------------------------------------------------------------------------
@dataclass
class LogEntry:
    """One log entry: `entry`, `kind`, `time` and the kind's own fields (`data`)."""

    id: int
    kind: str
    time: str | None
    data: dict[str, Any] = field(default_factory=dict)
    file: str = ""            # "log/000001-created.yaml" ('' before it is written)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.id, "kind": self.kind, "time": self.time, **self.data}

    def typed_events(self) -> list[Event]:
        """A turn entry's events, typed (pbem.rules.events), from the plain mappings the log keeps."""
        return from_dicts(self.data.get("events") or [])

    @property
    def name(self) -> str:
        return entry_name(self.id, self.kind)


def _index_text(raw: Any) -> str | None:
    """The entry as the log index keeps it (JSON), or None when JSON would not give it back as it is
    (keys that are not strings, tuples, numbers JSON has not: such an entry is read from its file)."""
    try:
        text = orjson.dumps(raw).decode("utf-8")
    except TypeError:
        return None
    return text if orjson.loads(text) == raw else None


_OUTERMOST_HOLDS: dict[str, int] = {}
"""Lock file -> how many times this process took the game's lock while it did not hold it (Game.lock)."""
_APPENDS: dict[str, int] = {}
"""Lock file -> log entries this process appended to the game (Game.append)."""
_HELD: dict[tuple[tuple[int, int], str], int] = {}
"""((process, thread), lock file) -> the Game objects of this thread holding the game's file lock now (Game.lock):
what `filelock`'s is_locked says, without its fork checks on every look (a burst of mail looks per
log read, issue 33). Keyed by process and thread, as the file lock's state is: a child forked
during a hold holds nothing."""


def _stat_key(d: os.DirEntry) -> list[int]:
    """What the parsed-log cache trusts a file by: size, mtime, ctime (any write changes it; it cannot
    be set back) and inode."""
    st = d.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def entry_name(entry_id: int, kind: str) -> str:
    return f"{entry_id:06d}-{kind}.yaml"


def entry_text(entry: LogEntry) -> str:
    return dump_yaml(entry.to_dict())


def parse_entry(raw: Any, entry_id: int, kind: str, file: str, label: str | None = None) -> LogEntry:
    """A loaded entry file -> LogEntry; `file` is log/NNNNNN-kind.yaml, `label` its path for errors."""
    label = label or file
    if not isinstance(raw, dict):
        raise SaveError(label, "-", "a log entry must be a mapping")
    if raw.get("entry") != entry_id:
        raise SaveError(label, "entry", f"says {raw.get('entry')!r}, the file name says {entry_id}")
    if raw.get("kind") != kind:
        raise SaveError(label, "kind", f"says {raw.get('kind')!r}, the file name says {kind!r}")
    t = raw.get("time")
    if t is not None and not isinstance(t, str):
        raise SaveError(label, "time", "must be a string (ISO 8601, UTC)")
    data = {k: v for k, v in raw.items() if k not in RESERVED}
    return LogEntry(entry_id, kind, t, data, file)


# --- settings --------------------------------------------------------------------------------------
def _need(settings: Mapping, key: str, label: str, types: type | tuple[type, ...], what: str) -> Any:
    if key not in settings:
        raise SaveError(label, key, "missing")
    value = settings[key]
    if isinstance(value, bool) or not isinstance(value, types):
        raise SaveError(label, key, f"must be {what}, not {value!r}")
    return value


def ruleset_overrides(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The game's data overrides (game.yaml `overrides`), with the optional rules its `options` put in
    play (`options: {brittany: true}` -> ruleset.optional_rules.brittany.play; classic 16.0)."""
    from pbem.data.loader import load

    over = plain(dict(settings.get("overrides") or {}))
    options = settings.get("options") or {}
    if isinstance(options, Mapping) and options:
        known = load(str(settings["ruleset"])).optional_rules
        for key, value in options.items():
            if key in known and value is True:
                over[f"ruleset.optional_rules.{key}.play"] = True
    return over


def validate_settings(settings: Any, label: str, *, hand_edits: bool = True) -> None:
    """Check a loaded game.yaml; raise SaveError naming the file and the key. `hand_edits`: also the
    slips of a hand edit (settings_keys: unknown keys, colours, addresses); a read-only open (replay,
    which checks the settings against the log itself) leaves them to the game's own runs."""
    if not isinstance(settings, Mapping):
        raise SaveError(label, "-", "the top level must be a mapping of settings")
    if "format" not in settings:
        raise SaveError(label, "format", "missing", hint=f"a pbem game.yaml starts with `format: {FORMAT}`")
    fmt = settings["format"]
    if fmt != FORMAT or isinstance(fmt, bool):
        raise SaveError(label, "format", f"unknown format version {fmt!r} (this pbem reads format {FORMAT})",
                        hint="use the pbem version that wrote this game")
    _need(settings, "id", label, str, "the game id")
    ruleset_id = _need(settings, "ruleset", label, str, "a ruleset id")
    overrides = settings.get("overrides") or {}
    if not isinstance(overrides, Mapping):
        raise SaveError(label, "overrides", "must be a mapping of dotted keys to values")
    if "options" in settings and settings["options"] is not None and not isinstance(settings["options"], Mapping):
        raise SaveError(label, "options", "must be a mapping")
    try:
        from pbem.data.loader import load

        rs = load(ruleset_id, ruleset_overrides(settings))
        for key, v in (settings.get("options") or {}).items():
            if key in rs.optional_rules and not isinstance(v, bool):
                raise SaveError(label, f"options.{key}", f"must be true or false (optional rule {rs.optional_rules[key]['rule']})")
    except DataError as e:
        key = "ruleset" if e.file == ruleset_id or e.key == "ruleset" else f"overrides ({e.key})"
        raise SaveError(label, key, e.message) from e
    players = _need(settings, "players", label, list, "a list of players")
    if hand_edits:
        check_hand_edits(settings, label, (c for table in rs.control.values() for c in table),
                         optional_rules=tuple(rs.optional_rules))
    names = set()
    owner: dict[str, str] = {}
    for i, p in enumerate(players):
        where = f"players[{i}]"
        if not isinstance(p, Mapping):
            raise SaveError(label, where, "must be a mapping with name, address, token, nations")
        for key in ("name", "token"):
            if not isinstance(p.get(key), str) or not p.get(key):
                raise SaveError(label, f"{where}.{key}", "missing" if key not in p else "must be a non-empty string")
        if p["name"] in names:
            raise SaveError(label, f"{where}.name", f"{p['name']!r} is used twice")
        names.add(p["name"])
        nations = p.get("nations")
        if not isinstance(nations, list):
            raise SaveError(label, f"{where}.nations", "must be a list of nation ids")
        for n in nations:
            if n not in rs.nations:
                raise SaveError(label, f"{where}.nations", f"unknown nation {n!r}")
            if n in owner:   # rule 13.0: every nation is controlled by exactly one player
                raise SaveError(label, f"{where}.nations", f"{n} is also given to {owner[n]!r}",
                                hint="each nation belongs to exactly one player")
            owner[n] = p["name"]
    dice = _need(settings, "dice", label, Mapping, "a mapping with the dice commitment")
    c = dice.get("commitment")
    if not isinstance(c, str) or not HEX64.fullmatch(c):
        raise SaveError(label, "dice.commitment", "must be 64 lowercase hex digits (SHA-256)")
    rev = dice.get("revealed_secret")
    if rev is not None:
        try:
            secret = bytes.fromhex(str(rev))
        except ValueError as e:
            raise SaveError(label, "dice.revealed_secret", "must be hex") from e
        if commitment(secret) != c:
            raise SaveError(label, "dice.revealed_secret", "does not match dice.commitment")
    for key in ("deadlines", "options", "mail", "moderator"):
        if key in settings and settings[key] is not None and not isinstance(settings[key], Mapping):
            raise SaveError(label, key, "must be a mapping")
    for key, allowed in OPTION_VALUES.items():
        v = (settings.get("options") or {}).get(key)
        if v is not None and str(v) not in allowed:
            raise SaveError(label, f"options.{key}", f"{v!r} is not one of: {', '.join(allowed)}")
    for k, v in (settings.get("deadlines") or {}).items():
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
            raise SaveError(label, f"deadlines.{k}", f"must be a number of hours, not {v!r}")
    if "paused" in settings and not isinstance(settings["paused"], bool):
        raise SaveError(label, "paused", "must be true or false")
    if "observers" in settings and settings["observers"] is not None and not isinstance(settings["observers"], list):
        raise SaveError(label, "observers", "must be a list")


def _map(pairs: Sequence[tuple[str, Any]]) -> CommentedMap:
    m = CommentedMap()
    for k, v in pairs:
        m[k] = v
    return m


def _seq(items: Sequence[Any]) -> CommentedSeq:
    s = CommentedSeq()
    s.extend(items)
    return s


def build_settings(game_id: str, ruleset_id: str, players: list[dict[str, Any]], *, moderator: str,
                   commitment_hex: str) -> CommentedMap:
    s = CommentedMap()
    s.yaml_set_start_comment(
        f"pbem game settings (format {FORMAT}). Moderators may edit this file: comments are kept.\n"
        "Change nations, deadlines and options here; change the position only through the log.")
    s["format"] = FORMAT
    s["id"] = game_id
    s["ruleset"] = ruleset_id
    s["players"] = _seq([_map([("name", p["name"]), ("colour", p["colour"]), ("address", p["address"]),
                               ("token", p["token"]), ("nations", _seq(p["nations"])),
                               *([("language", p["language"])] if p.get("language", "en") != "en" else [])])
                         for p in players])
    s["moderator"] = _map([("address", moderator), ("token", _secrets.token_hex(3))])
    s["observers"] = _seq([])
    s["deadlines"] = _map([("turn_hours", 72), ("decision_hours", 24), ("reminder_hours", 12)])
    s["options"] = _map([("nmr", "hold")])
    s["options"].yaml_add_eol_comment("hold: a nation without orders at the deadline stands still", "nmr")
    s["overrides"] = CommentedMap()
    s.yaml_set_comment_before_after_key(
        "overrides", before="per-game data overrides: {\"victory_points.nations.saxons.hold\": ...}")
    s["dice"] = _map([("commitment", commitment_hex), ("revealed_secret", None)])
    s["dice"].yaml_add_eol_comment("sha256 of the secret; published in the first report", "commitment")
    s["mail"] = _map([("transport", "folder"), ("inbox", "inbox"), ("outbox", "outbox")])
    s["paused"] = False
    return s


# --- the start position -----------------------------------------------------------------------------
def ruleset_start_state(ruleset: Any, game_id: str) -> GameState:
    """Rule 3.0 from the ruleset data alone: each nation's `start` {area: armies}."""
    st = GameState(ruleset=ruleset.id, game=game_id, round=1, next_nation=None)
    for nid in ruleset.order_of_play:
        for area, count in ruleset.nations[nid].start.items():
            if count:
                st.areas.setdefault(area, {})[nid] = Stack(armies=int(count))
    return st


def start_position(ruleset: Any, game_id: str) -> tuple[GameState, str]:
    """The start position (rule 3.0, the engine's `new_game_state`) and where it came from."""
    from pbem.rules.turn import new_game_state

    return new_game_state(ruleset, game_id), ENGINE_START


# --- the game -----------------------------------------------------------------------------------------
_SETTINGS_CACHE: dict[tuple[str, bool], tuple[tuple, Any]] = {}
SETTINGS_CACHE_SIZE = 4096
"""game.yaml parses kept (a cron run over a thousand games opens each a few times): the oldest is
dropped past this, never the whole cache (issue 33)."""


def _settings_of(settings_path: Path, label: str, editable: bool = True) -> Any:
    """game.yaml, parsed and checked; a cron run opens a game many times, so the parse is cached per
    file version (size, mtime, inode) and each caller gets its own copy. Editable settings keep the
    file's comments (ruamel's round-trip reader, pure Python); read-only ones are plain data from the
    C reader (a replay of many games opens each once and writes nothing)."""
    st = settings_path.stat()
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    hit = _SETTINGS_CACHE.get((label, editable))
    if hit is None or hit[0] != key:
        settings = load_roundtrip(settings_path, label) if editable else load_plain(settings_path, label)
        validate_settings(settings, label, hand_edits=editable)
        _SETTINGS_CACHE.pop((label, editable), None)
        while len(_SETTINGS_CACHE) >= SETTINGS_CACHE_SIZE:
            del _SETTINGS_CACHE[next(iter(_SETTINGS_CACHE))]    # the oldest (dicts keep their order)
        _SETTINGS_CACHE[(label, editable)] = hit = (key, settings)
    return copy.deepcopy(hit[1])


class Game:
    """An open game directory. Reading needs no lock; changing it takes `lock()` (re-entrant)."""

    lock_timeout: float = DEFAULT_LOCK_TIMEOUT   # seconds a blocking lock() waits before "busy"

    def __init__(self, path: Path, settings: Any, *, editable: bool = True) -> None:
        self.path = path
        self.settings = settings
        self.editable = editable
        self._state: GameState | None = None
        self._state_entry: int | None = None
        self._index: dict[str, Any] | None = None
        self._index_lines = 0
        self._parsed: dict[str, tuple[list[int], LogEntry]] = {}
        self._file_sha: dict[str, tuple[list[int], str]] = {}     # log file -> (stat key, SHA-256 of its bytes)
        self._data_version: tuple[int | None] | None = None      # (the created entry's data_version,)
        self._lock_file: str | None = None
        self._lock_obj: filelock.BaseFileLock | None = None
        self._holds: dict[tuple[int, int], int] = {}   # (pid, thread) -> holds of the lock by this Game
        # the log as last listed while the lock was held: (trust token, [(id, kind, name, stat key)]),
        # the entries lists made from it ({kind: (files covered, entries)}) and its running hashes
        self._view: tuple[tuple[int, int], list[tuple[int, str, str, list[int]]]] | None = None
        self._lists: dict[str | None, tuple[int, list[LogEntry]]] = {}
        self._orders_taken: tuple[int, int, frozenset[tuple[Any, Any]]] = (0, 0, frozenset())   # (entries, last id, keys)
        self._chain: tuple[int, list[tuple[int, str]]] = (0, [])
        # the players list as last looked up: (the list, its entries, {name: entry}) (see `player`)
        self._players_seen: tuple[Any, tuple, dict[Any, Any]] | None = None

    # --- opening ---------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path | str, *, editable: bool = True) -> Game:
        """`editable=False`: settings as plain data, faster to read; save_settings() is refused."""
        path = Path(path)
        if not path.is_dir():
            raise GameError(f"no game directory {path}")
        settings_path = path / SETTINGS
        if not settings_path.is_file():
            raise GameError(f"{path} is not a game directory (no {SETTINGS})")
        label = str(settings_path)
        settings = _settings_of(settings_path, label, editable)
        if str(settings["id"]) != path.name:
            raise SaveError(label, "id", f"{settings['id']!r} is not the name of the game's folder ({path.name!r})",
                            hint="players write the id in GAME lines and subject tags: keep id and folder the same")
        return cls(path, settings, editable=editable)

    def __repr__(self) -> str:
        return f"Game({str(self.path)!r})"

    @property
    def id(self) -> str:
        return str(self.settings["id"])

    @property
    def ruleset_id(self) -> str:
        return str(self.settings["ruleset"])

    def ruleset(self) -> Any:
        """The game's ruleset at the data version of its `created` entry: a game keeps the rules it was
        created with (pbem/data/loader.py, data versions)."""
        from pbem.data.loader import load

        if self._data_version is None:   # read once: the created entry never changes
            try:
                self._data_version = (self.entry(1).get("data_version"),)
            except (GameError, SaveError, OSError):
                self._data_version = (None,)   # no readable created entry: the current rules
        return load(self.ruleset_id, ruleset_overrides(self.settings), data_version=self._data_version[0])

    def rules_fingerprint(self) -> str:
        """The SHA-256 of the rules this game is played by: its ruleset id and game.yaml's `overrides`
        (canonical JSON). Every turn entry keeps it (`rules`); replay compares it with game.yaml."""
        return rules_fingerprint(self.ruleset_id, plain(dict(self.settings.get("overrides") or {})))

    def label(self, name: str) -> str:
        """A file's name for messages: games/<id>/<name>."""
        return str(self.path / name)

    # --- settings ----------------------------------------------------------------------------------
    def save_settings(self) -> None:
        if not self.editable:
            raise RuntimeError(f"game {self.id} was opened read-only (Game.open(editable=False))")
        with self.lock():
            text = dump_roundtrip(self.settings)
            validate_settings(parse_roundtrip(text, self.label(SETTINGS)), self.label(SETTINGS))
            atomic_write(self.path / SETTINGS, text, mode=SECRET_MODE)   # it holds the tokens

    def players(self) -> list[Mapping[str, Any]]:
        return list(self.settings.get("players") or [])

    def player(self, name: str) -> Mapping[str, Any] | None:
        """The player's entry of game.yaml (the mapping itself: what a caller changes in it is in
        the settings). Looked up by name once per players list: a mail asks for its sender ~8 times
        and each walk reads every entry through ruamel (issue 33); the list is checked to hold the
        same entries each time, and the entry to still carry the name."""
        seq = self.settings.get("players") or ()
        seen = self._players_seen
        if seen is None or seen[0] is not seq or len(seen[1]) != len(seq) or not all(map(operator.is_, seen[1], seq)):
            by_name: dict[Any, Any] = {}
            for p in seq:
                by_name.setdefault(p.get("name"), p)
            seen = self._players_seen = (seq, tuple(seq), by_name)
        p = seen[2].get(name)
        if p is not None and p.get("name") == name:
            return p
        return next((p for p in self.players() if p.get("name") == name), None)   # renamed since

    def player_of(self, nation: str) -> str | None:
        """The name of the player who controls `nation` (None: nobody)."""
        return next((str(p["name"]) for p in self.players() if nation in (p.get("nations") or [])), None)

    def nations_of(self, player: str) -> list[str]:
        p = self.player(player)
        return [str(n) for n in (p.get("nations") or [])] if p else []

    @property
    def commitment(self) -> str:
        return str(self.settings["dice"]["commitment"])

    @property
    def paused(self) -> bool:
        return bool(self.settings.get("paused", False))

    # --- state -------------------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        if self._state is None:
            self._load_state()
        assert self._state is not None
        return self._state.copy()

    def peek_state(self) -> GameState:
        """The position itself, not a copy (`state`): for reading only, never to be changed."""
        if self._state is None:
            self._load_state()
        assert self._state is not None
        return self._state

    @property
    def state_entry(self) -> int:
        """The log entry the saved state follows."""
        if self._state is None:
            self._load_state()
        return int(self._state_entry or 0)

    def _load_state(self) -> None:
        """state.yaml, or the position re-derived from the log when state.yaml is behind the log (a
        run killed between writing a turn entry and the state) or damaged (pbem.store.recover); the
        repaired file is written back when the game can be locked."""
        label = self.label(STATE)
        try:
            raw = load_plain(self.path / STATE, label)
            state, entry = parse_state_file(raw, label)
        except (SaveError, OSError) as e:
            damaged: Exception | None = e
            state, entry = None, 0
        else:
            damaged = None
        files = self._entry_files()
        last = files[-1][0] if files else 0
        if damaged is None and entry > last:
            raise self._ahead_of_log(entry, last)
        if damaged is None and not self._state_changed_after(files, entry):
            self._state, self._state_entry = state, entry
            return
        from pbem.store.recover import state_after  # the engine: loaded only when the log must be walked

        log.warning("game %s: %s; re-deriving the position from the log", self.id,
                    f"state.yaml unusable ({damaged})" if damaged else f"state.yaml follows entry {entry}, the log ends at {last}")
        try:
            state = state_after(self, self.entries(), last)
        except GameError:
            if damaged is not None:
                raise damaged from None
            raise
        self._state, self._state_entry = state, last
        try:
            with self.lock(blocking=False):
                atomic_write(self.path / STATE, state_file_text(state, self.id, last), durable=False)
        except (GameError, OSError):
            pass   # busy or read-only: the position is right in memory, the file is repaired later

    def _ahead_of_log(self, entry: int, last: int) -> GameError:
        """state.yaml follows an entry the log no longer has (FORMAT.md, Crash safety: it is written
        after its entry, so it is never ahead of a log nobody touched): entries were deleted, e.g. a
        torn last entry. Playing on would write new entries over the hole and the log could never
        be replayed, so the game stops until the moderator restores the entries or rebuilds
        state.yaml from the log as it is."""
        return GameError(
            f"game {self.id}: {self.label(STATE)} follows log entry {entry}, but the log ends at entry {last}: "
            f"entr{'y' if entry == last + 1 else 'ies'} {last + 1}{'' if entry == last + 1 else f'..{entry}'} "
            "went missing from the log",
            hint=f"restore the missing entries into {self.label(LOG)} from a backup; if they are lost, "
                 f"`pbem rebuild-state {self.id}` makes state.yaml the position after entry {last} "
                 "(the moves of the lost entries are gone)")

    def state_file_entry(self) -> int | None:
        """The `entry:` of state.yaml, from the top of the file (None when it is not there)."""
        try:
            with open(self.path / STATE, "rb") as fh:
                head = fh.read(4096)
        except OSError:
            return None
        m = _STATE_ENTRY.search(head)
        return int(m.group(1)) if m else None

    def _state_changed_after(self, files: list[tuple[int, str, Path]], entry: int) -> bool:
        """Does a log entry after `entry` change the position (a turn, or a moderator entry with one)?"""
        for eid, kind, p in files:
            if eid <= entry:
                continue
            if kind == "turn":
                return True
            if kind == "moderator":
                e = parse_entry(load_plain(p, self.label(f"{LOG}/{p.name}")), eid, kind, f"{LOG}/{p.name}")
                if sets_position(e.kind, e.data):
                    return True
        return False

    def save_state(self, state: GameState, *, entry: int | None = None) -> None:
        """Write state.yaml (the position after log entry `entry`, default the last one)."""
        with self.lock():
            if entry is None:
                entry = self.last_entry_id()
            # no fsync: state.yaml follows the log, whose entry is durable already; after a power
            # loss an old or empty state.yaml is re-derived from the log (_load_state, FORMAT.md)
            atomic_write(self.path / STATE, state_file_text(state, self.id, entry), durable=False)
            self._state, self._state_entry = state.copy(), entry

    # --- the log -----------------------------------------------------------------------------------
    def _entry_files(self) -> list[tuple[int, str, Path]]:
        logdir = self.path / LOG
        return [(eid, kind, logdir / name) for eid, kind, name, _key in self._log_files()]

    def _trust_token(self) -> tuple[int, int] | None:
        """While this process holds the game's lock no other pbem writes the game, and this process
        adds to the log through `append` only: the log listed during one hold of the lock (the token:
        the holds taken and the entries appended in this process) is the log for as long as the token
        is the same. None when the lock is not held (then the log is listed and stat'ed each time)."""
        key = self._lock_path()
        if not _HELD.get(((os.getpid(), threading.get_ident()), key)):
            return None
        return _OUTERMOST_HOLDS.get(key, 0), _APPENDS.get(key, 0)

    def _log_files(self) -> list[tuple[int, str, str, list[int]]]:
        """The log's files in order: (entry id, kind, file name, stat key). Listed and stat'ed afresh
        unless this Game listed them during the present hold of the lock (_trust_token): a burst of
        mail to one game does not rescan its log per mail (issue 33)."""
        token = self._trust_token()
        view = self._view
        if token is not None and view is not None and view[0] == token:
            return view[1]
        files = [(eid, kind, d.name, _stat_key(d)) for eid, kind, d in self._log_dir_entries()]
        self._lists = {}
        self._chain = (0, [])
        self._view = (token, files) if token is not None else None
        return files

    def _log_dir_entries(self) -> list[tuple[int, str, os.DirEntry]]:
        """The log's files in order, as directory entries (their stat is one call, no Path built)."""
        logdir = self.path / LOG
        if not logdir.is_dir():
            raise GameError(f"{logdir}: missing (every game has a log)")
        found = []
        with os.scandir(logdir) as it:
            for d in it:
                m = ENTRY_NAME.match(d.name)
                if m:
                    found.append((int(m.group(1)), m.group(2), d))
        found.sort(key=lambda t: (t[0], t[1]))
        return found

    def last_entry_id(self) -> int:
        token = self._trust_token()
        if token is not None and self._view is not None and self._view[0] == token:
            return self._view[1][-1][0] if self._view[1] else 0
        logdir = self.path / LOG
        try:
            with os.scandir(logdir) as it:
                ids = [int(m.group(1)) for m in map(ENTRY_NAME.match, (d.name for d in it)) if m]
        except (FileNotFoundError, NotADirectoryError) as e:
            raise GameError(f"{logdir}: missing (every game has a log)") from e
        return max(ids, default=0)

    def entries(self, kind: str | None = None, *, cached: bool = True, save_index: bool = True) -> list[LogEntry]:
        """The log in order (all kinds, or one).

        Parsed entries are cached: in memory for the life of this Game (a cron run asks for the log
        at every step), keyed by each file's size, mtime, ctime and inode, and in .log-index.jsonl
        for the next process (appended to, never rewritten per entry), used only for a file of the
        stat key it recorded whose bytes hash to the SHA-256 it recorded (the bytes are read and
        hashed, only the parse is saved). Entries from the cache share their nested values: treat
        entries as read-only. `cached=False` reads every file afresh (verify-dice does; the checks
        read the log with log_from_files); `save_index=False` uses .log-index.jsonl where it has an
        entry but adds nothing to it."""
        if not cached:
            out = []
            for eid, k, p in self._entry_files():
                if kind is None or k == kind:
                    label = f"{LOG}/{p.name}"
                    out.append(parse_entry(load_plain(p, self.label(label)), eid, k, label, self.label(label)))
            return out
        files = self._log_files()
        shared = self._view is not None and self._view[1] is files
        done, made = self._lists.get(kind, (0, [])) if shared else (0, [])
        if done < len(files):
            made = made + self._parse_files(files[done:], kind, save_index, len(files))
            if shared:
                self._lists[kind] = (len(files), made)
        return list(made)

    def _parse_files(self, files: list[tuple[int, str, str, list[int]]], kind: str | None, save_index: bool,
                     total: int) -> list[LogEntry]:
        """The entries of these log files (of one kind, or all), through the parse memo and the index."""
        logdir = log_label = None     # made at the first file not in the memo (most calls have none)
        memo = self._parsed
        index = None
        new_lines: list[str] = []
        out = []
        for eid, k, name, key in files:
            if kind is not None and k != kind:
                continue
            hit = memo.get(name)
            if hit is None or hit[0] != key:
                if logdir is None:
                    logdir, log_label = self.path / LOG, self.label(LOG)
                label = f"{LOG}/{name}"
                path_label = f"{log_label}{os.sep}{name}"      # self.label(label), without pathlib
                if index is None:
                    index = self._read_index()
                cached_line = index.get(name)
                raw = None
                # the file's bytes are always read and hashed (cheap); the cache saves only the parse,
                # and only for a file whose bytes are the ones it parsed (its recorded SHA-256)
                data = read_bytes(logdir / name, path_label)
                self._file_sha[name] = (key, hashlib.sha256(data).hexdigest())
                if (isinstance(cached_line, dict) and cached_line.get("key") == key
                        and cached_line.get("sha256") == self._file_sha[name][1]
                        and isinstance(cached_line.get("json"), str)):
                    try:
                        raw = orjson.loads(cached_line["json"])
                    except ValueError:
                        raw = None
                if raw is None:
                    raw = parse_plain(utf8_text(data, path_label), path_label)
                    if save_index:
                        text = _index_text(raw)
                        if text is not None:
                            line = {"key": key, "json": text, "sha256": self._file_sha[name][1]}
                            index[name] = line
                            new_lines.append(orjson.dumps({"name": name, **line}).decode("utf-8"))
                e = parse_entry(raw, eid, k, label, path_label)
                memo[name] = hit = (key, e)
            e = hit[1]
            out.append(LogEntry(e.id, e.kind, e.time, dict(e.data), e.file))
        if new_lines:
            self._append_index(new_lines, total)
        return out

    def log_from_files(self) -> tuple[list[LogEntry], list[tuple[int, str]]]:
        """The log read from its files alone, for the checks (replay, --log-hash): every entry parsed
        from its file's bytes and [(entry id, SHA-256 of those bytes)], each file read once. No cache
        takes part: .log-index.jsonl is a file like any other, and a cache could vouch for an edit."""
        entries, digests = [], []
        log_label = self.label(LOG)
        for eid, k, d in self._log_dir_entries():
            label = f"{LOG}/{d.name}"
            path_label = f"{log_label}{os.sep}{d.name}"
            data = read_bytes(Path(d.path), path_label)
            digests.append((eid, hashlib.sha256(data).hexdigest()))
            entries.append(parse_entry(parse_plain(utf8_text(data, path_label), path_label), eid, k, label, path_label))
        return entries, digests

    def running_hashes(self, *, cached: bool = True) -> list[tuple[int, str]]:
        """The log's running hash after each entry (pbem.store.loghash). A file's SHA-256 is the one
        this Game took of its bytes when it read it (for the same size, mtime, ctime and inode); any
        other file is read and hashed (every file: cached=False). The log index is not trusted for it."""
        if not cached:
            return running_hashes(self.path)
        files = self._log_files()
        shared = self._view is not None and self._view[1] is files
        done, chain = self._chain if shared else (0, [])
        if done < len(files):
            known = self._file_sha
            digests = []
            for eid, _kind, name, key in files[done:]:
                hit = known.get(name)
                if hit is not None and hit[0] == key:
                    digest = hit[1]
                else:
                    digest = hashlib.sha256(read_bytes(self.path / LOG / name, self.label(f"{LOG}/{name}"))).hexdigest()
                    known[name] = (key, digest)
                digests.append((eid, digest))
            chain = chain + chain_hashes(digests, after=chain[-1][1] if chain else "")
            if shared:
                self._chain = (len(files), chain)
        return list(chain)

    def _read_index(self) -> dict[str, Any]:
        """.log-index.jsonl: a `{"format": 1}` line, then one line per parsed entry (the last line
        for a name wins; a line cut short by a crash is skipped)."""
        if self._index is None:
            self._index = {}
            try:
                lines = (self.path / INDEX).read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                lines = []
            if lines and lines[0] == INDEX_HEAD:
                for line in lines[1:]:
                    try:
                        item = orjson.loads(line)
                        self._index[item["name"]] = item
                    except (ValueError, KeyError, TypeError):
                        continue
                self._index_lines = len(lines) - 1
        return self._index

    def _append_index(self, lines: list[str], entries: int) -> None:
        """Add lines to the index (no fsync: only a cache); rewritten whole only when most of its lines
        are stale or it is new."""
        path = self.path / INDEX
        try:
            if self._index_lines == 0 or self._index_lines + len(lines) > 2 * entries + 16:
                body = [orjson.dumps({"name": n, **v}).decode("utf-8") for n, v in (self._index or {}).items()]
                fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=INDEX, dir=self.path)
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write("\n".join([INDEX_HEAD, *body]) + "\n")
                os.replace(tmp, path)
                self._index_lines = len(body)
            else:
                with open(path, "a", encoding="utf-8") as fh:
                    fh.write("\n".join(lines) + "\n")
                self._index_lines += len(lines)
            (self.path / OLD_INDEX).unlink(missing_ok=True)
        except OSError:
            pass   # only a cache

    def orders_taken(self) -> frozenset[tuple[Any, Any]]:
        """(mail id, nation) of every orders entry: what of a mail the log holds already. Only the
        entries added since the last call are read while the log only grows (a burst of mail asks it
        once a mail, issue 33)."""
        orders = self.entries("orders")
        done, last, keys = self._orders_taken
        if done > len(orders) or (done and orders[done - 1].id != last):
            done, keys = 0, frozenset()
        if len(orders) > done:
            keys = keys | {(e.get("mail_id"), e.get("nation")) for e in orders[done:]}
        self._orders_taken = (len(orders), orders[-1].id if orders else 0, keys)
        return keys

    def entry(self, entry_id: int) -> LogEntry:
        for eid, k, p in self._entry_files():
            if eid == entry_id:
                label = f"{LOG}/{p.name}"
                return parse_entry(load_plain(p, self.label(label)), eid, k, label, self.label(label))
        raise GameError(f"game {self.id} has no log entry {entry_id}")

    def append(self, kind: str, data: Mapping[str, Any], *, time: str | None = None,
               already_plain: bool = False) -> int:
        """Add an entry to the log; returns its id. Never overwrites an entry. `already_plain`: the
        caller built `data` from plain values only (play_turn), so it is not walked again."""
        if kind not in KINDS:
            raise ValueError(f"unknown log entry kind {kind!r}; kinds: {', '.join(KINDS)}")
        clash = [k for k in data if k in RESERVED]
        if clash:
            raise ValueError(f"log entry data may not use the keys {', '.join(clash)}")
        if kind == "turn":     # the rules it was played by: game.yaml's may not change under the log
            if not isinstance(data, dict):
                data = dict(data)
            data["rules"] = self.rules_fingerprint()   # into the caller's mapping: the entry it keeps is the file
        with self.lock():
            eid = self.last_entry_id() + 1
            ahead = self.state_file_entry()
            if ahead is not None and ahead >= eid:     # entries were deleted: never write over the hole
                raise self._ahead_of_log(ahead, eid - 1)
            entry = LogEntry(eid, kind, time or utc_now(), dict(data) if already_plain else plain(dict(data)))
            text = entry_text(entry).encode("utf-8")
            token = self._trust_token()
            try:
                create_exclusive(self.path / LOG / entry.name, text)
            except FileExistsError as e:   # only if someone wrote without the lock
                raise GameError(f"{self.label(LOG)}/{entry.name} exists already (log written without the lock?)") from e
            finally:
                _APPENDS[self._lock_path()] = _APPENDS.get(self._lock_path(), 0) + 1
            self._note_appended(token, entry.name, eid, kind, text)
            return eid

    def _note_appended(self, token: tuple[int, int] | None, name: str, eid: int, kind: str, text: bytes) -> None:
        """The log listed during this hold of the lock, with the entry this Game just wrote added (its
        bytes known: their SHA-256 for the running hash), instead of listed again."""
        view = self._view
        if token is None or view is None or view[0] != token:
            return
        try:
            st = os.stat(self.path / LOG / name)
        except OSError:
            self._view = None
            return
        key = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        view[1].append((eid, kind, name, key))
        self._view = (self._trust_token() or token, view[1])
        self._file_sha[name] = (key, hashlib.sha256(text).hexdigest())

    def record_orders(self, nation: str, player: str | None, text: str, *, mail_id: str | None = None,
                      received: str | None = None, time: str | None = None, **extra: Any) -> int:
        """Log orders as received (before they are parsed or used); `extra` adds fields such as the
        number of problems found or the mail's authentication headers."""
        return self.append("orders", {"nation": nation, "player": player, "mail_id": mail_id,
                                      "received": received or utc_now(), "text": text, **extra}, time=time)

    def moderate(self, action: str, who: str, why: str, *, state: GameState | None = None,
                 **extra: Any) -> int:
        """Log a moderator action. With `state`, the action sets the position (only the actions of
        recover.POSITION_ACTIONS do: replay checks that position and refuses one on any other)."""
        if state is not None and action not in POSITION_ACTIONS:
            raise ValueError(f"a moderator {action!r} entry cannot set the position "
                             f"(only: {', '.join(POSITION_ACTIONS)})")
        data: dict[str, Any] = {"action": action, "who": who, "why": why, **extra}
        with self.lock():
            if state is not None:
                data["state"] = plain(state.to_dict())
                data["state_hash"] = state_hash(state)
            eid = self.append("moderator", data)
            if state is not None:
                self.save_state(state, entry=eid)
            return eid

    # --- dice ----------------------------------------------------------------------------------------
    def revealed_secret(self) -> bytes | None:
        rev = self.settings["dice"].get("revealed_secret")
        return bytes.fromhex(str(rev)) if rev else None

    def local_secret(self) -> bytes | None:
        """The sealed secret from the `secret` file (None when absent), checked against the commitment."""
        p = self.path / SECRET
        if not p.is_file():
            return None
        label = self.label(SECRET)
        try:
            secret = bytes.fromhex(p.read_text(encoding="ascii").strip())
        except (ValueError, UnicodeDecodeError) as e:
            raise SaveError(label, "-", "must hold the secret as hex") from e
        if commitment(secret) != self.commitment:
            raise SaveError(label, "-", "does not match dice.commitment in game.yaml")
        return secret

    def secret(self) -> bytes | None:
        return self.revealed_secret() or self.local_secret()

    def dice(self) -> HmacDice:
        secret = self.secret()
        if secret is None:
            raise GameError(f"game {self.id}: no dice secret here ({self.label(SECRET)} is missing)",
                            hint="an imported game can be replayed but not played on without its secret")
        return HmacDice(secret)

    # --- locking ---------------------------------------------------------------------------------------
    def _lock_path(self) -> str:
        if self._lock_file is None:
            self._lock_file = str((self.path / LOCK).resolve())
        return self._lock_file

    def _filelock(self) -> filelock.BaseFileLock:
        if self._lock_obj is None:     # one per lock file in the process (is_singleton): made once
            self._lock_obj = filelock.FileLock(self._lock_path(), is_singleton=True)
        return self._lock_obj

    @contextmanager
    def lock(self, *, blocking: bool = True, timeout: float | None = None) -> Iterator[Game]:
        """Hold the game's file lock. Re-entrant in one thread; GameBusy when another process
        holds it (at once with blocking=False, else after `timeout` seconds, default `lock_timeout`)."""
        fl = self._filelock()
        me = (os.getpid(), threading.get_ident())
        held_key = (me, self._lock_path())
        held = self._holds.get(me, 0)
        if not held:    # this Game's holds in this thread are counted here: the file lock is taken once for them
            try:
                fl.acquire(timeout=self.lock_timeout if timeout is None else timeout, blocking=blocking)
            except filelock.Timeout as e:
                raise GameBusy(f"game {self.id} is busy: another pbem process is working on it",
                                hint=f"lock file {self.label(LOCK)}") from e
            try:
                if fl.lock_counter == 1:    # the outermost hold: no writer can be half-way; sweep crash leftovers
                    key = self._lock_path()
                    _OUTERMOST_HOLDS[key] = _OUTERMOST_HOLDS.get(key, 0) + 1   # what was listed before is listed again
                    for d in (self.path, self.path / LOG):
                        clean_temp_files(d)
            except BaseException:
                fl.release()
                raise
            _HELD[held_key] = _HELD.get(held_key, 0) + 1
        self._holds[me] = held + 1
        try:
            yield self
        finally:
            # holds may end in any order (OpenGames keeps one past the handler's): the last lets go
            left = self._holds[me] - 1
            if left:
                self._holds[me] = left
            else:
                del self._holds[me]
                if _HELD[held_key] > 1:
                    _HELD[held_key] -= 1
                else:       # none left: the key goes (a run over 1 000 games keeps no 1 000 zeros)
                    del _HELD[held_key]
                fl.release()


# --- state.yaml -------------------------------------------------------------------------------------
def state_file_text(state: GameState, game_id: str, entry: int) -> str:
    d = plain(state.to_dict())
    # state_hash of the GameState: the same hash as of `d`, with only the new VP ledger entries encoded
    return dump_yaml({"format": FORMAT, "game": game_id, "entry": entry, "state_hash": state_hash(state), "state": d},
                     header=f"The position of game {game_id} after log entry {entry}. Derived from the log:\n"
                            "do not edit (a moderator changes the position with a moderator entry).")


def parse_state_file(raw: Any, label: str) -> tuple[GameState, int]:
    if not isinstance(raw, dict):
        raise SaveError(label, "-", "the top level must be a mapping")
    if "format" not in raw:
        raise SaveError(label, "format", "missing")
    if raw["format"] != FORMAT or isinstance(raw["format"], bool):
        raise SaveError(label, "format", f"unknown format version {raw['format']!r} (this pbem reads format {FORMAT})")
    d = raw.get("state")
    if not isinstance(d, dict):
        raise SaveError(label, "state", "missing or not a mapping")
    try:
        state = GameState.from_dict(d)
    except (ValueError, TypeError, AttributeError) as e:
        raise SaveError(label, "state", f"not a valid position: {e}") from e
    h = raw.get("state_hash")
    if h != state_hash(d):
        raise SaveError(label, "state_hash", "does not match the state (edited by hand?)",
                        hint="change the position with a moderator entry, or rebuild it with pbem replay")
    entry = raw.get("entry", 0)
    if not isinstance(entry, int) or isinstance(entry, bool):
        raise SaveError(label, "entry", "must be a log entry number")
    return state, entry


# --- creating a game --------------------------------------------------------------------------------
def assign_players(ruleset: Any, players: int, player_specs: Sequence[tuple[str, str]] = ()) -> list[dict[str, Any]]:
    """Players with colours and nations from the ruleset's control table for `players` players.

    Colours go in table order; `player_specs` name the first players (name, address); the others are
    named after their colour."""
    if players not in ruleset.control:
        known = ", ".join(str(n) for n in sorted(ruleset.control))
        raise GameError(f"ruleset {ruleset.id} has no control table for {players} players (it has: {known})")
    table = ruleset.control[players]
    specs = list(player_specs)
    if len(specs) > players:
        raise GameError(f"{len(specs)} players named but the game has {players}")
    out = []
    seen: set[str] = set()
    for i, (colour, nations) in enumerate(table.items()):
        name, address = specs[i] if i < len(specs) else (colour, f"{colour}@localhost")
        name, address = str(name).strip(), str(address).strip()
        if not name or not re.fullmatch(r"[^\s=]+", name):
            raise GameError(f"bad player name {name!r}", hint="one word, no '='")
        if "@" not in address or any(c.isspace() for c in address):
            raise GameError(f"bad address {address!r} for player {name}")
        if name.lower() in seen:
            raise GameError(f"player name {name!r} is used twice")
        seen.add(name.lower())
        out.append({"name": name, "colour": colour, "address": address, "token": _secrets.token_hex(3),
                    "nations": list(nations)})
    return out


def parse_player_spec(spec: str) -> tuple[str, str]:
    """'NAME=ADDRESS' -> (name, address)."""
    name, sep, address = spec.partition("=")
    if not sep or not name.strip() or not address.strip():
        raise GameError(f"bad player {spec!r}", hint="write NAME=ADDRESS, e.g. alice=alice@example.org")
    return name.strip(), address.strip()


def create_game(games_dir: Path | str, game_id: str, *, ruleset: str = "classic", players: int = 4,
                player_specs: Sequence[tuple[str, str]] = (), state: GameState | None = None,
                moderator: str = "moderator@localhost", secret: bytes | None = None,
                time: str | None = None, source: str | None = None, position: str | None = None,
                languages: Mapping[str, str] | None = None) -> Game:
    """Create games_dir/game_id with settings, start position, dice secret and the `created` entry.
    `languages`: player name -> language (pbem.i18n; English for a player not named).

    The directory appears complete or not at all (built beside it, then renamed). `source` says where a
    given `state` came from; `position` is the text of a typed-in position file, kept in the entry."""
    from pbem.data.loader import load

    check_game_id(game_id)
    games_dir = Path(games_dir)
    final = games_dir / game_id
    if final.exists():
        raise GameError(f"{final} exists already")
    try:
        rs = load(ruleset)
    except DataError as e:
        raise GameError(f"ruleset {ruleset!r}: {e.message}") from e
    roster = assign_players(rs, players, player_specs)
    for p in roster:
        lang = str((languages or {}).get(p["name"], DEFAULT_LANGUAGE)).strip().lower()
        if lang not in LANGUAGES:
            raise GameError(f"unknown language {lang!r} for player {p['name']}",
                            hint="the players' languages: " + ", ".join(LANGUAGES))
        if lang != DEFAULT_LANGUAGE:
            p["language"] = lang
    unknown = sorted(set(languages or {}) - {p["name"] for p in roster})
    if unknown:
        raise GameError(f"--lang names no player of the game: {', '.join(unknown)}")
    if state is None:
        state, source = start_position(rs, game_id)
    else:
        source = source or "given"
    if state.game != game_id:
        state = state.copy()
        state.game = game_id
    secret = secret if secret is not None else _secrets.token_bytes(32)
    if len(secret) < 16:
        raise ValueError("the dice secret must have at least 16 bytes")
    commit = commitment(secret)
    settings = build_settings(game_id, rs.id, roster, moderator=moderator, commitment_hex=commit)

    games_dir.mkdir(parents=True, exist_ok=True)
    tmp = games_dir / f".new-{game_id}-{uuid.uuid4().hex[:8]}"
    try:
        tmp.mkdir()
        for sub in SUBDIRS:
            (tmp / sub).mkdir()
        atomic_write(tmp / SETTINGS, dump_roundtrip(settings), mode=SECRET_MODE)
        atomic_write(tmp / SECRET, secret.hex() + "\n", mode=0o600)
        sd = plain(state.to_dict())
        created = LogEntry(1, "created", time or utc_now(), {
            "game": game_id, "ruleset": rs.id, "data_version": rs.data_version, "pbem": __version__,
            "players": [{"name": p["name"], "colour": p["colour"], "nations": p["nations"]} for p in roster],
            "dice_commitment": commit, "start": source, "state": sd, "state_hash": state_hash(sd),
            **({"position": position} if position is not None else {}),
        })
        create_exclusive(tmp / LOG / created.name, entry_text(created))
        atomic_write(tmp / STATE, state_file_text(state, game_id, 1))
        if final.exists():
            raise GameError(f"{final} exists already")
        tmp.rename(final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Game.open(final)


def resolve_game(arg: str | Path, games_dir: str | Path = "games") -> Path:
    """A game directory from a path or an id under games_dir; GameError when neither exists."""
    p = Path(arg)
    if (p / SETTINGS).is_file():
        return p
    q = Path(games_dir) / str(arg)
    if (q / SETTINGS).is_file():
        return q
    if p.is_dir():
        raise GameError(f"{p} is not a game directory (no {SETTINGS})")
    raise GameError(f"no game {str(arg)!r} (looked for {p} and {q})")


__all__ = [
    "FORMAT", "KINDS", "Game", "LogEntry", "create_game", "resolve_game", "start_position",
    "ruleset_start_state", "assign_players", "parse_player_spec", "utc_now", "parse_time", "entry_text",
]
