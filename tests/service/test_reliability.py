"""Issue 18, one test per failure found by attacking `pbem run` (mails in, files and replies out)."""

from __future__ import annotations

import email
import errno
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

import pytest

from pbem.service.job import run_job
from pbem.store import fs
from pbem.store.game import Game, create_game
from pbem.store.replay import replay

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
T1 = T0 + timedelta(hours=1)
PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]
REPO = Path(__file__).resolve().parents[2]


class Killed(BaseException):
    pass


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    yield
    fs.WRITE_HOOK = None


def new_game(games: Path, gid: str = "t1") -> Game:
    g = create_game(games, gid, players=4, player_specs=PLAYERS, secret=b"reliability test secret " + gid.encode(),
                    time=T0.isoformat())
    return g


def drop(game: Game, raw: str, n: int) -> Path:
    path = game.path / "inbox" / f"{n:03d}.eml"
    path.write_text(raw)
    os.utime(path, (1_800_000_000 + n, 1_800_000_000 + n))
    return path


def orders_mail(game: Game, player: str, text: str, n: int, *, sender: str | None = None,
                token: str | None = None) -> Path:
    p = game.player(player)
    return drop(game, f"From: {sender or p['address']}\nSubject: [{game.id}] orders\nMessage-ID: <m{n}.{game.id}@x.org>\n\n"
                      f"TOKEN {token or p['token']}\n{text}\n", n)


def outbox(game_dir: Path) -> list[email.message.EmailMessage]:
    return [email.message_from_bytes(p.read_bytes(), policy=policy.default)
            for p in sorted((game_dir / "outbox").glob("*.eml"))]


def body(m) -> str:
    return m.get_body(("plain",)).get_content()


ROMANS = "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex"


# --- 1. killed between the turn entry and state.yaml --------------------------------------------------
def test_1_state_behind_the_log_is_rederived_and_the_turn_is_not_played_twice(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    before = (g.path / "state.yaml").read_bytes()
    orders_mail(g, "ann", ROMANS, 1)
    run_job(tmp_path, now=T1, render_map=False)
    turns = Game.open(g.path).entries("turn")
    (g.path / "state.yaml").write_bytes(before)          # as if killed right after the turn entry
    g2 = Game.open(g.path)
    assert g2.state.next_nation != "romans" and g2.state_entry == g2.last_entry_id()
    prompts = [m for m in outbox(g.path) if "Romans" in str(m["Subject"]) and "your orders" in str(m["Subject"])]
    orders_mail(g, "ann", ROMANS, 2)                     # the player resends
    run_job(tmp_path, now=T1 + timedelta(minutes=10), render_map=False)
    g3 = Game.open(g.path)
    assert [e.id for e in g3.entries("turn") if e.get("nation") == "romans"] == \
        [e.id for e in turns if e.get("nation") == "romans"], "the Romans played once"
    assert len([m for m in outbox(g.path) if "Romans" in str(m["Subject"]) and "your orders" in str(m["Subject"])]) \
        == len(prompts), "not prompted again"
    assert replay(g3).ok


# --- 2. killed inside the mail handler after the first NATION section -----------------------------------
def test_2_multi_nation_mail_killed_after_first_section_logs_the_rest_on_rerun(tmp_path, monkeypatch):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    orders_mail(g, "ann", ROMANS + "\n\nNATION Romano-British\nPASS\n\nNATION Scots\nPASS", 1)
    real = Game.record_orders
    calls = {"n": 0}

    def record_then_die(self, *a, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise Killed("killed after the first section was logged")
        return real(self, *a, **kw)

    monkeypatch.setattr(Game, "record_orders", record_then_die)
    with pytest.raises(Killed):
        run_job(tmp_path, now=T1, render_map=False)
    monkeypatch.setattr(Game, "record_orders", real)
    run_job(tmp_path, now=T1, render_map=False)
    nations = [e["nation"] for e in Game.open(g.path).entries("orders")]
    assert sorted(nations) == ["romano_british", "romans", "scots"], nations


# --- 3. killed after a turn is logged, before its mail; just after a prompt -------------------------------
def _kill_at(match: str, nth: int = 0):
    seen = {"n": 0}

    def hook(what: str, path: Path) -> None:
        if what == "done" and match in str(path):
            if seen["n"] == nth:
                raise Killed(str(path))
            seen["n"] += 1
    return hook


def test_3_turn_mail_and_reports_follow_a_kill_after_the_turn_entry(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    orders_mail(g, "ann", ROMANS, 1)
    fs.WRITE_HOOK = _kill_at("-turn.yaml")
    with pytest.raises(Killed):
        run_job(tmp_path, now=T1, render_map=False)
    fs.WRITE_HOOK = None
    run_job(tmp_path, now=T1, render_map=False)
    turn = [e for e in Game.open(g.path).entries("turn") if e.get("nation") == "romans"][0]
    mails = [m for m in outbox(g.path) if "the Romans have played" in str(m["Subject"])]
    assert len(mails) == 1
    assert (g.path / "outbox" / "reports" / f"{turn.id:06d}" / "report.txt").is_file()


@pytest.mark.parametrize("what", ["prompt", "reply"])
def test_3_a_kill_just_after_a_mail_is_written_does_not_send_it_twice(tmp_path, what):
    g = new_game(tmp_path)
    if what == "reply":
        run_job(tmp_path, now=T0, render_map=False)
        orders_mail(g, "ann", "NATION Romans\n4 Channel -> Kent\n2 Channel -> Devonn", 1)   # waits for a fix
    before = len(outbox(g.path))
    fs.WRITE_HOOK = _kill_at("/outbox/")
    with pytest.raises(Killed):
        run_job(tmp_path, now=T0 if what == "prompt" else T1, render_map=False)
    fs.WRITE_HOOK = None
    assert len(outbox(g.path)) == before + 1
    run_job(tmp_path, now=T0 if what == "prompt" else T1, render_map=False)
    ids = [m["Message-ID"] for m in outbox(g.path)]
    assert len(ids) == len(set(ids)), f"{what} sent twice"


# --- 4. sender spoofing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("sender", ["=?utf-8?q?ann=40x.org?= <eve@evil.example>", "ann@x.org <eve@evil.example>"])
def test_4_the_real_address_authenticates_not_the_display_name(tmp_path, sender):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    orders_mail(g, "ann", ROMANS, 1, sender=sender)
    run_job(tmp_path, now=T1, render_map=False)
    g2 = Game.open(g.path)
    assert not g2.entries("orders") and g2.state.next_nation == "romans"
    to_ann = [m for m in outbox(g.path) if m["To"] == "ann@x.org" and "rejected" in str(m["Subject"])]
    assert to_ann or "<eve" in sender and "ann@x.org <" in sender, "ann hears that someone used her token"
    if sender.startswith("=?"):
        assert to_ann and "eve@evil.example" in body(to_ann[0])


# --- 5. a moderator's typo stops nothing -----------------------------------------------------------------
def _mod_mail(game: Game, text: str, n: int) -> None:
    mod = game.settings["moderator"]
    drop(game, f"From: {mod['address']}\nSubject: [{game.id}] moderator\nMessage-ID: <mod{n}@x.org>\n\n"
               f"TOKEN {mod['token']}\n{text}\n", n)


def test_5_absurd_deadline_and_extension_are_refused_and_old_ones_do_not_crash(tmp_path):
    g = new_game(tmp_path)
    other = new_game(tmp_path, "t2")
    run_job(tmp_path, now=T0, render_map=False)
    _mod_mail(g, "DEADLINE 0001-01-01T00:00Z\nEXTEND 100000000", 1)
    run_job(tmp_path, now=T1, render_map=False)
    answer = [m for m in outbox(g.path) if str(m["Subject"]).startswith("Re:")][-1]
    assert "not a deadline this game can have" in body(answer) and "at most" in body(answer)
    # entries like these written by an older pbem: every later run, status and moderate still work
    g = Game.open(g.path)
    key = f"r{g.state.round}:{g.state.next_nation or 'start'}"
    g.moderate("deadline", "mod", "typo", decision=key, until="0001-01-01T00:00:00+00:00")
    g.moderate("extend", "mod", "typo", decision=key, hours=1e8)
    r = run_job(tmp_path, now=T1 + timedelta(minutes=5), render_map=False)
    assert not [e for e in r.errors if "Overflow" in e]
    orders_mail(g, "ann", ROMANS, 2)
    orders_mail(other, "ann", ROMANS, 3)
    run_job(tmp_path, now=T1 + timedelta(minutes=10), render_map=False)
    assert Game.open(g.path).entries("orders") and Game.open(other.path).entries("orders")
    for args in (["status", "t1"], ["moderate", "t1", "extend", "24"], ["run", str(tmp_path)]):
        out = subprocess.run([sys.executable, "-m", "pbem.cli", *args, "--games-dir", str(tmp_path)]
                             if args[0] != "run" else [sys.executable, "-m", "pbem.cli", *args],
                             capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)})
        assert "Traceback" not in out.stderr, (args, out.stderr)


# --- 6. a read-only folder or a full disk; a damaged state or log entry -----------------------------------
def test_6_a_game_that_cannot_be_written_stops_only_itself_and_keeps_its_mail(tmp_path, monkeypatch):
    bad, good = new_game(tmp_path, "bad"), new_game(tmp_path, "good")
    run_job(tmp_path, now=T0, render_map=False)
    orders_mail(bad, "ann", ROMANS, 1)
    orders_mail(good, "ann", ROMANS, 2)
    real = fs.atomic_write

    def full_disk(path, data, **kw):
        if "/bad/" in str(path):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, data, **kw)

    real_link, real_temp = os.link, fs.write_temp

    def no_new_name(src, dst, *a, **kw):     # a full disk: no new file, no new name in bad/
        if "/bad/" in str(dst):
            raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        return real_link(src, dst, *a, **kw)

    def no_new_file(directory, *a, **kw):
        if "/bad/" in f"{directory}/":
            raise OSError(errno.ENOSPC, "No space left on device", str(directory))
        return real_temp(directory, *a, **kw)

    monkeypatch.setattr(fs, "atomic_write", full_disk)
    import pbem.mail._fs as mail_fs
    import pbem.store.game as store_game

    monkeypatch.setattr(mail_fs, "atomic_write", full_disk)
    monkeypatch.setattr(store_game, "atomic_write", full_disk)
    monkeypatch.setattr(os, "link", no_new_name)
    monkeypatch.setattr(fs, "write_temp", no_new_file)
    monkeypatch.setattr(mail_fs, "write_temp", no_new_file)
    r = run_job(tmp_path, now=T1, render_map=False)
    assert any(e.startswith("bad:") for e in r.errors)
    assert Game.open(good.path).entries("orders"), "the other game goes on"
    assert (bad.path / "inbox" / "001.eml").exists(), "the mail stays in the inbox"
    r2 = run_job(tmp_path, now=T1 + timedelta(minutes=10), render_map=False)
    assert any(e.startswith("bad:") for e in r2.errors)
    monkeypatch.undo()
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    run_job(tmp_path, now=T1 + timedelta(minutes=20), render_map=False)
    assert Game.open(bad.path).entries("orders"), "the mail is read once the game is repaired"


def test_6_zero_byte_state_is_rebuilt_and_the_mail_is_logged(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    (g.path / "state.yaml").write_bytes(b"")
    orders_mail(g, "ann", ROMANS, 1)
    run_job(tmp_path, now=T1, render_map=False)
    g2 = Game.open(g.path)
    assert g2.entries("orders") and g2.state.next_nation != "romans"
    assert replay(g2).ok


def test_6_a_garbage_log_entry_makes_the_mail_wait_and_the_moderator_is_told_once(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    entry = sorted((g.path / "log").glob("*.yaml"))[-1]
    good = entry.read_bytes()
    entry.write_bytes(b"\x00garbage: [\n")
    orders_mail(g, "ann", ROMANS, 1)
    r = run_job(tmp_path, now=T1, render_map=False)
    assert any(e.startswith("t1:") for e in r.errors)
    run_job(tmp_path, now=T1 + timedelta(minutes=10), render_map=False)
    mod = g.settings["moderator"]["address"]
    told = [m for m in outbox(g.path) if m["To"] == mod and "cannot work" in str(m["Subject"])]
    assert len(told) == 1, "the moderator is told once"
    replies = [m for m in outbox(g.path) if m["To"] == "ann@x.org" and str(m["Subject"]).startswith("Re:")]
    assert not replies, "no reply (and no server path) while the game is damaged"
    assert (g.path / "inbox" / "001.eml").exists()
    entry.write_bytes(good)                         # the moderator repairs it
    run_job(tmp_path, now=T1 + timedelta(minutes=20), render_map=False)
    g2 = Game.open(g.path)
    assert g2.entries("orders")
    replies = [m for m in outbox(g.path) if m["To"] == "ann@x.org" and str(m["Subject"]).startswith("Re:")]
    assert replies and str(tmp_path) not in body(replies[0])


# --- 7. replay misses nothing ------------------------------------------------------------------------------
def _played(tmp_path) -> Game:
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    orders_mail(g, "ann", ROMANS, 1)
    orders_mail(g, "di", "NATION Belgae\nPASS", 2)
    run_job(tmp_path, now=T1, render_map=False)
    g = Game.open(g.path)
    assert replay(g).ok
    return g


def _edit_yaml(path: Path, fn) -> None:
    from pbem.store.yamlio import dump_yaml, load_plain

    data = load_plain(path, str(path))
    fn(data)
    path.write_text(dump_yaml(data))


def test_7_forged_final_state_after_the_reveal_entry_is_seen(tmp_path):
    g = _played(tmp_path)
    g.moderate("reveal", "mod", "test", secret=g.local_secret().hex())   # an entry after the last turn
    st = g.state
    st.vp["romans"] = st.vp.get("romans", 0) + 50
    from pbem.store.game import state_file_text

    (g.path / "state.yaml").write_text(state_file_text(st, g.id, g.last_entry_id()))
    r = replay(Game.open(g.path))
    assert not r.ok and r.divergence.what == "final"


def test_7_a_rollback_with_a_made_up_position_is_seen(tmp_path):
    g = _played(tmp_path)
    from pbem.service import moderator

    romans = [e for e in g.entries("turn") if e.get("nation") == "romans"][0]
    moderator.rollback(g, "mod", "test", romans.id)
    assert replay(Game.open(g.path)).ok
    last = sorted((g.path / "log").glob("*-moderator.yaml"))[-1]

    def forge(d):
        from pbem.store.hashing import state_hash

        d["state"]["vp"] = {**(d["state"].get("vp") or {}), "romans": 99}
        d["state_hash"] = state_hash(d["state"])     # self-consistent
    _edit_yaml(last, forge)
    r = replay(Game.open(g.path))
    assert not r.ok and "rollback" in r.divergence.detail


def test_7_an_orders_entry_edited_after_its_turn_is_seen(tmp_path):
    g = _played(tmp_path)
    turn = [e for e in g.entries("turn") if e.get("nation") == "romans"][0]
    used = turn["orders"]["romans"]["entries"]
    assert used and turn["orders"]["romans"]["entries_sha256"], "the turn names the orders entries it used"
    src = next((g.path / "log").glob(f"{used[0]:06d}-orders.yaml"))
    _edit_yaml(src, lambda d: d.update(text=d["text"].replace("Kent", "Essex")))
    r = replay(Game.open(g.path))
    assert not r.ok and r.divergence.what == "orders"


def test_7_deleted_last_entries_are_seen(tmp_path):
    g = _played(tmp_path)
    turn_mail = [m for m in outbox(g.path) if "the Romans have played" in str(m["Subject"])][0]
    line = next(ln for ln in body(turn_mail).splitlines() if ln.startswith("Log: entry"))
    n, h = int(line.split()[2].rstrip(",")), line.split()[-1]
    assert replay(Game.open(g.path), log_hash=(n, h)).ok
    for p in sorted((g.path / "log").glob("*.yaml"))[-2:]:
        p.unlink()
    g2 = Game.open(g.path)
    r = replay(g2, log_hash=(n, h))
    assert not r.ok and r.divergence.what == "log"
    out = subprocess.run([sys.executable, "-m", "pbem.cli", "replay", str(g.path), "--log-hash", f"{n}:{h}", "-q"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 1 and "deleted" in out.stdout and "Traceback" not in out.stderr


# --- 8. dice after a rollback ------------------------------------------------------------------------------
def test_8_a_refought_battle_gets_new_dice_after_a_rollback(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    orders_mail(g, "ann", "NATION Romans\n8 Channel -> Kent", 1)
    run_job(tmp_path, now=T1, render_map=False)
    g = Game.open(g.path)
    first = [e for e in g.entries("turn") if e.get("nation") == "romans"][0]
    assert first.get("dice"), "the Romans fought in Kent"
    from pbem.service import moderator

    moderator.rollback(g, "mod", "again", first.id)
    from pbem.service.play import play_turn

    again = play_turn(Game.open(g.path), "romans", orders={"romans": "8 Channel -> Kent\n"})
    assert again.get("dice_generation") == 1
    old, new = first["dice"], again["dice"]
    assert set(old).isdisjoint(new), "labels name the rollback generation"
    assert all("~g1/" in label for label in new)
    faces = [new[k] for k in new]
    assert faces != [old[k] for k in old][:len(faces)] or len(faces) < 3
    r = replay(Game.open(g.path))
    assert r.ok, r.summary()
    from pbem.store.dicecheck import verify_dice

    assert verify_dice(Game.open(g.path)).ok


# --- 9. a Message-ID first seen on a mail that failed authentication -----------------------------------
def test_9_message_id_claimed_by_a_refused_mail_does_not_drop_the_real_one(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    p = g.player("ann")
    drop(g, "From: eve@evil.example\nSubject: [t1] x\nMessage-ID: <real@x.org>\n\nTOKEN 000000\nPASS\n", 1)
    drop(g, f"From: ann@x.org\nSubject: [t1] x\nMessage-ID: <real@x.org>\n\nTOKEN {p['token']}\n{ROMANS}\n", 2)
    run_job(tmp_path, now=T1, render_map=False)
    assert Game.open(g.path).entries("orders"), "the real mail is used"


# --- 10. minor ----------------------------------------------------------------------------------------------
def test_10_tokens_with_odd_spaces_and_quoted_originals(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    p, b = g.player("ann"), g.player("bob")
    drop(g, f"From: ann@x.org\nSubject: [t1] x\nMessage-ID: <a1@x.org>\nContent-Type: text/plain; charset=utf-8\n\n"
            f"TOKEN\u00a0{p['token']}\u200b\n{ROMANS}\n".encode().decode("latin-1"), 1)
    path = g.path / "inbox" / "001.eml"
    path.write_bytes(f"From: ann@x.org\nSubject: [t1] x\nMessage-ID: <a1@x.org>\nContent-Type: text/plain; "
                     f"charset=utf-8\nContent-Transfer-Encoding: 8bit\n\nTOKEN\u00a0{p['token']}\u200b\n{ROMANS}\n"
                     .encode())
    drop(g, f"From: bob@x.org\nSubject: Re: [t1] x\nMessage-ID: <b1@x.org>\n\nNATION Welsh\nPASS\n\n"
            f"-----Original Message-----\nTOKEN {b['token']}\n", 2)
    run_job(tmp_path, now=T1, render_map=False)
    nations = [e["nation"] for e in Game.open(g.path).entries("orders")]
    assert "romans" in nations and "welsh" not in nations


def test_10_secrets_are_not_world_readable_and_crash_leftovers_are_swept(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    orders_mail(g, "ann", ROMANS, 1)
    stale = g.path / "outbox" / f"{fs.TEMP_PREFIX}left-by-a-kill"
    stale.write_text("x")
    os.utime(stale, (1_000_000_000, 1_000_000_000))
    run_job(tmp_path, now=T1, render_map=False)
    assert not stale.exists()
    assert (g.path / "game.yaml").stat().st_mode & 0o077 == 0
    for p in list((g.path / "mail").glob("*.eml")) + list((g.path / "outbox").glob("*.eml")):
        assert p.stat().st_mode & 0o077 == 0, p


def test_10_damaged_notices_do_not_resend_prompts(tmp_path):
    g = new_game(tmp_path)
    run_job(tmp_path, now=T0, render_map=False)
    n = len(outbox(g.path))
    (g.path / "notices.json").write_text("{ garbage")
    r = run_job(tmp_path, now=T0 + timedelta(minutes=10), render_map=False)
    assert len(outbox(g.path)) <= n + 1 and any("notices.json" in e for e in r.errors)
    assert not [m for m in outbox(g.path)[n:] if "your orders" in str(m["Subject"])]


def test_10_observer_add_takes_each_address(tmp_path):
    from pbem.service import moderator

    g = new_game(tmp_path)
    moderator.run_command(g, "observer", ["add", "a@x.org,b@y.org"], who="mod", why="test")
    assert list(Game.open(g.path).settings["observers"]) == ["a@x.org", "b@y.org"]
