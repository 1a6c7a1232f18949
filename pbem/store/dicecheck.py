"""The dice secret: reveal it (`pbem reveal`) and recompute every logged die with it (`pbem verify-dice`).

Each turn entry keeps its dice as {label: face}. With the revealed secret anyone can recompute
face = rules.dice.hmac_face(secret, label) and check it against the log, and check the secret
against the commitment published when the game was created.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pbem.errors import GameError
from pbem.rules.dice import commitment, hmac_face
from pbem.store.game import Game, LogEntry

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# dicecheck alone, measured): pbem.store.clock +7.


@dataclass
class DiceMismatch:
    entry: int
    file: str
    label: str
    logged: object
    recomputed: int | None

    def describe(self) -> str:
        if self.recomputed is None:
            return f"{self.file}: die {self.label}: {self.logged!r} is not a die face"
        return f"{self.file}: die {self.label}: logged {self.logged}, recomputed {self.recomputed}"


@dataclass
class DiceReport:
    game: str
    secret_source: str
    checked: int = 0
    entries: int = 0
    mismatch: DiceMismatch | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.mismatch is None and not self.problems

    def summary(self) -> str:
        lines = [f"game {self.game}: secret from {self.secret_source}; "
                 f"{self.checked} dice in {self.entries} turn entries checked"]
        lines += [f"problem: {p}" for p in self.problems]
        if self.mismatch:
            lines.append(f"first mismatch: {self.mismatch.describe()}")
        if self.ok:
            lines.append("every logged die matches the secret")
        return "\n".join(lines)


def _find_secret(game: Game, entries: list[LogEntry], allow_local: bool) -> tuple[bytes, str]:
    rev = game.revealed_secret()
    if rev is not None:
        return rev, "game.yaml (dice.revealed_secret)"
    for e in entries:
        if e.kind == "moderator" and e.get("action") == "reveal" and e.get("secret"):
            try:
                return bytes.fromhex(str(e["secret"])), e.file
            except ValueError as err:
                raise GameError(f"{game.label(e.file)}: secret: not hex") from err
    if allow_local:
        local = game.local_secret()
        if local is not None:
            return local, "the local secret file (not revealed yet)"
    raise GameError(f"game {game.id}: the dice secret is still sealed",
                    hint="reveal it with `pbem reveal` when the game is over")


def verify_dice(game: Game, *, allow_local: bool = True) -> DiceReport:
    """Recompute every logged die; stop at the first mismatch."""
    entries = game.entries(cached=False)
    secret, source = _find_secret(game, entries, allow_local)
    report = DiceReport(game.id, source)
    if commitment(secret) != game.commitment:
        report.problems.append(f"the secret does not match the commitment in game.yaml ({game.commitment})")
    created = next((e for e in entries if e.kind == "created"), None)
    published = created.get("dice_commitment") if created else None
    if published is not None and published != commitment(secret):
        report.problems.append(f"the secret does not match the commitment published at creation ({published})")
    if report.problems:
        return report
    for e in entries:
        if e.kind != "turn":
            continue
        report.entries += 1
        generation = int(e.get("dice_generation") or 0)   # after a rollback: <game>~gN/ (issue 18)
        prefix = f"{game.id}~g{generation}/" if generation else f"{game.id}/"
        for label, face in (e.get("dice") or {}).items():
            label = str(label)
            if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= 6:
                report.mismatch = DiceMismatch(e.id, e.file, label, face, None)
                return report
            report.checked += 1
            if not label.startswith(prefix):
                report.problems.append(f"{e.file}: die {label} is not labelled for game {game.id}")
                return report
            want = hmac_face(secret, label)
            if want != face:
                report.mismatch = DiceMismatch(e.id, e.file, label, face, want)
                return report
    return report


def reveal_secret(game: Game, *, who: str | None = None, why: str = "game over: dice secret revealed",
                  force: bool = False, now: datetime | None = None) -> tuple[str, int | None]:
    """Write the secret into game.yaml (dice.revealed_secret) and the log (a moderator entry
    `action: reveal`). Returns (secret hex, entry id; None when it was revealed before).

    Refused before the game is finished unless `force` (players could predict every later die).
    `now`: the entry's time (`pbem run --now`; None: the wall clock)."""
    with game.lock():
        rev = game.revealed_secret()
        if rev is not None:
            return rev.hex(), None
        secret = game.local_secret()
        if secret is None:
            raise GameError(f"game {game.id}: no secret to reveal ({game.label('secret')} is missing)")
        if not game.state.finished and not force:
            raise GameError(f"game {game.id} is not finished: revealing the secret now lets everyone "
                            "predict every later die", hint="use --force if that is what you want")
        earlier = [e for e in game.entries("moderator") if e.get("action") == "reveal"]
        if earlier:   # logged before, but game.yaml was not updated (a crash in between)
            eid = None
        else:
            who = who or str((game.settings.get("moderator") or {}).get("address") or "moderator")
            from pbem.store.clock import moderate_at

            eid = moderate_at(game, now, "reveal", who, why, secret=secret.hex())
        game.settings["dice"]["revealed_secret"] = secret.hex()
        game.save_settings()
        return secret.hex(), eid
