"""Helpers for the game-store tests: a tiny position, a fake adjudicator, playing rounds with it."""

from __future__ import annotations

from pathlib import Path

from pbem.rules.dice import RollRequest
from pbem.rules.state import GameState, Stack
from pbem.service.play import play_turn
from pbem.store.game import Game, create_game

SECRET = bytes(range(32))
TIME = "2026-01-01T00:00:00Z"


def tiny_state(game_id: str = "t1") -> GameState:
    st = GameState(ruleset="classic", game=game_id)
    st.areas = {
        "english_channel": {"romans": Stack(armies=6)},
        "kent": {"belgae": Stack(armies=2)},
        "sussex": {"belgae": Stack(armies=1)},
        "devon": {"welsh": Stack(armies=2)},
    }
    return st


def fake_adjudicate(ruleset, state: GameState, entry, dice):
    """A deterministic stand-in for the engine. Order lines (per nation's text):
    `move N FROM TO`, `attack AREA` (one round: every army rolls, 5+ kills), `score N`.
    Steps start_round / end_round move the turn marker."""
    step = entry.get("step", "nation")
    events: list[dict] = []
    movers = [n for n in ruleset.order_of_play if state.units_of(n)]
    if step == "start_round":
        state.next_nation = movers[0] if movers else None
        return state, [{"type": "round_started", "round": state.round}]
    if step == "end_round":
        state.round += 1
        state.next_nation = None
        return state, [{"type": "round_ended", "round": state.round - 1}]
    nation = entry["nation"]
    text = ((entry.get("orders") or {}).get(nation) or {}).get("text") or ""
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].upper() in ("NATION", "GAME", "TOKEN"):
            continue
        if words[0] == "move":
            n, src, dst = int(words[1]), words[2], words[3]
            n = min(n, state.stack(src, nation).armies)
            state.stack(src, nation).armies -= n
            state.stack(dst, nation).armies += n
            events.append({"type": "moved", "nation": nation, "count": n, "path": [src, dst]})
        elif words[0] == "attack":
            area = words[1]
            for enemy in [e for e in state.nations_in(area) if e != nation]:
                faces = {}
                for side in (nation, enemy):
                    req = RollRequest(state.game, state.round, nation, area, 1, 1, side, state.stack(area, side).armies)
                    faces[side] = list(dice.faces(req))
                losses = {}
                for side, other in ((nation, enemy), (enemy, nation)):
                    hits = sum(1 for f in faces[side] if f >= 5)
                    killed = min(hits, state.stack(area, other).armies)
                    state.stack(area, other).armies -= killed
                    losses[other] = killed
                    if killed:
                        state.score(side, killed, f"killed {killed} in {area}", "kill", nation)
                events.append({"type": "battle", "area": area, "attacker": nation, "defender": enemy,
                               "faces": faces, "losses": losses})
        elif words[0] == "score":
            state.score(nation, int(words[1]), "fake points", "fake", nation)
            events.append({"type": "scored", "nation": nation, "points": int(words[1])})
    state.prune()
    later = movers[movers.index(nation) + 1:] if nation in movers else []
    state.next_nation = later[0] if later else None
    return state, events


ORDERS = {
    "romans": "NATION Romans\nmove 4 english_channel kent\nattack kent\nscore 2\n",
    "belgae": "move 1 sussex kent\nattack kent\n",
    "welsh": "score 1\n",
}


def play_round(game: Game, orders: dict[str, str] | None = None, *, time: str = TIME) -> None:
    orders = ORDERS if orders is None else orders
    play_turn(game, step="start_round", adjudicate=fake_adjudicate, time=time)
    while game.state.next_nation:
        nation = game.state.next_nation
        if nation in orders:
            game.record_orders(nation, game.player_of(nation), orders[nation], mail_id=f"<{nation}@mail>",
                               received=time)
        play_turn(game, adjudicate=fake_adjudicate, time=time)
    play_turn(game, step="end_round", adjudicate=fake_adjudicate, time=time)


def new_game(games_dir: Path, game_id: str = "t1", **kw) -> Game:
    kw.setdefault("state", tiny_state(game_id))
    kw.setdefault("secret", SECRET)
    kw.setdefault("time", TIME)
    return create_game(games_dir, game_id, **kw)
