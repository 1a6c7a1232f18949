"""Generate tests/data/mail_corpus/: hostile and ordinary mails for the intake (issue 9).

Run `python tests/mail/make_corpus.py` to (re)write the corpus; the output is deterministic and
committed. `manifest.json` records, per file, the outcome the intake must reach:
  applied       handed to the handler (valid address + token), and replied to
  rejected      auth failure, replied to
  quarantined   kept in quarantine (with or without a polite reply)
  same:<file>   byte-identical to <file>: the same message, handled once
The test (test_corpus.py) also imports the games below.
"""

from __future__ import annotations

import base64
import json
import random
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "mail_corpus"

GAME = "demo-1"
GAME2 = "north-2"
ALICE = ("alice", "alice@example.org", "8f2c41", ("saxons", "jutes"))
BOB = ("bob", "bob@example.net", "b0b0b0", ("welsh", "romano_british"))
CAROL = ("carol", "carol@example.org", "c4r01c", ("picts",))
MODERATOR = ("mod@example.com", "m0d3r4")
PBEM_ADDR = "pbem@adjudicator.example"

GAMES = {
    GAME: {"players": [ALICE, BOB], "moderator": MODERATOR},
    GAME2: {"players": [CAROL], "moderator": None},
}

_DATE = "Date: Mon, 3 Jun 2024 10:00:00 +0000"


class Corpus:
    def __init__(self) -> None:
        self.files: list[tuple[str, bytes, str]] = []
        self.rng = random.Random(20240603)
        self.n = 0

    def add(self, name: str, raw: bytes, expect: str) -> str:
        fname = f"{len(self.files):03d}-{name}.eml"
        self.files.append((fname, raw, expect))
        return fname

    def mid(self) -> str:
        self.n += 1
        return f"<corpus.{self.n}@mua.example>"


def msg(headers: list[str], body: bytes | str, *, crlf: bool = True) -> bytes:
    nl = b"\r\n" if crlf else b"\n"
    head = nl.join(h.encode("utf-8", "surrogateescape") if isinstance(h, str) else h for h in headers)
    if isinstance(body, str):
        body = body.encode("utf-8")
    if crlf:
        body = body.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    return head + nl + nl + body


def orders(player, game: str | None = GAME, token: str | None = None, extra: str = "") -> str:
    name, _addr, tok, nations = player
    lines = []
    if game:
        lines.append(f"GAME {game}")
    lines.append(f"NATION {nations[0].title()}")
    lines.append(f"TOKEN {tok if token is None else token}")
    lines += ["", "PLACE Essex, Kent", "3 Essex -> Suffolk -> Norfolk", extra, "PASS"]
    return "\n".join(lines) + "\n"


def plain(c: Corpus, name: str, frm: str, subject: str, body, expect: str, extra=(), mid=None) -> str:
    headers = [f"From: {frm}", f"To: {PBEM_ADDR}", f"Subject: {subject}", _DATE,
               f"Message-ID: {mid or c.mid()}", *extra]
    return c.add(name, msg(headers, body), expect)


def valid(c: Corpus) -> None:
    plain(c, "valid-alice-tag", f"Alice <{ALICE[1]}>", f"[{GAME}] orders", orders(ALICE, None), "applied")
    plain(c, "valid-alice-gameline", ALICE[1], "my orders", orders(ALICE), "applied")
    plain(c, "valid-bob-uppercase-addr", "BOB@EXAMPLE.NET", f"Re: [{GAME}] turn 3", orders(BOB, None), "applied")
    plain(c, "valid-carol-second-game", CAROL[1], f"[{GAME2}]", orders(CAROL, GAME2), "applied")
    plain(c, "valid-carol-tag-only", f'"Carol, the Pict" <{CAROL[1]}>', f"Fwd: RE: [{GAME2}] x",
          orders(CAROL, None), "applied")
    plain(c, "valid-moderator", MODERATOR[0], f"[{GAME}] moderator",
          f"GAME {GAME}\nTOKEN {MODERATOR[1]}\nEXTEND DEADLINE 2 days\n", "applied")
    plain(c, "valid-token-colon", ALICE[1], f"[{GAME}]", "Token: 8f2c41\nNATION Jutes\nPASS\n", "applied")
    plain(c, "valid-with-quote-and-sig", ALICE[1], f"Re: [{GAME}] report",
          orders(ALICE, None) + "\n-- \nAlice\nTOKEN wrong-after-sig\n> TOKEN quoted\n", "applied")
    plain(c, "valid-tag-spaces", BOB[1], f"[ {GAME} ] orders", orders(BOB, None), "applied")
    plain(c, "valid-spam-tag-first", BOB[1], f"[SPAM] [{GAME}] orders", orders(BOB, None), "applied")
    plain(c, "valid-game-line-beats-tag", CAROL[1], f"[{GAME}] orders", orders(CAROL, GAME2), "applied")
    plain(c, "valid-tabs-and-crs", ALICE[1], f"[{GAME}]", "TOKEN\t8f2c41\r\r\nPASS\r\n", "applied")


def html(c: Corpus) -> None:
    def h(name, body, expect="applied", frm=ALICE[1], charset="utf-8", cte="8bit", extra=()):
        if cte == "base64":
            payload = base64.encodebytes(body.encode(charset)).decode()
        else:
            payload = body
        headers = [f"From: {frm}", f"Subject: [{GAME}] html", _DATE, f"Message-ID: {c.mid()}",
                   "MIME-Version: 1.0", f"Content-Type: text/html; charset={charset}",
                   f"Content-Transfer-Encoding: {cte}", *extra]
        raw = msg(headers, payload.encode(charset, "replace") if cte != "base64" else payload)
        c.add(f"html-{name}", raw, expect)

    h("br", "<html><body>NATION Saxons<br>TOKEN 8f2c41<br>PASS</body></html>")
    h("paragraphs", "<p>NATION Saxons</p><p>TOKEN 8f2c41</p><p>3 Essex -&gt; Kent</p>")
    h("divs-entities", "<div>TOKEN&nbsp;8f2c41</div><div>PLACE Essex,&#32;Kent &amp; more</div>")
    h("script-style", "<style>p{}</style><script>TOKEN evil</script><p>TOKEN 8f2c41</p>")
    h("unclosed", "<p>TOKEN 8f2c41<div><b>PASS<i>oops</p></table></tr>")
    h("table", "<table><tr><td>TOKEN</td><td>8f2c41</td></tr><tr><td>PASS</td></tr></table>")
    h("blockquote-token-only", "<blockquote>TOKEN 8f2c41</blockquote><p>PASS</p>", "rejected")
    h("base64-latin1", "<p>TOKEN 8f2c41</p><p>NATION Saxons caf\u00e9</p>", charset="iso-8859-1", cte="base64")
    h("comments-cdata", "<!-- TOKEN no --><p>TOKEN 8f2c41</p><![CDATA[x]]><?php echo 1 ?>")
    h("only-tags", "<html><head><title>t</title></head><body></body></html>", "rejected")
    h("huge-attr", "<p title='" + "x" * 50000 + "'>TOKEN 8f2c41</p>")
    h("bad-entities", "<p>TOKEN 8f2c41 &bogus; &#99999999; &#xZZ; &</p>")
    h("unregistered", "<p>TOKEN 123</p>", "rejected", frm="mallory@evil.example")


def alternatives_and_attachments(c: Corpus) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(c.rng.randrange(256) for _ in range(600))
    b64png = base64.encodebytes(png).decode()
    body_plain = orders(ALICE)

    def mp(name, parts: list[str], ctype="multipart/mixed", boundary="BOUNDARY", expect="applied",
           frm=ALICE[1], preamble=""):
        inner = "".join(f"--{boundary}\r\n{p}\r\n" for p in parts) + f"--{boundary}--\r\n"
        headers = [f"From: {frm}", f"Subject: [{GAME}] {name}", _DATE, f"Message-ID: {c.mid()}",
                   "MIME-Version: 1.0", f'Content-Type: {ctype}; boundary="{boundary}"']
        c.add(f"mime-{name}", msg(headers, preamble + inner), expect)

    text_part = f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body_plain}"
    html_part = "Content-Type: text/html; charset=utf-8\r\n\r\n<p>TOKEN wrong</p>"
    png_part = (f'Content-Type: image/png\r\nContent-Disposition: attachment; filename="map.png"\r\n'
                f"Content-Transfer-Encoding: base64\r\n\r\n{b64png}")
    mp("alternative", [text_part, html_part], "multipart/alternative")
    mp("alternative-html-first", [html_part, text_part], "multipart/alternative")
    mp("mixed-png", [text_part, png_part])
    mp("png-first", [png_part, text_part])
    mp("only-png", [png_part], expect="rejected")
    mp("pdf-inline-no-disposition", [
        text_part, "Content-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK"])
    mp("orders-as-txt-attachment", [
        "Content-Type: text/plain\r\n\r\nsee attachment",
        'Content-Type: text/plain\r\nContent-Disposition: attachment; filename="orders.txt"\r\n\r\n'
        + body_plain], expect="rejected")
    mp("forwarded-rfc822", [
        "Content-Type: message/rfc822\r\n\r\nFrom: x@y\r\nSubject: inner\r\n\r\n" + body_plain])
    mp("nested", [
        'Content-Type: multipart/alternative; boundary="INNER"\r\n\r\n--INNER\r\n' + text_part
        + "\r\n--INNER\r\n" + html_part + "\r\n--INNER--", png_part])
    mp("preamble-epilogue", [text_part], preamble="This is a MIME message.\r\n")
    mp("signed", [text_part, "Content-Type: application/pgp-signature\r\n\r\n-----BEGIN PGP SIGNATURE-----"],
       'multipart/signed; protocol="application/pgp-signature"')
    many = [f"Content-Type: text/plain\r\nContent-Disposition: attachment; filename=p{i}.txt\r\n\r\nx{i}"
            for i in range(300)]
    mp("300-attachments", [text_part, *many])
    attachment_name = ("Content-Type: application/octet-stream\r\nContent-Disposition: attachment; "
                       "filename*=utf-8''%E2%98%83%0D%0Aevil.bin\r\n\r\nAAAA")
    mp("rfc2231-filename", [text_part, attachment_name])


def charsets(c: Corpus) -> None:
    def cs(name, body: bytes, ctype: str | None, expect="applied", frm=ALICE[1], cte="8bit"):
        headers = [f"From: {frm}", f"Subject: [{GAME}] {name}", _DATE, f"Message-ID: {c.mid()}"]
        if ctype is not None:
            headers += ["MIME-Version: 1.0", f"Content-Type: {ctype}", f"Content-Transfer-Encoding: {cte}"]
        c.add(f"charset-{name}", msg(headers, body), expect)

    text = orders(ALICE) + "Caf\u00e9 \u00fcber \u00c6thelred\n"
    cs("latin1", text.encode("iso-8859-1"), "text/plain; charset=iso-8859-1")
    cs("cp1252", (text + "\u201cquoted\u201d \u20ac").encode("cp1252"), "text/plain; charset=windows-1252")
    cs("koi8r", (orders(ALICE) + "\u041f\u0440\u0438\u0432\u0435\u0442\n").encode("koi8-r"),
       "text/plain; charset=koi8-r")
    cs("shift-jis", (orders(ALICE) + "\u3053\u3093\u306b\u3061\u306f\n").encode("shift_jis"),
       "text/plain; charset=shift_jis")
    cs("big5", (orders(ALICE) + "\u4f60\u597d\n").encode("big5"), "text/plain; charset=big5")
    cs("utf16-bom", text.encode("utf-16"), "text/plain; charset=utf-16")
    cs("utf16-unlabelled", text.encode("utf-16-le"), "text/plain")  # NULs dropped: readable
    cs("utf7", text.encode("utf-7"), "text/plain; charset=utf-7")
    cs("utf8-declared-latin1-bytes", text.encode("latin-1"), "text/plain; charset=utf-8")
    cs("unknown-charset-utf8-bytes", text.encode("utf-8"), "text/plain; charset=x-klingon")
    cs("unknown-charset-latin1-bytes", text.encode("latin-1"), 'text/plain; charset="x-unknown-8bit"')
    cs("8bit-no-content-type", text.encode("latin-1"), None)
    cs("8bit-no-content-type-utf8", text.encode("utf-8"), None)
    cs("charset-empty", text.encode("utf-8"), "text/plain; charset=")
    cs("charset-garbage", text.encode("utf-8"), "text/plain; charset=\"\x01\x02;;;\"")
    cs("base64-utf8", base64.encodebytes(text.encode("utf-8")), "text/plain; charset=utf-8", cte="base64")
    # the broken base64 still decodes to "TOKEN 8f2c41" followed by control characters: the token is
    # read like any token next to odd characters (issue 18)
    cs("base64-broken", b"VE9LRU4gOGYyYzQx!!!@@@\n====\nnot base64 at all \xff\n",
       "text/plain; charset=utf-8", expect="applied", cte="base64")
    cs("qp-latin1", b"TOKEN 8f2c41\nCaf=E9 =\nsoft break\nbroken =ZZ =\n", "text/plain; charset=iso-8859-1",
       cte="quoted-printable")
    cs("unknown-cte", text.encode("utf-8"), "text/plain; charset=utf-8", cte="x-uuencode")
    cs("encoded-subject-garbage", text.encode("utf-8"), "text/plain; charset=utf-8")
    c.files[-1] = (c.files[-1][0], c.files[-1][1].replace(
        f"Subject: [{GAME}] encoded-subject-garbage".encode(),
        f"Subject: =?x-bogus?q?caf=E9?= =?utf-8?b?!!!?= =?utf-8?q?=0D=0ABcc:_evil@x?= [{GAME}]".encode()),
        c.files[-1][2])
    raw_subject = msg([f"From: {ALICE[1]}", "Subject: [demo-1] caf\xe9 \xff\xfe".encode("latin-1"),
                       f"Message-ID: {c.mid()}"], orders(ALICE))
    c.add("charset-8bit-subject", raw_subject, "applied")


def huge(c: Corpus) -> None:
    filler = "".join(c.rng.choice("abcdefghij klmnop\n") for _ in range(300 * 1024))
    plain(c, "huge-valid-plain", ALICE[1], f"[{GAME}] huge", orders(ALICE) + filler, "applied")
    words = " ".join(c.rng.choice(["lorem", "ipsum", "<b>dolor</b>", "&amp;", "<br>"]) for _ in range(45000))
    raw = msg([f"From: {BOB[1]}", f"Subject: [{GAME}] huge html", f"Message-ID: {c.mid()}",
               "Content-Type: text/html"], f"<p>TOKEN {BOB[2]}</p><p>{words}</p>")
    c.add("huge-html", raw, "applied")
    raw = msg([f"From: {BOB[1]}", "Subject: long line", f"Message-ID: {c.mid()}"], "TOKEN x " + "y" * 100000)
    c.add("huge-one-line-unroutable", raw, "quarantined")


def junk(c: Corpus) -> None:
    for size in [1, 7, 64, 300, 1024, 4096, 20000]:
        c.add(f"junk-random-{size}", bytes(c.rng.randrange(256) for _ in range(size)), "quarantined")
    c.add("junk-nuls", b"\x00" * 2000, "quarantined")
    c.add("junk-ff", b"\xff\xfe" * 500, "quarantined")
    c.add("junk-header-then-binary", b"From: " + ALICE[1].encode() + b"\r\nSubject: [demo-1]\r\n\r\n"
          + bytes(c.rng.randrange(256) for _ in range(3000)), "rejected")
    c.add("junk-empty", b"", "quarantined")
    c.add("junk-only-newlines", b"\r\n" * 100, "quarantined")
    c.add("junk-zip", b"PK\x03\x04" + bytes(c.rng.randrange(256) for _ in range(500)), "quarantined")
    c.add("junk-gzip-tail", b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4, "quarantined")


def missing_headers(c: Corpus) -> None:
    body = orders(ALICE)
    c.add("nohdr-no-from", msg(["Subject: [demo-1] x", f"Message-ID: {c.mid()}"], body), "quarantined")
    c.add("nohdr-no-subject-gameline", msg([f"From: {ALICE[1]}", f"Message-ID: {c.mid()}"], body), "applied")
    c.add("nohdr-no-message-id", msg([f"From: {ALICE[1]}", "Subject: [demo-1]"], body + "mid\n"), "applied")
    c.add("nohdr-only-body", body.encode(), "quarantined")
    c.add("nohdr-headers-no-body", f"From: {ALICE[1]}\r\nSubject: [demo-1]\r\n".encode(), "rejected")
    c.add("nohdr-no-colon", msg(["From alice@example.org Mon Jun 3", "Garbage header line",
                                 f"From: {BOB[1]}", "Subject: [demo-1]"], orders(BOB, None)), "quarantined")
    c.add("nohdr-from-garbage", msg(["From: <<<>>> @@ ;;", "Subject: [demo-1]", f"Message-ID: {c.mid()}"],
                                    body), "quarantined")
    c.add("nohdr-from-two-addrs", msg([f"From: {BOB[1]}, {ALICE[1]}", "Subject: [demo-1]",
                                       f"Message-ID: {c.mid()}"], orders(BOB, None)), "quarantined")
    c.add("nohdr-from-group", msg(["From: players: ;", "Subject: [demo-1]", f"Message-ID: {c.mid()}"], body),
          "quarantined")
    c.add("nohdr-from-encoded-word", msg(["From: =?utf-8?q?Al=C3=AFce?= <ALICE@example.org>",
                                          "Subject: [demo-1]", f"Message-ID: {c.mid()}"], body), "applied")
    c.add("nohdr-message-id-garbage", msg([f"From: {ALICE[1]}", "Subject: [demo-1]", "Message-ID: no brackets here"],
                                          body + "g\n"), "applied")
    c.add("nohdr-message-id-empty", msg([f"From: {ALICE[1]}", "Subject: [demo-1]", "Message-ID:"], body + "e\n"),
          "applied")
    c.add("nohdr-long-header", msg([f"From: {ALICE[1]}", "Subject: [demo-1] " + "S" * 20000,
                                    "X-Long: " + "v" * 100000, f"Message-ID: {c.mid()}"], body), "applied")
    c.add("nohdr-folded-weird", msg([f"From: {ALICE[1]}", "Subject: [demo-1]\r\n\t\r\n folded",
                                     f"Message-ID: {c.mid()}"], body), "applied")
    c.add("nohdr-bare-cr", f"From: {ALICE[1]}\rSubject: [demo-1]\r\r{body}".encode(), "applied")
    c.add("nohdr-lf-only", msg([f"From: {ALICE[1]}", "Subject: [demo-1]", f"Message-ID: {c.mid()}"], body,
                               crlf=False), "applied")


def replays(c: Corpus) -> None:
    for i, player in enumerate([ALICE, BOB, ALICE]):
        mid = f"<replayed.{i}@mua.example>"
        first = plain(c, f"replay-{i}-original", player[1], f"[{GAME}] orders {i}", orders(player, None),
                      "applied", mid=mid)
        del first
        plain(c, f"replay-{i}-copy", player[1], f"[{GAME}] orders {i}", orders(player, None), "quarantined",
              extra=["Received: from relay2.example by mx.example; Mon, 3 Jun 2024 10:05:00 +0000"], mid=mid)
    mid = "<replayed.attack@mua.example>"
    plain(c, "replay-attack-original", CAROL[1], f"[{GAME2}] orders", orders(CAROL, None), "applied", mid=mid)
    plain(c, "replay-attack-altered", "mallory@evil.example", f"[{GAME2}] orders",
          orders(CAROL, None, extra="3 Essex -> Kent"), "quarantined", mid=mid)
    name, raw, _ = c.files[-2]
    c.add("replay-exact-bytes", raw, f"same:{name}")


def auth(c: Corpus) -> None:
    plain(c, "auth-wrong-token", ALICE[1], f"[{GAME}]", orders(ALICE, None, token="000000"), "rejected")
    plain(c, "auth-other-players-token", ALICE[1], f"[{GAME}]", orders(ALICE, None, token=BOB[2]), "rejected")
    plain(c, "auth-no-token", BOB[1], f"[{GAME}]", "NATION Welsh\nPASS\n", "rejected")
    plain(c, "auth-token-only-quoted", BOB[1], f"[{GAME}]", "PASS\n> TOKEN b0b0b0\n", "rejected")
    plain(c, "auth-token-after-sig", BOB[1], f"[{GAME}]", "PASS\n-- \nTOKEN b0b0b0\n", "rejected")
    plain(c, "auth-unregistered-with-alice-token", "alice.other@gmail.example", f"[{GAME}]",
          orders(ALICE, None), "rejected")
    plain(c, "auth-unregistered-claims-nation", "mallory@evil.example", f"[{GAME}]",
          "NATION Welsh\nTOKEN guess\nPASS\n", "rejected")
    plain(c, "auth-unregistered-nothing", "stranger@example.com", f"[{GAME}] hello", "Can I join?\n", "rejected")
    plain(c, "auth-carol-in-wrong-game", CAROL[1], f"[{GAME}]", orders(CAROL, None), "rejected")
    plain(c, "auth-moderator-bad-token", MODERATOR[0], f"[{GAME}]", "TOKEN nope\nPAUSE\n", "rejected")
    plain(c, "auth-unregistered-moderator-token", "mod@elsewhere.example", f"[{GAME}]",
          f"TOKEN {MODERATOR[1]}\n", "rejected")
    plain(c, "auth-display-name-spoof", '"alice@example.org" <mallory@evil.example>', f"[{GAME}]",
          orders(ALICE, None, token="guess"), "rejected")


def routing(c: Corpus) -> None:
    plain(c, "route-unknown-tag", ALICE[1], "[nogame-9] orders", orders(ALICE, None), "quarantined")
    plain(c, "route-unknown-gameline", ALICE[1], f"[{GAME}] orders", orders(ALICE, "nogame-9"), "quarantined")
    plain(c, "route-none", ALICE[1], "orders", orders(ALICE, None), "quarantined")
    plain(c, "route-none-empty-subject", BOB[1], "", "hello\n", "quarantined")
    plain(c, "route-gameline-quoted-only", ALICE[1], "Re: orders", "> GAME demo-1\nTOKEN 8f2c41\n", "quarantined")
    plain(c, "route-gameline-bad-id", ALICE[1], "x", "GAME ../../etc/passwd\nTOKEN 8f2c41\n", "quarantined")
    plain(c, "route-gameline-comment", ALICE[1], "x", f"GAME {GAME}   # the big one\nTOKEN 8f2c41\n", "applied")
    plain(c, "route-tag-case", ALICE[1], "[DEMO-1] orders", orders(ALICE, None), "applied")
    plain(c, "route-unknown-auto", "robot@example.com", "orders", "x\n", "quarantined",
          extra=["Auto-Submitted: auto-generated"])


def loops(c: Corpus) -> None:
    plain(c, "loop-vacation", ALICE[1], f"Re: [{GAME}] turn report", "I am on holiday.\n", "quarantined",
          extra=["Auto-Submitted: auto-replied"])
    plain(c, "loop-precedence-bulk", "news@list.example", f"[{GAME}] newsletter", "Buy now\n", "quarantined",
          extra=["Precedence: bulk"])
    plain(c, "loop-own-address", PBEM_ADDR, f"Re: [{GAME}] orders", "OK\n", "quarantined")
    plain(c, "loop-x-autoreply", BOB[1], f"Re: [{GAME}]", "away\n", "quarantined", extra=["X-Autoreply: yes"])
    bounce = ("--B\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n--B\r\n"
              "Content-Type: message/delivery-status\r\n\r\nStatus: 5.1.1\r\n--B\r\n"
              f"Content-Type: message/rfc822\r\n\r\nFrom: {PBEM_ADDR}\r\nSubject: Re: [{GAME}]\r\n\r\nOK\r\n--B--\r\n")
    c.add("loop-bounce", msg(["From: MAILER-DAEMON@mx.example", f"Subject: Undelivered: Re: [{GAME}]",
                              f"Message-ID: {c.mid()}", "MIME-Version: 1.0",
                              'Content-Type: multipart/report; report-type=delivery-status; boundary="B"'],
                             bounce), "quarantined")
    plain(c, "loop-auto-submitted-valid-player", ALICE[1], f"[{GAME}] bot orders", orders(ALICE, None), "applied",
          extra=["Auto-Submitted: auto-generated"])


def malformed_mime(c: Corpus) -> None:
    body = orders(ALICE)

    def mm(name, headers, raw_body, expect="applied"):
        c.add(f"mime-bad-{name}", msg([f"From: {ALICE[1]}", f"Subject: [{GAME}] {name}",
                                       f"Message-ID: {c.mid()}", *headers], raw_body), expect)

    mm("no-boundary-param", ["Content-Type: multipart/mixed"], body)
    mm("boundary-never-closed", ['Content-Type: multipart/mixed; boundary="X"'],
       f"--X\r\nContent-Type: text/plain\r\n\r\n{body}")
    mm("boundary-missing-in-body", ['Content-Type: multipart/mixed; boundary="X"'], body)
    mm("boundary-mismatch-nested", ['Content-Type: multipart/mixed; boundary="X"'],
       '--X\r\nContent-Type: multipart/alternative; boundary="Y"\r\n\r\n--Z\r\n'
       f"Content-Type: text/plain\r\n\r\n{body}\r\n--X--\r\n")
    mm("content-type-garbage", ["Content-Type: ;;;===///"], body)
    mm("content-type-no-slash", ["Content-Type: textplain"], body)
    mm("message-rfc822-only", ["Content-Type: message/rfc822"], f"Subject: inner\r\n\r\n{body}")
    mm("message-rfc822-empty", ["Content-Type: message/rfc822"], "", "rejected")
    nested = "".join(f'--L{i}\r\nContent-Type: multipart/mixed; boundary="L{i + 1}"\r\n\r\n' for i in range(60))
    nested += f"--L60\r\nContent-Type: text/plain\r\n\r\n{body}\r\n--L60--\r\n"
    mm("deeply-nested", ['Content-Type: multipart/mixed; boundary="L0"'], nested)
    mm("duplicate-content-type", ["Content-Type: text/html", "Content-Type: text/plain"], body)
    mm("header-injection-subject", ["X-Note: =?utf-8?q?a=0D=0ABcc:_victim@example.org?="], body)
    mm("nul-in-body", [], body.replace("PASS", "PA\x00SS"))
    mm("mixed-line-endings", [], body.replace("\n", "\r", 2))
    mm("multipart-no-parts", ['Content-Type: multipart/mixed; boundary="X"'], "--X--\r\n", "rejected")
    mm("multipart-digest", ['Content-Type: multipart/digest; boundary="X"'],
       f"--X\r\n\r\nSubject: d\r\n\r\n{body}\r\n--X--\r\n")


def issue18(c: Corpus) -> None:
    """Issue 18: the real address authenticates; a Message-ID is taken only by an accepted mail;
    tokens with odd spaces are read; tokens in a quoted original are not."""
    plain(c, "spoof-encoded-word-address", "=?utf-8?q?alice=40example.org?= <eve@evil.example>", f"[{GAME}]",
          orders(ALICE, None), "rejected")
    plain(c, "spoof-encoded-word-address-b", "=?utf-8?b?YWxpY2VAZXhhbXBsZS5vcmc=?= <eve@evil.example>",
          f"[{GAME}]", orders(ALICE, None), "rejected")
    plain(c, "spoof-unquoted-address-display", f"{ALICE[1]} <eve@evil.example>", f"[{GAME}]",
          orders(ALICE, None), "quarantined")
    c.add("spoof-two-from-headers", msg([f"From: {ALICE[1]}", "From: eve@evil.example", "Subject: [demo-1]",
                                         _DATE, f"Message-ID: {c.mid()}"], orders(ALICE, None)), "quarantined")
    mid = c.mid()
    plain(c, "msgid-first-on-bad-token", ALICE[1], f"[{GAME}]", orders(ALICE, None, token="000000"), "rejected",
          mid=mid)
    plain(c, "msgid-then-good-token", ALICE[1], f"[{GAME}]", orders(ALICE, None), "applied", mid=mid)
    mid = c.mid()
    plain(c, "msgid-claimed-in-advance", "eve@evil.example", f"[{GAME}]", "TOKEN guess\nPASS\n", "rejected", mid=mid)
    plain(c, "msgid-real-mail-after-claim", BOB[1], f"[{GAME}]", orders(BOB, None), "applied", mid=mid)
    plain(c, "token-nbsp-zero-width", ALICE[1], f"[{GAME}]", "NATION Jutes\nTOKEN\u00a08f2c41\u200b\nPASS\n",
          "applied")
    plain(c, "token-full-width", ALICE[1], f"[{GAME}]", "NATION Jutes\nＴＯＫＥＮ ８ｆ２ｃ４１\nPASS\n", "applied")
    plain(c, "token-below-original-message", BOB[1], f"Re: [{GAME}]",
          "NATION Welsh\nPASS\n\n-----Original Message-----\nFrom: pbem\nTOKEN b0b0b0\n", "rejected")
    plain(c, "token-below-outlook-rule", BOB[1], f"Re: [{GAME}]",
          "NATION Welsh\nPASS\n\n________________________________\nTOKEN b0b0b0\n", "rejected")


def main(out: Path = OUT) -> Corpus:
    c = Corpus()
    for make in (valid, html, alternatives_and_attachments, charsets, huge, junk, missing_headers, replays,
                 auth, routing, loops, malformed_mime, issue18):
        make(c)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.eml"):
        old.unlink()
    manifest = {}
    for fname, raw, expect in c.files:
        (out / fname).write_bytes(raw)
        manifest[fname] = expect
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return c


if __name__ == "__main__":
    corpus = main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
    print(f"{len(corpus.files)} mails written")
