"""`pbem status`: where a game stands — round, nation to move, orders in, what is owed (the decision
machine, pbem.rules.decisions.pending), deadline, scores."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pbem.i18n import DEFAULT as DEFAULT_LANGUAGE
from pbem.i18n import player_language
from pbem.rules.decisions import pending
from pbem.rules.flow import votes_owed
from pbem.service.book import build_book
from pbem.store.game import Game
from pbem.store.turns import pending_orders

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# status alone, measured): pbem.service.away +13, pbem.store.clock +7.


@dataclass
class GameStatus:
    game: str
    ruleset: str
    round: int
    to_move: str | None                  # the nation whose turn it is (None: between rounds / over)
    to_move_player: str | None
    finished: bool
    paused: bool
    orders_in: list[dict[str, Any]] = field(default_factory=list)   # {nation, player, entry, received}
    owed: list[str] = field(default_factory=list)        # the decisions owed now (pbem.rules.decisions.pending)
    deadline: str | None = None          # ISO UTC, None when paused or finished
    hours_left: float | None = None
    nation_vp: dict[str, int] = field(default_factory=dict)
    player_vp: dict[str, int] = field(default_factory=dict)
    last_entry: int = 0
    languages: dict[str, str] = field(default_factory=dict)   # player -> language, the non-English ones
    away: list[str] = field(default_factory=list)        # absences not over yet (AWAY by mail)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def text(self, ruleset: Any = None) -> str:
        name = (lambda n: ruleset.display(n)) if ruleset is not None else (lambda n: n)
        lines = [f"game {self.game} ({self.ruleset}), round {self.round}"
                 + (" — finished" if self.finished else "") + (" — PAUSED" if self.paused else "")]
        if not self.finished:
            who = f" ({self.to_move_player})" if self.to_move_player else ""
            lines.append(f"to move: {name(self.to_move) + who if self.to_move else 'start of the round'}")
            if self.orders_in:
                lines.append("orders in: " + ", ".join(
                    f"{name(o['nation'])} ({o['player'] or '?'}, {o['received']})" for o in self.orders_in))
            else:
                lines.append("orders in: none")
            lines.append("waiting for: " + ("; ".join(self.owed) if self.owed else "nothing (the next step can be played)"))
            left = ""
            if self.hours_left is not None:
                left = f" (in {self.hours_left:.0f} h)" if self.hours_left >= 0 else f" (passed {-self.hours_left:.0f} h ago)"
            lines.append(f"deadline: {self.deadline + left if self.deadline else ('none (paused)' if self.paused else 'none')}")
            if self.away:
                lines.append("absences: " + "; ".join(self.away))
        lines.append("scores:")
        for p, vp in sorted(self.player_vp.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {p}: {vp}")
        nations = [f"{name(n)} {v}" for n, v in sorted(self.nation_vp.items(), key=lambda kv: (-kv[1], kv[0])) if v]
        if nations:
            lines.append("  nations: " + ", ".join(nations))
        if self.languages:
            lines.append("languages: " + ", ".join(f"{p} {lang}" for p, lang in sorted(self.languages.items()))
                         + " (the others English)")
        return "\n".join(lines)


def game_status(game: Game, *, now: datetime | None = None) -> GameStatus:
    state = game.state
    entries = game.entries()
    waiting = pending_orders(game, entries)
    to_move = None if state.finished else state.next_nation
    status = GameStatus(game.id, game.ruleset_id, state.round, to_move, game.player_of(to_move) if to_move else None,
                        state.finished, game.paused, last_entry=entries[-1].id if entries else 0)
    if not state.finished:
        rs = game.ruleset()
        wait = str((game.settings.get("options") or {}).get("decisions", "default")) == "wait"
        status.owed = [d.describe(rs, state.round) for d in pending(rs, state, build_book(rs, entries),
                                                                     wait_for_defenders=wait)]
    status.orders_in = [{"nation": n, "player": e.get("player"), "entry": e.id, "received": e.get("received") or e.time}
                        for n, e in sorted(waiting.items(), key=lambda kv: kv[1].id)]
    if not state.finished and not game.paused:
        from pbem.store.clock import current_deadline

        due = current_deadline(game, entries, vote=votes_owed(game.ruleset(), state)).due
        status.deadline = due.strftime("%Y-%m-%dT%H:%M:%SZ")
        status.hours_left = round(((due - (now or datetime.now(UTC))).total_seconds()) / 3600, 1)
    from pbem.service.away import away_lines

    status.away = away_lines(game, now or datetime.now(UTC))
    status.nation_vp = {n: int(state.vp.get(n, 0)) for n in game.ruleset().order_of_play}
    for p in game.players():
        status.player_vp[str(p["name"])] = sum(int(state.vp.get(n, 0)) for n in p.get("nations") or [])
        if player_language(p) != DEFAULT_LANGUAGE:
            status.languages[str(p["name"])] = player_language(p)
    return status
