"""The facts of a turn report, as plain data (written as report.json, rendered as text).

Built from the events a step produced (rules core), the position after it, and the game's settings.
Every sentence is made here, so the text template and tools see the same facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.rules import legal
from pbem.rules.events import (
    Battle,
    BattleEnd,
    BattleRound,
    Event,
    FortBuilt,
    LeaderEntered,
    LeaderEscaped,
    LeaderKilled,
    Moved,
    Retreated,
    RetreatRefused,
    from_dicts,
    units,
)
from pbem.rules.flow import votes_owed
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState
from pbem.rules.turn import crowns_owed

REPORT_FORMAT = 1


def label_pattern(label: str) -> str:
    """`game/rR/nation/area/[cC/]bB/side/dI` -> the same with `b<round>/<side>/d<die>` for the last three
    parts (split on '/', so a nation or area whose name starts with 'b' cannot confuse it)."""
    parts = label.split("/")
    return "/".join(parts[:-3] + ["b<round>", "<side>", "d<die>"]) if len(parts) >= 4 else label


def _leaders_in(rs: Ruleset, area: str, events: Sequence[Event], state: GameState | None) -> set[str]:
    """Nations with a leader in the battle area (9.2: its bonus on the dice): one still there after the
    turn, or one that entered, moved in, was killed there or escaped from there this turn."""
    out = set()
    if state is not None:
        out |= {n for n, s in state.areas.get(area, {}).items() if s.leaders}
    for ev in events:
        if (isinstance(ev, (LeaderKilled, LeaderEntered, LeaderEscaped)) and ev.area == area) or (
                isinstance(ev, Moved) and ev.kind == "leader" and ev.path[-1] == area):
            out.add(ev.nation)
    return out


def _need(rs: Ruleset, area: str, roller: str, target: str, attacker: str, leader: bool,
          target_cavalry: bool, target_fort: bool = False, roller_cavalry: bool = False,
          roller_fort: bool = False, roller_armies: bool = True) -> str:
    """Rules 8.0, 9.2, 10.4 — what one die of `roller` needs, in words: the battle model's own
    statement (rs.rules.battle.die_text over its dice groups and hit numbers, as the engine rolls)."""
    return _die_text(rs, area, roller, target, attacker, _dice_of(rs, roller, leader, int(roller_armies),
                     int(roller_cavalry), int(roller_fort)), target_cavalry, target_fort)


def _dice_of(rs: Ruleset, nation: str, leader: bool, armies: int, cavalry: int, forts: int) -> tuple:
    """The battle model's dice groups of a side with these pieces (`forts`: the fort, or burhs)."""
    empire = nation == rs.role("empire")
    holds = rs.rules.holds_forts(rs, nation)     # the empire's fort (10.4), or any nation's the family lets
    return rs.rules.battle.dice_groups(rs, armies=armies, cavalry=cavalry, fort=forts if holds else 0,
                                       burhs=0 if holds else forts, leader=leader, roman=empire)


def _die_text(rs: Ruleset, area: str, roller: str, target: str, attacker: str, dice: tuple,
              target_cavalry: bool, target_fort: bool, target_armies: bool = True) -> str:
    """The model's words for the roller's `dice` against the kinds of pieces the target has."""
    kinds = {"roman_armies" if target == rs.role("empire") else "armies"} if target_armies else set()
    kinds |= {k for k, on in (("cavalry", target_cavalry), ("forts", target_fort)) if on}
    return rs.rules.battle.die_text(rs, area, roller == attacker, dice, kinds)


def _fort_note(rs: Ruleset, dice: tuple) -> str:
    """The fort's or burhs' dice come last (rule 8.0's order of dice); whether a leader's bonus reaches them."""
    last = [g for g in dice if g.piece in ("fort", "burhs")]
    if not last:
        return ""
    reached = all(g.piece in rs.rules.battle.bonus_pieces(rs) for g in last)
    return " (the last die is the fort's or burh's" + ("" if reached else ": no leader bonus") + ")"


def _pieces_left(rounds: Sequence[BattleRound], nation: str, kind: str, after: int) -> int:
    """What `nation` lost of `kind` in the rounds from `after` on (so had at least in that round)."""
    return sum(ev.losses.get(nation, {}).get(kind, 0) for ev in rounds[after:])


def _lost(losses: Mapping[str, int]) -> str:
    if not losses:
        return "nothing"
    parts = []
    for kind, n in losses.items():
        if kind == "forts":
            parts.append("the fort" if n == 1 else f"{n} forts and burhs")
        else:
            parts.append(units(n, kind))   # `1 army`, `3 armies`, `2 cavalry`
    return ", ".join(parts)


def rolled_label(label: str, generation: int = 0) -> str:
    """The label a die was really computed from: a turn played again after a rollback rolls under
    `<game>~g<N>/...` (pbem.log.adjudicate.GenerationDice) where its events name `<game>/...`."""
    if not generation or "/" not in label:
        return label
    head, rest = label.split("/", 1)
    return label if "~g" in head else f"{head}~g{generation}/{rest}"


def battles(rs: Ruleset, events: Sequence[Event], state: GameState | None = None, generation: int = 0) -> list[dict]:
    """Every battle of the step: each round's dice per side, what one die needed and why, what each
    side lost (rules 8.0, 9.2, 10.4), retreats, and the labels the dice were computed from (with the
    rollback `generation` the turn was played in, so the guide's dice check gives the faces shown)."""
    out: list[dict] = []
    cur: dict | None = None
    leaders: set[str] = set()
    built_after = 0
    rounds_of = _later_rounds(events)
    built = [(i, e.area) for i, e in enumerate(events) if isinstance(e, FortBuilt)]
    for at, ev in enumerate(events):
        if isinstance(ev, Battle):
            cur = {"area": ev.area, "area_name": rs.display(ev.area), "attacker": ev.attacker,
                   "defender": ev.defender, "attacker_name": rs.display(ev.attacker),
                   "defender_name": rs.display(ev.defender), "rounds": [], "notes": [], "outcome": "", "winner": None,
                   "result": "", "label_pattern": "", "explain": []}
            leaders = _leaders_in(rs, ev.area, events, state)
            # a fort built there after the battle (10.4: the area taken) did not fight in it
            built_after = sum(1 for i, a in built if i > at and a == ev.area)
            out.append(cur)
        elif cur is None:
            continue
        elif isinstance(ev, BattleRound):
            sides = []
            nations = list(ev.dice)
            later = rounds_of.get(id(ev), ())
            for nation, dice in ev.dice.items():
                if isinstance(dice, list):
                    faces = [d["face"] for d in dice]
                    labels = [rolled_label(d["label"], generation) for d in dice]
                else:
                    faces = [f for fs in dice.values() for f in fs]
                    labels = []
                other = next((n for n in nations if n != nation), "")
                losses = ev.losses.get(nation, {})
                lost = sum(losses.values())
                their = ev.losses.get(other, {})
                # the pieces each side rolled with, at least: what it lost from this round on and what
                # still stands in the area after the step (the round's events name only the dice)
                mine = state.get(cur["area"], nation) if state is not None else None
                theirs = state.get(cur["area"], other) if state is not None else None
                own_cav = _pieces_left(later, nation, "cavalry", 0) + (mine.cavalry if mine else 0)
                target_cav = bool(_pieces_left(later, other, "cavalry", 0) or (theirs and theirs.cavalry))
                # forts and burhs never retreat: what falls from this round on and what stands after is exact
                forts = {n: _pieces_left(later, n, "forts", 0) + max(0, _forts_after(state, cur["area"], n)
                            - (built_after if n == rs.role("empire") else 0)) for n in nations}
                target_armies = bool(_pieces_left(later, other, "armies", 0) or _pieces_left(later, other, "roman_armies", 0)
                                     or (theirs and theirs.armies) or not (forts.get(other) or target_cav))
                own_forts = min(forts[nation], len(faces))
                own_cav = min(own_cav, len(faces) - own_forts)
                dice_groups = _dice_of(rs, nation, nation in leaders, len(faces) - own_cav - own_forts, own_cav,
                                       own_forts)
                need = _die_text(rs, cur["area"], nation, other, cur["attacker"], dice_groups, target_cav,
                                 bool(forts.get(other)), target_armies)
                fort = _fort_note(rs, dice_groups)
                sides.append({"nation": nation, "name": rs.display(nation), "faces": faces, "labels": labels,
                              "lost": lost, "losses": losses, "need": need,
                              "text": f"{rs.display(nation)} roll {' '.join(map(str, faces))}, {need}{fort}: "
                                      f"{sum(their.values())} hit{'s' if sum(their.values()) != 1 else ''}, "
                                      f"the {rs.display(other)} lose {_lost(their)}"})
            cur["rounds"].append({"n": ev.battle_round, "sides": sides})
            first = next((sd["labels"][0] for sd in sides if sd["labels"]), "")
            if first and not cur.get("label_pattern"):
                # game/rR/nation/area/[cC/]bB/side/dI: the labels the dice secret is applied to
                cur["label_pattern"] = label_pattern(first)
        elif isinstance(ev, (Retreated, RetreatRefused, LeaderKilled, LeaderEscaped)) and ev.area == cur["area"]:
            cur["notes"].append(ev.describe(rs))
        elif isinstance(ev, BattleEnd):
            cur["outcome"] = ev.outcome
            cur["winner"] = ev.winner
            cur["winner_name"] = rs.display(ev.winner) if ev.winner else "nobody"
            if ev.outcome == "attacker retreated":
                cur["result"] = f"the {cur['attacker_name']} retreat"
            elif ev.winner:
                cur["result"] = f"the {cur['winner_name']} hold {cur['area_name']}"
            else:
                cur["result"] = "no one is left" if ev.outcome == "both destroyed" else ev.outcome
    return out


def _later_rounds(events: Sequence[Event]) -> dict[int, list[BattleRound]]:
    """For each battle round (by id): it and the later rounds of the same battle."""
    out: dict[int, list[BattleRound]] = {}
    battle: list[BattleRound] = []
    for ev in [*events, None]:
        if ev is None or isinstance(ev, (Battle, BattleEnd)):
            for i, r in enumerate(battle):
                out[id(r)] = battle[i:]
            battle = []
        elif isinstance(ev, BattleRound):
            battle.append(ev)
    return out


def _forts_after(state: GameState | None, area: str, nation: str) -> int:
    """Rule 10.4 — the nation's fort and burhs still standing in the area after the step."""
    s = state.get(area, nation) if state is not None else None
    return int(s.fort) + s.burhs if s else 0


def players_of(settings: Mapping[str, Any]) -> list[dict]:
    return [dict(p) for p in settings.get("players", []) or []]


def player_of(settings: Mapping[str, Any], nation: str | None) -> str | None:
    for p in players_of(settings):
        if nation in (p.get("nations") or []):
            return p.get("name")
    return None


def next_options(rs: Ruleset, state: GameState) -> list[str]:
    """What the next nation may do (a short summary for the report and prompt mails)."""
    nation = state.next_nation
    if state.finished:
        return []
    if nation is None:
        if votes_owed(rs, state):
            votes = legal.vote_options(rs, state)
            return ["Bretwalda vote owed by: " + (", ".join(f"{rs.display(n)} ({v})" for n, v in votes.items()) or "nobody"),
                    "send: VOTE <nation>"]
        if crowns_owed(state):
            return [f"the end of round {state.round}: its King, then the next round"]
        return ["the next round starts"]
    from pbem.report.prompt import turn_lines

    return turn_lines(rs, state, nation)


def scores(rs: Ruleset, state: GameState, settings: Mapping[str, Any]) -> tuple[list[dict], list[dict]]:
    by_nation = [{"nation": n, "name": rs.display(n), "vp": state.vp.get(n, 0), "player": player_of(settings, n)}
                 for n in rs.order_of_play]
    by_player = []
    for p in players_of(settings):
        nations = p.get("nations") or []
        by_player.append({"name": p.get("name"), "vp": sum(state.vp.get(n, 0) for n in nations),
                          "nations": [rs.display(n) for n in nations]})
    by_player.sort(key=lambda x: -x["vp"])
    return by_nation, by_player


def build_report(rs: Ruleset, state: GameState, events: Sequence[Event | Mapping[str, Any]], settings: Mapping[str, Any], *,
                 played: str | None, round_played: int, deadline: str | None = None,
                 waiting_for: Sequence[str] = (), ledger_from: int = 0,
                 nmr: Mapping[str, int] | None = None,
                 mail_lines: Mapping[str, Mapping[int, int]] | None = None,
                 played_by: str | None = None, dice_generation: int = 0) -> dict[str, Any]:
    """Everything a turn report says, as JSON-able data (report.json). `events` are the step's events,
    typed or as logged; each one's line of English is its own `describe` (pbem.rules.events).
    `mail_lines` (pbem.report.lines.mail_line_map): the order lines are named as in the mails;
    `played_by`: a sentence saying who gave the orders when no player did (the no-orders rule, the bot)."""
    from pbem.report.lines import renumbered

    events = renumbered(from_dicts(events), mail_lines)
    info = rs.round_info(min(round_played, rs.const.max_rounds))
    lines = [d for d in (ev.describe(rs) for ev in events) if d]
    gained = [dict(e) for e in state.ledger[ledger_from:]]
    by_nation, by_player = scores(rs, state, settings)
    nxt = state.next_nation
    nxt_player = player_of(settings, nxt)
    if nxt:
        next_line = f"the {rs.display(nxt)}" + (f" ({nxt_player})" if nxt_player else "") + f", round {state.round}"
    elif crowns_owed(state):   # the ruleset crowns at the round's end: that step comes first
        next_line = f"the end of round {state.round}: its Bretwalda or King, then round {state.round + 1}"
    else:
        next_line = f"the start of round {state.round}"
    return {
        "format": REPORT_FORMAT,
        "game": settings.get("id", state.game),
        "ruleset": {"id": rs.id, "name": rs.name, "data_version": rs.data_version, "overrides": list(rs.overrides)},
        "round": round_played,
        "title": f"[{settings.get('id', state.game)}] Round {round_played} ({info.years[0]}-{info.years[1]} AD)"
                 + (f": the {rs.display(played)} have played" if played else ""),
        "years": list(info.years),
        "played": played,
        "played_name": rs.display(played) if played else None,
        "played_by": played_by,
        "events": lines,
        "battles": battles(rs, events, state, dice_generation),
        "battle_rules": rs.rules.battle.legend(rs),
        "vp_gained": [{**g, "name": rs.display(g["nation"])} for g in gained],
        "scores": by_nation,
        "players": by_player,
        "next": {"nation": state.next_nation, "name": rs.display(state.next_nation) if state.next_nation else None,
                 "player": nxt_player, "round": state.round, "deadline": deadline, "line": next_line},
        "waiting_for": list(waiting_for),
        "nmr": dict(sorted((nmr or {}).items())),
        "next_options": next_options(rs, state),
        "finished": state.finished,
        "dice_commitment": (settings.get("dice") or {}).get("commitment"),
        "raw_events": [e.to_dict() for e in events],
    }
