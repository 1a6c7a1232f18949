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

import re
from dataclasses import dataclass
from typing import NamedTuple

from pbem.errors import OrderError, OrderProblem, PbemError
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


@dataclass(frozen=True)
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


def _pieces(side: Side) -> str:
    parts = []
    if side.armies:
        parts.append(f"{side.armies} {'Roman ' if side.roman else ''}{'army' if side.armies == 1 else 'armies'}")
    if side.cavalry:
        parts.append(f"{side.cavalry} cavalry")
    if side.fort:
        parts.append("a fort")
    if side.burhs:
        parts.append(f"{side.burhs} burh{'s' if side.burhs > 1 else ''}")
    text = " and ".join(parts) or "nothing"
    return text + (" with a leader" if side.leader else "")


def _plan_words(plan: Plan) -> str:
    out = []
    if plan.attack == "retreat_if_outnumbered":
        out.append("the attacker retreats if outnumbered")
    elif plan.attack == "retreat_after":
        out.append(f"the attacker retreats after round {plan.attack_after}")
    if plan.defend != "hold":
        out.append("the defender retreats" + (" if outnumbered" if plan.defend == "retreat_if_outnumbered" else "")
                   + (f" after round {plan.defend_after}" if plan.defend_after else ""))
    return "; ".join(out)


def pct(x) -> str:
    return f"{float(x) * 100:5.1f} %"


def odds_lines(q: OddsQuestion, o: Odds, ruleset=None) -> list[str]:
    """The answer to one ODDS question, a few short lines."""
    where = (ruleset.display(q.area) + (" (hiland)" if q.hiland else " (clear)")) if (q.area and ruleset) else \
        ("hiland" if q.hiland else "clear terrain")
    plan = _plan_words(q.plan)
    lines = [f"{_pieces(q.attacker)} attack {_pieces(q.defender)}, {where}" + (f"; {plan}" if plan else "") + ":",
             f"  attacker takes the area  {pct(o.attacker_takes)}"
             + (f"  (defender retreats {pct(o.defender_retreats).strip()})" if o.defender_retreats else ""),
             f"  defender holds           {pct(o.defender_holds)}"
             + (f"  (attacker retreats {pct(o.attacker_retreats).strip()})" if o.attacker_retreats else ""),
             f"  both eliminated          {pct(o.both_gone)}",
             f"  expected losses: attacker {float(o.attacker_losses):.2f}, defender {float(o.defender_losses):.2f}",
             f"  a die kills on: attacker {_hits(_needs(q, ruleset, True), q.attacker, q.defender, ruleset)}, "
             f"defender {_hits(_needs(q, ruleset, False), q.defender, q.attacker, ruleset)} "
             "(every roll counted, not sampled)"]
    return lines


def _needs(q: OddsQuestion, ruleset, attacking: bool) -> DieNeeds:
    """The hit numbers of one side's dice: the battle model's (rules.odds.die_needs, as the engine rolls)."""
    return die_needs(ruleset, q.area or terrain_area(ruleset, q.hiland), attacking)


def _faces(model, need: int, bonus: int) -> str:
    """The die faces that reach `need` with `bonus` added: '5 or 6' (the battle model's die)."""
    return model.faces_text(need, bonus)


_GROUP_NAMES = {"cavalry": "the cavalry", "armies": "the armies", "fort": "the fort", "burhs": "the burhs"}


def _hits(needs: DieNeeds, roller: Side, target: Side, ruleset) -> str:
    """'5 or 6 (the leader's +1 counted; 6 against cavalry)' — what one die of `roller` needs: the battle
    model's dice groups (rs.rules.battle.dice_groups: each group's bonus and hit number) in words."""
    model = ruleset.rules.battle
    groups = model.dice_groups(ruleset, armies=roller.armies, cavalry=roller.cavalry, fort=roller.fort,
                               burhs=roller.burhs, leader=roller.leader, roman=roller.roman)
    if not groups:
        return "no dice"
    main = next((g for g in groups if g.piece == "armies"), groups[0])
    text = _faces(model, model.need(needs, main, "armies"), main.bonus)
    notes = []
    if main.bonus:
        notes.append(f"the leader's +{main.bonus} counted")
    for g in groups:
        if g is not main and (model.need(needs, g, "armies"), g.bonus) != (model.need(needs, main, "armies"), main.bonus):
            notes.append(f"{_faces(model, model.need(needs, g, 'armies'), g.bonus)} for {_GROUP_NAMES[g.piece]}")
    hard_targets = [w for w, has in (("cavalry", target.cavalry), ("Roman armies", target.roman and target.armies))
                    if has]
    kind = "roman_armies" if target.roman else "cavalry"
    if hard_targets and model.need(needs, main, kind) != model.need(needs, main, "armies"):
        face = model.face_needed(model.need(needs, main, kind), main.bonus)
        notes.append(f"{face}{'+' if face is not None and face < model.die_faces else ''} against "
                     f"{' and '.join(hard_targets)}")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def answer_odds(text: str, ruleset, line: int = 0, budgets: tuple[OddsBudget, ...] = ()) -> list[str]:
    """ODDS line -> answer lines (an error, or odds not computed, is one line starting with 'ODDS: ')."""
    try:
        q = parse_odds(text, ruleset, line)
        o = battle_odds(ruleset, q.attacker, q.defender, hiland=q.hiland, area=q.area, plan=q.plan, budgets=budgets)
        return odds_lines(q, o, ruleset)
    except OrderError as e:
        return [f"ODDS: {e}"]
    except PbemError as e:
        where = f"line {line}: " if line else ""
        return [f"ODDS: {where}{e}"]


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
                 run_budget: OddsBudget | None = None) -> list[str]:
    """The answers to a message's ODDS lines: the first `limit` of them, within one mail's budget of
    work and what is left of the run's (`run_budget`, shared by the mails of one run)."""
    out: list[str] = []
    budgets = (mail_budget(),) + ((run_budget,) if run_budget is not None else ())
    for item in asked[:limit]:
        line, text = item if isinstance(item, tuple) else (0, item)
        out += [f"> {text[:MAX_LINE]}"] + answer_odds(text, ruleset, line, budgets) + [""]
    if len(asked) > limit:
        out.append(f"(only the first {limit} ODDS lines are answered)")
    return out


def planned_battle_lines(battles, ruleset) -> list[str]:
    """pbem check: the odds of each battle the orders plan."""
    out: list[str] = []
    for b in battles:
        q = OddsQuestion(b.attacking, b.defending, b.hiland, b.area, b.plan)
        lines = odds_lines(q, b.odds, ruleset)
        out += [f"{ruleset.display(b.area)}, against the {ruleset.display(b.defender)}: " + lines[0]] + lines[1:] + [""]
    return out
