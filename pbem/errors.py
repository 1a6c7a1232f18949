"""Typed errors. Anything a user can cause is a PbemError; anything else is a bug.

The CLI prints a PbemError as a one-paragraph message and exits 1.
"""

from __future__ import annotations

from dataclasses import dataclass


class PbemError(Exception):
    """Base class for every error a user (player, moderator, file) can cause."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class DataError(PbemError):
    """A data file (ruleset YAML, save, case file) is damaged; names the file and the key."""

    def __init__(self, file: str, key: str, message: str) -> None:
        super().__init__(f"{file}: {key}: {message}")
        self.file = file
        self.key = key


class GameError(PbemError):
    """A game cannot be found, loaded, locked or changed as asked."""


class GameBusy(GameError):
    """Another pbem process holds the game's lock: try again later (the mail waits, the game is skipped)."""


class MailError(PbemError):
    """A mail transport failed (connection, login, folder)."""


# The error kinds of ORDERS.md, in the order the spec lists them.
ORDER_ERROR_KINDS = (
    "syntax", "unknown-name", "ambiguous-name", "not-your-unit", "not-adjacent", "too-far",
    "hiland-stop", "enemy-stop", "sea-move", "landing-restriction", "strait", "stacking",
    "not-now", "auth",
)


@dataclass(frozen=True)
class OrderProblem:
    """One bad order line: its kind (ORDERS.md), 1-based line, the quoted text, what is wrong, what is legal."""

    kind: str
    line: int
    text: str
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        assert self.kind in ORDER_ERROR_KINDS, self.kind

    def describe(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        quoted = f'"{self.text}": ' if self.text else ""
        tail = f" {self.hint}" if self.hint else ""
        message = self.message if self.message.endswith((".", "!", "?")) else self.message + "."
        return f"{where}{quoted}{self.kind}: {message}{tail}"


class OrderError(PbemError):
    """Orders that cannot be carried out; carries every problem found, not just the first."""

    def __init__(self, problems: list[OrderProblem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(p.describe() for p in self.problems) or "bad orders")

    @property
    def kind(self) -> str:
        return self.problems[0].kind if self.problems else "syntax"

    @property
    def line(self) -> int:
        return self.problems[0].line if self.problems else 0


class CaseError(PbemError):
    """A conformance case file is malformed (names file and key)."""


class PositionError(PbemError):
    """A position file (pbem new --position) is malformed or impossible (names file and line)."""
