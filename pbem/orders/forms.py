"""The generic forms of the order language (docs/PLAYERS.md sections 1-3), registered once.

Each form is an `OrderForm` (pbem.rules.orders): its keyword, the typed order it gives, how the
rest of its line is read, its canonical line, the syntax the guide and the hints write and an
example. A rules family says which forms its rulesets accept (`Rules.order_forms`); the parser
(pbem.orders.parser) reads with that list, resolved by pbem.orders.language. A family's own forms
are registered by its module (classic: pbem/rules/rulesets/classic_orders.py).

A form's `parse(reader, rest)` gets the parser (pbem.orders.parser.LineParser) as its reader: names
through `reader.names` (get, place, area_or_all, places), numbers through `reader.count` and
`reader.round`, `reader.split_tail` for `A: TAIL`, `reader.move` for a path, and raises
`reader.syntax(message, keyword)` (or `LineProblems`) for what is wrong; the parser adds the line
number and the quoted text (an OrderProblem).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from pbem.orders import names
from pbem.orders.hygiene import quote
from pbem.rules.orders import (
    BASE_LANGUAGE,
    Attack,
    AwayLine,
    Battles,
    ClearDefend,
    Defend,
    Disband,
    GameLine,
    LanguageLine,
    Losses,
    Move,
    NationLine,
    Order,
    OrderForm,
    Pass,
    Place,
    PlaceLeader,
    SecondMovement,
    Settle,
    Stay,
    Submit,
    TimezoneLine,
    TokenLine,
    Vote,
    Withdraw,
    form_named,
    register_form,
)

MAX_COUNT = 99
MAX_ROUND = 99

ARMY_WORDS = {"army", "armies", "armys"}
_FIXED_WORDS = {"fort", "forts", "burh", "burhs"}
_CAV_WORDS = {"cavalry", "cav", "cavalries", "horse", "horses", "knight", "knights"}
COUNT = re.compile(r"^(\d+)(?:x|×)?$", re.IGNORECASE)
ARROW_SPLIT = re.compile(r"\s*->\s*|\s+to\s+", re.IGNORECASE)
LIST_SPLIT = re.compile(r"\s*,\s*|\s+and\s+|\s*;\s*", re.IGNORECASE)
_AFTER = re.compile(r"^after\s+(?:round\s+(\d+)|(\d+)\s+rounds?)$", re.IGNORECASE)
_DEFEND_TAIL = re.compile(r"^(?P<b>.*?)(?P<conds>(?:\s+(?:if\s+outnumbered|after\s+round\s+\d+|after\s+\d+\s+rounds?))*)$",
                          re.IGNORECASE)
_COND = re.compile(r"if\s+outnumbered|after\s+round\s+\d+|after\s+\d+\s+rounds?", re.IGNORECASE)
_TAIL_WORDS = ("HOLD", "RETREAT", "FIGHT", "RAIDERS", "SETTLERS", "CAVALRY", "RAIDERS_FIRST",
               "SETTLERS_FIRST", "CAVALRY_LAST")
_LOSSES = {"raiders first": "raiders_first", "settlers first": "settlers_first", "cavalry last": "cavalry_last"}
_LOSSES_TEXT = {v: k.upper() for k, v in _LOSSES.items()}


class LineProblems(Exception):
    """Problems of one line (kind, message, hint) without the line number yet."""

    def __init__(self, *problems: tuple[str, str, str]) -> None:
        super().__init__(problems[0][1] if problems else "")
        self.problems = list(problems)


def syntax(message: str, form: str) -> LineProblems:
    """A syntax problem of the form `form`, its hint the form's syntax."""
    return LineProblems(("syntax", message, f"Write it as: {form_named(form).syntax}."))


def count(text: str, form: str) -> int:
    m = COUNT.match(text)
    if not m or len(m.group(1)) > 3:
        raise syntax(f"'{text}' is not a number of units", form)
    n = int(m.group(1))
    if n < 1:
        raise syntax("the number of units must be at least 1", form)
    if n > MAX_COUNT:
        raise syntax(f"{n} units is more than any nation has", form)
    return n


def round_number(text: str, form: str) -> int:
    if len(text) > 3:
        raise syntax(f"round {text[:10]} is too large", form)
    k = int(text)
    if not 1 <= k <= MAX_ROUND:
        raise syntax("the round number must be at least 1", form)
    return k


def split_tail(rest: str, form: str) -> tuple[str, str]:
    """`A: TAIL` (or `A TAIL` where TAIL starts with a known word) -> (A, TAIL)."""
    if ":" in rest:
        head, tail = rest.split(":", 1)
        head, tail = head.strip(), tail.strip()
        if not head:
            raise syntax("the area is missing before ':'", form)
        if not tail:
            raise syntax("nothing after ':'", form)
        return head, tail
    words = rest.split()
    for i in range(1, len(words)):
        if words[i].upper() in _TAIL_WORDS:
            return " ".join(words[:i]), " ".join(words[i:])
    raise syntax("expected 'A: ...'", form)


# --- printing helpers --------------------------------------------------------------------------
def _n(rs, ident: str) -> str:
    return rs.display(ident)


def _area(rs, ident: str) -> str:
    return "ALL" if ident == "all" else rs.display(ident)


def _list(rs, ids: Iterable[str]) -> str:
    return ", ".join(rs.display(i) for i in ids)


def _path(rs, path: Iterable[str]) -> str:
    return " -> ".join(rs.display(p) for p in path)


# --- message header lines and a player's settings (pbem.service.away) ---------------------------
def _game(r, rest: str) -> Order:
    if not rest or len(rest.split()) != 1:
        raise syntax("expected one game id after GAME", "GAME")
    return GameLine(game=rest)


def _token(r, rest: str) -> Order:
    if not rest or len(rest.split()) != 1:
        raise syntax("expected one token after TOKEN", "TOKEN")
    return TokenLine(token=rest)


def _nation(r, rest: str) -> Order:
    if not rest:
        raise syntax("which nation?", "NATION")
    return NationLine(nation=r.names.get(rest, ("nation",)))


def _timezone(r, rest: str) -> Order:
    if len(rest.split()) != 1:
        raise syntax("expected one time zone name after TIMEZONE", "TIMEZONE")
    return TimezoneLine(zone=rest)


def _language(r, rest: str) -> Order:
    if len(rest.split()) != 1:
        raise syntax("expected one language code after LANGUAGE", "LANGUAGE")
    return LanguageLine(language=rest)


def _away(r, rest: str) -> Order:
    m = re.match(r"^(\d{4}-\d{2}-\d{2})\s+(?:to|until|-)\s+(\d{4}-\d{2}-\d{2})$", rest, re.IGNORECASE)
    try:
        if m:
            return AwayLine(start=date.fromisoformat(m.group(1)).isoformat(),
                            end=date.fromisoformat(m.group(2)).isoformat())
    except ValueError:
        pass
    raise syntax("expected two dates after AWAY", "AWAY")


# --- a nation's turn ------------------------------------------------------------------------------
def _place(r, rest: str) -> Order:
    return Place(areas=r.names.places(rest, "PLACE", counts=True))


def _leader(r, rest: str) -> Order:
    if re.search(r"->|\sto\s", rest, re.IGNORECASE) and not re.search(r"\sin\s", f" {rest} ", re.IGNORECASE):
        return move(r, rest, leader_only=True)     # LEADER <name> A -> B: a leader's move
    m = re.match(r"^(.+?)\s+in\s+(.+)$", rest, re.IGNORECASE)
    if not m:
        raise syntax("expected LEADER <name> IN <area>", "LEADER")
    bad: list = []
    leader = r.names.get(m.group(1), ("leader",), bad)
    area = r.names.place(m.group(2), bad)
    if bad:
        raise LineProblems(*bad)
    return PlaceLeader(leader=leader, area=area)


def _stay(r, rest: str) -> Order:
    words = rest.split()
    if len(words) < 2 or not COUNT.match(words[0]):
        raise syntax("expected STAY, a number and a sea", "STAY")
    n = count(words[0], "STAY")
    words = words[1:]
    while words and words[0].lower() in ARMY_WORDS | {"x", "×", "in", "at"}:
        words = words[1:]
    if not words:
        raise syntax("which sea?", "STAY")
    return Stay(count=n, sea=r.names.get(" ".join(words), ("sea",)))


def _second(r, rest: str) -> Order:
    if rest.upper() not in ("MOVEMENT", "MOVE"):
        raise syntax("expected SECOND MOVEMENT on a line of its own", "SECOND")
    return SecondMovement()


def _battles(r, rest: str) -> Order:
    return Battles(areas=r.names.places(rest, "BATTLES"))


def _attack(r, rest: str) -> Order:
    head, tail = split_tail(rest, "ATTACK")
    area = r.names.place(head)
    t = " ".join(tail.split()).upper()
    if t == "FIGHT":
        return Attack(area=area, mode="fight")
    if t == "RETREAT IF OUTNUMBERED":
        return Attack(area=area, mode="retreat_if_outnumbered")
    if t.startswith("RETREAT "):
        m = _AFTER.match(t[len("RETREAT "):])
        if m:
            return Attack(area=area, mode="retreat_after", after_round=round_number(m.group(1) or m.group(2), "ATTACK"))
    raise syntax(f"'{tail}' is not FIGHT, RETREAT AFTER ROUND K or RETREAT IF OUTNUMBERED", "ATTACK")


def _print_attack(o: Attack, rs) -> str:
    if o.mode == "retreat_after":
        return f"ATTACK {_n(rs, o.area)}: RETREAT AFTER ROUND {o.after_round}"
    if o.mode == "retreat_if_outnumbered":
        return f"ATTACK {_n(rs, o.area)}: RETREAT IF OUTNUMBERED"
    return f"ATTACK {_n(rs, o.area)}: FIGHT"


def _withdraw(r, rest: str) -> Order:
    if not rest:
        raise syntax("which area?", "WITHDRAW")
    return Withdraw(area=r.names.place(rest))


def _settle(r, rest: str) -> Order:
    if not rest:
        raise syntax("which area?", "SETTLE")
    return Settle(area=r.names.place(rest))


def _disband(r, rest: str) -> Order:
    return Disband(areas=r.names.places(rest, "DISBAND", counts=True))


def _vote(r, rest: str) -> Order:
    if not rest:
        raise syntax("which nation?", "VOTE")
    return Vote(nation=r.names.get(rest, ("nation",)))


def _submit(r, rest: str) -> Order:
    words = rest.split()
    if words and words[0].upper() == "TO":
        words = words[1:]
    if not words:
        raise syntax("to which nation?", "SUBMIT")
    return Submit(to=r.names.get(" ".join(words), ("nation",)))


def _pass(r, rest: str) -> Order:
    if rest:
        raise syntax("PASS stands on a line of its own", "PASS")
    return Pass()


# --- standing orders -------------------------------------------------------------------------------
def _defend(r, rest: str) -> Order:
    head, tail = split_tail(rest, "DEFEND")
    area = r.names.area_or_all(head)
    t = " ".join(tail.split())
    if t.upper() == "HOLD":
        return Defend(area=area, hold=True)
    m = re.match(r"^retreat\s+to\s+(.+)$", t, re.IGNORECASE)
    split = re.match(r"^retreat\s+((?:\d+|rest)\s+to\s+.+)$", t, re.IGNORECASE)
    if not m and not split:
        raise syntax(f"'{tail}' is not HOLD or RETREAT TO B [IF OUTNUMBERED] [AFTER ROUND K]", "DEFEND")
    tm = _DEFEND_TAIL.match((m or split).group(1))
    target, conds = tm.group("b").strip(), tm.group("conds")
    if not target:
        raise syntax("retreat to which area?", "DEFEND")
    counts: list[int] = []
    to: list[str] = []
    if split:
        target = ""
        parts = re.split(r"\s*,\s*", tm.group("b").strip())
        for i, part in enumerate(parts):
            pm = re.match(r"^(\d+|rest)\s+to\s+(.+)$", part, re.IGNORECASE)
            if not pm:
                raise syntax(f"'{part}' is not 'N TO B' or 'REST TO B'", "DEFEND")
            if pm.group(1).lower() == "rest":
                if i != len(parts) - 1:
                    raise syntax("REST TO B comes last", "DEFEND")
                target = pm.group(2)
                continue
            n = int(pm.group(1))
            if n < 1:
                raise syntax("a retreating group has at least 1 unit", "DEFEND")
            counts.append(n)
            to.append(r.names.place(pm.group(2)))
    outnumbered, after = False, None
    for c in _COND.findall(conds):
        if c.lower().startswith("if"):
            if outnumbered:
                raise syntax("IF OUTNUMBERED twice", "DEFEND")
            outnumbered = True
        else:
            if after is not None:
                raise syntax("AFTER ROUND twice", "DEFEND")
            am = _AFTER.match(" ".join(c.split()))
            after = round_number(am.group(1) or am.group(2), "DEFEND")
    return Defend(area=area, hold=False, to=r.names.place(target) if target else None, if_outnumbered=outnumbered,
                  after_round=after, split_counts=tuple(counts), split_to=tuple(to))


def _print_defend(o: Defend, rs) -> str:
    if o.hold:
        return f"DEFEND {_area(rs, o.area)}: HOLD"
    if not o.split_counts:
        s = f"DEFEND {_area(rs, o.area)}: RETREAT TO {_n(rs, o.to) if o.to else '?'}"
    else:
        s = f"DEFEND {_area(rs, o.area)}: RETREAT " + ", ".join(
            f"{'REST' if n is None else n} TO {_n(rs, a)}" for n, a in o.parts())
    if o.if_outnumbered:
        s += " IF OUTNUMBERED"
    if o.after_round is not None:
        s += f" AFTER ROUND {o.after_round}"
    return s


def _clear(r, rest: str) -> Order:
    words = rest.split()
    if len(words) < 2 or words[0].upper() != "DEFEND":
        raise syntax("expected CLEAR DEFEND <area>", "CLEAR")
    return ClearDefend(area=r.names.area_or_all(" ".join(words[1:])))


def _losses(r, rest: str) -> Order:
    head, tail = split_tail(rest, "LOSSES")
    area = r.names.area_or_all(head)
    pref = _LOSSES.get(" ".join(tail.replace("_", " ").split()).lower())
    if pref is None:
        raise syntax(f"'{tail}' is not RAIDERS FIRST, SETTLERS FIRST or CAVALRY LAST", "LOSSES")
    return Losses(area=area, preference=pref)


# --- moves -------------------------------------------------------------------------------------------
def is_move(line: str) -> bool:
    """A line with an arrow (or `to`) between its areas, or ending with one, is read as a move."""
    return bool(ARROW_SPLIT.search(line)) or line.endswith("->")


def move(r, s: str, leader_only: bool = False) -> Order:
    parts = ARROW_SPLIT.split(s.strip())
    if s.rstrip().endswith("->"):
        raise syntax("the path ends with an arrow: where to?", "MOVE")
    if len(parts) < 2:
        raise syntax("a move needs at least two areas", "MOVE")
    if any(not p.strip() for p in parts):
        raise syntax("an empty step in the path (two arrows in a row, or an arrow at the start)", "MOVE")
    bad: list = []
    try:
        n, kind, leader, start = _head(r, parts[0], leader_only)
    except LineProblems as e:
        bad.extend(e.problems)
        n = kind = leader = start = None
    path = [start] + [r.names.place(p, bad) for p in parts[1:]]
    if bad:
        raise LineProblems(*bad)
    return Move(count=n, kind=kind, path=tuple(path), leader=leader)


def _head(r, seg: str, leader_only: bool) -> tuple[int, str, str | None, str]:
    words = seg.split()
    n = None
    kind = "armies"
    i = 0
    if not leader_only:
        if COUNT.match(words[0]) or re.match(r"^\d", words[0]):
            n = count(words[0], "MOVE")
            i = 1
            if i < len(words) and words[i].lower() in ("x", "×"):
                i += 1
        if i < len(words) and words[i].lower() in ARMY_WORDS:
            i += 1
        elif i < len(words) and words[i].lower() in _CAV_WORDS:
            kind = "cavalry"
            i += 1
        if i < len(words) and words[i].lower() in _FIXED_WORDS:
            raise LineProblems(("syntax", "forts and burhs never move",
                                f"Only armies, cavalry and leaders move: {form_named('MOVE').syntax}."))
        if i >= len(words):
            raise syntax("from which area?", "MOVE")
        rest = words[i:]
        if n is not None or kind == "cavalry" or i > 0:
            try:
                return n or 1, kind, None, r.names.place(" ".join(rest))
            except LineProblems:
                if kind == "armies" and len(rest) > 1 and names.match(r.rs, rest[0], ("leader",)):
                    raise LineProblems(("syntax", "a leader moves without a number of units",
                                        f"Write it as: {' '.join(rest)} -> ...  (armies that move on the same path "
                                        "are its escort)")) from None
                raise
        try:
            return 1, "armies", None, r.names.place(" ".join(rest))
        except LineProblems as whole:
            first_error = whole
    else:
        rest = words
        first_error = None
    # <leader> A
    place_ok_leader_bad = None
    leader_ok_place_bad = None
    for k in range(1, len(rest)):
        lt, pt = " ".join(rest[:k]), " ".join(rest[k:])
        lbad: list = []
        pbad: list = []
        lid = r.names.get(lt, ("leader",), lbad)
        pid = r.names.place(pt, pbad)
        if lid and pid:
            return 1, "leader", lid, pid
        if lid and leader_ok_place_bad is None:
            leader_ok_place_bad = pbad
        if pid and place_ok_leader_bad is None:
            place_ok_leader_bad = lbad
    if leader_ok_place_bad:
        raise LineProblems(*leader_ok_place_bad)
    if place_ok_leader_bad:
        raise LineProblems(*place_ok_leader_bad)
    if leader_only:
        if len(rest) < 2:
            raise syntax("expected <leader> <area> -> ...", "MOVE")
        raise LineProblems(("unknown-name", f"'{quote(' '.join(rest), 60)}' is not a leader and an area",
                            f"Write it as: {form_named('MOVE').syntax}."))
    if len(rest) == 1 or first_error.problems[0][0] == "ambiguous-name":
        raise first_error
    kind_, msg, hint = first_error.problems[0]
    raise LineProblems((kind_, msg + " (nor a leader and an area)", hint))


def _print_move(o: Move, rs) -> str:
    if o.kind == "leader":
        return f"{_n(rs, o.leader)} {_path(rs, o.path)}"
    if o.kind == "cavalry":
        return f"{o.count} cavalry {_path(rs, o.path)}"
    return f"{o.count} {_path(rs, o.path)}"


# --- the generic forms, in the order the hints and the guide list them --------------------------------
GENERIC_FORMS = tuple(register_form(f) for f in (
    OrderForm("GAME", GameLine, "GAME <game id>", "GAME mygame", _game,
              lambda o, rs: f"GAME {o.game}", kind="header", meaning="names the game",
              translations={"ru": ("игра",)}),
    OrderForm("NATION", NationLine, "NATION <nation>", "NATION {nation}", _nation,
              lambda o, rs: f"NATION {_n(rs, o.nation)}", kind="header",
              meaning="starts the orders of one of your nations",
              translations={"ru": ("народ", "нация")}),
    OrderForm("TOKEN", TokenLine, "TOKEN <token>", "TOKEN 8f2c41", _token,
              lambda o, rs: f"TOKEN {o.token}", kind="header", meaning="the secret that proves the mail is yours",
              translations={"ru": ("токен", "пароль")}),
    OrderForm("TIMEZONE", TimezoneLine, "TIMEZONE <zone>, e.g. TIMEZONE Europe/Moscow", "TIMEZONE Europe/Moscow",
              _timezone, lambda o, rs: f"TIMEZONE {o.zone}", kind="player",
              meaning="your time zone, for every deadline you are sent"),
    OrderForm("LANGUAGE", LanguageLine, "LANGUAGE <language>, e.g. LANGUAGE ru (en, ru)", "LANGUAGE ru",
              _language, lambda o, rs: f"LANGUAGE {o.language}", kind="player",
              meaning="the language of every mail you are sent (en, ru)",
              translations={"ru": ("язык",)}),
    OrderForm("AWAY", AwayLine, "AWAY <first day> TO <last day>, e.g. AWAY 2026-12-20 TO 2026-12-27",
              "AWAY 2026-12-20 TO 2026-12-27", _away, lambda o, rs: f"AWAY {o.start} TO {o.end}", kind="player",
              meaning="an absence, both days included"),
    OrderForm("PLACE", Place, "PLACE A[, B ...]", "PLACE {area}, {next}", _place,
              lambda o, rs: f"PLACE {_list(rs, o.areas)}", meaning="where the new armies go (rule 10.2)",
              translations={"ru": ("разместить", "поставить", "выставить")}),
    OrderForm("LEADER", PlaceLeader, "LEADER <name> IN A", "LEADER {leader} IN {area}", _leader,
              lambda o, rs: f"LEADER {_n(rs, o.leader)} IN {_n(rs, o.area)}",
              meaning="where an arriving leader is placed (rule 9.0)",
              translations={"ru": ("вождь", "лидер")}),
    OrderForm("MOVE", Move, "N A -> B [-> C ...]  or  N cavalry A -> B ...  or  <leader> A -> B ...",
              "3 {area} -> {next} -> {third}", lambda r, line: move(r, line), _print_move,
              leading_word=False, recognises=is_move,
              meaning="moves armies, cavalry or a leader along a path (rules 5.1, 9.1)"),
    OrderForm("STAY", Stay, "STAY N <sea>", "STAY 2 {sea}", _stay,
              lambda o, rs: f"STAY {o.count} {_n(rs, o.sea)}", meaning="armies at sea stay there (rule 7.11)",
              translations={"ru": ("остаться", "оставить")}),
    OrderForm("SECOND", SecondMovement, "SECOND MOVEMENT", "SECOND MOVEMENT", _second,
              lambda o, rs: "SECOND MOVEMENT", meaning="the moves after it are a major invasion's second (rule 7.3)",
              translations={"ru": ("второе", "второй")}),
    OrderForm("BATTLES", Battles, "BATTLES A, B ...", "BATTLES {area}, {next}", _battles,
              lambda o, rs: f"BATTLES {_list(rs, o.areas)}", aliases=("BATTLE",),
              meaning="the order of your battles",
              translations={"ru": ("битвы", "битва", "сражения")}),
    OrderForm("ATTACK", Attack,
              "ATTACK A: FIGHT  or  ATTACK A: RETREAT AFTER ROUND K  or  ATTACK A: RETREAT IF OUTNUMBERED",
              "ATTACK {area}: RETREAT AFTER ROUND 2", _attack, _print_attack,
              meaning="when your attackers retreat (rule 8.3)",
              translations={"ru": ("атака", "атаковать", "нападение")}),
    OrderForm("WITHDRAW", Withdraw, "WITHDRAW A", "WITHDRAW {area}", _withdraw,
              lambda o, rs: f"WITHDRAW {_n(rs, o.area)}", meaning="raiders go back to their sea (rule 7.13)",
              translations={"ru": ("откат", "отвести")}),
    OrderForm("SETTLE", Settle, "SETTLE A", "SETTLE {area}", _settle,
              lambda o, rs: f"SETTLE {_n(rs, o.area)}", meaning="raiders stay ashore (rule 7.13)",
              translations={"ru": ("осесть", "поселиться")}),
    OrderForm("DISBAND", Disband, "DISBAND A[, B ...]", "DISBAND {area}, {next}", _disband,
              lambda o, rs: f"DISBAND {_list(rs, o.areas)}", meaning="which areas lose armies first if overpopulated (rule 6.0)",
              translations={"ru": ("распустить", "расформировать")}),
    OrderForm("VOTE", Vote, "VOTE <nation>", "VOTE {nation}", _vote,
              lambda o, rs: f"VOTE {_n(rs, o.nation)}", meaning="this nation's Bretwalda vote (rule 12.2)",
              translations={"ru": ("голос", "голосую", "голосовать")}),
    OrderForm("SUBMIT", Submit, "SUBMIT TO <nation>", "SUBMIT TO {nation}", _submit,
              lambda o, rs: f"SUBMIT TO {_n(rs, o.to)}", meaning="submission (rules 11.1, 11.2)",
              translations={"ru": ("покориться", "подчиниться", "покоряюсь")}),
    OrderForm("PASS", Pass, "PASS", "PASS", _pass, lambda o, rs: "PASS", meaning="nothing this turn",
              translations={"ru": ("пас", "пропуск", "пропустить")}),
    OrderForm("DEFEND", Defend,
              "DEFEND A: HOLD  or  DEFEND A: RETREAT TO B [IF OUTNUMBERED] [AFTER ROUND K]  (A may be ALL)"
              "  or  DEFEND A: RETREAT 2 TO B, REST TO C ...",
              "DEFEND {area}: RETREAT TO {next} IF OUTNUMBERED AFTER ROUND 2", _defend, _print_defend, kind="standing",
              meaning="when your defenders retreat, and where to (rule 8.2)",
              translations={"ru": ("защита", "защиту", "оборона", "оборону")}),
    OrderForm("CLEAR", ClearDefend, "CLEAR DEFEND A", "CLEAR DEFEND {area}", _clear,
              lambda o, rs: f"CLEAR DEFEND {_area(rs, o.area)}", kind="standing",
              meaning="drops the standing order of an area",
              translations={"ru": ("отменить", "снять")}),
    OrderForm("LOSSES", Losses, "LOSSES A: RAIDERS FIRST  or  SETTLERS FIRST  or  CAVALRY LAST  (A may be ALL)",
              "LOSSES {area}: CAVALRY LAST", _losses,
              lambda o, rs: f"LOSSES {_area(rs, o.area)}: {_LOSSES_TEXT.get(o.preference, o.preference.upper())}",
              kind="standing", meaning="which of your pieces die first (rule 8.0)",
              translations={"ru": ("потери",)}),
))
assert set(BASE_LANGUAGE) == {f.keyword for f in GENERIC_FORMS}, "the base language is the generic forms"
