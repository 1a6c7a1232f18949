"""Moderator actions (issue 11), by mail (from the moderator's address with the moderator token) and
by CLI (`pbem moderate`). Every action is a `moderator` entry in the game log, with who and why.

Commands (one per line, case-insensitive; `# why` after a command gives the reason):
  PAUSE | RESUME
  DEADLINE 2026-12-24T18:00Z        set the deadline of the decision the game waits for
  EXTEND 24                         extend it by hours
  ROLLBACK <entry>                  back to the position before that turn entry (see `pbem status`)
  PROCESS | FORCE                   adjudicate now, without waiting for the deadline
  REPLACE <player> <address> [token]
  OBSERVER ADD <address> | OBSERVER REMOVE <address>
  PREVIEW                           adjudicate into a scratch copy; the report goes to the moderator only
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime

from pbem.errors import GameError
from pbem.rules.state import GameState
from pbem.store.clock import EARLIEST, LATEST, current_deadline, decision_key
from pbem.store.game import Game, parse_time

MAX_EXTEND_HOURS = 24 * 366 * 10   # ten years: more is a typo

ACTIONS = ("pause", "resume", "deadline", "extend", "rollback", "process", "replace", "observer", "preview")


def pause(game: Game, who: str, why: str, **tag) -> str:
    with game.lock():
        game.settings["paused"] = True
        game.save_settings()
        game.moderate("pause", who, why, **tag)
    return f"Game {game.id} paused."


def resume(game: Game, who: str, why: str, **tag) -> str:
    with game.lock():
        game.settings["paused"] = False
        game.save_settings()
        game.moderate("resume", who, why, **tag)
    return f"Game {game.id} resumed; the time it was paused is added to the deadline."


def set_deadline(game: Game, who: str, why: str, until: str, **tag) -> str:
    t = parse_time(until)
    if t is None:
        raise GameError(f"not a time: {until!r}", hint="write it like 2026-12-24T18:00Z")
    if not EARLIEST <= t <= LATEST:
        raise GameError(f"{until!r} is not a deadline this game can have", hint="write it like 2026-12-24T18:00Z")
    game.moderate("deadline", who, why, **tag, decision=decision_key(game), until=t.isoformat())
    return f"Deadline of {decision_key(game)} set to {t.isoformat()}."


def extend(game: Game, who: str, why: str, hours: float, **tag) -> str:
    if not 0 < hours <= MAX_EXTEND_HOURS:
        raise GameError(f"extend by a positive number of hours, at most {MAX_EXTEND_HOURS}")
    game.moderate("extend", who, why, **tag, decision=decision_key(game), hours=float(hours))
    return f"Deadline extended by {hours:g} hours: now {current_deadline(game).text()}."


def force(game: Game, who: str, why: str, **tag) -> str:
    game.moderate("process", who, why, **tag, decision=decision_key(game))
    return f"{decision_key(game)} will be adjudicated on the next run, orders or not."


def forced(game: Game) -> bool:
    """A PROCESS order for the decision the game waits for now."""
    key = decision_key(game)
    return any(e.get("action") == "process" and e.get("decision") == key for e in game.entries("moderator"))


def replace_player(game: Game, who: str, why: str, player: str, address: str, token: str | None = None, **tag) -> str:
    with game.lock():
        for p in game.settings.get("players") or []:
            if p.get("name") == player:
                p["address"] = address
                p["token"] = token or secrets.token_hex(3)
                game.save_settings()
                game.moderate("replace", who, why, **tag, player=player, address=address)
                return f"Player {player} now plays from {address} (new token {p['token']})."
    raise GameError(f"game {game.id} has no player {player!r}")


def observer(game: Game, who: str, why: str, op: str, address: str, **tag) -> str:
    """OBSERVER ADD|REMOVE with one address or several (`a@x, b@y`: each its own entry)."""
    addresses = [a for a in re.split(r"[,;\s]+", address) if a]
    if not addresses or any("@" not in a or a.count("@") > 1 for a in addresses):
        raise GameError(f"not an address list: {address!r}", hint="OBSERVER ADD ann@example.org, bob@example.org")
    if len(addresses) > 1:
        return "\n".join(observer(game, who, why, op, a, **tag) for a in addresses)
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
        game.moderate("observer", who, why, **tag, op=op, address=address)
    return f"Observers: {', '.join(obs) or 'none'}."


def rollback(game: Game, who: str, why: str, entry_id: int, **tag) -> str:
    """Back to the position before turn entry `entry_id` (re-derived from the log, like a replay)."""
    target = game.entry(entry_id)
    if target.kind != "turn":
        raise GameError(f"entry {entry_id} is not a turn (see `pbem status {game.id} --log`)")
    state = position_before(game, entry_id)
    game.moderate("rollback", who, why, **tag, state=state, to_entry=entry_id,
                  turn=f"round {target.get('round')} {target.get('nation') or target.get('step')}")
    return f"Rolled back to before entry {entry_id} (round {target.get('round')}, {target.get('nation') or 'round start'})."


def position_before(game: Game, entry_id: int) -> GameState:
    """Re-adjudicate the log up to `entry_id` with the game's dice."""
    from pbem.service.play import default_adjudicate

    rs = game.ruleset()
    state: GameState | None = None
    dice = game.dice()
    for e in game.entries():
        if e.id >= entry_id:
            break
        if e.kind == "created":
            state = GameState.from_dict(e["state"])
        elif e.kind == "moderator" and e.get("state"):
            state = GameState.from_dict(e["state"])
        elif e.kind == "turn" and state is not None and not _voided(game, e.id, entry_id):
            state, _ = default_adjudicate(rs, state, e, dice)
    if state is None:
        raise GameError(f"game {game.id}: the log has no start position")
    return state


def _voided(game: Game, turn_id: int, before: int) -> bool:
    """A turn undone by an earlier rollback (its state came back from a moderator entry)."""
    for m in game.entries("moderator"):
        if m.id < before and m.get("action") == "rollback" and int(m.get("to_entry") or 0) <= turn_id < m.id:
            return True
    return False


USAGE = {"deadline": "DEADLINE 2026-12-24T18:00Z", "extend": "EXTEND <hours>, e.g. EXTEND 24",
         "rollback": "ROLLBACK <entry number> (the turn entry `pbem status` names)",
         "replace": "REPLACE <player> <address> [token]", "observer": "OBSERVER ADD <address> or OBSERVER REMOVE <address>"}
"""How each command with arguments is written (the answer to one that cannot be read)."""

_LINE = re.compile(r"^\s*([A-Za-z]+)\b(.*?)(?:#\s*(.*))?$")


def from_mail(game: Game, text: str, *, who: str, mail_id: str, now: datetime) -> str:
    """Carry out the moderator commands of a mail; returns the answer text."""
    out = []
    # a rerun after a crash must not carry out a command twice: each entry names its mail and line
    done = {e.get("line") for e in game.entries("moderator") if e.get("mail_id") == mail_id}
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
        if n in done:
            out.append(f"{raw.strip()}: done already (this mail was read before)")
            continue
        try:
            out.append(run_command(game, word, rest, who=who, why=why, mail_id=mail_id, line=n))
        except GameError as e:
            out.append(f"{raw.strip()[:200]}: {e}")
        except (ValueError, IndexError, OverflowError):   # a missing or unreadable argument (issue 27)
            out.append(f"{raw.strip()[:200]}: not understood; write it as {USAGE.get(word, word.upper())}.")
    return "\n".join(out) or "No moderator command found. Commands: " + ", ".join(a.upper() for a in ACTIONS)


def run_command(game: Game, word: str, args: list[str], *, who: str, why: str, **tag) -> str:
    if word == "pause":
        return pause(game, who, why, **tag)
    if word == "resume":
        return resume(game, who, why, **tag)
    if word == "deadline":
        return set_deadline(game, who, why, args[0], **tag)
    if word == "extend":
        return extend(game, who, why, float(args[0]), **tag)
    if word == "rollback":
        return rollback(game, who, why, int(args[0]), **tag)
    if word in ("process", "force"):
        return force(game, who, why, **tag)
    if word == "replace":
        return replace_player(game, who, why, args[0], args[1], args[2] if len(args) > 2 else None, **tag)
    if word == "observer":
        return observer(game, who, why, args[0].lower(), " ".join(args[1:]), **tag)
    if word == "preview":
        from pbem.service.advance import preview

        return preview(game, who, why)
    raise GameError(f"unknown moderator command {word.upper()}", hint="commands: " + ", ".join(a.upper() for a in ACTIONS))
