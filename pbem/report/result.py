"""The result of a finished game as the players are told it (the game-over mail, the site's index):
who won, by the ruleset's own rule of who wins together (`pbem.rules.scoring.winning_groups`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem import i18n
from pbem.i18n import _
from pbem.rules.ruleset import Ruleset
from pbem.rules.scoring import group_totals, winning_groups


def result_line(rs: Ruleset, vp: Mapping[str, int], holdings: Mapping[str, Sequence[str]],
                lang: str = i18n.DEFAULT) -> str:
    """"Winner: ann", "Winners (partners): ann, bob" or "Tie: ann, bob" (partners tied joined by +)."""
    best = winning_groups(rs, vp, holdings)
    if len(best) == 1 and len(best[0]) == 1:
        return i18n.tr(lang, _("Winner: %(player)s"), player=best[0][0])
    if len(best) == 1:
        return i18n.tr(lang, _("Winners (partners): %(players)s"), players=", ".join(best[0]))
    return i18n.tr(lang, _("Tie: %(players)s"), players=", ".join(" + ".join(g) for g in best))


def partner_totals(rs: Ruleset, vp: Mapping[str, int], holdings: Mapping[str, Sequence[str]]) -> list[str]:
    """One line per group of partners ("ann + bob: 60"), their points added ([Goal] of a partners game);
    nothing when every player plays alone."""
    return [f"{' + '.join(g)}: {total}" for g, total in group_totals(rs, vp, holdings).items() if len(g) > 1]
