"""Issue 27: no edit of a game's files passes `pbem replay` (without --fresh), and an edit inside a log
entry is pinpointed: the output names that entry (or, for an orders entry a turn used, the turn and
the orders file).

Two games are made once for the module by greedy bots through the store (create_game, record_orders,
play_turn, the real engine): a finished 16-round classic game with its secret revealed (a `reveal`
entry), and a running one (3 rounds, the secret sealed) with a moderator `deadline` entry and a
rollback last. Each kind of edit is made to a copy of one of them; the copy's parsed-log cache
(.log-index.jsonl) is written first, as `pbem run` leaves it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.store.game import Game
from pbem.store.hashing import sha256_text, state_hash
from pbem.store.yamlio import dump_yaml, load_plain

SEED = 7


@pytest.fixture(scope="module")
def masters(tmp_path_factory) -> dict[str, Path]:
    from pbem.bots.bench import archive_games, record_games
    from pbem.data.loader import load
    from pbem.service import moderator
    from pbem.store.dicecheck import reveal_secret

    rs = load("classic")
    folder = tmp_path_factory.mktemp("tamper")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "fsync", lambda fd: None)      # durability is not what is tested here
        recorded = record_games(rs, 1, seed=SEED)
        finished = archive_games(rs, folder, recorded)[0]
        running = archive_games(rs, folder, recorded, max_round=3)[0]
        g = Game.open(finished)
        assert g.state.finished
        reveal_secret(g)
        g = Game.open(running)
        moderator.set_deadline(g, "mod@x", "a holiday", "2027-01-01T00:00Z")
        last_turn = [e for e in g.entries("turn") if e.get("nation")][-1]
        moderator.rollback(g, "mod@x", "a mistake", last_turn.id)
    return {"finished": finished, "running": running}


def _copy(master: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "games" / master.name
    shutil.copytree(master, dest, ignore=shutil.ignore_patterns(".log-index.jsonl"))
    Game.open(dest).entries()            # the log cache, as a run leaves it
    return dest


def _replay(path: Path, *args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["replay", str(path), "-q", *args])
    return res.exit_code, res.output


def _file(path: Path, eid: int) -> Path:
    return next((path / "log").glob(f"{eid:06d}-*.yaml"))


def _edit(path: Path, eid: int, fn: Callable[[dict], object]) -> None:
    p = _file(path, eid)
    data = load_plain(p, str(p))
    fn(data)
    p.write_text(dump_yaml(data), encoding="utf-8")


def _entries(path: Path, kind: str | None = None):
    return Game.open(path).entries(kind, cached=False)


def _turn_with_dice(path: Path):
    return next(e for e in _entries(path, "turn") if e.get("dice"))


def _nation_turn_with_orders(path: Path):
    return next(e for e in _entries(path, "turn") if e.get("nation") and _orders_entry(e))


def _orders_entry(turn) -> int | None:
    """The orders entry a nation's turn used (`entry`, or the first of the `entries` it was made of)."""
    o = (turn.get("orders") or {}).get(turn["nation"]) or {}
    return o.get("entry") if isinstance(o.get("entry"), int) else (o.get("entries") or [None])[0]


def _last(path: Path) -> int:
    return Game.open(path).last_entry_id()


def _log_hash(path: Path) -> str:
    n, h = Game.open(path).running_hashes(cached=False)[-1]
    return f"{n}:{h}"


# --- the kinds of edits: each changes the copy and returns what the output must name ----------------
def die_face(p):
    e = _turn_with_dice(p)
    label, face = next(iter(e["dice"].items()))
    _edit(p, e.id, lambda d: d["dice"].__setitem__(label, 1 + face % 6))
    return e.file


def die_label(p):
    e = _turn_with_dice(p)
    label = next(iter(e["dice"]))
    _edit(p, e.id, lambda d: d.__setitem__("dice", {(k + "x" if k == label else k): v for k, v in d["dice"].items()}))
    return e.file


def die_removed(p):
    e = _turn_with_dice(p)
    _edit(p, e.id, lambda d: d["dice"].pop(next(reversed(d["dice"]))))
    return e.file


def _events_rehashed(d):
    d["events_hash"] = sha256_text(orjson.dumps(d["events"], option=orjson.OPT_SORT_KEYS).decode())


def event_field(p):
    e = next(x for x in _entries(p, "turn") if any("round" in ev for ev in x.get("events") or []))
    i = next(i for i, ev in enumerate(e["events"]) if "round" in ev)
    _edit(p, e.id, lambda d: d["events"][i].__setitem__("round", d["events"][i]["round"] + 1))
    return e.file


def event_and_its_hash(p):
    from pbem.store.hashing import canonical_json

    e = next(x for x in _entries(p, "turn") if len(x.get("events") or []) > 1)

    def forge(d):
        d["events"].pop()
        d["events_hash"] = sha256_text(canonical_json(d["events"]))
    _edit(p, e.id, forge)
    return e.file


def events_hash(p):
    e = _entries(p, "turn")[3]
    _edit(p, e.id, lambda d: d.__setitem__("events_hash", "0" * 64))
    return e.file


def orders_text_received(p):
    turn = _nation_turn_with_orders(p)
    src = _orders_entry(turn)
    _edit(p, src, lambda d: d.__setitem__("text", d["text"] + "PASS\n"))
    return turn.file


def orders_nation_received(p):
    turn = _nation_turn_with_orders(p)
    src = _orders_entry(turn)
    _edit(p, src, lambda d: d.__setitem__("nation", "romans" if d["nation"] != "romans" else "picts"))
    return turn.file


def orders_text_in_turn(p):
    turn = _nation_turn_with_orders(p)
    _edit(p, turn.id, lambda d: d["orders"][turn["nation"]].__setitem__("text", "NATION x\nPASS\n"))
    return turn.file


def turn_state_hash(p):
    e = _entries(p, "turn")[-1]
    _edit(p, e.id, lambda d: d.__setitem__("state_hash", "f" * 64))
    return e.file


def turn_round(p):
    e = _entries(p, "turn")[5]
    _edit(p, e.id, lambda d: d.__setitem__("round", d["round"] + 1))
    return e.file


def turn_rules(p):
    e = _entries(p, "turn")[2]
    _edit(p, e.id, lambda d: d.pop("rules"))
    return e.file


def entry_deleted(p):
    e = _entries(p, "orders")[4]
    _file(p, e.id).unlink()
    return f"log entry {e.id} is missing"


def entries_reordered(p):
    a, b = _entries(p, "turn")[4:6]
    fa, fb = _file(p, a.id), _file(p, b.id)
    da, db = load_plain(fa, str(fa)), load_plain(fb, str(fb))
    da["entry"], db["entry"] = b.id, a.id
    fa.write_text(dump_yaml(db), encoding="utf-8")
    fb.write_text(dump_yaml(da), encoding="utf-8")
    return a.file


def entry_duplicated(p):
    e = _entries(p, "turn")[-1]
    n = _last(p) + 1
    data = load_plain(_file(p, e.id), "x")
    data["entry"] = n
    (p / "log" / f"{n:06d}-turn.yaml").write_text(dump_yaml(data), encoding="utf-8")
    return f"{n:06d}-turn.yaml"


def entries_renumbered(p):
    """Every entry from the fifth on moved up one number (file names and `entry:` alike): a gap."""
    for e in reversed([x for x in _entries(p) if x.id >= 5]):
        f = _file(p, e.id)
        data = load_plain(f, str(f))
        data["entry"] = e.id + 1
        (p / "log" / f"{e.id + 1:06d}-{e.kind}.yaml").write_text(dump_yaml(data), encoding="utf-8")
        if e.id == 5:
            f.unlink()
    return "log entry 5 is missing"


def tail_truncated(p):
    """The last entries deleted, state.yaml left as it was: it follows an entry the log has not."""
    n = _last(p)
    follows = Game.open(p).state_file_entry()
    for eid in range(n - 2, n + 1):
        _file(p, eid).unlink()
    return f"state.yaml follows entry {follows}"


def tail_truncated_state_rebuilt(p):
    """The last entries deleted and state.yaml rebuilt to match: only the hash a mail showed tells."""
    from pbem.store.recover import rebuild_state

    expect = _log_hash(p)
    n = _last(p)
    for eid in range(n - 2, n + 1):
        _file(p, eid).unlink()
    rebuild_state(Game.open(p))
    return "", "--log-hash", expect       # entries deleted: nothing inside an entry to name


def moderator_why(p):
    """A moderator's reason rewritten: no replay recomputes it; the running hash a mail showed tells."""
    expect = _log_hash(p)
    e = _entries(p, "moderator")[-1]
    _edit(p, e.id, lambda d: d.__setitem__("why", "changed"))
    return f"entry {expect.split(':')[0]}", "--log-hash", expect


def forged_moderator_position(p):
    """Item 3: a `deadline` entry with a position of +100 VP and its own hash."""
    g = Game.open(p)
    st = g.state
    nation = sorted(st.vp)[0] if st.vp else "romans"
    st.vp[nation] = st.vp.get(nation, 0) + 100
    eid = g.append("moderator", {"action": "deadline", "who": "mod", "why": "more time",
                                 "decision": "x", "until": "2027-01-01T00:00:00+00:00",
                                 "state": st.to_dict(), "state_hash": state_hash(st)})
    g.save_state(st, entry=eid)
    return _file(p, eid).name


def forged_typed_in_position(p, tmp_path):
    """A `position` entry whose position is not the one its text reads as."""
    from pbem.position.game import export_position

    g = Game.open(p)
    text = export_position(g)
    st = g.state
    nation = sorted(st.vp)[0] if st.vp else "romans"
    st.vp[nation] = st.vp.get(nation, 0) + 100
    eid = g.append("moderator", {"action": "position", "who": "mod", "why": "fix", "file": "fix.yaml",
                                 "position": text, "state": st.to_dict(), "state_hash": state_hash(st)})
    g.save_state(st, entry=eid)
    return _file(p, eid).name


def forged_final_state(p):
    g = Game.open(p)
    st = g.state
    nation = sorted(st.vp)[0] if st.vp else "romans"
    st.vp[nation] = st.vp.get(nation, 0) + 50
    g.save_state(st, entry=g.state_entry)          # a consistent file: its hash is right
    return "state.yaml"


def created_start(p):
    """The start position in the created entry changed, with its hash."""
    def forge(d):
        area = next(iter(d["state"]["areas"]))
        nation = next(iter(d["state"]["areas"][area]))
        d["state"]["areas"][area][nation] += 1
        d["state_hash"] = state_hash(d["state"])
    _edit(p, 1, forge)
    return "000001-created.yaml"


def secret_and_commitment(p):
    """game.yaml gets another secret and its commitment (revealed, or in the local secret file)."""
    from pbem.rules.dice import commitment

    other = bytes(range(32))
    text = (p / "game.yaml").read_text(encoding="utf-8")
    old = Game.open(p).commitment
    text = text.replace(old, commitment(other))
    revealed = Game.open(p).revealed_secret()
    if revealed is not None:
        text = text.replace(revealed.hex(), other.hex())
    else:
        (p / "secret").write_text(other.hex() + "\n", encoding="ascii")
    (p / "game.yaml").write_text(text, encoding="utf-8")
    return "000001-created.yaml"


def secret_commitment_everywhere(p):
    """The secret, game.yaml's commitment and the created entry's commitment all replaced: the
    revealed secret no longer matches the reveal entry, or (sealed) the dice show it."""
    from pbem.rules.dice import commitment

    secret_and_commitment(p)
    _edit(p, 1, lambda d: d.__setitem__("dice_commitment", commitment(bytes(range(32)))))
    reveal = [e for e in _entries(p, "moderator") if e.get("action") == "reveal"]
    return reveal[0].file if reveal else _turn_with_dice(p).file


def ruleset_changed(p):
    text = (p / "game.yaml").read_text(encoding="utf-8")
    (p / "game.yaml").write_text(text.replace("ruleset: classic", "ruleset: ffg2"), encoding="utf-8")
    return "000001-created.yaml"


def overrides_changed(p):
    text = (p / "game.yaml").read_text(encoding="utf-8")
    assert "overrides: {}" in text
    (p / "game.yaml").write_text(text.replace("overrides: {}", 'overrides: {"ruleset.constants.move": 3}'),
                                 encoding="utf-8")
    return _entries(p, "turn")[0].file


def _poison(p, fn) -> str:
    """A turn entry's die changed, then its line in the log cache rewritten for the new file: its new
    stat key, and `fn` says what else (the old parse and hash, or the old parse with the new hash)."""
    import hashlib

    from pbem.store.game import INDEX, _stat_key

    e = _turn_with_dice(p)
    die_face(p)
    f = _file(p, e.id)
    with os.scandir(p / "log") as it:
        key = _stat_key(next(d for d in it if d.name == f.name))
    index = p / INDEX
    lines = index.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        item = orjson.loads(line)
        if item.get("name") == f.name:
            item["key"] = key
            fn(item, hashlib.sha256(f.read_bytes()).hexdigest())
            line = orjson.dumps(item).decode()
        out.append(line)
    index.write_text("\n".join(out) + "\n", encoding="utf-8")
    return e.file


def index_poisoned(p):
    return _poison(p, lambda item, sha: None)


def index_poisoned_with_the_new_hash(p):
    return _poison(p, lambda item, sha: item.__setitem__("sha256", sha))


KINDS = [die_face, die_label, die_removed, event_field, event_and_its_hash, events_hash, orders_text_received,
         orders_nation_received, orders_text_in_turn, turn_state_hash, turn_round, turn_rules, entry_deleted,
         entries_reordered, entry_duplicated, entries_renumbered, tail_truncated, tail_truncated_state_rebuilt,
         moderator_why, forged_moderator_position, forged_typed_in_position, forged_final_state, created_start,
         secret_and_commitment, secret_commitment_everywhere, ruleset_changed, overrides_changed,
         index_poisoned, index_poisoned_with_the_new_hash]


def forged_rollback(p):
    """The rollback's position changed, with its own hash (running game)."""
    e = next(x for x in _entries(p, "moderator") if x.get("action") == "rollback")

    def forge(d):
        nation = sorted(d["state"]["vp"])[0] if d["state"].get("vp") else "romans"
        d["state"].setdefault("vp", {})[nation] = d["state"].get("vp", {}).get(nation, 0) + 100
        d["state_hash"] = state_hash(d["state"])
    _edit(p, e.id, forge)
    return e.file


def rollback_retargeted(p):
    """The rollback says it goes back before another turn than the one its position is from."""
    e = next(x for x in _entries(p, "moderator") if x.get("action") == "rollback")
    other = [t.id for t in _entries(p, "turn") if t.id < e["to_entry"]][-3]
    _edit(p, e.id, lambda d: d.__setitem__("to_entry", other))
    return e.file


def deadline_entry_given_a_hash(p):
    """The real `deadline` entry given a `state_hash` (and no state)."""
    e = next(x for x in _entries(p, "moderator") if x.get("action") == "deadline")
    _edit(p, e.id, lambda d: d.__setitem__("state_hash", "0" * 64))
    return e.file


RUNNING_ONLY = [forged_rollback, rollback_retargeted, deadline_entry_given_a_hash]


def test_the_games_replay_as_they_are(masters, tmp_path):
    for name, master in masters.items():
        code, out = _replay(_copy(master, tmp_path / name))
        assert code == 0 and "replay matches the log" in out, out


@pytest.mark.parametrize("game", ["finished", "running"])
@pytest.mark.parametrize("kind", KINDS, ids=lambda f: f.__name__)
def test_every_edit_is_detected_and_pinpointed(masters, tmp_path, game, kind):
    _check(masters[game], tmp_path, kind)


@pytest.mark.parametrize("kind", RUNNING_ONLY, ids=lambda f: f.__name__)
def test_every_edit_of_the_moderators_entries_is_detected(masters, tmp_path, kind):
    _check(masters["running"], tmp_path, kind)


def _check(master: Path, tmp_path: Path, kind) -> None:
    p = _copy(master, tmp_path)
    got = kind(p, tmp_path) if kind is forged_typed_in_position else kind(p)
    named, *args = (got,) if isinstance(got, str) else got
    code, out = _replay(p, *args)
    assert code == 1, f"{kind.__name__} passed replay:\n{out}"
    assert "Traceback" not in out
    named = named.removeprefix("log/")
    assert named in out, f"{kind.__name__}: the output does not name {named}:\n{out}"


def test_a_state_ahead_of_the_log_stops_the_game_until_it_is_rebuilt(masters, tmp_path):
    """Item 7: after the last entries are deleted, the game refuses to read its position or to log
    anything (an entry over the hole could never be replayed), naming the entry and the repair;
    `pbem rebuild-state` re-derives state.yaml from the log after confirming."""
    from pbem.errors import GameError

    p = _copy(masters["running"], tmp_path)
    n = _last(p)
    _file(p, n).unlink()
    g = Game.open(p)
    with pytest.raises(GameError) as err:
        _ = g.state
    assert f"follows log entry {n}" in str(err.value) and "rebuild-state" in err.value.hint
    with pytest.raises(GameError):
        g.record_orders("romans", "x", "PASS\n")
    assert _last(p) == n - 1
    runner = CliRunner()
    res = runner.invoke(cli, ["rebuild-state", str(p)], input="n\n")
    assert res.exit_code == 1 and Game.open(p).state_file_entry() == n
    res = runner.invoke(cli, ["rebuild-state", str(p)], input="y\n")
    assert res.exit_code == 0, res.output
    assert Game.open(p).state_entry == n - 1
    code, out = _replay(p)
    assert code == 0, out


def test_pbem_run_does_not_write_over_a_deleted_entry(tmp_path, monkeypatch):
    """Item 7 through `pbem run`: the Romans' turn is played, then its torn entry deleted by hand; the
    next run logs nothing (the mail waits), and the game's fault names the entry and the repair."""
    from datetime import UTC, datetime, timedelta

    from pbem.service.job import run_job
    from pbem.store.game import create_game

    monkeypatch.setattr(os, "fsync", lambda fd: None)
    t0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    players = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]
    g = create_game(tmp_path, "t1", players=4, player_specs=players, secret=b"tamper test secret t1",
                    time=t0.isoformat())

    def mail(player: str, text: str, n: int) -> None:
        p = g.player(player)
        (g.path / "inbox" / f"{n:03d}.eml").write_text(
            f"From: {p['address']}\nSubject: [t1] orders\nMessage-ID: <m{n}.t1@x.org>\n\nTOKEN {p['token']}\n{text}\n")

    run_job(tmp_path, now=t0, render_map=False)
    mail("ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex", 1)
    run_job(tmp_path, now=t0 + timedelta(hours=1), render_map=False)
    n = Game.open(g.path).last_entry_id()
    assert _file(g.path, n).name.endswith("-turn.yaml") and Game.open(g.path).state_entry == n
    _file(g.path, n).unlink()                 # the moderator's "repair" of a torn last entry
    mail("di", "NATION Belgae\nPASS", 2)
    report = run_job(tmp_path, now=t0 + timedelta(hours=2), render_map=False)
    assert Game.open(g.path).last_entry_id() == n - 1, "nothing was written over the hole"
    fault = " ".join(report.errors)
    assert f"follows log entry {n}" in fault and "rebuild-state" in fault, report.errors
    code, out = _replay(g.path)
    assert code == 1 and f"state.yaml follows entry {n}" in out
