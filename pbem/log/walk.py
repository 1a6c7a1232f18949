"""One walk along a game's log: the position after every entry, each turn re-adjudicated by the engine.

`pbem replay` (pbem.store.replay: every turn checked against what it logged), the position re-derived
when state.yaml is behind or damaged (pbem.store.recover), a moderator's rollback and `pbem render
--before` (pbem.service.moderator.position_before) and the archive site's turns (pbem.site.history)
all walk the log here, so they agree on three things:

- **positions**: the `created` entry and a moderator entry of a POSITION_ACTIONS action (a rollback, a
  typed-in position) set the position, checked against its own `state_hash`; a `turn` entry moves it on
  (pbem.log.entries);
- **dice**: with the dice secret, HmacDice on it (replay: the logged faces are then checked); without
  it, the faces the turn entry logged (LoggedDice: a die the log does not have is a MissingDie, never
  an engine's KeyError). The rollback generation of the labels is the entry's own `dice_generation`
  (pbem.log.adjudicate.GenerationDice), so a turn played again after a rollback reads its own dice;
- **voided turns**: a turn a later rollback among the walked entries undid (entries.voided_turns) is
  no longer part of the game: skipped (`voided="skip"`, the position comes back with the rollback
  entry), or re-adjudicated all the same (`voided="play"`: replay checks every die a mail showed).

Each step must reach the `state_hash` its entry logged (`check_hash`, on unless the caller compares
itself, as replay does to say which event or die differs first); a step that does not, or that the
engine cannot play, is a GameError saying which entry (StepFailed, StepDiverged).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pbem.errors import GameError
from pbem.log.adjudicate import RecordingDice, resolve_adjudicator
from pbem.log.entries import sets_position, voided_turns
from pbem.rules.dice import Dice, Faces, HmacDice, RecordedDice, RollRequest
from pbem.rules.state import GameState
from pbem.store.hashing import state_hash


class MissingDie(Exception):
    def __init__(self, label: str) -> None:
        super().__init__(f"no logged die for {label}")
        self.label = label


class LoggedDice(RecordedDice):
    """The faces a turn entry logged, by label; a label it does not have is a MissingDie (an exception
    of its own: an engine's KeyError must not pass for a missing die)."""

    def faces(self, req: RollRequest) -> Faces:
        for i in range(req.count):
            if req.label(i) not in self.table:
                raise MissingDie(req.label(i))
        return super().faces(req)


def logged_dice(entry: Any) -> dict[str, Any]:
    """The dice a turn entry logged, {label: face}, the faces as logged (replay compares them as such)."""
    return {str(k): v for k, v in (entry.get("dice") or {}).items()}


class StepFailed(GameError):
    """The engine could not play a turn entry from the walked position (`cause`: what it raised)."""

    def __init__(self, game_id: str, entry: Any, cause: BaseException) -> None:
        super().__init__(f"game {game_id}: log entry {entry.id} cannot be re-adjudicated: "
                         f"{type(cause).__name__}: {cause}",
                         hint=f"`pbem replay {game_id}` shows where the log went wrong")
        self.entry, self.cause = entry, cause


class StepDiverged(GameError):
    """A position of the log is not the one its entry's `state_hash` says."""

    def __init__(self, game_id: str, entry: Any, what: str) -> None:
        super().__init__(f"game {game_id}: log entry {entry.id} {what}",
                         hint=f"`pbem replay {game_id}` shows where the log went wrong")
        self.entry = entry


@dataclass
class Step:
    """One turn entry walked: the positions around it, the events and the dice of its re-adjudication."""

    entry: Any                      # the turn entry (pbem.store.game.LogEntry)
    before: GameState | None        # the position before it (only when the walk keeps it: keep_before)
    after: GameState                # the position after it (the walk's own: left as it is only with keep_before)
    events: list[dict[str, Any]]    # the events, as the log keeps them
    rolled: dict[str, int]          # every die the engine asked for, by label, with its face
    voided: bool = False            # a later rollback undid it (walked only with voided="play")


class LogWalk:
    """Walk `entries` (a game's log, in order) after entry `after`, from `state`, the position after it
    (None: the walk starts with the log's `created` entry).

    Iterating yields a Step per turn entry walked; `take(entry)` walks one entry (for a caller that
    checks the other entries as it goes: replay). While and after walking, `.state` and `.last_id`
    are the position after the last entry walked. `ruleset` is called when a turn is first
    adjudicated (a walk through entries that only set positions loads no ruleset)."""

    def __init__(self, game_id: str, ruleset: Callable[[], Any], entries: list[Any], *, after: int = 0,
                 state: GameState | None = None, secret: bytes | None = None, adjudicate: Any = None,
                 voided: str = "skip", keep_before: bool = False, check_hash: bool = True) -> None:
        if voided not in ("skip", "play"):
            raise ValueError(f"voided must be 'skip' or 'play', not {voided!r}")
        self.game_id = game_id
        self.entries = entries
        self.voided = voided_turns(entries)
        self.play_voided = voided == "play"
        self.last_id = after
        self.state = state
        self.keep_before = keep_before
        self.check_hash = check_hash
        self._ruleset_of = ruleset
        self._ruleset: Any = None
        self._secret = secret
        self._adjudicate = resolve_adjudicator(adjudicate)

    def __iter__(self) -> Iterator[Step]:
        for e in self.entries:
            if e.id <= self.last_id:
                continue
            step = self.take(e)
            if step is not None:
                yield step

    def take(self, e: Any) -> Step | None:
        """Walk one entry: a position it sets becomes the walk's; a turn is adjudicated (unless voided
        and skipped) and its Step returned; any other entry leaves the position as it is."""
        step = None
        if sets_position(e.kind, e.data):     # the start, a rollback, a typed-in position
            d = e["state"]
            if self.check_hash and state_hash(d) != e.get("state_hash"):
                raise StepDiverged(self.game_id, e, "sets a position that does not match its state_hash")
            self.state = GameState.from_dict(d)
        elif e.kind == "turn" and (self.play_voided or e.id not in self.voided):
            step = self._play(e)
            self.state = step.after
        self.last_id = e.id
        return step

    def _play(self, e: Any) -> Step:
        if self.state is None:
            raise GameError(f"game {self.game_id}: the log has no start position")
        if self._ruleset is None:
            self._ruleset = self._ruleset_of()
        inner: Dice = HmacDice(self._secret) if self._secret is not None else LoggedDice(logged_dice(e))
        dice = RecordingDice(inner)
        # the adjudicator consumes the position it gets: to keep the one before (and every Step's
        # `after`, the next one's `before`), it gets a copy
        before = self.state if self.keep_before else None
        given = self.state.copy() if self.keep_before else self.state
        try:
            after, events = self._adjudicate(self._ruleset, given, e, dice)
        except Exception as err:  # noqa: BLE001 - a damaged log can make the engine fail anywhere: say where
            raise StepFailed(self.game_id, e, err) from err
        if self.check_hash and state_hash(after) != e.get("state_hash"):
            raise StepDiverged(self.game_id, e, "does not lead to the position it logged")
        return Step(e, before, after, list(events), dice.rolled, e.id in self.voided)


def position_after(game_id: str, ruleset: Callable[[], Any], entries: list[Any], upto: int) -> GameState:
    """The position after log entry `upto`, as the log stood then: from the last entry at or before it
    that sets a position, every turn after it re-adjudicated with the faces it logged. (No turn after
    that entry is voided by a rollback up to `upto`: a rollback sets a position itself.)"""
    upto_entries = [e for e in entries if e.id <= upto]
    base = next((i for i in range(len(upto_entries) - 1, -1, -1)
                 if sets_position(upto_entries[i].kind, upto_entries[i].data)), None)
    if base is None:
        raise GameError(f"game {game_id}: the log has no start position")
    walk = LogWalk(game_id, ruleset, upto_entries[base:])
    for _ in walk:
        pass
    assert walk.state is not None     # the first entry walked set it
    return walk.state
