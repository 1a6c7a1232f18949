"""The facts of a turn report, as plain data (written as report.json, rendered as text).

Built from the events a step produced (rules core), the position after it, and the game's settings.
Every sentence is made here, so the text template and tools see the same facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.rules import legal
from pbem.rules.flow import votes_owed
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState

REPORT_FORMAT = 1


def _n(rs: Ruleset, ident: str | None) -> str:
    return rs.display(ident) if ident else "nobody"


def _units(count: int, kind: str) -> str:
    if kind == "cavalry":
        return f"{count} cavalry"
    return f"{count} {'army' if count == 1 else 'armies'}"


def describe(rs: Ruleset, ev: Mapping[str, Any]) -> str | None:
    """One line of English for an event (None for events shown elsewhere or not at all)."""
    t = ev["type"]
    n = _n(rs, ev.get("nation"))
    if t == "moved":
        what = _n(rs, ev.get("leader")) if ev["kind"] == "leader" else _units(ev["count"], ev["kind"])
        raid = f" ({ev['raiders']} raiders)" if ev.get("raiders") else ""
        cyc = " [second movement]" if ev.get("cycle") == 2 else ""
        return f"{n}: {what}{raid} {' -> '.join(rs.display(p) for p in ev['path'])}{cyc}"
    if t == "order_dropped":
        return f"{n}: order refused, line {ev['line']} \"{ev['text']}\": {ev['message']}"
    if t == "order_unused":
        return f"{n}: no effect, line {ev['line']} \"{ev['text']}\": {ev['reason']}"
    if t == "arrived":
        return f"{n}: {ev['armies']} {'raiders' if ev.get('raiders') else 'invaders'} appear in the {rs.display(ev['sea'])}"
    if t == "reinforced":
        where = rs.display(ev["sea"]) if ev.get("sea") else ", ".join(rs.display(a) for a in ev.get("areas", []))
        what = _units(ev["armies"], "armies") if "armies" in ev else _units(ev.get("cavalry", 0), "cavalry")
        return f"{n}: {what} reinforce in {where}"
    if t == "population":
        return (f"{n}: population count {ev['count']:g} (saved {ev['saved_before']:g}) gives {ev['new_armies']} new "
                f"{'army' if ev['new_armies'] == 1 else 'armies'}, {ev['saved']:g} saved")
    if t == "placed":
        return f"{n}: new armies placed in {', '.join(rs.display(a) for a in ev['areas'])}"
    if t == "leader_entered":
        return f"{n}: {rs.display(ev['leader'])} enters in {rs.display(ev['area'])}"
    if t == "leader_left":
        return f"{n}: {rs.display(ev['leader'])} leaves the board"
    if t == "leader_killed":
        return f"{rs.display(ev['leader'])} ({n}) is killed in {rs.display(ev['area'])}"
    if t == "fort_built":
        return f"Romans build a fort in {rs.display(ev['area'])}"
    if t == "retreated":
        return f"{n} ({ev['side']}) retreat {ev['count']} from {rs.display(ev['area'])} to {rs.display(ev['to'])}"
    if t == "retreat_refused":
        return f"{n} cannot retreat from {rs.display(ev['area'])} to {rs.display(ev['to'])}: {ev['reason']}; they fight on"
    if t == "withdrew":
        return f"{n}: {ev['armies']} raiders withdraw from {rs.display(ev['area'])} to the {rs.display(ev['sea'])}"
    if t == "settled":
        return f"{n}: {ev['armies']} raiders settle in {rs.display(ev['area'])}"
    if t == "raid_points_lost":
        return f"{n}: raid points in {rs.display(ev['area'])} lost (raiders stayed ashore, rule 7.13)"
    if t == "overpopulation":
        return f"{n}: overpopulation removes " + ", ".join(f"{k} in {rs.display(a)}" for a, k in ev["removed"].items())
    if t == "allowed":
        return f"Romans allow the {n} to increase population this turn (rule 11.1)"
    if t == "submitted":
        return f"{n} submit to the {rs.display(ev['to'])}"
    if t == "romans_left":
        return "The Romans leave Britain; Romano-British armies replace them in " + (
            ", ".join(f"{rs.display(a)} ({k})" for a, k in ev["replaced"].items()) or "no area")
    if t == "king":
        return f"{n}: King of England" + (" (Canute)" if ev.get("canute") else "")
    if t == "bretwalda_vote":
        tally = ", ".join(f"{rs.display(k)} {v}" for k, v in sorted(ev["tally"].items(), key=lambda kv: -kv[1]))
        return f"Bretwalda vote: {tally or 'no votes'} -> {_n(rs, ev['winner']) if ev['winner'] else 'no majority'}"
    if t == "danes_withdrew":
        return "Danes withdraw " + ", ".join(f"{k} from {rs.display(a)}" for a, k in ev["removed"].items()) + " and Canute"
    if t == "subjection_ended":
        return f"{n}: subjection ends"
    if t == "game_over":
        return "The game is over."
    return None


def battles(rs: Ruleset, events: Sequence[Mapping[str, Any]]) -> list[dict]:
    out: list[dict] = []
    cur: dict | None = None
    for ev in events:
        t = ev["type"]
        if t == "battle":
            cur = {"area": ev["area"], "area_name": rs.display(ev["area"]), "attacker": ev["attacker"],
                   "defender": ev["defender"], "attacker_name": rs.display(ev["attacker"]),
                   "defender_name": rs.display(ev["defender"]), "rounds": [], "notes": [], "outcome": "", "winner": None, "result": "", "label_pattern": ""}
            out.append(cur)
        elif cur is None:
            continue
        elif t == "battle_round":
            sides = []
            for nation, dice in ev["dice"].items():
                if isinstance(dice, list):
                    faces = [d["face"] for d in dice]
                    labels = [d["label"] for d in dice]
                else:
                    faces = [f for fs in dice.values() for f in fs]
                    labels = []
                losses = ev["losses"].get(nation, {})
                lost = sum(losses.values())
                sides.append({"nation": nation, "name": rs.display(nation), "faces": faces, "labels": labels,
                              "lost": lost, "losses": losses,
                              "text": f"{rs.display(nation)} roll {' '.join(map(str, faces))} (lose {lost})"})
            cur["rounds"].append({"n": ev["battle_round"], "sides": sides})
            first = next((sd["labels"][0] for sd in sides if sd["labels"]), "")
            if first and not cur.get("label_pattern"):
                # game/rR/nation/area/[cC/]bB/side/dI: the labels the dice secret is applied to
                cur["label_pattern"] = first.rsplit("/b", 1)[0] + "/b<round>/<side>/d<die>"
        elif t in ("retreated", "retreat_refused", "leader_killed") and ev.get("area") == cur["area"]:
            cur["notes"].append(describe(rs, ev))
        elif t == "battle_end":
            cur["outcome"] = ev["outcome"]
            cur["winner"] = ev.get("winner")
            cur["winner_name"] = rs.display(ev["winner"]) if ev.get("winner") else "nobody"
            if ev["outcome"] == "attacker retreated":
                cur["result"] = f"the {cur['attacker_name']} retreat"
            elif ev.get("winner"):
                cur["result"] = f"the {cur['winner_name']} hold {cur['area_name']}"
            else:
                cur["result"] = "no one is left" if ev["outcome"] == "both destroyed" else ev["outcome"]
    return out


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
        return ["the next round starts"]
    lines = []
    places = legal.placement_options(rs, state, nation)
    if places:
        lines.append("new armies may go to: " + ", ".join(rs.display(a) for a in places))
    for g in legal.movement_options(rs, state, nation):
        what = rs.display(g.leader) if g.kind == "leader" else _units(g.count, g.kind)
        dests = ", ".join(rs.display(d) for d in sorted(g.destinations)) or "nowhere"
        lines.append(f"{what} in {rs.display(g.start)} can reach: {dests}")
    return lines


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


def build_report(rs: Ruleset, state: GameState, events: Sequence[Mapping[str, Any]], settings: Mapping[str, Any], *,
                 played: str | None, round_played: int, deadline: str | None = None,
                 waiting_for: Sequence[str] = (), ledger_from: int = 0,
                 nmr: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Everything a turn report says, as JSON-able data (report.json)."""
    info = rs.round_info(min(round_played, rs.c("max_rounds")))
    lines = [d for d in (describe(rs, ev) for ev in events if ev["type"] not in ("battle", "battle_round", "battle_end",
                                                                                 "eliminated", "scored"))
             if d]
    gained = [dict(e) for e in state.ledger[ledger_from:]]
    by_nation, by_player = scores(rs, state, settings)
    nxt = state.next_nation
    nxt_player = player_of(settings, nxt)
    if nxt:
        next_line = f"the {rs.display(nxt)}" + (f" ({nxt_player})" if nxt_player else "") + f", round {state.round}"
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
        "events": lines,
        "battles": battles(rs, events),
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
        "raw_events": [dict(e) for e in events],
    }
