"""Read one incoming mail, whatever it contains (issue 9: hostile input never raises, never is lost).

`read_message(raw)` turns the raw bytes of a message into a `MailIn`: the few headers the intake
needs, and `text`, the plain-text body the orders parser reads (ORDERS.md: "HTML-only mail is read
from its text"). It never raises: broken MIME, unknown charsets, binary junk and missing headers all
give a best-effort `MailIn` whose `problems` say what was odd.
"""

from __future__ import annotations

import codecs
import email.header
import email.utils
import functools
import hashlib
import re
from dataclasses import field
from email import policy
from email.message import Message
from email.parser import BytesParser

from pbem.mail.htmltext import html_to_text
from pbem.records import record

MAX_BODY = 256 * 1024
"""Most characters of body text handed on; longer text is cut and `truncated` is set."""

MAX_PARSE = 32 * 1024 * 1024
"""Most raw bytes given to the MIME parser (bigger mail is cut first, and marked truncated)."""

_MAX_HEADER = 2000
_MSGID_RE = re.compile(r"<[^<>\s]{1,500}>")
_ADDR_RE = re.compile(r"^[^@\s<>()\[\],;:\"\\]+@[^@\s<>()\[\],;:\"\\]+$")
_TAG_RE = re.compile(r"\[\s*([A-Za-z0-9][A-Za-z0-9_.\-]{0,63})\s*\]")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@record
class MailIn:
    """One incoming message as the intake and the orders layer see it."""

    message_id: str
    """`<...>` from the Message-ID header, or `<sha256@pbem.invalid>` when missing or unusable."""
    message_id_synthesized: bool
    sha256: str
    """hex SHA-256 of the raw bytes: the message's identity in the archive and the ledger."""
    from_addr: str
    """lowercased addr-spec of the first From address, '' when there is none."""
    from_name: str
    subject: str
    date: str
    in_reply_to: str
    references: tuple[str, ...]
    authentication_results: str
    dkim_signature: str
    auto_submitted: str
    """Auto-Submitted / Precedence / bounce hints ('' for mail a person wrote); used against mail loops."""
    text: str
    truncated: bool
    html_converted: bool
    attachments: tuple[str, ...]
    """names (or content types) of the parts that were ignored."""
    problems: tuple[str, ...]
    """what was odd about the message (for the log), e.g. 'unknown charset x-foo'."""
    size: int
    raw: bytes = field(repr=False, compare=False, default=b"")


def game_tags(subject: str) -> list[str]:
    """All `[<game>]` tags of a subject, in order (`Re: [demo-1] orders` -> ['demo-1'])."""
    return _TAG_RE.findall(subject or "")


def game_tag(subject: str) -> str | None:
    """The first `[<game>]` tag of a subject, or None."""
    tags = game_tags(subject)
    return tags[0] if tags else None


def read_message(raw: bytes, *, body: bool = True) -> MailIn:
    """Parse `raw` (RFC 822 bytes) into a MailIn. Never raises, whatever `raw` holds.

    With body=False only the headers are read (text '' and no attachments): a cheap look at
    Message-ID, From and Subject."""
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raw = str(raw).encode("utf-8", "replace")
    raw = bytes(raw)
    sha = hashlib.sha256(raw).hexdigest()
    problems: list[str] = []
    try:
        return _read(raw, sha, problems, body)
    except Exception as exc:  # last resort: the body as text, no headers
        problems.append(f"unparseable message ({type(exc).__name__})")
        text, truncated = _cap(_decode(raw[:MAX_PARSE], None, problems))
        return MailIn(
            message_id=_synth_id(sha), message_id_synthesized=True, sha256=sha, from_addr="",
            from_name="", subject="", date="", in_reply_to="", references=(),
            authentication_results="", dkim_signature="", auto_submitted="", text=text,
            truncated=truncated or len(raw) > MAX_PARSE, html_converted=False, attachments=(),
            problems=tuple(problems), size=len(raw), raw=raw,
        )


def _read(raw: bytes, sha: str, problems: list[str], body: bool = True) -> MailIn:
    cut = len(raw) > MAX_PARSE
    msg = BytesParser(policy=policy.compat32).parsebytes(raw[:MAX_PARSE], headersonly=not body)
    if msg.defects:
        problems.extend(type(d).__name__ for d in msg.defects[:5])
    message_id, synthesized = _message_id(msg, sha, problems)
    from_name, from_addr, from_problem = _sender(msg)
    if from_problem:
        problems.append(from_problem)
    elif not from_addr:
        problems.append("no usable From address")
    irt = _MSGID_RE.search(_header(msg, "In-Reply-To"))
    text, html, attachments = _body(msg, problems) if body else ("", False, [])
    text, truncated = _cap(text)
    return MailIn(
        message_id=message_id,
        message_id_synthesized=synthesized,
        sha256=sha,
        from_addr=from_addr,
        from_name=from_name,
        subject=_one_line(_header(msg, "Subject")),
        date=_one_line(_header(msg, "Date")),
        in_reply_to=irt.group(0) if irt else "",
        references=tuple(_MSGID_RE.findall(_header(msg, "References")))[-20:],
        authentication_results=_all_headers(msg, "Authentication-Results"),
        dkim_signature=_all_headers(msg, "DKIM-Signature"),
        auto_submitted=_auto(msg, from_addr),
        text=text,
        truncated=truncated or cut,
        html_converted=html,
        attachments=tuple(attachments),
        problems=tuple(problems),
        size=len(raw),
        raw=raw,
    )


def head_summary(head: bytes, sha: str) -> tuple[str, str, str]:
    """(Message-ID, From address, Subject) of a mail whose header block is `head` and whose SHA-256
    is `sha`, each exactly as read_message reads it: what the intake records of every mail it stores,
    without reading the rest of its headers (issue 33). Never raises."""
    try:
        msg = BytesParser(policy=policy.compat32).parsebytes(bytes(head)[:MAX_PARSE], headersonly=True)
        message_id, _ = _message_id(msg, sha, [])
        return message_id, _sender(msg)[1], _one_line(_header(msg, "Subject"))
    except Exception:  # as read_message's last resort: no headers
        return _synth_id(sha), "", ""


def _message_id(msg: Message, sha: str, problems: list[str]) -> tuple[str, bool]:
    """The mail's Message-ID and whether it was made up (from the mail's SHA-256: none was usable)."""
    mid_raw = _header(msg, "Message-ID")
    found = _MSGID_RE.search(mid_raw)
    if found:
        return found.group(0), False
    if _ADDR_RE.match(mid_raw.strip()):
        return f"<{mid_raw.strip()}>", False
    problems.append("missing Message-ID" if not mid_raw else "unusable Message-ID")
    return _synth_id(sha), True


def _synth_id(sha: str) -> str:
    return f"<{sha}@pbem.invalid>"


def _cap(text: str) -> tuple[str, bool]:
    if len(text) > MAX_BODY:
        return text[:MAX_BODY], True
    return text, False


def _valid(text: str) -> str:
    """Text that encodes as UTF-8 (lone surrogates, e.g. from a UTF-7 body, become '?')."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _one_line(value: str) -> str:
    return _valid(_CONTROL_RE.sub("", re.sub(r"[\r\n\t]+", " ", value)).strip()[:_MAX_HEADER])


def _header(msg: Message, name: str) -> str:
    """Decoded text of the first `name` header (RFC 2047 words decoded), '' when missing or broken."""
    try:
        value = msg.get(name)
    except Exception:
        return ""
    return _decode_header(value)


def _all_headers(msg: Message, name: str) -> str:
    try:
        values = msg.get_all(name) or []
    except Exception:
        return ""
    return "\n".join(_decode_header(v) for v in values)[: 4 * _MAX_HEADER]


_WORD_RE = re.compile(r"=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=")


def _raw_text(value) -> str:
    """A header as sent, encoded words left as they are. compat32 hands a raw 8-bit header over as
    Header(..., 'unknown-8bit'), whose str() turns every non-ASCII byte into U+FFFD: its bytes are
    read as UTF-8 here, else latin-1 (issue 27: `From: Jörg <jörg@example.org>` sent unencoded)."""
    if not isinstance(value, email.header.Header):
        return str(value)
    try:
        parts = email.header.decode_header(value)
    except Exception:
        return str(value)
    return "".join(_decode(c, cs, []) if isinstance(c, bytes) else c for c, cs in parts)


def _decode_words(text: str) -> str:
    """The encoded words of a header that was sent 8-bit (`Grüße =?utf-8?q?K=C3=B6ln?=`), decoded."""
    text = re.sub(r"(\?=)[ \t]+(?==\?)", r"\1", text)   # the space between two encoded words is not text

    def word(m: re.Match) -> str:
        try:
            ((data, charset),) = email.header.decode_header(m.group(0))
        except Exception:
            return m.group(0)
        return _decode(data, charset, []) if isinstance(data, bytes) else data

    return _WORD_RE.sub(word, text)


def _decode_header(value) -> str:
    if value is None:
        return ""
    if isinstance(value, email.header.Header):     # sent 8-bit: its bytes, then its encoded words
        return _decode_words(_raw_text(value))
    try:
        parts = email.header.decode_header(value)
    except Exception:
        text = str(value)
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, bytes):
            out.append(_decode(chunk, charset, []))
        else:
            out.append(chunk)
    return "".join(out)


@functools.lru_cache(maxsize=256)
def _addresses(raw: str) -> tuple[tuple[str, str], ...]:
    """email.utils.getaddresses of one From header as sent ((), when it cannot be read). Kept per
    header text: a burst of mail comes from a few players, each From read twice a mail (when it is
    stored and when it is read), and the address parser was a twentieth of reading a mail (issue 33)."""
    try:
        return tuple(email.utils.getaddresses([raw]))
    except Exception:
        return ()


def _sender(msg: Message) -> tuple[str, str, str]:
    """(display name, address, problem) of the From header.

    The address is picked out of the header as sent, BEFORE its encoded words are decoded: an
    encoded display name (`=?utf-8?q?dave=40example.org?= <eve@evil.example>`) must not turn into
    an address. The real address is the one SPF/DKIM/DMARC protect; a From with two different
    addresses (`dave@example.org <eve@evil.example>`, or two From headers) is ambiguous and refused."""
    try:
        values = msg.get_all("From") or []
    except Exception:
        values = []
    addrs: list[str] = []
    name = ""
    for value in values:
        for n, a in _addresses(re.sub(r"\r?\n[ \t]", " ", _raw_text(value))):
            a = (a or "").strip().lower()
            if a:
                addrs.append(a)
                name = name or n
    distinct = list(dict.fromkeys(addrs))
    if len(distinct) > 1:
        return "", "", "ambiguous From (" + ", ".join(distinct[:3])[:200] + ")"
    if not distinct or not _ADDR_RE.match(distinct[0]):
        return "", "", ""
    return _one_line(_decode_header(name) if "=?" in name else name)[:200], distinct[0], ""


def _auto(msg: Message, from_addr: str) -> str:
    """Why this looks machine-sent (RFC 3834 Auto-Submitted, Precedence, bounce sender), or ''."""
    auto = _header(msg, "Auto-Submitted").strip().lower()
    if auto and not auto.startswith("no"):
        return f"auto-submitted: {auto[:40]}"
    prec = _header(msg, "Precedence").strip().lower()
    if prec in ("bulk", "junk", "list", "auto_reply"):
        return f"precedence: {prec}"
    if _header(msg, "X-Autoreply") or _header(msg, "X-Autorespond"):
        return "autoreply header"
    local = from_addr.split("@", 1)[0]
    if local in ("mailer-daemon", "postmaster", "noreply", "no-reply", "do-not-reply", "donotreply"):
        return f"sender {local}"
    ctype = (msg.get_content_type() or "").lower()
    if ctype == "multipart/report":
        return "delivery report"
    return ""


def _decode(data: bytes, charset: str | None, problems: list[str]) -> str:
    """Bytes to text: the declared charset when Python knows it, else UTF-8, else latin-1."""
    name = (charset or "").strip().strip('"').lower()
    if name and name != "unknown-8bit":
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            problems.append(f"unknown charset {name[:40]}")
            codec = ""
        if codec:
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                problems.append(f"bytes not valid {name[:40]}")
            except Exception:  # some codecs raise other errors on junk
                problems.append(f"codec {name[:40]} failed")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _payload_text(part: Message, problems: list[str]) -> str:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        problems.append("undecodable part")
        data = None
    if data is None:
        payload = part.get_payload()
        data = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    return _decode(data, charset, problems)


def _is_attachment(part: Message) -> bool:
    try:
        disposition = (part.get_content_disposition() or "").lower()
    except Exception:
        disposition = ""
    return disposition == "attachment"


def _part_name(part: Message) -> str:
    try:
        name = part.get_filename()
    except Exception:
        name = None
    return _one_line(_decode_header(name))[:200] if name else part.get_content_type()


def _body(msg: Message, problems: list[str]) -> tuple[str, bool, list[str]]:
    """(text, converted_from_html, ignored attachment names): first inline text/plain, else HTML."""
    plain: Message | None = None
    html: Message | None = None
    other_text: Message | None = None
    attachments: list[str] = []
    parts = msg.walk() if msg.is_multipart() else [msg]
    for part in parts:
        try:
            if part.is_multipart():
                continue
            ctype = (part.get_content_type() or "text/plain").lower()
            if ctype.startswith("multipart/"):
                ctype = "text/plain"  # a multipart whose boundary is missing: read what is there
                problems.append("multipart without parts")
        except Exception:
            problems.append("broken part")
            continue
        if _is_attachment(part):
            attachments.append(_part_name(part))
        elif ctype == "text/plain" and plain is None:
            plain = part
        elif ctype == "text/html" and html is None:
            html = part
        elif ctype.startswith("text/") and other_text is None and ctype != "text/rfc822-headers":
            other_text = part
        elif ctype.startswith("text/"):
            continue  # later alternatives / extra inline text parts are not read
        else:
            attachments.append(_part_name(part))
    if plain is not None:
        text, converted = _payload_text(plain, problems), False
    elif html is not None:
        markup = _payload_text(html, problems)
        if re.search(r"<[A-Za-z!/?]", markup):
            text, converted = html_to_text(markup), True
        else:  # labelled text/html but no markup at all: keep its lines
            text, converted = markup, False
    elif other_text is not None:
        text, converted = _payload_text(other_text, problems), False
    else:
        text, converted = "", False
        if attachments:
            problems.append("no text part")
    return _clean(text), converted, attachments


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    return _valid(_CONTROL_RE.sub("", text))
