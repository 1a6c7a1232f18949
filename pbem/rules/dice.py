"""Dice come in as a parameter (rules are pure): a seeded, verifiable source in play, a script in cases.

Every die has a label naming game, round, nation turn, battle area, movement cycle, battle round,
the side that rolls and the die index. HmacDice derives each face from HMAC-SHA256(secret, label), so
once the secret is revealed anyone can recompute every roll (`pbem verify-dice`).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, init=False)
class RollRequest:
    """All the dice one side rolls in one round of one battle (rule 8.0: one per army, fort, burh)."""

    game: str
    round: int
    nation: str        # whose nation turn
    area: str          # battle area
    cycle: int         # movement cycle (2 in the second half of a major invasion, 7.3)
    battle_round: int
    side: str          # the nation rolling
    count: int
    targets: tuple[str, ...] = ()   # kinds of opposing pieces this side may aim at (for scripted splits)

    def __init__(self, game: str, round: int, nation: str, area: str, cycle: int, battle_round: int, side: str,
                 count: int, targets: tuple[str, ...] = ()) -> None:
        # the dataclass's parameters, but the fields written straight into the instance's dict: the
        # frozen dataclass __init__ sets each through object.__setattr__ (a third of the cost; ~900 a game)
        d = self.__dict__
        d["game"], d["round"], d["nation"], d["area"], d["cycle"] = game, round, nation, area, cycle
        d["battle_round"], d["side"], d["count"], d["targets"] = battle_round, side, count, targets

    def label(self, index: int) -> str:
        c = f"c{self.cycle}/" if self.cycle != 1 else ""
        return f"{self.game}/r{self.round}/{self.nation}/{self.area}/{c}b{self.battle_round}/{self.side}/d{index}"


Faces = list[int] | dict[str, list[int]]


class Dice(Protocol):
    def faces(self, req: RollRequest) -> Faces:
        """The raw faces (1-6) for the request, one per die; or a split by target kind."""


def hmac_face(secret: bytes, label: str) -> int:
    """One die: 1 + (first 8 bytes of HMAC-SHA256(secret, label) as a big-endian integer) mod 6."""
    return _face(hmac.new(secret, digestmod=hashlib.sha256), label)


def _face(keyed: hmac.HMAC, label: str) -> int:
    """hmac_face with the HMAC already keyed: a copy of it takes the label (keying it again for
    every die cost twice as much)."""
    mac = keyed.copy()
    mac.update(label.encode("utf-8"))
    return 1 + int.from_bytes(mac.digest()[:8], "big") % 6


def commitment(secret: bytes) -> str:
    """SHA-256 of the secret, published before play so the secret cannot be swapped later."""
    return hashlib.sha256(secret).hexdigest()


class HmacDice:
    """Seeded, verifiable dice; records every roll it makes (label -> face)."""

    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self.rolled: dict[str, int] = {}
        self._keyed = hmac.new(secret, digestmod=hashlib.sha256)

    def faces(self, req: RollRequest) -> Faces:
        out = []
        for i in range(req.count):
            label = req.label(i)
            face = _face(self._keyed, label)
            self.rolled[label] = face
            out.append(face)
        return out


class RecordedDice:
    """Replays faces logged in events (when the secret is still sealed)."""

    def __init__(self, faces_by_label: dict[str, int]) -> None:
        self.table = dict(faces_by_label)

    def faces(self, req: RollRequest) -> Faces:
        out = []
        for i in range(req.count):
            label = req.label(i)
            if label not in self.table:
                raise LookupError(f"no logged die for {label}")
            out.append(self.table[label])
        return out


class ScriptedDice:
    """Conformance-case dice: per battle area, a list of rounds, each {side: faces or {vs-kind: faces}}.

    Rounds of the same area are consumed in order across the whole case (a second battle in the same
    area in a major invasion continues the list). `unused()` reports rounds the case listed but the flow
    never reached.
    """

    def __init__(self, script: dict[str, list[dict[str, Faces]]]) -> None:
        self.script = {area: list(rounds) for area, rounds in script.items()}
        self.pos: dict[str, int] = {area: 0 for area in script}
        self.index: dict[tuple[str, int, int], int] = {}   # (area, cycle, battle round) -> script round

    def faces(self, req: RollRequest) -> Faces:
        rounds = self.script.get(req.area)
        if rounds is None:
            raise ScriptError(f"the case gives no dice for a battle in {req.area}")
        key = (req.area, req.cycle, req.battle_round)
        if key not in self.index:
            self.index[key] = self.pos[req.area]
            self.pos[req.area] += 1
        idx = self.index[key]
        if idx >= len(rounds):
            raise ScriptError(f"the battle in {req.area} needs round {req.battle_round}, which the case does not list")
        side_faces = rounds[idx].get(req.side)
        if side_faces is None:
            raise ScriptError(f"round {idx + 1} in {req.area} gives no dice for {req.side}")
        n = len(side_faces) if isinstance(side_faces, list) else sum(len(v) for v in side_faces.values())
        if n != req.count:
            raise ScriptError(f"round {idx + 1} in {req.area}: {req.side} rolls {req.count} dice, the case gives {n}")
        return side_faces

    def unused(self) -> list[str]:
        return [f"{area}: {len(rounds) - self.pos[area]} round(s) not used"
                for area, rounds in self.script.items() if self.pos[area] < len(rounds)]


class ScriptError(Exception):
    """The scripted dice do not fit the flow of the battle (a case error, not a rules error)."""


class NeutralDice:
    """The dice of validation (validation = adjudication): orders are checked by playing the whole
    turn, but no die is rolled. A battle with neutral dice is announced and left unfought (both sides
    stay, nobody dies), so every later phase still sees the units the orders speak of."""

    neutral = True

    def faces(self, req: RollRequest) -> Faces:  # pragma: no cover - the battle code never asks
        raise ScriptError(f"validation rolled a die ({req.label(0)})")


def is_neutral(dice: object) -> bool:
    return bool(getattr(dice, "neutral", False))
