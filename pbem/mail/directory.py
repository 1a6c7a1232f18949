"""Who may write to which game (issue 9 authentication): registered addresses and tokens.

The intake asks a `GameDirectory` for `lookup(game_id) -> GameContact | None`. `contact_from_settings`
reads the `players` / `moderator` part of a game.yaml, and `GamesDirDirectory` does so for every
`games/<id>/game.yaml`; any other source can implement the one-method protocol.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import NamedTuple, Protocol

from pbem.errors import DataError
from pbem.records import record


class PlayerContact(NamedTuple):
    """A player's registered address, secret TOKEN and nations (ids) in one game."""

    address: str
    token: str
    nations: tuple[str, ...] = ()
    language: str = "en"     # the player's language (pbem.i18n): the intake's own notices to them are in it


def _norm_addr(addr: str) -> str:
    return str(addr or "").strip().strip("<>").lower()


def norm_nation(name: str) -> str:
    """'Romano-British' / 'romano_british' / 'ROMANO BRITISH' -> 'romano_british'."""
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


@record
class GameContact:
    """One game as the intake sees it: `players` maps a player name to PlayerContact or (address, token)."""

    id: str
    players: Mapping[str, PlayerContact] = field(default_factory=dict)
    moderator: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        players = {}
        for name, value in dict(self.players).items():
            if not isinstance(value, PlayerContact):
                value = PlayerContact(*value)
            players[str(name)] = PlayerContact(
                _norm_addr(value.address), str(value.token),
                tuple(norm_nation(n) for n in value.nations), str(value.language or "en"),
            )
        object.__setattr__(self, "players", players)
        if self.moderator is not None:
            addr, token = self.moderator
            object.__setattr__(self, "moderator", (_norm_addr(addr), str(token)))

    def players_at(self, address: str) -> list[str]:
        """Names of the players registered with this address."""
        addr = _norm_addr(address)
        return [n for n, p in self.players.items() if addr and p.address == addr]

    def is_moderator(self, address: str) -> bool:
        return bool(self.moderator and address and self.moderator[0] == _norm_addr(address))

    def player_of_nation(self, nation: str) -> str | None:
        key = norm_nation(nation)
        for name, p in self.players.items():
            if key and key in p.nations:
                return name
        return None


class GameDirectory(Protocol):
    def lookup(self, game_id: str) -> GameContact | None:
        """The game with this id, or None when there is no such game."""
        ...

    def ids(self) -> list[str]:
        """The ids of every game (for the did-you-mean of a mail naming no game there)."""
        ...


def games_of_sender_like(directory: GameDirectory, asked: str, address: str) -> list[str]:
    """The games whose id is close to `asked` (a typo of the subject tag or the GAME line) and in
    which `address` plays or moderates: only those are named back, so a stranger learns no game."""
    try:
        ids = list(directory.ids())
    except (OSError, AttributeError):
        return []
    asked_l = str(asked).lower()
    lowered = [i.lower() for i in ids]
    near = difflib.get_close_matches(asked_l, lowered, n=5, cutoff=0.6)
    near += [i for i in lowered if i not in near and _one_edit_apart(asked_l, i)]   # short ids: `c1` for `cl`
    out = []
    for gid in near:
        try:
            contact = directory.lookup(gid)
        except DataError:
            continue
        if contact is not None and (contact.players_at(address) or contact.is_moderator(address)):
            out.append(contact.id)
    return out[:2]


def _one_edit_apart(a: str, b: str) -> bool:
    """One letter typed wrong, left out or added, or two next letters swapped (a typo of a game id
    too short for difflib's ratio: one wrong letter of two is a ratio of 0.5)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [k for k in range(len(a)) if a[k] != b[k]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:k] + long_[k + 1:] == short for k in range(len(long_)))


class StaticDirectory:
    """A fixed set of games (tests, or an adapter that already loaded everything)."""

    def __init__(self, games: Mapping[str, GameContact] | list[GameContact]) -> None:
        items = games.values() if isinstance(games, Mapping) else games
        self.games = {g.id.lower(): g for g in items}

    def lookup(self, game_id: str) -> GameContact | None:
        return self.games.get(str(game_id).lower())

    def ids(self) -> list[str]:
        return [g.id for g in self.games.values()]


def contact_from_settings(game_id: str, settings: Mapping, source: str = "game.yaml") -> GameContact:
    """GameContact from game settings: `players: [{name, address, token, nations}]`, `moderator: {address, token}`."""
    players: dict[str, PlayerContact] = {}
    for i, p in enumerate(settings.get("players") or []):
        if not isinstance(p, Mapping) or not p.get("name"):
            raise DataError(source, f"players[{i}]", "needs a name")
        if not p.get("address") or p.get("token") in (None, ""):
            raise DataError(source, f"players[{i}]", "needs an address and a token")
        nations = p.get("nations") or []
        players[str(p["name"])] = PlayerContact(str(p["address"]), str(p["token"]), tuple(str(n) for n in nations),
                                                str(p.get("language") or "en"))
    mod = settings.get("moderator")
    moderator = None
    if isinstance(mod, Mapping) and mod.get("address"):
        moderator = (str(mod["address"]), str(mod.get("token") or ""))
    return GameContact(game_id, players, moderator)


class GamesDirDirectory:
    """Games from `<games_dir>/<id>/game.yaml`, read again whenever the file changed (so edits apply
    at once); a burst of mail to one game reads it once (issue 33)."""

    def __init__(self, games_dir: Path) -> None:
        self.games_dir = Path(games_dir)
        self._read: dict[Path, tuple[tuple[int, int, int, int], GameContact]] = {}

    def ids(self) -> list[str]:
        return sorted(d.name for d in self.games_dir.iterdir() if (d / "game.yaml").is_file())

    def lookup(self, game_id: str) -> GameContact | None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}", str(game_id)) or ".." in game_id:
            return None
        path = self.games_dir / game_id / "game.yaml"
        if not path.is_file():
            lowered = self.games_dir / game_id.lower() / "game.yaml"
            if not lowered.is_file():
                return None
            path, game_id = lowered, game_id.lower()
        from ruamel.yaml import YAML, YAMLError

        try:
            st = path.stat()
            version = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            hit = self._read.get(path)
            if hit is not None and hit[0] == version:
                return hit[1]
            settings = YAML(typ="safe").load(path.read_text(encoding="utf-8")) or {}
        except (OSError, YAMLError, UnicodeDecodeError) as exc:
            raise DataError(str(path), "-", f"cannot read: {exc}") from exc
        if not isinstance(settings, Mapping):
            raise DataError(str(path), "-", "not a mapping")
        contact = contact_from_settings(game_id, settings, str(path))
        self._read[path] = (version, contact)
        return contact
