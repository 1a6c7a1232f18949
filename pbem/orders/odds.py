"""`ODDS` lines (in a mail, `pbem odds`, `pbem check`): a planned battle in words -> exact odds text.

    ODDS 3 VS 2                                  3 armies attack 2 armies, clear terrain
    ODDS 3 LEADER VS 2 FORT IN Powys             Powys is hiland: the attacker needs 6s
    ODDS 2 CAV 1 VS 3 ROMAN HILAND ATTACK RETREAT IF OUTNUMBERED
    ODDS 4 VS 3 DEFEND RETREAT AFTER ROUND 2

A side is a number of armies with any of: `CAV N` (cavalry), `LEADER`, `ROMAN` (Roman armies),
`FORT`, `BURHS N`. After the sides: `IN <area>` (its terrain), `HILAND`/`CLEAR`, `ATTACK FIGHT |
RETREAT IF OUTNUMBERED | RETREAT AFTER ROUND K`, `DEFEND HOLD | RETREAT [IF OUTNUMBERED] [AFTER ROUND K]`.
The numbers come from pbem.rules.odds (exact, every roll counted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.errors import PbemError
from pbem.rules.odds import Odds, Plan, Side, battle_odds

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


def _side(words: list[str], who: str) -> Side:
    if not words or not words[0].isdigit():
        raise PbemError(f"the {who} must start with a number of armies")
    armies = int(words[0])
    cav = burhs = 0
    leader = roman = fort = False
    i = 1
    while i < len(words):
        w = words[i].upper()
        if w in ("ARMY", "ARMIES", "X"):
            pass
        elif w in ("CAV", "CAVALRY", "HORSE"):
            if i + 1 >= len(words) or not words[i + 1].isdigit():
                raise PbemError("CAV needs a number: CAV 2")
            cav, i = int(words[i + 1]), i + 1
        elif w == "LEADER":
            leader = True
        elif w in ("ROMAN", "ROMANS"):
            roman = True
        elif w == "FORT":
            fort = True
        elif w in ("BURH", "BURHS"):
            if i + 1 >= len(words) or not words[i + 1].isdigit():
                raise PbemError("BURHS needs a number: BURHS 1")
            burhs, i = int(words[i + 1]), i + 1
        else:
            raise PbemError(f"unknown word {words[i]!r} for the {who}")
        i += 1
    if who == "attacker" and (fort or burhs):
        raise PbemError("forts and burhs only defend")
    return Side(armies, cav, leader, roman, fort, burhs)


_PLAN_RE = re.compile(
    r"\b(?P<who>ATTACK|DEFEND)\s+(?P<what>FIGHT|HOLD|RETREAT(?:\s+TO\s+[\w .'-]+?)?)"
    r"(?P<out>\s+IF\s+OUTNUMBERED)?(?:\s+AFTER\s+(?:ROUND\s+)?(?P<k>\d+)(?:\s+ROUNDS?)?)?\s*$", re.IGNORECASE)


def parse_odds(text: str, ruleset) -> OddsQuestion:
    """Read one ODDS line (the word ODDS itself is optional). Raises PbemError with the form."""
    s = ODDS_RE.sub("", text.split("#", 1)[0]).strip()
    try:
        return _parse(s, ruleset)
    except PbemError as e:
        raise PbemError(f"{e}. Write: {FORM}") from None


def _parse(s: str, ruleset) -> OddsQuestion:
    plan = Plan()
    attack_mode, attack_after, defend_mode, defend_after = "fight", None, "hold", None
    while True:
        m = _PLAN_RE.search(s)
        if not m:
            break
        who, what = m["who"].upper(), m["what"].upper().split()[0]
        k = int(m["k"]) if m["k"] else None
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
             f"  a die kills on: attacker {_hits(o.attacker_hits_on, q.attacker, q.defender, ruleset)}, "
             f"defender {_hits(o.defender_hits_on, q.defender, q.attacker, ruleset)} (every roll counted, not sampled)"]
    return lines


def _hits(soft: int, roller: Side, target: Side, ruleset) -> str:
    """'5 or 6 (+1: leader; 6 against cavalry)' — what one die of `roller` needs (rules 8.0, 9.2, 10.4)."""
    hard = ruleset.const.hit_hard if ruleset is not None else 6
    bonus = (ruleset.const.leader_bonus if ruleset is not None else 1) if roller.leader else 0
    faces = [str(f) for f in range(max(1, soft - bonus), 7)]
    text = ", ".join(faces[:-1]) + " or " + faces[-1] if len(faces) > 1 else faces[0]
    notes = []
    if roller.leader:
        notes.append(f"the leader's +{bonus} counted")
    if soft < hard:
        hard_targets = [w for w, has in (("cavalry", target.cavalry), ("Roman armies", target.roman and target.armies))
                        if has]
        if hard_targets:
            notes.append(f"{hard} against {' and '.join(hard_targets)}")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def answer_odds(text: str, ruleset) -> list[str]:
    """ODDS line -> answer lines (an error is one line starting with 'ODDS: ')."""
    try:
        q = parse_odds(text, ruleset)
        return odds_lines(q, battle_odds(ruleset, q.attacker, q.defender, hiland=q.hiland, plan=q.plan), ruleset)
    except PbemError as e:
        return [f"ODDS: {e}"]


def split_odds(text: str) -> tuple[str, list[str]]:
    """The ODDS lines of a message taken out (left blank, so line numbers stay) and the rest."""
    rest, asked = [], []
    for line in text.splitlines():
        if is_odds_line(line):
            asked.append(line.strip())
            rest.append("")
        else:
            rest.append(line)
    return "\n".join(rest) + ("\n" if text.endswith("\n") else ""), asked


def odds_answers(asked: list[str], ruleset, limit: int = 5) -> list[str]:
    """The answers to a message's ODDS lines (at most `limit` of them)."""
    out: list[str] = []
    for line in asked[:limit]:
        out += [f"> {line}"] + answer_odds(line, ruleset) + [""]
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
