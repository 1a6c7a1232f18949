"""Move a game along as far as it can go now (issue 11): round starts, nations' turns in the order of
play, each logged through the store (so replay re-derives it), each followed by the turn mail (report
text, report.json and map PNG) to every player and observer. Where orders are owed and the deadline
has not passed, the owing player gets one prompt and one reminder; at the deadline the no-orders rule
applies (hold everything, no retreat, raiders withdraw: the defaults; or the greedy bot).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from functools import partial
from pathlib import Path

from pbem.mail.compose import build_mail
from pbem.orders.parser import parse_message
from pbem.report import build_report, report_json, report_text
from pbem.rules.flow import votes_owed
from pbem.rules.legal import vote_options
from pbem.rules.orders import STANDING_TYPES, Vote
from pbem.service import decisions, moderator
from pbem.service.gamerun import GameRun
from pbem.service.inbox import section_text
from pbem.service.outgoing import finish_pending, send_once
from pbem.service.welcome import send_welcome
from pbem.store.clock import already_sent, current_deadline, mark_sent, nmr_counts
from pbem.store.fs import atomic_write
from pbem.store.game import Game, LogEntry
from pbem.store.turns import play_turn

Send = Callable[[EmailMessage], None]
MAX_STEPS = 200


def from_addr(game: Game) -> str:
    return str((game.settings.get("mail") or {}).get("from") or f"pbem-{game.id}@localhost")


def everyone(game: Game) -> list[str]:
    addrs = [str(p.get("address")) for p in game.players() if p.get("address")]
    addrs += [str(a) for a in game.settings.get("observers") or []]
    return list(dict.fromkeys(addrs))


def orders_for_step(game: Game, rs, entries: list[LogEntry], not_final: set[str] | None = None,
                    drafts: dict[str, str] | None = None, sources: dict[str, list[int]] | None = None
                    ) -> dict[str, str]:
    """The orders each nation has waiting, per decision (ORDERS.md: last one wins, per decision):
    turn orders from the latest message that had any, the latest VOTE, and standing orders in order.

    After a rollback, turn orders sent before it for a nation whose turn it undid are a draft: the
    player is asked again (CONFIRM plays them); `drafts` receives them, and they are used only at the
    deadline. `sources` receives, per nation, the orders entries the text comes from (the turn entry
    records them, so that replay sees an edited orders entry); a used draft's under `<nation>#draft`."""
    voided = _voided_turns(entries)
    redo = _redone_turns(entries)
    last_turn: dict[str, int] = {}
    for e in entries:
        if e.kind == "turn" and e.get("nation") and e.id not in voided:
            last_turn[e["nation"]] = e.id
    turn_text: dict[str, str] = {}
    vote: dict[str, str] = {}
    standing: dict[str, list[str]] = {}
    unsure: dict[str, bool] = {}
    src_turn: dict[str, int] = {}
    src_vote: dict[str, int] = {}
    src_standing: dict[str, list[int]] = {}
    for e in entries:
        if e.kind == "turn" and e.get("step") == "start_round" and e.id not in voided:
            vote.clear()   # ballots are for one round start only
            src_vote.clear()
        if e.kind != "orders" or not e.get("nation"):
            continue
        nation = e["nation"]
        sec = parse_message(e.get("text") or "", rs, default_nation=nation).section(nation)
        if sec is None:
            continue
        standing_orders = [o for o in sec.orders if isinstance(o, STANDING_TYPES)]
        votes = [o for o in sec.orders if isinstance(o, Vote)]
        turn_orders = [o for o in sec.orders if not isinstance(o, (*STANDING_TYPES, Vote))]
        if standing_orders:
            standing.setdefault(nation, []).extend(o.text or "" for o in standing_orders)
            src_standing.setdefault(nation, []).append(e.id)
        if votes:
            vote[nation] = f"VOTE {rs.display(votes[-1].nation)}"
            src_vote[nation] = e.id
        if turn_orders and e.id > last_turn.get(nation, 0):
            sec.orders = turn_orders
            if e.id < redo.get(nation, 0):      # sent before the rollback that undid this turn: a draft
                if drafts is not None:
                    drafts[nation] = section_text(sec, rs)
                if sources is not None:
                    sources[f"{nation}#draft"] = [e.id]
                turn_text.pop(nation, None)
                src_turn.pop(nation, None)
                continue
            turn_text[nation] = section_text(sec, rs)
            src_turn[nation] = e.id
            unsure[nation] = bool(e.get("problems"))
            if drafts is not None:
                drafts.pop(nation, None)
    out: dict[str, str] = {}
    for nation in set(turn_text) | set(vote) | set(standing):
        parts = [turn_text.get(nation, "")]
        parts += [f"{line}\n" for line in standing.get(nation, [])]
        if nation in vote:
            parts.append(vote[nation] + "\n")
        out[nation] = "".join(parts)
        if sources is not None:
            ids = ([src_turn[nation]] if nation in turn_text else []) + src_standing.get(nation, []) + \
                ([src_vote[nation]] if nation in vote else [])
            sources[nation] = sorted(set(ids))
    if not_final is not None:
        not_final.update(n for n, flag in unsure.items() if flag)
    return out


def _redone_turns(entries: list[LogEntry]) -> dict[str, int]:
    """Nation -> id of the latest rollback that undid one of its turns (its orders must be asked again)."""
    out: dict[str, int] = {}
    for m in entries:
        if m.kind == "moderator" and m.get("action") == "rollback":
            lo = int(m.get("to_entry") or 0)
            for e in entries:
                if e.kind == "turn" and e.get("nation") and lo <= e.id < m.id:
                    out[e["nation"]] = m.id
    return out


def _voided_turns(entries: list[LogEntry]) -> set[int]:
    out: set[int] = set()
    for m in entries:
        if m.kind == "moderator" and m.get("action") == "rollback":
            lo = int(m.get("to_entry") or 0)
            out |= {e.id for e in entries if e.kind == "turn" and lo <= e.id < m.id}
    return out


def has_turn_orders(text: str) -> bool:
    return any(line.strip() and not line.upper().startswith(("VOTE", "DEFEND", "CLEAR", "LOSSES"))
               for line in text.splitlines())


def nmr_orders(game: Game, rs, nation: str) -> str:
    """No orders at the deadline: hold (the defaults), or the greedy bot if the game says so."""
    if str((game.settings.get("options") or {}).get("nmr", "hold")) == "bot":
        try:
            from pbem.bots import bot_orders

            return bot_orders(rs, game.state, nation, kind="greedy", seed=game.id)
        except ImportError:
            pass
    return "PASS\n"


def advance(game: Game, now: datetime, send: Send, *, outbox: Path | None = None, render_map: bool = True) -> GameRun:
    """Play every step that can be played now. Holds the game's lock (a busy game is left alone)."""
    run = GameRun(game.id)
    if game.paused:
        run.note = "paused"
        return run
    with game.lock(blocking=False):
        run.mails += finish_pending(game, send, now)
        _owed_turn_mail(game, now, send, run, outbox=outbox, render_map=render_map)
        _position_mail(game, now, send, run, outbox=outbox, render_map=render_map)
        for _ in range(MAX_STEPS):
            state = game.state
            if state.finished:
                _game_over(game, now, send, run)
                break
            rs = game.ruleset()
            entries = game.entries()
            needs_fix: set[str] = set()
            drafts: dict[str, str] = {}
            sources: dict[str, list[int]] = {}
            waiting = orders_for_step(game, rs, entries, needs_fix, drafts, sources)
            is_vote = votes_owed(rs, state)
            deadline = current_deadline(game, entries, vote=is_vote)
            due = deadline.passed(now) or moderator.forced(game)
            if state.next_nation is None:
                voters = sorted(vote_options(rs, state)) if is_vote else []
                owed = [n for n in voters if "VOTE" not in waiting.get(n, "").upper()]
                if owed and not due:
                    _prompt(game, rs, owed, deadline, now, send, run, what="your Bretwalda vote (VOTE <nation>)")
                    break
                orders = {n: t for n, t in waiting.items() if "VOTE" in t.upper()}
                entry = play_turn(game, step="start_round", orders=orders, time=now.isoformat(),
                                  used={n: sources.get(n, []) for n in orders})
                run.steps.append(f"round {entry.get('round')} starts")
            else:
                nation = state.next_nation
                text = waiting.get(nation, "")
                if nation in drafts and not has_turn_orders(text):
                    if not due:     # after a rollback: ask again, the old orders as a draft
                        _prompt(game, rs, [nation], deadline, now, send, run, what="your orders again",
                                draft=drafts[nation])
                        break
                    text = waiting[nation] = drafts[nation] + text   # the deadline: the draft is played
                    sources[nation] = sorted(set(sources.get(nation, []) + sources.get(f"{nation}#draft", [])))
                if has_turn_orders(text) and nation not in needs_fix and not due and \
                        _checked_now(game, rs, state, nation, text, entries, now, send, run):
                    needs_fix.add(nation)
                if (not has_turn_orders(text) or nation in needs_fix) and not due:
                    what = "corrected orders" if nation in needs_fix else "your orders"
                    _prompt(game, rs, [nation], deadline, now, send, run, what=what)
                    break
                open_decisions = decisions.owed(game, rs, state, nation, waiting) if has_turn_orders(text) else []
                if open_decisions and not decisions.due(game, state, nation, now):
                    _decision_prompts(game, rs, state, nation, open_decisions, now, send, run)
                    break
                orders = dict(waiting)
                if not has_turn_orders(text):
                    orders[nation] = nmr_orders(game, rs, nation) + text
                    run.steps.append(f"{rs.display(nation)}: no orders at the deadline ({_nmr_word(game)})")
                    player = game.player_of(nation)
                    if player:
                        mark_sent(game, f"nmr:{deadline.key}:{player}", now)
                entry = play_turn(game, nation, orders=orders, time=now.isoformat(),
                                  used={n: sources.get(n, []) for n in orders})
                run.steps.append(f"round {entry.get('round')}: {rs.display(nation)} played")
            if _worth_a_mail(entry):
                _turn_mail(game, entry, now, send, run, outbox=outbox, render_map=render_map,
                           ledger_from=len(state.ledger))
        run.mails += send_welcome(game, now, send, from_addr=from_addr(game), render_map=render_map,
                                  guide_url=guide_url(game))
    return run


QUIET_EVENTS = ("round_started", "round_ended")


def turn_mail_key(entry: LogEntry) -> str:
    return f"turn:{entry.id}"


def _owed_turn_mail(game: Game, now: datetime, send: Send, run: GameRun, *, outbox: Path | None,
                    render_map: bool) -> None:
    """A run killed after logging a turn but before its turn mail was decided on: mail it now.

    Only the log's last turn can be owed one (each turn's mail goes out before the next turn is
    played), and only when nothing after it changed the position (a rollback voids it). Games from
    before turn mails were recorded have no `turn:` notice at all: their last turn counts as mailed
    unless it is the game's first turn worth a mail."""
    from pbem.store.clock import sent_keys
    from pbem.store.recover import changes_state, state_after

    entries = game.entries()
    turns = [i for i, e in enumerate(entries) if e.kind == "turn"]
    if not turns:
        return
    last = entries[turns[-1]]
    if any(changes_state(e) for e in entries[turns[-1] + 1:]) or not _worth_a_mail(last):
        return
    keys = sent_keys(game)
    if turn_mail_key(last) in keys:
        return
    mailed_before = any(k.startswith("turn:") for k in keys)
    if not mailed_before and any(_worth_a_mail(entries[i]) for i in turns[:-1]):
        return
    before = state_after(game, entries, last.id - 1)
    _turn_mail(game, last, now, send, run, outbox=outbox, render_map=render_map, ledger_from=len(before.ledger))


def _checked_now(game: Game, rs, state, nation: str, text: str, entries: list[LogEntry], now: datetime,
                 send: Send, run: GameRun) -> bool:
    """Orders sent before the nation's turn came are checked against the position its turn starts
    from; if the rules refuse a line, the player is told (once per orders mail) and the game waits for
    a correction until the deadline. Returns True when it must wait."""
    from pbem.orders.check import check_orders
    from pbem.orders.reply import render_reply

    result = check_orders(text, rs, state, nation=nation)
    if result.ok:
        return False
    latest = max((e.id for e in entries if e.kind == "orders" and e.get("nation") == nation), default=0)
    key = f"checked:{latest}"
    player = game.player_of(nation)
    addr = (game.player(player) or {}).get("address") if player else None
    if addr and not already_sent(game, key):
        deadline = current_deadline(game, entries)
        body = (f"Your turn has come: your orders for the {rs.display(nation)}, checked against the position now.\n\n"
                + render_reply(result, rs, deadline=deadline.text(), game=game.id))
        if send_once(game, key, lambda: build_mail(
                str(addr), f"[{game.id}] your orders for the {rs.display(nation)}: please correct", body,
                from_addr=from_addr(game), auto_submitted="auto-generated"), send, now):
            run.mails += 1
    return True


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
        body = (f"Game {game.id}, round {state.round}.\n\n{text}\n\nReply with GAME {game.id}, your TOKEN and the "
                f"DEFEND line(s) within {decisions.hours(game, 'decision_hours'):g} hours; without an answer your "
                "armies hold (they do not retreat).\n")
        if send_once(game, k, partial(
                build_mail, str(addr), f"[{game.id}] retreat decision: the {rs.display(nation)} attack", body,
                from_addr=from_addr(game), auto_submitted="auto-generated"), send, now):
            run.mails += 1


def _worth_a_mail(entry: LogEntry) -> bool:
    """A round start with nothing happening (no vote, no King, no Romans leaving) gets no mail."""
    return entry.get("step") != "start_round" or any(ev.get("type") not in QUIET_EVENTS for ev in entry.get("events") or [])


def _nmr_word(game: Game) -> str:
    return "played by the bot" if str((game.settings.get("options") or {}).get("nmr", "hold")) == "bot" else "hold"


def _prompt(game: Game, rs, nations: list[str], deadline, now: datetime, send: Send, run: GameRun, *, what: str,
            draft: str = "") -> None:
    """One prompt per decision and player, one reminder before the deadline."""
    by_player: dict[str, list[str]] = {}
    for n in nations:
        p = game.player_of(n)
        if p:
            by_player.setdefault(p, []).append(n)
    run.waiting_for = [f"{p} ({', '.join(rs.display(n) for n in ns)})" for p, ns in by_player.items()]
    from pbem.report.prompt import GUIDE_NAME, players_guide, prompt_text

    guide = players_guide()
    for player, ns in by_player.items():
        p = game.player(player) or {}
        addr = p.get("address")
        if not addr:
            continue
        for kind in ("prompt", "reminder"):
            key = f"{kind}:{deadline.key}:{player}" + (f":again:{deadline.started.isoformat()}" if draft else "")
            if already_sent(game, key) or (kind == "reminder" and now < deadline.remind_at):
                continue
            names = ", ".join(rs.display(n) for n in ns)
            head = "Reminder: " if kind == "reminder" else ""
            body = prompt_text(game.id, rs, game.state, ns, what=what, deadline=deadline.text(),
                               reminder=kind == "reminder", guide_url=guide_url(game), draft=draft)
            subject = f"[{game.id}] {head}{what} for the {names}"
            if send_once(game, key, partial(build_mail, str(addr), subject, body, from_addr=from_addr(game),
                                            auto_submitted="auto-generated",
                                            attachments=[(GUIDE_NAME, guide, "text/markdown")] if guide else ()),
                         send, now):
                run.mails += 1


def guide_url(game: Game) -> str:
    """Where players read the guide online, if the moderator says (game.yaml `mail.guide_url`)."""
    return str((game.settings.get("mail") or {}).get("guide_url") or "")


def _turn_mail(game: Game, entry: LogEntry, now: datetime, send: Send, run: GameRun, *,
               outbox: Path | None, render_map: bool, ledger_from: int) -> None:
    rs = game.ruleset()
    state = game.state
    events = list(entry.get("events") or [])
    vote = votes_owed(rs, state)
    deadline = current_deadline(game, vote=vote)
    waiting = []
    if state.next_nation:
        p = game.player_of(state.next_nation)
        waiting = [f"{p} ({rs.display(state.next_nation)})" if p else rs.display(state.next_nation)]
    settings = dict(game.settings)   # every report carries the dice commitment (the first one mailed too)
    report = build_report(rs, state, events, settings, played=entry.get("nation"), round_played=int(entry.get("round")),
                          deadline=None if state.finished else deadline.text(), waiting_for=waiting, ledger_from=ledger_from,
                          nmr=nmr_counts(game))
    text = report_text(report) + _log_line(game)
    attachments = [("report.json", report_json(report).encode(), "application/json")]
    png = b""
    if render_map:
        png = map_png(rs, state, report["title"], events)
        attachments.insert(0, ("map.png", png, "image/png"))
    if outbox is not None:
        base = outbox / "reports" / f"{entry.id:06d}"
        base.mkdir(parents=True, exist_ok=True)
        atomic_write(base / "report.txt", text)
        atomic_write(base / "report.json", report_json(report))
        if png:
            atomic_write(base / "map.png", png)
    to = everyone(game)
    if to:
        subject = f"[{game.id}] {report['title'].split('] ', 1)[-1]}"
        if send_once(game, turn_mail_key(entry), lambda: build_mail(
                to, subject, text, from_addr=from_addr(game), attachments=attachments,
                auto_submitted="auto-generated"), send, now):
            run.mails += 1
    else:
        mark_sent(game, turn_mail_key(entry), now)


def _position_mail(game: Game, now: datetime, send: Send, run: GameRun, *, outbox: Path | None,
                   render_map: bool) -> None:
    """A game moved over from a typed-in position (pbem new --position): before anything is played,
    everyone gets the imported position (map, scores, the file as read) once, to confirm it."""
    from pbem.position.game import export_position, position_mail_key
    from pbem.templating import render

    key = position_mail_key(game)
    if key is None or already_sent(game, key):
        return
    rs = game.ruleset()
    state = game.state
    report = build_report(rs, state, [], dict(game.settings), played=None, round_played=state.round,
                          deadline=current_deadline(game, vote=votes_owed(rs, state)).text(), ledger_from=len(state.ledger),
                          nmr=nmr_counts(game))
    text = render("position.txt.j2", game=game.id, corrected=key != "position-imported", report=report_text(report),
                  round=state.round,
                  nation=rs.display(state.next_nation) if state.next_nation else None,
                  position=export_position(game))
    attachments = [("position.yaml", export_position(game).encode(), "text/plain")]
    if render_map:
        png = map_png(rs, state, f"{report['title']}: the imported position", [])
        attachments.insert(0, ("map.png", png, "image/png"))
        if outbox is not None:
            base = outbox / "reports" / "position"
            base.mkdir(parents=True, exist_ok=True)
            atomic_write(base / "map.png", png)
    if outbox is not None:
        base = outbox / "reports" / "position"
        base.mkdir(parents=True, exist_ok=True)
        atomic_write(base / "report.txt", text)
    to = everyone(game)
    if to:
        if send_once(game, key, partial(build_mail, to, f"[{game.id}] the imported position: please check it", text,
                                        from_addr=from_addr(game), attachments=attachments,
                                        auto_submitted="auto-generated"), send, now):
            run.mails += 1
    else:
        mark_sent(game, key, now)


def _log_line(game: Game) -> str:
    """The log's end as this mail leaves (pbem.store.loghash): whoever keeps the mail can later see
    that the log was cut short or changed (`pbem replay --log-hash N:H`)."""
    from pbem.store.loghash import log_end

    n, h = log_end(game.path)
    return f"\nLog: entry {n}, running hash {h}\n(check it later: pbem replay {game.id} --log-hash {n}:{h})\n"


def map_png(rs, state, title: str, events) -> bytes:
    from pbem.render import render_map

    vp = {n: state.vp.get(n, 0) for n in rs.order_of_play}
    return render_map(rs, state, title=title, events=events, vp_table=vp)


def _game_over(game: Game, now: datetime, send: Send, run: GameRun) -> None:
    key = "game-over"
    if already_sent(game, key):
        return
    from pbem.store.dicecheck import reveal_secret

    try:
        reveal_secret(game, who="pbem", why="game over: dice secret revealed")
    except Exception as e:  # noqa: BLE001 - the game is over either way; say why the secret stays sealed
        run.note = f"secret not revealed: {e}"
    to = everyone(game)
    state = game.state
    totals = sorted(((sum(state.vp.get(n, 0) for n in game.nations_of(str(p["name"]))), str(p["name"]))
                     for p in game.players()), reverse=True)
    lines = [f"{name}: {vp}" for vp, name in totals]
    best = [name for vp, name in totals if totals and vp == totals[0][0]]
    result = ("Winner: " + best[0]) if len(best) == 1 else ("Tie: " + ", ".join(best))
    secret = (game.settings.get("dice") or {}).get("revealed_secret") or "(sealed)"
    body = (f"Game {game.id} is over after round {state.round}.\n{result}\n\n" + "\n".join(lines)
            + f"\n\nDice secret: {secret}\nAnyone can check every roll: pbem verify-dice <archive>\n")
    if to:
        if send_once(game, key, lambda: build_mail(to, f"[{game.id}] game over: {result}", body,
                                                   from_addr=from_addr(game), auto_submitted="auto-generated"), send, now):
            run.mails += 1
    else:
        mark_sent(game, key, now)
    run.steps.append("game over; " + result)


def preview(game: Game, who: str, why: str) -> str:
    """Adjudicate the next step in a scratch copy; the moderator sees the report, the game is untouched."""
    from datetime import UTC

    tmp = Path(tempfile.mkdtemp(prefix=f"pbem-preview-{game.id}-"))
    try:
        copy_dir = tmp / game.id
        shutil.copytree(game.path, copy_dir, ignore=shutil.ignore_patterns(".lock", "inbox", "outbox", "mail"))
        scratch = Game.open(copy_dir)
        moderator.force(scratch, who, why)
        sent: list[EmailMessage] = []
        advance(scratch, datetime.now(UTC), sent.append, render_map=False)
        game.moderate("preview", who, why)
        texts = [m.get_body(("plain",)).get_content() for m in sent if m.get_body(("plain",))]
        return "PREVIEW (nothing was changed):\n\n" + ("\n\n".join(texts[:1]) or "nothing to adjudicate")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
