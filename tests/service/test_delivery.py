"""Issue 27 (delivery): every game mail carries the log's running hash (item 5), what is owed to a
game without `turn:` notices comes from the log (item 6), PREVIEW reveals no future die and copies
no secret (item 10), moderator actions by mail are deterministic and answered alike after a crash
(item 11)."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from jobkit import T0, body, mails, new_game, send

from pbem.service.job import run_job
from pbem.store import fs
from pbem.store.game import Game
from pbem.store.loghash import running_hashes

T1 = T0 + timedelta(hours=1)
LOG_LINE = re.compile(r"^Log: entry (\d+), running hash ([0-9a-f]{64})$", re.M)


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    yield
    fs.WRITE_HOOK = None


def log_of(text: str) -> tuple[int, str]:
    found = LOG_LINE.findall(text)
    assert found, f"no Log line in:\n{text[-400:]}"
    n, h = found[-1]
    return int(n), h


def test_every_game_mail_carries_the_running_hash(tmp_path):
    """Item 5: welcome mails and prompts (after the created entry and the round start) carry it."""
    g = new_game(tmp_path, b"delivery test secret")
    run_job(tmp_path, now=T0, render_map=False)
    out = mails(g.path / "outbox")
    assert out and {str(m["Subject"]).split("]")[1].split(":")[0].strip() for m in out} >= {"the game starts", "your orders for the Romans"}
    chain = dict(running_hashes(g.path))
    for m in out:
        n, h = log_of(body(m))
        assert chain[n] == h, m["Subject"]


def test_the_game_over_mail_carries_the_hash_after_the_reveal(tmp_path):
    """Item 5: the game-over mail (which reveals the dice secret) ends with the log's end, the reveal
    entry included: deleting that tail afterwards no longer matches it (it was unseen before)."""
    g = new_game(tmp_path, b"delivery test secret")
    run_job(tmp_path, now=T0, render_map=False)
    st = g.state
    st.finished = True
    g.moderate("position", "mod", "test: the game ends here", state=st)
    run_job(tmp_path, now=T1, render_map=False)
    over = [m for m in mails(g.path / "outbox") if "game over" in str(m["Subject"])]
    assert len(over) == 1
    n, h = log_of(body(over[0]))
    g = Game.open(g.path)
    reveal = [e for e in g.entries("moderator") if e.get("action") == "reveal"]
    assert reveal and n == reveal[-1].id == g.last_entry_id()
    assert running_hashes(g.path)[-1] == (n, h)
    (g.path / "log" / Path(reveal[-1].file).name).unlink()
    assert (n, h) not in running_hashes(g.path)


# --- item 10: PREVIEW ------------------------------------------------------------------------------------
def _waiting_for_a_defender(tmp_path) -> Game:
    """The Romans have ordered an attack on Kent; the game waits for the Belgae's retreat decision
    (options.decisions: wait), so a preview has a battle, with dice, to show."""
    g = new_game(tmp_path, b"delivery test secret")
    g.settings.setdefault("options", {})["decisions"] = "wait"
    g.save_settings()
    run_job(tmp_path, now=T0, render_map=False)
    send(g, "ann", "NATION Romans\n8 Channel -> Kent", 1)
    run_job(tmp_path, now=T1, render_map=False)
    g = Game.open(g.path)
    assert g.state.next_nation == "romans" and not [e for e in g.entries("turn") if e.get("nation")]
    return g


def test_preview_rolls_no_die_of_the_game(tmp_path, monkeypatch):
    """Item 10: the preview plays the battle with throwaway dice and says so; the game's own secret
    rolls nothing (before, the preview mailed the real rolls of the turn to come)."""
    from pbem.rules import dice
    from pbem.service.advance import preview

    g = _waiting_for_a_defender(tmp_path)
    secrets_used: list[bytes] = []
    real_init = dice.HmacDice.__init__

    def spy(self, secret, *a, **kw):
        secrets_used.append(bytes(secret))
        real_init(self, secret, *a, **kw)

    monkeypatch.setattr(dice.HmacDice, "__init__", spy)
    text = preview(g, "mod", "look ahead", now=T1)
    assert "throwaway dice" in text and "Kent" in text
    assert secrets_used and g.local_secret() not in secrets_used
    assert not (g.path / ".preview").exists()


def test_a_killed_preview_leaves_no_secret_or_token_outside_and_is_swept(tmp_path, monkeypatch):
    """Item 10: killed half-way, a preview leaves nothing in $TMPDIR, and its scratch copy inside the
    game folder holds neither the dice secret nor any token; the next run sweeps it."""
    import tempfile

    from pbem.service.advance import preview

    g = _waiting_for_a_defender(tmp_path / "games")
    tmp = tmp_path / "tmpdir"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))

    class Killed(BaseException):
        pass

    def kill(what, path):
        if ".preview" in path.parts and path.name.endswith("-turn.yaml") and what == "done":
            raise Killed(str(path))

    from pbem.service import advance

    sweep = advance.sweep_preview
    monkeypatch.setattr(advance, "sweep_preview", lambda game: None)   # a SIGKILL runs no `finally`
    fs.WRITE_HOOK = kill
    with pytest.raises(Killed):
        preview(g, "mod", "look ahead", now=T1)
    fs.WRITE_HOOK = None
    monkeypatch.setattr(advance, "sweep_preview", sweep)
    assert not list(tmp.rglob("*")), "nothing in $TMPDIR"
    scratch = g.path / ".preview"
    assert scratch.is_dir()
    secrets_of_the_game = [g.local_secret().hex()] + [str(p["token"]) for p in g.players()]
    secrets_of_the_game.append(str(g.settings["moderator"]["token"]))
    for p in scratch.rglob("*"):
        if p.is_file():
            data = p.read_text(errors="replace")
            assert not [s for s in secrets_of_the_game if s in data], p
    run_job(tmp_path / "games", now=T1, render_map=False)
    assert not scratch.exists()


# --- item 11: moderator actions by mail, deterministic ---------------------------------------------------
MOD_MAIL = ("PAUSE # away\nRESUME\nEXTEND 24 # holiday\nDEADLINE 2026-12-20T18:00Z\nOBSERVER ADD eve@x.org\n"
            "REPLACE bob bob2@x.org\nPREVIEW\n")


def _moderator_mail(game: Game, text: str, n: int) -> None:
    mod = game.settings["moderator"]
    raw = (f"From: {mod['address']}\nSubject: [{game.id}] moderation\nMessage-ID: <mod{n}@x.org>\n\n"
           f"TOKEN {mod['token']}\n{text}")
    path = game.path / "inbox" / f"{n:03d}.eml"
    path.write_text(raw)
    os.utime(path, (1_800_000_000 + n, 1_800_000_000 + n))


def _outcome(games: Path) -> tuple:
    """The log and state bytes, and the bytes of every mail sent (Date and MIME boundaries included:
    the replies are dated by the run's --now, boundaries made from the content)."""
    g = games / "t1"
    files = {p.name: p.read_bytes() for p in sorted((g / "log").glob("*.yaml"))}
    files["state.yaml"] = (g / "state.yaml").read_bytes()
    return files, sorted(p.read_bytes() for p in (g / "outbox").glob("*.eml"))


def _game_with_a_moderator_mail(base: Path) -> Path:
    g = new_game(base, b"delivery test secret")
    run_job(base, now=T0, render_map=False)
    _moderator_mail(g, MOD_MAIL, 1)
    return base


def test_two_identical_runs_of_moderator_commands_give_the_same_bytes(tmp_path):
    """Item 11: PAUSE, RESUME, EXTEND, DEADLINE, OBSERVER and PREVIEW by mail are dated by the run's
    --now (they took the wall clock): two fresh copies run alike give the same log, state and mails."""
    import shutil
    import time

    base = _game_with_a_moderator_mail(tmp_path / "a")
    shutil.copytree(base, tmp_path / "b")
    run_job(tmp_path / "a", now=T1, render_map=False)
    time.sleep(1.1)   # the wall clock moves on between the two runs
    run_job(tmp_path / "b", now=T1, render_map=False)
    a, b = _outcome(tmp_path / "a"), _outcome(tmp_path / "b")
    assert a == b
    g = Game.open(tmp_path / "a" / "t1")
    mod = [e for e in g.entries("moderator") if e.get("mail_id")]
    assert [e.get("action") for e in mod] == ["pause", "resume", "extend", "deadline", "observer", "replace", "preview"]
    assert {e.time for e in mod} == {"2026-12-01T13:00:00Z"}


def test_after_a_crash_the_moderator_gets_the_same_answer(tmp_path):
    """Item 11: killed after the commands were logged and before the answer was sent, the rerun sends
    the answer the uninterrupted run sends (it said "done already" to each line)."""
    import shutil

    base = _game_with_a_moderator_mail(tmp_path / "clean")
    shutil.copytree(base, tmp_path / "killed")
    run_job(base, now=T1, render_map=False)

    class Killed(BaseException):
        pass

    def kill(what, path):
        if path.name.endswith("-moderator.yaml") and what == "done" and "preview" in path.read_text():
            raise Killed(str(path))

    fs.WRITE_HOOK = kill
    with pytest.raises(Killed):
        run_job(tmp_path / "killed", now=T1, render_map=False)
    fs.WRITE_HOOK = None
    run_job(tmp_path / "killed", now=T1, render_map=False)
    clean, killed = _outcome(base), _outcome(tmp_path / "killed")
    assert killed[0] == clean[0]
    assert [m for m in killed[1] if m not in clean[1]] == [] and len(killed[1]) == len(clean[1])
    import email
    from email import policy

    mails = [email.message_from_bytes(raw, policy=policy.default) for raw in clean[1]]
    answer = [m.get_body(("plain",)).get_content() for m in mails if str(m["Subject"]) == "Re: [t1] moderation"]
    assert answer and "done already" not in answer[-1] and "Deadline extended by 24 hours" in answer[-1]
    n, h = log_of(answer[-1])          # item 5: the answer ends with the log's end after the commands
    assert (n, h) == running_hashes(base / "t1")[-1]


def test_a_mail_read_again_gets_the_same_answer_line_by_line(tmp_path):
    """Item 11: each line's answer comes from its entries (the observers as that entry left them), so
    a mail read again after a crash is answered as the first time, word for word."""
    from pbem.service import moderator

    g = new_game(tmp_path, b"delivery test secret")
    text = "OBSERVER ADD a@x.org, b@x.org\nOBSERVER REMOVE a@x.org\nEXTEND 12\nEXTEND 12\nPAUSE\n"
    first = moderator.from_mail(g, text, who="mod@x.org", mail_id="m1", now=T0)
    again = moderator.from_mail(Game.open(g.path), text, who="mod@x.org", mail_id="m1", now=T0)
    assert again == first
    assert "Observers: a@x.org.\nObservers: a@x.org, b@x.org.\nObservers: b@x.org.\n" in first
    assert "Deadline extended by 12 hours: now 2026-12-05 00:00 UTC" in first
    assert "Deadline extended by 12 hours: now 2026-12-05 12:00 UTC" in first
