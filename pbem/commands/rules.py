"""`pbem rules show`: the ruleset data as plain text, readable on a phone (<= 72 columns).

    pbem rules show classic                  summary: counts, order of play, scoring, control, doubts
    pbem rules show classic --area <area>    an area (or sea): links, who starts, lands, scores there
    pbem rules show classic --round 7        a turn: arrivals, invasions, leaders, boats, scoring
    pbem rules show classic --nation <name>  a nation: code, colour, limits, start, landing, leaders, card

Names are resolved by pbem.orders.names (id, display name, alias or a 4+ letter prefix). Wherever the
data shown rests on a doubt (ruleset.yaml `doubts`, inline `# doubt:` comments of the data files) a
"doubt" line says so; doubts the rules text settles are printed as "settled".
"""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import click

from pbem.data.loader import known_rulesets, load, tables_for
from pbem.errors import PbemError
from pbem.orders import names
from pbem.rules.ruleset import Ruleset

WIDTH = 72


# ------------------------------------------------------------------------------------------------
# small text helpers
# ------------------------------------------------------------------------------------------------

def wrap(text: str, indent: int = 0, hang: int = 2) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=" " * indent, subsequent_indent=" " * (indent + hang),
                         break_on_hyphens=False, break_long_words=False) or [""]


def turns(rounds: Iterable[int]) -> str:
    """[1, 2, 3] -> '1-3'; [4, 7, 10] -> '4, 7, 10'; [] -> 'any'."""
    rs = sorted(set(rounds))
    if not rs:
        return "any"
    parts, start = [], rs[0]
    for a, b in zip(rs, rs[1:] + [None]):
        if b != a + 1:
            parts.append(str(start) if start == a else f"{start}-{a}" if a > start + 1 else f"{start}, {a}")
            start = b
    return ", ".join(parts)


def _turn_word(rounds: Iterable[int]) -> str:
    rs = sorted(set(rounds))
    if not rs:
        return "any turn"
    return ("turn " if len(rs) == 1 else "turns ") + turns(rs)


def listing(rs: Ruleset, ids: Iterable[str], empty: str = "none") -> str:
    out = [rs.display(i) for i in ids]
    return ", ".join(out) if out else empty


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s" if not word.endswith("y") else f"{n} {word[:-1]}ies"


def _by_value(rs: Ruleset, table: Mapping[str, int]) -> str:
    """{area: points} -> '6 <area>; 4 <area>, <area>; 2 ...' (highest first, areas by name)."""
    groups: dict[int, list[str]] = {}
    for area, pts in table.items():
        groups.setdefault(pts, []).append(rs.display(area))
    return "; ".join(f"{pts} {', '.join(sorted(groups[pts]))}" for pts in sorted(groups, reverse=True))


def _label(rs: Ruleset, path: str) -> str:
    """A data path as words: timeline.rounds.7.leaders.1 -> 'turn 7, Urien'."""
    f, *rest = path.split(".")
    words: list[str] = []
    skip = {"land_areas", "ah", "points", "forces", "nations", "rounds", "order_of_play"}
    for i, p in enumerate(rest):
        prev = rest[i - 1] if i else ""
        if p.isdigit():
            n = int(p)
            if prev == "rounds":
                words.append(f"turn {n}")
            elif prev == "leaders" and i >= 2 and rest[i - 2] in rs.nations and n < len(rs.nations[rest[i - 2]].leaders):
                words[-1] = rs.nations[rest[i - 2]].leaders[n].name
            elif prev == "leaders" and i >= 2 and rest[i - 2].isdigit() and int(rest[i - 2]) in rs.rounds \
                    and n < len(rs.rounds[int(rest[i - 2])].leaders):
                words[-1] = rs.display(rs.rounds[int(rest[i - 2])].leaders[n][1])
            elif prev == "arrivals" and i >= 2 and rest[i - 2].isdigit():
                nat = _raw_get(rs, ["timeline", "rounds", int(rest[i - 2]), "arrivals", n, "nation"])
                if nat in rs.nations:
                    words[-1] = f"{rs.display(nat)} arrival"
            elif prev == "ah" and rest[0] == "order_of_play":
                words.append(f"{rs.display(rs.order_of_play[n])} in it" if n < len(rs.order_of_play) else p)
            continue
        if p in rs.areas or p in rs.seas or p in rs.nations or p in rs.leaders:
            words.append(rs.display(p))
        elif i == 0 and f == "map" and p == "seas":
            continue
        elif p in skip and not (p == "order_of_play"):
            continue
        else:
            words.append(p.replace("_", " "))
    if f == "victory_points" and words:
        words[0] = f"{words[0]} card"
    return ", ".join(words) if words else path


def _raw(rs: Ruleset) -> dict:
    key = (rs.id, rs.digest)
    if _RAW.get("key") != key:
        _RAW["key"], _RAW["tables"] = key, tables_for(rs)
    return _RAW["tables"]


_RAW: dict[str, Any] = {}


def _raw_get(rs: Ruleset, keys: list) -> Any:
    node: Any = _raw(rs)
    for k in keys:
        try:
            node = node[k]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _arrival_paths(rs: Ruleset, rnd: int, nation: str | None = None) -> list[str]:
    raw = _raw_get(rs, ["timeline", "rounds", rnd, "arrivals"]) or []
    return [f"timeline.rounds.{rnd}.arrivals.{i}" for i, a in enumerate(raw)
            if isinstance(a, Mapping) and (nation is None or a.get("nation") == nation)]


def _vp_group_paths(rs: Ruleset, nation: str, area: str) -> list[str]:
    """victory_points.nations.<n>.<hold|capture|limes>.<i>.points.<value> for the groups listing area."""
    out = []
    card = _raw_get(rs, ["victory_points", "nations", nation]) or {}
    for kind in ("hold", "capture", "limes"):
        for i, entry in enumerate(card.get(kind) or []):
            for value, areas in ((entry or {}).get("points") or {}).items():
                if area in (areas or []):
                    out.append(f"victory_points.nations.{nation}.{kind}.{i}.points.{value}")
    return out


def doubt_lines(rs: Ruleset, paths: Iterable[str], *, skip: Iterable[str] = (), about: str = "") -> list[str]:
    """'doubt' / 'settled' lines for everything shown (data paths), numbered doubts first.

    `about`: an area id; inline notes on victory-point groups are then shown only when they name it
    (a note on a group of areas is about one of them)."""
    paths = list(paths)
    skip = list(skip)
    out: list[str] = []
    for d in rs.doubts_about(paths):
        if d.get("status") == "settled":
            continue
        out += wrap(f"doubt {d['n']}: {d.get('short') or d['resolution']}")
    seen = set()
    for path, text, settled in rs.doubt_notes(paths):
        if any(path.startswith(s) for s in skip):
            continue
        if about and path.startswith("victory_points.nations.") and ".points." in path:
            names_ = {about.replace("_", " "), rs.display(about).casefold()}
            if not any(n in text.casefold() for n in names_):
                continue
        line = (f"settled ({_label(rs, path)}): {settled}" if settled
                else f"doubt ({_label(rs, path)}): {text}")
        if line not in seen:
            seen.add(line)
            out += wrap(line)
    return out


# What the short source names in the doubts stand for (the data files' headers say more).
SOURCES = (
    ("the rules text, seed 001, S001", "the classic Avalon Hill rulebook (PBEM edition) this ruleset "
     "implements; rule numbers such as 8.2 are its sections"),
    ("FFG", "Fantasy Flight Games, publisher of the later 2nd edition of Britannia; its board, "
     "timeline and point values differ from the classic game in places"),
    ("seed 000, S000", "the FFG 2nd edition rulebook (in Russian), used only where the classic text "
     "is silent"),
    ("A, B, C", "three open-source computer versions of the game whose data we compared: A (a board-game "
     "web app) and C (a tracing of the board) follow the FFG board, B (a Java program) mostly FFG data"),
    ("E", "FFG's article on how its 2nd edition differs from the original editions"),
    ("E2, UH", "a hobbyist write-up of the classic game (E2) and a rules summary of the FFG edition (UH)"),
)


def sources_lines() -> list[str]:
    body: list[str] = []
    for tag, what in SOURCES:
        body += wrap(f"{tag}: {what}.", 2, 4)
    return body


def _section(lines: list[str], title: str, body: list[str]) -> None:
    if body:
        lines.append("")
        lines.append(title)
        lines.extend(body)


# ------------------------------------------------------------------------------------------------
# the views
# ------------------------------------------------------------------------------------------------

def versions_text(rs: Ruleset) -> str:
    """The earlier data versions a game created with them still plays ('' when there are none)."""
    from pbem.data.loader import data_versions, raw_tables

    _, versions = data_versions(raw_tables(rs.id), rs.id)
    earlier = [f"{n}: {v['note']}" for n, v in sorted(versions.items()) if n != rs.data_version]
    if not earlier:
        return ""
    return ("Earlier data versions (a game keeps the rules it was created with; --data-version N shows them): "
            + "; ".join(earlier) + ".")


def summary_text(rs: Ruleset) -> list[str]:
    lines = [*wrap(rs.name, hang=0), *rs.header().splitlines()]
    for extra in (rs.version_line(), versions_text(rs)):   # a game keeps the rules it was created with
        lines += wrap(extra, hang=2) if extra else []
    a = rs.areas.values()
    counts = Counter(x.region for x in a)   # the board's regions as its data names them (Duel adds Ireland)
    first = [r for r in ("wales", "scotland", "england") if r in counts]
    regions = ", ".join(f"{r.replace('_', ' ').title()} {counts[r]}" for r in first + sorted(set(counts) - set(first)))
    straits = sum(len(x.straits) for x in a) // 2
    hiland = sum(x.hiland for x in a)
    lines.append("")
    lines += wrap(f"Map: {len(rs.areas)} land areas ({regions}), {hiland} hiland, {len(rs.areas) - hiland} clear; "
                  f"{len(rs.seas)} seas; {straits} straits. {rs.const.max_rounds} turns.")

    body = []
    n = len(rs.order_of_play)
    half = (n + 1) // 2
    cells = [f"{i + 1:>3} {rs.nations[nid].name} ({rs.nations[nid].code})" for i, nid in enumerate(rs.order_of_play)]
    for i in range(half):
        left = cells[i]
        right = cells[i + half] if i + half < n else ""
        body.append(f"{left:<36}{right}".rstrip())
    _section(lines, "Order of play (4.0):", body)

    sc = rs.scoring
    aw = sc["awards"]
    body = wrap(f"Holding: end of turns {turns(sc['hold_rounds'])} (14.2).", 2)
    if sc["limes_round"]:   # a ruleset without a Limes (docs/RULESETS.md) has none
        body += wrap(f"Roman Limes: end of turn {sc['limes_round']} (14.4).", 2)
    # PROVISIONAL values (no reachable source) stay marked until a game overrides them
    prov = {p for p in sc.get("provisional") or () if f"ruleset.scoring.{p}" not in rs.overrides}

    def pts(key: str) -> str:
        return f"{aw[key]} points" + (" (PROVISIONAL)" if f"awards.{key}" in prov else "")

    if not (sc["bretwalda_rounds"] or sc["king_rounds"]):   # a ruleset without Bretwalda or King
        pass
    elif sc.get("crowns_at_end"):   # scoring.crowns_at_end: judged at the end of the round, no Bretwalda in a King round
        late = 1 if sc.get("crowns_played_next_round") else 0   # ffg2 data version 1: at the next turn's start
        when = ", judged at the start of the next turn" if late else ", after the holdings"
        body += wrap(f"Bretwalda: {pts('bretwalda')}; vote at the end of turns "
                     f"{turns(r - late for r in sc['bretwalda_rounds'])}{when}.", 2)
        body += wrap(f"King: {pts('king')} and an army; end of turns {turns(r - late for r in sc['king_rounds'])}{when}.", 2)
    else:
        no_king = [r for r in sc["king_rounds"] if r not in sc["bretwalda_rounds"]]
        body += wrap(f"Bretwalda: {pts('bretwalda')}; vote at the start of turns {turns(sc['bretwalda_rounds'])}"
                     + (f", and {turns(no_king)} when there is no King" if no_king else "") + " (12.1, 12.2).", 2)
        body += wrap(f"King: {pts('king')} and an army; start of turns {turns(sc['king_rounds'])} (12.3).", 2)
    if "canute_king" in aw:
        body += wrap(f"Canute: {pts('canute_king')} at the end of the Danish turn "
                     f"{rs.rules.withdrawal_round(rs)} (12.4).", 2)
    k16 = ", ".join(f"{rs.display(n)} {v}" for n, v in sc["king_turn16"].items())
    body += [] if not k16 else wrap(f"King in turn {rs.const.max_rounds}: {k16}" + (" (PROVISIONAL)" if "king_turn16" in prov else "")
                 + " (12.5).", 2)
    _section(lines, "Scoring:", body)

    sub = rs.submission
    body = wrap(f"To Rome, when holding {'at most' if sub.get('at_most') else 'fewer than'}: " + ", ".join(
        f"{rs.display(n)} {v}" for n, v in sub["to_romans"].items()) + " areas (11.1)"
        + "".join(f"; the {rs.display(n)} only in turn {', '.join(map(str, r))}" for n, r in sub.get("rounds", {}).items())
        + (f"; declared only during the {rs.display(rs.role('empire'))}' turn, while their armies are on the board"
           if sub.get("in_overlord_turn") else "")
        + "".join(f"; {rs.display(n)} submission: {p} points to Rome" for n, p in sub.get("points", {}).items())
        + "".join(f"; the {rs.display(n)} revolt at the start of their turn {r}" for n, r in sub.get("revolt", {}).items())
        + ".", 2)
    for nid, v in (sub.get("to_angles") or {}).items():
        where = " plus ".join([*(r.capitalize() for r in v.get("count_in", [])), *(rs.display(a) for a in v.get("plus", []))])
        body += wrap(f"To the {rs.display(rs.role('overlord'))}: {rs.display(nid)} holding fewer than {v['fewer_than']} areas in {where} (11.2).", 2)
    _section(lines, "Submission:", body if sub.get("to_romans") or sub.get("to_angles") else [])

    body = []
    for players in sorted(rs.control, key=lambda p: (p != 4, p)):
        provisional = [d for d in rs.doubts_about([f"ruleset.control.{players}"]) if d.get("status") != "settled"]
        tag = f" (doubt {', '.join(str(d['n']) for d in provisional)}: provisional)" if provisional else ""
        body.append(f"  {players} players{tag}:")
        for colour, ns in rs.control[players].items():
            body += wrap(f"{colour}: {listing(rs, ns)}", 4, 4)
    _section(lines, "Control of nations (13.0):", body)
    _section(lines, "Optional rules (16.0; game.yaml options: <name>: true):", optional_rule_lines(rs))

    body = []
    for d in rs.doubts:
        body += wrap(f"{d['n']} [{d.get('status', 'open')}] {d['topic']}: {d['resolution']}", 2, 4)
    _section(lines, "Doubts (settled = the rules text decides; partly; open):", body)
    _section(lines, "Sources named in the doubts:", sources_lines())
    body = []
    for d in _raw(rs)["ruleset"].get("differences") or ():
        body += wrap(f"{d['n']} [{d['status']}] {d['topic']}: {d['how']}", 2, 4)
    if body:
        body = [*wrap("done = played by the engine; data = in the tables; doubt = a reading above; "
                      "partly = said which part; not yet = the classic rule stays", 2), *body]
        _section(lines, "Differences from the classic rules:", body)
    return lines


def _scores_at(rs: Ruleset, area: str) -> list[str]:
    """Every nation's hold / capture / Limes values for an area."""
    out = []
    hold_rounds = list(rs.scoring["hold_rounds"])
    for nid in rs.order_of_play:
        card = rs.vp.get(nid)
        if card is None:
            continue
        parts = []
        by_pts: dict[int, list[int]] = {}
        for occasion, table in card.hold.items():
            if area in table:
                by_pts.setdefault(table[area], []).append(hold_rounds[occasion - 1])
        if by_pts:
            parts.append("hold " + "; ".join(f"{p} ({_turn_word(r)})" for p, r in sorted(by_pts.items(), key=lambda x: min(x[1]))))
        caps = [(rounds, table[area]) for rounds, table in card.capture if area in table]
        if caps:
            parts.append("capture " + "; ".join(f"{p} ({_turn_word(r)})" for r, p in caps))
        if area in card.limes:
            parts.append(f"Limes {card.limes[area]} (end of turn {rs.scoring['limes_round']})")
        if parts:
            out += wrap(f"{rs.display(nid)}: " + ", ".join(parts), 2, 4)
    return out


def _sea_arrivals(rs: Ruleset, sea: str) -> list[str]:
    out = []
    for r, info in rs.rounds.items():
        for a in info.arrivals:
            if a.sea == sea:
                out.append(f"{r}: {rs.display(a.nation)} {a.armies + a.cavalry}" + (" raiders" if a.raider else ""))
    return out


def _arrival_nations(rs: Ruleset) -> list[str]:
    """Nations that ever arrive from the sea (start at sea or a timeline arrival with a sea)."""
    at_sea = {n for n, nat in rs.nations.items() if any(p in rs.seas for p in nat.start)}
    at_sea |= {a.nation for info in rs.rounds.values() for a in info.arrivals if a.sea}
    return [n for n in rs.order_of_play if n in at_sea]


def area_text(rs: Ruleset, ident: str) -> list[str]:
    if ident in rs.seas:
        return sea_text(rs, ident)
    a = rs.areas[ident]
    lines = wrap(f"{a.name} ({a.id}): {a.region.capitalize()}, {a.terrain}, "
                 + ("coastal" if a.coastal else "inland"), hang=2)
    if a.aliases:
        lines += wrap("Also written: " + ", ".join(a.aliases))
    lines += wrap("Land neighbours: " + listing(rs, sorted(a.land, key=rs.display)))
    lines += wrap("Straits (5.15): " + listing(rs, sorted(a.straits, key=rs.display)))
    lines += wrap("Seas: " + listing(rs, sorted(a.seas, key=rs.display)))
    starts = [f"{rs.display(n)} {rs.nations[n].start[ident]}" for n in rs.order_of_play if ident in rs.nations[n].start]
    lines += wrap("Starting armies (3.0): " + (", ".join(starts) if starts else "none"))
    if a.coastal:
        who = _arrival_nations(rs)
        yes = [n for n in who if rs.nations[n].landing.areas is None or ident in rs.nations[n].landing.areas]
        yes = [n for n in yes if rs.nations[n].landing.from_seas is None or a.seas & rs.nations[n].landing.from_seas]
        no = [n for n in who if n not in yes]
        lines += wrap("May land here (7.4): " + listing(rs, yes))
        if no:
            lines += wrap("May not land here: " + listing(rs, no))
    scores = _scores_at(rs, ident)
    lines.append("Points here (hold = sole occupant at the end of the turn):")
    lines += scores or ["  none"]
    paths = [f"map.land_areas.{ident}"]
    for nid in rs.order_of_play:
        paths += _vp_group_paths(rs, nid, ident)
    dl = doubt_lines(rs, paths, about=ident)
    if dl:
        lines.append("")
        lines += dl
    return lines


def sea_text(rs: Ruleset, ident: str) -> list[str]:
    s = rs.seas[ident]
    lines = [f"{s.name} ({s.id}): sea"]
    if s.aliases:
        lines += wrap("Also written: " + ", ".join(s.aliases))
    lines += wrap("Neighbouring seas: " + listing(rs, sorted(s.seas, key=rs.display)))
    lines += wrap("Coast: " + listing(rs, sorted(s.coast, key=rs.display)))
    starts = [f"{rs.display(n)} {rs.nations[n].start[ident]}" for n in rs.order_of_play if ident in rs.nations[n].start]
    if starts:
        lines += wrap("At sea from the start (3.0): " + ", ".join(starts))
    only = [n for n in rs.order_of_play if rs.nations[n].landing.from_seas == frozenset({ident})]
    if only:
        lines += wrap("Land only from here, never to another sea: " + listing(rs, only))
    arr = _sea_arrivals(rs, ident)
    lines += wrap("Arrivals by turn: " + ("; ".join(arr) if arr else "none"))
    dl = doubt_lines(rs, [f"map.seas.{ident}"])
    if dl:
        lines.append("")
        lines += dl
    return lines


def _arrival_line(rs: Ruleset, a) -> str:
    units = []
    if a.armies:
        units.append(_plural(a.armies, "army"))
    if a.cavalry:
        units.append(f"{a.cavalry} cavalry")
    what = " and ".join(units)
    if a.sea is None:
        return f"{rs.display(a.nation)}: {what}, placed as population increase"
    return f"{rs.display(a.nation)}: {what}, {rs.display(a.sea)}, {'raiders' if a.raider else 'invaders'}"


def round_text(rs: Ruleset, rnd: int) -> list[str]:
    info = rs.rounds[rnd]
    sc = rs.scoring
    lines = [f"Turn {rnd} of {rs.const.max_rounds} ({info.years[0]}-{info.years[1]} AD)"]
    body = []
    if rnd == 1:
        for nid in rs.order_of_play:
            for place, count in rs.nations[nid].start.items():
                if place in rs.seas:
                    body += wrap(f"{rs.display(nid)}: {_plural(count, 'army')} in the {rs.display(place)} "
                                 "from the start (3.0)", 2, 4)
    for a in info.arrivals:
        body += wrap(_arrival_line(rs, a), 2, 4)
    _section(lines, "Arrivals (7.0):", body or ["  none"])

    facts = []
    facts += wrap("Major invasions (7.3): " + listing(rs, sorted(info.major_invasions, key=rs.order_of_play.index)))
    lds = []
    for nid, lid in info.leaders:
        ld = rs.leaders[lid]
        extra = []
        if ld.stays_until_end:
            extra.append("stays to the end")
        if ld.place_in:
            extra.append(f"only in {rs.display(ld.place_in)}")
        if ld.doubt:
            extra.append("doubt 6")
        lds.append(f"{ld.name} ({rs.display(nid)}{'; ' + '; '.join(extra) if extra else ''})")
    facts += wrap("Leaders (9.0): " + ("; ".join(lds) if lds else "none"))
    facts += wrap("Boats (5.4): " + listing(rs, sorted(info.boats, key=rs.order_of_play.index)))
    exempt = [n for n, w in rs.overpopulation_exempt.items() if w != "all" and rnd in w]
    if exempt:
        facts += wrap("No overpopulation limit (6.0): " + listing(rs, exempt))
    lines.append("")
    lines += facts

    body = []
    occasion = rs.hold_occasion(rnd)
    if occasion:
        body += wrap(f"Holding points at the end of the turn (occasion {occasion} of "
                     f"{len(sc['hold_rounds'])}, 14.2).", 2, 4)
    if rnd == sc["limes_round"]:
        body += wrap("Roman Limes points at the end of the turn (14.4).", 2, 4)
    if sc.get("crowns_at_end") and (rnd in sc["king_rounds"] or rnd in sc["bretwalda_rounds"]):
        what = "King check" if rnd in sc["king_rounds"] else "Bretwalda vote"
        pts = sc["awards"]["king" if rnd in sc["king_rounds"] else "bretwalda"]
        if sc.get("crowns_played_next_round"):   # ffg2 data version 1
            body += wrap(f"Start of the turn: the {what} of the end of turn {rnd - 1} ({pts} points).", 2, 4)
        else:   # scoring.crowns_at_end: step 2 of the end of the turn
            body += wrap(f"End of the turn, after the holdings: the {what} ({pts} points).", 2, 4)
    elif rnd in sc["king_rounds"]:
        body += wrap(f"Start of the turn: King check ({sc['awards']['king']} points and an army, 12.3); "
                     + ("and a " if rnd in sc["bretwalda_rounds"] else "if there is no King, a ")
                     + f"Bretwalda vote ({sc['awards']['bretwalda']} points, 12.1).", 2, 4)
    elif rnd in sc["bretwalda_rounds"]:
        body += wrap(f"Start of the turn: Bretwalda vote ({sc['awards']['bretwalda']} points, 12.1, 12.2).", 2, 4)
    withdrawal = rs.rules.withdrawal_round(rs)   # 10.6
    if "canute_king" in sc["awards"] and withdrawal and rnd == withdrawal:
        body += wrap(f"End of the Danish turn: Canute may become King ({sc['awards']['canute_king']} points, 12.4).", 2, 4)
    if rnd == rs.const.max_rounds:
        k16 = ", ".join(f"{rs.display(n)} {v}" for n, v in sc["king_turn16"].items())
        body += wrap(f"End of the turn: King among {listing(rs, sc['king_turn16_leaders'].values())} "
                     f"only ({k16}, 12.5).", 2, 4)
    caps = []
    for nid in rs.order_of_play:
        card = rs.vp.get(nid)
        if card and any(not rounds or rnd in rounds for rounds, _ in card.capture):
            caps.append(nid)
    if caps:
        body += wrap("Capture points this turn: " + listing(rs, caps) + ".", 2, 4)
    _section(lines, "Scoring:", body or ["  none"])

    _section(lines, f"Rules ({'seed 001' if rs.id == 'classic' else rs.id}) this turn:",
             [ln for note in info.notes for ln in wrap("- " + note, 2, 4)])
    t = f"timeline.rounds.{rnd}"
    paths = [f"{t}.years", f"{t}.major_invasions", f"{t}.boats", *_arrival_paths(rs, rnd)]
    paths += [f"{t}.leaders.{i}" for i, (_, lid) in enumerate(info.leaders) if rs.leaders[lid].doubt]
    if rnd == sc["limes_round"]:
        paths.append("victory_points.nations.romans.limes")
    if any(a.sea is None for a in info.arrivals) and rs.constants_list("south_of_york"):
        paths.append("ruleset.south_of_york")   # 10.5: where they enter if the nation is gone
    dl = doubt_lines(rs, paths)
    if dl:
        lines.append("")
        lines += dl
    return lines


def nation_text(rs: Ruleset, ident: str) -> list[str]:
    n = rs.nations[ident]
    total = len(rs.order_of_play)
    lines = wrap(f"{n.name} ({n.id}), code {n.code}, colour {n.colour} (4 players)")
    if n.aliases:
        lines += wrap("Also written: " + ", ".join(n.aliases))
    pos = n.order
    around = []
    if pos > 0:
        around.append(f"after the {rs.display(rs.order_of_play[pos - 1])}")
    if pos < total - 1:
        around.append(f"before the {rs.display(rs.order_of_play[pos + 1])}")
    lines += wrap(f"Order of play: {pos + 1} of {total}" + (f", {' and '.join(around)}" if around else "") + " (4.0)")
    pieces = [_plural(n.max_armies, "army")]
    if n.max_cavalry:
        pieces.append(f"{n.max_cavalry} cavalry")
    if n.max_forts:
        pieces.append(_plural(n.max_forts, "fort"))
    if n.max_burhs:
        pieces.append(_plural(n.max_burhs, "burh"))
    lines += wrap("Pieces: " + ", ".join(pieces))
    start = [f"{rs.display(p)}" + (f" {c}" if c != 1 else "") for p, c in n.start.items()]
    lines += wrap("Start (3.0): " + (", ".join(start) if start else "none"))
    if n.increases_population:
        pop = "increases (10.1)"
        since = rs.rules.successor_increase_from(rs) if ident == rs.role("successor") else None
        if since:
            pop = f"increases from turn {since} (10.5)"
    else:
        pop = "never increases (2.24)"
    ex = rs.overpopulation_exempt.get(ident)
    if ex == "all":
        pop += "; no overpopulation limit (6.0)"
    elif ex:
        pop += f"; no overpopulation limit in {_turn_word(ex)} (6.0)"
    lines += wrap("Population: " + pop)
    land = n.landing
    if ident not in _arrival_nations(rs):
        landing = "none (never arrives from the sea)"
    elif land.areas is None and land.from_seas is None:
        landing = "anywhere"
    else:
        landing = ""
        if land.from_seas is not None:
            landing += f"from the {listing(rs, sorted(land.from_seas))} only"
        if land.areas is not None:
            landing += ("; " if landing else "") + "only in " + listing(rs, sorted(land.areas, key=rs.display))
    if not n.sea_moves:
        landing += "; never to another sea"
    lines += wrap("Landing (7.4): " + landing)
    arrivals = []
    for r, info in rs.rounds.items():
        for a in info.arrivals:
            if a.nation == ident:
                units = " + ".join(x for x in (str(a.armies) if a.armies else "", f"{a.cavalry} cavalry" if a.cavalry else "") if x)
                where = rs.display(a.sea) if a.sea else "as population"
                flag = ", raiders" if a.raider else ""
                major = ", major" if ident in info.major_invasions else ""
                arrivals.append(f"{r}: {units} ({where}{flag}{major})")
    if arrivals:
        lines += wrap("Arrivals by turn: " + "; ".join(arrivals))
    boats = [r for r, info in rs.rounds.items() if ident in info.boats]
    if boats:
        lines += wrap(f"Boats (5.4): {_turn_word(boats)}")
    lds = []
    for ld in n.leaders:
        extra = [f"turn {ld.round}"]
        if ld.stays_until_end:
            extra.append("to the end")
        if ld.place_in:
            extra.append(f"only in {rs.display(ld.place_in)}")
        if ld.doubt:
            extra.append("doubt 6")
        lds.append(f"{ld.name} ({', '.join(extra)})")
    lines += wrap("Leaders (9.0): " + ("; ".join(lds) if lds else "none"))
    ctl = [f"{p} players {table_colour}" for p in sorted(rs.control)
           for table_colour, ns in rs.control[p].items() if ident in ns]
    lines += wrap("Player colour (13.0): " + ", ".join(ctl))
    for note in n.notes:
        lines += wrap("- " + note, 0, 2)

    lines += ["", "Victory points (14.0):"]
    lines += card_lines(rs, ident)

    key = _order_key(rs)
    paths = [f"nations.order_of_play.{key}.{pos}"]
    paths += [f"nations.nations.{ident}.{k}" for k in ("name", "colour_4p", "forces")]
    if n.start:
        paths += [f"nations.nations.{ident}.start", f"ruleset.start.{ident}"]
    paths += [f"nations.nations.{ident}.leaders.{i}" for i, ld in enumerate(n.leaders) if ld.doubt]
    paths += [f"ruleset.landing.{ident}", f"ruleset.force_limits.{ident}", f"victory_points.nations.{ident}"]
    if ident in rs.submission.get("to_romans", {}) or ident in rs.submission.get("to_angles", {}):
        paths.append("ruleset.submission")
    paths += [f"ruleset.control.{p}" for p in rs.control]
    for r, info in rs.rounds.items():
        paths += _arrival_paths(rs, r, ident)
        paths += [f"timeline.rounds.{r}.{k}" for k, v in (("boats", info.boats), ("major_invasions", info.major_invasions))
                  if ident in v]
    if ident in rs.scoring.get("king_turn16", {}):
        paths.append("ruleset.scoring.king_turn16")
    if any(a.nation == ident and a.sea is None for info in rs.rounds.values() for a in info.arrivals):
        paths.append("ruleset.south_of_york")
    dl = doubt_lines(rs, paths)
    if dl:
        lines.append("")
        lines += dl
    return lines


def _order_key(rs: Ruleset) -> str:
    for d in rs.doubts:
        for ref in d.get("refs", ()):
            if ref.startswith("nations.order_of_play."):
                return ref.split(".")[2]
    return "ah"


def optional_rule_lines(rs: Ruleset) -> list[str]:
    """The ruleset's optional rules (in play or not, option name, what they do) and the variants it
    cannot play, with why."""
    body: list[str] = []
    for key, r in rs.optional_rules.items():
        state = "in play" if r["play"] else "not in play"
        body += wrap(f"{r['rule']} {r['name']} [{state}; option {key}]: {r['text']}", 2, 4)
    for r in rs.not_playable:
        body += wrap(f"{r['rule']} {r['name']} [not playable]: {r['why']}", 2, 4)
    return body


UNIT_OF_KIND = {"armies": "army", "cavalry": "cavalry unit"}


def kill_line(rs: Ruleset, k) -> str:
    """One kill line of a card (14.3): the points, per what, of whom, when (a card's own-turn marks: in whose turn)."""
    when = _turn_word(k.rounds)
    if k.own_turn_only:
        when += ", in its own turn only"
    if k.not_own_turn_rounds:
        when += f", not in its own turn {turns(k.not_own_turn_rounds)}"
    if k.kind in UNIT_OF_KIND:
        if k.of_attacking_subjects:
            whose = f"a nation subject to the {rs.display(rs.role('empire'))} that attacked them"
        elif k.of is None:
            whose = "any other nation"
        else:
            whose = listing(rs, sorted(k.of, key=rs.order_of_play.index))
        return f"Kill: {k.points} per {UNIT_OF_KIND[k.kind]} of {whose} ({when})"
    if k.kind == "roman_forts":
        return f"Kill: {k.points} per Roman fort ({when})"
    return f"Kill: {k.points} per leader {listing(rs, sorted(k.leaders, key=rs.display))} ({when})"


def card_lines(rs: Ruleset, ident: str) -> list[str]:
    card = rs.vp.get(ident)
    out: list[str] = []
    if card is None:
        return ["  none"]
    hold_rounds = list(rs.scoring["hold_rounds"])
    groups: list[tuple[list[int], Mapping[str, int]]] = []
    for occasion, table in card.hold.items():
        for g in groups:
            if dict(g[1]) == dict(table):
                g[0].append(hold_rounds[occasion - 1])
                break
        else:
            groups.append(([hold_rounds[occasion - 1]], table))
    for rounds, table in groups:
        out += wrap(f"Hold, end of {_turn_word(rounds)}: {_by_value(rs, table)}", 2, 4)
    for rounds, table in card.capture:
        out += wrap(f"Capture, {_turn_word(rounds)}: {_by_value(rs, table)}", 2, 4)
    if card.limes:
        out += wrap(f"Limes, end of turn {rs.scoring['limes_round']}: {_by_value(rs, card.limes)}", 2, 4)
    for k in card.kills:
        out += wrap(kill_line(rs, k), 2, 4)
    if ident in rs.scoring.get("king_turn16", {}):
        leader = rs.scoring.get("king_turn16_leaders", {}).get(ident)
        who = f" ({rs.display(leader)})" if leader else ""
        out += wrap(f"King in turn {rs.const.max_rounds}{who}: {rs.scoring['king_turn16'][ident]} (12.5)", 2, 4)
    return out or ["  none"]


# ------------------------------------------------------------------------------------------------
# click
# ------------------------------------------------------------------------------------------------

def _parse_overrides(items: tuple[str, ...]) -> dict[str, Any]:
    from ruamel.yaml import YAML

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{item!r}: write KEY=VALUE, e.g. ruleset.constants.move=3",
                                     param_hint="--override")
        try:
            out[key.strip()] = YAML(typ="safe").load(value) if value.strip() else None
        except Exception as e:   # noqa: BLE001 -- any YAML problem is a usage error
            raise click.BadParameter(f"{item!r}: the value is not YAML ({e})", param_hint="--override") from e
    try:
        json.dumps(out)
    except TypeError as e:
        raise click.BadParameter(f"values must be numbers, text, lists or maps ({e})", param_hint="--override") from e
    return out


@click.group()
def rules() -> None:
    """Look up the rules data (map, nations, timeline, victory points)."""


@rules.command()
@click.argument("ruleset_id", default="classic", metavar="[RULESET]")
@click.option("--area", "area", metavar="NAME", help="an area or sea: links, landing, points there")
@click.option("--round", "rnd", type=int, metavar="N", help="a turn: arrivals, leaders, boats, scoring")
@click.option("--nation", "nation", metavar="NAME", help="a nation: limits, start, leaders, its card")
@click.option("--override", "overrides", multiple=True, metavar="KEY=VALUE",
              help="a per-game data override (dotted key, YAML value); repeatable")
@click.option("--data-version", "data_version", type=int, metavar="N",
              help="the rules of an earlier data version (as a game created with it plays them)")
def show(ruleset_id: str, area: str | None, rnd: int | None, nation: str | None, overrides: tuple[str, ...],
         data_version: int | None = None) -> None:
    """Show the ruleset's data as text (default RULESET: classic)."""
    if ruleset_id not in known_rulesets():
        raise PbemError(f"unknown ruleset {ruleset_id!r}", hint=f"known: {', '.join(known_rulesets())}")
    rs = load(ruleset_id, _parse_overrides(overrides), data_version=data_version)
    parts: list[list[str]] = []
    if area is not None:
        parts.append(area_text(rs, names.resolve(rs, area, ("area", "sea"))))
    if rnd is not None:
        if rnd not in rs.rounds:
            raise PbemError(f"no turn {rnd}", hint=f"turns are 1 to {rs.const.max_rounds}")
        parts.append(round_text(rs, rnd))
    if nation is not None:
        parts.append(nation_text(rs, names.resolve(rs, nation, ("nation",))))
    if not parts:
        parts.append(summary_text(rs))
    else:
        if any("doubt" in line for p in parts for line in p):
            parts.append(["Sources named in doubts:", *sources_lines()])
        if overrides or rs.version_line():
            parts.insert(0, rs.header().splitlines() + ([rs.version_line()] if rs.version_line() else []))
    click.echo("\n\n".join("\n".join(cited(rs, p)) for p in parts))


def cited(rs: Ruleset, lines: list[str]) -> list[str]:
    """`lines` with their section numbers in the ruleset's own numbering (Rules.cite; issue 30 item 5),
    a line the longer citation pushes past WIDTH wrapped again at its indent."""
    out: list[str] = []
    for line in lines:
        new = rs.rules.cite(rs, line, bare=True)
        if new != line and len(new) > WIDTH:
            indent = len(new) - len(new.lstrip(" "))
            out += textwrap.wrap(new.strip(), WIDTH, initial_indent=" " * indent, subsequent_indent=" " * indent,
                                 break_on_hyphens=False, break_long_words=False)
        else:
            out.append(new)
    return out


@rules.command("check")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=str))
def check_cmd(folder: str) -> None:
    """Check a Duel board and player aid (DIR/board.yaml, DIR/aid.yaml; docs/DUEL-BOARD.md) against every
    fact the Duel rulebook states: one `FILE:LINE: message` per failure and exit 1, or an OK line."""
    from pbem.data import duel_check

    failures = duel_check.check_dir(folder)
    for failure in failures:
        click.echo(str(failure))
    if failures:
        click.echo(f"{len(failures)} failure(s): the board and aid in {folder} contradict the Duel rulebook "
                   "and are refused", err=True)
        raise SystemExit(1)
    status = duel_check.read_status(folder)
    click.echo(f"OK: {folder}/board.yaml and aid.yaml hold every fact the Duel rulebook states"
               + (" (PROVISIONAL data: not the printed board and aid)" if status else ""))
