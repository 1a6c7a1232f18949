"""The start of a game by mail: once, before anyone has played, every player gets a personal mail
with their colour and nations, their token, the other players, the dice commitment, the first
deadline, the start map and the players' guide (templates/welcome.txt.j2)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from functools import partial

from pbem import i18n
from pbem.i18n import _
from pbem.mail.compose import build_mail
from pbem.rules.flow import votes_owed
from pbem.service.outgoing import log_line, send_once
from pbem.store.clock import already_sent, current_deadline, player_zone
from pbem.store.game import Game
from pbem.templating import render

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# welcome alone, measured): pbem.service.advance +34, pbem.position.game +16, pbem.report.prompt +7.


def nobody_has_played(game: Game) -> bool:
    """No nation has played here yet (a new game in round 1), or the game was moved over from a typed-in
    position (pbem new --position): its players need their tokens whatever was played before they got
    them (issue 32: a moderator's PROCESS before its first run must not leave them without)."""
    from pbem.position.game import from_position

    return from_position(game) or (game.state.round == 1 and not any(e.get("nation") for e in game.entries("turn")))


def send_welcome(game: Game, now: datetime, send: Callable[[EmailMessage], None], *, from_addr: str,
                 render_map: bool, guide_url: str = "") -> int:
    """Mail each player the start of the game once (key `welcome:<player>`). Returns mails sent."""
    from pbem.report.prompt import guide_name, players_guide

    if not nobody_has_played(game):
        return 0
    todo = [p for p in game.players() if p.get("address") and not already_sent(game, f"welcome:{p['name']}")]
    if not todo:
        return 0
    rs = game.ruleset()
    state = game.state
    deadline = current_deadline(game, vote=votes_owed(rs, state))
    attachments = []
    if render_map:
        from pbem.service.advance import map_png

        attachments.append(("map.png", map_png(rs, state, f"[{game.id}] the start of the game", []), "image/png"))
    nxt = state.next_nation
    sent = 0
    by_language: dict[str, list] = {}
    for p in todo:
        lang = i18n.player_language(p)
        from pbem.service.advance import local_attachments, map_png

        if lang not in by_language:       # the start map drawn once per language
            by_language[lang] = local_attachments(list(attachments), lang, partial(
                map_png, rs, state, f"[{game.id}] " + i18n.tr(lang, _("the start of the game")), [], lang))
        mailed = list(by_language[lang])
        guide = players_guide(lang)
        if guide:
            mailed.append((guide_name(lang), guide, "text/markdown"))
        others = [f"{o['name']} ({i18n.colour(lang, str(o.get('colour', '')).lower())}): " + ", ".join(i18n.name(lang, rs, n) for n in o.get("nations") or [])
                  for o in game.players() if o["name"] != p["name"]]
        text = render("welcome.txt.j2", language=lang, game=game.id, moved_round=state.round if state.round > 1 else None,
                      player=p["name"], colour=i18n.colour(lang, p.get("colour", "")),
                      nations=[i18n.name(lang, rs, n) for n in p.get("nations") or []], token=p["token"], others=others,
                      commitment=(game.settings.get("dice") or {}).get("commitment") or "",
                      deadline=deadline.text(player_zone(game, p["name"])),
                      first=i18n.name(lang, rs, nxt) if nxt else i18n.tr(lang, _("the round start")),
                      first_player=game.player_of(nxt) if nxt else "", guide_url=guide_url,
                      guide_name=guide_name(lang),
                      optional=[f"{r['rule']} {r['name']}" for r in rs.optional_rules.values() if r["play"]],
                      ruleset=rs.name, ruleset_id=rs.id, provisional="PROVISIONAL" in rs.name) + log_line(game, lang)
        subject = f"[{game.id}] " + i18n.tr(lang, _("the game starts: you play the %(nations)s"), nations=", ".join(
            i18n.name(lang, rs, n) for n in p.get("nations") or []))
        if send_once(game, f"welcome:{p['name']}", partial(build_mail, str(p["address"]), subject, text,
                                                          from_addr=from_addr, attachments=mailed,
                                                          auto_submitted="auto-generated"), send, now):
            sent += 1
    return sent
