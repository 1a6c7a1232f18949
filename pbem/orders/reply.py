"""The answer to an orders message: orders read back, OK or errors, what is missing, the deadline.

Rendered with jinja2 (StrictUndefined) from `reply.txt.j2`, found in the `templates/` folder next to
the package (a source checkout) or else in the package data `pbem/templates/` (an installed package).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pbem.errors import OrderProblem
from pbem.orders.check import CheckResult
from pbem.orders.hygiene import quote
from pbem.orders.language import language as order_language
from pbem.rules.orders import GameLine, NationLine, TokenLine
from pbem.templating import environment, template_dirs  # noqa: F401 (template_dirs: re-exported)

MAX_PROBLEMS = 100   # a reply lists at most this many problems (a pasted novel should not come back whole)
MAX_LINES = 400      # ... and at most this many lines


def _problem(p: OrderProblem, grammar: list[str] | None = None, all_forms: str = "", language: str = "en",
             ruleset=None) -> dict:
    """A problem for the template; the whole grammar (the hint of a line that is no order at all:
    `all_forms`, the ruleset's) is shown once at the end of the reply, not under every such line. In
    the player's `language` (pbem.orders.phrases)."""
    from pbem.orders.phrases import problem_text, rules_text

    def said(text: str) -> str:
        done = problem_text(language, text)
        return rules_text(language, ruleset, done) if done == text and ruleset is not None else done

    hint = p.hint
    if grammar is not None and hint == all_forms:
        hint = "" if grammar else "The forms of an order line are listed at the end of this reply."
        grammar[:] = [all_forms]
    return {"kind": p.kind, "line": p.line, "text": quote(p.text) if p.text else "",
            "message": _sentence(said(p.message)), "hint": said(hint)}


def _differs(canonical: str, text: str) -> bool:
    return " ".join(canonical.split()).casefold() != " ".join(text.split("#", 1)[0].split()).casefold()


def _sentence(s: str) -> str:
    s = s.strip()
    return s if not s or s.endswith(("?", "!", ".")) else s + "."


def _deadline(deadline) -> str:
    if deadline is None:
        return ""
    if isinstance(deadline, datetime):
        s = deadline.strftime("%Y-%m-%d %H:%M")
        tz = deadline.strftime("%Z")
        return f"{s} {tz}".strip() if tz else s
    return str(deadline)


def reply_context(result: CheckResult, ruleset, *, missing: Sequence[str] = (), deadline=None,
                  game: str | None = None, max_problems: int = MAX_PROBLEMS,
                  max_lines: int = MAX_LINES, odds: Sequence[str] = (), warnings: Sequence[str] = (),
                  verdicts: Sequence[str] = (), language: str = "en") -> dict:
    from pbem import i18n
    from pbem.orders.phrases import form_text, reason_text

    sections: list[dict] = []
    shown_problems = 0
    shown_lines = 0
    hidden = 0
    hidden_lines = 0
    current = object()
    grammar: list[str] = []
    forms = order_language(ruleset)     # the order forms of the ruleset (pbem.orders.language)
    for ln in result.lines:
        if isinstance(ln.order, (GameLine, TokenLine)) and not ln.problems:
            continue
        if isinstance(ln.order, NationLine) and not ln.problems:
            continue
        if ln.nation != current:
            current = ln.nation
            sections.append({"nation": i18n.order_line(language, ruleset, ruleset.display(ln.nation))
                             if ln.nation else "", "lines": []})
        if shown_lines >= max_lines or (ln.problems and shown_problems >= max_problems):
            hidden_lines += 1
            hidden += len(ln.problems)
            continue
        probs = [_problem(p, grammar, forms.hint, language, ruleset) for p in ln.problems]
        shown_problems += len(probs)
        shown_lines += 1
        sections[-1]["lines"].append({
            "line": ln.line, "ok": ln.ok,
            "shown": i18n.order_line(language, ruleset, ln.canonical) if ln.ok else quote(ln.text),
            "read_as": i18n.order_line(language, ruleset, ln.canonical)
            if (ln.canonical and not ln.ok and _differs(i18n.order_line(language, ruleset, ln.canonical), ln.text)
                and _differs(ln.canonical, ln.text)) else "",
            "problems": probs,
            "notes": [reason_text(language, ruleset, n) for n in ln.notes] if ln.ok else [],
            "partly": ln.partly_played and not ln.ok,
        })
    general = [_problem(p, grammar, forms.hint, language, ruleset) for p in result.general]
    orders = [ln for ln in result.lines if ln.order is not None
              and not isinstance(ln.order, (GameLine, TokenLine, NationLine))]
    return {
        "game": game if game is not None else (result.game or ""),
        "nations": [i18n.name(language, ruleset, n) for n in result.nations],
        "sections": [s for s in sections if s["lines"]],
        "general": general,
        "ok": result.ok,
        "validated": result.validated,
        "later": [i18n.name(language, ruleset, n) for n in result.later],
        "n_lines": len(orders),
        "n_bad": sum(1 for ln in result.lines if ln.problems),
        "hidden": hidden,
        "hidden_lines": hidden_lines,
        "missing": list(missing),
        "deadline": _deadline(deadline),
        "odds": list(odds),
        "warnings": list(warnings),
        "verdicts": list(verdicts),
        "chatter": [{"line": n, "text": quote(t), "why": why} for n, t, why in result.parsed.chatter],
        "grammar": [form_text(language, g) for g in forms.grammar] if grammar else [],
    }


def render_reply(result: CheckResult, ruleset, *, missing: Sequence[str] = (), deadline=None,
                 game: str | None = None, template: str = "reply.txt.j2",
                 max_problems: int = MAX_PROBLEMS, max_lines: int = MAX_LINES, odds: Sequence[str] = (),
                 warnings: Sequence[str] = (), verdicts: Sequence[str] = (), language: str = "en") -> str:
    """The reply text for a checked message (see templates/reply.txt.j2), its fixed phrases in the
    player's `language` (pbem.i18n); `odds`: lines answering
    the message's ODDS questions or giving the odds of its planned battles; `warnings`: what the
    orders do that the player may not expect (see order_warnings); `verdicts`: one line per nation
    of the mail saying what became of its orders (replaces the message-wide verdict)."""
    ctx = reply_context(result, ruleset, missing=missing, deadline=deadline, game=game,
                        max_problems=max_problems, max_lines=max_lines, odds=odds, warnings=warnings,
                        verdicts=verdicts, language=language)
    from pbem.i18n import GUIDES

    ctx["guide_name"] = "docs/PLAYERS.md" if language == "en" else GUIDES.get(language, "docs/PLAYERS.md")
    text = environment(language=language).get_template(template).render(**ctx)
    rules = getattr(ruleset, "rules", None)
    if rules is not None:  # the ruleset's own rule numbers (issue 30 item 5); the log keeps the classic text
        text = rules.cite(ruleset, text)
    return text.encode("utf-8", "replace").decode("utf-8")


def order_warnings(result: CheckResult, ruleset, state, nation: str | None, language: str = "en", *,
                   first=None) -> list[str]:
    """Rules 10.1 and 6.0 (pbem.rules.preview.warnings) for the orders of the nation that moves now, in
    the player's `language` (pbem.orders.phrases); `first`: those orders' first movement
    (pbem.rules.legal.first_movement), when the caller has played it already."""
    from pbem import i18n
    from pbem.orders.phrases import reason_text

    if nation is None or state is None or state.next_nation != nation:
        return []
    section = result.parsed.section(nation)
    if section is None:
        return []
    from pbem.rules.preview import warnings

    out = []
    for w in warnings(ruleset, state, nation, section, first=first):
        where = (i18n.tr(language, i18n._('line %(line)s "%(text)s": '), line=w.line, text=quote(w.text))
                 if w.line else "")
        out.append(f"{i18n.name(language, ruleset, nation)}: {where}{reason_text(language, ruleset, w.message)}")
    checked = result.checks.get(nation)
    return out + lost_at_sea_warnings(ruleset, state, nation, section, language,
                                      events=checked.events if checked is not None else None)


def lost_at_sea_warnings(ruleset, state, nation: str, section, language: str = "en", *,
                         events: list | None = None) -> list[str]:
    """Units the orders, played as they are, leave at sea where the ruleset has them lost (the event
    cites its rule): a STAY in the first half of a major invasion is legal, but without moves ashore
    after `SECOND MOVEMENT` those armies are lost (issue 30). `events`: those of this very play
    (check_turn's, kept by check_orders), else the turn is played here."""
    from pbem.rules.dice import NeutralDice
    from pbem.rules.events import LostAtSea
    from pbem.rules.turn import cycles, play_nation_turn

    if events is None:
        events = play_nation_turn(ruleset, state, nation, {nation: section}, NeutralDice(), strict=False).events
    lost = [ev for ev in events if isinstance(ev, LostAtSea)]
    if not lost:
        return []
    from pbem.i18n import _, tr
    from pbem.report.localize import LocalNames, event_line

    if cycles(ruleset, state, nation) < 2:
        how = _("move them ashore")
    elif any(getattr(o, "cycle", 1) == 2 for o in section.orders):
        how = _("move them ashore in the second movement")
    else:
        how = _("this turn has two movements (a major invasion): after a line SECOND MOVEMENT, write the moves "
                "that bring them ashore")
    said = (lambda ev: ev.describe(ruleset)) if language == "en" else (
        lambda ev: event_line(ev, LocalNames(ruleset, language), language))
    return [tr(language, _("played as they are, these orders lose units at sea: %(what)s; %(how)s."),
               what=said(ev), how=tr(language, how)) for ev in lost]
