"""Issue 27: any mail, subject or moderator command gives a result or a PbemError, never another
exception. The whole mail goes through the real intake and the orders handler on a real folder game:
no mail of the fuzz may be set aside (which is what an exception in the handler, or in reading or
routing the mail, now leads to), and every one is answered or quarantined as the intake decides."""

from __future__ import annotations

import email
import os
from datetime import UTC, datetime
from email import policy

import pytest
from fuzzkit import HUGE, JUNK, NASTY_DIGITS, fuzz, line, lines
from hypothesis import given
from hypothesis import strategies as st

from pbem.mail.compose import build_mail, reply_subject
from pbem.mail.directory import GamesDirDirectory
from pbem.mail.folder import FolderTransport
from pbem.mail.intake import Intake
from pbem.mail.message import read_message
from pbem.mail.routing import authenticate, route
from pbem.service.inbox import OrdersHandler
from pbem.service.moderator import ACTIONS
from pbem.store.game import create_game

NOW = datetime(2026, 12, 1, 13, 0, tzinfo=UTC)
PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]


class World:
    """A folder game t1 with its intake; a fresh game every `fresh` mails (its log stays short)."""

    def __init__(self, root) -> None:
        self.root, self.n, self.generation = root, 0, 0
        self._new()

    def _new(self) -> None:
        self.generation += 1
        self.games = self.root / f"g{self.generation}"
        self.game = create_game(self.games, "t1", players=4, player_specs=PLAYERS, secret=b"fuzz of the entry points", time=NOW.isoformat())
        self.inbox = self.game.path / "inbox"
        self.inbox.mkdir(exist_ok=True)
        self.handler = OrdersHandler(self.games, NOW)
        self.transport = FolderTransport(self.inbox, self.game.path / "outbox")
        self.intake = Intake([self.transport], self.transport, GamesDirDirectory(self.games), self.handler,
                             archive_dir=self.game.path / "mail", from_addr="PBEM <pbem-t1@localhost>")

    def take(self, raw: bytes):
        self.n += 1
        if self.n % 60 == 0:
            self._new()
        path = self.inbox / f"{self.n:06d}.eml"
        path.write_bytes(raw)
        report = self.intake.run_once()
        assert report.set_aside == [], report.set_aside
        assert self.handler.faults == {}, self.handler.faults
        assert report.errors == [], report.errors
        assert not path.exists(), "the mail was taken"
        return report


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    real, os.fsync = os.fsync, lambda fd: None    # thousands of mails: durability is tested elsewhere
    try:
        yield World(tmp_path_factory.mktemp("fuzzmail"))
    finally:
        os.fsync = real


def token(world: World, who: str) -> str:
    return world.game.player(who)["token"] if who != "moderator" else world.game.settings["moderator"]["token"]


FROMS = ["ann@x.org", "Ann <ann@x.org>", "=?utf-8?b?QW5u?= <ann@x.org>", "Ånn Ünïcode <ann@x.org>",
         "\"ann@x.org\" <ann@x.org>", "ann@x.org, bob@x.org", "", "<>", "ann@x.org (comment", "ann@@x.org",
         "=?utf-8?q?ann=40x.org?= <eve@evil.example>", "\x00ann@x.org", "ann@x.org\udcff", "a" * 3000 + "@x.org"]
HEADERS = ["Content-Type: text/plain; charset=utf-8", "Content-Type: text/plain; charset=x-unknown",
           "Content-Type: text/plain; charset=utf-7", "Content-Type: text/html", "Content-Type: multipart/mixed",
           "Content-Type: multipart/alternative; boundary=\"b\"", "Content-Transfer-Encoding: base64",
           "Content-Transfer-Encoding: quoted-printable", "Content-Transfer-Encoding: x-uuencode",
           "Auto-Submitted: auto-replied", "Message-ID: <dup@x.org>", "Message-ID: " + "<" * 500,
           "Content-Disposition: attachment; filename=\"=?utf-8?b?\udcff?=\"", "MIME-Version: 1.0", "X-Junk: \x00"]


def _raw(frm: str, subject: str, headers: list[str], body: str) -> bytes:
    head = "".join(f"{h}\n" for h in headers)
    text = f"From: {frm}\nSubject: {subject}\n{head}\n{body}\n"
    return text.encode("utf-8", "surrogatepass")   # lone surrogates become invalid UTF-8 bytes


@st.composite
def mails(draw, world):
    who = draw(st.sampled_from(["ann", "ann", "di", "moderator"]))
    frm = {"ann": "ann@x.org", "di": "di@x.org", "moderator": world.game.settings["moderator"]["address"]}[who]
    frm = draw(st.one_of(st.just(frm), st.sampled_from(FROMS)))
    subject = draw(st.one_of(st.just("[t1] orders"), line("[t1]"), st.sampled_from(JUNK)))
    headers = draw(st.lists(st.sampled_from(HEADERS), max_size=3))
    heads = ["NATION Romans", "NATION Belgae", "GAME t1", "PASS", "4 Channel -> Kent", "EXTEND", "DEADLINE",
             "ROLLBACK", "OBSERVER ADD", "REPLACE", "PAUSE", "RESUME", "CONFIRM", "VOTE", "--", ">", "-----Original"]
    body = draw(st.lists(st.one_of(line(st.sampled_from(heads)), st.sampled_from(JUNK)), max_size=6))
    at = draw(st.integers(0, len(body)))
    body.insert(at, f"TOKEN {token(world, who)}")
    if draw(st.integers(0, 4)):     # mostly routed by its GAME line, whatever the subject
        body.insert(0, "GAME t1")
    return _raw(frm, subject, headers, "\n".join(body))


def test_any_mail_through_the_intake_on_a_game(world):
    @fuzz(250)
    @given(st.data())
    def run(data):
        world.take(data.draw(mails(world)))

    run()


def test_any_bytes_as_a_whole_mail(world):
    @fuzz(100)
    @given(st.binary(max_size=600))
    def run(raw):
        world.take(raw)

    run()


SUBJECTS = st.one_of(line("[t1]"), st.text(max_size=200), st.sampled_from(JUNK + NASTY_DIGITS), HUGE,
                     st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
                     st.sampled_from(["=?utf-8?b?W3QxXSBvcmRlcnM=?=", "=?utf-8?q?=5Bt1=5D?=", "=?x-bad?b?!!?=",
                                      "Re: Re: Fwd: [t1] [t1] [T1]", "[t1", "[" * 3000, "Ünïcödé [t1] ørders"]))


@fuzz(600)
@given(SUBJECTS)
def test_any_subject_is_read_routed_and_answered(subject):
    raw = f"From: ann@x.org\nSubject: {subject}\nMessage-ID: <s@x.org>\n\nhello\n".encode("utf-8", "surrogatepass")
    mail = read_message(raw)
    assert "\n" not in mail.subject and "\r" not in mail.subject
    for game in (None, "t1"):
        msg = build_mail("ann@x.org", reply_subject(mail.subject, game), "x", from_addr="pbem@localhost")
        out = email.message_from_bytes(bytes(msg), policy=policy.default)
        assert "\n" not in str(out["Subject"])


def test_any_subject_routes_a_mail_through_the_directory(world):
    @fuzz(100)
    @given(SUBJECTS)
    def run(subject):
        raw = f"From: ann@x.org\nSubject: {subject}\n\nTOKEN x\n".encode("utf-8", "surrogatepass")
        mail = read_message(raw)
        where = route(mail, GamesDirDirectory(world.games))
        if where.game is not None:
            assert not authenticate(mail, where.game).ok

    run()


def test_moderator_commands_by_mail(world):
    heads = st.sampled_from([a.upper() for a in ACTIONS if a != "preview"] + ["FORCE", "OBSERVER ADD",
                            "OBSERVER REMOVE", "REPLACE ann", "ROLLBACK", "EXTEND", "DEADLINE"])

    @fuzz(250)
    @given(lines(heads, extra=["2026-12-24T18:00Z", "24", "1e308", "-5", "ann", "x@y", "#", "# why"]))
    def run(text):
        mod = world.game.settings["moderator"]
        world.take(_raw(mod["address"], "[t1] moderator", [], f"TOKEN {mod['token']}\n{text}"))

    run()
