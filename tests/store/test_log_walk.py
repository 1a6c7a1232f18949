"""Issue 28 item 6 — one log walker (pbem.log.walk): `pbem replay` (store/replay.py), the position
re-derived from the log (store/recover.state_after), a moderator's rollback (service/moderator.
position_before) and the site's turns (site/history.LogWalk) agree on the position after every step
of an archived game to which the test adds two rollbacks and the turns played again after each (with
the dice of their rollback generation, store/turns.dice_generation).

The archived games (tests/data/archived_games) were played with the bots' dice secret of their seed
(pbem.bots.selfplay.game_secret) and exported sealed; the test gives the copy its secret back so it
can be played on, and keeps its first rounds only (the log as it stood then), so that every prefix
of the log can be walked again in a few seconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.bots.selfplay import game_secret
from pbem.log.walk import LogWalk as Walk
from pbem.log.walk import StepDiverged
from pbem.service import moderator
from pbem.service.play import play_turn
from pbem.site.history import LogWalk
from pbem.store.archive import import_game
from pbem.store.game import Game
from pbem.store.hashing import state_hash
from pbem.store.recover import rebuild_state, state_after
from pbem.store.replay import replay

ARCHIVED = Path(__file__).resolve().parents[1] / "data" / "archived_games"
KEEP_ROUNDS = 3


def _play_on(game: Game, voided: list, steps: int) -> list[int]:
    """Play `steps` steps from the game's position, each nation with the orders texts its voided turn
    had (the same orders, new dice); returns the turn entries logged."""
    out = []
    for _ in range(steps):
        state = game.state
        step, nation = ("start_round", None) if state.next_nation is None else ("nation", state.next_nation)
        was = next((e for e in voided if e.get("step", "nation") == step and e.get("nation") == nation), None)
        texts = {n: (o or {}).get("text") or "" for n, o in ((was.get("orders") if was else None) or {}).items()}
        out.append(play_turn(game, nation, step=step, orders=texts).id)
    return out


def _game_with_rollbacks(tmp_path: Path, name: str) -> Game:
    seed = int(name.split("-")[1])
    game = import_game(ARCHIVED / f"{name}.tar.gz", tmp_path / "games")
    cut = max(e.id for e in game.entries("turn") if e.get("round") <= KEEP_ROUNDS)
    for e in game.entries():
        if e.id > cut:
            (game.path / e.file).unlink()
    game = Game.open(game.path)
    rebuild_state(game)                                  # state.yaml: the position the kept log leads to
    (game.path / "secret").write_text(game_secret(seed).hex())
    game = Game.open(game.path)
    turns = [e for e in game.entries("turn") if e.get("nation")]
    first = turns[len(turns) // 2]                       # a nation's turn in the middle of the kept rounds
    moderator.rollback(game, "mod@x", "a mistake", first.id)
    game = Game.open(game.path)
    again = _play_on(game, [e for e in turns if e.id >= first.id], 5)
    moderator.rollback(game, "mod@x", "another", again[2])
    game = Game.open(game.path)
    voided = [game.entry(i) for i in again[2:]]
    _play_on(game, voided, 4)
    return Game.open(game.path)


def _expected(entries: list) -> dict[int, str]:
    """The hash of the position after each entry as the log records it (a turn's state_hash, a set
    position's hash, else the one before)."""
    out, h = {}, None
    for e in entries:
        if e.kind == "turn" or e.get("state_hash"):
            h = e.get("state_hash")
        out[e.id] = h
    return out


@pytest.mark.parametrize("name", ["classic-201", "ffg2-201"])
def test_the_four_walks_agree_on_every_step_of_an_archived_game_with_rollbacks(tmp_path, name):
    game = _game_with_rollbacks(tmp_path, name)
    entries = game.entries()
    rollbacks = [e for e in entries if e.get("action") == "rollback"]
    assert len(rollbacks) == 2
    turns = [e for e in entries if e.kind == "turn"]
    assert {e.get("dice_generation") for e in turns} == {None, 1, 2}
    expected = _expected(entries)

    # pbem replay: every turn, the voided ones too, re-adjudicated and checked (its hash among them)
    report = replay(game)
    assert report.ok, report.summary()
    assert report.steps == len(turns)

    # the site: the live turns, each with the position before and after it
    walked = list(LogWalk(game, entries))
    voided = {e.id for e in turns if e.id < rollbacks[1].id and e.id >= rollbacks[1]["to_entry"]} | \
             {e.id for e in turns if e.id < rollbacks[0].id and e.id >= rollbacks[0]["to_entry"]}
    assert [w.entry.id for w in walked] == [e.id for e in turns if e.id not in voided]
    for w in walked:
        assert state_hash(w.after) == expected[w.entry.id]
    before_live = {w.entry.id: state_hash(w.before) for w in walked}

    # the position after every entry, as the log stood then (recovery), and before every turn (rollback)
    for e in entries:
        assert state_hash(state_after(game, entries, e.id)) == expected[e.id], e.id
        if e.kind == "turn":
            before = state_hash(moderator.position_before(game, e.id))
            assert before == expected[e.id - 1], e.id
            assert before == before_live.get(e.id, before)
    # each rollback's position is the one before the turn it went back to, as all four walks have it
    for r in rollbacks:
        assert r["state_hash"] == expected[r["to_entry"] - 1]
    assert state_hash(game.state) == expected[entries[-1].id]


def test_the_walk_skips_voided_turns_or_plays_them_and_refuses_a_step_off_its_hash(tmp_path):
    game = _game_with_rollbacks(tmp_path, "classic-201")
    entries = game.entries()
    live = list(Walk(game.id, game.ruleset, entries))
    every = list(Walk(game.id, game.ruleset, entries, voided="play"))
    assert len(every) == sum(1 for e in entries if e.kind == "turn") > len(live)
    assert [s.entry.id for s in every if not s.voided] == [s.entry.id for s in live]
    assert all(s.voided for s in every if s.entry.id not in {x.entry.id for x in live})
    # a generation's dice are read from the entry's own labels (`<game>~g<N>/...`)
    assert all(("~g" in label) == bool(s.entry.get("dice_generation")) for s in every for label in s.rolled)
    # a turn entry whose logged hash is not where its step leads: the walk says which entry
    bad = next(e for e in entries if e.kind == "turn" and e.get("round") == 2)
    bad.data["state_hash"] = "0" * 64
    with pytest.raises(StepDiverged, match=f"log entry {bad.id} does not lead to the position it logged"):
        list(Walk(game.id, game.ruleset, entries))


def test_the_store_and_the_walk_never_import_the_service():
    """The store keeps files, locks and hashes; the walk of the log is below it (issue 28 item 6)."""
    import ast

    pbem_dir = Path(__file__).resolve().parents[2] / "pbem"
    offenders = []
    for folder, banned in (("store", ("pbem.service",)), ("log", ("pbem.service", "pbem.store.game", "pbem.site"))):
        for f in sorted((pbem_dir / folder).glob("*.py")):
            for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                names = [n.module or ""] if isinstance(n, ast.ImportFrom) else \
                        [a.name for a in n.names] if isinstance(n, ast.Import) else []
                offenders += [f"{folder}/{f.name}:{n.lineno} {m}" for m in names if m.startswith(banned)]
    assert offenders == []
