"""Outgoing mail builders (issue 9): plain text first, PNG map attachments after, threaded replies.

`build_mail` is used for replies to orders and for turn reports. Header values are cleaned of line
breaks, so text quoted from a hostile mail can never inject headers.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.policy import EmailPolicy, compat32
from email.utils import format_datetime, make_msgid
from functools import lru_cache

from pbem.mail.message import game_tags

_MSGID_RE = re.compile(r"^<[^<>\s]{1,500}>$")
_PREFIX_RE = re.compile(r"^\s*(?:(?:re|aw|sv|antw|fw|fwd|wg)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)
MAX_REFERENCES = 20


class _Registry(HeaderRegistry):
    """email.headerregistry's registry, whose header class for a name is made once: the standard one
    makes a new class (type(...)) for every header it parses, a tenth of a reply's time (issue 33).
    The class depends on the header's name alone, so every header is the same object as before."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        key = name.lower()
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = super().__getitem__(name)
        return made


_FACTORY = _Registry()


@lru_cache(maxsize=4096)
def _parsed_header(name: str, value: str):
    """The header object of `name: value` (email.headerregistry), made once: a header object is an
    immutable str whose parse does not depend on the policy, and a run's replies repeat most of theirs
    (From, To, Subject, Date, Auto-Submitted, the MIME headers); parsing them was a third of a reply."""
    return _FACTORY(name, value)


class _ReusedHeaders(EmailPolicy):
    """email.policy.default whose headers are parsed once per distinct value (`_parsed_header`): the
    same mail, byte for byte. A value of more than one line (any line break str.splitlines knows) goes
    to the default's own check, which refuses it, as before."""

    def header_store_parse(self, name, value):
        if type(value) is str and len(value.splitlines()) <= 1:
            return (name, _parsed_header(name, value))
        return super().header_store_parse(name, value)

    def fold_binary(self, name, value):
        """The header as written: folded once per header, value and line rules (a header object folds
        the same way every time; folding was a fifth of writing a reply)."""
        if not hasattr(value, "name"):
            return super().fold_binary(name, value)
        key = (name, value.name, str(value), self.max_line_length, self.linesep, self.utf8, self.cte_type)
        folded = _FOLDED.get(key)
        if folded is None:
            if len(_FOLDED) >= 4096:
                _FOLDED.clear()
            folded = _FOLDED[key] = super().fold_binary(name, value)
        return folded


_FOLDED: dict[tuple, bytes] = {}


DEFAULT = _ReusedHeaders(header_factory=_FACTORY)
SMTPUTF8 = DEFAULT.clone(utf8=True)


def clean_header(value: str, limit: int = 300) -> str:
    """One line of printable text, at most `limit` characters (no CR/LF: no header injection)."""
    value = str(value).encode("utf-8", "replace").decode("utf-8")
    value = re.sub(r"[\x00-\x1f\x7f\u2028\u2029\x85]+", " ", value)
    return re.sub(r"\s{2,}", " ", value).strip()[:limit]


def reply_subject(subject: str, game_id: str | None) -> str:
    """`Re: [<game>] <subject>` without repeated Re:/Fwd: prefixes or a second copy of the tag."""
    rest = clean_header(subject or "")
    while True:
        stripped = _PREFIX_RE.sub("", rest)
        if game_id:
            for tag in game_tags(stripped):
                if tag.lower() == game_id.lower():
                    stripped = re.sub(r"\[\s*" + re.escape(tag) + r"\s*\]", "", stripped, count=1).strip()
        if stripped == rest:
            break
        rest = stripped
    head = f"Re: [{game_id}]" if game_id else "Re:"
    return clean_header(f"{head} {rest}" if rest else head)


def ascii_domain(address: str) -> str:
    """`ann@köln.example` as `ann@xn--kln-sna.example` (IDNA): the same address, in ASCII."""
    local, at, domain = address.rpartition("@")
    if not at or domain.isascii():
        return address
    try:
        return f"{local}@{domain.encode('idna').decode('ascii')}"
    except UnicodeError:
        return address


def thread_references(references: Iterable[str], message_id: str | None) -> list[str]:
    """References for a reply: the original's References plus its Message-ID (last 20, valid ids)."""
    refs = [r for r in references if _MSGID_RE.match(r)]
    if message_id and _MSGID_RE.match(message_id) and message_id not in refs:
        refs.append(message_id)
    return refs[-MAX_REFERENCES:]


def _recipients(to: str | Sequence[str]) -> list[str]:
    """The To addresses of a mail, each one clean line, its domain in ASCII."""
    return [ascii_domain(clean_header(r)) for r in ([to] if isinstance(to, str) else list(to)) if r]


def _references(references: Iterable[str]) -> list[str]:
    """The valid Message-IDs of References, the last MAX_REFERENCES."""
    return [r for r in references if _MSGID_RE.match(r)][-MAX_REFERENCES:]


def _body(text: str) -> str:
    """A mail's text as it is written: valid UTF-8, ending with a line break."""
    body = str(text).encode("utf-8", "replace").decode("utf-8")
    return body if body.endswith("\n") else body + "\n"


def build_mail(
    to: str | Sequence[str],
    subject: str,
    text: str,
    *,
    from_addr: str,
    in_reply_to: str | None = None,
    references: Iterable[str] = (),
    attachments: Iterable[tuple[str, bytes, str]] = (),
    message_id: str | None = None,
    date: datetime | None = None,
    auto_submitted: str | None = None,
    extra_headers: dict[str, str] | None = None,
) -> EmailMessage:
    """A plain-text mail, then attachments `(filename, bytes, 'image/png')` (maps) in order.

    `in_reply_to` / `references` thread the mail under the one it answers; `auto_submitted`
    ('auto-replied' for replies, 'auto-generated' for reports) keeps autoresponders from answering.
    """
    recipients = _recipients(to)
    # an address whose local part is not ASCII (jörg@example.org) is written as it is (RFC 6532,
    # SMTPUTF8): an encoded word in an address is no address (issue 27)
    msg = EmailMessage(policy=SMTPUTF8 if not all(r.isascii() for r in recipients) else DEFAULT)
    msg["From"] = clean_header(from_addr)
    msg["To"] = ", ".join(recipients)
    msg["Subject"] = clean_header(subject, 500)
    msg["Date"] = format_datetime(date or datetime.now(UTC))
    domain = from_addr.rpartition("@")[2].strip(" <>") or "pbem.invalid"
    msg["Message-ID"] = message_id if message_id and _MSGID_RE.match(message_id) else make_msgid(
        "pbem", domain=clean_header(domain, 100) or "pbem.invalid")
    if in_reply_to and _MSGID_RE.match(in_reply_to):
        msg["In-Reply-To"] = in_reply_to
    refs = _references(references)
    if refs:
        msg["References"] = " ".join(refs)
    if auto_submitted:
        msg["Auto-Submitted"] = clean_header(auto_submitted)
    for name, value in (extra_headers or {}).items():
        msg[clean_header(name, 60)] = clean_header(value, 900)
    body = _body(text)
    msg.set_content(body, subtype="plain", charset="utf-8")
    digest = hashlib.sha256(f"{msg['To']}\0{msg['Subject']}\0{body}".encode())
    for filename, data, mimetype in attachments:
        maintype, _, subtype = (mimetype or "application/octet-stream").partition("/")
        msg.add_attachment(bytes(data), maintype=maintype, subtype=subtype or "octet-stream",
                           filename=clean_header(filename, 100))
        digest.update(b"\0" + filename.encode("utf-8", "replace") + b"\0" + bytes(data))
    subject_line = len("Subject: ") + len(msg["Subject"])
    if subject_line > msg.policy.max_line_length and len(msg["Subject"]) < msg.policy.max_line_length:
        # a subject that fits a line of its own, but not after "Subject: ", is moved whole to a
        # continuation line by the email package: read back it starts with a space. Written on one
        # line instead (RFC 5322 allows 998); the body was encoded above with the usual width.
        msg.policy = msg.policy.clone(max_line_length=subject_line + 1)
    if msg.is_multipart():
        # the same mail gets the same bytes (issue 27: two identical runs write identical mails); a
        # boundary made from the content's hash cannot occur in that content
        msg.set_boundary(f"==pbem-{digest.hexdigest()[:40]}")
    return msg


# --- a reply's bytes without the email package (issue 33: a burst writes a reply a mail) ---------------
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_ADDR = rf"{_ATOM}(?:\.{_ATOM})*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
_PLAIN_ADDRESS = re.compile(rf"^(?:{_ADDR}|{_ATOM}(?: {_ATOM})* <{_ADDR}>)$")
_PLAIN_ID = re.compile(rf"^<{_ATOM}(?:\.{_ATOM})*@{_ATOM}(?:\.{_ATOM})*>$")
_PLAIN_TEXT = re.compile(r"^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$")


def mail_bytes(to: str | Sequence[str], subject: str, text: str, *, from_addr: str, in_reply_to: str | None = None,
               references: Iterable[str] = (), attachments: Iterable[tuple[str, bytes, str]] = (),
               message_id: str | None = None, date: datetime | None = None, auto_submitted: str | None = None,
               extra_headers: dict[str, str] | None = None) -> bytes:
    """`bytes(build_mail(...))`: the same mail, byte for byte. A plain reply (no attachment, every
    header an ASCII line that needs no folding: one address, a short subject, a few references) is
    written here directly, its body encoded by the email package's own choice of encoding; any other
    mail is built by build_mail (tests/mail/test_compose_bytes.py compares the two over any input)."""
    refs = list(references)
    attachments = list(attachments)
    if not attachments and not extra_headers:
        fast = _plain_mail_bytes(to, subject, text, from_addr, in_reply_to, refs, message_id, date, auto_submitted)
        if fast is not None:
            return fast
    return bytes(build_mail(to, subject, text, from_addr=from_addr, in_reply_to=in_reply_to, references=refs,
                            attachments=attachments, message_id=message_id, date=date,
                            auto_submitted=auto_submitted, extra_headers=extra_headers))


def _plain_mail_bytes(to, subject, text, from_addr, in_reply_to, refs, message_id, date, auto_submitted) -> bytes | None:
    """The bytes of a plain reply as build_mail's message writes them, or None when it is not one
    (then build_mail makes it)."""
    from email.contentmanager import _encode_text

    recipients = _recipients(to)
    if len(recipients) != 1 or not _PLAIN_ADDRESS.match(recipients[0]) or not message_id \
            or not _PLAIN_ID.match(message_id):
        return None
    headers = [("From", clean_header(from_addr)), ("To", recipients[0]), ("Subject", clean_header(subject, 500)),
               ("Date", format_datetime(date or datetime.now(UTC))), ("Message-ID", message_id)]
    if not _PLAIN_ADDRESS.match(headers[0][1]):
        return None
    if in_reply_to and _MSGID_RE.match(in_reply_to):
        if not _PLAIN_ID.match(in_reply_to):
            return None
        headers.append(("In-Reply-To", in_reply_to))
    refs = _references(refs)
    if refs:
        if not all(_PLAIN_ID.match(r) for r in refs):
            return None
        headers.append(("References", " ".join(refs)))
    if auto_submitted:
        headers.append(("Auto-Submitted", clean_header(auto_submitted)))
    for name, value in headers:
        if len(name) + 2 + len(value) > DEFAULT.max_line_length or not _PLAIN_TEXT.match(value) or "=?" in value:
            return None
    cte, payload = _encode_text(_body(text), "utf-8", None, DEFAULT)
    head = "".join(f"{name}: {value}\n" for name, value in headers)
    head += f'Content-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: {cte}\nMIME-Version: 1.0\n\n'
    return head.encode("ascii") + payload.encode("ascii", "surrogateescape")


_HEADER_NAME = re.compile(rb"^[\x21-\x39\x3b-\x7e]+$")


def written_headers(data: bytes) -> Message:
    """The headers of a mail as `BytesParser(policy=compat32).parsebytes(data, headersonly=True)` reads
    them (what the outbox needs of a reply: its Message-ID, Subject, To). A mail whose header lines are
    all single ASCII lines (a plain reply, mail_bytes) is read here directly; any other by the parser."""
    end = data.find(b"\n\n")
    block = data[:end] if end > 0 else b""
    if block and block.isascii() and b"\r" not in block:
        msg = Message(policy=compat32)
        for line in block.split(b"\n"):
            name, sep, value = line.partition(b":")
            if not sep or not _HEADER_NAME.match(name):
                break
            msg.set_raw(name.decode("ascii"), value.decode("ascii").lstrip(" \t"))
        else:
            return msg
    return BytesParser(policy=compat32).parsebytes(data, headersonly=True)
