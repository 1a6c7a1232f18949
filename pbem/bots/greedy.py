"""GreedyBot: plays for its victory-point card, one turn at a time.

* values every land area: hold points of the coming scoring occasion (14.2; more as it nears),
  capture points still to be taken this turn (14.3), a little for simply occupying (population 10.1);
* attacks a stack where the armies it can bring outnumber the defenders (two to one in a hiland or
  against Romans, where only sixes hit), and goes for the kill points of its card;
* occupies empty valuable areas with one army each, keeps one army in every area it holds, lands
  invaders, sends raiders at weak coastal targets and lets them withdraw (the default, 7.13);
* places new armies on its most valuable or most threatened areas, moves leaders with the largest
  force, keeps stacking legal (every move set is checked by movement.plan_cycle), disbands from its
  least valuable areas first, and votes for the nation of its player with the most votes.
"""

from __future__ import annotations

from collections import defaultdict

from pbem.bots.base import (
    Bot,
    MovePlanner,
    battle_areas,
    enemy_strength,
    play_population,
    population_view,
)
from pbem.rules import legal
from pbem.rules.context import Kill
from pbem.rules.orders import Attack, Battles, Disband, Move, Order, Withdraw
from pbem.rules.ruleset import Ruleset
from pbem.rules.scoring import kill_points
from pbem.rules.state import GameState


def next_hold_round(rs: Ruleset, rnd: int) -> int | None:
    later = [r for r in rs.scoring["hold_rounds"] if r >= rnd]
    return min(later) if later else None


def area_values(rs: Ruleset, state: GameState, nation: str) -> dict[str, float]:
    """What each land area is worth to the nation now (its VP card, and population)."""
    card = rs.vp.get(nation)
    values = {a: (0.25 if rs.hiland(a) else 0.5) for a in rs.areas}
    if card is None:
        return values
    h = next_hold_round(rs, state.round)
    if h is not None:
        occ = rs.hold_occasion(h)
        weight = 1.0 if h == state.round else max(0.3, 1.0 - 0.25 * (h - state.round))
        for a, pts in card.hold.get(occ, {}).items():
            if a in values:
                values[a] += weight * pts
    taken = state.captured.get(nation, set())
    for rounds, table in card.capture:
        if rounds and state.round not in rounds:
            continue
        for a, pts in table.items():
            if a in values and a not in taken:
                values[a] += pts
    return values


class GreedyBot(Bot):
    kind = "greedy"

    def vote(self, rs: Ruleset, state: GameState, nation: str) -> str:
        votes = legal.vote_options(rs, state)
        team = [nation, *[f for f in self.friends if f != nation]]
        return max(team, key=lambda n: (votes.get(n, 0), n == nation))

    def turn(self, rs: Ruleset, state: GameState, nation: str) -> list[Order]:
        values = area_values(rs, state, nation)
        view = population_view(rs, state, nation)

        def threat(a: str) -> int:
            return sum(enemy_strength(view.base, nb, nation) for nb in rs.areas[a].land)

        def choose_area(cands: list[str], placed: list[str]) -> str:
            return max(cands, key=lambda a: (threat(a) > 0, values.get(a, 0.0) + 0.5 * threat(a), a))

        def choose_leader(leader: str, places: list[str], board: GameState) -> str:
            return max(places, key=lambda a: (board.areas[a][nation].units, rs.is_land(a), a))

        self.population_orders(rs, view, choose_area, choose_leader)
        board = play_population(rs, view)
        orders: list[Order] = list(view.orders)

        planner = MovePlanner(rs, board, nation, 1)
        planner.repair_stacking()
        self._plan(rs, planner, values, set())
        orders += planner.moves
        after = planner.after()
        fights = battle_areas(rs, after, nation)
        orders += self._battle_orders(rs, after, nation, fights)
        if view.cycles == 2:
            avoid = set(fights)
            planner2 = MovePlanner(rs, after, nation, 2)
            self._plan(rs, planner2, values, avoid)
            orders += planner2.moves
            after2 = planner2.after()
            orders += self._battle_orders(rs, after2, nation,
                                          [a for a in battle_areas(rs, after2, nation) if a not in avoid])
        own = [a for a, st in after.areas.items() if rs.is_land(a) and nation in st and st[nation].units]
        if len(own) > 1 and "DISBAND" in rs.rules.order_forms:   # a family with no overpopulation has no DISBAND
            orders.append(Disband(tuple(sorted(own, key=lambda a: (values.get(a, 0.0), a)))))
        return orders

    # --- movement -----------------------------------------------------------------------------
    def _plan(self, rs: Ruleset, planner: MovePlanner, values: dict[str, float], avoid: set[str]) -> None:
        board, nation = planner.board, planner.nation
        groups = [g for g in legal.movement_options(rs, board, nation) if g.start not in avoid]
        units = [g for g in groups if g.kind != "leader"]
        keep: dict[tuple[str, str], int] = {}
        for g in units:
            land = rs.is_land(g.start)
            # one army stays to hold a land area (the first group of the area keeps it)
            held = land and not any(k[0] == g.start and v for k, v in keep.items())
            keep[(g.start, g.kind)] = 1 if held else 0

        def spare(g) -> int:
            return max(0, planner.available(g.start, g.kind) - keep[(g.start, g.kind)])

        reach: dict[str, list] = defaultdict(list)
        for g in units:
            for d, path in g.destinations.items():
                if rs.is_land(d) and not avoid.intersection(path):
                    reach[d].append((g, path))

        def target_score(d: str) -> tuple[float, int]:
            e = enemy_strength(board, d, nation)
            mine = board.get(d, nation)
            if mine and mine.units and not e:
                return 0.0, 0
            need = 0
            gain = values.get(d, 0.0)
            if e:
                others = [n for n, s in board.areas.get(d, {}).items() if n != nation and s.fighters]
                hard = rs.hiland(d) or rs.role("empire") in others
                need = 2 * e if hard else e + 1
                need -= mine.units if mine else 0
                for victim in others:
                    kp = kill_points(rs, nation, Kill(nation, victim, "armies", d), board.round)
                    gain += 0.5 * kp * board.areas[d][victim].units
                gain -= 0.3 * e
            return gain, max(need, 1)

        targets = []
        for d in reach:
            gain, need = target_score(d)
            if gain > 0.2:
                targets.append((gain / need, gain, need, d))
        targets.sort(reverse=True)
        moved_from: dict[str, list[Move]] = defaultdict(list)
        for _ratio, _gain, need, d in targets:
            options = sorted(reach[d], key=lambda gp: (len(gp[1]), -spare(gp[0]), gp[1]))
            moves: list[Move] = []
            got = 0
            for g, path in options:
                n = min(spare(g) - sum(m.count for m in moves if m.path[0] == g.start and m.kind == g.kind),
                        need - got)
                if n <= 0:
                    continue
                moves.append(Move(n, g.kind, path))
                got += n
                if got >= need:
                    break
            if got < need or not moves:
                continue
            if planner.try_add(*moves):
                for m in moves:
                    moved_from[m.path[0]].append(m)
            elif need > 1 and len(moves) > 1:
                continue
        # invaders and raiders still at sea land on the best place they can take
        for g in units:
            if not rs.is_sea(g.start) or not spare(g):
                continue
            best = sorted(((values.get(d, 0.0) - 2 * enemy_strength(board, d, nation), d)
                           for d in g.destinations if rs.is_land(d)), reverse=True)
            for score, d in best[:4]:
                if score <= 0 and board.get(g.start, nation).raiders:
                    break     # raiders wait at sea rather than throw themselves away
                m = Move(spare(g), g.kind, g.destinations[d])
                if planner.try_add(m) or (m.count > 1 and planner.try_add(Move(1, g.kind, m.path))):
                    moved_from[g.start].append(m)
                    break
        # leaders go with the largest force leaving their area
        for g in groups:
            if g.kind != "leader":
                continue
            out = sorted(moved_from.get(g.start, []), key=lambda m: (-m.count, m.path))
            if not out:
                continue
            staying = planner.available(g.start, "armies") + planner.available(g.start, "cavalry")
            if staying >= out[0].count and rs.is_land(g.start):
                continue
            for m in out:
                if planner.try_add(Move(1, "leader", m.path, leader=g.leader)):
                    break

    def _battle_orders(self, rs: Ruleset, after: GameState, nation: str, fights: list[str]) -> list[Order]:
        out: list[Order] = []
        odds = {}
        for a in fights:
            mine = after.areas[a][nation].units
            e = enemy_strength(after, a, nation)
            odds[a] = mine / max(e, 1)
        if len(fights) > 1:
            out.append(Battles(tuple(sorted(fights, key=lambda a: (-odds[a], a)))))
        for a in fights:
            if odds[a] < 2:
                out.append(Attack(a, "retreat_if_outnumbered"))
        for a, st in sorted(after.areas.items()):
            s = st.get(nation)
            if rs.is_land(a) and s and s.raiders:
                out.append(Withdraw(a))
        return out
