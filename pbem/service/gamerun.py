"""What `pbem run` did in one game (a light module: the idle path of the job reports with it)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class GameRun:
    game: str
    steps: list[str] = field(default_factory=list)
    waiting_for: list[str] = field(default_factory=list)
    mails: int = 0
    note: str = ""
