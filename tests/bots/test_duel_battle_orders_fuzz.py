"""Duel's battle orders under the bots' games (issue 29, [Allocation Of Hits And Elimination Of Armies],
[Retreat Options]): every nation's mail also carries HITS ALL: FORT FIRST, SETTLERS FIRST and, for each
battle its moves start, a VICTORS retreat of one army back to where it came from; the games are played
with every invariant checked, and no such line is refused by the parser, the validator or the engine."""

from __future__ import annotations

from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.orders.parser import parse_message
from pbem.rules.orders import Move


class WithBattleOrders:
    """A bot whose mails get the Duel battle lines added."""

    def __init__(self, bot) -> None:
        self.bot = bot

    def orders(self, rs, state, nation):
        text = self.bot.orders(rs, state, nation)
        msg = parse_message(text, rs, default_nation=nation)
        extra = ["HITS ALL: FORT FIRST, SETTLERS FIRST"]
        battles: set[str] = set()
        for o in (o for s in msg.sections for o in s.orders if isinstance(o, Move)):
            dest, origin = o.path[-1], o.path[-2]
            enemy = any(n != nation for n in state.nations_in(dest))
            if rs.is_land(dest) and rs.is_land(origin) and enemy and dest not in battles and o.kind != "leader":
                battles.add(dest)
                extra.append(f"VICTORS {rs.display(dest)}: RETREAT 1 TO {rs.display(origin)}")
        return text.rstrip("\n") + "\n" + "\n".join(extra) + "\n"


def test_bot_games_with_hits_and_victors_orders_keep_every_invariant():
    rs = load("duel")
    victors = 0
    for seed in (3, 4, 5):
        g = BotGame(rs, seed, check=True, keep_texts=True)
        g.bots = {n: WithBattleOrders(b) for n, b in g.bots.items()}
        g.play()
        assert not g.violations, g.violations[:5]
        assert not g.stats.parse_problems and not g.stats.dropped and not g.stats.engine_problems, (
            g.stats.parse_problems[:3], g.stats.dropped[:3], g.stats.engine_problems[:3])
        victors += sum(t.count("VICTORS") for t in g.texts)
    assert victors > 0
