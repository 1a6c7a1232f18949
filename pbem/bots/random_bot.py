"""RandomBot: random LEGAL orders of every kind (placements, leaders, moves, stays, attack and battle
orders, raiders, disbanding, submission, votes, standing DEFEND/LOSSES orders). A fuzzer for the engine
and, since it writes its text in varied forms, for the parser."""

from __future__ import annotations

import random

from pbem.bots.base import Bot, MovePlanner, battle_areas, play_population, population_view
from pbem.rules import legal
from pbem.rules.orders import (
    Attack,
    Battles,
    ClearDefend,
    Defend,
    Disband,
    Losses,
    Move,
    Order,
    Settle,
    Stay,
    Submit,
    Withdraw,
)
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState


class RandomBot(Bot):
    kind = "random"
    mixed_forms = True

    def __init__(self, seed: int | str = 0, friends: tuple[str, ...] = (), *, activity: float = 0.6) -> None:
        super().__init__(seed, friends)
        self.activity = activity          # chance that a group moves

    def vote(self, rs: Ruleset, state: GameState, nation: str) -> str:
        rng = self.rng(state, nation, "vote")
        return rng.choice(sorted(set(legal.vote_options(rs, state)) | {nation}))

    def turn(self, rs: Ruleset, state: GameState, nation: str) -> list[Order]:
        rng = self.rng(state, nation, "turn")
        view = population_view(rs, state, nation)
        self.population_orders(rs, view, lambda cands, placed: rng.choice(cands),
                               lambda leader, places, board: rng.choice(places))
        board = play_population(rs, view)
        subs = legal.submission_options(rs, board, nation)
        if subs and rng.random() < 0.3:
            view.orders.append(Submit(rng.choice(subs)))
            board = play_population(rs, view)
        orders: list[Order] = list(view.orders)

        planner = MovePlanner(rs, board, nation, 1)
        planner.repair_stacking()
        self._moves(rs, rng, planner, set())
        for area, st in sorted(board.areas.items()):
            s = st.get(nation)
            left = planner.available(area, "armies")
            if rs.is_sea(area) and s and left and rng.random() < 0.3:
                planner.try_stay(Stay(rng.randint(1, left), area))
        orders += planner.moves + planner.stays
        after = planner.after()
        fights = battle_areas(rs, after, nation)
        orders += self._battle_orders(rs, rng, after, nation, fights)

        if view.cycles == 2:
            # the second movement (7.3): only groups away from this cycle's battles, which the bot cannot
            # foresee; an order the battles make impossible is dropped by the engine (counted apart)
            avoid = set(fights)
            planner2 = MovePlanner(rs, after, nation, 2)
            self._moves(rs, rng, planner2, avoid)
            orders += planner2.moves
            after2 = planner2.after()
            orders += self._battle_orders(rs, rng, after2, nation,
                                          [a for a in battle_areas(rs, after2, nation) if a not in avoid])
        own_land = sorted(a for a, st in board.areas.items() if rs.is_land(a) and nation in st)
        if own_land and rng.random() < 0.3 and "DISBAND" in rs.rules.order_forms:
            orders.append(Disband(tuple(rng.sample(own_land, rng.randint(1, len(own_land))))))
        orders += self._standing(rs, rng, board, nation, own_land)
        return orders

    def _moves(self, rs: Ruleset, rng: random.Random, planner: MovePlanner, avoid: set[str]) -> None:
        groups = legal.movement_options(rs, planner.board, planner.nation)
        rng.shuffle(groups)
        moved: dict[str, list[Move]] = {}
        leaders = [g for g in groups if g.kind == "leader"]
        for g in groups:
            if g.kind == "leader" or g.start in avoid:
                continue
            dests = sorted(d for d, p in g.destinations.items() if not avoid.intersection(p))
            if not dests or rng.random() > self.activity:
                continue
            for _ in range(3):
                left = planner.available(g.start, g.kind)
                if not left:
                    break
                d = rng.choice(dests)
                m = Move(rng.randint(1, left), g.kind, g.destinations[d])
                if planner.try_add(m):
                    moved.setdefault(g.start, []).append(m)
                    break
                if m.count > 1 and planner.try_add(Move(1, g.kind, m.path)):
                    moved.setdefault(g.start, []).append(Move(1, g.kind, m.path))
                    break
        for g in leaders:
            if g.start in avoid or rng.random() > 0.5:
                continue
            escort = [m for m in moved.get(g.start, []) if m.kind == "armies"]
            if escort and rng.random() < 0.6:
                m = rng.choice(escort)
                if planner.try_add(Move(1, "leader", m.path, leader=g.leader)):
                    continue
            dests = sorted(d for d, p in g.destinations.items() if not avoid.intersection(p))
            if dests:
                planner.try_add(Move(1, "leader", g.destinations[rng.choice(dests)], leader=g.leader))

    def _battle_orders(self, rs: Ruleset, rng: random.Random, after: GameState, nation: str,
                       fights: list[str]) -> list[Order]:
        out: list[Order] = []
        if len(fights) > 1 and rng.random() < 0.4:
            out.append(Battles(tuple(rng.sample(fights, len(fights)))))
        for a in fights:
            r = rng.random()
            if r < 0.2:
                out.append(Attack(a, "retreat_if_outnumbered"))
            elif r < 0.4:
                out.append(Attack(a, "retreat_after", rng.randint(1, 3)))
            elif r < 0.5:
                out.append(Attack(a, "fight"))
        for a, st in sorted(after.areas.items()):
            s = st.get(nation)
            if rs.is_land(a) and s and s.raiders:
                r = rng.random()
                if r < 0.25:
                    out.append(Settle(a))
                elif r < 0.6:
                    out.append(Withdraw(a))
        return out

    def _standing(self, rs: Ruleset, rng: random.Random, board: GameState, nation: str,
                  own_land: list[str]) -> list[Order]:
        out: list[Order] = []
        if not own_land:
            return out
        for _ in range(rng.randint(0, 2)):
            a = rng.choice(own_land)
            r = rng.random()
            if r < 0.5:
                targets = sorted(rs.areas[a].land | rs.areas[a].straits)
                out.append(Defend(a, hold=False, to=rng.choice(targets), if_outnumbered=rng.random() < 0.5,
                                  after_round=rng.choice([None, 1, 2])))
            elif r < 0.65:
                out.append(Defend(rng.choice([a, "all"]), hold=True))
            elif r < 0.8:
                out.append(ClearDefend(a))
            elif "LOSSES" in rs.rules.order_forms:   # a family may allocate its losses otherwise (no LOSSES)
                out.append(Losses(rng.choice([a, "all"]), rng.choice(["raiders_first", "settlers_first", "cavalry_last"])))
        return out
