"""The intake pipeline over the folder transport: routing, auth, dedupe, order, replies, acks."""

from __future__ import annotations

import json

import pytest
from filelock import FileLock

from pbem.errors import MailError
from pbem.mail.directory import GameContact, GamesDirDirectory
from pbem.mail.intake import Reply, RetryLater
from pbem.mail.message import MAX_BODY
from pbem.mail.transport import PermanentMailError

from .conftest import ALICE, BOB, CAROL, MOD, FakeHandler, make_mail
from .helpers import Setup


def orders(token: str, game: str | None = None) -> str:
    return (f"GAME {game}\n" if game else "") + f"NATION Saxons\nTOKEN {token}\nPASS\n"


def test_applied_mail_gets_threaded_reply_and_is_acked(tmp_path):
    s = Setup(tmp_path)
    raw = make_mail(f"Alice <{ALICE[0]}>", "Re: [demo-1] my orders", orders(ALICE[1]), mid="<m1@mua>",
                    extra="References: <r0@x>\r\n")
    s.drop("a.eml", raw, 1000)
    report = s.run()
    assert (report.fetched, report.new, report.applied, report.replies_sent, report.acked) == (1, 1, 1, 1, 1)
    ((game, sender, sha),) = s.handler.calls
    assert (game, sender) == ("demo-1", "alice")
    (reply,) = s.sent()
    assert reply["To"] == ALICE[0] and reply["Subject"] == "Re: [demo-1] my orders"
    assert reply["In-Reply-To"] == "<m1@mua>" and reply["References"] == "<r0@x> <m1@mua>"
    assert reply["Auto-Submitted"] == "auto-replied" and "PBEM" in reply["From"]
    assert "NATION Saxons  OK" in reply.get_content()
    assert s.pending_files() == [] and (s.inbox / "processed" / "a.eml").exists()
    assert (s.archive / f"{sha}.eml").read_bytes() == raw
    # reading/read: a run that dies reading the mail leaves `reading` open (issue 33: it counts)
    assert [e["event"] for e in s.ledger()] == ["stored", "reading", "read", "applying", "applied", "sent",
                                                 "replied", "acked"]
    # a second run finds nothing to do
    again = s.run()
    assert (again.fetched, again.applied, again.replies_sent) == (0, 0, 0) and len(s.handler.calls) == 1


def test_routing_by_body_line_and_tag_and_several_games(tmp_path):
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(CAROL[0], "no tag", orders(CAROL[1], "north-2")), 1000)
    s.drop("2.eml", make_mail(BOB[0], "[demo-1] orders", orders(BOB[1])), 1001)
    s.drop("3.eml", make_mail(CAROL[0], "[demo-1] wrong tag", orders(CAROL[1], "north-2")), 1002)
    s.run()
    assert [(g, p) for g, p, _ in s.handler.calls] == [("north-2", "carol"), ("demo-1", "bob"),
                                                        ("north-2", "carol")]
    assert [m["Subject"] for m in s.sent()] == ["Re: [north-2] no tag", "Re: [demo-1] orders",
                                                "Re: [north-2] [demo-1] wrong tag"]


def test_unroutable_is_quarantined_with_polite_reply(tmp_path):
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "orders", orders(ALICE[1])), 1000)
    s.drop("2.eml", make_mail(ALICE[0], "[nogame] orders", orders(ALICE[1])), 1001)
    report = s.run()
    assert report.quarantined == 2 and s.handler.calls == []
    first, second = s.sent()
    assert "could not tell which game" in first.get_content() and first["Subject"] == "Re: orders"
    assert 'no game "nogame"' in second.get_content()
    q = sorted((s.archive / "quarantine").glob("*.json"))
    assert len(q) == 2 and all(json.loads(p.read_text())["reason"].startswith("unroutable") for p in q)
    assert all(p.with_suffix(".eml").exists() for p in q)
    assert s.pending_files() == []  # quarantined mail is acked too (it is kept in the quarantine)


def test_a_mistyped_game_gets_a_did_you_mean_naming_only_the_senders_games(tmp_path):
    """Issue 30 item 7 — a wrong game id in a mail gets a did-you-mean, as the CLI gives: among the
    games the sender plays in (a stranger learns no game's name)."""
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "[demo1] orders", orders(ALICE[1])), 1000)
    s.drop("2.eml", make_mail("mallory@evil.example", "[demo1] orders", "PASS\n"), 1001)
    s.run()
    mine, stranger = s.sent()
    assert 'no game "demo1" here. Did you mean "demo-1"?' in mine.get_content()
    assert 'no game "demo1" here.' in stranger.get_content() and "Did you mean" not in stranger.get_content()


def test_auth_failures(tmp_path):
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders("wrong")), 1000)
    s.drop("2.eml", make_mail(BOB[0], "[demo-1]", "PASS\n"), 1001)
    s.drop("3.eml", make_mail("alice@elsewhere.example", "[demo-1] orders", orders(ALICE[1])), 1002)
    s.drop("4.eml", make_mail("mallory@evil.example", "[demo-1]", "NATION Welsh\nTOKEN guess\n"), 1003)
    report = s.run()
    assert report.rejected == 4 and s.handler.calls == []
    mails = [(m["To"], m["Subject"], m.get_content()) for m in s.sent()]
    assert mails[0][0] == ALICE[0] and "does not match" in mails[0][2] and "auth" in mails[0][2]
    assert mails[1][0] == BOB[0] and "no TOKEN line" in mails[1][2]
    # unregistered sender using alice's token: polite reply to the sender, and a notice to alice
    assert mails[2][0] == "alice@elsewhere.example" and "not registered" in mails[2][2]
    assert ALICE[0] not in mails[2][2]
    assert mails[3][0] == ALICE[0] and "YOUR correct token" in mails[3][2]
    assert mails[3][1] == "[demo-1] rejected message sent in your name"
    # claiming the Welsh (bob's nation) notifies bob
    assert mails[4][0] == "mallory@evil.example" and mails[5][0] == BOB[0]
    assert "YOUR correct token" not in mails[5][2] and len(mails) == 6


def test_moderator(tmp_path):
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(MOD[0], "[demo-1]", f"TOKEN {MOD[1]}\nPAUSE\n"), 1000)
    s.run()
    assert [(g, p) for g, p, _ in s.handler.calls] == [("demo-1", "moderator")]


def test_dedupe_by_hash_and_message_id(tmp_path):
    s = Setup(tmp_path)
    raw = make_mail(ALICE[0], "[demo-1]", orders(ALICE[1]), mid="<same@mua>")
    s.drop("1.eml", raw, 1000)
    s.drop("1-copy.eml", raw, 1001)  # the same bytes again
    s.drop("2.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1]) + "3 Essex -> Kent\n",
                              mid="<same@mua>"), 1002)  # replayed Message-ID, other content
    report = s.run()
    assert len(s.handler.calls) == 1 and report.quarantined == 1 and len(s.sent()) == 1
    assert s.pending_files() == [] and report.acked == 3
    # the replay comes back later (e.g. re-sent by an attacker): still not applied
    s.drop("3.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1]) + "x\n", mid="<same@mua>"), 1003)
    s.drop("4.eml", raw, 1004)
    s.run()
    assert len(s.handler.calls) == 1 and len(s.sent()) == 1


def test_received_order_not_date_header(tmp_path):
    s = Setup(tmp_path)
    for i, mtime in enumerate([3000, 1000, 2000]):
        s.drop(f"{i}.eml", make_mail(ALICE[0], f"[demo-1] n{i}", orders(ALICE[1]) + f"# {i}\n"), mtime)
    s.run()
    subjects = [m["Subject"] for m in s.sent()]
    assert subjects == ["Re: [demo-1] n1", "Re: [demo-1] n2", "Re: [demo-1] n0"]


def test_truncated_and_attachment_notes(tmp_path):
    s = Setup(tmp_path)
    s.drop("big.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1]) + "x" * (MAX_BODY + 5)), 1000)
    s.run()
    (reply,) = s.sent()
    assert "truncated" in reply.get_content()


def test_retry_later_keeps_order_within_a_game(tmp_path):
    calls = []
    state = {"locked": True}

    def handler(game_id, sender, mail):
        if game_id == "demo-1" and state["locked"]:
            raise RetryLater("game locked")
        calls.append((game_id, mail.subject))
        return Reply("ok")

    s = Setup(tmp_path, handler=handler)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1] first", orders(ALICE[1])), 1000)
    s.drop("2.eml", make_mail(CAROL[0], "[north-2] other game", orders(CAROL[1])), 1001)
    s.drop("3.eml", make_mail(BOB[0], "[demo-1] second", orders(BOB[1])), 1002)
    report = s.run()
    assert report.deferred == 1 and calls == [("north-2", "[north-2] other game")]
    assert s.pending_files() == ["1.eml", "3.eml"]
    state["locked"] = False
    s.run()
    assert calls[1:] == [("demo-1", "[demo-1] first"), ("demo-1", "[demo-1] second")]
    assert s.pending_files() == []


def test_handler_error_is_quarantined_and_not_retried(tmp_path):
    def handler(game_id, sender, mail):
        handler.n += 1
        raise ValueError("boom")

    handler.n = 0
    s = Setup(tmp_path, handler=handler)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    report = s.run()
    s.run()
    assert handler.n == 1 and report.quarantined == 1
    to_sender, to_moderator = s.sent()
    assert to_sender["To"] == ALICE[0] and "could not be read" in to_sender.get_content()
    assert to_moderator["To"] == MOD[0] and "ValueError: boom" in to_moderator.get_content()
    (entry,) = s.entries().values()
    assert entry.outcome == "error" and entry.state == "replied"


class FlakyOut:
    """An outgoing transport that fails the first `fail` sends (MailError, or a permanent one)."""

    name = "flaky"

    def __init__(self, fail: int, permanent: bool = False) -> None:
        self.fail, self.permanent, self.sent = fail, permanent, []

    def send(self, message):
        if self.fail:
            self.fail -= 1
            raise (PermanentMailError if self.permanent else MailError)("smtp down")
        self.sent.append(message)


def test_send_failure_is_retried_without_reapplying(tmp_path):
    out = FlakyOut(1)
    s = Setup(tmp_path, outgoing=out)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1]), mid="<x@mua>"), 1000)
    report = s.run()
    assert report.errors and out.sent == [] and s.pending_files() == ["1.eml"]
    s.run()
    assert len(s.handler.calls) == 1 and len(out.sent) == 1 and s.pending_files() == []
    assert out.sent[0]["In-Reply-To"] == "<x@mua>"


def test_permanent_send_failure_gives_up(tmp_path):
    out = FlakyOut(1, permanent=True)
    s = Setup(tmp_path, outgoing=out)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    s.run()
    assert s.pending_files() == [] and out.sent == []
    assert [e.get("failed") for e in s.ledger() if e["event"] == "sent"] == ["smtp down"]


def test_no_outgoing_transport_keeps_message(tmp_path):
    s = Setup(tmp_path, outgoing=None)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    s.run()
    assert len(s.handler.calls) == 1 and s.pending_files() == ["1.eml"]
    assert list((s.archive / "replies").glob("*.eml"))


def test_loops_and_bounces_get_no_reply(tmp_path):
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "Re: [demo-1] report", "on holiday",
                              extra="Auto-Submitted: auto-replied\r\n"), 1000)
    s.drop("2.eml", make_mail("pbem@adjudicator.example", "Re: [demo-1]", "OK"), 1001)
    s.drop("3.eml", make_mail("MAILER-DAEMON@mx.example", "Undelivered", "x"), 1002)
    s.drop("4.eml", make_mail("", "[demo-1]", orders(ALICE[1])), 1003)
    report = s.run()
    assert report.quarantined == 4 and s.sent() == [] and s.pending_files() == []


def test_torn_ledger_line_is_cut(tmp_path):
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    s.run()
    with open(s.archive / "ledger.jsonl", "ab") as fh:
        fh.write(b'{"event": "acked", "sha2')
    s.drop("2.eml", make_mail(BOB[0], "[demo-1]", orders(BOB[1])), 1001)
    s.run()
    assert len(s.handler.calls) == 2 and len(s.ledger()) == 16     # 8 lines a mail


def test_concurrent_run_is_refused(tmp_path):
    s = Setup(tmp_path)
    s.archive.mkdir(parents=True)
    intake = s.intake()
    intake.ledger._lock.timeout = 0.1
    with FileLock(str(s.archive / "ledger.jsonl") + ".lock"):
        with pytest.raises(MailError, match="already running"):
            intake.run_once()


def test_archive_not_transport_is_the_source_of_truth(tmp_path):
    class Crash(BaseException):
        pass

    def fault(point, sha):
        if point == "recorded":
            raise Crash

    s = Setup(tmp_path, fault=fault)
    p = s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    with pytest.raises(Crash):
        s.run()
    p.unlink()  # someone removed the mail from the mailbox after it was stored
    s.fault = None
    s.run()
    assert len(s.handler.calls) == 1 and len(s.sent()) == 1


def test_directory_failure_defers(tmp_path):
    class Broken:
        def lookup(self, game_id):
            raise MailError("game.yaml damaged")

    s = Setup(tmp_path, directory_=Broken())
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    report = s.run()
    assert report.deferred == 1 and s.pending_files() == ["1.eml"] and s.sent() == []


def test_games_dir_directory(tmp_path):
    g = tmp_path / "games" / "demo-1"
    g.mkdir(parents=True)
    (g / "game.yaml").write_text(
        "format: 1\nplayers:\n  - {name: alice, address: Alice@Example.org, token: '8f2c41', nations: [saxons]}\n"
        "moderator: {address: mod@example.com, token: m0d}\n")
    d = GamesDirDirectory(tmp_path / "games")
    game = d.lookup("demo-1")
    assert isinstance(game, GameContact) and game.players["alice"].address == "alice@example.org"
    assert game.moderator == ("mod@example.com", "m0d") and game.player_of_nation("Saxons") == "alice"
    assert d.lookup("DEMO-1").id == "demo-1"
    assert d.lookup("nope") is None and d.lookup("../games") is None
    s = Setup(tmp_path, directory_=d, handler=FakeHandler())
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    s.run()
    assert [(g_, p) for g_, p, _ in s.handler.calls] == [("demo-1", "alice")]


def test_handler_may_return_text_and_bad_attachments_fall_back(tmp_path):
    replies = iter(["plain text reply", Reply("with map", attachments=[("m.png", None, "image/png")])])
    s = Setup(tmp_path, handler=lambda g, p, m: next(replies))
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1] a", orders(ALICE[1])), 1000)
    s.drop("2.eml", make_mail(BOB[0], "[demo-1] b", orders(BOB[1])), 1001)
    s.run()
    first, second = s.sent()
    assert first.get_content().startswith("plain text reply")
    assert second.get_content().startswith("with map") and not second.is_multipart()


def test_store_failure_leaves_mail_at_the_transport(tmp_path, monkeypatch):
    import pbem.mail.intake as intake_mod

    def broken(path, data, **kw):
        raise OSError(28, "No space left on device")

    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    with monkeypatch.context() as m:
        m.setattr(intake_mod, "write_once", broken)
        report = s.run()
    assert report.errors and s.pending_files() == ["1.eml"] and s.handler.calls == []
    s.run()
    assert len(s.handler.calls) == 1 and s.pending_files() == []


def test_an_error_outside_the_handler_sets_the_mail_aside_at_once_with_a_reply(tmp_path, monkeypatch):
    """Issue 27: an error reading or routing one mail is the mail's: answered and set aside in the
    same run, not retried run after run while the game's other mail waits."""
    import pbem.mail.intake as intake_mod

    def broken(mail, game):
        raise RuntimeError("bug")

    monkeypatch.setattr(intake_mod, "authenticate", broken)
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", orders(ALICE[1])), 1000)
    s.drop("2.eml", make_mail(CAROL[0], "[north-2]", orders(CAROL[1])), 1001)
    report = s.run()
    assert s.pending_files() == [] and s.handler.calls == [] and report.quarantined == 2
    reasons = sorted(json.loads(p.read_text())["reason"] for p in (s.archive / "quarantine").glob("*.json"))
    assert reasons == ["handler-error: RuntimeError: bug"] * 2
    to = sorted(m["To"] for m in s.sent())
    assert ALICE[0] in to and CAROL[0] in to and MOD[0] in to
    assert len(report.set_aside) == 2 and not report.errors


def test_a_short_game_id_one_letter_off_gets_its_did_you_mean():
    """Issue 30 item 7, found in the new-user run (docs/NEW-USER-RUN.md): `[c1]` for the game `cl`
    got no did-you-mean, because for a two-letter id one wrong letter is below difflib's cutoff.
    One letter typed wrong, left out, added or two swapped is always a near name."""
    from pbem.mail.directory import PlayerContact, StaticDirectory, games_of_sender_like

    games = StaticDirectory([GameContact(gid, {"alice": PlayerContact(*ALICE, ("saxons",))})
                             for gid in ("cl", "ff", "g7")])
    assert games_of_sender_like(games, "c1", ALICE[0]) == ["cl"]
    assert games_of_sender_like(games, "7g", ALICE[0]) == ["g7"]
    assert games_of_sender_like(games, "f", ALICE[0]) == ["ff"]
    assert games_of_sender_like(games, "c1", "mallory@evil.example") == []
    assert games_of_sender_like(games, "zz", ALICE[0]) == []


def test_a_mail_without_token_is_told_the_word_is_token_in_latin_letters(tmp_path):
    """Found in the new-user run (docs/NEW-USER-RUN.md): a mail written in Russian with `ТОКЕН 3a1cc3`
    was answered "it has no TOKEN line", with no word on why the line it had was not one."""
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1] orders", f"НАРОД Саксы\nТОКЕН {ALICE[1]}\nПАС\n"), 1000)
    s.run()
    (reply,) = s.sent()
    assert "no TOKEN line" in reply.get_content() and "in Latin letters" in reply.get_content()
