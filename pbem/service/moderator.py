"""Moderator actions (issue 11), by mail (from the moderator's address with the moderator token) and
by CLI (`pbem moderate`). Every action is a `moderator` entry in the game log, with who and why.

Commands (one per line, case-insensitive; `# why` after a command gives the reason):
  PAUSE | RESUME
  DEADLINE 2026-12-24T18:00Z [PAST] set the deadline of the decision the game waits for; a time
                                    already past is refused unless PAST (CLI: --past) says it is meant
  EXTEND 24                         extend it by hours
  ROLLBACK <entry>                  back to the position before that turn entry (see `pbem status`)
  PROCESS | FORCE                   adjudicate now, without waiting for the deadline
  REPLACE <player> <address> [token]
  OBSERVER ADD <address> | OBSERVER REMOVE <address>
  PREVIEW                           adjudicate into a scratch copy; the report goes to the moderator only

Every change of a deadline (pause, resume, deadline, extend, rollback, replace; a player's absence)
is mailed by the next run to each player whose deadline it moved (pbem.service.notices), and a
replaced player's successor gets their token and nations.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime

from pbem.errors import GameError
from pbem.log.walk import position_after
from pbem.rules.state import GameState
from pbem.store.clock import EARLIEST, LATEST, current_deadline, decision_key, moderate_at, when_text
from pbem.store.game import Game, parse_time

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# moderator alone, measured): pbem.service.advance +68, pbem.service.outgoing +12.

MAX_EXTEND_HOURS = 24 * 366 * 10   # ten years: more is a typo

ACTIONS = ("pause", "resume", "deadline", "extend", "rollback", "process", "replace", "observer", "preview")


def pause(game: Game, who: str, why: str, *, now: datetime | None = None, **tag) -> str:
    with game.lock():
        game.settings["paused"] = True
        game.save_settings()
        return answer(game, moderate_at(game, now, "pause", who, why, **tag))


def resume(game: Game, who: str, why: str, *, now: datetime | None = None, **tag) -> str:
    with game.lock():
        game.settings["paused"] = False
        game.save_settings()
        return answer(game, moderate_at(game, now, "resume", who, why, **tag))


def set_deadline(game: Game, who: str, why: str, until: str, *, now: datetime | None = None, past: bool = False,
                 **tag) -> str:
    """DEADLINE: the decision the game waits for is due at `until`; `past`: a time already past is meant."""
    t = parse_time(until)
    if t is None:
        raise GameError(f"not a time: {until!r}", hint="write it like 2026-12-24T18:00Z")
    if not EARLIEST <= t <= LATEST:
        raise GameError(f"{until!r} is not a deadline this game can have", hint="write it like 2026-12-24T18:00Z")
    clock = now or datetime.now(UTC)
    if t <= clock and not past:   # the nation would be played at the next run without its player's chance
        raise GameError(f"{until!r} is in the past (it is now {when_text(clock)}): the next run would play "
                        f"{decision_key(game)} without orders",
                        hint="give a time still to come; to set a past deadline all the same, add --past "
                             "(by mail: DEADLINE <time> PAST): the player is mailed the change")
    return answer(game, moderate_at(game, now, "deadline", who, why, **tag, decision=decision_key(game),
                                    until=t.isoformat(), **({"past": True} if past else {})))


def extend(game: Game, who: str, why: str, hours: float, *, now: datetime | None = None, **tag) -> str:
    if not 0 < hours <= MAX_EXTEND_HOURS:
        raise GameError(f"extend by a positive number of hours, at most {MAX_EXTEND_HOURS}")
    return answer(game, moderate_at(game, now, "extend", who, why, **tag, decision=decision_key(game),
                                    hours=float(hours)))


def force(game: Game, who: str, why: str, *, now: datetime | None = None, **tag) -> str:
    return answer(game, moderate_at(game, now, "process", who, why, **tag, decision=decision_key(game)))


def forced(game: Game) -> bool:
    """A PROCESS order for the decision the game waits for now."""
    key = decision_key(game)
    return any(e.get("action") == "process" and e.get("decision") == key for e in game.entries("moderator"))


def replace_player(game: Game, who: str, why: str, player: str, address: str, token: str | None = None, *,
                   now: datetime | None = None, **tag) -> str:
    with game.lock():
        for p in game.settings.get("players") or []:
            if p.get("name") == player:
                p["address"] = address
                p["token"] = token or new_token(game, player, tag)
                game.save_settings()
                return answer(game, moderate_at(game, now, "replace", who, why, **tag, player=player, address=address))
    raise GameError(f"game {game.id} has no player {player!r}")


def new_token(game: Game, player: str, tag: dict) -> str:
    """A new token for `player`. Given by mail it is drawn from the dice secret and the mail's id and
    line, so that a second identical run (or the rerun after a crash) gives the same token; by the
    command line (or without a sealed secret) it is random."""
    secret = game.local_secret() if tag.get("mail_id") else None
    if secret is None:
        return secrets.token_hex(3)
    what = f"token\0{player}\0{tag['mail_id']}\0{tag.get('line')}".encode()
    return hmac.new(secret, what, hashlib.sha256).hexdigest()[:6]


def observer(game: Game, who: str, why: str, op: str, address: str, *, now: datetime | None = None, **tag) -> str:
    """OBSERVER ADD|REMOVE with one address or several (`a@x, b@y`: each its own entry)."""
    addresses = [a for a in re.split(r"[,;\s]+", address) if a]
    if not addresses or any("@" not in a or a.count("@") > 1 for a in addresses):
        raise GameError(f"not an address list: {address!r}", hint="OBSERVER ADD ann@example.org, bob@example.org")
    if len(addresses) > 1:
        return "\n".join(observer(game, who, why, op, a, now=now, **tag) for a in addresses)
    with game.lock():
        obs = game.settings.get("observers")
        if obs is None:
            game.settings["observers"] = obs = []
        if op == "add" and address not in obs:
            obs.append(address)
        elif op == "remove" and address in obs:
            obs.remove(address)
        elif op not in ("add", "remove"):
            raise GameError("OBSERVER ADD <address> or OBSERVER REMOVE <address>")
        game.save_settings()
        return answer(game, moderate_at(game, now, "observer", who, why, **tag, op=op, address=address,
                                        observers=list(obs)))


def rollback(game: Game, who: str, why: str, entry_id: int, *, now: datetime | None = None, **tag) -> str:
    """Back to the position before turn entry `entry_id` (re-derived from the log, like a replay)."""
    target = game.entry(entry_id)
    if target.kind != "turn":
        raise GameError(f"entry {entry_id} is not a turn (see `pbem status {game.id} --log`)")
    state = position_before(game, entry_id)
    return answer(game, moderate_at(game, now, "rollback", who, why, **tag, state=state, to_entry=entry_id,
                                    turn=f"round {target.get('round')} {target.get('nation') or target.get('step')}"))


def position_before(game: Game, entry_id: int) -> GameState:
    """The position before turn entry `entry_id`, re-derived from the log as it stood then (the one walk
    of the log, pbem.log.walk: from the last position set before it, each turn re-adjudicated with the
    faces it logged and checked against its state_hash; turns an earlier rollback voided are not
    played), so a rollback never logs a position the log does not lead to."""
    return position_after(game.id, game.ruleset, [e for e in game.entries() if e.id < entry_id], entry_id - 1)


USAGE = {"deadline": "DEADLINE 2026-12-24T18:00Z [PAST]", "extend": "EXTEND <hours>, e.g. EXTEND 24",
         "rollback": "ROLLBACK <entry number> (the turn entry `pbem status` names)",
         "replace": "REPLACE <player> <address> [token]", "observer": "OBSERVER ADD <address> or OBSERVER REMOVE <address>"}
"""How each command with arguments is written (the answer to one that cannot be read)."""

_LINE = re.compile(r"^\s*([A-Za-z]+)\b(.*?)(?:#\s*(.*))?$")


def from_mail(game: Game, text: str, *, who: str, mail_id: str, now: datetime) -> str:
    """Carry out the moderator commands of a mail; returns the answer text, ending with the log's end.

    A rerun after a crash must not carry out a command twice: each entry names its mail and line, and
    a line found done gets the answer it got when it was carried out (`answer`, from its entry)."""
    out = []
    done: dict[int, list[int]] = {}
    for e in game.entries("moderator"):
        if e.get("mail_id") == mail_id:
            done.setdefault(int(e.get("line") or 0), []).append(e.id)
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith(">") or raw.strip() == "--":
            if raw.strip() == "--":
                break
            continue
        m = _LINE.match(raw)
        if not m:
            continue
        word, rest, why = m.group(1).lower(), m.group(2).split(), (m.group(3) or "by mail").strip()
        if word in ("game", "token", "nation"):
            continue
        try:
            if n in done:
                out.append(_answer_again(game, done[n], who=who, why=why, now=now))
            else:
                out.append(run_command(game, word, rest, who=who, why=why, now=now, mail_id=mail_id, line=n))
        except GameError as e:
            out.append(f"{raw.strip()[:200]}: {e}")
        except (ValueError, IndexError, OverflowError):   # a missing or unreadable argument (issue 27)
            out.append(f"{raw.strip()[:200]}: not understood; write it as {USAGE.get(word, word.upper())}.")
    if not out:
        return "No moderator command found. Commands: " + ", ".join(a.upper() for a in ACTIONS)
    from pbem.service.outgoing import log_line

    return "\n".join(out) + ("\n" + log_line(game) if done or _logged(game, mail_id) else "")


def _logged(game: Game, mail_id: str) -> bool:
    return any(e.get("mail_id") == mail_id for e in game.entries("moderator"))


def _answer_again(game: Game, ids: list[int], *, who: str, why: str, now: datetime) -> str:
    """The answer of a mail's line carried out before (a crash came before the reply was sent)."""
    first = game.entry(ids[0])
    if first.get("action") == "preview":
        from pbem.service.advance import preview

        return preview(game, who, why, now=now, record=False)
    return "\n".join(answer(game, i) for i in ids)


def answer(game: Game, eid: int) -> str:
    """What the moderator is told of the action logged as entry `eid`: read from the entry and the log
    up to it, so the run that carries the action out and a rerun that finds it done say the same."""
    e = game.entry(eid)
    action = e.get("action")
    if action == "pause":
        return f"Game {game.id} paused."
    if action == "resume":
        return f"Game {game.id} resumed; the time it was paused is added to the deadline."
    if action == "deadline":
        return (f"Deadline of {e.get('decision')} set to {e.get('until')}"
                + (" (in the past: it is played at the next run)." if e.get("past") else "."))
    if action == "extend":
        upto = [x for x in game.entries() if x.id <= eid]
        return f"Deadline extended by {float(e.get('hours')):g} hours: now {current_deadline(game, upto).text()}."
    if action == "process":
        return f"{e.get('decision')} will be adjudicated on the next run, orders or not."
    if action == "rollback":
        target = game.entry(int(e.get("to_entry")))
        return (f"Rolled back to before entry {target.id} (round {target.get('round')}, "
                f"{target.get('nation') or 'round start'}).")
    if action == "replace":
        token = (game.player(str(e.get("player"))) or {}).get("token")
        return f"Player {e.get('player')} now plays from {e.get('address')} (new token {token})."
    if action == "observer":   # the list as this entry left it (entries before it did not keep it)
        obs = e.get("observers") if isinstance(e.get("observers"), list) else game.settings.get("observers")
        return f"Observers: {', '.join(str(a) for a in obs or []) or 'none'}."
    if action == "away":
        return f"{e.get('player')} is away from {e.get('start')} to {e.get('end')}."
    return f"{action}: done."


def run_command(game: Game, word: str, args: list[str], *, who: str, why: str, now: datetime | None = None,
                past: bool = False, **tag) -> str:
    """One moderator command; `now`: the run's time (the entry's time; None: the wall clock); `past`:
    a DEADLINE already past is meant."""
    if word == "pause":
        return pause(game, who, why, now=now, **tag)
    if word == "resume":
        return resume(game, who, why, now=now, **tag)
    if word == "deadline":
        if len(args) > 1 and args[1].lower() != "past":
            raise ValueError(args[1])
        return set_deadline(game, who, why, args[0], now=now, past=past or len(args) > 1, **tag)
    if word == "extend":
        return extend(game, who, why, float(args[0]), now=now, **tag)
    if word == "rollback":
        return rollback(game, who, why, int(args[0]), now=now, **tag)
    if word in ("process", "force"):
        return force(game, who, why, now=now, **tag)
    if word == "replace":
        return replace_player(game, who, why, args[0], args[1], args[2] if len(args) > 2 else None, now=now, **tag)
    if word == "observer":
        return observer(game, who, why, args[0].lower(), " ".join(args[1:]), now=now, **tag)
    if word == "preview":
        from pbem.service.advance import preview

        return preview(game, who, why, now=now, **tag)
    raise GameError(f"unknown moderator command {word.upper()}", hint="commands: " + ", ".join(a.upper() for a in ACTIONS))
