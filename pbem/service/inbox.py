"""What happens to a player's mail once the intake has stored, routed and authenticated it.

The orders are read (pbem.orders), checked by playing the nation's whole turn from today's position
(pbem.rules.legal.check_turn, through check_orders; for a nation that does not move next the reply says
they are checked again when its turn comes), logged as `orders` entries (one per
nation section, in canonical form, with the mail id) and answered at once: orders read back, every
problem explained, what is still missing, the deadline. A later message for the same nation replaces
the earlier one (the latest orders entry wins). Mail from the moderator carries moderator commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from pbem import i18n
from pbem.errors import GameBusy, GameError, OrderProblem
from pbem.mail.intake import HandlerFailed, Reply, RetryLater, plain_error
from pbem.mail.message import MailIn
from pbem.orders.canonical import canonical_lines
from pbem.orders.check import check_orders
from pbem.orders.odds import odds_answers, planned_battle_lines, run_budget, split_odds
from pbem.orders.parser import parse_message
from pbem.orders.reply import order_warnings, render_reply
from pbem.rules.decisions import may_owe, pending, pending_for
from pbem.rules.flow import votes_owed
from pbem.rules.legal import first_movement
from pbem.rules.odds import OddsBudget, planned_battles
from pbem.rules.orders import STANDING_TYPES, NationLine, NationOrders, SecondMovement
from pbem.service import moderator
from pbem.service.away import apply_lines
from pbem.service.book import build_book
from pbem.service.decisions import mode
from pbem.service.faults import describe
from pbem.service.opened import OpenGames
from pbem.service.outgoing import log_line
from pbem.store.clock import current_deadline, player_zone
from pbem.store.game import Game, LogEntry

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# inbox alone, measured): pbem.service.advance +13.
_, _N = i18n._, i18n._N      # marks for pybabel extract (pbem.i18n)


@dataclass
class OrdersHandler:
    """The intake's handler: `handler(game_id, who, mail) -> Reply`."""

    games_dir: Path
    now: datetime
    faults: dict[str, str] = field(default_factory=dict)
    """Games this run could not work on ({id: fault}); the job tells their moderators (issue 18)."""
    odds_budget: OddsBudget = field(default_factory=run_budget)
    """The work every ODDS line of this run shares (issue 33; pbem.orders.odds)."""
    games: OpenGames = field(default_factory=OpenGames)
    """Each game opened once for all its mails of the run (issue 33)."""

    def __call__(self, game_id: str, who: str, mail: MailIn) -> Reply | None:
        """A game that cannot be read or written (damaged file, read-only folder, full disk) is a
        fault of the game, not of the mail: the mail is not answered and not marked done; it waits
        (RetryLater) and is read again once the moderator has repaired the game. Any other error
        while handling the mail is the mail's (issue 27): the game is looked at again (its files
        read, what it waits for worked out) and, when that works, HandlerFailed sets the mail aside
        with a reply to its sender, and the game goes on."""
        try:
            game = self.games.open(self.games_dir / game_id)
            with game.lock(blocking=False):
                if who == "moderator":
                    return Reply(moderator.from_mail(game, mail.text, who=mail.from_addr or "moderator",
                                                     mail_id=mail.sha256, now=self.now))
                text = take_orders(game, who, mail.text, mail_id=mail.sha256, received=self.now,
                                   authentication=_auth_headers(mail), odds_budget=self.odds_budget)
                self.games.keep(game)
                lang = i18n.player_language(game.player(who))
                return Reply(text + log_line(game, lang), language=lang)     # the log's end after the orders entry (issue 27 item 5)
        except GameBusy as e:
            raise RetryLater(str(e)) from e
        except OSError as e:      # a folder that cannot be written, a full disk
            self.faults.setdefault(game_id, describe(e))
            raise RetryLater(f"game {game_id} needs repair: {describe(e)}") from e
        except Exception as e:  # noqa: BLE001 - see the docstring
            fault = game_fault(self.games_dir / game_id)
            if fault is not None:
                self.faults.setdefault(game_id, describe(e) if isinstance(e, GameError) else fault)
                raise RetryLater(f"game {game_id} needs repair: {describe(e)}") from e

            raise HandlerFailed(plain_error(e), self.taken(game_id, mail)) from e

    def run_done(self) -> None:
        """The mailbox's run is over (pbem.mail.intake): the games' locks held since their first mail
        are let go."""
        self.games.release()

    def open_game(self, game_dir: Path) -> Game:
        """A game this run opened already (unchanged since), else opened now (the job's advance)."""
        return self.games.open(game_dir)

    def taken(self, game_id: str, mail: MailIn) -> str:
        """What of `mail` the game log holds (orders per nation, moderator commands), in a sentence."""
        game = Game.open(self.games_dir / game_id)
        rs = game.ruleset()
        nations = [e.get("nation") for e in game.entries("orders") if e.get("mail_id") == mail.sha256]
        commands = [e.get("action") for e in game.entries("moderator") if e.get("mail_id") == mail.sha256]
        said = []
        if nations:
            said.append("Recorded from it: the orders for the " + ", ".join(rs.display(n) for n in nations) + ".")
        if commands:
            said.append("Carried out from it: " + ", ".join(str(c).upper() for c in commands) + ".")
        return " ".join(said)


def game_fault(game_dir: Path) -> str | None:
    """Why the game itself cannot be worked on (its files read, what it waits for worked out), or
    None when it can: then an error while handling a mail came from the mail."""
    try:
        game = Game.open(game_dir)
        rs = game.ruleset()
        pending(rs, game.state, build_book(rs, game.entries()))
    except Exception as e:  # noqa: BLE001 - any failure here is the game's
        return describe(e)
    return None


def _default_nation(game: Game, player: str) -> str | None:
    """Orders without a NATION line belong to the player's nation that moves next, or to the
    player's only nation."""
    mine = game.nations_of(player)
    nxt = game.peek_state().next_nation
    if nxt in mine:
        return nxt
    return mine[0] if len(mine) == 1 else None


def missing_for(game: Game, player: str, unlogged: list[LogEntry] = (), language: str = i18n.DEFAULT,
                state=None, rs=None, checked=None) -> list[str]:
    """What the game still needs from this player (for replies and prompts): the decisions owed by
    the player's nations (pbem.rules.decisions.pending); `unlogged`: orders entries taken as logged
    (`pbem check`: the reply a mail would get once its orders are in the log); `state`, `rs`: the
    game's position and ruleset, when the caller has them already; `checked`: the orders a mail
    just gave and their validation (pending's `checked`)."""
    rs = game.ruleset() if rs is None else rs
    state = game.peek_state() if state is None else state
    mine = set(game.nations_of(player))
    wait = mode(game) == "wait"
    if not may_owe(state, mine, wait_for_defenders=wait):    # nothing to look up in the orders book
        return []
    entries = game.entries()
    owed = pending_for(rs, state, build_book(rs, [*entries, *unlogged] if unlogged else entries), mine,
                       wait_for_defenders=wait, checked=checked)
    return [decision_text(language, rs, d, state.round) for d in owed]


def decision_text(language: str, rs, d, round_: int) -> str:
    """Decision.describe (pbem.rules.decisions) in the player's `language`."""
    if language == i18n.DEFAULT:
        return d.describe(rs, round_)
    who = i18n.name(language, rs, d.nation)
    if d.kind == "vote":
        return i18n.tr(language, _("VOTE for the %(nation)s (Bretwalda, round %(round)s)"), nation=who, round=round_)
    if d.kind == "defence":
        return i18n.tr(language, _("a retreat decision for the %(nation)s in %(area)s (DEFEND %(write)s: HOLD or "
                                   "RETREAT TO ...), the %(attacker)s are about to attack"), nation=who,
                       area=i18n.name(language, rs, str(d.area)), write=i18n.order_line(language, rs, rs.display(str(d.area))),
                       attacker=i18n.name(language, rs, str(d.attacker)))
    if d.correction:
        return i18n.tr(language, _("corrected orders for the %(nation)s (round %(round)s, to move now)"), nation=who,
                       round=round_)
    return i18n.tr(language, _("orders for the %(nation)s (round %(round)s, to move now)"), nation=who, round=round_)


def _auth_headers(mail: MailIn) -> dict[str, str]:
    """DKIM-Signature / Authentication-Results as received (recorded, not judged)."""
    out = {}
    if mail.authentication_results:
        out["authentication_results"] = mail.authentication_results[:2000]
    if mail.dkim_signature:
        out["dkim_signature"] = mail.dkim_signature[:2000]
    return out


def take_orders(game: Game, player: str, text: str, *, mail_id: str, received: datetime,
                authentication: dict[str, str] | None = None, odds_budget: OddsBudget | None = None,
                record: bool = True,
                default: str | None = None) -> str:
    """Read, check, log and answer one player's orders mail. Returns the reply text. `record=False`
    logs nothing and returns the very reply the mail would get (`pbem check`); `default`: the nation
    of orders without a NATION line (else the player's nation that moves next, or their only one)."""
    rs = game.ruleset()
    state = game.peek_state()     # read only: every rule that plays from it plays on a copy
    mine = set(game.nations_of(player))
    default = default or _default_nation(game, player)
    text, asked = split_odds(text)     # ODDS questions are answered, not orders
    text, confirm = split_confirm(text)
    result = check_orders(text, rs, state, nation=default)
    parsed = result.parsed
    language = _language_after(game, player, parsed.player_lines)
    confirmed = confirm_drafts(game, player, result, default, mail_id=mail_id, received=received,
                               record=record) if confirm else []
    # a rerun after a crash in the middle of a multi-nation mail logs the sections not logged yet:
    # each orders entry is keyed by its mail AND its nation
    already = game.orders_taken()
    extra: list[OrderProblem] = []
    verdicts: list[str] = []
    unlogged: list[LogEntry] = []
    for section in parsed.sections:
        if section.nation not in mine:
            refused = OrderProblem("auth", 0, "", f"you do not control the {rs.display(section.nation)}",
                                   "your nations: " + ", ".join(rs.display(n) for n in sorted(mine)))
            extra.append(refused)
            for ln in result.lines:    # none of its lines is OK: none is taken
                if ln.nation == section.nation and ln.order is not None and not isinstance(ln.order, NationLine):
                    ln.problems = [replace(refused, line=ln.line, text=ln.text, hint="not taken")]
                    ln.notes = []
            verdicts.append(i18n.tr(language, _("%(name)s: NOT taken: you do not control the %(name)s."),
                                    name=i18n.name(language, rs, section.nation)))
            continue
        bad = sum(len(ln.problems) for ln in result.lines if ln.nation == section.nation)
        unread = sum(1 for ln in result.lines if ln.nation == section.nation and ln.order is None and ln.problems
                     and not _standing_word(ln.text))   # a misspelt DEFEND is no turn order to correct
        if len(parsed.sections) == 1:
            bad += len(result.general)
        idle = sum(1 for ln in result.lines if ln.nation == section.nation and ln.ok and ln.notes)
        partly = sum(1 for ln in result.lines if ln.nation == section.nation and ln.partly_played and not ln.ok)
        if section.orders:
            verdicts.append(verdict(rs, state, section, bad, idle, partly, language=language))
        if not section.orders or (mail_id, section.nation) in already:
            continue
        # orders with problems wait for a correction until the deadline, then are used as they are
        # (the rules core drops what it refuses, and the report says why)
        data = {"nation": section.nation, "player": player, "mail_id": mail_id, "received": received.isoformat(),
                "text": section_text(section, rs), "problems": bad, "unread": unread,
                "mail_lines": mail_line_numbers(section, rs)}
        if not record:   # what the log would hold: the reply says what is missing after it
            unlogged.append(LogEntry(game.last_entry_id() + 1 + len(unlogged), "orders", data["received"], data))
            continue
        game.record_orders(section.nation, player, data["text"], mail_id=mail_id, received=data["received"],
                           time=received.isoformat(), problems=bad, unread=unread, mail_lines=data["mail_lines"],
                           **({"authentication": authentication} if authentication else {}))
    named = [ln.order.nation for ln in result.lines if isinstance(ln.order, NationLine)]
    for n in dict.fromkeys(named):
        if n in mine and parsed.section(n) is None and not any(v.startswith(f"{rs.display(n)}: ") for v in confirmed):
            verdicts.append(i18n.tr(language, _("%(name)s: nothing taken: no line for the %(name)s could be read; "
                                                "the orders waiting (if any) are unchanged."),
                                    name=i18n.name(language, rs, n)))
    if not parsed.sections and default is None and mine and not named:
        extra.append(OrderProblem("syntax", 0, "", "the orders do not say which nation they are for",
                                  "start them with a line NATION <name>"))
    result.general.extend(extra)
    # TIMEZONE, AWAY (pbem check records nothing: it says nothing of them, but a zone that is none is
    # an ERROR of its line, in the reply and in pbem check alike)
    player_lines = _refuse_unknown_zones(parsed.player_lines, result)
    settings = apply_lines(game, player, player_lines, now=received, mail_id=mail_id) if record else []
    deadline = current_deadline(game, vote=votes_owed(rs, state))
    odds = odds_answers(asked, rs, run_budget=odds_budget, language=language)
    moving = parsed.section(state.next_nation) if state.next_nation in mine else None
    # the moving nation's first movement for its warnings and the odds of its battles: the validation
    # play's (check_orders kept it), or played here once for both
    first = None
    if moving is not None:
        kept = result.checks.get(moving.nation)
        first = kept.first if kept is not None and kept.first is not None else \
            first_movement(rs, state, moving.nation, moving)
    if result.ok and moving is not None:    # the exact odds of the battles these orders plan
        odds += planned_battle_lines(planned_battles(rs, state, moving.nation, moving, first=first), rs, language)
    # the decisions still owed: the orders just taken are not validated a second time
    checked = {n: (parsed.section(n), c.problems) for n, c in result.checks.items() if n in mine}
    return "".join(f"{line}\n" for line in settings) + ("\n" if settings else "") + render_reply(
        result, rs, missing=missing_for(game, player, unlogged, language, state, rs, checked),
        deadline=deadline.text(player_zone(game, player)),
        game=game.id, odds=odds, verdicts=confirmed + verdicts, language=language,
        warnings=[w for n in parsed.nations if n in mine
                  for w in order_warnings(result, rs, state, n, language, first=first if n == state.next_nation else None)])


def _language_after(game: Game, player: str, player_lines) -> str:
    """The language the reply to a mail is written in: the player's (pbem.i18n), or the one a valid
    `LANGUAGE` line of the mail sets (its answer is already in it)."""
    from pbem.rules.orders import LanguageLine

    language = i18n.player_language(game.player(player))
    for ln in player_lines:
        if isinstance(ln, LanguageLine):
            try:
                language = i18n.check_language(ln.language)
            except i18n.PbemError:
                pass
    return language


def _refuse_unknown_zones(lines, result) -> list:
    """The mail's TIMEZONE and AWAY lines to carry out: a TIMEZONE naming no time zone is marked an
    error on its line (with the did-you-mean) and left out."""
    from pbem.errors import GameError
    from pbem.rules.orders import TimezoneLine
    from pbem.store.clock import zone_named

    by_line = {ln.line: ln for ln in result.lines}
    keep = []
    for ln in lines:
        if isinstance(ln, TimezoneLine):
            try:
                zone_named(ln.zone)
            except GameError as e:
                checked = by_line.get(ln.line)
                if checked is not None:
                    checked.problems.append(OrderProblem("unknown-name", ln.line, ln.text, e.message, e.hint))
                    continue
        keep.append(ln)
    return keep


_CONFIRM = re.compile(r"^\s*CONFIRM\s*[.!]?\s*$", re.IGNORECASE)


def split_confirm(text: str) -> tuple[str, bool]:
    """A line `CONFIRM` (after a rollback: play the orders sent before it) taken out of the text."""
    lines = text.splitlines()
    found = any(_CONFIRM.match(ln) for ln in lines)
    return ("\n".join("" if _CONFIRM.match(ln) else ln for ln in lines) + "\n", found) if found else (text, False)


def confirm_drafts(game: Game, player: str, result, default: str | None, *, mail_id: str,
                   received: datetime, record: bool = True) -> list[str]:
    """CONFIRM: the nation's orders from before the rollback are logged again, as sent now."""
    from pbem.service.advance import orders_text

    rs = game.ruleset()
    nations = [ln.order.nation for ln in result.lines if isinstance(ln.order, NationLine)] or (
        [default] if default else [])
    book = build_book(rs, game.entries())
    drafts = {n: orders_text(NationOrders(n, nb.draft), rs) for n, nb in book.nations.items() if nb.draft}
    already = {(e.get("mail_id"), e.get("nation")) for e in game.entries("orders")}
    out = []
    language = i18n.player_language(game.player(player))
    for n in nations:
        if n not in game.nations_of(player):
            continue
        if n not in drafts:
            out.append(i18n.tr(language, _("%(name)s: CONFIRM: there are no orders from before a rollback to confirm."),
                               name=i18n.name(language, rs, n)))
            continue
        if (mail_id, n) not in already and record:
            game.record_orders(n, player, drafts[n], mail_id=mail_id, received=received.isoformat(),
                               time=received.isoformat(), problems=0, confirmed=True)
        out.append(i18n.tr(language, _("%(name)s: your orders from before the rollback are confirmed: %(orders)s"),
                           name=i18n.name(language, rs, n), orders="; ".join(
                               i18n.order_line(language, rs, ln) for ln in drafts[n].strip().splitlines())))
    return out


_STANDING_WORDS = re.compile(r"^\s*(DEFEND|CLEAR\s+DEFEND|LOSSES|VOTE|ЗАЩИТА|ОТМЕНИТЬ\s+ЗАЩИТУ|ПОТЕРИ|ГОЛОС)(?!\w)",
                             re.IGNORECASE)


def _standing_word(text: str) -> bool:
    """A line that starts as a standing order or a vote does (the book keeps those apart from the
    turn's orders: one that cannot be read leaves the turn orders waiting as they are)."""
    return bool(_STANDING_WORDS.match(text or ""))


def verdict(rs, state, section: NationOrders, bad: int, idle: int = 0, partly: int = 0,
            language: str = i18n.DEFAULT) -> str:
    """What became of one nation's orders in a mail (each nation is answered on its own). `idle`: lines
    OK that, played from this position, do nothing (shown "no effect" with the reason, e.g. a stacking
    error that cancels its whole movement, rule 5.2): the verdict does not promise them (issue 30);
    `partly`: refused lines the turn still carries out in part (CheckedLine.partly_played). In the
    player's `language` (pbem.i18n)."""
    name = i18n.name(language, rs, section.nation)
    n = len(section.orders)
    order = list(rs.order_of_play)
    later = ""
    turn_orders = [o for o in section.orders if not isinstance(o, STANDING_TYPES)]
    if turn_orders and state.next_nation in order and section.nation in order and \
            order.index(section.nation) < order.index(state.next_nation):
        later = " " + i18n.tr(language, _("The %(name)s have already played round %(round)s: these orders wait for "
                                          "their turn in round %(next)s."),
                              name=name, round=state.round, next=state.round + 1)
    if not later and turn_orders and section.nation != state.next_nation:
        later = " " + i18n.tr(language, _("Checked against today's position; checked again when your turn comes, "
                                          "and you are told at once if a line cannot be carried out then."))
    idle_note = (" " + i18n.trn(language, _N("%(num)d of the lines OK would have no effect (marked \"no effect\" "
                                             "above, with the reason).",
                                             "%(num)d of the lines OK would have no effect (marked \"no effect\" "
                                             "above, with the reason)."), idle) if idle else "")
    if not bad:
        return i18n.trn(language, _N("%(name)s: taken (%(num)d line OK).", "%(name)s: taken (%(num)d lines OK)."),
                        n, name=name) + idle_note + later
    played = (i18n.trn(language, _N("the correct lines are played (except the %(num)d marked \"no effect\", which "
                                    "do nothing) and the others dropped",
                                    "the correct lines are played (except the %(num)d marked \"no effect\", which "
                                    "do nothing) and the others dropped"), idle) if idle else
              i18n.tr(language, _("the correct lines are played and the others dropped")))
    if partly:
        played += " " + i18n.trn(language, _N("(%(num)d of them still carried out in part, as marked)",
                                              "(%(num)d of them still carried out in part, as marked)"), partly)
    return i18n.trn(language, _N("%(name)s: taken, but %(num)d problem to correct. Until the deadline a corrected "
                                 "mail for the %(name)s replaces these orders in full; at the deadline %(played)s.",
                                 "%(name)s: taken, but %(num)d problems to correct. Until the deadline a corrected "
                                 "mail for the %(name)s replaces these orders in full; at the deadline %(played)s."),
                    bad, name=name, played=played) + later


def section_text(section: NationOrders, rs) -> str:
    """The orders of one nation as logged: their canonical form (parsing it gives the same orders)."""
    return "\n".join(canonical_lines(section, rs)) + "\n"


def mail_line_numbers(section: NationOrders, rs) -> list[int]:
    """The mail's line of each line of `section_text(section)` (logged as the orders entry's
    `mail_lines`), so that what is said of the logged orders later (a correction, a reminder) names
    the lines as the player numbered them. A `SECOND MOVEMENT` the canonical form puts in takes the
    line of the order after it."""
    logged = parse_message(section_text(section, rs), rs, default_nation=section.nation).section(section.nation)
    sent = list(section.orders)
    out: list[int] = []
    i = 0
    for o in logged.orders if logged is not None else ():
        if isinstance(o, SecondMovement) and not (i < len(sent) and isinstance(sent[i], SecondMovement)):
            out.append(sent[i].line if i < len(sent) else out[-1] if out else 0)
            continue
        out.append(sent[i].line if i < len(sent) else 0)
        i += 1
    return out
