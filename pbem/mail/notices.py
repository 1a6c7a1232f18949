"""The polite texts the intake sends by itself (issue 9): unroutable mail, failed authentication,
a notice to the player someone pretended to be, internal errors, and notes on truncation/attachments.

They never quote a registered address, a token, or the list of games to the person who wrote.
"""

from __future__ import annotations

from pbem.i18n import _, tr
from pbem.mail.message import MAX_BODY, MailIn


def notes(mail: MailIn, language: str = "en") -> str:
    """Lines added to every reply about what in the mail was not read (truncation, attachments), in
    the reader's `language` (pbem.i18n)."""
    out = []
    if mail.truncated:
        out.append(tr(language, _("Note: your message was too long; only its first %(kib)s KiB of text were read "
                                  "(it was truncated). Please send orders as plain text."), kib=MAX_BODY // 1024))
    if mail.attachments:
        names = ", ".join(mail.attachments[:10]) + (" ..." if len(mail.attachments) > 10 else "")
        out.append(tr(language, _("Note: attachments are not read (%(names)s); put your orders in the text of the "
                                  "mail."), names=names))
    if not mail.text.strip():
        out.append(tr(language, _("Note: no readable text was found in your message.")))
    return "\n".join(out)


def with_notes(text: str, mail: MailIn, language: str = "en") -> str:
    extra = notes(mail, language)
    return f"{text.rstrip()}\n\n{extra}\n" if extra else text


def unroutable(mail: MailIn, asked: str | None, near: list[str] | None = None) -> str:
    which = (f'There is no game "{asked[:64]}" here.' if asked
             else "We could not tell which game your message is for.")
    if near:
        which += " Did you mean " + " or ".join(f'"{g}"' for g in near) + "? Send your orders again with that name."
    return with_notes(
        "Hello,\n\n"
        f"thank you for your message. {which}\n\n"
        "Please name the game either in the subject, as a tag like [demo-1], or on a line of its own\n"
        "at the top of the message:\n\n"
        "    GAME demo-1\n"
        "    NATION Saxons\n"
        "    TOKEN <your token>\n\n"
        "Your message was kept, but nothing was done with it.\n", mail)


_AUTH_REASON = {
    "no-token": _("it has no TOKEN line. Please add the line `TOKEN <your token>` from your game invitation\n"
                  "(the word TOKEN in Latin letters, in a mail written in any language: not ТОКЕН)."),
    "bad-token": _("its TOKEN line does not match the token registered for your address in this game."),
    "unknown-sender": _("your address is not registered for this game. Please write from the address "
                        "you registered with, or ask the moderator to change it."),
}


def auth_failed(game_id: str, reason: str, mail: MailIn, language: str = "en") -> str:
    """To the sender of a mail that failed authentication, in the language of the player whose
    address it came from (English for an address the game does not know)."""
    if language != "en":
        why = tr(language, _AUTH_REASON.get(reason, _("it could not be authenticated.")))
        return with_notes(tr(language, _("Hello,\n\nyour message for game %(game)s was not accepted (error kind: "
                                         "auth), because\n%(why)s\n\nNothing was recorded. Please send your orders "
                                         "again.\n"), game=game_id, why=why), mail, language)
    return with_notes(
        "Hello,\n\n"
        f"your message for game {game_id} was not accepted (error kind: auth), because\n"
        f"{_AUTH_REASON.get(reason, 'it could not be authenticated.')}\n\n"
        "Nothing was recorded. Please send your orders again.\n", mail)


def claim_notice(game_id: str, who: str, mail: MailIn, token_matched: bool) -> str:
    as_whom = "the moderator" if who == "moderator" else f"player {who}"
    token_line = (
        "It contained YOUR correct token. If you did not send it, ask the moderator for a new token.\n"
        if token_matched else "")
    return (
        "Hello,\n\n"
        f"a message for game {game_id} that claimed to come from {as_whom} arrived from the\n"
        f"unregistered address <{mail.from_addr or 'unknown'}> (subject: \"{mail.subject[:120]}\").\n"
        "It was rejected and nothing was recorded.\n"
        f"{token_line}\n"
        "If it was you, please send your orders from your registered address.\n")


def too_large(game_id: str | None, mail: MailIn) -> str:
    """A mail bigger than the parse limit (MAX_PARSE) is not read at all (issue 27)."""
    from pbem.mail.message import MAX_PARSE

    what = f"your message for game {game_id}" if game_id else "your message"
    return (
        "Hello,\n\n"
        f"{what} is too large to be read: it has {mail.size / 2**20:.1f} MiB, and at most "
        f"{MAX_PARSE // 2**20} MiB of a mail are read.\n"
        "Nothing of it was read or recorded, and it was kept. Please send your orders as plain text,\n"
        "without attachments.\n")


def could_not_read(game_id: str | None, mail: MailIn, error: str, taken: str, language: str = "en") -> str:
    """To the sender of a mail that pbem could not handle (issue 27): it was kept, not used (in the
    sender's `language`; the error itself stays as written)."""
    if language != "en":
        said = f"{taken.strip()}\n" if taken.strip() else tr(language, _("Nothing of it was recorded.")) + "\n"
        return with_notes(tr(language, _("Hello,\n\nyour message for game %(game)s (subject \"%(subject)s\") could not "
                                         "be read: %(error)s.\n%(said)s\nThe message was kept and set aside, and the "
                                         "moderator has been told; the game goes on.\nPlease send your orders again "
                                         "(if a line of this mail was unusual, leave it out).\n"),
                             game=game_id, subject=mail.subject[:120], error=error.rstrip("."), said=said),
                          mail, language)
    what = f"your message for game {game_id}" if game_id else "your message"
    said = f"{taken.strip()}\n" if taken.strip() else "Nothing of it was recorded.\n"
    return with_notes(
        "Hello,\n\n"
        f"{what} (subject \"{mail.subject[:120]}\") could not be read: {error.rstrip('.')}.\n"
        f"{said}\n"
        "The message was kept and set aside, and the moderator has been told; the game goes on.\n"
        "Please send your orders again (if a line of this mail was unusual, leave it out).\n", mail)


def moderator_error(game_id: str, mail: MailIn, error: str, taken: str = "", where=None) -> str:
    """To the moderator: which mail was set aside and why (issue 27)."""
    kept = f"It is kept in {where}.\n" if where else "It is kept in the mail archive.\n"
    said = f"{taken.strip()}\n" if taken.strip() else "Nothing of it was recorded.\n"
    return (
        f"A message for game {game_id} could not be handled and was set aside:\n\n"
        f"  Message-ID: {mail.message_id[:200]}\n"
        f"  From:       <{mail.from_addr or 'unknown'}>\n"
        f"  Subject:    {mail.subject[:200]}\n"
        f"  Date:       {mail.date[:100]}\n"
        f"  sha256:     {mail.sha256}\n\n"
        f"The error:\n\n    {error[:2000]}\n\n"
        f"{said}{kept}"
        "The sender was told that the mail could not be read. The game goes on: its other mail is\n"
        "read and its turns are played.\n")
