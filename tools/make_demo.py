"""Build the bundled demo game games/demo: four players, a few nation-turns played by the greedy bots
through the real mail path (order mails in the game's inbox folder, `pbem run`), then order mails for
the next nations left waiting in the inbox, so that the README's main command has work to do.

    python tools/make_demo.py [--games games] [--turns 8] [--waiting 3]

The dice secret is fixed (it is a demo: anyone may recompute its dice), deadlines are ten years long so
the demo never runs into the no-orders rule, and the outbox is emptied at the end.
"""

from __future__ import annotations

import argparse
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pbem.bots import bot_orders
from pbem.service.job import run_job
from pbem.store.game import Game, create_game

PLAYERS = [("alice", "alice@example.org"), ("bob", "bob@example.org"), ("carol", "carol@example.org"),
           ("dave", "dave@example.org")]
START = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
TEN_YEARS = 87600


def order_mail(game: Game, nation: str, n: int, when: datetime) -> bytes:
    rs = game.ruleset()
    player = game.player_of(nation)
    p = game.player(player)
    text = bot_orders(rs, game.state, nation, kind="greedy", seed=n)
    body = f"GAME {game.id}\nTOKEN {p['token']}\n{text}"
    return (f"From: {player} <{p['address']}>\nTo: pbem-{game.id}@localhost\nSubject: [{game.id}] orders for the "
            f"{rs.display(nation)}\nMessage-ID: <demo-{n}@example.org>\nDate: {when.strftime('%a, %d %b %Y %H:%M:%S +0000')}\n"
            f"\n{body}").encode()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", default="games")
    ap.add_argument("--turns", type=int, default=8, help="nation-turns played before the waiting orders")
    ap.add_argument("--waiting", type=int, default=3, help="nations whose orders are left in the inbox")
    args = ap.parse_args()
    games = Path(args.games)
    target = games / "demo"
    if target.exists():
        shutil.rmtree(target)
    game = create_game(games, "demo", players=4, player_specs=PLAYERS, secret=b"demo dice secret: not for real games",
                       time=START.isoformat())
    game.settings["deadlines"]["turn_hours"] = TEN_YEARS
    game.settings["deadlines"]["decision_hours"] = TEN_YEARS
    game.settings["deadlines"].yaml_add_eol_comment("ten years: the demo never reaches a deadline", "turn_hours")
    game.save_settings()
    inbox = target / "inbox"
    inbox.mkdir(exist_ok=True)
    now = START
    played = 0
    n = 0
    while played < args.turns:
        game = Game.open(target)
        state = game.state
        if state.next_nation is None:
            now += timedelta(minutes=10)
            run_job(games, now=now, only=["demo"], render_map=False)
            continue
        n += 1
        now += timedelta(hours=3)
        (inbox / f"{n:03d}.eml").write_bytes(order_mail(game, state.next_nation, n, now))
        run_job(games, now=now, only=["demo"], render_map=False)
        played += 1
    # orders for the next nations, waiting for `pbem run games`: write them against a scratch copy
    # that plays ahead, so each is legal where its turn will start
    scratch_root = games / ".demo-scratch"
    shutil.rmtree(scratch_root, ignore_errors=True)
    shutil.copytree(games / "demo", scratch_root / "demo")
    waiting: list[tuple[str, bytes]] = []
    for _ in range(args.waiting):
        g = Game.open(scratch_root / "demo")
        while g.state.next_nation is None:
            now += timedelta(minutes=10)
            run_job(scratch_root, now=now, render_map=False)
            g = Game.open(scratch_root / "demo")
        n += 1
        now += timedelta(hours=3)
        raw = order_mail(g, g.state.next_nation, n, now)
        waiting.append((f"{n:03d}.eml", raw))
        (scratch_root / "demo" / "inbox" / f"{n:03d}.eml").write_bytes(raw)
        run_job(scratch_root, now=now, render_map=False)
    shutil.rmtree(scratch_root)
    for name, raw in waiting:
        (inbox / name).write_bytes(raw)
    for sub in ("outbox",):
        shutil.rmtree(target / sub, ignore_errors=True)
        (target / sub).mkdir()
    (target / "outbox" / ".keep").write_text("")
    (target / "notices.json").unlink(missing_ok=True)
    print(f"games/demo: {played} nation-turns played, {len(waiting)} order mails waiting in games/demo/inbox")


if __name__ == "__main__":
    main()
