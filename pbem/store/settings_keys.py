"""game.yaml mistakes a moderator makes by hand, caught when the game opens (issue 32).

`validate_settings` (pbem/store/game.py) checks types and values; this module adds what a hand edit
gets wrong without breaking the YAML: a misspelt key (`turn_houres: 72` would otherwise be ignored,
leaving the default deadline in force), a colour the ruleset has no player for, an address without
`@`, a player's `language` pbem has no catalog for, a token YAML read as a number (`token: 123456`). Each is a SaveError naming the file and the key,
with a did-you-mean where a known key or colour is close.

The `mail:` section of a game is a transport configuration (pbem/mail/transport.py) and `overrides:`
is checked by the ruleset loader: neither is checked here.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from email.utils import parseaddr
from typing import Any

from pbem.errors import GameError
from pbem.i18n import LANGUAGES
from pbem.store.yamlio import SaveError

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# settings_keys alone, measured): pbem.store.clock +65.

TOP_KEYS = ("format", "id", "ruleset", "players", "moderator", "observers", "deadlines", "options",
            "overrides", "dice", "mail", "paused")
PLAYER_KEYS = ("name", "colour", "address", "token", "nations", "language", "timezone")
MODERATOR_KEYS = ("address", "token")
DEADLINE_KEYS = ("turn_hours", "decision_hours", "reminder_hours", "away_days")
DICE_KEYS = ("commitment", "revealed_secret")
OPTION_VALUES = {"nmr": ("hold", "bot"), "decisions": ("default", "wait"), "away": ("push", "bot")}
"""game.yaml `options` with a fixed set of values (see docs/MODERATORS.md)."""
OPTION_KEYS = tuple(OPTION_VALUES)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """' (did you mean X?)' for a close known word, else ''."""
    close = difflib.get_close_matches(str(word), [str(k) for k in known], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _known_keys(section: Any, known: tuple[str, ...], where: str, label: str) -> None:
    if not isinstance(section, Mapping):
        return
    for key in section:
        if str(key) not in known:
            prefix = f"{where}." if where else ""
            raise SaveError(label, f"{prefix}{key}", f"unknown key{did_you_mean(key, known)}",
                            hint="known keys here: " + ", ".join(known))


REDACTED = "redacted"
"""what a public archive (pbem export) writes in place of addresses and tokens."""


def is_address(value: Any) -> bool:
    """One plain mail address: local@domain, no spaces, no display name."""
    if value == REDACTED:
        return True
    if not isinstance(value, str):
        return False
    name, addr = parseaddr(value)
    local, _, domain = addr.partition("@")
    return addr == value.strip() and bool(local) and bool(domain) and not any(c.isspace() for c in value.strip())


def _address(value: Any, key: str, label: str) -> None:
    if not is_address(value):
        raise SaveError(label, key, f"{value!r} is not a mail address",
                        hint="write the address alone, as name@example.org")


def _token(value: Any, key: str, label: str) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise SaveError(label, key, f"was read as the number {value!r}, not as text",
                        hint=f'put the token in quotes: token: "{value}"')


def _timezone(value: Any, key: str, label: str) -> None:
    from pbem.store.clock import zone_named

    try:
        zone_named(str(value))
    except GameError as e:
        raise SaveError(label, key, e.message, hint=e.hint) from e


def check_hand_edits(settings: Mapping, label: str, colours: Iterable[str], *,
                     optional_rules: tuple[str, ...] = ()) -> None:
    """Unknown keys, colours, addresses and numeric tokens in a loaded game.yaml (see the module doc).
    `colours`: every colour of the ruleset's control tables; `optional_rules`: the ruleset's optional
    rules, which `options` may also name (`options: {brittany: true}`)."""
    _known_keys(settings, TOP_KEYS, "", label)
    for key, known in (("moderator", MODERATOR_KEYS), ("deadlines", DEADLINE_KEYS), ("dice", DICE_KEYS),
                       ("options", OPTION_KEYS + optional_rules)):
        _known_keys(settings.get(key), known, key, label)
    colours = sorted({str(c) for c in colours})
    players = settings.get("players")
    for i, p in enumerate(players if isinstance(players, list) else []):
        where = f"players[{i}]"
        if not isinstance(p, Mapping):
            continue
        _known_keys(p, PLAYER_KEYS, where, label)
        _token(p.get("token"), f"{where}.token", label)
        if "address" in p:
            _address(p["address"], f"{where}.address", label)
        if "language" in p and p["language"] not in LANGUAGES:
            raise SaveError(label, f"{where}.language", f"unknown language {p['language']!r}"
                            f"{did_you_mean(p['language'], LANGUAGES)}",
                            hint="the players' languages: " + ", ".join(LANGUAGES) + " (English when absent)")
        if p.get("timezone") is not None:
            _timezone(p["timezone"], f"{where}.timezone", label)
        colour = p.get("colour")
        if colour is not None and str(colour) not in colours:
            raise SaveError(label, f"{where}.colour", f"unknown colour {colour!r}{did_you_mean(colour, colours)}",
                            hint="the ruleset's colours: " + ", ".join(colours))
    moderator = settings.get("moderator")
    if isinstance(moderator, Mapping):
        _token(moderator.get("token"), "moderator.token", label)
        if moderator.get("address") not in (None, ""):
            _address(moderator["address"], "moderator.address", label)
    observers = settings.get("observers")
    for i, obs in enumerate(observers if isinstance(observers, list) else []):
        _address(obs, f"observers[{i}]", label)
