"""A turn report's facts in a player's language (issue 34): the sentences of pbem.report.facts made
again from the report's data, through the message catalogs (pbem.i18n), for a language other than
English. English reports are the facts as built (report.json is always English).

Each event's line comes from a catalog keyed by the event's kind (EVENT_TEXTS) with the event's
fields, not from its English `describe` (pbem.rules.events keeps one language); an event kind without
an entry here keeps its English line (tests/test_i18n.py checks that every kind with a `describe`
has one). Names are written as the player knows them with the board's name beside them (`Йорк
(York)`, pbem.i18n.name). The facts (dice, losses, points) are the same numbers in every language.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from typing import Any

from pbem import i18n
from pbem.i18n import _N, _
from pbem.rules.events import Event, from_dicts


class LocalNames:
    """rs.display in a player's language (the Names protocol of pbem.rules.events)."""

    def __init__(self, rs, language: str) -> None:
        self.rs, self.language = rs, language

    def display(self, ident: str) -> str:
        return i18n.name(self.language, self.rs, ident)


def _role(names: LocalNames, role: str) -> str:
    """The nation playing `role` in the ruleset (ruleset.yaml `roles`), in the player's language."""
    ident = names.rs.role(role)
    return names.display(ident) if ident else role


def _rule_ref(names: LocalNames, topic: str, generic: str) -> str:
    """The rule a line cites for `topic`, as the English description cites it (pbem.rules.events._ref)."""
    rules = getattr(names.rs, "rules", None)
    return i18n.cite(names.language, rules.rule_ref(topic, generic) if rules is not None else generic)


def units(language: str, n: int, kind: str) -> str:
    """`3 армии`, `1 конница` (pbem.i18n.PIECES)."""
    return i18n.count(language, n, *i18n.PIECES["cavalry" if kind == "cavalry" else "armies"])


def _raiders(language: str, n: int, raiders: bool = True) -> str:
    return i18n.trn(language, _N("%(num)d raider", "%(num)d raiders") if raiders else
                    _N("%(num)d invader", "%(num)d invaders"), n)


def _places(language: str, names: LocalNames, counts: Mapping[str, int]) -> str:
    return ", ".join(i18n.tr(language, _("%(count)s in %(area)s"), count=k, area=names.display(a))
                     for a, k in counts.items())


def _who(names: LocalNames, ident: str | None, language: str) -> str:
    return names.display(ident) if ident else i18n.tr(language, _("nobody"))


Text = Callable[[Any, LocalNames, str], str]


def _moved(ev, n: LocalNames, lang: str) -> str:
    what = _who(n, ev.leader, lang) if ev.kind == "leader" else units(lang, ev.count, ev.kind)
    raid = " " + i18n.trn(lang, _N("(%(num)d raider)", "(%(num)d raiders)"), ev.raiders) if ev.raiders else ""
    cyc = " " + i18n.tr(lang, _("[second movement]")) if ev.cycle == 2 else ""
    return f"{n.display(ev.nation)}: {what}{raid} {' -> '.join(n.display(p) for p in ev.path)}{cyc}"


def _bretwalda(ev, n: LocalNames, lang: str) -> str:
    tally = ", ".join(f"{n.display(k)} {v}" for k, v in sorted(ev.tally.items(), key=lambda kv: -kv[1]))
    return i18n.tr(lang, _("Bretwalda vote: %(tally)s -> %(winner)s"),
                   tally=tally or i18n.tr(lang, _("no votes")),
                   winner=n.display(ev.winner) if ev.winner else i18n.tr(lang, _("no majority")))


def _lost_at_sea(ev, n: LocalNames, lang: str) -> str:
    what = ", ".join(x for x in (units(lang, ev.armies, "armies") if ev.armies else "",
                                 units(lang, ev.cavalry, "cavalry") if ev.cavalry else "",
                                 *(n.display(ld) for ld in ev.leaders)) if x)
    return i18n.tr(lang, _("%(nation)s: lost at sea in the %(sea)s: %(what)s; invaders must come ashore (%(ref)s)"),
                   nation=n.display(ev.nation), sea=n.display(ev.sea), what=what,
                   ref=_rule_ref(n, "come_ashore", "rule 7.2"))


def _arrived(ev, n: LocalNames, lang: str) -> str:
    cav = ", " + units(lang, ev.cavalry, "cavalry") if ev.cavalry else ""
    return i18n.tr(lang, _("%(nation)s: %(what)s appear in the %(sea)s"), nation=n.display(ev.nation),
                   what=_raiders(lang, ev.armies, ev.raiders) + cav, sea=n.display(ev.sea))


def _reinforced(ev, n: LocalNames, lang: str) -> str:
    where = n.display(ev.sea) if ev.sea else ", ".join(n.display(a) for a in ev.areas or [])
    what = units(lang, ev.armies, "armies") if ev.armies is not None else units(lang, ev.cavalry or 0, "cavalry")
    return i18n.tr(lang, _("%(nation)s: %(what)s reinforce in %(where)s"), nation=n.display(ev.nation), what=what,
                   where=where)


def _submitted(ev, n: LocalNames, lang: str) -> str:
    text = i18n.tr(lang, _("%(nation)s submit to the %(to)s"), nation=n.display(ev.nation), to=n.display(ev.to))
    if ev.moment and ev.moment != "start of its turn":
        text += " (" + i18n.tr(lang, _("rule 11.1")) + ")"
    return text


def _order_dropped(ev, n: LocalNames, lang: str) -> str:
    return i18n.tr(lang, _("%(nation)s: order line %(line)s not carried out: \"%(text)s\" (%(kind)s: %(message)s)"),
                   nation=n.display(ev.nation), line=ev.line or "?", text=ev.text or "",
                   kind=i18n.tr(lang, ev.kind), message=ev.message)


def _t(message: str, **fields: Callable[[Any, LocalNames, str], Any]) -> Text:
    """An event's line: `message` (marked) with each field computed from the event."""
    def text(ev, n: LocalNames, lang: str) -> str:
        return i18n.tr(lang, message, **{k: f(ev, n, lang) for k, f in fields.items()})
    return text


def _nation(ev, n, lang):
    return n.display(ev.nation)


def _area(ev, n, lang):
    return n.display(ev.area)


def _to(ev, n, lang):
    return n.display(ev.to)


def _leader(ev, n, lang):
    return n.display(ev.leader)


def _sea(ev, n, lang):
    return n.display(ev.sea)


def _field(name: str) -> Callable[[Any, LocalNames, str], Any]:
    return lambda ev, n, lang: getattr(ev, name)


def _g(name: str) -> Callable[[Any, LocalNames, str], Any]:
    return lambda ev, n, lang: f"{getattr(ev, name):g}"


EVENT_TEXTS: dict[str, Text] = {
    "game_over": _t(_("The game is over.")),
    "subjection_ended": _t(_("%(nation)s: subjection ends"), nation=_nation),
    "romans_left": lambda ev, n, lang: i18n.tr(
        lang, _("The %(empire)s leave Britain; %(successor)s armies replace them in %(areas)s"),
        empire=_role(n, "empire"), successor=_role(n, "successor"),
        areas=", ".join(f"{n.display(a)} ({k})" for a, k in ev.replaced.items()) or i18n.tr(lang, _("no area"))),
    "king": lambda ev, n, lang: i18n.tr(lang, _("%(nation)s: King of England"), nation=n.display(ev.nation))
    + (" (Canute)" if ev.canute else ""),
    "bretwalda_vote": _bretwalda,
    "population": lambda ev, n, lang: i18n.tr(
        lang, _("%(nation)s: population count %(count)s (saved %(before)s) gives new armies: %(armies)s, %(saved)s saved"),
        nation=n.display(ev.nation), count=f"{ev.count:g}", before=f"{ev.saved_before:g}", armies=ev.new_armies,
        saved=f"{ev.saved:g}"),
    "placed": lambda ev, n, lang: i18n.tr(lang, _("%(nation)s: new armies placed in %(areas)s"),
                                          nation=n.display(ev.nation), areas=", ".join(n.display(a) for a in ev.areas)),
    "arrived": _arrived,
    "reinforced": _reinforced,
    "leader_entered": _t(_("%(nation)s: %(leader)s enters in %(area)s"), nation=_nation, leader=_leader, area=_area),
    "leader_left": _t(_("%(nation)s: %(leader)s leaves the board"), nation=_nation, leader=_leader),
    "allowed": _t(_("%(empire)s allow the %(nation)s to increase population this turn (rule 11.1)"), nation=_nation,
                  empire=lambda ev, n, lang: _role(n, "empire")),
    "submitted": _submitted,
    "left_subject_area": _t(_("%(nation)s: %(count)s leave %(area)s for %(to)s (the %(subject)s submitted, rule 11.1)"),
                            nation=_nation, count=_field("count"), area=_area, to=_to,
                            subject=lambda ev, n, lang: _who(n, ev.subject, lang)),
    "lost_leaving_subject_area": _t(_("%(nation)s: %(count)s in %(area)s have nowhere to withdraw and are lost (the "
                                      "%(subject)s submitted, %(ref)s)"), nation=_nation, count=_field("count"),
                                    area=_area, subject=lambda ev, n, lang: _who(n, ev.subject, lang),
                                    ref=lambda ev, n, lang: _rule_ref(n, "overlord_stranded", "rule 11.1")),
    "danes_withdrew": lambda ev, n, lang: i18n.tr(lang, _("%(nation)s withdraw %(what)s"), nation=n.display(ev.turn), what=", ".join(
        i18n.tr(lang, _("%(count)s from %(area)s"), count=k, area=n.display(a)) for a, k in ev.removed.items()))
    + "".join(i18n.tr(lang, _(" and %(leader)s"), leader=n.display(ld)) for ld in n.rs.rules.leaders_withdrawn(n.rs)),
    "moved": _moved,
    # the Duel family's events
    "duel_maintenance": lambda ev, n, lang: i18n.tr(
        lang, _("%(nation)s: increase points %(points)s - armies %(armies)s = %(diff)s: %(what)s (Phase I)"),
        nation=n.display(ev.nation), points=ev.points, armies=ev.armies, diff=ev.points - ev.armies,
        what=(i18n.tr(lang, _("gains %(count)s"), count=ev.gained) if ev.change > 0 else
              i18n.tr(lang, _("loses %(what)s"), what=", ".join(
                  i18n.tr(lang, _("%(count)s in %(area)s"), count=k, area=n.display(a)) for a, k in sorted(ev.lost.items()))))),
    "duel_arrived_split": lambda ev, n, lang: i18n.tr(
        lang, _("%(nation)s appear divided: %(seas)s"), nation=n.display(ev.nation), seas=", ".join(
            i18n.tr(lang, _("%(count)s in %(area)s"), count=k, area=n.display(a)) for a, k in ev.seas.items())),
    "duel_made_room": lambda ev, n, lang: i18n.tr(
        lang, _("%(nation)s remove %(what)s to make room for their arrivals at sea ([Appearance At Sea])"),
        nation=n.display(ev.nation), what=", ".join(
            i18n.tr(lang, _("%(count)s in %(area)s"), count=k, area=n.display(a)) for a, k in sorted(ev.removed.items()))),
    "duel_leader_withheld": _t(_("%(nation)s: %(leader)s does not appear, nor his armies ([Eruption])"),
                               nation=_nation, leader=_leader),
    "duel_romans_withdrawn": lambda ev, n, lang: i18n.tr(
        lang, _("the empire withdraws: %(areas)s"), areas=", ".join(
            i18n.tr(lang, _("%(area)s to the %(nation)s"), area=n.display(a), nation=n.display(k))
            for a, k in sorted(ev.to.items()))),
    "duel_forts_remain": lambda ev, n, lang: i18n.tr(
        lang, _("the surviving forts remain: %(forts)s"), forts=", ".join(
            i18n.tr(lang, _("%(count)s in %(area)s to the %(nation)s"), count=k, area=n.display(a),
                    nation=n.display(ev.to[a])) for a, k in sorted(ev.forts.items()))),
    "duel_fortified": lambda ev, n, lang: (
        i18n.tr(lang, _("%(nation)s place %(name)s in %(area)s"), nation=n.display(ev.nation), name=ev.name,
                area=n.display(ev.area)) if ev.name else
        i18n.tr(lang, _("%(nation)s place a burh in %(area)s"), nation=n.display(ev.nation), area=n.display(ev.area))),
    "duel_victors_retreated": lambda ev, n, lang: i18n.tr(
        lang, _("%(nation)s, victorious in %(area)s, retreat %(went)s"), nation=n.display(ev.nation),
        area=n.display(ev.area), went=", ".join(
            i18n.tr(lang, _("%(count)s to %(area)s"), count=k, area=n.display(a)) for a, k in ev.to.items())
        or i18n.tr(lang, _("nowhere"))) + "".join(
        i18n.tr(lang, _(" (not to %(area)s: %(reason)s)"), area=n.display(a), reason=i18n.tr(lang, why))
        for a, why in ev.refused.items()),
    "duel_leader_driven_off": _t(_("%(leader)s (%(nation)s) falls in %(area)s but never dies: he leaves the board "
                                   "until his next appearance"), leader=_leader, nation=_nation, area=_area),
    "fort_built": _t(_("%(empire)s build a fort in %(area)s"), area=_area, empire=lambda ev, n, lang: _role(n, "empire")),
    "retreat_refused": _t(_("%(nation)s cannot retreat from %(area)s to %(to)s: %(reason)s; they fight on"),
                          nation=_nation, area=_area, to=_to, reason=lambda ev, n, lang: i18n.tr(lang, ev.reason)),
    "retreated": _t(_("%(nation)s (%(side)s) retreat %(count)s from %(area)s to %(to)s"), nation=_nation,
                    side=lambda ev, n, lang: i18n.tr(lang, ev.side), count=_field("count"), area=_area, to=_to),
    "leader_killed": _t(_("%(leader)s (%(nation)s) is killed in %(area)s"), leader=_leader, nation=_nation, area=_area),
    "leader_escaped": _t(_("%(nation)s: %(leader)s escapes from %(area)s to %(to)s"), nation=_nation, leader=_leader,
                         area=_area, to=_to),
    "lost_at_sea": _lost_at_sea,
    "withdrew": lambda ev, n, lang: i18n.tr(lang, _("%(nation)s: %(what)s withdraw from %(area)s to the %(sea)s"),
                                            nation=n.display(ev.nation), what=_raiders(lang, ev.armies),
                                            area=n.display(ev.area), sea=n.display(ev.sea)),
    "settled": lambda ev, n, lang: i18n.tr(lang, _("%(nation)s: %(what)s settle in %(area)s"),
                                           nation=n.display(ev.nation), what=_raiders(lang, ev.armies),
                                           area=n.display(ev.area)),
    "overpopulation": lambda ev, n, lang: i18n.tr(lang, _("%(nation)s: overpopulation removes %(what)s"),
                                                  nation=n.display(ev.nation), what=_places(lang, n, ev.removed)),
    "to_brittany": _t(_("%(nation)s: %(armies)s from %(area)s leave for Brittany (%(points)s points)"),
                      nation=_nation, armies=_field("armies"), area=_area, points=_field("points")),
    "brittany_roll": lambda ev, n, lang: i18n.tr(
        lang, _("%(nation)s: Brittany die %(face)s against %(sent)s sent: %(won)s"), nation=n.display(ev.nation),
        face=ev.face, sent=ev.sent, won=i18n.trn(lang, _N("%(num)d point", "%(num)d points"), ev.points)),
    "overstacked": lambda ev, n, lang: i18n.tr(
        lang, _("%(nation)s: over the stacking limits after the movement, removed %(what)s"),
        nation=n.display(ev.nation), what=_places(lang, n, ev.removed)),
    "raid_points_lost": _t(_("%(nation)s: raid points in %(area)s lost (raiders stayed ashore, rule 7.13)"),
                           nation=_nation, area=_area),
    "order_unused": _t(_("%(nation)s: order line %(line)s had no effect: \"%(text)s\" (%(reason)s)"), nation=_nation,
                       line=_field("line"), text=lambda ev, n, lang: i18n.order_line(lang, n.rs, ev.text),
                       reason=lambda ev, n, lang: _reason(lang, n.rs, ev.reason)),
    "order_dropped": _order_dropped,
}
"""Event kind -> its line in a player's language."""

# Words of the facts translated from their value (marked so that pybabel finds them).
WORDS = (_("attacker"), _("defender"), _("held by another nation (8.3)"), _("stacking limits (5.21)"))
VP_KINDS = {"capture": _("capture"), "kill": _("kill"), "hold": _("holding"), "limes": _("limes"),
            "raid": _("raid"), "bretwalda": _("Bretwalda"), "king": _("King")}
"""Why victory points were gained (the ledger's `kind`)."""


def _reason(language: str, rs, text: str) -> str:
    from pbem.orders.phrases import reason_text

    return reason_text(language, rs, text)


def event_line(ev: Event, names: LocalNames, language: str) -> str | None:
    """One event's line in `language` (its English describe for a kind without a catalog entry)."""
    text = EVENT_TEXTS.get(ev.KIND)
    if text is None:
        return ev.describe(names)
    return text(ev, names, language)


_NEED = [
    (re.compile(r"^kills Roman armies on (\d), the fort on (\d)\+ once they are gone"),
     _("kills Roman armies on %(a)s, the fort on %(b)s+ once they are gone")),
    (re.compile(r"^kills on (\d) \(Roman armies\)"), _("kills on %(a)s (Roman armies)")),
    (re.compile(r"^kills on (\d)\+"), _("kills on %(a)s+")),
    (re.compile(r"^kills on (6)"), _("kills on %(a)s")),
]
_NOTES = [
    (re.compile(r"^leader \+(\d) on army and cavalry dice$"), _("leader +%(a)s on army and cavalry dice")),
    (re.compile(r"^defenders in hiland$"), _("defenders in hiland")),
    (re.compile(r"^the fort's die on (\d)\+$"), _("the fort's die on %(a)s+")),
    (re.compile(r"^cavalry dice on (\d)\+$"), _("cavalry dice on %(a)s+")),
    (re.compile(r"^(\d) against Roman armies and cavalry$"), _("%(a)s against Roman armies and cavalry")),
    (re.compile(r"^(\d) against Roman armies$"), _("%(a)s against Roman armies")),
    (re.compile(r"^(\d) against cavalry$"), _("%(a)s against cavalry")),
]


def _fill(language: str, rules, text: str) -> tuple[str, str] | None:
    for pattern, message in rules:
        m = pattern.match(text)
        if m:
            keys = dict(zip("ab", m.groups()))
            return i18n.tr(language, message, **keys), text[m.end():]
    return None


def need_text(language: str, need: str) -> str:
    """What one die needed (pbem.report.facts._need), in `language`; an unknown form is left as it is."""
    head = _fill(language, _NEED, need)
    if head is None:
        return need
    out, rest = head
    rest = rest.strip()
    if rest.startswith("(") and rest.endswith(")"):
        notes = []
        for note in rest[1:-1].split("; "):
            done = _fill(language, _NOTES, note)
            notes.append(done[0] if done and not done[1] else note)
        out += " (" + "; ".join(notes) + ")"
    elif rest:
        out += " " + rest
    return out


def _lost(language: str, rs, losses: Mapping[str, int]) -> str:
    if not losses:
        return i18n.tr(language, _("nothing"))
    parts = []
    for kind, n in losses.items():
        if kind == "forts":
            parts.append(i18n.tr(language, _("the fort")) if n == 1 else
                         i18n.trn(language, _N("%(num)d fort or burh", "%(num)d forts and burhs"), n))
        else:
            parts.append(units(language, n, kind))
    return ", ".join(parts)


def _battle(b: dict, rs, lang: str) -> dict:
    names = LocalNames(rs, lang)
    b = dict(b)
    b["area_name"] = names.display(b["area"])
    b["attacker_name"] = names.display(b["attacker"])
    b["defender_name"] = names.display(b["defender"])
    rounds = []
    for rd in b["rounds"]:
        sides = []
        for sd in rd["sides"]:
            other = next((o for o in rd["sides"] if o["nation"] != sd["nation"]), None)
            their = other["losses"] if other else {}
            hits = sum(their.values())
            text = i18n.tr(lang, _("%(nation)s roll %(faces)s, %(need)s"), nation=names.display(sd["nation"]),
                           faces=" ".join(map(str, sd["faces"])), need=need_text(lang, sd["need"]))
            if "(the last die is the fort's" in sd["text"]:
                text += " " + i18n.tr(lang, _("(the last die is the fort's or burh's: no leader bonus)"))
            text += ": " + i18n.trn(lang, _N("%(num)d hit", "%(num)d hits"), hits)
            if other:
                text += ", " + i18n.tr(lang, _("the %(nation)s lose %(lost)s"), nation=names.display(other["nation"]),
                                       lost=_lost(lang, rs, their))
            sides.append({**sd, "name": names.display(sd["nation"]), "text": text})
        rounds.append({**rd, "sides": sides})
    b["rounds"] = rounds
    b["notes"] = [line for line in (event_line(ev, names, lang) for ev in from_dicts(b.get("note_events", [])))
                  if line] or b["notes"]
    winner = b.get("winner")
    if b.get("outcome") == "attacker retreated":
        b["result"] = i18n.tr(lang, _("the %(nation)s retreat"), nation=b["attacker_name"])
    elif winner:
        b["result"] = i18n.tr(lang, _("the %(nation)s hold %(area)s"), nation=names.display(winner), area=b["area_name"])
    elif b.get("outcome") == "both destroyed":
        b["result"] = i18n.tr(lang, _("no one is left"))
    return b


# The battle model's legend (pbem.rules.battle_model.BattleModel.legend), a pattern per sentence.
_LEGEND: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p), m) for p, m in (
    (r"Each side rolls one die per army, cavalry, fort and burh at once\. A die kills an army on (?P<faces>[^;]+);",
     _("Each side rolls one die per army, cavalry, fort and burh at once. A die kills an army on %(faces)s;")),
    (r"it takes a (?P<hard>\d+) against cavalry, against Roman armies, and for attackers against defenders in "
     r"hiland\.", _("it takes a %(hard)s against cavalry, against Roman armies, and for attackers against "
                   "defenders in hiland.")),
    (r"it takes a (?P<hard>\d+) against cavalry, against Roman armies\.",
     _("it takes a %(hard)s against cavalry, against Roman armies.")),
    (r"The dice of (?P<pieces>.+?) kill an army on (?P<faces>[^.]+)\.",
     _("The dice of %(pieces)s kill an army on %(faces)s.")),
    (r"A leader adds (?P<bonus>\d+) to each (?P<pieces>.+?) die\.",
     _("A leader adds %(bonus)s to each %(pieces)s die.")),
    (r"A fort falls only once no Roman army is left with it\.",
     _("A fort falls only once no Roman army is left with it.")),
))
_LEGEND_WORDS = (("Roman armies", _("dice of: Roman armies")), ("cavalry", _("dice of: cavalry")),
                 ("army", _("dice of: army")), ("fort", _("dice of: fort")), ("burh", _("dice of: burh")),
                 ("no face", _("no face")), ("and", _("and")), ("or", _("or")))
"""The words inside the legend's sentences: the pieces whose dice (in Russian the genitive: кубики
конницы), the faces."""


def _legend_words(language: str, text: str) -> str:
    words = dict(_LEGEND_WORDS)
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(e) for e, _m in _LEGEND_WORDS) + r")(?!\w)")
    return pattern.sub(lambda m: i18n.tr(language, words[m.group(1)]), text)


def battle_legend(language: str, text: str) -> str:
    """The report's BATTLES legend (the battle model's, in English) in `language`, sentence by sentence;
    a sentence no pattern knows stays as it is."""
    if language == i18n.DEFAULT or not text:
        return text

    def one(m: re.Match, msgid: str) -> str:
        return i18n.tr(language, msgid, **{k: _legend_words(language, v) for k, v in m.groupdict().items()})

    for pattern, msgid in _LEGEND:
        text = pattern.sub(lambda m, msgid=msgid: one(m, msgid), text)
    return text


def localize(report: dict[str, Any], rs, language: str) -> dict[str, Any]:
    """The report's facts with every sentence in `language` (English: the report itself)."""
    if language == i18n.DEFAULT:
        return report
    lang = language
    names = LocalNames(rs, lang)
    r = copy.deepcopy(report)
    events = from_dicts(report.get("raw_events") or [])
    r["events"] = [line for line in (event_line(ev, names, lang) for ev in events) if line]
    years = report.get("years") or ["?", "?"]
    title = i18n.tr(lang, _("[%(game)s] Round %(round)s (%(start)s-%(end)s AD)"), game=report["game"],
                    round=report["round"], start=years[0], end=years[1])
    if report.get("played"):
        title += ": " + i18n.tr(lang, _("the %(nation)s have played"), nation=names.display(report["played"]))
    r["title"] = title
    battle_notes = _battle_notes(events)
    r["battles"] = [_battle({**b, "note_events": battle_notes.get(i, [])}, rs, lang)
                    for i, b in enumerate(report.get("battles") or [])]
    if report.get("battle_rules"):
        r["battle_rules"] = battle_legend(lang, report["battle_rules"])
    r["vp_gained"] = [{**g, "name": names.display(g["nation"]),
                       "reason": i18n.tr(lang, VP_KINDS[g["kind"]]) if g.get("kind") in VP_KINDS else g["reason"]}
                      for g in report.get("vp_gained") or []]
    r["scores"] = [{**s, "name": names.display(s["nation"])} for s in report.get("scores") or []]
    by_nation = {n: names.display(n) for n in rs.order_of_play}
    shown = {rs.display(n): by_nation[n] for n in rs.order_of_play}
    r["players"] = [{**p, "nations": [shown.get(x, x) for x in p.get("nations") or []]}
                    for p in report.get("players") or []]
    nxt = report.get("next") or {}
    if nxt.get("nation"):
        line = i18n.tr(lang, _("the %(nation)s, round %(round)s"), nation=names.display(nxt["nation"]), round=nxt["round"])
        if nxt.get("player"):
            line = i18n.tr(lang, _("the %(nation)s (%(player)s), round %(round)s"), nation=names.display(nxt["nation"]),
                           player=nxt["player"], round=nxt["round"])
        r["next"] = {**nxt, "line": line, "name": names.display(nxt["nation"])}
    elif not report.get("finished") and nxt:
        ending = str(nxt.get("line", "")).startswith("the end of round")
        r["next"] = {**nxt, "line": i18n.tr(lang, _("the end of round %(round)s: its Bretwalda or King, then round "
                                                    "%(next)s"), round=nxt["round"], next=int(nxt["round"]) + 1)
                     if ending else i18n.tr(lang, _("the start of round %(round)s"), round=nxt["round"])}
    r["waiting_for"] = [_names_in(w, rs, lang) for w in report.get("waiting_for") or []]
    r["next_options"] = [turn_line(lang, rs, line) for line in report.get("next_options") or []]
    return r


def _battle_notes(events) -> dict[int, list[dict]]:
    """The retreats, refusals and leaders' fates of each battle (by its index), as facts.battles notes them."""
    from pbem.rules.events import Battle, LeaderEscaped, LeaderKilled, Retreated, RetreatRefused

    out: dict[int, list[dict]] = {}
    i, area = -1, None
    for ev in events:
        if isinstance(ev, Battle):
            i, area = i + 1, ev.area
        elif i >= 0 and isinstance(ev, (Retreated, RetreatRefused, LeaderKilled, LeaderEscaped)) and ev.area == area:
            out.setdefault(i, []).append(ev.to_dict())
    return out


def _names_in(text: str, rs, lang: str) -> str:
    """`ann (Romans)` -> `ann (Римляне (Romans))`: the nations named in a line of the facts."""
    for n in rs.order_of_play:
        board = rs.display(n)
        if f"({board})" in text:
            return text.replace(f"({board})", f"({i18n.name(lang, rs, n)})")
        if text == board:
            return i18n.name(lang, rs, n)
    return text


# --- what a nation's turn brings (pbem.report.prompt.turn_lines), in a player's language ------------------
def _names_list(language: str, rs, text: str) -> str:
    """`A, B, C -> D` lists of a turn line: a path (with arrows) in the player's names, as it is to be
    written; a single name as the player knows it with the board's name beside it."""
    out = []
    for part in text.split(", "):
        if "->" in part:
            out.append(i18n.order_line(language, rs, part))
        else:
            out.append(_one_name(language, rs, part))
    return ", ".join(out)


def _one_name(language: str, rs, text: str) -> str:
    pattern, local = i18n._board_names(rs, language)
    if pattern is not None and text in local:
        return f"{local[text]} ({text})"
    return text


_TURN = tuple((re.compile(p), m) for p, m in (
    (r"^New armies: none \(the (?P<nation>.+) do not increase population this turn\)\.$",
     _("New armies: none (the %(nation)s do not increase population this turn).")),
    (r"^New armies: none \(population count (?P<count>[\d.]+), (?P<saved>[\d.]+) of it saved; (?P<why>.+)\)\.$",
     _("New armies: none (population count %(count)s, %(saved)s of it saved; %(why)s).")),
    (r"^New armies: (?P<n>\d+) \(population count (?P<count>[\d.]+), (?P<saved>[\d.]+) of it saved\)\. "
     r"PLACE them in: (?P<areas>.+)$",
     _("New armies: %(n)s (population count %(count)s, %(saved)s of it saved). PLACE them in: %(areas)s")),
    # a family's own lines on its population phase (Rules.population_prompt): Duel's Phases I and II
    (r"^Phase I: increase points (?P<p>\d+) - armies (?P<a>\d+) = (?P<d>-?\d+): the (?P<nation>.+) lose (?P<n>\d+) "
     r"arm(?:y|ies) of their choice \(LOSE A\[, B \.\.\.\]; by default from (?P<areas>.+)\) \(\[Phase I\]\)\.$",
     _("Phase I: increase points %(p)s - armies %(a)s = %(d)s: the %(nation)s lose %(n)s army(ies) of their choice "
       "(LOSE A[, B ...]; by default from %(areas)s) ([Phase I]).")),
    (r"^Phase I: increase points (?P<p>\d+) - armies (?P<a>\d+) = (?P<d>-?\d+): (?P<n>\d+) new arm(?:y|ies)\. "
     r"PLACE them in: (?P<areas>.+)$",
     _("Phase I: increase points %(p)s - armies %(a)s = %(d)s: %(n)s new army(ies). PLACE them in: %(areas)s")),
    (r"^Phase I: increase points (?P<p>\d+) - armies (?P<a>\d+) = (?P<d>-?\d+): no new army \(the army limit, or "
     r"only areas of no increase value\) \(\[Phase I\]\)\.$",
     _("Phase I: increase points %(p)s - armies %(a)s = %(d)s: no new army (the army limit, or only areas of no "
       "increase value) ([Phase I]).")),
    (r"^Arrivals at sea: (?P<n>\d+) of the (?P<m>\d+) due have no piece \(the (?P<nation>.+) army limit is "
     r"(?P<k>\d+)\): REMOVE A\[, B \.\.\.\] takes as many armies off the board to make room "
     r"\(\[Appearance At Sea\]\)\.$",
     _("Arrivals at sea: %(n)s of the %(m)s due have no piece (the %(nation)s army limit is %(k)s): REMOVE A[, B ...] "
       "takes as many armies off the board to make room ([Appearance At Sea]).")),
    (r"^(?P<leader>.+) erupts \(the (?P<nation>.+) have no area\): WITHHOLD (?P<same>.+) keeps him and his armies "
     r"off the board \(\[Eruption\]\)\.$",
     _("%(leader)s erupts (the %(nation)s have no area): WITHHOLD %(same)s keeps him and his armies off the board "
       "([Eruption]).")),
    *((re.escape(m) + "$", m) for m in (
        _("Armies at sea: raiders this turn: they may land, fight and go back to their sea after the battles "
          "(WITHDRAW, the default), or stay (SETTLE: no raid points for that area) ([Raiders])."),
        _("Armies at sea: raiders this turn: they may land, fight and must go back to their sea after the battles "
          "([Raiding and Intruding])."),
        _("Armies at sea: intruders this turn: they may land, fight, retreat to sea and go back to it after the "
          "battles (WITHDRAW) or stay (SETTLE); no raid points ([Intruders])."),
        _("Armies at sea: invaders this turn: they must land and stay on land: those left at sea are lost, none "
          "retreats to sea ([Intruders])."))),
    (r"^Arriving: (?P<n>\d+) raiders? in the (?P<sea>.+?) \(after the raid: WITHDRAW or SETTLE\)$",
     _("Arriving: %(n)s raider(s) in the %(sea)s (after the raid: WITHDRAW or SETTLE)")),
    (r"^Arriving: (?P<n>\d+) invaders? in the (?P<sea>.+?) \(they must be ashore after the movement, the second one "
     r"in a major invasion: armies left at sea are lost, (?P<ref>[^)]+)\)$",
     _("Arriving: %(n)s invader(s) in the %(sea)s (they must be ashore after the movement, the second one in a "
       "major invasion: armies left at sea are lost, %(ref)s)")),
    (r"^Arriving: (?P<n>\d+) raiders? in the (?P<sea>.+)$", _("Arriving: %(n)s raider(s) in the %(sea)s")),
    (r"^Arriving: (?P<n>\d+) invaders? in the (?P<sea>.+)$", _("Arriving: %(n)s invader(s) in the %(sea)s")),
    (r"^Major invasion: two movements this turn, each followed by its battles\. Write the moves of the first, then "
     r"a line SECOND MOVEMENT, then the moves of the second\.$",
     _("Major invasion: two movements this turn, each followed by its battles. Write the moves of the first, then "
       "a line SECOND MOVEMENT, then the moves of the second.")),
    (r"^Leader arriving: (?P<leader>.+?) \(LEADER (?P<same>.+?) IN <area>: (?P<areas>.+); else (?P<area>.+)\)$",
     _("Leader arriving: %(leader)s (LEADER %(same)s IN <area>: %(areas)s; else %(area)s)")),
    (r"^Moves \(next-door areas by name; farther ones with the path to write\):$",
     _("Moves (next-door areas by name; farther ones with the path to write):")),
    (r"^(?P<indent>\s*)(?P<what>.+?) in (?P<area>[^:]+): (?P<dests>.+?)(?P<alone> \(on its own; with armies of theirs "
     r"moving along it may end where they do\))?$", _("%(indent)s%(what)s in %(area)s: %(dests)s%(alone)s")),
    (r"^Bretwalda vote \(rule 12\.2\), votes by nation: (?P<votes>.+)$",
     _("Bretwalda vote (rule 12.2), votes by nation: %(votes)s")),
    (r"^send: VOTE <nation>$", _("send: VOTE <nation>")),
    (r"^Bretwalda vote owed by: (?P<votes>.+)$", _("Bretwalda vote owed by: %(votes)s")),
    (r"^the next round starts$", _("the next round starts")),
))
NO_ARMY = tuple((re.compile(p), m) for p, m in (
    (r"^one army per (?P<per>[\d.]+) points, rule 10\.1$", _("one army per %(per)s points, rule 10.1")),
    (r"^no army pieces left: all (?P<max>\d+) are in play, rule 10\.1$",
     _("no army pieces left: all %(max)s are in play, rule 10.1")),
    (r"^no room to place a new army under the stacking limits, rules 5\.21 and 10\.2$",
     _("no room to place a new army under the stacking limits, rules 5.21 and 10.2")),
))
_TURN_WORDS = (_("nowhere"), _("(on its own; with armies of theirs moving along it may end where they do)"))


def _what(language: str, rs, text: str) -> str:
    m = re.match(r"^(\d+) (armies|army|cavalry)$", text)
    if m:
        return units(language, int(m.group(1)), "cavalry" if m.group(2) == "cavalry" else "armies")
    return _one_name(language, rs, text)


def turn_line(language: str, rs, line: str) -> str:
    """A line of what a nation's turn brings (prompt, report) in `language`; unknown lines as they are."""
    if language == i18n.DEFAULT:
        return line
    for pattern, msgid in _TURN:
        m = pattern.match(line)
        if not m:
            continue
        f = dict(m.groupdict())
        for k, v in list(f.items()):
            v = v or ""
            if k in ("nation", "sea", "leader", "area", "same"):
                f[k] = i18n.order_line(language, rs, v) if k == "same" else _one_name(language, rs, v)
            elif k in ("areas", "dests"):
                f[k] = i18n.tr(language, _("nowhere")) if v == "nowhere" else _names_list(language, rs, v)
            elif k == "what":
                f[k] = _what(language, rs, v)
            elif k == "alone":
                f[k] = " " + i18n.tr(language, v.strip()) if v else ""
            elif k == "why":
                f[k] = next((i18n.tr(language, msg, **r.match(v).groupdict()) for r, msg in NO_ARMY if r.match(v)), v)
            elif k == "ref":
                f[k] = i18n.cite(language, v)
            elif k == "votes":
                f[k] = _names_list(language, rs, v) if v not in ("none", "nobody") else i18n.tr(language, _("nobody"))
            else:
                f[k] = v
        return i18n.tr(language, msgid, **f)
    return line
