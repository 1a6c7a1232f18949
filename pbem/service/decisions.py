"""Defenders' retreat decisions during a nation's turn (issue 11; ORDERS.md "Standing orders"): the
service side (mode, deadline, prompt). Which decisions are owed is `pbem.rules.decisions.pending`.

A defender's retreat (rule 8.2) is answered by its standing DEFEND orders. Where a defender has none
for an area about to be attacked, the game's `options.decisions` says what happens:
  `default` (the default): the defaults apply at once (defenders hold);
  `wait`: before the turn is adjudicated, the defender's player gets a prompt listing the legal answers
          (DEFEND A: HOLD, DEFEND A: RETREAT TO B for each legal B) and the game waits for a DEFEND
          order until `deadlines.decision_hours` after the prompt, then the default applies.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.rules.decisions import Decision
from pbem.store.clock import hours, mark_sent, sent_at
from pbem.store.game import Game


def mode(game: Game) -> str:
    return str((game.settings.get("options") or {}).get("decisions", "default"))


def key(state, nation: str) -> str:
    return f"r{state.round}:{nation}:defence"


def due(game: Game, state, nation: str, now: datetime) -> bool:
    """The decision deadline: `decision_hours` after the first prompt went out."""
    first = sent_at(game, f"decision:{key(state, nation)}")
    return first is not None and now >= first + timedelta(hours=hours(game, "decision_hours"))


def prompt_text(game: Game, rs, state, nation: str, items: list[Decision]) -> dict[str, str]:
    """Per player, the prompt listing the legal answers (`Decision.options`) for each attacked area, in
    the player's language (pbem.i18n; the answers with the names as that player writes them)."""
    from pbem import i18n
    from pbem.i18n import _

    by_player: dict[str, list[str]] = {}
    for d in items:
        defender, area, targets = d.nation, str(d.area), d.options
        player = game.player_of(defender)
        if not player:
            continue
        lang = i18n.player_language(game.player(player))

        def w(line: str) -> str:
            return i18n.order_line(lang, rs, line)    # noqa: B023 - used at once, in this iteration
        lines = [i18n.tr(lang, _("The %(attacker)s are about to attack your %(defender)s in %(area)s."),
                         attacker=i18n.name(lang, rs, nation), defender=i18n.name(lang, rs, defender),
                         area=i18n.name(lang, rs, area)),
                 i18n.tr(lang, _("Answer with one of:")), w(f"  NATION {rs.display(defender)}"),
                 w(f"  DEFEND {rs.display(area)}: HOLD")]
        lines += [w(f"  DEFEND {rs.display(area)}: RETREAT TO {rs.display(t)} [IF OUTNUMBERED] [AFTER ROUND K]")
                  for t in targets]
        if not targets:
            lines.append("  " + i18n.tr(lang, _("(no legal retreat from there now: rule 8.2)")))
        by_player.setdefault(player, []).append("\n".join(lines))
    return {p: "\n\n".join(parts) for p, parts in by_player.items()}


def record_prompt(game: Game, state, nation: str, now: datetime) -> None:
    k = f"decision:{key(state, nation)}"
    if sent_at(game, k) is None:
        mark_sent(game, k, now)
