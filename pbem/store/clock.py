"""Deadlines and one-time notices of a game (issue 11).

A decision starts when the step before it was logged (or the game was created); its deadline is that
time plus `deadlines.turn_hours` (a nation's turn) or `deadlines.decision_hours` (votes), unless a
moderator set or extended it (`deadline` / `extend` moderator entries); a pause adds the time paused
(pause ... resume) and keeps extensions. Reminders go out
`deadlines.reminder_hours` before. Notices already sent are remembered in `notices.json` so that a
rerun (cron every ten minutes) never sends one twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from pbem.store.fs import atomic_write
from pbem.store.game import Game, LogEntry, parse_time
from pbem.store.yamlio import SaveError

if TYPE_CHECKING:
    from pbem.rules.state import GameState

NOTICES = "notices.json"
DEFAULTS = {"turn_hours": 72.0, "decision_hours": 24.0, "reminder_hours": 12.0}


@dataclass(frozen=True)
class Deadline:
    started: datetime
    due: datetime
    remind_at: datetime
    key: str                 # names the decision: "r3:saxons", "r9:vote"

    def passed(self, now: datetime) -> bool:
        return now >= self.due

    def text(self) -> str:
        return self.due.strftime("%Y-%m-%d %H:%M UTC")


def hours(game: Game, key: str) -> float:
    return float((game.settings.get("deadlines") or {}).get(key, DEFAULTS[key]))


def decision_key(game: Game) -> str:
    st = game.state
    return f"r{st.round}:{st.next_nation or 'start'}"


def current_deadline(game: Game, entries: list[LogEntry] | None = None, *, vote: bool = False) -> Deadline:
    """The deadline of the decision the game waits for now."""
    entries = game.entries() if entries is None else entries
    key = decision_key(game)
    started = None
    moved: datetime | None = None
    extra = timedelta()
    paused_at: datetime | None = None
    for e in entries:
        if e.kind == "moderator" and e.get("action") == "pause":
            paused_at = parse_time(e.time)
        elif e.kind == "moderator" and e.get("action") == "resume" and paused_at and started:
            # the time paused is added to the deadline; a moved deadline and extensions are kept
            gap = max(parse_time(e.time) - paused_at, timedelta())
            started += gap
            moved = moved + gap if moved else None
            paused_at = None
        elif e.kind in ("created", "turn") or (e.kind == "moderator" and e.get("action") in ("rollback", "resume")):
            started = parse_time(e.time)
            moved, extra = None, timedelta()
        elif e.kind == "moderator" and e.get("action") == "deadline" and e.get("decision") == key:
            moved, extra = parse_time(e.get("until")), timedelta()
        elif e.kind == "moderator" and e.get("action") == "extend" and e.get("decision") == key:
            extra += timedelta(hours=float(e.get("hours") or 0))
    if started is None:
        started = datetime.fromtimestamp(0).astimezone()
    span = _hours(hours(game, "decision_hours" if vote else "turn_hours"))
    due = shift(moved or shift(started, span), extra)
    remind = shift(due, -_hours(hours(game, "reminder_hours")))
    return Deadline(started, due, max(remind, started), key)


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
    from pbem.store.hashing import plain, state_hash

    data = {"action": action, "who": who, "why": why, **extra}
    with game.lock():
        if state is not None:
            data["state"] = plain(state.to_dict())
            data["state_hash"] = state_hash(state)
        eid = game.append("moderator", data, time=entry_time(now))
        if state is not None:
            game.save_state(state, entry=eid)
        return eid
