"""Issue 8 — export/import archives; tampered archives are caught by replay and verify-dice."""

from __future__ import annotations

import io
import tarfile

import pytest
from storekit import SECRET, fake_adjudicate

from pbem.errors import GameError
from pbem.store.archive import export_game, extract_archive, import_game, open_source
from pbem.store.dicecheck import reveal_secret, verify_dice
from pbem.store.game import Game
from pbem.store.replay import replay


def _members(archive) -> dict[str, bytes]:
    with tarfile.open(archive) as tf:
        return {m.name: tf.extractfile(m).read() for m in tf if m.isfile()}


def test_export_import_round_trip(played, tmp_path):
    (played.path / "mail" / "abc.eml").write_bytes(b"From: a@b\n\nhello\n")
    (played.path / "inbox" / "x.txt").write_text("pending")
    arc = tmp_path / "t1.tar.gz"
    names = export_game(played, arc)
    m = _members(arc)
    assert sorted(m) == sorted(names)
    assert "t1/game.yaml" in m and "t1/state.yaml" in m and "t1/mail/abc.eml" in m
    assert "t1/secret" not in m and "t1/inbox/x.txt" not in m and "t1/.lock" not in m
    assert not any("log-index" in n for n in m)
    assert sum(n.startswith("t1/log/") for n in m) == played.last_entry_id()

    g = import_game(arc, tmp_path / "other")
    assert g.path == tmp_path / "other" / "t1"
    for name in ("game.yaml", "state.yaml", "log/000001-created.yaml", "mail/abc.eml"):
        assert (g.path / name).read_bytes() == (played.path / name).read_bytes()
    for sub in ("inbox", "outbox", "mail", "log"):
        assert (g.path / sub).is_dir()
    assert g.secret() is None
    r = replay(g.path, adjudicate=fake_adjudicate)
    assert r.ok and r.dice_mode == "recorded"
    assert not [p for p in (tmp_path / "other").iterdir() if p.name.startswith(".import")]
    with pytest.raises(GameError, match="exists already"):
        import_game(arc, tmp_path / "other")


def test_archives_are_reproducible(played, tmp_path):
    export_game(played, tmp_path / "a.tar.gz")
    export_game(played, tmp_path / "b.tar.gz")
    assert (tmp_path / "a.tar.gz").read_bytes() == (tmp_path / "b.tar.gz").read_bytes()


def test_secret_only_when_revealed_or_asked(played, tmp_path):
    export_game(played, tmp_path / "moving.tar.gz", include_secret=True)
    assert _members(tmp_path / "moving.tar.gz")["t1/secret"].strip() == SECRET.hex().encode()
    reveal_secret(played, force=True)
    export_game(played, tmp_path / "done.tar.gz")
    assert "t1/secret" in _members(tmp_path / "done.tar.gz")
    g = import_game(tmp_path / "done.tar.gz", tmp_path / "x")
    assert g.secret() == SECRET and replay(g.path, adjudicate=fake_adjudicate).dice_mode == "secret"


def test_public_archive_redacts(played, tmp_path):
    (played.path / "mail" / "abc.eml").write_bytes(b"TOKEN abc\n")
    export_game(played, tmp_path / "pub.tar.gz", public=True)
    m = _members(tmp_path / "pub.tar.gz")
    text = m["t1/game.yaml"].decode()
    assert "redacted" in text
    for p in played.players():
        assert p["token"] not in text and p["address"] not in text
    assert not any("/mail/" in n for n in m)
    with open_source(tmp_path / "pub.tar.gz") as path:
        assert replay(path, adjudicate=fake_adjudicate).ok


def _retar(src, dst, edit):
    """Copy an archive, passing each file's bytes through edit(name, data)."""
    with tarfile.open(src) as tin, tarfile.open(dst, "w:gz") as tout:
        for m in tin:
            data = tin.extractfile(m).read() if m.isfile() else b""
            if m.isfile():
                data = edit(m.name, data)
                m.size = len(data)
            tout.addfile(m, io.BytesIO(data) if m.isfile() else None)


def test_tampered_archive_die_is_pinpointed(played, tmp_path):
    reveal_secret(played, force=True)
    export_game(played, tmp_path / "a.tar.gz")
    turn = next(e for e in played.entries("turn") if e.get("dice"))
    label, face = list(turn["dice"].items())[1]
    other = 6 if face < 5 else 1

    def edit(name, data):
        if name == f"t1/{turn.file}":
            return data.replace(f"{label}: {face}\n".encode(), f"{label}: {other}\n".encode())
        return data

    _retar(tmp_path / "a.tar.gz", tmp_path / "bad.tar.gz", edit)
    with open_source(tmp_path / "bad.tar.gz") as path:
        r = verify_dice(Game.open(path))
        rr = replay(path, adjudicate=fake_adjudicate)
    assert (r.mismatch.file, r.mismatch.label, r.mismatch.logged, r.mismatch.recomputed) == (turn.file, label, other, face)
    d = rr.divergence
    assert (d.what, d.file, d.label, d.expected, d.got) == ("dice", turn.file, label, other, face)


def test_tampered_archive_order_is_pinpointed(played, tmp_path):
    export_game(played, tmp_path / "a.tar.gz")
    turn = next(e for e in played.entries("turn") if e.get("dice"))

    def edit(name, data):
        return data.replace(b"move 4 english_channel kent", b"move 2 english_channel kent")

    _retar(tmp_path / "a.tar.gz", tmp_path / "bad.tar.gz", edit)
    with open_source(tmp_path / "bad.tar.gz") as path:
        d = replay(path, adjudicate=fake_adjudicate).divergence
    assert (d.what, d.file, d.round, d.nation, d.index) == ("event", turn.file, 1, "romans", 0)
    assert "count: 4 -> 2" in d.diff and "event 0" in d.describe()


@pytest.mark.parametrize("name,kind", [("../evil", "file"), ("/abs/x", "file"), ("t1/link", "symlink")])
def test_unsafe_archives_are_refused(tmp_path, name, kind):
    arc = tmp_path / "evil.tar.gz"
    with tarfile.open(arc, "w:gz") as tf:
        ti = tarfile.TarInfo(name)
        if kind == "symlink":
            ti.type = tarfile.SYMTYPE
            ti.linkname = "/etc/passwd"
            tf.addfile(ti)
        else:
            ti.size = 1
            tf.addfile(ti, io.BytesIO(b"x"))
    with pytest.raises(GameError):
        extract_archive(arc, tmp_path / "out")
    assert not (tmp_path / "evil").exists()


def test_not_an_archive(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello")
    with pytest.raises(GameError, match="neither a game directory nor a game archive"), open_source(p):
        pass
    with pytest.raises(GameError, match="not a readable game archive"):
        extract_archive(p, tmp_path / "o")
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00" + b"\0" * 20)
    with pytest.raises(GameError):
        import_game(broken, tmp_path / "g")
