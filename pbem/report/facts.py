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
from pbem.rules.odds import die_needs
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
    """Nations with a leader in the battle area (9.2: +1 on each army and cavalry die): one still there
    after the turn, or one that entered, moved in, or was killed there this turn."""
    out = set()
    if state is not None:
        out |= {n for n, s in state.areas.get(area, {}).items() if s.leaders}
    for ev in events:
        if (isinstance(ev, (LeaderKilled, LeaderEntered)) and ev.area == area) or (
                isinstance(ev, Moved) and ev.kind == "leader" and ev.path[-1] == area):
            out.add(ev.nation)
    return out


def _need(rs: Ruleset, area: str, roller: str, target: str, attacker: str, leader: bool,
          target_cavalry: bool, target_fort: bool = False, roller_cavalry: bool = False,
          roller_fort: bool = False) -> str:
    """Rules 8.0, 9.2, 10.4, FFG 25 — what one die of `roller` needs, in words, from the ruleset's hit
    numbers (rules.odds.die_needs: the engine's `hit_numbers`, so ffg2's 4 for Roman and cavalry dice)."""
    needs = die_needs(rs, area, defending=roller == attacker)
    soft, hard = needs.soft, needs.hard
    bonus = rs.const.leader_bonus if leader else 0
    roman = roller == rs.role("empire")
    fast = needs.fast < soft      # FFG 25: a Roman army's or a cavalry unit's die hits ordinary targets lower
    notes = []
    if target == rs.role("empire") and soft < hard:
        # 10.4: Roman armies die only to a 6; their fort (a 5 will do) only once they are gone
        soft_text = f"{needs.fast if fast and roman else soft}+"
        text = (f"kills Roman armies on {hard}, the fort on {soft_text} once they are gone" if target_fort
                else f"kills on {hard} (Roman armies)")
        return text + (f" (leader +{bonus} on army and cavalry dice)" if bonus else "")
    shown = needs.fast if fast and roman else soft
    text = f"kills on {shown}+" if shown < 6 else "kills on 6"
    if soft == hard and roller == attacker and rs.hiland(area):
        notes.append("defenders in hiland")
    if fast and roman and roller_fort:
        notes.append(f"the fort's die on {soft}+")
    if fast and not roman and roller_cavalry:
        notes.append(f"cavalry dice on {needs.fast}+")
    if soft < hard:
        hard_for = [w for w, on in (("Roman armies", target == rs.role("empire")), ("cavalry", target_cavalry)) if on]
        if hard_for:
            notes.append(f"{hard} against {' and '.join(hard_for)}")
    if bonus:
        notes.append(f"leader +{bonus} on army and cavalry dice")
    return text + (f" ({'; '.join(notes)})" if notes else "")


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
    for ev in events:
        if isinstance(ev, Battle):
            cur = {"area": ev.area, "area_name": rs.display(ev.area), "attacker": ev.attacker,
                   "defender": ev.defender, "attacker_name": rs.display(ev.attacker),
                   "defender_name": rs.display(ev.defender), "rounds": [], "notes": [], "outcome": "", "winner": None,
                   "result": "", "label_pattern": "", "explain": []}
            leaders = _leaders_in(rs, ev.area, events, state)
            out.append(cur)
        elif cur is None:
            continue
        elif isinstance(ev, BattleRound):
            sides = []
            nations = list(ev.dice)
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
                target_cav = bool(their.get("cavalry")) or bool(
                    state is not None and (state.get(cur["area"], other) or None) and state.get(cur["area"], other).cavalry)
                forts = {n: n == cur["defender"] and _has_fort(n, events, state, cur["area"]) for n in nations}
                mine = state.get(cur["area"], nation) if state is not None else None
                own_cav = bool(losses.get("cavalry")) or bool(mine and mine.cavalry)
                need = _need(rs, cur["area"], nation, other, cur["attacker"], nation in leaders, target_cav,
                             forts.get(other, False), own_cav, forts[nation])
                fort = " (the last die is the fort's or burh's: no leader bonus)" if forts[nation] else ""
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


def _has_fort(nation: str, events: Sequence[Event], state: GameState | None, area: str) -> bool:
    """Rule 10.4 — a fort (or burh) defended in this battle: it fell (a 'forts' loss) or still stands."""
    if any(isinstance(e, BattleRound) and e.area == area and e.losses.get(nation, {}).get("forts") for e in events):
        return True
    s = state.get(area, nation) if state is not None else None
    return bool(s and (s.fort or s.burhs))


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
            return [f"the end of round {state.round}: its King (FFG 56), then the next round"]
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
    elif crowns_owed(state):   # FFG 56: the round's end, step 2 (its crowns), comes first
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
