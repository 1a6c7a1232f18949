"""Mails that say a deadline moved (issue 32): nobody's deadline changes without their being told.

Every moderator entry that moves the deadline of the decision the game waits for — PAUSE, RESUME,
DEADLINE, EXTEND, ROLLBACK, REPLACE, by mail or by `pbem moderate` — is mailed by the next run to
each player that decision waits for, one mail per player, with their new deadline in their time
zone (pbem.store.clock.when_text). REPLACE also mails the new player their token and nations; an
absence (AWAY) is told to the moderator (pbem.service.away). Entries about a decision already played
(before the log's last step) are not mailed. Each mail is a notice (`moved:<entry>:<player>`), each
entry handled is marked `moved:<entry>`: a rerun sends nothing twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from functools import partial

from pbem import i18n
from pbem.i18n import _
from pbem.mail.compose import build_mail
from pbem.service.outgoing import log_line, send_once
from pbem.store.clock import current_deadline, mark_sent, player_zone, sent_keys, when_text
from pbem.store.game import Game, LogEntry, parse_time
from pbem.templating import render

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# notices alone, measured): pbem.service.decisions +18, pbem.rules.decisions +17, pbem.rules.flow +15,
# pbem.service.book +11.

Send = Callable[[EmailMessage], None]
MOVES = ("pause", "resume", "deadline", "extend", "rollback", "replace")


def waiting_players(game: Game) -> tuple[list[str], list[str]]:
    """The players the decision the game waits for is owed by, and its nations (pbem.rules.decisions)."""
    from pbem.rules.decisions import pending
    from pbem.service import decisions
    from pbem.service.book import build_book

    state = game.state
    if state.finished:
        return [], []
    rs = game.ruleset()
    owed = pending(rs, state, build_book(rs, game.entries()), wait_for_defenders=decisions.mode(game) == "wait")
    nations = list(dict.fromkeys(d.nation for d in owed if d.kind in ("turn", "vote")))
    players = list(dict.fromkeys(p for p in (game.player_of(n) for n in nations) if p))
    return players, nations


def change_line(game: Game, e: LogEntry, language: str = i18n.DEFAULT) -> str:
    """What the moderator did, in a sentence a player reads (with the moderator's reason), in their language."""
    action = e.get("action")
    why = f" ({e.get('why')})" if e.get("why") and e.get("why") not in ("by mail", "by command line") else ""
    t = lambda msg, **kw: i18n.tr(language, msg, why=why, **kw)  # noqa: E731
    if action == "pause":
        return t(_("The moderator paused the game%(why)s."))
    if action == "resume":
        return t(_("The moderator resumed the game%(why)s; the time it was paused is added to the deadline."))
    if action == "deadline":
        until = parse_time(e.get("until"))
        return t(_("The moderator set the deadline to %(until)s%(why)s."),
                 until=when_text(until) if until else e.get("until"))
    if action == "extend":
        return t(_("The moderator extended the deadline by %(hours)s hours%(why)s."),
                 hours=f"{float(e.get('hours') or 0):g}")
    if action == "rollback":
        return (t(_("The moderator rolled the game back to before %(turn)s%(why)s."), turn=_turn_named(game, e.get("turn")))
                if e.get("turn") else t(_("The moderator rolled the game back to before an earlier turn%(why)s.")))
    if action == "replace":
        return t(_("Player %(player)s was handed over to a new address%(why)s; the deadline starts again."),
                 player=e.get("player"))
    return t(_("The moderator: %(action)s%(why)s."), action=action)


def _turn_named(game: Game, turn) -> str:
    """The turn a rollback went back before, as a player reads it: the log's `round 2 <nation id>` is
    "the turn of the <nation> in round 2" (`round 3 start_round`: "the start of round 3")."""
    m = re.fullmatch(r"round (\d+) (\S+)", str(turn or ""))
    if not m:
        return str(turn) if turn else "an earlier turn"
    rs = game.ruleset()
    if m.group(2) in rs.nations:
        return f"the turn of the {rs.display(m.group(2))} in round {m.group(1)}"
    return f"the start of round {m.group(1)}" if m.group(2) == "start_round" else str(turn)


def deadline_notices(game: Game, now: datetime, send: Send, *, from_addr: str) -> int:
    """Mail the deadline changes not mailed yet (see the module doc). Returns the mails sent."""
    from pbem.rules.flow import votes_owed

    entries = game.entries()
    keys = sent_keys(game)
    last_step = max((i for i, e in enumerate(entries) if e.kind in ("created", "turn")), default=-1)
    todo = [e for e in entries[last_step + 1:]
            if e.kind == "moderator" and e.get("action") in MOVES and f"moved:{e.id}" not in keys]
    if not todo:
        return 0
    sent = 0
    for e in todo:
        if e.get("action") == "replace":
            sent += _replaced_mail(game, e, now, send, from_addr=from_addr)
    rs = game.ruleset()
    players, nations = waiting_players(game)
    deadline = current_deadline(game, entries, vote=votes_owed(rs, game.state))
    for player in players:
        p = game.player(player) or {}
        if not p.get("address"):
            continue
        lang = i18n.player_language(p)
        changes = [change_line(game, e, lang) for e in todo]
        mine = ", ".join(i18n.name(lang, rs, n) for n in nations if game.player_of(n) == player)
        what = (i18n.tr(lang, _("your Bretwalda vote for the %(nations)s"), nations=mine)
                if game.state.next_nation is None else i18n.tr(lang, _("your orders for the %(nations)s"), nations=mine))
        text = render("deadline.txt.j2", language=lang, game=game.id, changes=changes, paused=game.paused,
                      what=what, deadline=deadline.text(player_zone(game, player))) + log_line(game, lang)
        subject = f"[{game.id}] " + (i18n.tr(lang, _("the game is paused")) if game.paused else
                                     i18n.tr(lang, _("your deadline moved: %(deadline)s"),
                                             deadline=deadline.text(player_zone(game, player))))
        if send_once(game, f"moved:{todo[-1].id}:{player}", partial(
                build_mail, str(p["address"]), subject, text, from_addr=from_addr, auto_submitted="auto-generated"),
                send, now):
            sent += 1
    for e in todo:
        mark_sent(game, f"moved:{e.id}", now)
    return sent


def _replaced_mail(game: Game, e: LogEntry, now: datetime, send: Send, *, from_addr: str) -> int:
    """The new player of a replaced seat gets their token and nations (once, `replaced:<entry>`)."""
    from pbem.rules.flow import votes_owed

    name = str(e.get("player"))
    p = game.player(name) or {}
    if not p.get("address") or p.get("address") != e.get("address"):   # replaced again since: that entry mails
        mark_sent(game, f"replaced:{e.id}", now)
        return 0
    rs = game.ruleset()
    state = game.state
    nxt = state.next_nation
    lang = i18n.player_language(p)
    waiting = i18n.name(lang, rs, nxt) if nxt and game.player_of(nxt) == name else ""
    deadline = current_deadline(game, vote=votes_owed(rs, state))
    text = render("replaced.txt.j2", language=lang, game=game.id, player=name, colour=i18n.colour(lang, p.get("colour", "")),
                  nations=[i18n.name(lang, rs, n) for n in p.get("nations") or []], token=p.get("token"),
                  waiting=waiting, deadline=deadline.text(player_zone(game, name)),
                  next=i18n.name(lang, rs, nxt) if nxt else i18n.tr(lang, _("the start of the round")),
                  guide_name=i18n.GUIDES[lang]) + log_line(game, lang)
    subject = f"[{game.id}] " + i18n.tr(lang, _("you now play %(nations)s"), nations=", ".join(
        i18n.name(lang, rs, n) for n in p.get("nations") or []))
    return int(send_once(game, f"replaced:{e.id}", partial(build_mail, str(p["address"]), subject, text,
                                                           from_addr=from_addr, auto_submitted="auto-generated"),
                         send, now))
