"""Deadlines and one-time notices of a game (issue 11).

A decision starts when the step before it was logged (or the game was created); its deadline is that
time plus `deadlines.turn_hours` (a nation's turn) or `deadlines.decision_hours` (votes), unless a
moderator set or extended it (`deadline` / `extend` moderator entries); a pause adds the time paused
(pause ... resume) and keeps extensions. Reminders go out
`deadlines.reminder_hours` before, moved out of the player's night (issue 32: 22:00-08:00 in their
time zone, game.yaml `players[i].timezone`) to their morning before. A game moved over from a typed-in
position starts its clock at its first run (when its position mail went out), not at its creation.
An absence (`AWAY` by mail, pbem.service.away) under the policy `options.away: push` that begins
before the deadline of the absent player's nation pushes it by the time away (since the decision
started), as a pause would: the player comes back to the time they had left.
Notices already sent are remembered in `notices.json` so that a rerun (cron every ten minutes) never
sends one twice.

Every deadline a player reads is written in their time zone with UTC beside it (`when_text`).
"""

from __future__ import annotations

import difflib
import json
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, available_timezones

from pbem.errors import GameError
from pbem.records import record
from pbem.store.fs import atomic_write
from pbem.store.game import Game, LogEntry, parse_time
from pbem.store.hashing import plain, state_hash
from pbem.store.yamlio import SaveError

if TYPE_CHECKING:
    from pbem.rules.state import GameState

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# clock alone, measured): pbem.position.game +30.

NOTICES = "notices.json"
DEFAULTS = {"turn_hours": 72.0, "decision_hours": 24.0, "reminder_hours": 12.0}


@record
class Deadline:
    started: datetime
    due: datetime
    remind_at: datetime
    key: str                 # names the decision: "r3:saxons", "r9:vote"

    def passed(self, now: datetime) -> bool:
        return now >= self.due

    def text(self, zone: ZoneInfo | None = None) -> str:
        """The deadline as a player reads it: in their zone with UTC beside it (UTC alone without one)."""
        return when_text(self.due, zone)


WAKE, SLEEP = 8, 22
"""A player's day in their own time zone: reminders are not sent between SLEEP and WAKE."""


def zone_named(name: str) -> ZoneInfo:
    """The IANA time zone `name` (Europe/Moscow); a GameError with a did-you-mean for a wrong one."""
    text = str(name).strip()
    known = available_timezones()
    if text in known:
        return ZoneInfo(text)
    folded = {k.lower(): k for k in known}
    if text.lower() in folded:
        return ZoneInfo(folded[text.lower()])
    close = difflib.get_close_matches(text, sorted(known), n=1, cutoff=0.6) or difflib.get_close_matches(
        text.lower(), sorted(folded), n=1, cutoff=0.6)
    near = f"did you mean {folded.get(close[0], close[0])}? " if close else ""
    raise GameError(f"{text[:60]!r} is not a time zone",
                    hint=near + "write an IANA name such as Europe/Moscow, America/New_York or UTC")


def player_zone(game: Game, player: str | None) -> ZoneInfo | None:
    """The time zone a player set (game.yaml `players[i].timezone`; None: none, or not readable)."""
    name = (game.player(player) or {}).get("timezone") if player else None
    if not name:
        return None
    try:
        return zone_named(str(name))
    except GameError:
        return None


def zone_label(zone: ZoneInfo, when: datetime) -> str:
    """'Moscow time', 'New York time'; an Etc/ zone by its offset ('UTC+03:00 time')."""
    key = str(zone.key)
    if key.startswith("Etc/") or "/" not in key:
        off = when.astimezone(zone).strftime("%z")
        return f"UTC{off[:3]}:{off[3:]} time"
    return key.rsplit("/", 1)[-1].replace("_", " ") + " time"


def when_text(t: datetime, zone: ZoneInfo | None = None) -> str:
    """'2026-12-20 18:00 Moscow time (15:00 UTC)'; the UTC date too when it is another day."""
    utc = t.astimezone(UTC)
    if zone is None or str(zone.key) in ("UTC", "Etc/UTC"):
        return utc.strftime("%Y-%m-%d %H:%M UTC")
    local = t.astimezone(zone)
    beside = utc.strftime("%H:%M UTC") if local.date() == utc.date() else utc.strftime("%Y-%m-%d %H:%M UTC")
    return f"{local:%Y-%m-%d %H:%M} {zone_label(zone, t)} ({beside})"


def next_wake(game: Game, d: Deadline, now: datetime) -> datetime:
    """The next time a run has something to do for `d`: the first player's reminder still to come
    (each in their own day, `remind_time`), else the deadline."""
    times = [remind_time(d, player_zone(game, str(p.get("name")))) for p in game.players()] or [d.remind_at]
    later = [t for t in times if t > now]
    return min(later) if later else d.due


def remind_time(d: Deadline, zone: ZoneInfo | None) -> datetime:
    """When a player in `zone` is reminded of `d`: `reminder_hours` before the deadline, or, when
    that falls in their night, at WAKE on the morning before it (the morning after when the morning
    before comes before the decision started; as is when that is past the deadline too)."""
    if zone is None:
        return d.remind_at
    local = d.remind_at.astimezone(zone)
    if WAKE <= local.hour < SLEEP:
        return d.remind_at
    day = local.date() if local.hour >= SLEEP else local.date() - timedelta(days=1)
    before = datetime.combine(day, time(WAKE), tzinfo=zone)
    if before >= d.started + (d.remind_at - d.started) / 2:   # not just after the prompt
        return before
    after = datetime.combine(day + timedelta(days=1), time(WAKE), tzinfo=zone)
    return after if after < d.due else d.remind_at


def hours(game: Game, key: str) -> float:
    return float((game.settings.get("deadlines") or {}).get(key, DEFAULTS[key]))


def decision_key(game: Game) -> str:
    st = game.peek_state()
    return f"r{st.round}:{st.next_nation or 'start'}"


def current_deadline(game: Game, entries: list[LogEntry] | None = None, *, vote: bool = False) -> Deadline:
    """The deadline of the decision the game waits for now. `entries`: the log (default: its entries
    other than orders, which move no deadline: a burst of mail adds hundreds of them, issue 33)."""
    if entries is None:
        entries = sorted((e for kind in ("created", "turn", "moderator") for e in game.entries(kind)),
                         key=lambda e: e.id)
    key = decision_key(game)
    started = None
    moved: datetime | None = None
    extra = timedelta()
    paused_at: datetime | None = None
    for e in entries:
        if e.kind == "orders":      # most of a log; an orders entry moves no deadline
            continue
        if e.kind == "moderator" and e.get("action") == "pause":
            paused_at = parse_time(e.time)
        elif e.kind == "moderator" and e.get("action") == "resume" and paused_at and started:
            # the time paused is added to the deadline; a moved deadline and extensions are kept
            gap = max(parse_time(e.time) - paused_at, timedelta())
            started += gap
            moved = moved + gap if moved else None
            paused_at = None
        elif e.kind in ("created", "turn") or (e.kind == "moderator" and e.get("action") in ("rollback", "resume")) \
                or _takes_over(game, e):
            started = parse_time(e.time)
            moved, extra = None, timedelta()
        elif e.kind == "moderator" and e.get("action") == "deadline" and e.get("decision") == key:
            moved, extra = parse_time(e.get("until")), timedelta()
        elif e.kind == "moderator" and e.get("action") == "extend" and e.get("decision") == key:
            extra += timedelta(hours=float(e.get("hours") or 0))
    if started is None:
        started = datetime.fromtimestamp(0).astimezone()
    first_run = _first_run(game, entries)
    if first_run is not None and first_run > started:
        started = first_run
    span = _hours(hours(game, "decision_hours" if vote else "turn_hours"))
    due = shift(moved or shift(started, span), extra)
    nxt = game.peek_state().next_nation
    if not vote and away_policy(game) == "push" and nxt:
        for a, b in absences(entries, game.player_of(nxt)):
            if a < due and b > started:      # the time away (since the decision started) is added, as a pause
                due = shift(due, b - max(a, started))
    remind = shift(due, -_hours(hours(game, "reminder_hours")))
    return Deadline(started, due, max(remind, started), key)


def _takes_over(game: Game, e: LogEntry) -> bool:
    """A REPLACE of the player the game waits for: the new player's deadline starts then."""
    if e.kind != "moderator" or e.get("action") != "replace":
        return False
    nxt = game.peek_state().next_nation
    return nxt is None or game.player_of(nxt) == e.get("player")


def _first_run(game: Game, entries: list[LogEntry]) -> datetime | None:
    """A game moved over from a typed-in position (pbem new --position): its clock starts at the run
    that mailed everyone the imported position (its first run), not at its creation."""
    from pbem.position.game import SOURCE

    if not entries or not str(entries[0].get("start") or "").startswith(SOURCE + " "):
        return None
    return sent_at(game, "position-imported")


def away_policy(game: Game) -> str:
    """game.yaml `options.away`: `push` (the default) or `bot` (pbem.service.away)."""
    return str((game.settings.get("options") or {}).get("away", "push"))


def absences(entries: list[LogEntry], player: str | None) -> list[tuple[datetime, datetime]]:
    """The absences `player` announced (AWAY by mail: `away` entries), as [start, end) times."""
    out = []
    for e in entries:
        if e.kind == "moderator" and e.get("action") == "away" and player and e.get("player") == player:
            a, b = parse_time(e.get("start")), parse_time(e.get("end"))
            if a is not None and b is not None and a < b:
                out.append((a, b))
    return sorted(out)


EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 1, 1, tzinfo=UTC)


def _hours(h: float) -> timedelta:
    try:
        return timedelta(hours=h)
    except (OverflowError, ValueError):
        return timedelta.max if h > 0 else timedelta.min


def shift(t: datetime, delta: timedelta) -> datetime:
    """t + delta, kept between 1970 and 9999: a moderator's typo (`DEADLINE 0001-01-01T00:00Z`,
    `EXTEND 100000000`) must not make date arithmetic fail in every later run (issue 18)."""
    try:
        out = t + delta
    except OverflowError:
        return LATEST if delta > timedelta() else EARLIEST
    return min(max(out, EARLIEST), LATEST)


def _read(game: Game) -> dict[str, str]:
    """The notices sent. A damaged notices.json is the moderator's to repair: guessing would send
    every prompt and turn mail again, so the game waits (SaveError) instead."""
    path = game.path / NOTICES
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise SaveError(game.label(NOTICES), "-", f"cannot be read: {e}") from e
    try:
        data = json.loads(text)
    except ValueError as e:
        data = e
    if not isinstance(data, dict):
        raise SaveError(game.label(NOTICES), "-", "damaged (not a JSON object of notices sent)",
                        hint="restore it from a backup; deleting it makes pbem send the open prompts again")
    return data


def sent_keys(game: Game) -> set[str]:
    """The keys of every notice sent."""
    return set(_read(game))


def already_sent(game: Game, key: str) -> bool:
    return key in _read(game)


def mark_sent(game: Game, key: str, when: datetime) -> None:
    data = _read(game)
    data[key] = when.isoformat()
    atomic_write(game.path / NOTICES, json.dumps(data, indent=1, sort_keys=True) + "\n")


def sent_at(game: Game, key: str) -> datetime | None:
    """When the notice `key` was sent (None: not yet)."""
    value = _read(game).get(key)
    return parse_time(value) if value else None


def nmr_counts(game: Game) -> dict[str, int]:
    """Rule of the game service: how many deadlines each player missed (no orders: NMR)."""
    counts: dict[str, int] = {}
    for k in _read(game):
        if k.startswith("nmr:"):
            player = k.rsplit(":", 1)[-1]
            counts[player] = counts.get(player, 0) + 1
    return counts


def entry_time(now: datetime | None) -> str | None:
    """The `time` of a log entry made at `now` (the run's --now), as Game.append writes the wall
    clock; None: the wall clock."""
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if now is not None else None


def moderate_at(game: Game, now: datetime | None, action: str, who: str, why: str, *,
                state: GameState | None = None, **extra) -> int:
    """Game.moderate with the entry dated `now` instead of the wall clock (issue 27 item 11: a
    command by mail or a reveal in `pbem run --now T` writes the same bytes on every identical run)."""
    if now is None:
        return game.moderate(action, who, why, state=state, **extra)

    data = {"action": action, "who": who, "why": why, **extra}
    with game.lock():
        if state is not None:
            data["state"] = plain(state.to_dict())
            data["state_hash"] = state_hash(state)
        eid = game.append("moderator", data, time=entry_time(now))
        if state is not None:
            game.save_state(state, entry=eid)
        return eid
