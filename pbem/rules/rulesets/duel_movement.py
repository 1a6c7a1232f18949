"""The movement rules of the Duel Britannia family ([Phase III: Movement] of the Duel rulebook).

The generic movement (pbem.rules.movement) plays what the Duel text shares with it: two areas of
movement ([Phase III: Movement]), the stop on entering an area held by another nation's pieces, the
stacking limits at the end of movement and in retreats ([Stacking Limits], the one overstack: the
constants), a strait taking the whole move ([Straits]). `DuelMovement` answers the generic code's
hooks where Duel differs:

- [Difficult Terrain] "Armies must stop when they enter a difficult terrain area, regardless of who or
  what occupies it": every army, also one moving with a leader (Duel has no escort rule); a leader is no
  army (our reading: [Stacking Limits] counts "armies (not leaders or fortifications)") and need not stop;
- [Overruns] only through a clear terrain area: pieces move on through an area held by another nation
  when the pieces stopping there (the moving nation's, not counting leaders) are at least twice the
  defenders' pieces, fortifications counting (the generic two-to-one count: `Stack.fighters`); the
  overrun is automatic, no order names it, and the defenders stay to fight those that stopped;
- [Boats] the Viking nations (the aid's "boats all game": timeline.yaml `boats` of every round) may cross
  one sea as part of a move starting on land, the sea counting as one of the two areas (our reading of
  "as part of a move"); armies that attacked by boats retreat by boats to the land area they started
  from; attacked armies never retreat by boats (the generic defender retreat: to a bordering land area);
- [Sea Movement] no army in or through two seas in one turn, the sea it starts in included;
- [Raiding And Intruding] raiders go back to their sea after the battles "even sneaking past" enemies:
  straight to it, whatever lies between;
- [Straits] the Welsh may not use the straits to Ireland (ruleset.yaml duel.strait_barred).
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.errors import OrderProblem
from pbem.rules.context import MoveRecord, TurnContext
from pbem.rules.movement import PlannedMove
from pbem.rules.ruleset import Ruleset


def boat_move(rs: Ruleset, path: Sequence[str]) -> bool:
    """[Boats] — a move that starts on land and crosses a sea to land again."""
    return rs.is_land(path[0]) and rs.is_land(path[-1]) and any(rs.is_sea(p) for p in path[1:-1])


def barred_strait(rs: Ruleset, nation: str, path: Sequence[str]) -> tuple[str, str] | None:
    """[Straits] — the strait of `path` the nation may not cross (ruleset.yaml duel.strait_barred:
    nation -> the regions its straits may not lead to or from), None if none."""
    barred = rs.extras["duel_strait_barred"].get(nation, frozenset())
    if not barred:
        return None
    for a, b in zip(path, path[1:], strict=False):
        if rs.is_land(a) and rs.is_land(b) and rs.strait(a, b) and (
                rs.areas[a].region in barred or rs.areas[b].region in barred):
            return a, b
    return None


class DuelMovement:
    """The Duel family's answers to the generic movement's hooks (a part of DuelRules)."""

    def stops_in_hiland(self, rs: Ruleset, kind: str, escorted: bool) -> bool:
        """[Difficult Terrain] — every army stops on entering difficult terrain, one moving with a leader
        too; a leader need not (it is no army)."""
        return kind != "leader"

    def overrun_barred(self, ctx: TurnContext, area: str) -> str | None:
        """[Overruns] — "twice as many pieces ... as the defender(s) of a clear terrain area": no overrun
        through an area of difficult terrain."""
        rs = ctx.rs
        if rs.hiland(area):
            return (f"{rs.display(area)} is difficult terrain: pieces may move on through another nation's "
                    f"area only in clear terrain ([Overruns])")
        return None

    def attacker_retreat_area(self, ctx: TurnContext, group: MoveRecord) -> str:
        """[Boats] — "armies attacking via boats can retreat (to their origin) using the boats"; other
        attackers retreat to where they attacked from."""
        if boat_move(ctx.rs, group.path):
            return group.path[0]
        return group.came_from

    def raider_route(self, ctx: TurnContext, route: list[str]) -> list[str]:
        """[Raiding And Intruding] — raiders "can withdraw to their sea, even 'sneaking past' enemies to
        do so": straight back to it, fighting nowhere on the way."""
        return route[-1:]

    def movement_problems(self, ctx: TurnContext, planned: Sequence[PlannedMove]) -> list[OrderProblem]:
        """[Sea Movement] no army in or through two seas in one turn (the sea it starts in counting);
        [Straits] the Welsh may not use the straits to Ireland."""
        rs, nation = ctx.rs, ctx.nation
        out: list[OrderProblem] = []
        for p in planned:
            o = p.order
            if sum(rs.is_sea(x) for x in o.path) > 1:
                out.append(OrderProblem("sea-move", o.line, o.text,
                                        "no army may be in or move through two seas in one turn ([Sea Movement])"))
                continue
            strait = barred_strait(rs, nation, o.path)
            if strait is not None:
                a, b = strait
                out.append(OrderProblem("strait", o.line, o.text,
                                        f"the {rs.nations[nation].name} may not cross the strait between "
                                        f"{rs.display(a)} and {rs.display(b)} ([Straits])"))
        return out
