"""Re-adjudicate a game from its log and check every stored hash (`pbem replay`).

The replay starts from the position in the `created` entry, feeds each `turn` entry to the
adjudicator with the dice the game had — HmacDice on the secret when it is here (revealed or the
local `secret` file), else the faces the entry logged (RecordedDice) — and compares:

1. the orders the turn used with the orders entries they came from (as received);
2. the events with the logged events (index by index), and the logged events with their hash;
3. the dice rolled with the dice logged (label by label);
4. the state hash after the step;

and at the end the position in state.yaml. A moderator entry with a `state` sets the position.
The first divergence stops the replay and is reported readably (`Divergence.describe()`).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from pbem import __version__
from pbem.errors import PbemError
from pbem.log.entries import POSITION_ACTIONS
from pbem.log.walk import LogWalk, MissingDie, StepFailed, logged_dice
from pbem.orders.parser import lines_remembered
from pbem.position.file import read_position
from pbem.rules.dice import commitment
from pbem.rules.state import GameState
from pbem.rules.turn import new_game_state
from pbem.store.game import ENGINE_START, STATE, Game, LogEntry
from pbem.store.hashing import canonical, canonical_json, sha256_text, state_hash
from pbem.store.loghash import chain_hashes
from pbem.store.turns import Adjudicator, orders_text_hash
from pbem.store.yamlio import SaveError, load_plain

StartFn = Callable[[Any, str], GameState]


@dataclass
class Divergence:
    """Where a replay first differs from the log."""

    what: str                   # log | start | rules | orders | dice | event | events | state | final | error | secret
    entry: int | None = None
    file: str = ""
    round: int | None = None
    nation: str | None = None
    step: str | None = None
    index: int | None = None    # event index (0-based)
    label: str | None = None    # die label, or the nation whose orders differ
    expected: Any = None
    got: Any = None
    detail: str = ""
    diff: list[str] = field(default_factory=list)

    def where(self) -> str:
        parts = [self.file or (f"entry {self.entry}" if self.entry else "the log")]
        ctx = []
        if self.round is not None:
            ctx.append(f"round {self.round}")
        if self.nation:
            ctx.append(self.nation)
        elif self.step and self.step != "nation":
            ctx.append(self.step.replace("_", " "))
        if self.index is not None:
            ctx.append(f"event {self.index}")
        if self.label is not None and self.what == "dice":
            ctx.append(f"die {self.label}")
        if ctx:
            parts.append(f"({', '.join(ctx)})")
        return " ".join(parts)

    def describe(self) -> str:
        lines = [f"replay diverges at {self.where()}: {self.detail or self.what}"]
        if self.expected is not None or self.got is not None:
            limit = 160 if self.diff else 400     # the differences below say what matters
            lines.append(f"  expected: {_show(self.expected, limit)}")
            lines.append(f"  got:      {_show(self.got, limit)}")
        if self.diff:
            lines.append("  differences:")
            lines.extend(f"    {d}" for d in self.diff[:20])
            if len(self.diff) > 20:
                lines.append(f"    ... and {len(self.diff) - 20} more")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "", [])}


@dataclass
class ReplayReport:
    game: str
    entries: int = 0            # log entries read
    steps: int = 0              # turn entries re-adjudicated
    dice_mode: str = "secret"   # secret | recorded
    checked_dice: int = 0
    divergence: Divergence | None = None
    notes: list[str] = field(default_factory=list)
    rules: str = ""             # game.yaml's rules fingerprint (Game.rules_fingerprint)
    rules_kept: bool = False    # a turn entry so far kept its rules fingerprint

    @property
    def ok(self) -> bool:
        return self.divergence is None

    def summary(self) -> str:
        dice = "the dice secret" if self.dice_mode == "secret" else "the logged dice (the secret is sealed)"
        head = (f"game {self.game}: {_n(self.entries, 'log entry', 'log entries')}, "
                f"{_n(self.steps, 'step')} re-adjudicated with {dice}, {_n(self.checked_dice, 'die', 'dice')} checked")
        body = [head] + [f"note: {n}" for n in self.notes]
        body.append(self.divergence.describe() if self.divergence else "replay matches the log")
        return "\n".join(body)


def _n(k: int, one: str, many: str | None = None) -> str:
    return f"{k} {one if k == 1 else many or one + 's'}"


def _show(x: Any, limit: int = 400) -> str:
    if isinstance(x, str):
        return repr(x) if "\n" in x or len(x) > 100 else x
    s = canonical_json(x) if isinstance(x, (dict, list)) else repr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


def dict_diff(expected: Any, got: Any, path: str = "") -> list[str]:
    """Readable differences between two plain values: `path: expected -> got` lines."""
    a, b = canonical(expected), canonical(got)
    out: list[str] = []

    def walk(x: Any, y: Any, p: str) -> None:
        if x == y:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                q = f"{p}.{k}" if p else str(k)
                if k not in y:
                    out.append(f"{q}: {_show(x[k])} -> (missing)")
                elif k not in x:
                    out.append(f"{q}: (missing) -> {_show(y[k])}")
                else:
                    walk(x[k], y[k], q)
            return
        if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (u, v) in enumerate(zip(x, y)):
                walk(u, v, f"{p}[{i}]")
            return
        out.append(f"{p or '(value)'}: {_show(x)} -> {_show(y)}")

    walk(a, b, path)
    return out


def _secret_for_replay(game: Game, entries: list[LogEntry]) -> tuple[bytes | None, str | None]:
    """The secret and where it came from, or (None, None) when sealed."""
    secret = game.revealed_secret()
    if secret is not None:
        return secret, "revealed"
    for e in entries:
        if e.kind == "moderator" and e.get("action") == "reveal" and e.get("secret"):
            try:
                return bytes.fromhex(str(e["secret"])), f"log entry {e.id}"
            except ValueError:
                return None, None
    secret = game.local_secret()
    return (secret, "the local secret file") if secret is not None else (None, None)


def replay(game_dir: Any, *, adjudicate: Adjudicator | None = None, start: StartFn | None = None,
           use_secret: bool = True, progress: Callable[[int], None] | None = None,
           log_hash: tuple[int, str] | None = None, fresh: bool = False) -> ReplayReport:
    """Replay a game directory; see the module doc. `start(ruleset, game_id)` (optional) recomputes
    the start position to compare with the logged one; `progress(n)` is called as entries are done.
    Every entry is parsed from its file's bytes, and the running hash taken from the same bytes: the
    parsed-log cache (.log-index.jsonl) takes no part in a check, so it can never vouch for an edited
    file (issue 27). `fresh` is what every replay does now (kept for callers that ask for it)."""
    game = game_dir if isinstance(game_dir, Game) else Game.open(game_dir)
    report = ReplayReport(game.id, rules=game.rules_fingerprint())
    entries, digests = game.log_from_files()
    report.entries = len(entries)
    with lines_remembered():      # each order line of the game is read once (they recur turn after turn)
        div = _replay(game, entries, report, adjudicate, start, use_secret, progress)
    report.divergence = div or _check_log_end(game, chain_hashes(digests), log_hash, report)
    return report


def _check_log_end(game: Game, running: list[tuple[int, str]], expect: tuple[int, str] | None,
                   report: ReplayReport) -> Divergence | None:
    """The log's running hash (pbem.store.loghash, of the files' bytes): noted, and compared with the
    one a turn mail printed; and every turn a mail was sent for (notices.json `turn:N`) must still
    be in the log."""
    hashes = dict(running)
    last = max(hashes, default=0)
    if last:
        report.notes.append(f"log ends at entry {last}, running hash {hashes[last]}")
    if expect is not None:
        n, h = expect
        if n not in hashes:
            return Divergence("log", entry=n, detail=f"the log ends at entry {last}; a mail showed entry {n}: "
                              "entries were deleted", expected=h)
        if hashes[n] != h:
            return Divergence("log", entry=n, detail="the log up to this entry is not the one a mail showed",
                              expected=h, got=hashes[n])
    try:
        sent = json.loads((game.path / "notices.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        sent = {}
    mailed = [int(k[5:]) for k in (sent if isinstance(sent, dict) else {}) if k.startswith("turn:") and k[5:].isdigit()]
    gone = [n for n in mailed if n > last]
    if gone:
        return Divergence("log", entry=min(gone), detail=f"turn mails went out for entries up to {max(gone)}, "
                          f"the log ends at {last}: entries were deleted")
    return None


def _replay(game: Game, entries: list[LogEntry], report: ReplayReport, adjudicate: Adjudicator,
            start: StartFn | None, use_secret: bool, progress: Callable[[int], None] | None) -> Divergence | None:
    # the log itself: 1..n without gaps, starting with `created`
    for i, e in enumerate(entries, 1):
        if e.id != i:
            return Divergence("log", entry=i, detail=f"log entry {i} is missing (the next one is {e.file})")
    if not entries or entries[0].kind != "created":
        return Divergence("log", entry=1, detail="the log does not start with a `created` entry")
    at = game.state_file_entry()
    if at is not None and at > entries[-1].id:
        return Divergence("log", entry=at, file=STATE, detail=f"state.yaml follows entry {at}, but the log ends at "
                          f"entry {entries[-1].id}: entries were deleted (restore them, or `pbem rebuild-state "
                          f"{game.id}` if they are lost)", expected=at, got=entries[-1].id)
    created = entries[0]
    if start is None and created.get("start") == ENGINE_START and _same_rules_core(created, game):
        start = new_game_state    # the engine's start, by the pbem and the data that made it: compared always (cheap)
    sd = created.get("state")
    if not isinstance(sd, dict):
        return Divergence("start", entry=1, file=created.file, detail="the created entry has no start position")
    if state_hash(sd) != created.get("state_hash"):
        return Divergence("start", entry=1, file=created.file, detail="the start position does not match its hash",
                          expected=created.get("state_hash"), got=state_hash(sd))
    if created.get("ruleset") not in (None, game.ruleset_id):
        return Divergence("start", entry=1, file=created.file,
                          detail=f"game.yaml's ruleset is {game.ruleset_id}; the game was created with {created.get('ruleset')}",
                          expected=created.get("ruleset"), got=game.ruleset_id)
    if created.get("dice_commitment") not in (None, game.commitment):
        return Divergence("secret", entry=1, file=created.file,
                          detail="game.yaml's dice commitment is not the one published at creation",
                          expected=created.get("dice_commitment"), got=game.commitment)
    try:
        state = GameState.from_dict(sd)
        ruleset = game.ruleset()
        if created.get("position") is not None:
            # a game moved over mid-game: its start is the typed-in position, read again from its text
            div = _typed_in_position(game, created, sd, ruleset, "the logged start position", "start")
            if div is not None:
                return div
        elif start is not None:
            fresh = start(ruleset, game.id).to_dict()
            if canonical(fresh) != canonical(state.to_dict()):
                return Divergence("start", entry=1, file=created.file,
                                  detail="the logged start position is not the ruleset's start position",
                                  diff=dict_diff(state.to_dict(), fresh))
    except (PbemError, ValueError, TypeError) as e:
        return Divergence("error", entry=1, file=created.file, detail=f"cannot read the start: {e}")

    if created.get("position") is not None:
        report.notes.append(f"the game started from a typed-in position ({created.get('start')}), round {state.round}")
    made_by = created.get("pbem")
    if made_by and made_by != __version__:
        # the rules core may have changed since: a divergence may be a fix, not a forgery
        report.notes.append(f"this game was played with pbem {made_by}; replayed with pbem {__version__}")
    if created.get("data_version") not in (None, ruleset.data_version):
        report.notes.append(f"ruleset data version {created.get('data_version')} at creation, "
                            f"{ruleset.data_version} now")
    for e in entries:
        if e.kind == "moderator" and e.get("action") == "reveal" and e.get("secret"):
            try:
                revealed = bytes.fromhex(str(e["secret"]))
            except ValueError:
                revealed = None
            if revealed is None or commitment(revealed) != game.commitment:
                return Divergence("secret", entry=e.id, file=e.file,
                                  detail="the revealed secret does not match the commitment")
            if game.revealed_secret() not in (None, revealed):
                return Divergence("secret", entry=e.id, file=e.file,
                                  detail="game.yaml's revealed secret is not the one this entry revealed")
    if game.revealed_secret() is not None and not any(e.kind == "moderator" and e.get("action") == "reveal"
                                                      for e in entries):
        # pbem reveal logs the secret before it writes game.yaml: a revealed game has the entry
        return Divergence("secret", file="game.yaml", detail="game.yaml has the secret revealed, but the log has "
                          "no reveal entry (deleted?)")
    secret, source = _secret_for_replay(game, entries) if use_secret else (None, None)
    if secret is not None and commitment(secret) != game.commitment:
        return Divergence("secret", detail=f"the dice secret ({source}) does not match the commitment",
                          expected=game.commitment, got=commitment(secret))
    report.dice_mode = "secret" if secret is not None else "recorded"
    if secret is not None and source == "the local secret file":
        report.notes.append("the secret is not revealed yet; the local secret file was used")
    if progress:
        progress(1)

    # the one walk of the log (pbem.log.walk), every turn played, a voided one too (its dice were
    # mailed); this loop checks each entry before the walk takes it and each step after
    walk = LogWalk(game.id, lambda: ruleset, entries, after=1, state=state, secret=secret, adjudicate=adjudicate,
                   voided="play", check_hash=False)
    orders_by_id: dict[int, LogEntry] = {}
    last_id = 1
    last_change = 1                       # the last entry that changed the position
    current_hash = created.get("state_hash")
    hash_before: dict[int, Any] = {}      # turn entry -> hash of the position before it (rollbacks)
    rollbacks = 0                         # so far: the generation of the dice labels (store.turns)
    for e in entries[1:]:
        last_id = e.id
        if e.kind == "orders":
            orders_by_id[e.id] = e
        elif e.kind == "moderator":
            div = _moderator_position(game, e, ruleset, hash_before)
            if div is not None:
                return div
            walk.take(e)                  # a position it sets (checked above) becomes the walk's
            if "state" in e:
                current_hash, last_change = e.get("state_hash"), e.id
            if e.get("action") == "rollback":
                rollbacks += 1
        elif e.kind == "turn":
            hash_before[e.id] = current_hash
            div = _turn_header(e, walk.state, rollbacks) or _turn_inputs(e, orders_by_id, report)
            if div is not None:
                return div
            div = _replay_turn(e, walk, report)
            if div is not None:
                return div
            current_hash, last_change = e.get("state_hash"), e.id
            report.steps += 1
        if progress:
            progress(1)
    state = walk.state

    # the saved position
    try:
        raw = load_plain(game.path / STATE, game.label(STATE))
    except SaveError as err:
        report.notes.append(f"state.yaml not checked: {err}")
        return None
    # entries after the last change of position (orders, reveal, pause ...) leave state.yaml as it is
    at = raw.get("entry") if isinstance(raw, dict) else None
    if not isinstance(at, int) or isinstance(at, bool) or not last_change <= at <= last_id:
        report.notes.append(f"state.yaml follows entry {at if at is not None else '?'}, the position last "
                            f"changed at entry {last_change}: not compared (pbem re-derives it on the next run)")
        return None
    saved = raw.get("state")
    if not isinstance(saved, dict) or state_hash(saved) != state_hash(state):
        return Divergence("final", file=STATE, detail="state.yaml is not the position the log leads to",
                          diff=dict_diff(saved if isinstance(saved, dict) else {}, state.to_dict()))
    if raw.get("state_hash") != state_hash(saved):
        return Divergence("final", file=STATE, detail="state.yaml's state_hash does not match its state",
                          expected=raw.get("state_hash"), got=state_hash(saved))
    return None


def _turn_header(e: LogEntry, state: GameState, rollbacks: int) -> Divergence | None:
    """A turn entry's own account of where it stands: the round of the position it was played from,
    and the dice generation (the rollbacks before it, pbem.store.turns.dice_generation): a turn
    copied from before a rollback would otherwise roll the voided turn's dice again."""
    base = _base(e)
    if e.get("round") != state.round:
        return Divergence("state", detail=f"the entry says round {e.get('round')}, the position is in round {state.round}",
                          expected=state.round, got=e.get("round"), **base)
    if (e.get("dice_generation") or 0) != rollbacks:
        return Divergence("dice", detail=f"the entry's dice generation is {e.get('dice_generation') or 0}; "
                          f"the log has {rollbacks} rollback(s) before it", expected=rollbacks,
                          got=e.get("dice_generation") or 0, **base)
    return None


def _same_rules_core(created: LogEntry, game: Game) -> bool:
    """Whether the game was created by this pbem with this ruleset data (then its start is today's)."""
    try:
        return created.get("pbem") == __version__ and created.get("data_version") == game.ruleset().data_version
    except PbemError:
        return False


def _moderator_position(game: Game, e: LogEntry, ruleset: Any, hash_before: dict[int, Any]) -> Divergence | None:
    """A moderator entry may set the position only when its action is one that does (FORMAT.md: a
    rollback, a typed-in position), and that position is checked like every other: a rollback's is
    the one before the turn it goes back to, a typed-in one is the position its text reads as; both
    match their hash. Any other entry carrying a position (or a hash of one) is a forgery."""
    action = e.get("action")
    carries = "state" in e or "state_hash" in e
    where = {"entry": e.id, "file": e.file}
    if action not in POSITION_ACTIONS:
        if carries:
            return Divergence("state", detail=f"a moderator `{action}` entry carries a position: only "
                              f"{' and '.join(POSITION_ACTIONS)} entries set one", **where)
        return None
    d = e.get("state")
    if not isinstance(d, dict):
        return Divergence("state", detail=f"the moderator's {action} has no position", **where)
    if state_hash(d) != e.get("state_hash"):
        return Divergence("state", detail="the moderator's position does not match its hash",
                          expected=e.get("state_hash"), got=state_hash(d), **where)
    if action == "rollback":
        to = e.get("to_entry")
        if not isinstance(to, int) or isinstance(to, bool) or to not in hash_before:
            return Divergence("state", detail=f"the rollback goes back before entry {to}, which is not a turn", **where)
        if hash_before[to] != e.get("state_hash"):
            return Divergence("state", detail=f"the rollback's position is not the one before entry {to}",
                              expected=hash_before[to], got=e.get("state_hash"), **where)
        return None
    return _typed_in_position(game, e, d, ruleset, f"the moderator's position ({e.get('file') or 'typed in'})")


def _typed_in_position(game: Game, e: LogEntry, d: dict, ruleset: Any, what: str,
                       kind: str = "state") -> Divergence | None:
    """The position of an entry made from a typed-in position file is the one its text (`position`,
    kept in the entry) reads as (pbem.position.file.read_position)."""
    text = e.get("position")
    where = {"entry": e.id, "file": e.file}
    if not isinstance(text, str):
        return Divergence(kind, detail=f"{what}: the entry does not keep the text it was read from", **where)
    try:
        fresh = read_position(text, label=f"{e.file}: position", ruleset=ruleset, game=game.id).state.to_dict()
    except PbemError as err:
        return Divergence(kind, detail=f"{what}: its text is not a valid position: {err}", **where)
    if canonical(fresh) != canonical(GameState.from_dict(d).to_dict()):
        return Divergence(kind, detail=f"{what} is not the typed-in position it was made from",
                          diff=dict_diff(d, fresh), **where)
    return None


def _base(e: LogEntry) -> dict[str, Any]:
    return {"entry": e.id, "file": e.file, "round": e.get("round"), "nation": e.get("nation"),
            "step": e.get("step", "nation")}


def _turn_inputs(e: LogEntry, orders_by_id: dict[int, LogEntry], report: ReplayReport) -> Divergence | None:
    """A turn entry's inputs: the rules it was played by, the orders it used as they were received."""
    base = _base(e)

    # 0. the rules it was played by are game.yaml's (ruleset and overrides); a turn entry of a game
    #    that kept them (every turn after the first that has `rules`) must keep them
    rules = e.get("rules")
    if rules is not None or report.rules_kept:
        if rules != report.rules:
            return Divergence("rules", detail="this turn was played by other rules than game.yaml's "
                              "(its ruleset or overrides were changed since)" if rules is not None else
                              "this turn entry does not say which rules it was played by (the earlier ones do)",
                              expected=rules, got=report.rules, **base)
        report.rules_kept = True

    # 1. the orders used are the orders received
    for nation, o in (e.get("orders") or {}).items():
        used = list((o or {}).get("entries") or [])
        hashes = list((o or {}).get("entries_sha256") or [])
        for i, ref in enumerate(used):
            src = orders_by_id.get(ref) if isinstance(ref, int) else None
            if src is None or src.get("nation") != nation:
                return Divergence("orders", label=nation, detail=f"the orders of {nation} cite entry {ref}, "
                                  f"which is not an earlier orders entry for {nation}", **base)
            if i < len(hashes) and orders_text_hash(src) != hashes[i]:
                return Divergence("orders", label=nation, detail=f"{src.file} was changed after this turn used it",
                                  expected=hashes[i], got=orders_text_hash(src), **base)
        ref = (o or {}).get("entry")
        if ref is None:
            continue
        src = orders_by_id.get(ref)
        if src is None:
            return Divergence("orders", label=nation, detail=f"the orders of {nation} cite entry {ref}, "
                              "which is not an earlier orders entry", **base)
        if src.get("nation") != nation:
            return Divergence("orders", label=nation, detail=f"entry {ref} holds orders for {src.get('nation')}, "
                              f"the turn uses them for {nation}", **base)
        if (src.get("text") or "") != ((o or {}).get("text") or ""):
            return Divergence("orders", label=nation, detail=f"the orders of {nation} differ from {src.file} as received",
                              expected=src.get("text") or "", got=(o or {}).get("text") or "",
                              diff=_text_diff(src.get("text") or "", (o or {}).get("text") or ""), **base)

    return None


def _replay_turn(e: LogEntry, walk: LogWalk, report: ReplayReport) -> Divergence | None:
    """Re-adjudicate a turn entry (the walk's step, with the game's dice) and compare its outcome."""
    base = _base(e)
    # 2. adjudicate with the game's dice (the walk hands its position over: not used again)
    logged = logged_dice(e)
    try:
        step = walk.take(e)
    except StepFailed as err:   # a tampered log can make the engine fail anywhere; report, never crash
        if isinstance(err.cause, MissingDie):
            return Divergence("dice", label=err.cause.label, detail="the replay needs a die the log does not have",
                              **base)
        return Divergence("error", detail=f"adjudication failed: {type(err.cause).__name__}: {err.cause}", **base)
    assert step is not None
    new_state, got_events, rolled = step.after, step.events, step.rolled

    # 3. events: one canonical text each side (equal in a good log); when they differ, one by one
    #    (the most readable difference comes first). A log written by pbem holds the events as the
    #    engine makes them (keys in the same order): when both sides encode to the same bytes as they
    #    stand, types included, their canonical texts are the same too, and only one is made.
    logged_events = e.get("events") or []
    logged_text = canonical_json(logged_events)
    if not _same_bytes(logged_events, got_events) and canonical_json(got_events) != logged_text:
        logged = canonical(logged_events)
        got = canonical(got_events)
        for i in range(max(len(logged), len(got))):
            x = logged[i] if i < len(logged) else None
            y = got[i] if i < len(got) else None
            if x is None or y is None or canonical_json(x) != canonical_json(y):
                detail = ("the replay has fewer events" if y is None else
                          "the replay has more events" if x is None else "events differ")
                return Divergence("event", index=i, expected=x, got=y, detail=detail,
                                  diff=dict_diff(x, y) if x is not None and y is not None else [], **base)
    if e.get("events_hash") != sha256_text(logged_text):
        return Divergence("events", detail="the logged events do not match their hash",
                          expected=e.get("events_hash"), got=sha256_text(logged_text), **base)

    # 4. dice: every die rolled was logged with that face, and every logged die was rolled
    for label, face in rolled.items():
        report.checked_dice += 1
        if label not in logged:
            return Divergence("dice", label=label, detail="a die the replay rolled is not in the log", got=face, **base)
        if logged[label] != face:
            return Divergence("dice", label=label, detail="the logged face differs from the recomputed one",
                              expected=logged[label], got=face, **base)
    extra = [lb for lb in logged if lb not in rolled]
    if extra:
        return Divergence("dice", label=extra[0], detail="the log has a die the replay did not roll",
                          expected=logged[extra[0]], **base)

    # 5. the position after the step
    h = state_hash(new_state)
    if e.get("state_hash") != h:
        return Divergence("state", detail="the position after this step differs from the logged one",
                          expected=e.get("state_hash"), got=h, **base)
    return None


def _same_bytes(a: Any, b: Any) -> bool:
    """Whether two plain values encode to the same JSON, key order and types as they stand (False
    when either cannot be encoded so: the canonical comparison decides)."""
    try:
        return orjson.dumps(a) == orjson.dumps(b)
    except TypeError:
        return False


def _text_diff(a: str, b: str) -> list[str]:
    return [ln for ln in difflib.unified_diff(a.splitlines(), b.splitlines(), "received", "used", lineterm="", n=0)
            if not ln.startswith(("---", "+++", "@@"))]
