"""Which game a mail is for, and who sent it (issue 9 routing and authentication; ORDERS.md shape).

Routing: a `GAME <id>` line in the body wins; otherwise the first `[<id>]` subject tag naming a
known game. Authentication: the From address must be registered for that game (a player's, or the
moderator's) AND the body's `TOKEN` line must match that registration's token. Quoted lines (`>`)
and everything after a signature line (`-- `) or a quoted original are not read, as in ORDERS.md.
"""

from __future__ import annotations

import functools
import hmac
import re
from dataclasses import field

from pbem.mail.directory import GameContact, GameDirectory
from pbem.mail.message import MailIn, game_tags
from pbem.records import record

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


def order_lines(text: str) -> list[str]:
    """The lines ORDERS.md reads, cleaned as the order parser cleans them (pbem.orders.hygiene): not
    quoted, nothing from a signature or a quoted original (`-----Original Message-----`) on, `#`
    comments removed, unicode tidied (NFKC: full-width letters; no-break and zero-width spaces), so a
    correct token pasted with odd spaces is read and a TOKEN line in a quoted original is not."""
    return list(_order_lines(text))


@functools.lru_cache(maxsize=4)
def _order_lines(text: str) -> tuple[str, ...]:
    """order_lines, kept for the last few mail texts: routing reads the GAME line of a mail and
    authentication its TOKEN line, one right after the other (issue 33)."""
    from pbem.orders.hygiene import clean_lines

    return tuple(ln.text for ln in clean_lines(text) if not ln.ignored or ln.ignored == "too-long")


def keyword_values(text: str, keyword: str) -> list[str]:
    """Values of `KEYWORD value` lines (keyword case-insensitive), in order."""
    values = []
    for line in order_lines(text):
        head, _, rest = line.replace("\t", " ").partition(" ")
        if head.rstrip(":").upper() == keyword and rest.strip():
            values.append(rest.strip())
    return values


@record
class Route:
    """Where a mail goes: `game` (None: unroutable), the id asked for, and how it was found."""

    game: GameContact | None
    asked: str | None
    via: str
    """'body', 'subject' or '' (unroutable)."""


def route(mail: MailIn, directory: GameDirectory) -> Route:
    """Find the game: `GAME <id>` in the body first, else the subject tags; exceptions of the
    directory propagate (a damaged game.yaml must not turn mail into 'unroutable')."""
    games = keyword_values(mail.text, "GAME")
    if games:
        asked = games[0].split()[0]
        game = directory.lookup(asked) if _ID_RE.match(asked) else None
        return Route(game, asked, "body" if game else "")
    tags = game_tags(mail.subject)
    for tag in tags:
        game = directory.lookup(tag)
        if game is not None:
            return Route(game, tag, "subject")
    return Route(None, tags[0] if tags else None, "")


@record
class Auth:
    """The outcome of authentication: `sender` is a player name or 'moderator' when ok."""

    ok: bool
    sender: str = ""
    reason: str = ""
    """'no-token', 'bad-token' or 'unknown-sender' when not ok."""
    claimed: tuple[tuple[str, str, bool], ...] = field(default=())
    """(who, registered address, token matched) for an unregistered sender claiming someone."""


def _same(a: str, b: str) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def authenticate(mail: MailIn, game: GameContact) -> Auth:
    """Registered address + matching TOKEN, else a reason and whom the mail pretended to be."""
    tokens = keyword_values(mail.text, "TOKEN")
    token = tokens[0].split()[0] if tokens else ""
    names = game.players_at(mail.from_addr)
    is_mod = game.is_moderator(mail.from_addr)
    if names or is_mod:
        if not token:
            return Auth(False, reason="no-token")
        for name in names:
            if _same(token, game.players[name].token):
                return Auth(True, sender=name)
        if is_mod and game.moderator and _same(token, game.moderator[1]):
            return Auth(True, sender="moderator")
        return Auth(False, reason="bad-token")
    claimed: dict[str, tuple[str, str, bool]] = {}
    for name, p in game.players.items():
        if _same(token, p.token):
            claimed[name] = (name, p.address, True)
    if game.moderator and _same(token, game.moderator[1]):
        claimed["moderator"] = ("moderator", game.moderator[0], True)
    for nation in keyword_values(mail.text, "NATION"):
        name = game.player_of_nation(nation)
        if name and name not in claimed:
            claimed[name] = (name, game.players[name].address, False)
    return Auth(False, reason="unknown-sender", claimed=tuple(claimed.values()))
