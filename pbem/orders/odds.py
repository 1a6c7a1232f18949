"""`ODDS` lines (in a mail, `pbem odds`, `pbem check`): a planned battle in words -> exact odds text.

    ODDS 3 VS 2                                  3 armies attack 2 armies, clear terrain
    ODDS 3 LEADER VS 2 FORT IN Powys             Powys is hiland: the attacker needs 6s
    ODDS 2 CAV 1 VS 3 ROMAN HILAND ATTACK RETREAT IF OUTNUMBERED
    ODDS 4 VS 3 DEFEND RETREAT AFTER ROUND 2

A side is a number of armies with any of: `CAV N` (cavalry), `LEADER`, `ROMAN` (Roman armies),
`FORT`, `BURHS N`. After the sides: `IN <area>` (its terrain), `HILAND`/`CLEAR`, `ATTACK FIGHT |
RETREAT IF OUTNUMBERED | RETREAT AFTER ROUND K`, `DEFEND HOLD | RETREAT [IF OUTNUMBERED] [AFTER ROUND K]`.
The numbers come from pbem.rules.odds (exact, every roll counted).

Limits (issue 27: one line must not stop a game; issue 33: nor stall the job). A number is written in
ASCII digits 0-9 (other Unicode digits such as `²` or `①` are refused, not read); each side has at
most MAX_PIECES pieces (rules.odds) and at most MAX_COUNT of one kind; AFTER ROUND k takes k from 1
to MAX_ROUND; a line is at most MAX_LINE characters. A mail has its first MAX_LINES ODDS lines
answered, within MAIL_WORK steps of work; all the mails of one `pbem run` share RUN_WORK steps. A line
beyond a budget is answered that it was not computed and why (never dropped). Every refusal is one
answer line naming the line of the mail, the text and what is allowed.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from pbem import i18n
from pbem.errors import OrderError, OrderProblem, PbemError
from pbem.i18n import _N, _
from pbem.records import record
from pbem.rules.odds import (
    MAX_PIECES,
    MAX_ROUND,
    MAX_WORK,
    DieNeeds,
    Odds,
    OddsBudget,
    Plan,
    Side,
    battle_odds,
    die_needs,
    terrain_area,
)

MAX_LINE = 300          # characters of one ODDS line
MAX_COUNT = MAX_PIECES  # armies, cavalry or burhs of one kind on one side
MAX_LINES = 5           # ODDS lines answered in one mail
MAIL_WORK = 2 * MAX_WORK    # steps of work for all the ODDS lines of one mail (about 2 s)
RUN_WORK = 10 * MAX_WORK    # steps of work for every mail of one `pbem run` (about 10 s)
_NUMBER = re.compile(r"[0-9]+")   # ASCII digits only: str.isdigit() also takes '²', '①', ...


def mail_budget() -> OddsBudget:
    return OddsBudget(MAIL_WORK, f"not computed: this mail's ODDS lines together ask for more work than one "
                                 f"mail may ({MAIL_WORK} steps); ask this one in another mail")


def run_budget() -> OddsBudget:
    """The budget every mail of one `pbem run` shares (pbem.service.inbox.OrdersHandler)."""
    return OddsBudget(RUN_WORK, "not computed now: the server has given as many odds as it gives in one run "
                                f"({RUN_WORK} steps of work); send this line again in a later mail")


class Asked(NamedTuple):
    """An ODDS line of a mail: its line number (1-based, the mail's) and its text."""

    line: int
    text: str


ODDS_RE = re.compile(r"^\s*ODDS\b", re.IGNORECASE)
FORM = "ODDS <armies> [CAV n] [LEADER] [ROMAN] VS <armies> [CAV n] [LEADER] [ROMAN] [FORT] [BURHS n] " \
       "[IN <area> | HILAND] [ATTACK RETREAT IF OUTNUMBERED | ATTACK RETREAT AFTER ROUND k] " \
       "[DEFEND RETREAT [IF OUTNUMBERED] [AFTER ROUND k]]"


@record
class OddsQuestion:
    attacker: Side
    defender: Side
    hiland: bool = False
    area: str | None = None
    plan: Plan = Plan()


def is_odds_line(line: str) -> bool:
    return bool(ODDS_RE.match(line))


def _count(word: str, what: str, example: str) -> int:
    """A count written in ASCII digits, 0 to MAX_COUNT."""
    if not _NUMBER.fullmatch(word):
        raise PbemError(f"{what} must be a number written with the digits 0-9, not {word[:20]!r}", hint=example)
    if len(word) > 3 or int(word) > MAX_COUNT:
        raise PbemError(f"{what} is at most {MAX_COUNT}", hint=example)
    return int(word)


def _side(words: list[str], who: str) -> Side:
    if not words:
        raise PbemError(f"the {who} must start with a number of armies", hint="ODDS 3 VS 2")
    armies = _count(words[0], f"the {who}'s armies", "ODDS 3 VS 2")
    cav = burhs = 0
    leader = roman = fort = False
    i = 1
    while i < len(words):
        w = words[i].upper()
        if w in ("ARMY", "ARMIES", "X"):
            pass
        elif w in ("CAV", "CAVALRY", "HORSE"):
            if i + 1 >= len(words):
                raise PbemError("CAV needs a number", hint="CAV 2")
            cav, i = _count(words[i + 1], "CAV", "CAV 2"), i + 1
        elif w == "LEADER":
            leader = True
        elif w in ("ROMAN", "ROMANS"):
            roman = True
        elif w == "FORT":
            fort = True
        elif w in ("BURH", "BURHS"):
            if i + 1 >= len(words):
                raise PbemError("BURHS needs a number", hint="BURHS 1")
            burhs, i = _count(words[i + 1], "BURHS", "BURHS 1"), i + 1
        else:
            raise PbemError(f"unknown word {words[i][:20]!r} for the {who}")
        i += 1
    if who == "attacker" and (fort or burhs):
        raise PbemError("forts and burhs only defend")
    side = Side(armies, cav, leader, roman, fort, burhs)
    if side.fighters > MAX_PIECES:
        raise PbemError(f"the {who} has {side.fighters} pieces; the odds are computed for at most {MAX_PIECES}")
    return side


_PLAN_RE = re.compile(
    r"\b(?P<who>ATTACK|DEFEND)\s+(?P<what>FIGHT|HOLD|RETREAT(?:\s+TO\s+[\w .'-]+?)?)"
    r"(?P<out>\s+IF\s+OUTNUMBERED)?(?:\s+AFTER\s+(?:ROUND\s+)?(?P<k>\S+)(?:\s+ROUNDS?)?)?\s*$", re.IGNORECASE)


def parse_odds(text: str, ruleset, line: int = 0) -> OddsQuestion:
    """Read one ODDS line (the word ODDS itself is optional). Raises OrderError: one problem with the
    mail's `line`, the quoted text and the form to write."""
    quoted = text.strip()[:80]
    if len(text) > MAX_LINE:
        raise OrderError([OrderProblem("syntax", line, quoted, f"an ODDS line is at most {MAX_LINE} characters",
                                       f"Write: {FORM}")])
    s = ODDS_RE.sub("", text.split("#", 1)[0]).strip()
    try:
        return _parse(s, ruleset)
    except PbemError as e:
        hint = f"For example {e.hint}. Write: {FORM}" if e.hint else f"Write: {FORM}"
        raise OrderError([OrderProblem("syntax", line, quoted, e.message, hint)]) from None


def _round(word: str) -> int:
    """AFTER ROUND k: k from 1 to MAX_ROUND, in ASCII digits."""
    if not _NUMBER.fullmatch(word) or len(word) > 3 or not 1 <= int(word) <= MAX_ROUND:
        raise PbemError(f"AFTER ROUND takes a round from 1 to {MAX_ROUND}, not {word[:20]!r}", hint="AFTER ROUND 2")
    return int(word)


def _parse(s: str, ruleset) -> OddsQuestion:
    plan = Plan()
    attack_mode, attack_after, defend_mode, defend_after = "fight", None, "hold", None
    while True:
        m = _PLAN_RE.search(s)
        if not m:
            break
        who, what = m["who"].upper(), m["what"].upper().split()[0]
        k = _round(m["k"]) if m["k"] else None
        if who == "ATTACK":
            if what == "HOLD":
                raise PbemError("ATTACK takes FIGHT or RETREAT")
            attack_mode = "fight" if what == "FIGHT" else ("retreat_if_outnumbered" if m["out"] else "retreat_after")
            attack_after = k if attack_mode == "retreat_after" else None
            if attack_mode == "retreat_after" and k is None:
                raise PbemError("ATTACK RETREAT needs IF OUTNUMBERED or AFTER ROUND k")
        else:
            if what == "FIGHT":
                raise PbemError("DEFEND takes HOLD or RETREAT")
            defend_mode = "hold" if what == "HOLD" else ("retreat_if_outnumbered" if m["out"] else "retreat")
            defend_after = k
        s = s[:m.start()].strip()
    plan = Plan(attack_mode, attack_after, defend_mode, defend_after)
    hiland = False
    area = None
    m = re.search(r"\bIN\s+(?P<area>.+)$", s, re.IGNORECASE)
    if m:
        from pbem.orders.names import resolve

        area = resolve(ruleset, m["area"].strip(), ("area",))
        hiland = ruleset.hiland(area)
        s = s[:m.start()].strip()
    words = s.replace(",", " ").split()
    for flag in ("HILAND", "HILLS", "CLEAR"):
        if words and words[-1].upper() == flag:
            hiland = flag != "CLEAR"
            words.pop()
    upper = [w.upper() for w in words]
    sep = next((i for i, w in enumerate(upper) if w in ("VS", "VS.", "V", "AGAINST")), None)
    if sep is None:
        raise PbemError("write the attackers, VS, then the defenders")
    return OddsQuestion(_side(words[:sep], "attacker"), _side(words[sep + 1:], "defender"), hiland, area, plan)


_ARMIES = _N("%(num)d army", "%(num)d armies")
_ROMAN_ARMIES = _N("%(num)d Roman army", "%(num)d Roman armies")
_CAVALRY = _N("%(num)d cavalry", "%(num)d cavalry")
_BURHS = _N("%(num)d burh", "%(num)d burhs")


def _pieces(side: Side, language: str = i18n.DEFAULT) -> str:
    parts = []
    if side.armies:
        parts.append(i18n.trn(language, _ROMAN_ARMIES if side.roman else _ARMIES, side.armies))
    if side.cavalry:
        parts.append(i18n.trn(language, _CAVALRY, side.cavalry))
    if side.fort:
        parts.append(i18n.tr(language, _("a fort")))
    if side.burhs:
        parts.append(i18n.trn(language, _BURHS, side.burhs))
    text = i18n.tr(language, _(" and ")).join(parts) or i18n.tr(language, _("nothing"))
    return text + (i18n.tr(language, _(" with a leader")) if side.leader else "")


def _plan_words(plan: Plan, language: str = i18n.DEFAULT) -> str:
    out = []
    if plan.attack == "retreat_if_outnumbered":
        out.append(i18n.tr(language, _("the attacker retreats if outnumbered")))
    elif plan.attack == "retreat_after":
        out.append(i18n.tr(language, _("the attacker retreats after round %(k)s"), k=plan.attack_after))
    if plan.defend != "hold":
        out.append(i18n.tr(language, _("the defender retreats"))
                   + (i18n.tr(language, _(" if outnumbered")) if plan.defend == "retreat_if_outnumbered" else "")
                   + (i18n.tr(language, _(" after round %(k)s"), k=plan.defend_after) if plan.defend_after else ""))
    return "; ".join(out)


def pct(x) -> str:
    return f"{float(x) * 100:5.1f} %"


def odds_lines(q: OddsQuestion, o: Odds, ruleset=None, language: str = i18n.DEFAULT) -> list[str]:
    """The answer to one ODDS question, a few short lines, in the player's `language` (pbem.i18n; the
    numbers are the same in every language)."""
    t = functools.partial(i18n.tr, language)
    if q.area and ruleset:
        where = i18n.name(language, ruleset, q.area) + t(_(" (hiland)") if q.hiland else _(" (clear)"))
    else:
        where = t(_("hiland") if q.hiland else _("clear terrain"))
    plan = _plan_words(q.plan, language)
    lines = [t(_("%(attacker)s attack %(defender)s, %(where)s"), attacker=_pieces(q.attacker, language),
               defender=_pieces(q.defender, language), where=where) + (f"; {plan}" if plan else "") + ":",
             t(_("  attacker takes the area  %(pct)s"), pct=pct(o.attacker_takes))
             + (t(_("  (defender retreats %(pct)s)"), pct=pct(o.defender_retreats).strip()) if o.defender_retreats else ""),
             t(_("  defender holds           %(pct)s"), pct=pct(o.defender_holds))
             + (t(_("  (attacker retreats %(pct)s)"), pct=pct(o.attacker_retreats).strip()) if o.attacker_retreats else ""),
             t(_("  both eliminated          %(pct)s"), pct=pct(o.both_gone)),
             t(_("  expected losses: attacker %(a)s, defender %(d)s"), a=f"{float(o.attacker_losses):.2f}",
               d=f"{float(o.defender_losses):.2f}"),
             _dice_line(q, ruleset, t, language)]
    return lines


def _dice_line(q: OddsQuestion, ruleset, t, language: str) -> str:
    """What a die needs on each side; where a piece takes more than one hit (the battle model's
    `hits_to_kill`), a die hits and so many hits eliminate."""
    a = _hits(_needs(q, ruleset, True), q.attacker, q.defender, ruleset, language)
    d = _hits(_needs(q, ruleset, False), q.defender, q.attacker, ruleset, language)
    n = ruleset.rules.battle.hits_to_kill
    if n > 1:
        return t(_("  a die hits on: attacker %(a)s, defender %(d)s; %(n)s hits eliminate a piece (every roll "
                   "counted, not sampled)"), a=a, d=d, n=n)
    return t(_("  a die kills on: attacker %(a)s, defender %(d)s (every roll counted, not sampled)"), a=a, d=d)


def _needs(q: OddsQuestion, ruleset, attacking: bool) -> DieNeeds:
    """The hit numbers of one side's dice: the battle model's (rules.odds.die_needs, as the engine rolls)."""
    return die_needs(ruleset, q.area or terrain_area(ruleset, q.hiland), attacking)


def _faces(model, need: int, bonus: int, language: str = i18n.DEFAULT) -> str:
    """The die faces that reach `need` with `bonus` added: '5 or 6' (the battle model's die)."""
    text = model.faces_text(need, bonus)
    if language == i18n.DEFAULT:
        return text
    if text == "no face":
        return i18n.tr(language, _("no face"))
    return text.replace(" or ", " " + i18n.tr(language, _("or")) + " ")


_GROUP_NAMES = {"cavalry": _("the cavalry"), "armies": _("the armies"), "fort": _("the fort"), "burhs": _("the burhs")}
_AGAINST = {("cavalry",): _("%(face)s against cavalry"), ("Roman armies",): _("%(face)s against Roman armies"),
            ("cavalry", "Roman armies"): _("%(face)s against cavalry and Roman armies")}


def _hits(needs: DieNeeds, roller: Side, target: Side, ruleset, language: str = i18n.DEFAULT) -> str:
    """'5 or 6 (the leader's +1 counted; 6 against cavalry)' — what one die of `roller` needs: the battle
    model's dice groups (rs.rules.battle.dice_groups: each group's bonus and hit number) in words."""
    model = ruleset.rules.battle
    groups = model.dice_groups(ruleset, armies=roller.armies, cavalry=roller.cavalry, fort=roller.fort,
                               burhs=roller.burhs, leader=roller.leader, roman=roller.roman)
    if not groups:
        return i18n.tr(language, _("no dice"))
    main = next((g for g in groups if g.piece == "armies"), groups[0])
    text = _faces(model, model.need(needs, main, "armies"), main.bonus, language)
    notes = []
    if main.bonus:
        notes.append(i18n.tr(language, _("the leader's +%(n)s counted"), n=main.bonus))
    for g in groups:
        if g is not main and (model.need(needs, g, "armies"), g.bonus) != (model.need(needs, main, "armies"), main.bonus):
            notes.append(i18n.tr(language, _("%(faces)s for %(group)s"),
                                 faces=_faces(model, model.need(needs, g, "armies"), g.bonus, language),
                                 group=i18n.tr(language, _GROUP_NAMES[g.piece])))
    hard_targets = [w for w, has in (("cavalry", target.cavalry), ("Roman armies", target.roman and target.armies))
                    if has]
    kind = "roman_armies" if target.roman else "cavalry"
    if hard_targets and model.need(needs, main, kind) != model.need(needs, main, "armies"):
        face = model.face_needed(model.need(needs, main, kind), main.bonus)
        notes.append(i18n.tr(language, _AGAINST[tuple(hard_targets)],
                             face=f"{face}{'+' if face is not None and face < model.die_faces else ''}"))
    return text + (f" ({'; '.join(notes)})" if notes else "")


def answer_odds(text: str, ruleset, line: int = 0, budgets: tuple[OddsBudget, ...] = (),
                language: str = i18n.DEFAULT) -> list[str]:
    """ODDS line -> answer lines (an error, or odds not computed, is one line starting with 'ODDS: '),
    in the player's `language` (the refusal's English words through pbem.orders.phrases.odds_text)."""
    try:
        q = parse_odds(text, ruleset, line)
        o = battle_odds(ruleset, q.attacker, q.defender, hiland=q.hiland, area=q.area, plan=q.plan, budgets=budgets)
        return odds_lines(q, o, ruleset, language)
    except OrderError as e:
        if language == i18n.DEFAULT:
            return [f"ODDS: {e}"]
        return ["ODDS: " + "; ".join(_problem(language, p) for p in e.problems)]
    except PbemError as e:
        if language == i18n.DEFAULT:
            where = f"line {line}: " if line else ""
            return [f"ODDS: {where}{e}"]
        where = i18n.tr(language, _("line %(n)s: "), n=line) if line else ""
        return [f"ODDS: {where}{_refusal(language, e.message, e.hint)}"]


def _refusal(language: str, message: str, hint: str) -> str:
    from pbem.orders.phrases import odds_text

    return odds_text(language, message) + (f" ({odds_text(language, hint)})" if hint else "")


_FORM_WORDS = (("<armies>", _("<armies>")), ("<area>", _("<area>")))
"""The words of FORM a player does not write as they are (the rest are the line's own words)."""
_HINT_RE = re.compile(r"^(?:For example (?P<example>.+)\. )?Write: (?P<form>.+)$")


def _problem(language: str, p: OrderProblem) -> str:
    """OrderProblem.describe in `language`: the line, the quoted text, the kind, the message, the form."""
    from pbem.orders.phrases import odds_text

    where = i18n.tr(language, _("line %(n)s: "), n=p.line) if p.line else ""
    quoted = f'"{p.text}": ' if p.text else ""
    message = odds_text(language, p.message.rstrip("."))
    hint = p.hint
    m = _HINT_RE.match(hint)
    if m:
        form = m["form"]
        for english, msgid in _FORM_WORDS:
            form = form.replace(english, i18n.tr(language, msgid))
        hint = i18n.tr(language, _("Write: %(form)s"), form=form)
    if m and m["example"] and m["example"].startswith("Did you mean "):    # a name's did-you-mean (IN <area>)
        hint = odds_text(language, m["example"]) + " " + hint
    elif m and m["example"]:
        hint = i18n.tr(language, _("For example %(example)s."), example=m["example"]) + " " + hint
    elif hint:
        hint = odds_text(language, hint)
    return f"{where}{quoted}{i18n.tr(language, p.kind)}: {message}." + (f" {hint}" if hint else "")


def split_odds(text: str) -> tuple[str, list[Asked]]:
    """The ODDS lines of a message taken out (left blank, so line numbers stay) and the rest."""
    rest, asked = [], []
    for n, line in enumerate(text.splitlines(), 1):
        if is_odds_line(line):
            asked.append(Asked(n, line.strip()))
            rest.append("")
        else:
            rest.append(line)
    return "\n".join(rest) + ("\n" if text.endswith("\n") else ""), asked


def odds_answers(asked: list[Asked | str], ruleset, limit: int = MAX_LINES,
                 run_budget: OddsBudget | None = None, language: str = i18n.DEFAULT) -> list[str]:
    """The answers to a message's ODDS lines: the first `limit` of them, within one mail's budget of
    work and what is left of the run's (`run_budget`, shared by the mails of one run)."""
    out: list[str] = []
    budgets = (mail_budget(),) + ((run_budget,) if run_budget is not None else ())
    for item in asked[:limit]:
        line, text = item if isinstance(item, tuple) else (0, item)
        out += [f"> {text[:MAX_LINE]}"] + answer_odds(text, ruleset, line, budgets, language) + [""]
    if len(asked) > limit:
        out.append(i18n.tr(language, _("(only the first %(n)s ODDS lines are answered)"), n=limit))
    return out


def planned_battle_lines(battles, ruleset, language: str = i18n.DEFAULT) -> list[str]:
    """pbem check and the reply: the odds of each battle the orders plan, in the player's `language`."""
    out: list[str] = []
    for b in battles:
        q = OddsQuestion(b.attacking, b.defending, b.hiland, b.area, b.plan)
        lines = odds_lines(q, b.odds, ruleset, language)
        head = i18n.tr(language, _("%(area)s, against the %(nation)s: "), area=i18n.name(language, ruleset, b.area),
                       nation=i18n.name(language, ruleset, b.defender))
        out += [head + lines[0]] + lines[1:] + [""]
    return out
