"""Issue 8 — replay: a logged game replays; tampering is detected and pinpointed."""

from __future__ import annotations

import pytest
from storekit import fake_adjudicate, tiny_state

from pbem.service.play import play_turn
from pbem.store.game import Game
from pbem.store.replay import dict_diff, replay


def _turn_with_dice(game: Game):
    return next(e for e in game.entries("turn") if e.get("dice"))


def test_replay_matches(played):
    seen = []
    r = replay(played.path, adjudicate=fake_adjudicate, progress=seen.append)
    assert r.ok, r.summary()
    assert r.dice_mode == "secret" and r.checked_dice > 0
    assert r.steps == len(played.entries("turn")) and sum(seen) == r.entries == played.last_entry_id()
    assert "replay matches the log" in r.summary()


def test_replay_with_the_secret_sealed(played):
    (played.path / "secret").unlink()
    r = replay(played.path, adjudicate=fake_adjudicate)
    assert r.ok and r.dice_mode == "recorded" and r.checked_dice > 0


def test_replay_compares_the_start_with_the_engine(played):
    assert replay(played.path, adjudicate=fake_adjudicate, start=lambda rs, gid: tiny_state(gid)).ok
    r = replay(played.path, adjudicate=fake_adjudicate, start=lambda rs, gid: tiny_state("other"))
    assert r.divergence.what == "start" and "game: t1 -> other" in r.summary()


def _change_die(game: Game):
    turn = _turn_with_dice(game)
    label, face = next(iter(turn["dice"].items()))
    other = 6 if face < 5 else 1            # a hit becomes a miss and the other way round
    p = game.path / turn.file
    p.write_text(p.read_text().replace(f"{label}: {face}", f"{label}: {other}"))
    return turn, label, face, other


def test_changed_die_is_pinpointed_with_the_secret(played):
    turn, label, face, other = _change_die(played)
    r = replay(played.path, adjudicate=fake_adjudicate)
    d = r.divergence
    assert (d.what, d.entry, d.label, d.expected, d.got) == ("dice", turn.id, label, other, face)
    assert (d.round, d.nation) == (turn["round"], turn["nation"])
    assert f"{turn.file} (round {turn['round']}, {turn['nation']}, die {label})" in d.describe()


def test_changed_die_is_pinpointed_without_the_secret(played):
    turn, label, face, other = _change_die(played)
    (played.path / "secret").unlink()
    d = replay(played.path, adjudicate=fake_adjudicate).divergence
    assert d.what == "event" and d.entry == turn.id and d.round == turn["round"] and d.nation == turn["nation"]
    battle = next(i for i, ev in enumerate(turn["events"]) if ev["type"] == "battle")
    assert d.index == battle
    assert any(line.startswith("faces.") and f"{face} -> {other}" in line for line in d.diff), d.diff
    text = d.describe()
    assert f"event {battle}" in text and "expected:" in text and "got:" in text


def test_changed_order_as_received_is_pinpointed(played):
    turn = _turn_with_dice(played)
    src = turn["orders"][turn["nation"]]["entry"]
    orders = played.entry(src)
    p = played.path / orders.file
    p.write_text(p.read_text().replace("attack kent", "attack sussex"))
    d = replay(played.path, adjudicate=fake_adjudicate).divergence
    assert (d.what, d.entry, d.label) == ("orders", turn.id, turn["nation"])
    assert orders.file in d.detail
    assert d.diff == ["-attack sussex", "+attack kent"]   # as received -> as used


def test_changed_order_everywhere_changes_the_events(played):
    turn = _turn_with_dice(played)
    src = played.entry(turn["orders"][turn["nation"]]["entry"])
    for f in (src.file, turn.file):
        p = played.path / f
        p.write_text(p.read_text().replace("move 4 english_channel kent", "move 3 english_channel kent"))
    d = replay(played.path, adjudicate=fake_adjudicate).divergence
    assert (d.what, d.entry, d.index) == ("event", turn.id, 0)
    assert "count: 4 -> 3" in d.diff


def test_changed_event_and_state_hash(played):
    turn = played.entries("turn")[-2]
    p = played.path / turn.file
    text = p.read_text()
    p.write_text(text.replace(f"round: {turn['round']}\n", f"round: {turn['round']}\n", 1)
                 .replace("events_hash: ", "events_hash: 0", 1))
    d = replay(played.path, adjudicate=fake_adjudicate).divergence
    assert (d.what, d.entry) == ("events", turn.id)
    p.write_text(text.replace("state_hash: ", "state_hash: 0", 1))
    d = replay(played.path, adjudicate=fake_adjudicate).divergence
    assert (d.what, d.entry) == ("state", turn.id)


def test_missing_entry_and_edited_state_file(played):
    p = played.path / "log" / "000003-orders.yaml"
    text = p.read_text()
    p.unlink()
    d = replay(played.path, adjudicate=fake_adjudicate).divergence
    assert d.what == "log" and d.entry == 3 and "missing" in d.detail
    p.write_text(text)
    g = Game.open(played.path)
    st = g.state
    st.vp["welsh"] = 99
    g.save_state(st)                      # a consistent file, but not what the log leads to
    d = replay(played.path, adjudicate=fake_adjudicate).divergence
    assert d.what == "final" and "vp.welsh: 2 -> (missing)" not in d.diff
    assert any(line.startswith("vp.welsh: 99 ->") for line in d.diff)


def test_moderator_position_is_replayed(played, tmp_path):
    """`pbem moderate GAME position FILE` (a `position` entry, with the file's text) sets the position."""
    from pbem.position.game import set_position
    from pbem.position.write import position_text

    st = played.state
    st.stack("devon", "welsh").armies = 3
    f = tmp_path / "fixed.yaml"
    f.write_text(position_text(played.ruleset(), st, game=played.id, entry=played.last_entry_id()))
    set_position(played, f, who="mod", why="typo in the setup")
    play_turn(played, step="start_round", adjudicate=fake_adjudicate)
    r = replay(played.path, adjudicate=fake_adjudicate)
    assert r.ok, r.summary()


def test_only_rollback_and_position_entries_set_the_position(played):
    """Issue 27 item 3: a moderator entry of another action with a position (even with its own hash)
    is a divergence naming it; Game.moderate refuses to write one."""
    st = played.state
    st.vp["welsh"] = 100
    with pytest.raises(ValueError):
        played.moderate("deadline", "mod", "more time", state=st)
    from pbem.store.hashing import state_hash

    played.append("moderator", {"action": "deadline", "who": "mod", "why": "more time",
                                "state": st.to_dict(), "state_hash": state_hash(st)})
    d = replay(played.path, adjudicate=fake_adjudicate).divergence
    assert (d.what, d.entry) == ("state", played.last_entry_id()) and "`deadline`" in d.detail


def test_engine_failure_is_a_divergence_not_a_traceback(played):
    def broken(rs, state, entry, dice):
        if entry.get("nation") == "belgae":
            raise KeyError("boom")
        return fake_adjudicate(rs, state, entry, dice)

    d = replay(played.path, adjudicate=broken).divergence
    assert d.what == "error" and d.nation == "belgae" and "KeyError" in d.detail


def test_state_yaml_behind_the_log_is_noted(played):
    played.record_orders("romans", "purple", "score 1\n")
    g = Game.open(played.path)
    g.save_state(g.state, entry=g.last_entry_id() - 1)
    r = replay(played.path, adjudicate=fake_adjudicate)
    assert r.ok and not any("not compared" in n for n in r.notes), "orders after the last turn change nothing"
    g.save_state(g.state, entry=1)
    r = replay(played.path, adjudicate=fake_adjudicate)
    assert r.ok and any("not compared" in n for n in r.notes)


@pytest.mark.parametrize("a,b,lines", [
    ({"x": 1, "y": [1, 2]}, {"x": 1, "y": [1, 3]}, ["y[1]: 2 -> 3"]),
    ({"x": 1}, {"z": 1}, ["x: 1 -> (missing)", "z: (missing) -> 1"]),
    ([1], [1, 2], ["(value): [1] -> [1,2]"]),
    ({"p": 2.0}, {"p": 2}, []),
])
def test_dict_diff(a, b, lines):
    assert dict_diff(a, b) == lines


def test_replay_writes_nothing_and_sees_an_entry_changed_since_the_log_cache(played):
    """Replay reads every entry from its file (the log cache takes no part in a check, issue 27) and
    writes nothing to .log-index.jsonl; a file changed in place since the cache was written is seen."""
    played.entries()
    index = played.path / ".log-index.jsonl"
    cached = index.read_bytes()
    assert replay(played.path, adjudicate=fake_adjudicate).ok
    assert index.read_bytes() == cached
    turn, label, face, other = _change_die(played)
    for fresh in (False, True):
        d = replay(played.path, adjudicate=fake_adjudicate, fresh=fresh).divergence
        assert (d.what, d.entry, d.label, d.expected, d.got) == ("dice", turn.id, label, other, face)


def test_log_running_hash_from_the_cache_is_the_hash_of_the_files(played):
    """Issue 18's running hash (every turn mail prints it) is taken from the hashes of the files'
    bytes this Game read (the log cache's recorded hash only decides whether its parse may be used):
    it equals the hash of the files read afresh, and a file changed in place since is hashed again."""
    from pbem.store.loghash import running_hashes

    played.entries()
    assert '"sha256"' in (played.path / ".log-index.jsonl").read_text()
    fresh = Game.open(played.path, editable=False)
    fresh.entries(save_index=False)
    before = fresh.running_hashes()
    assert before == running_hashes(played.path)
    _change_die(played)
    again = Game.open(played.path, editable=False)
    again.entries(save_index=False)
    assert again.running_hashes() == running_hashes(played.path) == fresh.running_hashes() != before
    assert Game.open(played.path).running_hashes() == running_hashes(played.path)   # no entries() read first


def test_a_game_opened_read_only_has_plain_settings_and_cannot_save_them(played):
    """Replay opens games read-only: game.yaml read by the C reader (no comments kept), the same values."""
    ro, rw = Game.open(played.path, editable=False), Game.open(played.path)
    assert type(ro.settings) is dict and ro.settings == rw.settings
    with pytest.raises(RuntimeError, match="read-only"):
        ro.save_settings()
    assert replay(ro, adjudicate=fake_adjudicate).ok
