"""Move a game along as far as it can go now (issue 11): round starts, nations' turns in the order of
play, each logged through the store (so replay re-derives it), each followed by the turn mail (report
text, report.json and map PNG) to every player and observer. Where orders are owed and the deadline
has not passed, the owing player gets one prompt and one reminder; at the deadline the no-orders rule
applies (hold everything, no retreat, raiders withdraw: the defaults; or the greedy bot).
"""

from __future__ import annotations

import copy
import hashlib
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from functools import partial
from pathlib import Path

from pbem import i18n
from pbem.i18n import _N, _
from pbem.mail.compose import build_mail
from pbem.orders.canonical import canonical_lines
from pbem.orders.check import check_orders, renumber
from pbem.orders.hygiene import quote
from pbem.orders.parser import parse_message
from pbem.orders.reply import render_reply
from pbem.report import build_report, report_json, report_text
from pbem.report.lines import mail_line_map, played_from_player_orders
from pbem.report.localize import localize
from pbem.report.prompt import guide_attachments, guide_line, prompt_text
from pbem.report.result import partner_totals, result_line
from pbem.rules.book import no_orders
from pbem.rules.decisions import pending
from pbem.rules.dice import commitment
from pbem.rules.events import RoundEnded, RoundStarted
from pbem.rules.flow import votes_owed
from pbem.rules.orders import STANDING_TYPES, NationOrders, Order
from pbem.rules.turn import next_nation_after
from pbem.service import decisions, moderator
from pbem.service.away import away_notices, away_now
from pbem.service.book import build_book
from pbem.service.gamerun import GameRun
from pbem.service.notices import deadline_notices
from pbem.service.outgoing import finish_pending, log_line, message_id, send_once
from pbem.service.play import play_turn
from pbem.service.welcome import send_welcome
from pbem.store.clock import (
    already_sent,
    away_policy,
    current_deadline,
    mark_sent,
    moderate_at,
    nmr_counts,
    player_zone,
    remind_time,
    sent_keys,
)
from pbem.store.dicecheck import reveal_secret
from pbem.store.fs import atomic_write
from pbem.store.game import Game, LogEntry
from pbem.store.hashing import state_hash
from pbem.store.recover import changes_state, state_after
from pbem.store.yamlio import dump_roundtrip
from pbem.templating import render

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# advance alone, measured): pbem.render +286, pbem.position.game +13, pbem.bots +4.

Send = Callable[[EmailMessage], None]
MAX_STEPS = 200


def from_addr(game: Game) -> str:
    return str((game.settings.get("mail") or {}).get("from") or f"pbem-{game.id}@localhost")


def everyone(game: Game) -> list[str]:
    addrs = [str(p.get("address")) for p in game.players() if p.get("address")]
    addrs += [str(a) for a in game.settings.get("observers") or []]
    return list(dict.fromkeys(addrs))


def audiences(game: Game) -> list[tuple[str, list[str]]]:
    """everyone(game) by language (pbem.i18n): English (with the observers) first, then each other
    language its players chose; a mail to everyone is one mail per language, the same facts in each."""
    langs = {str(p.get("address")): i18n.player_language(p) for p in game.players() if p.get("address")}
    groups: dict[str, list[str]] = {}
    for addr in everyone(game):
        groups.setdefault(langs.get(addr, i18n.DEFAULT), []).append(addr)
    return sorted(groups.items(), key=lambda kv: (kv[0] != i18n.DEFAULT, kv[0]))


def send_to_all(game: Game, key: str, build: Callable[[str, list[str]], EmailMessage], send: Send,
                now: datetime) -> bool:
    """One mail per language of `audiences(game)`, `build(language, addresses)`; the first language's
    mail is notice `key` (an all-English game mails as before), each other one `key:<language>`."""
    sent = False
    groups = audiences(game)
    if not groups:
        mark_sent(game, key, now)
        return False
    for i, (lang, to) in enumerate(groups):
        k = key if i == 0 else f"{key}:{lang}"
        sent = send_once(game, k, partial(build, lang, to), send, now) or sent
    return sent


def orders_text(orders: NationOrders, rs) -> str:
    """Typed orders as logged in a turn entry: their canonical form (parsing it gives the same orders)."""
    return "\n".join(canonical_lines(orders, rs)) + "\n" if orders.orders else ""


def nmr_orders(game: Game, rs, nation: str, *, bot: bool = False) -> list[Order]:
    """No orders at the deadline: hold (the defaults), or the greedy bot if the game says so (or
    `bot`: the player is away under `options.away: bot`)."""
    if bot or str((game.settings.get("options") or {}).get("nmr", "hold")) == "bot":
        from pbem.bots import bot_orders

        text = bot_orders(rs, game.state, nation, kind="greedy", seed=game.id)
        sec = parse_message(text, rs, default_nation=nation).section(nation)
        if sec is not None:
            return [o for o in sec.orders if not isinstance(o, STANDING_TYPES)]
    return no_orders()


def _play(game: Game, rs, orders: dict[str, NationOrders], used: dict[str, list[int]], now: datetime,
          nation: str | None = None, step: str = "nation") -> LogEntry:
    texts = {n: orders_text(no, rs) for n, no in sorted(orders.items())}
    return play_turn(game, nation, step=step, orders=texts, used=used, time=now.isoformat())


def advance(game: Game, now: datetime, send: Send, *, outbox: Path | None = None, render_map: bool = True) -> GameRun:
    """Play every step that can be played now: whatever `pending` (pbem.rules.decisions) says is owed
    waits until its deadline. Holds the game's lock (a busy game is left alone)."""
    run = GameRun(game.id)
    if game.paused:
        run.note = "paused"
        with game.lock(blocking=False):   # the players are told their deadline stopped
            run.mails += finish_pending(game, send, now)
            run.mails += deadline_notices(game, now, send, from_addr=from_addr(game))
        return run
    with game.lock(blocking=False):
        sweep_preview(game)
        run.mails += finish_pending(game, send, now)
        _owed_turn_mail(game, now, send, run, outbox=outbox, render_map=render_map)
        _position_mail(game, now, send, run, outbox=outbox, render_map=render_map)
        run.mails += deadline_notices(game, now, send, from_addr=from_addr(game))
        run.mails += away_notices(game, now, send, from_addr=from_addr(game))
        for _ in range(MAX_STEPS):
            state = game.state
            if state.finished:
                _game_over(game, now, send, run)
                break
            rs = game.ruleset()
            entries = game.entries()
            book = build_book(rs, entries)
            owed = pending(rs, state, book, wait_for_defenders=decisions.mode(game) == "wait")
            is_vote = votes_owed(rs, state)
            deadline = current_deadline(game, entries, vote=is_vote)
            due = deadline.passed(now) or moderator.forced(game)
            if state.next_nation is None:
                if owed and not due:
                    _prompt(game, rs, [d.nation for d in owed], deadline, now, send, run,
                            what="your Bretwalda vote (VOTE <nation>)")
                    break
                voters = book.voters()
                entry = _play(game, rs, voters, {n: book.get(n).entries(vote=True) for n in voters}, now,
                              step="start_round")
                run.steps.append(f"round {entry.get('round')} starts")
            else:
                nation = state.next_nation
                turn = next((d for d in owed if d.kind == "turn"), None)
                own = book.get(nation)
                stand_in = turn is not None and _away_bot(game, nation, now, entries)
                if turn is not None and not due and not stand_in:
                    if own.draft and not own.has_turn_orders:   # after a rollback: ask again, the old orders as a draft
                        _prompt(game, rs, [nation], deadline, now, send, run, what="your orders again",
                                draft=orders_text(NationOrders(nation, own.draft), rs))
                        break
                    still: list[str] = []
                    if turn.correction:
                        _ask_correction(game, rs, state, nation, book, entries, deadline, now, send, run)
                        still = still_wrong(game, rs, nation, book, entries, turn.problems)
                    _prompt(game, rs, [nation] if turn.correction else consecutive_nations(game, rs, state, book, nation),
                            deadline, now, send, run,
                            what="corrected orders" if turn.correction else "your orders", still_wrong=still)
                    break
                defence = [d for d in owed if d.kind == "defence"]
                if defence and not (decisions.due(game, state, nation, now) or moderator.forced(game)):
                    _decision_prompts(game, rs, state, nation, defence, now, send, run)
                    break
                supplied = None
                if not own.has_turn_orders and own.draft:   # the deadline: the draft is played
                    book.play_draft(nation)
                if not own.has_turn_orders:
                    supplied = nmr_orders(game, rs, nation, bot=stand_in)
                    player = game.player_of(nation)
                    if stand_in:
                        run.steps.append(f"{rs.display(nation)}: {player} is away: played by standing orders and the bot")
                    elif deadline.passed(now):
                        run.steps.append(f"{rs.display(nation)}: no orders at the deadline ({_nmr_word(game)})")
                        if player:
                            mark_sent(game, f"nmr:{deadline.key}:{player}", now)
                    else:   # played early by the moderator (process, preview): not a missed deadline
                        run.steps.append(f"{rs.display(nation)}: no orders, played now by the moderator "
                                         f"({_nmr_word(game)})")
                orders = book.for_turn(nation, supplied)
                used = {n: book.get(n).entries(standing=True, turn=n != nation or supplied is None) for n in orders}
                entry = _play(game, rs, orders, used, now, nation)
                if supplied is not None and stand_in:
                    mark_sent(game, f"{AWAY_PLAYED}{entry.id}", now)   # the turn mail says so
                run.steps.append(f"round {entry.get('round')}: {rs.display(nation)} played")
            if worth_a_mail(entry):
                _turn_mail(game, entry, now, send, run, outbox=outbox, render_map=render_map,
                           ledger_from=len(state.ledger))
        run.mails += send_welcome(game, now, send, from_addr=from_addr(game), render_map=render_map,
                                  guide_url=guide_url(game))
    return run


QUIET_EVENTS = (RoundStarted, RoundEnded)
AWAY_PLAYED = "away-played:"
"""The notice of a turn played by standing orders and the bot while its player was away."""


def _away_bot(game: Game, nation: str, now: datetime, entries: list[LogEntry]) -> bool:
    """`options.away: bot` and the nation's player is away now: it plays without waiting."""
    return away_policy(game) == "bot" and away_now(game, game.player_of(nation), now, entries)


def consecutive_nations(game: Game, rs, state, book, nation: str) -> list[str]:
    """The nation to move and the nations of the same player that move right after it in this round
    (rule 4.0: a nation with nothing to do is skipped) and have no orders yet: one prompt asks for all
    of them (issue 32), and each is played the moment its turn comes with the orders sent."""
    player = game.player_of(nation)
    out, n = [nation], nation
    while player and (n := next_nation_after(rs, state, n)) is not None and game.player_of(n) == player:
        if not book.get(n).has_turn_orders:
            out.append(n)
    return out


def turn_mail_key(entry: LogEntry) -> str:
    return f"turn:{entry.id}"


def outbox_of(game: Game) -> Path:
    """The game's own outbox folder (settings `mail.outbox`, default `outbox`)."""
    return game.path / str((game.settings.get("mail") or {}).get("outbox", "outbox"))


def mailed_report_folder(outbox: Path, entry_id: int) -> Path:
    """Where a turn mail's copy (report.txt, report.json, map.png) is kept in the outbox."""
    return outbox / "reports" / f"{entry_id:06d}"


WATERMARK = "turns-mailed-upto:"
"""The notice recorded on the first run that finds a game without any `turn:` notice: `WATERMARK<id>`,
every turn entry up to <id> counts as mailed (by an earlier version, on the machine the game came
from, or before notices.json was deleted); every turn entry after it has its own `turn:` notice."""


def turns_mailed_upto(keys: set[str]) -> int | None:
    """The watermark recorded for a game (None: none yet)."""
    marks = [int(k[len(WATERMARK):]) for k in keys if k.startswith(WATERMARK) and k[len(WATERMARK):].isdigit()]
    return max(marks) if marks else None


def _owed_turn_mail(game: Game, now: datetime, send: Send, run: GameRun, *, outbox: Path | None,
                    render_map: bool) -> None:
    """A run killed after logging a turn but before its turn mail was decided on: mail it now.

    What is owed comes from the log: only the log's last live turn can be owed one (each turn's mail
    goes out before the next turn is played), and only when nothing after it changed the position (a
    rollback voids it) and its `turn:` notice is not recorded. A game found without any `turn:` notice
    (a new game; the bundled demo, a game moved with `pbem export`/`import`, one from before turn
    mails were recorded, one whose notices.json was deleted) first gets a watermark (WATERMARK,
    before this run plays anything): the turns it has logged so far count as mailed, without mailing
    its history again; a turn logged after it is owed like any."""
    entries = game.entries()
    keys = sent_keys(game)
    turns = [i for i, e in enumerate(entries) if e.kind == "turn"]
    upto = turns_mailed_upto(keys)
    if upto is None and not any(k.startswith("turn:") for k in keys):
        mark_sent(game, f"{WATERMARK}{entries[turns[-1]].id if turns else 0}", now)
        return
    if not turns:
        return
    last = entries[turns[-1]]
    if any(changes_state(e) for e in entries[turns[-1] + 1:]) or not worth_a_mail(last):
        return
    if turn_mail_key(last) in keys or (upto is not None and last.id <= upto):
        return
    before = state_after(game, entries, last.id - 1)
    _turn_mail(game, last, now, send, run, outbox=outbox, render_map=render_map, ledger_from=len(before.ledger))


def _orders_entry(book, nation: str, entries: list[LogEntry]) -> LogEntry | None:
    """The orders entry the nation's waiting turn orders come from."""
    latest = book.get(nation).turn_entry or 0
    return next((e for e in entries if e.id == latest), None)


def _checked_then(entry: LogEntry | None, entries: list[LogEntry]) -> bool:
    """Whether the reply to the orders' mail judged them against the position of now: nothing that
    changes the position was logged after them."""
    return entry is not None and not any(changes_state(e) for e in entries if e.id > entry.id)


def _problem_line(p, mail_lines: list[int] | None) -> str:
    line = mail_lines[p.line - 1] if mail_lines and 0 < p.line <= len(mail_lines) else p.line
    where = f'line {line} "{quote(p.text)}": ' if line and p.text else (f"line {line}: " if line else "")
    return f"{where}{p.message}" + (f" ({p.hint})" if p.hint else "")


def still_wrong(game: Game, rs, nation: str, book, entries: list[LogEntry], problems) -> list[str]:
    """What the rules still refuse in the orders waiting, one line each, with the line numbers of the
    mail they came from (issue 30): the prompt and the reminder repeat it."""
    entry = _orders_entry(book, nation, entries)
    mail_lines = list(entry.get("mail_lines") or []) if entry is not None else None
    return [_problem_line(p, mail_lines) for p in problems]


def _ask_correction(game: Game, rs, state, nation: str, book, entries: list[LogEntry], deadline,
                    now: datetime, send: Send, run: GameRun) -> None:
    """The nation's turn has come and the rules refuse lines of the orders waiting. When its mail was
    answered against this very position (sent during the nation's own turn), that reply said so
    already: one mail gets one reply (issue 30). Orders sent early (checked against the position
    then) get one mail, saying that the position changed since the reply; it stands for the turn's
    prompt (the reminder follows as usual). The lines keep the mail's numbers."""
    entry = _orders_entry(book, nation, entries)
    if entry is None or _checked_then(entry, entries):
        return
    key = f"checked:{entry.id}"
    player = game.player_of(nation)
    addr = (game.player(player) or {}).get("address") if player else None
    if not addr or already_sent(game, key):
        return
    from pbem.service.inbox import verdict
    from pbem.store.recover import state_after

    lang = i18n.player_language(game.player(player))
    text = orders_text(book.get(nation).orders(), rs)
    result = renumber(check_orders(text, rs, state, nation=nation), entry.get("mail_lines"))
    replied = renumber(check_orders(text, rs, state_after(game, entries, entry.id), nation=nation),
                       entry.get("mail_lines"))
    if _refusals(result) == _refusals(replied):
        return   # the reply refused just this: the turn's prompt repeats it (still_wrong), no second verdict
    name = i18n.name(lang, rs, nation)
    unread = int(entry.get("unread") or 0)
    section = result.parsed.section(nation)
    lines = [ln for ln in result.lines if ln.nation == nation]
    verdicts = [verdict(rs, state, section, sum(len(ln.problems) for ln in lines),
                        sum(1 for ln in lines if ln.ok and ln.notes),
                        sum(1 for ln in lines if ln.partly_played and not ln.ok), language=lang)] if section is not None else []
    body = (i18n.tr(lang, _("The position has changed since our reply to your orders for the %(name)s (your mail "
                            "received %(received)s): that reply judged them against the position of then; now that "
                            "their turn has come, the rules refuse what is marked ERROR below. Line numbers are "
                            "those of your mail"),
                    name=name, received=entry.get("received"))
            + (i18n.trn(lang, _N("; %(num)d line of it could not be read (see our reply)",
                                 "; %(num)d lines of it could not be read (see our reply)"), unread) if unread else "")
            + ".\n\n"
            + render_reply(result, rs, deadline=deadline.text(player_zone(game, player)), game=game.id,
                           verdicts=verdicts, language=lang)
            + "\n" + guide_line(lang) + "\n" + log_line(game, lang))
    if send_once(game, key, lambda: build_mail(
            str(addr), f"[{game.id}] " + i18n.tr(lang, _("the position changed: please correct your orders for the "
                                                        "%(name)s"), name=name), body,
            from_addr=from_addr(game), auto_submitted="auto-generated", attachments=guide_attachments(lang)),
            send, now):
        run.mails += 1
    mark_sent(game, notice_key("prompt", deadline, str(player)), now)   # this mail was the turn's prompt


def _refusals(result) -> set[tuple[int, str, str]]:
    """What a check refused, line by line (mail numbers), to compare two checks of the same orders."""
    return {(ln.line, p.kind, p.message) for ln in result.lines for p in ln.problems} | \
        {(0, p.kind, p.message) for p in result.general}


def _decision_prompts(game: Game, rs, state, nation: str, items, now: datetime, send: Send, run: GameRun) -> None:
    """Wait mode: ask each attacked defender for a DEFEND order before the turn is adjudicated."""
    texts = decisions.prompt_text(game, rs, state, nation, items)
    decisions.record_prompt(game, state, nation, now)
    run.waiting_for = [f"{p} (retreat decision)" for p in texts]
    for player, text in texts.items():
        k = f"prompt:{decisions.key(state, nation)}:{player}"
        addr = (game.player(player) or {}).get("address")
        if already_sent(game, k) or not addr:
            continue
        lang = i18n.player_language(game.player(player))
        body = (i18n.tr(lang, _("Game %(game)s, round %(round)s."), game=game.id, round=state.round)
                + f"\n\n{text}\n\n"
                + i18n.tr(lang, _("Reply with GAME %(game)s, your TOKEN and the DEFEND line(s) within %(hours)s hours; "
                                  "without an answer your armies hold (they do not retreat)."),
                          game=game.id, hours=f"{decisions.hours(game, 'decision_hours'):g}")
                + "\n\n" + guide_line(lang) + "\n" + log_line(game, lang))
        if send_once(game, k, partial(
                build_mail, str(addr), f"[{game.id}] " + i18n.tr(lang, _("retreat decision: the %(name)s attack"),
                                                                 name=i18n.name(lang, rs, nation)), body,
                from_addr=from_addr(game), auto_submitted="auto-generated", attachments=guide_attachments(lang)),
                send, now):
            run.mails += 1


def worth_a_mail(entry: LogEntry) -> bool:
    """A round start with nothing happening (no vote, no King, no Romans leaving) gets no mail."""
    return entry.get("step") != "start_round" or any(not isinstance(ev, QUIET_EVENTS) for ev in entry.typed_events())


def _nmr_word(game: Game) -> str:
    return "played by the bot" if str((game.settings.get("options") or {}).get("nmr", "hold")) == "bot" else "hold"


def notice_key(kind: str, deadline, player: str, draft: str = "") -> str:
    """The notice of a prompt or reminder (`kind`) for one deadline and player."""
    return f"{kind}:{deadline.key}:{player}" + (f":again:{deadline.started.isoformat()}" if draft else "")


WHAT = {w: w for w in (_("your Bretwalda vote (VOTE <nation>)"), _("your orders again"), _("corrected orders"),
                       _("your orders"))}
"""What a prompt waits for, in each player's language."""


def _prompt(game: Game, rs, nations: list[str], deadline, now: datetime, send: Send, run: GameRun, *, what: str,
            draft: str = "", still_wrong: list[str] | None = None) -> None:
    """One prompt per decision and player, one reminder before the deadline."""
    by_player: dict[str, list[str]] = {}
    for n in nations:
        p = game.player_of(n)
        if p:
            by_player.setdefault(p, []).append(n)
    run.waiting_for = [f"{p} ({', '.join(rs.display(n) for n in ns)})" for p, ns in by_player.items()]

    for player, ns in by_player.items():
        p = game.player(player) or {}
        addr = p.get("address")
        if not addr:
            continue
        lang = i18n.player_language(p)
        zone = player_zone(game, player)
        for kind in ("prompt", "reminder"):
            key = notice_key(kind, deadline, player, draft)
            if already_sent(game, key) or (kind == "reminder" and now < remind_time(deadline, zone)):
                continue
            names = ", ".join(i18n.name(lang, rs, n) for n in ns)
            said = i18n.tr(lang, WHAT[what]) if what in WHAT else what
            head = i18n.tr(lang, _("Reminder:")) + " " if kind == "reminder" else ""
            body = prompt_text(game.id, rs, game.state, ns, what=said, deadline=deadline.text(zone),
                               reminder=kind == "reminder", guide_url=guide_url(game), draft=draft,
                               still_wrong=still_wrong or (), language=lang) + log_line(game, lang)
            subject = f"[{game.id}] {head}" + i18n.tr(lang, _("%(what)s for the %(nations)s"), what=said, nations=names)
            if send_once(game, key, partial(build_mail, str(addr), subject, body, from_addr=from_addr(game),
                                            auto_submitted="auto-generated", attachments=guide_attachments(lang)),
                         send, now):
                run.mails += 1


def guide_url(game: Game) -> str:
    """Where players read the guide online, if the moderator says (game.yaml `mail.guide_url`)."""
    return str((game.settings.get("mail") or {}).get("guide_url") or "")


def _turn_mail(game: Game, entry: LogEntry, now: datetime, send: Send, run: GameRun, *,
               outbox: Path | None, render_map: bool, ledger_from: int) -> None:
    rs = game.ruleset()
    state = game.state
    events = entry.typed_events()
    vote = votes_owed(rs, state)
    deadline = current_deadline(game, vote=vote)
    waiting = []
    zone = None            # the deadline in the time zone of the player it waits for
    if state.next_nation:
        p = game.player_of(state.next_nation)
        zone = player_zone(game, p)
        waiting = [f"{p} ({rs.display(state.next_nation)})" if p else rs.display(state.next_nation)]
    settings = dict(game.settings)   # every report carries the dice commitment (the first one mailed too)

    log = game.entries()
    played_by = None
    if entry.get("nation") and not played_from_player_orders(rs, log, entry):
        played_by = (f"No orders came for the {rs.display(entry.get('nation'))}: "
                     + ("the bot played their turn (the game's no-orders rule)." if _nmr_word(game) != "hold"
                        else "they held (the no-orders rule: no moves, no retreats; what the rules do by default still happens)."))
    report = build_report(rs, state, events, settings, played=entry.get("nation"), round_played=int(entry.get("round")),
                          deadline=None if state.finished else deadline.text(zone), waiting_for=waiting, ledger_from=ledger_from,
                          nmr=nmr_counts(game), mail_lines=mail_line_map(log, entry), played_by=played_by,
                          dice_generation=int(entry.get("dice_generation") or 0))
    text = _away_note(game, entry, rs) + report_text(report, rs=rs) + log_line(game)
    attachments = [("report.json", report_json(report).encode(), "application/json")]
    png = b""
    if render_map:
        png = map_png(rs, state, report["title"], events)
        attachments.insert(0, ("map.png", png, "image/png"))
    if outbox is not None:
        base = mailed_report_folder(outbox, entry.id)
        base.mkdir(parents=True, exist_ok=True)
        atomic_write(base / "report.txt", text)
        atomic_write(base / "report.json", report_json(report))
        if png:
            atomic_write(base / "map.png", png)
    def mail(lang: str, to: list[str]) -> EmailMessage:
        local = localize(report, rs, lang)
        body = text if lang == i18n.DEFAULT else (
            _away_note(game, entry, rs, lang) + report_text(local, lang, rs) + log_line(game, lang))
        return build_mail(to, f"[{game.id}] {local['title'].split('] ', 1)[-1]}", body, from_addr=from_addr(game),
                          attachments=local_attachments(attachments, lang,
                                                        lambda: map_png(rs, state, local["title"], events, lang)),
                          auto_submitted="auto-generated")

    if send_to_all(game, turn_mail_key(entry), mail, send, now):
        run.mails += 1


def _away_note(game: Game, entry: LogEntry, rs, language: str = i18n.DEFAULT) -> str:
    """The line a turn mail starts with when the turn was played for an absent player (options.away: bot)."""
    if not already_sent(game, f"{AWAY_PLAYED}{entry.id}"):
        return ""
    nation = str(entry.get("nation"))
    return i18n.tr(language, _("The %(nation)s were played by their standing orders and the bot: their player "
                               "%(player)s is away (AWAY)."), nation=i18n.name(language, rs, nation),
                   player=game.player_of(nation)) + "\n\n"


def _position_mail(game: Game, now: datetime, send: Send, run: GameRun, *, outbox: Path | None,
                   render_map: bool) -> None:
    """A game moved over from a typed-in position (pbem new --position): before anything is played,
    everyone gets the imported position (map, scores, the file as read) once, to confirm it."""
    from pbem.position.game import export_position, position_mail_key

    key = position_mail_key(game)
    if key is None or already_sent(game, key):
        return
    rs = game.ruleset()
    state = game.state
    report = build_report(rs, state, [], dict(game.settings), played=None, round_played=state.round,
                          deadline=current_deadline(game, vote=votes_owed(rs, state)).text(), ledger_from=len(state.ledger),
                          nmr=nmr_counts(game))
    def position_text(lang: str) -> str:
        return render("position.txt.j2", language=lang, game=game.id, corrected=key != "position-imported",
                      report=report_text(localize(report, rs, lang), lang, rs), round=state.round,
                      nation=i18n.name(lang, rs, state.next_nation) if state.next_nation else None,
                      position=export_position(game)) + log_line(game, lang)

    text = position_text(i18n.DEFAULT)
    attachments = [("position.yaml", export_position(game).encode(), "text/plain")]
    png = b""
    if render_map:
        png = map_png(rs, state, f"{report['title']}: the imported position", [])
        attachments.insert(0, ("map.png", png, "image/png"))
    if outbox is not None:
        base = outbox / "reports" / "position"
        base.mkdir(parents=True, exist_ok=True)
        if png:
            atomic_write(base / "map.png", png)
        atomic_write(base / "report.txt", text)
    def mail(lang: str, to: list[str]) -> EmailMessage:
        title = localize(report, rs, lang)["title"] + ": " + i18n.tr(lang, _("the imported position"))
        return build_mail(to, f"[{game.id}] " + i18n.tr(lang, _("the imported position: please check it")),
                          text if lang == i18n.DEFAULT else position_text(lang), from_addr=from_addr(game),
                          attachments=local_attachments(attachments, lang, lambda: map_png(rs, state, title, [], lang)),
                          auto_submitted="auto-generated")

    if send_to_all(game, key, mail, send, now):
        run.mails += 1


def map_png(rs, state, title: str, events, language: str = i18n.DEFAULT) -> bytes:
    from pbem.render import render_map

    vp = {n: state.vp.get(n, 0) for n in rs.order_of_play}
    return render_map(rs, state, title=title, events=events, vp_table=vp,
                      **({"language": language} if language != i18n.DEFAULT else {}))


def local_attachments(attachments: list, language: str, png) -> list:
    """A mail's attachments for players of `language`: its map.png made again in that language (`png()`,
    only when the mail has a map), the rest as they are."""
    if language == i18n.DEFAULT or not any(name == "map.png" for name, _b, _t in attachments):
        return attachments
    local = png()
    return [(name, local if name == "map.png" else data, kind) for name, data, kind in attachments]


def _game_over(game: Game, now: datetime, send: Send, run: GameRun) -> None:
    key = "game-over"
    if already_sent(game, key):
        return

    try:
        reveal_secret(game, who="pbem", why="game over: dice secret revealed", now=now)
    except Exception as e:  # noqa: BLE001 - the game is over either way; say why the secret stays sealed
        run.note = f"secret not revealed: {e}"
    state = game.state
    holdings = {str(p["name"]): game.nations_of(str(p["name"])) for p in game.players()}
    totals = sorted(((sum(state.vp.get(n, 0) for n in nations), name) for name, nations in holdings.items()),
                    reverse=True)
    lines = [f"{name}: {vp}" for vp, name in totals] + partner_totals(game.ruleset(), state.vp, holdings)

    def result(lang: str) -> str:
        return result_line(game.ruleset(), state.vp, holdings, lang)

    def mail(lang: str, to: list[str]) -> EmailMessage:
        secret = (game.settings.get("dice") or {}).get("revealed_secret") or i18n.tr(lang, _("(sealed)"))
        body = (i18n.tr(lang, _("Game %(game)s is over after round %(round)s."), game=game.id, round=state.round)
                + f"\n{result(lang)}\n\n" + "\n".join(lines) + "\n\n"
                + i18n.tr(lang, _("Dice secret: %(secret)s\nAnyone can check every roll: pbem verify-dice <archive>"),
                          secret=secret) + "\n" + log_line(game, lang))
        return build_mail(to, f"[{game.id}] " + i18n.tr(lang, _("game over: %(result)s"), result=result(lang)), body,
                          from_addr=from_addr(game), auto_submitted="auto-generated")

    if send_to_all(game, key, mail, send, now):
        run.mails += 1
    run.steps.append("game over; " + result(i18n.DEFAULT))


def _plain_text(msg) -> str:
    """The first text/plain part of a mail, whichever email API built it (sent mails are re-read
    from their stored bytes, service.outgoing)."""
    for part in msg.walk():
        if part.get_content_type() == "text/plain" and not part.get_filename():
            data = part.get_payload(decode=True) or b""
            return data.decode(part.get_content_charset() or "utf-8", "replace")
    return ""


PREVIEW_DIR = ".preview"
PREVIEW_HEAD = ("PREVIEW (nothing was changed; the dice below are throwaway dice, not the game's: the real "
                "rolls of this turn stay sealed until it is played):\n\n")


def sweep_preview(game: Game) -> None:
    """Remove the scratch copy a preview killed half-way left in the game folder."""
    shutil.rmtree(game.path / PREVIEW_DIR, ignore_errors=True)


def preview(game: Game, who: str, why: str, *, now: datetime | None = None, record: bool = True, **tag) -> str:
    """Adjudicate the next step in a scratch copy; the moderator sees the report, the game is untouched.

    The copy (games/<id>/.preview/, swept by the next run) holds the log, state and notices only: no
    dice secret and no token. It is played with a throwaway secret drawn from the game's (so the same
    preview on every identical run), never the game's own dice: a preview mailed to the moderator must
    not tell the rolls the turn will really get. `record`: log the preview as a moderator entry (not
    again when a rerun answers a mail already carried out)."""
    now = now or datetime.now(UTC)
    with game.lock():   # (a run sweeps the copy under the lock; re-entrant for the mail handler's)
        sweep_preview(game)
        try:
            scratch = _scratch_copy(game, game.path / PREVIEW_DIR / game.id)
            moderator.force(scratch, who, why, now=now)
            last = game.last_entry_id()
            sent: list[EmailMessage] = []
            advance(scratch, now, sent.append, render_map=False)
            played = {message_id(scratch, turn_mail_key(e), from_addr(scratch))
                      for e in scratch.entries("turn") if e.id > last}
            texts = [_without_log_line(_plain_text(m)) for m in sent if m["Message-ID"] in played]
        finally:
            sweep_preview(game)
        if record:
            moderate_at(game, now, "preview", who, why, **tag)
    return PREVIEW_HEAD + ("\n\n".join(t for t in texts[:1] if t) or "nothing to adjudicate")


def _scratch_copy(game: Game, copy_dir: Path) -> Game:
    """The game's log, state and notices in `copy_dir`, with game.yaml's tokens redacted and a
    throwaway dice secret (its own commitment) instead of the game's."""
    copy_dir.mkdir(parents=True)
    shutil.copytree(game.path / "log", copy_dir / "log", ignore=shutil.ignore_patterns(".*"))
    for name in ("state.yaml", "notices.json"):
        if (game.path / name).is_file():
            shutil.copyfile(game.path / name, copy_dir / name)
    seed = game.local_secret() or game.id.encode()   # the position, not the log: a rerun logs the preview
    throwaway = hashlib.sha256(b"pbem preview\0" + seed + state_hash(game.state).encode()).digest()
    settings = copy.deepcopy(game.settings)
    for p in [*(settings.get("players") or []), settings.get("moderator") or {}]:
        if "token" in p:
            p["token"] = "redacted"
    settings["dice"]["commitment"] = commitment(throwaway)
    settings["dice"].pop("revealed_secret", None)
    atomic_write(copy_dir / "game.yaml", dump_roundtrip(settings))
    atomic_write(copy_dir / "secret", throwaway.hex(), mode=0o600)
    return Game.open(copy_dir)


def _without_log_line(text: str) -> str:
    """A scratch mail's text without its dice commitment and Log line (the throwaway secret's and the
    scratch log's: they would mean nothing to anyone)."""
    for tail in ("\nDice commitment", "\nLog: entry "):
        text = text.split(tail, 1)[0]
    return text.rstrip() + "\n"
