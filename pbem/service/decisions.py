"""Decisions owed by other players during a nation's turn (issue 11; ORDERS.md "Standing orders").

A defender's retreat (rule 8.2) is answered by its standing DEFEND orders. Where a defender has none
for an area about to be attacked, the game's `options.decisions` says what happens:
  `default` (the default): the defaults apply at once (defenders hold);
  `wait`: before the turn is adjudicated, the defender's player gets a prompt listing the legal answers
          (DEFEND A: HOLD, DEFEND A: RETREAT TO B for each legal B) and the game waits for a DEFEND
          order until `deadlines.decision_hours` after the prompt, then the default applies.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.orders.parser import parse_message
from pbem.rules.legal import retreat_options
from pbem.rules.orders import Defend, Move
from pbem.store.clock import hours, mark_sent, sent_at
from pbem.store.game import Game


def mode(game: Game) -> str:
    return str((game.settings.get("options") or {}).get("decisions", "default"))


def attacked(rs, state, nation: str, orders_text: str) -> list[tuple[str, str, list[str]]]:
    """(defender, area, attacker origins) for every area the nation's first movement would attack."""
    sec = parse_message(orders_text, rs, default_nation=nation).section(nation)
    if sec is None:
        return []
    out: dict[tuple[str, str], list[str]] = {}
    for m in sec.of(Move):
        if m.cycle != 1 or m.kind == "leader" or not rs.is_land(m.path[-1]):
            continue
        for other in state.occupants(m.path[-1]):
            if other != nation:
                out.setdefault((other, m.path[-1]), []).append(m.path[-2])
    return [(d, a, origins) for (d, a), origins in out.items()]


def has_defend(rs, text: str, nation: str, area: str) -> bool:
    sec = parse_message(text or "", rs, default_nation=nation).section(nation)
    return bool(sec) and any(o.area in (area, "all") for o in sec.of(Defend))


def owed(game: Game, rs, state, nation: str, waiting: dict[str, str]) -> list[tuple[str, str, list[str]]]:
    """The defenders' decisions still open before `nation`'s turn can be adjudicated (wait mode)."""
    if mode(game) != "wait":
        return []
    saved = state.standing
    out = []
    for defender, area, origins in attacked(rs, state, nation, waiting.get(nation, "")):
        kept = saved.get(defender, {})
        if f"defend:{area}" in kept or "defend:all" in kept or has_defend(rs, waiting.get(defender, ""), defender, area):
            continue
        out.append((defender, area, origins))
    return out


def key(state, nation: str) -> str:
    return f"r{state.round}:{nation}:defence"


def due(game: Game, state, nation: str, now: datetime) -> bool:
    """The decision deadline: `decision_hours` after the first prompt went out."""
    first = sent_at(game, f"decision:{key(state, nation)}")
    return first is not None and now >= first + timedelta(hours=hours(game, "decision_hours"))


def prompt_text(game: Game, rs, state, nation: str, items: list[tuple[str, str, list[str]]]) -> dict[str, str]:
    """Per player, the prompt listing the legal answers for each attacked area of theirs."""
    by_player: dict[str, list[str]] = {}
    for defender, area, origins in items:
        player = game.player_of(defender)
        if not player:
            continue
        targets = retreat_options(rs, state, nation, area, defender, origins)
        lines = [f"The {rs.display(nation)} are about to attack your {rs.display(defender)} in {rs.display(area)}.",
                 "Answer with one of:", f"  NATION {rs.display(defender)}", f"  DEFEND {rs.display(area)}: HOLD"]
        lines += [f"  DEFEND {rs.display(area)}: RETREAT TO {rs.display(t)} [IF OUTNUMBERED] [AFTER ROUND K]" for t in targets]
        if not targets:
            lines.append("  (no legal retreat from there now: rule 8.2)")
        by_player.setdefault(player, []).append("\n".join(lines))
    return {p: "\n\n".join(parts) for p, parts in by_player.items()}


def record_prompt(game: Game, state, nation: str, now: datetime) -> None:
    k = f"decision:{key(state, nation)}"
    if sent_at(game, k) is None:
        mark_sent(game, k, now)
