"""Issue 8 — creating and opening games, the log, the lock, status."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import threading

import pytest
from storekit import SECRET, TIME, fake_adjudicate, new_game, tiny_state

from pbem.errors import GameError
from pbem.rules.dice import commitment
from pbem.service.play import play_turn
from pbem.service.status import game_status
from pbem.store.game import (
    Game,
    create_game,
    parse_player_spec,
    resolve_game,
    ruleset_start_state,
    start_position,
)
from pbem.store.hashing import state_hash
from pbem.store.turns import pending_orders


def test_layout_and_settings(fresh):
    p = fresh.path
    for name in ("game.yaml", "state.yaml", "secret", "log", "inbox", "outbox", "mail"):
        assert (p / name).exists(), name
    assert [x.name for x in (p / "log").iterdir()] == ["000001-created.yaml"]
    s = fresh.settings
    assert s["format"] == 1 and s["id"] == "t1" and s["ruleset"] == "classic"
    assert s["deadlines"] == {"turn_hours": 72, "decision_hours": 24, "reminder_hours": 12}
    assert s["options"] == {"nmr": "hold"} and s["overrides"] == {} and s["observers"] == []
    assert s["mail"] == {"transport": "folder", "inbox": "inbox", "outbox": "outbox"}
    assert s["paused"] is False and s["dice"]["revealed_secret"] is None
    assert s["dice"]["commitment"] == commitment(SECRET)
    assert (p / "secret").read_text().strip() == SECRET.hex()
    assert (p / "secret").stat().st_mode & 0o077 == 0
    for pl in fresh.players():
        assert re.fullmatch(r"[0-9a-f]{6}", pl["token"])
    assert re.fullmatch(r"[0-9a-f]{6}", s["moderator"]["token"])
    assert not list(p.parent.glob(".new-*"))


def test_nation_control_from_the_ruleset(tmp_path):
    g = new_game(tmp_path, player_specs=[("alice", "alice@example.org")])
    names = [p["name"] for p in g.players()]
    assert names == ["alice", "green", "red", "blue"]
    assert g.nations_of("alice") == ["romans", "romano_british", "scots", "dubliners", "norwegians"]
    assert g.player_of("saxons") == "red" and g.player("alice")["address"] == "alice@example.org"
    assert g.player("blue")["colour"] == "blue"
    g5 = new_game(tmp_path, "five", players=5)
    assert len(g5.players()) == 5
    every = sorted(n for p in g5.players() for n in p["nations"])
    assert every == sorted(g5.ruleset().nations)


@pytest.mark.parametrize("kw,msg", [
    ({"players": 7}, "no control table for 7 players"),
    ({"player_specs": [("a", "a@x")] * 2}, "used twice"),
    ({"player_specs": [("a", "not-an-address")]}, "bad address"),
    ({"players": 3, "player_specs": [("a", "a@x"), ("b", "b@x"), ("c", "c@x"), ("d", "d@x")]}, "4 players named"),
    ({"ruleset": "deluxe"}, "unknown ruleset"),
])
def test_create_refuses_bad_input(tmp_path, kw, msg):
    with pytest.raises(GameError, match=msg):
        new_game(tmp_path, **kw)
    assert not any(tmp_path.iterdir()) or not (tmp_path / "t1").exists()


def test_create_refuses_bad_id_and_existing_game(tmp_path, fresh):
    for bad in ("../x", "a/b", "", "-x", "a..b"):
        with pytest.raises(GameError, match="bad game id"):
            new_game(tmp_path, bad)
    with pytest.raises(GameError, match="exists already"):
        new_game(fresh.path.parent, "t1")


def test_player_spec():
    assert parse_player_spec("alice=alice@example.org") == ("alice", "alice@example.org")
    for bad in ("alice", "=a@x", "alice="):
        with pytest.raises(GameError, match="NAME=ADDRESS"):
            parse_player_spec(bad)


def test_start_position(fresh):
    rs = fresh.ruleset()
    st = ruleset_start_state(rs, "g")
    assert st.get("english_channel", "romans").armies == 15
    assert st.get("kent", "belgae").armies == 1 and st.game == "g"
    state, source = start_position(rs, "g")
    if source == "pbem.rules.turn.new_game_state":   # the engine agrees with the data
        assert state_hash(state) == state_hash(st)
    created = fresh.entry(1)
    assert created["start"] == "given" and created["state_hash"] == state_hash(tiny_state())


def test_created_entry_and_state(fresh):
    e = fresh.entry(1)
    assert e.kind == "created" and e.time == TIME and e.file == "log/000001-created.yaml"
    assert e["dice_commitment"] == fresh.commitment
    assert "token" not in str(e["players"]) and "address" not in str(e["players"])
    assert fresh.state_entry == 1 and state_hash(fresh.state) == e["state_hash"]


def test_append_and_entries(fresh):
    a = fresh.record_orders("romans", "purple", "move 1 a b\n", mail_id="<m1>", received=TIME)
    b = fresh.moderate("extend", "mod@x", "flu", hours=24)
    assert (a, b) == (2, 3)
    assert [e.kind for e in fresh.entries()] == ["created", "orders", "moderator"]
    assert [e.id for e in fresh.entries("orders")] == [2]
    o = fresh.entry(2)
    assert o["text"] == "move 1 a b\n" and o["mail_id"] == "<m1>" and o["player"] == "purple"
    with pytest.raises(ValueError, match="kind"):
        fresh.append("gossip", {})
    with pytest.raises(ValueError, match="entry"):
        fresh.append("orders", {"entry": 9})
    # the cache gives the same as a fresh read, and notices a changed file
    assert [e.to_dict() for e in fresh.entries()] == [e.to_dict() for e in fresh.entries(cached=False)]
    p = fresh.path / "log" / "000002-orders.yaml"
    p.write_text(p.read_text().replace("move 1 a b", "move 2 a b"))
    assert fresh.entries()[1]["text"] == "move 2 a b\n"
    assert Game.open(fresh.path).entries()[1]["text"] == "move 2 a b\n"


def test_moderator_sets_the_position(fresh):
    st = fresh.state
    st.stack("kent", "belgae").armies = 5
    eid = fresh.moderate("position", "mod@x", "misplaced army", state=st)
    e = fresh.entry(eid)
    assert e["state_hash"] == state_hash(st)
    assert fresh.state_entry == eid and Game.open(fresh.path).state.get("kent", "belgae").armies == 5


def test_lock_is_reentrant_in_one_process(fresh):
    with fresh.lock(), fresh.lock(blocking=False), Game.open(fresh.path).lock(blocking=False):
        fresh.append("moderator", {"action": "note", "who": "m", "why": "x"})


def test_lock_holds_may_end_in_any_order_and_the_last_lets_go(fresh):
    """A burst keeps a game's lock past the handler's hold (pbem.service.opened): holds of one Game
    in one thread are counted without the file lock's machinery, and the last one to end lets go."""
    from contextlib import ExitStack

    first, kept = ExitStack(), ExitStack()
    first.enter_context(fresh.lock(blocking=False))
    kept.enter_context(fresh.lock(blocking=False))
    first.close()                      # the handler's hold ends first: the lock is still held
    assert _try_lock(fresh, other_thread=True) == "busy"
    with fresh.lock(blocking=False):    # and taken again at once by its holder
        pass
    kept.close()
    assert _try_lock(fresh, other_thread=True) == "free"


HOLDER = textwrap.dedent("""
    import sys, time
    from pbem.store.game import Game
    g = Game.open(sys.argv[1])
    with g.lock():
        print("locked", flush=True)
        sys.stdin.readline()
""")


def test_lock_contention_raises_busy(fresh):
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(fresh.path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(GameError, match="busy"), fresh.lock(blocking=False):
            pass
        with pytest.raises(GameError, match="busy"), fresh.lock(timeout=0.2):
            pass
        fresh.lock_timeout = 0.1
        with pytest.raises(GameError, match="busy"):
            fresh.append("moderator", {"action": "x", "who": "m", "why": "y"})
    finally:
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
    with fresh.lock(blocking=False):   # free again
        pass
    assert fresh.last_entry_id() == 1


def test_lock_between_threads(fresh):
    got = []
    with fresh.lock():
        t = threading.Thread(target=lambda: got.append(_try_lock(fresh)))
        t.start()
        t.join()
    assert got == ["busy"]


def _try_lock(game, other_thread: bool = False):
    if other_thread:
        got = []
        t = threading.Thread(target=lambda: got.append(_try_lock(game)))
        t.start()
        t.join()
        return got[0]
    try:
        with Game.open(game.path).lock(blocking=False):
            return "free"
    except GameError:
        return "busy"


def test_play_turn_logs_everything(fresh):
    play_turn(fresh, step="start_round", adjudicate=fake_adjudicate, time=TIME)
    assert fresh.state.next_nation == "romans"
    oid = fresh.record_orders("romans", "purple", "move 4 english_channel kent\nattack kent\n")
    e = play_turn(fresh, adjudicate=fake_adjudicate, time=TIME)
    assert e.kind == "turn" and e["nation"] == "romans" and e["round"] == 1 and e["step"] == "nation"
    assert e["orders"] == {"romans": {"entry": oid, "text": "move 4 english_channel kent\nattack kent\n"}}
    assert len(e["dice"]) == 6 and all(lb.startswith("t1/r1/romans/kent/b1/") for lb in e["dice"])
    assert [ev["type"] for ev in e["events"]] == ["moved", "battle"]
    assert e["state_hash"] == state_hash(fresh.state) and fresh.state_entry == e.id
    again = Game.open(fresh.path).entry(e.id)
    assert again.to_dict() == e.to_dict()
    assert pending_orders(fresh) == {}


def test_play_turn_writes_nothing_when_the_engine_fails(fresh):
    def broken(*a):
        raise RuntimeError("engine bug")

    play_turn(fresh, step="start_round", adjudicate=fake_adjudicate)
    n = fresh.last_entry_id()
    with pytest.raises(RuntimeError):
        play_turn(fresh, adjudicate=broken)
    assert fresh.last_entry_id() == n and fresh.state_entry == n


def test_pending_orders_wait_for_their_nation(fresh):
    play_turn(fresh, step="start_round", adjudicate=fake_adjudicate)
    w = fresh.record_orders("welsh", "green", "score 1\n")
    r = fresh.record_orders("romans", "purple", "score 2\n")
    assert {n: e.id for n, e in pending_orders(fresh).items()} == {"welsh": w, "romans": r}
    play_turn(fresh, adjudicate=fake_adjudicate)             # romans (the Welsh orders are passed along)
    assert {n: e.id for n, e in pending_orders(fresh).items()} == {"welsh": w}


def test_status(played, fresh):
    st = game_status(played)
    assert st.round == 3 and st.to_move is None and st.orders_in == []
    assert st.nation_vp["romans"] == played.state.vp.get("romans", 0)
    assert st.player_vp["alice"] == sum(played.state.vp.get(n, 0) for n in played.nations_of("alice"))
    assert st.deadline == "2026-01-04T00:00:00Z"
    play_turn(fresh, step="start_round", adjudicate=fake_adjudicate, time=TIME)
    fresh.record_orders("romans", "purple", "score 2\n", received=TIME)
    st = game_status(fresh)
    assert st.to_move == "romans" and st.to_move_player == "purple"
    assert st.orders_in == [{"nation": "romans", "player": "purple", "entry": 3, "received": TIME}]
    text = st.text(fresh.ruleset())
    assert "to move: Romans (purple)" in text and "orders in: Romans" in text
    fresh.settings["paused"] = True
    fresh.save_settings()
    st = game_status(Game.open(fresh.path))
    assert st.paused and st.deadline is None and "PAUSED" in st.text()


def test_resolve_game(fresh, tmp_path):
    assert resolve_game(fresh.path) == fresh.path
    assert resolve_game("t1", fresh.path.parent) == fresh.path
    with pytest.raises(GameError, match="no game 'zz'"):
        resolve_game("zz", tmp_path)


def test_dice_need_the_secret(fresh):
    (fresh.path / "secret").unlink()
    with pytest.raises(GameError, match="no dice secret"):
        fresh.dice()
    (fresh.path / "secret").write_text("00" * 32)
    with pytest.raises(GameError, match="does not match"):
        fresh.dice()


def test_create_game_uses_the_start_position(tmp_path):
    g = create_game(tmp_path, "real", secret=SECRET)
    assert g.state.get("english_channel", "romans").armies == 15
    assert g.entry(1)["start"]


def test_a_player_is_found_after_any_change_to_the_players(fresh):
    """Issue 33: Game.player keeps a by-name view of the players list; a renamed, added, removed or
    replaced player is found (or not) exactly as a walk of the list finds it, and the entry handed
    out is the settings' own mapping (a change to it is in game.yaml's settings)."""
    g = fresh
    first = g.players()[0]["name"]
    assert g.player(first) is g.settings["players"][0]
    g.player(first)["timezone"] = "Europe/London"
    assert g.settings["players"][0]["timezone"] == "Europe/London"
    g.settings["players"][0]["name"] = "renamed"
    assert g.player(first) is None and g.player("renamed") is g.settings["players"][0]
    seq = g.settings["players"]
    seq.append({"name": "newcomer", "nations": []})
    assert g.player("newcomer")["name"] == "newcomer"
    removed = seq.pop(0)
    seq.insert(0, {"name": "other", "nations": []})
    assert g.player("renamed") is None and g.player("other") is not removed
    g.settings["players"] = [{"name": "solo", "nations": ["romans"]}]
    assert g.player("other") is None and g.nations_of("solo") == ["romans"]
