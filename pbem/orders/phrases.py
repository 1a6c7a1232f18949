"""The problems the order parser finds (pbem.orders.parser, pbem.orders.names), in a player's language.

The parser writes its messages in English (they are part of `pbem check` and the tests); the reply
translates them at the last moment (issue 34): a fixed message through the catalog as it is, a message
with names in it (`there is no area or sea called 'Йорх'`, `Did you mean Йорк (York)?`) by its pattern
(PATTERNS), the names kept. A message no pattern knows is left as written.
"""

from __future__ import annotations

import functools
import re

from pbem import i18n
from pbem.i18n import _

FIXED = (
    _("this line is not an order"), _("empty line"), _("no area given"),
    _("an empty item in the list (two commas, or a comma at the end)"),
    _("the number of units must be at least 1"), _("the round number must be at least 1"),
    _("the area is missing before ':'"), _("nothing after ':'"), _("expected 'A: ...'"),
    _("expected one game id after GAME"), _("expected one token after TOKEN"), _("which nation?"),
    _("expected one time zone name after TIMEZONE"), _("expected one language code after LANGUAGE"),
    _("expected two dates after AWAY"), _("expected LEADER <name> IN <area>"), _("expected STAY, a number and a sea"),
    _("which sea?"), _("expected SECOND MOVEMENT on a line of its own"), _("which area?"),
    _("expected BRITTANY, a number and an area"), _("to which nation?"), _("which subject nation?"),
    _("PASS stands on a line of its own"), _("retreat to which area?"), _("REST TO B comes last"),
    _("a retreating group has at least 1 unit"), _("IF OUTNUMBERED twice"), _("AFTER ROUND twice"),
    _("expected CLEAR DEFEND <area>"), _("the path ends with an arrow: where to?"),
    _("a move needs at least two areas"),
    _("an empty step in the path (two arrows in a row, or an arrow at the start)"), _("from which area?"),
    _("expected <leader> <area> -> ..."), _("Write the name as it is printed on the map."),
    _("Write the name in one alphabet (all Latin or all Cyrillic letters)."),
    _("The forms of an order line are listed at the end of this reply."),
    _("the orders do not say which nation they are for"), _("start them with a line NATION <name>"),
    _("not taken"), _("expected exactly one order line"), _("the line is too long to be an order"),
)
"""The parser's messages without names in them (translated whole)."""

KINDS = {"area or sea": _("area or sea"), "area": _("area"), "sea": _("sea"), "nation": _("nation"),
         "leader": _("leader"), "name": _("name")}

PATTERNS: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p), m) for p, m in (
    (r"^there is no (?P<what>.+?) called '(?P<name>.*)'$", _("there is no %(what)s called '%(name)s'")),
    (r"^Did you mean (?P<names>.+)\?$", _("Did you mean %(names)s?")),
    (r"^'(?P<word>.+)' is not an order word$", _("'%(word)s' is not an order word")),
    (r"^'(?P<name>.+)' matches more than one (?P<what>.+?): (?P<names>.+)$",
     _("'%(name)s' matches more than one %(what)s: %(names)s")),
    (r"^Write one of: (?P<names>.+)\.$", _("Write one of: %(names)s.")),
    (r"^Write it as: (?P<form>.+)\.$", _("Write it as: %(form)s.")),
    (r"^Write it in one alphabet: (?P<names>.+)\.$", _("Write it in one alphabet: %(names)s.")),
    (r"^the name of an? (?P<what>.+) is missing$", _("the name of the %(what)s is missing")),
    (r"^An order line is one of: (?P<forms>.+)\.$", _("An order line is one of: %(forms)s.")),
    (r"^Did you mean (?P<word>\S+) \((?P<kw>\S+)\)\? Write it as: (?P<form>.+)\.$",
     _("Did you mean %(word)s (%(kw)s)? Write it as: %(form)s.")),
    (r"^Did you mean (?P<kw>[A-Z]+)\? Write it as: (?P<form>.+)\.$", _("Did you mean %(kw)s? Write it as: %(form)s.")),
    (r"^you do not control the (?P<nation>.+)$", _("you do not control the %(nation)s")),
    (r"^your nations: (?P<nations>.+)$", _("your nations: %(nations)s")),
))
"""The parser's messages with names in them: pattern -> the message (its groups as fields)."""


def _field(language: str, key: str, value: str) -> str:
    if key == "what":
        return i18n.tr(language, KINDS.get(value, value))
    if key == "names":
        return value.replace(" or ", " " + i18n.tr(language, _("or")) + " ")
    return value


def problem_text(language: str, message: str) -> str:
    """A parser message (or hint) in `language`; English and unknown messages as they are."""
    if language == i18n.DEFAULT or not message:
        return message
    stop = message.endswith(".") and not message.endswith("...")
    core = message[:-1] if stop else message
    for text in (message, core):
        done = i18n.gettext(language, text)
        if done != text:
            return done + ("." if stop and text == core else "")
    for pattern, msgid in PATTERNS:
        for text, tail in ((message, ""), (core, "." if stop else "")):
            m = pattern.match(text)
            if m:
                return i18n.tr(language, msgid, **{k: _field(language, k, v) for k, v in m.groupdict().items()}) + tail
    return message


# Why a legal line had no effect (pbem.rules.accounting.why_unused): the reply's "no effect" notes and
# the report's order lines. Groups named nation/area/to/leader/areas are names of the board.
REASONS: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p), m) for p, m in (
    (r"^the (?P<nation>.+) do not increase population this turn \(rule 10\.1\)$",
     _("the %(nation)s do not increase population this turn (rule 10.1)")),
    (r"^(?P<n>\d+) new army\(ies\) this turn, placed by the earlier PLACE areas or rule 10\.2 \(rule 10\.1\)$",
     _("%(n)s new army(ies) this turn, placed by the earlier PLACE areas or rule 10.2 (rule 10.1)")),
    (r"^(?P<leader>.+) does not enter this turn \(rule 9\.0\)$", _("%(leader)s does not enter this turn (rule 9.0)")),
    (r"^not carried out: another order of this movement was refused \(see the orders dropped\)$",
     _("not carried out: another order of this movement was refused (see the orders dropped)")),
    (r"^no battle was fought in (?P<area>.+) \(the defenders were gone before it\)$",
     _("no battle was fought in %(area)s (the defenders were gone before it)")),
    (r"^the (?P<nation>.+) may not settle in round (?P<round>\d+): every raider goes back to sea \((?P<ref>[^)]+)\)$",
     _("the %(nation)s may not settle in round %(round)s: every raider goes back to sea (%(ref)s)")),
    (r"^no raiders of the (?P<nation>.+) were left in (?P<area>.+) after the battles$",
     _("no raiders of the %(nation)s were left in %(area)s after the battles")),
    (r"^the (?P<nation>.+) are exempt from overpopulation this turn \(rule 6\.0\)$",
     _("the %(nation)s are exempt from overpopulation this turn (rule 6.0)")),
    (r"^the (?P<nation>.+) were not overpopulated at the end of the turn \(rule 6\.0\)$",
     _("the %(nation)s were not overpopulated at the end of the turn (rule 6.0)")),
    (r"^the (?P<nation>.+) were subject to the (?P<to>.+) already$", _("the %(nation)s were subject to the %(to)s already")),
    (r"^no battle was fought in (?P<areas>.+)$", _("no battle was fought in %(areas)s")),
    (r"^no effect this turn$", _("no effect this turn")),
    # the reply's warnings (pbem.rules.preview.warnings, pbem.orders.reply.lost_at_sea_warnings)
    (r"^no new armies this turn: the (?P<nation>.+) do not increase population this turn \(rules 2\.24, 10\.5, "
     r"11\.1\); this PLACE line does nothing$",
     _("no new armies this turn: the %(nation)s do not increase population this turn (rules 2.24, 10.5, 11.1); "
       "this PLACE line does nothing")),
    (r"^overpopulation \(rule 6\.0\): after these moves the end of the turn would remove (?P<areas>.+) \(more armies "
     r"than twice the land areas held\), unless battles cost armies first; DISBAND A, B \.\.\. says where to lose "
     r"them$", _("overpopulation (rule 6.0): after these moves the end of the turn would remove %(areas)s (more "
                 "armies than twice the land areas held), unless battles cost armies first; DISBAND A, B ... says "
                 "where to lose them")),
))


def reason_text(language: str, rs, text: str) -> str:
    """Why a line had no effect, in `language` (names as the player knows them); unknown reasons as they are."""
    if language == i18n.DEFAULT or not text:
        return text
    for pattern, msgid in REASONS:
        m = pattern.match(text)
        if m:
            return i18n.tr(language, msgid, **{k: i18n.cite(language, v) if k == "ref" else _board_name(language, rs, v)
                                               for k, v in m.groupdict().items()})
    return text


def _board_name(language: str, rs, value: str) -> str:
    pattern, local = i18n._board_names(rs, language)
    if pattern is None:
        return value
    return pattern.sub(lambda m: f"{local[m.group(1)]} ({m.group(1)})", value)


FORM_WORDS = (("  or  ", _("or")), ("<name>", _("<name>")), ("<sea>", _("<sea>")), ("<nation>", _("<nation>")),
              ("<leader>", _("<leader>")), ("(optional rule 16.251)", _("(optional rule 16.251)")),
              ("(A may be ALL)", _("(A may be ALL)")), ("N cavalry", _("N cavalry")))
"""The words of the order forms (OrderForm.syntax, pbem.orders.forms) that are no order words."""


def form_text(language: str, form: str) -> str:
    """An order form of the reply's grammar in `language` (the order words kept: a player writes them)."""
    if language == i18n.DEFAULT:
        return form
    for english, msgid in FORM_WORDS:
        word = i18n.tr(language, msgid)
        form = form.replace(english, f"  {word}  " if english == "  or  " else word)
    return form


# What the rules refuse in a line (pbem.rules.movement, pbem.rules.accounting): the commonest messages.
# Groups named a, b, area, areas, nation, leader, rest hold names of the board.
RULES: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p), m) for p, m in (
    (r"^(?P<a>.+) does not border (?P<b>.+)$", _("%(a)s does not border %(b)s")),
    (r"^(?P<a>[^:]+) borders: (?P<rest>.+)$", _("%(a)s borders: %(rest)s")),
    (r"^(?P<n>\d+) areas is more than the (?P<limit>\d+) allowed \(rules 5\.12, 5\.13, 9\.1\)$",
     _("%(n)s areas is more than the %(limit)s allowed (rules 5.12, 5.13, 9.1)")),
    (r"^armies must stop on entering a hiland \((?P<b>.+), rule 5\.12\)$",
     _("armies must stop on entering a hiland (%(b)s, rule 5.12)")),
    (r"^the (?P<nation>.+) have (?P<have>\d+) (?P<what>armies|army|cavalry) in (?P<area>.+)$",
     _("the %(nation)s have %(have)s %(what)s in %(area)s")),
    (r"^(?P<n>\d+) ordered to move from there$", _("%(n)s ordered to move from there")),
    (r"^the (?P<nation>.+) have no battle in (?P<area>.+) this turn: ATTACK orders say how an attacker fights where "
     r"its armies attack \(rules 8\.0, 8\.3\)$",
     _("the %(nation)s have no battle in %(area)s this turn: ATTACK orders say how an attacker fights where its "
       "armies attack (rules 8.0, 8.3)")),
    (r"^the (?P<nation>.+) have no battle in (?P<areas>.+) this turn \(rule 4\.4\)$",
     _("the %(nation)s have no battle in %(areas)s this turn (rule 4.4)")),
    (r"^battles of this turn: (?P<areas>.+)$", _("battles of this turn: %(areas)s")),
    (r"^the (?P<nation>.+) have no raiders in (?P<area>.+) this turn: (?P<word>WITHDRAW|SETTLE) is for raiders ashore "
     r"after their raid \(rule 7\.13\)$",
     _("the %(nation)s have no raiders in %(area)s this turn: %(word)s is for raiders ashore after their raid "
       "(rule 7.13)")),
    (r"^raiders ashore after movement: (?P<areas>.+)$", _("raiders ashore after movement: %(areas)s")),
    (r"^the (?P<nation>.+) do not increase population this turn \(rules 2\.24, 10\.1, 10\.5, 11\.1\)$",
     _("the %(nation)s do not increase population this turn (rules 2.24, 10.1, 10.5, 11.1)")),
    (r"^(?P<area>.+) is held by other armies \((?P<n>\d+)\); moving on needs (?P<m>\d+) of yours stopping there "
     r"\(rule 5\.3\)$", _("%(area)s is held by other armies (%(n)s); moving on needs %(m)s of yours stopping there "
                          "(rule 5.3)")),
    (r"^(?P<n>\d+) stop there$", _("%(n)s stop there")),
    (r"^stacking limits broken at the end of movement: (?P<rest>.+) \(rule 5\.2: 3 in a clear area, 2 in a hiland, "
     r"one larger group only\)$", _("stacking limits broken at the end of movement: %(rest)s (rule 5.2: 3 in a "
                                    "clear area, 2 in a hiland, one larger group only)")),
))

# The rules core's uncommon refusals (issue 34: every refusal a player can receive has its pattern;
# tests/orders/test_every_refusal_in_russian.py finds them in the code).
RULES += tuple((re.compile(p), m) for p, m in (
    (r'^the (?P<nation>.+) have no pieces in (?P<areas>.+) this turn: DISBAND names areas of theirs that lose armies first \(rules 6\.0, 10\.6\)$',
     _('the %(nation)s have no pieces in %(areas)s this turn: DISBAND names areas of theirs that lose armies first (rules 6.0, 10.6)')),
    (r'^(?P<n>\d+) line\(s\) of the orders could not be read$',
     _('%(n)s line(s) of the orders could not be read')),
    (r'^a move needs at least two places$',
     _('a move needs at least two places')),
    (r'^the (?P<nation>.+) may not enter the (?P<area>.+) \(their card\)$',
     _('the %(nation)s may not enter the %(area)s (their card)')),
    (r'^no move may end at sea \(rules 5\.4, 7\.5\)$',
     _('no move may end at sea (rules 5.4, 7.5)')),
    (r'^invaders may not move to another sea and stay there \(rule 7\.21\)$',
     _('invaders may not move to another sea and stay there (rule 7.21)')),
    (r'^unknown place in the path$',
     _('unknown place in the path')),
    (r'^(?P<area>.+) is not a sea$',
     _('%(area)s is not a sea')),
    (r'^the (?P<nation>.+) in (?P<area>.+) are subject to you: you may pass through but not end there \(rules 11\.1, 11\.2\)$',
     _('the %(nation)s in %(area)s are subject to you: you may pass through but not end there (rules 11.1, 11.2)')),
    (r'^a subject nation cannot attack the (?P<nation>.+) \(rules 11\.1, 11\.2\)$',
     _('a subject nation cannot attack the %(nation)s (rules 11.1, 11.2)')),
    (r'^crossing from (?P<a>.+) to (?P<b>.+) takes the whole move \(rule 5\.15\)$',
     _('crossing from %(a)s to %(b)s takes the whole move (rule 5.15)')),
    (r'^armies may pass through only one sea \(rules 5\.4, 7\.11\)$',
     _('armies may pass through only one sea (rules 5.4, 7.11)')),
    (r'^the (?P<nation>.+) must land from (?P<area>.+) directly \(rule 7\.4\)$',
     _('the %(nation)s must land from %(area)s directly (rule 7.4)')),
    (r'^the (?P<nation>.+) have no boats in round (?P<round>\d+) \(rule 5\.4\)$',
     _('the %(nation)s have no boats in round %(round)s (rule 5.4)')),
    (r'^a boat move passes through one sea only \(rule 5\.4\)$',
     _('a boat move passes through one sea only (rule 5.4)')),
    (r'^the (?P<nation>.+) may not land in (?P<area>.+) \(rules 7\.4, 15\.3\)$',
     _('the %(nation)s may not land in %(area)s (rules 7.4, 15.3)')),
    (r'^(?P<leader>.+) is not in (?P<area>.+)$',
     _('%(leader)s is not in %(area)s')),
    (r'^not (?P<n>\d+) armies left at (?P<area>.+)$',
     _('not %(n)s armies left at %(area)s')),
    (r'^new armies go only to areas the (?P<nation>.+) occupy \(rule 10\.2\)$',
     _('new armies go only to areas the %(nation)s occupy (rule 10.2)')),
    (r'^no second army in (?P<area>.+) while other areas can take one \(rule 10\.2, 5\.2\)$',
     _('no second army in %(area)s while other areas can take one (rule 10.2, 5.2)')),
    (r'^(?P<leader>.+) does not enter the board in the (?P<nation>.+) turn (?P<round>\d+) \(rule 9\.0\)$',
     _('%(leader)s does not enter the board in the %(nation)s turn %(round)s (rule 9.0)')),
    (r'^(?P<leader>.+) may enter only where the (?P<nation>.+) have pieces \(rule 9\.0\)$',
     _('%(leader)s may enter only where the %(nation)s have pieces (rule 9.0)')),
    (r'^the (?P<nation>.+) have no major invasion this turn \(rule 7\.3\)$',
     _('the %(nation)s have no major invasion this turn (rule 7.3)')),
    (r'^only the (?P<nation>.+) may allow a nation subject to them to increase \(rule 11\.1\)$',
     _('only the %(nation)s may allow a nation subject to them to increase (rule 11.1)')),
    (r'^the (?P<nation>.+) may not submit to the (?P<b>.+) now \(rules 11\.1, 11\.2\)$',
     _('the %(nation)s may not submit to the %(b)s now (rules 11.1, 11.2)')),
    (r'^the optional rule 16\.251 \(Brittany\) is not played in this game$',
     _('the optional rule 16.251 (Brittany) is not played in this game')),
    (r'^only the (?P<nation>.+) send armies to Brittany, at the start of their movement in turns (?P<rounds>[\d, ]+) \(16\.251\)$',
     _('only the %(nation)s send armies to Brittany, at the start of their movement in turns %(rounds)s (16.251)')),
    (r'^armies leave for Brittany only from (?P<areas>.+) \(16\.251\)$',
     _('armies leave for Brittany only from %(areas)s (16.251)')),
    (r'^at most (?P<n>\d+) armies a turn leave for Brittany \(16\.251\)$',
     _('at most %(n)s armies a turn leave for Brittany (16.251)')),
    (r'^no arrival of the (?P<nation>.+) this turn may appear in the (?P<area>.+) \(\[Appearance At Sea\]: (?P<areas>.+)\)$',
     _('no arrival of the %(nation)s this turn may appear in the %(area)s ([Appearance At Sea]: %(areas)s)')),
    (r'^the (?P<nation>.+) may not cross the strait between (?P<a>.+) and (?P<b>.+) \(\[Straits\]\)$',
     _('the %(nation)s may not cross the strait between %(a)s and %(b)s ([Straits])')),
    (r"^a leader and its escort need not stop \(rule 9\.1\)$",
     _('a leader and its escort need not stop (rule 9.1)')),
    (r"^a leader need not stop \(rule 5\.12\)$", _('a leader need not stop (rule 5.12)')),
    (r"^(?P<area>.+) is difficult terrain: pieces may move on through another nation's area only in clear "
     r"terrain \(\[Overruns\]\)$",
     _("%(area)s is difficult terrain: pieces may move on through another nation's area only in clear terrain "
       "([Overruns])")),
    (r"^no army may be in or move through two seas in one turn \(\[Sea Movement\]\)$",
     _("no army may be in or move through two seas in one turn ([Sea Movement])")),
    (r'^start the turn in (?P<a>.+) and end it in (?P<b>.+)$',
     _('start the turn in %(a)s and end it in %(b)s')),
    (r'^armies on land may enter a sea only in a Boats turn$',
     _('armies on land may enter a sea only in a Boats turn')),
    (r'^from (?P<area>.+) they may land in: (?P<areas>.+)$',
     _('from %(area)s they may land in: %(areas)s')),
    (r'^keep one unit in (?P<area>.+)$',
     _('keep one unit in %(area)s')),
    (r'^move (?P<leader>.+) too, or keep a unit in (?P<area>.+)$',
     _('move %(leader)s too, or keep a unit in %(area)s')),
    (r'^move the leader with its armies or to an area they hold$',
     _('move the leader with its armies or to an area they hold')),
    (r"^the (?P<nation>.+) may not attack the (?P<b>.+) \(rule 10\.5\)$",
     _('the %(nation)s may not attack the %(b)s (rule 10.5)')),
    (r"^the (?P<nation>.+) must come ashore in this movement \(rule 7\.2\)$",
     _('the %(nation)s must come ashore in this movement (rule 7.2)')),
    (r'^land them: armies still at sea after this movement are lost$',
     _('land them: armies still at sea after this movement are lost')),
))
_NAMES = {"a", "b", "area", "areas", "nation", "leader", "rest"}
_JOINS = (("; reachable from ", _("; reachable from ")), ("; write: ", _("; write: ")))
_WHAT = {"armies": _("armies"), "army": _("army"), "cavalry": _("cavalry"), "none": _("none")}


@functools.cache
def _compiled(phrases: tuple[tuple[str, str], ...]) -> tuple[tuple[re.Pattern, str], ...]:
    return tuple((re.compile(p), m) for p, m in phrases)


def _family_phrases(rs) -> tuple[tuple[re.Pattern, str], ...]:
    """The refusals a rules family writes itself, with its own citations (Rules.refusal_phrases)."""
    rules = getattr(rs, "rules", None) if rs is not None else None
    return _compiled(tuple(getattr(rules, "refusal_phrases", ())))


def rules_text(language: str, rs, message: str) -> str:
    """A refusal of the rules in `language`, the names as the player knows them; unknown ones as they are."""
    if language == i18n.DEFAULT or not message:
        return message
    stop = message.endswith(".") and not message.endswith("...")
    core = message[:-1] if stop else message
    for pattern, msgid in RULES + _family_phrases(rs):
        m = pattern.match(core)
        if m:
            fields = {}
            for k, v in m.groupdict().items():
                if k in _NAMES:
                    fields[k] = i18n.tr(language, _WHAT["none"]) if v == "none" else _board_name(language, rs, v)
                    for english, join in _JOINS:    # not `msgid`: that is the message being filled
                        fields[k] = fields[k].replace(english, i18n.tr(language, join))
                elif k == "what":
                    fields[k] = i18n.tr(language, _WHAT[v])
                else:
                    fields[k] = v
            return i18n.tr(language, msgid, **fields) + ("." if stop else "")
    return message


# What an ODDS line is refused with (pbem.orders.odds, pbem.rules.odds) and the budgets' notes. Groups
# named who are "attacker"/"defender"; the other groups are numbers or the quoted words of the line.
ODDS: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p), m) for p, m in (
    (r'^Write: (?P<form>.+)$',
     _('Write: %(form)s')),
    (r"^the (?P<who>attacker|defender)'s armies must be a number written with the digits 0-9, not (?P<word>.+)$",
     _("the %(who)s's armies must be a number written with the digits 0-9, not %(word)s")),
    (r'^(?P<word>CAV|BURHS) must be a number written with the digits 0-9, not (?P<text>.+)$',
     _('%(word)s must be a number written with the digits 0-9, not %(text)s')),
    (r"^the (?P<who>attacker|defender)'s armies is at most (?P<n>\d+)$",
     _("the %(who)s's armies is at most %(n)s")),
    (r'^(?P<word>CAV|BURHS) is at most (?P<n>\d+)$',
     _('%(word)s is at most %(n)s')),
    (r"^an ODDS line is at most (?P<n>\d+) characters$", _("an ODDS line is at most %(n)s characters")),
    (r"^AFTER ROUND takes a round from 1 to (?P<max>\d+), not (?P<word>.+)$",
     _("AFTER ROUND takes a round from 1 to %(max)s, not %(word)s")),
    (r"^ATTACK takes FIGHT or RETREAT$", _("ATTACK takes FIGHT or RETREAT")),
    (r"^ATTACK RETREAT needs IF OUTNUMBERED or AFTER ROUND k$", _("ATTACK RETREAT needs IF OUTNUMBERED or AFTER ROUND k")),
    (r"^DEFEND takes HOLD or RETREAT$", _("DEFEND takes HOLD or RETREAT")),
    (r"^write the attackers, VS, then the defenders$", _("write the attackers, VS, then the defenders")),
    (r"^the (?P<who>attacker|defender) must start with a number of armies$",
     _("the %(who)s must start with a number of armies")),
    (r"^CAV needs a number$", _("CAV needs a number")),
    (r"^BURHS needs a number$", _("BURHS needs a number")),
    (r"^unknown word (?P<word>.+) for the (?P<who>attacker|defender)$", _("unknown word %(word)s for the %(who)s")),
    (r"^forts and burhs only defend$", _("forts and burhs only defend")),
    (r"^the (?P<who>attacker|defender) has (?P<n>\d+) pieces; the odds are computed for at most (?P<max>\d+)$",
     _("the %(who)s has %(n)s pieces; the odds are computed for at most %(max)s")),
    (r"^this ruleset has no hiland area$", _("this ruleset has no hiland area")),
    (r"^this ruleset has no clear area$", _("this ruleset has no clear area")),
    (r"^the (?P<who>attacker|defender) cannot have a negative number of pieces$",
     _("the %(who)s cannot have a negative number of pieces")),
    (r"^the (?P<who>attacker|defender) cannot have a wounded piece of that kind here$",
     _("the %(who)s cannot have a wounded piece of that kind here")),
    (r"^unknown plan (?P<word>.+)$", _("unknown plan %(word)s")),
    (r"^AFTER ROUND (?P<k>-?\d+): the round is a number from 1 to (?P<max>\d+)$",
     _("AFTER ROUND %(k)s: the round is a number from 1 to %(max)s")),
    (r"^a battle needs attacking armies or cavalry and at least one defending piece$",
     _("a battle needs attacking armies or cavalry and at least one defending piece")),
    (r"^this battle is too big to compute exactly here \((?P<n>\d+) states; the limit is (?P<max>\d+)\)$",
     _("this battle is too big to compute exactly here (%(n)s states; the limit is %(max)s)")),
    (r"^this battle is too big to compute exactly here \(about (?P<n>\d+) steps of work; the limit is (?P<max>\d+)\)$",
     _("this battle is too big to compute exactly here (about %(n)s steps of work; the limit is %(max)s)")),
    (r"^this battle is too big to compute exactly here \(more than (?P<max>\d+) steps of work\)$",
     _("this battle is too big to compute exactly here (more than %(max)s steps of work)")),
    (r"^try fewer pieces, fewer kinds of pieces, or an earlier AFTER ROUND$",
     _("try fewer pieces, fewer kinds of pieces, or an earlier AFTER ROUND")),
    (r"^not computed: this mail's ODDS lines together ask for more work than one mail may \((?P<n>\d+) steps\); "
     r"ask this one in another mail$",
     _("not computed: this mail's ODDS lines together ask for more work than one mail may (%(n)s steps); ask this "
       "one in another mail")),
    (r"^not computed now: the server has given as many odds as it gives in one run \((?P<n>\d+) steps of work\); "
     r"send this line again in a later mail$",
     _("not computed now: the server has given as many odds as it gives in one run (%(n)s steps of work); send "
       "this line again in a later mail")),
))
_WHO = {"attacker": _("attacker"), "defender": _("defender")}


def odds_text(language: str, message: str) -> str:
    """A refusal of an ODDS line (or a budget's note) in `language`; a name's refusal (IN <area>) as the
    parser's (problem_text); unknown ones as they are."""
    if language == i18n.DEFAULT or not message:
        return message
    for pattern, msgid in ODDS:
        m = pattern.match(message)
        if m:
            return i18n.tr(language, msgid, **{k: i18n.tr(language, _WHO[v]) if k == "who" else v
                                               for k, v in m.groupdict().items()})
    return problem_text(language, message)
