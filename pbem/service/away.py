"""A player's own settings by mail (issue 32): their time zone and their absences.

`TIMEZONE Europe/Moscow` sets game.yaml `players[i].timezone` (an IANA name; a wrong one is answered
with a did-you-mean): every deadline the player reads is then in that zone with UTC beside it, and
their reminders come in their day (pbem.store.clock).

`AWAY 2026-12-20 TO 2026-12-27` announces an absence, from the start of the first day to the end of
the last, in the player's time zone (UTC without one). It is a log entry (`moderator` entry, action
`away`, who: the player) so that every run reads the same deadlines. A player has at most
`deadlines.away_days` days away a calendar year (default AWAY_DAYS); the game's `options.away` says
what happens to their nations' turns meanwhile:
  `push` (the default): the deadline of their nation is pushed by the time away that falls before it;
  `bot`: their nation is played as soon as its turn comes, by its standing orders and the greedy bot,
         and the turn mail says so.
The moderator is mailed each absence (notice `away:<entry>`); `pbem status` lists them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from email.message import EmailMessage
from functools import partial

from pbem.errors import GameError, PbemError
from pbem.i18n import _, player_language, tr
from pbem.rules.orders import AwayLine, LanguageLine, TimezoneLine
from pbem.store.clock import (
    absences,
    away_policy,
    current_deadline,
    mark_sent,
    moderate_at,
    player_zone,
    sent_keys,
    zone_named,
)
from pbem.store.game import Game, LogEntry, parse_time

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# away alone, measured): pbem.mail.compose +14, pbem.service.outgoing +7.

Send = Callable[[EmailMessage], None]
AWAY_DAYS = 30
MAX_AHEAD_DAYS = 366


def away_days(game: Game) -> int:
    """game.yaml `deadlines.away_days`: the days a player may be away in a calendar year."""
    return int(float((game.settings.get("deadlines") or {}).get("away_days", AWAY_DAYS)))


def apply_lines(game: Game, player: str, lines, *, now: datetime, mail_id: str) -> list[str]:
    """Carry out a mail's TIMEZONE and AWAY lines (pbem.orders.parser); returns the reply's sentences.
    A rerun of the same mail finds its AWAY entries logged (by mail and line) and logs nothing again."""
    out = []
    for ln in lines:
        try:
            if isinstance(ln, TimezoneLine):
                out.append(set_timezone(game, player, ln.zone))
            elif isinstance(ln, LanguageLine):
                out.append(set_language(game, player, ln.language))
            elif isinstance(ln, AwayLine):
                out.append(announce(game, player, ln.start, ln.end, now=now, mail_id=mail_id, line=ln.line))
        except PbemError as e:     # a wrong zone, date or language: said in the reply, the mail goes on
            out.append(tr(player_language(game.player(player)), _("line %(line)s: %(text)s: NOT taken: %(why)s"),
                          line=ln.line, text=ln.text[:200], why=e))
    return out


def set_timezone(game: Game, player: str, name: str) -> str:
    zone = zone_named(name)
    with game.lock():
        p = game.player(player)
        if p is None:
            raise GameError(f"game {game.id} has no player {player!r}")
        p["timezone"] = str(zone.key)
        game.save_settings()

    return tr(player_language(game.player(player)),
              _("Time zone set to %(zone)s: every deadline you are sent is written in it, the current one %(deadline)s."),
              zone=zone.key, deadline=current_deadline(game).text(zone))


def set_language(game: Game, player: str, value: str) -> str:
    """`LANGUAGE ru`: game.yaml `players[i].language` (English is written as no key, as `pbem new` does);
    every mail the player is sent from now on is in it, this mail's answer already (pbem.i18n)."""
    from pbem.i18n import DEFAULT, LANGUAGE_NAMES, _, check_language, tr

    code = check_language(value)
    with game.lock():
        p = game.player(player)
        if p is None:
            raise GameError(f"game {game.id} has no player {player!r}")
        if code == DEFAULT:
            p.pop("language", None)
        else:
            p["language"] = code
        game.save_settings()
    return tr(code, _("Language set to %(language)s: every mail you are sent from now on is written in it."),
              language=LANGUAGE_NAMES[code])


def announce(game: Game, player: str, start: str, end: str, *, now: datetime, mail_id: str = "", line: int = 0) -> str:
    """Log the absence of `player` from the day `start` to the day `end` (ISO dates, inclusive)."""
    a, b = date.fromisoformat(start), date.fromisoformat(end)
    if b < a:
        raise GameError(f"the absence ends ({end}) before it starts ({start})", hint="AWAY 2026-12-20 TO 2026-12-27")
    zone = player_zone(game, player)
    today = now.astimezone(zone).date() if zone else now.date()
    if b < today:
        raise GameError(f"{end} is already past", hint="announce an absence still to come")
    if (b - today).days > MAX_AHEAD_DAYS:
        raise GameError(f"{end} is more than a year ahead", hint="announce it nearer the time")
    for e in game.entries("moderator"):
        if e.get("action") == "away" and mail_id and e.get("mail_id") == mail_id and e.get("line") == line:
            return _taken(game, e)
    days = (b - a).days + 1
    used = days_used(game, player, a.year)
    limit = away_days(game)
    if used + days > limit:
        raise GameError(f"{days} days away would make {used + days} in {a.year}, more than this game's {limit}",
                        hint=f"{max(limit - used, 0)} days are left this year; the moderator can PAUSE the game")
    first = datetime.combine(a, time(0), tzinfo=zone or UTC)
    last = first + timedelta(days=days)
    tag = {"mail_id": mail_id, "line": line} if mail_id else {}
    eid = moderate_at(game, now, "away", player, "absence announced by mail", **tag, player=player,
                      start=first.isoformat(), end=last.isoformat(), days=days, policy=away_policy(game))
    return _taken(game, game.entry(eid))


def _taken(game: Game, e: LogEntry) -> str:
    from pbem.i18n import _, player_language, tr

    lang = player_language(game.player(str(e.get("player"))))
    what = tr(lang, _("the deadlines of your nations are pushed by the time you are away") if e.get("policy") == "push"
              else _("your nations are played by their standing orders and the bot meanwhile, marked so in the report"))
    return tr(lang, _("Absence taken: %(days)s day(s) from %(start)s to the end of %(end)s; %(what)s. The moderator "
                      "is told."), days=e.get("days"), start=str(e.get("start"))[:10], end=_last_day(e), what=what)


def _last_day(e: LogEntry) -> str:
    end = parse_time(e.get("end"))
    return (end - timedelta(days=1)).date().isoformat() if end else str(e.get("end"))


def days_used(game: Game, player: str, year: int) -> int:
    return sum(int(e.get("days") or 0) for e in game.entries("moderator")
               if e.get("action") == "away" and e.get("player") == player and str(e.get("start", ""))[:4] == str(year))


def away_now(game: Game, player: str | None, now: datetime, entries: list[LogEntry] | None = None) -> bool:
    entries = game.entries() if entries is None else entries
    return any(a <= now < b for a, b in absences(entries, player))


def away_lines(game: Game, now: datetime) -> list[str]:
    """The absences not over yet, for `pbem status`."""
    out = []
    for e in game.entries("moderator"):
        if e.get("action") != "away":
            continue
        for a, b in absences([e], str(e.get("player"))):
            if b > now:
                state = "away now" if a <= now else "away"
                out.append(f"{e.get('player')} {state}: {str(e.get('start'))[:10]} to {_last_day(e)} "
                           f"({e.get('policy') or away_policy(game)})")
    return out


def away_notices(game: Game, now: datetime, send: Send, *, from_addr: str) -> int:
    """Mail the moderator each absence announced (once: `away:<entry>`)."""
    from pbem.mail.compose import build_mail
    from pbem.service.outgoing import log_line, send_once

    keys = sent_keys(game)
    todo = [e for e in game.entries("moderator") if e.get("action") == "away" and f"away:{e.id}" not in keys]
    to = (game.settings.get("moderator") or {}).get("address")
    sent = 0
    for e in todo:
        if not to:
            mark_sent(game, f"away:{e.id}", now)
            continue
        text = (f"Game {game.id}: {e.get('player')} will be away {e.get('days')} day(s), from "
                f"{str(e.get('start'))[:10]} to the end of {_last_day(e)} ({days_used(game, str(e.get('player')), int(str(e.get('start'))[:4]))} "
                f"of {away_days(game)} days this year).\nThe game's policy (options.away): {e.get('policy')}.\n"
                + log_line(game))
        if send_once(game, f"away:{e.id}", partial(build_mail, str(to), f"[{game.id}] {e.get('player')} away",
                                                   text, from_addr=from_addr, auto_submitted="auto-generated"),
                     send, now):
            sent += 1
    return sent
