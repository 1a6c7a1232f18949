"""Play whole games between bots through the store (create_game, record_orders, play_turn), as
pbem/bots/bench.py archive_games does, for any ruleset: each step, every nation the decision machine
says owes orders writes them (its bot's text), they are logged, and the step is played.

    python tools/make_old_games.py FOLDER RULESET FIRST_SEED COUNT [LAST_ROUND]

(LAST_ROUND: stop before the start of the round after it, the game still running.)

tests/data/old_games/ holds games made so with the pbem of before the ruleset data versions (commit
14ffa81, data version 1 of both rulesets), each exported with `pbem export GAME --to X.tar.gz`
(running/: with --include-secret, so it can be played on): tests/store/test_data_versions.py replays
them with today's code (a game keeps the rules it was created with)."""

import sys
from pathlib import Path

from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.rules.book import OrdersBook
from pbem.rules.decisions import pending
from pbem.service.play import play_turn
from pbem.store.game import create_game

folder = Path(sys.argv[1])
ruleset_id, seed, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
last_round = int(sys.argv[5]) if len(sys.argv) > 5 else 16
rs = load(ruleset_id)
for i in range(n):
    bots = BotGame(rs, seed + i)
    gid = f"old-{ruleset_id}-{seed + i}" + (f"-r{last_round}" if last_round < 16 else "")
    game = create_game(folder, gid, ruleset=ruleset_id, players=4, secret=bots.secret)
    state = game.state
    steps = 0
    while not state.finished and state.round <= last_round:
        orders = {}
        for d in pending(rs, state, OrdersBook()):
            text = bots.bots[d.nation].orders(rs, state, d.nation)
            orders[d.nation] = game.record_orders(d.nation, game.player_of(d.nation), text)
        if state.next_nation is None:
            play_turn(game, step="start_round", orders=orders)
        else:
            play_turn(game, state.next_nation, orders=orders)
        state = game.state
        steps += 1
    print(gid, state.round, state.finished, steps, flush=True)
