"""Conformance cases (docs/CASES.md): a position, orders, scripted dice, and what must follow.

`run_case_file(path)` loads one case, plays the nation's turn from `start` to `stop` with the rules
core, and compares the outcome with `expect`. A malformed case is a CaseError naming file and key.

Round cases (CASES.md "Whole rounds") play the steps around the nations' turns: `start: round_start`
(the round's opening steps: Roman departure, Bretwalda/King, turn-16 reinforcements), `nation_turn`
(whole turns of the nations in `play`) or `end_of_round` (holdings, Limes, turn-16 King, game end),
and stop `after_round_start`, `end_of_turn` (of the last nation played) or `end_of_round`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from pbem.data.loader import load
from pbem.errors import CaseError, PbemError
from pbem.orders.names import NameProblem, resolve
from pbem.orders.parser import parse_message
from pbem.position.read import read_setup, read_state
from pbem.rules.dice import ScriptedDice, ScriptError
from pbem.rules.events import BattleRound, Eliminated, Event, Overpopulation
from pbem.rules.flow import ballots_from
from pbem.rules.orders import NationOrders
from pbem.rules.ruleset import Ruleset
from pbem.rules.scoring import winners
from pbem.rules.state import GameState, Stack
from pbem.rules.turn import (
    STARTS,
    STOPS,
    close_round,
    crowns_owed,
    end_round,
    new_game_state,
    next_nation_after,
    play_nation_turn,
    start_round,
)

TOP_KEYS = {"id", "rules", "cite", "round", "nation", "start", "stop", "setup", "state", "orders", "dice", "expect",
            "description", "notes", "play", "players", "options"}
EXPECT_KEYS = {"accepted", "rejected", "line", "map", "vp", "eliminated", "population", "bretwalda", "king",
               "game_over", "winner", "next", "battle_rounds", "message"}
ROUND_STARTS = ("round_start", "nation_turn", "end_of_round")
ROUND_STOPS = ("end_of_round", "after_round_start", "end_of_turn")


@dataclass
class CaseResult:
    id: str
    file: str
    passed: bool
    differences: list[str] = field(default_factory=list)

    def line(self) -> str:
        return f"PASS {self.id}" if self.passed else f"FAIL {self.id}: {'; '.join(self.differences)}"


class _Case:
    def __init__(self, path: Path, data: Any) -> None:
        self.path = str(path)
        if not isinstance(data, dict):
            raise CaseError(f"{self.path}: the case must be a mapping")
        self.data = data
        unknown = set(data) - TOP_KEYS
        if unknown:
            self.fail(sorted(unknown)[0], "unknown key")
        if "start" not in data and ("nation" in data or "play" in data):
            data["start"] = "nation_turn"
        self.whole_round = data.get("start") in ROUND_STARTS or "play" in data
        needed = ("id", "rules", "round", "start", "stop", "expect") + (() if self.whole_round else ("nation",))
        for key in needed:
            if key not in data:
                self.fail(key, "missing")
        rules = data["rules"]
        options = data.get("options") or []
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            self.fail("options", "must be a list of optional rule names (game.yaml options)")
        try:
            known = load(str(rules)).optional_rules
            self.rs: Ruleset = load(str(rules), {f"ruleset.optional_rules.{o}.play": True for o in options if o in known})
        except PbemError as e:
            self.fail("rules", str(e))
        for o in options:
            if o not in known:
                self.fail("options", f"{o!r} is not an optional rule of {rules} ({', '.join(known) or 'none'})")
        starts, stops = (ROUND_STARTS, ROUND_STOPS) if self.whole_round else (STARTS, STOPS)
        if data["start"] not in starts:
            self.fail("start", f"must be one of {', '.join(STARTS + ROUND_STARTS)}")
        if data["stop"] not in stops:
            self.fail("stop", f"must be one of {', '.join(stops)}" + ("" if self.whole_round else " (or a round case's stop)"))
        if not isinstance(data["round"], int) or not 1 <= data["round"] <= self.rs.const.max_rounds:
            self.fail("round", "must be a round number 1-16")
        self.nation = self.name(data["nation"], "nation", ("nation",)) if "nation" in data else None
        play = data.get("play", [self.nation] if self.nation and data["start"] == "nation_turn" else [])
        if not isinstance(play, list):
            self.fail("play", "must be a list of nations")
        self.play = [self.name(n, "play", ("nation",)) for n in play]
        if self.whole_round:
            if data["start"] == "end_of_round" and (self.play or data["stop"] != "end_of_round"):
                self.fail("start", "end_of_round plays no turns and stops at end_of_round")
            if data["stop"] == "end_of_turn" and not self.play:
                self.fail("stop", "end_of_turn needs the nations to play (play: [...])")
            if data["stop"] == "after_round_start" and (data["start"] != "round_start" or self.play):
                self.fail("stop", "after_round_start needs start: round_start and no play")
        self.players = data.get("players", 4)
        if self.players not in self.rs.control:
            self.fail("players", f"no control table for {self.players!r} players "
                                 f"(tables: {', '.join(str(k) for k in sorted(self.rs.control))})")

    def fail(self, key: str, msg: str):
        raise CaseError(f"{self.path}: {key}: {msg}")

    def name(self, text: Any, key: str, kinds=("area", "sea")) -> str:
        try:
            return resolve(self.rs, str(text), kinds)
        except NameProblem as e:
            self.fail(key, str(e))
            raise  # unreachable

    def setup(self) -> GameState:
        state = GameState(ruleset=self.rs.id, game=str(self.data["id"]), round=self.data["round"])
        setup = self.data.get("setup") or {}
        read_setup(self, setup, state)
        read_state(self, self.data.get("state"), state)
        if not setup and "setup" not in self.data:
            state = new_game_state(self.rs, str(self.data["id"]))
            state.round = self.data["round"]
        state.next_nation = self.nation
        return state

    def orders(self) -> tuple[dict[str, NationOrders], list]:
        out: dict[str, NationOrders] = {}
        problems = []
        for nat_name, text in (self.data.get("orders") or {}).items():
            nation = self.name(nat_name, f"orders.{nat_name}", ("nation",))
            parsed = parse_message(str(text), self.rs, default_nation=nation)
            merged = NationOrders(nation)
            for sec in parsed.sections:
                if sec.nation == nation:
                    merged.orders += sec.orders
            out[nation] = merged
            problems += [(nation, p) for p in parsed.problems]
        return out, problems

    def dice(self) -> ScriptedDice:
        script: dict[str, list] = {}
        for area_name, rounds in (self.data.get("dice") or {}).items():
            area = self.name(area_name, f"dice.{area_name}")
            if not isinstance(rounds, list):
                self.fail(f"dice.{area_name}", "must be a list of rounds")
            conv = []
            for i, rnd in enumerate(rounds):
                if not isinstance(rnd, dict):
                    self.fail(f"dice.{area_name}[{i}]", "must map nations to faces")
                conv.append({self.name(n, f"dice.{area_name}[{i}].{n}", ("nation",)): self._faces(f, f"dice.{area_name}[{i}].{n}")
                             for n, f in rnd.items()})
            script[area] = conv
        return ScriptedDice(script)

    def _faces(self, faces: Any, key: str):
        if isinstance(faces, list):
            if not all(isinstance(f, int) and 1 <= f <= 6 for f in faces):
                self.fail(key, "faces must be whole numbers 1-6")
            return list(faces)
        if isinstance(faces, dict):
            return {str(k): self._faces(v, f"{key}.{k}") for k, v in faces.items()}
        self.fail(key, "must be a list of faces or a split {vs-kind: [faces]}")


def load_case(path: Path) -> _Case:
    try:
        with open(path, encoding="utf-8") as f:
            data = YAML(typ="safe").load(f)
    except (OSError, YAMLError) as e:
        raise CaseError(f"{path}: cannot read: {e}") from e
    return _Case(path, data)


def run_case(case: _Case) -> CaseResult:
    data = case.data
    expect = data["expect"]
    if not isinstance(expect, dict):
        case.fail("expect", "must be a mapping")
    unknown = set(expect) - EXPECT_KEYS
    if unknown:
        case.fail(f"expect.{sorted(unknown)[0]}", "unknown key")
    state = case.setup()
    orders, parse_problems = case.orders()
    dice = case.dice()
    result = CaseResult(str(data["id"]), case.path, True)
    diffs = result.differences
    if case.whole_round and not parse_problems:
        try:
            outcome_state, events, problems = _play_round(case, state, orders, dice)
        except ScriptError as e:
            diffs.append(f"dice: {e}")
            result.passed = False
            return result
    elif parse_problems:
        problems = [p for _, p in parse_problems]
        outcome_state, events = state, []
    else:
        try:
            tr = play_nation_turn(case.rs, state, str(case.nation), orders, dice, start=data["start"], stop=data["stop"])
        except ScriptError as e:
            diffs.append(f"dice: {e}")
            result.passed = False
            return result
        problems = [p for p in tr.problems]
        outcome_state, events = tr.state, tr.events
    active_problems = [p for n, p in parse_problems if n == case.nation] if parse_problems else problems
    if "rejected" in expect:
        kind = expect["rejected"]
        if not problems:
            diffs.append(f"expected rejected: {kind}, but the orders were accepted")
        else:
            kinds = [p.kind for p in active_problems or problems]
            if kind not in kinds:
                diffs.append(f"expected rejected: {kind}, got {', '.join(f'{p.kind} (line {p.line}: {p.message})' for p in problems)}")
            elif "line" in expect:
                lines = [p.line for p in (active_problems or problems) if p.kind == kind]
                if expect["line"] not in lines:
                    diffs.append(f"expected {kind} on line {expect['line']}, got line(s) {lines}")
            if "message" in expect:
                said = [p.message for p in (active_problems or problems) if p.kind == kind]
                if not any(str(expect["message"]) in m for m in said):
                    diffs.append(f"expected a {kind} refusal saying {expect['message']!r}, got {said}")
        if outcome_state.to_dict() != state.to_dict():
            diffs.append("a rejected case must leave the state unchanged")
    else:
        want = expect.get("accepted", True)
        if want and problems:
            diffs.append("expected accepted, got " + "; ".join(p.describe() for p in problems))
        elif not want and not problems:
            diffs.append("expected not accepted")
    if "rejected" not in expect:
        if "unused" not in diffs:
            for u in dice.unused():
                diffs.append(f"dice not used: {u}")
        _compare_map(case, expect.get("map") or {}, outcome_state, diffs)
        for nat, v in (expect.get("vp") or {}).items():
            n = case.name(nat, f"expect.vp.{nat}", ("nation",))
            got = outcome_state.vp.get(n, 0)
            if got != v:
                diffs.append(f"vp {nat}: expected {v}, got {got}")
        for nat, v in (expect.get("population") or {}).items():
            n = case.name(nat, f"expect.population.{nat}", ("nation",))
            got = outcome_state.population.get(n, 0)
            if abs(got - float(v)) > 1e-9:
                diffs.append(f"population {nat}: expected {v}, got {got:g}")
        if "eliminated" in expect:
            lost = _eliminated(events)
            for nat, v in (expect.get("eliminated") or {}).items():
                n = case.name(nat, f"expect.eliminated.{nat}", ("nation",))
                if lost.get(n, 0) != v:
                    diffs.append(f"eliminated {nat}: expected {v}, got {lost.get(n, 0)}")
        if "battle_rounds" in expect:
            _compare_battle_rounds(case, expect["battle_rounds"], events, diffs)
        _compare_round(case, expect, outcome_state, diffs)
    result.passed = not diffs
    return result


def _play_round(case: _Case, state: GameState, orders: dict[str, NationOrders], dice) -> tuple[GameState, list, list]:
    """CASES.md "Whole rounds": the round's opening steps, the nations' whole turns, its closing steps.
    Illegal orders refuse the case (as in a nation-turn case): the state stays where it was."""
    rs, start, stop = case.rs, case.data["start"], case.data["stop"]
    original = state
    events: list[Event] = []
    if start == "round_start":
        state.next_nation = None
        state, evs = start_round(rs, state, ballots_from(orders))
        events += evs
    for nation in case.play:
        tr = play_nation_turn(rs, state, nation, orders, dice)
        if tr.problems:
            return original, [], tr.problems
        state, events = tr.state, events + tr.events
    if stop == "end_of_round":
        state, evs = end_round(rs, state)
        events += evs
        if crowns_owed(state):   # the ruleset's crowns at the round's end (flow.close_round), with the VOTE orders
            state, evs = close_round(rs, state, ballots_from(orders))
            events += evs
    return state, events, []


def _compare_round(case: _Case, expect: dict, state: GameState, diffs: list[str]) -> None:
    """expect.bretwalda / king / game_over / winner (CASES.md "Whole rounds")."""
    rs = case.rs
    if "bretwalda" in expect:
        want = expect["bretwalda"]
        want = None if want in (None, "none") else case.name(want, "expect.bretwalda", ("nation",))
        if state.bretwalda != want:
            diffs.append(f"bretwalda: expected {rs.display(want) if want else 'none'}, "
                         f"got {rs.display(state.bretwalda) if state.bretwalda else 'none'}")
    if "king" in expect:
        want = expect["king"]
        want = [] if want in (None, "none") else [want] if isinstance(want, str) else list(want)
        want_ids = sorted(case.name(k, "expect.king", ("nation",)) for k in want)
        if sorted(state.kings) != want_ids:
            diffs.append(f"king: expected {', '.join(rs.display(k) for k in want_ids) or 'none'}, "
                         f"got {', '.join(rs.display(k) for k in state.kings) or 'none'}")
    if "next" in expect:   # rule 4.0: the order of play, the nation whose turn follows (none: the round's end)
        want = expect["next"]
        want = None if want in (None, "none") else case.name(want, "expect.next", ("nation",))
        got = next_nation_after(rs, state, case.play[-1]) if case.play else state.next_nation
        if got != want:
            diffs.append(f"next: expected {rs.display(want) if want else 'none'}, "
                         f"got {rs.display(got) if got else 'none'}")
    if "game_over" in expect and bool(expect["game_over"]) != state.finished:
        diffs.append(f"game_over: expected {bool(expect['game_over'])}, got {state.finished}")
    if "winner" in expect:
        want = expect["winner"]
        want = sorted([want] if isinstance(want, str) else list(want or []))
        got = winners(rs, state.vp, case.players)
        if want != got:
            diffs.append(f"winner: expected {', '.join(want) or 'none'}, got {', '.join(got)}")


def _compare_battle_rounds(case: _Case, expected: Any, events: list[Event], diffs: list[str]) -> None:
    """CASES.md `expect.battle_rounds`: per battle area, each round's losses per side as the battle model
    gave them (kind -> count; a family's own kinds too, such as a wounded army that has not died)."""
    if not isinstance(expected, dict):
        case.fail("expect.battle_rounds", "must map battle areas to a list of rounds")
    for area_name, rounds in expected.items():
        area = case.name(area_name, f"expect.battle_rounds.{area_name}", ("area",))
        if not isinstance(rounds, list):
            case.fail(f"expect.battle_rounds.{area_name}", "must be a list: one entry per round")
        got = [{n: dict(v) for n, v in ev.losses.items() if v} for ev in events
               if isinstance(ev, BattleRound) and ev.area == area]
        want = []
        for i, r in enumerate(rounds):
            where = f"expect.battle_rounds.{area_name}.{i}"
            if not isinstance(r, dict):
                case.fail(where, "must map nations to their losses (kind: count)")
            want.append({case.name(n, f"{where}.{n}", ("nation",)): dict(v) for n, v in r.items() if v})
        if got != want:
            diffs.append(f"battle rounds in {area_name}: expected {want}, got {got}")


def _eliminated(events: list[Event]) -> Counter:
    lost: Counter = Counter()
    for ev in events:
        if isinstance(ev, Eliminated):
            lost[ev.nation] += sum(ev.losses.values())
        elif isinstance(ev, Overpopulation):
            lost[ev.nation] += sum(ev.removed.values())
    return lost


def _compare_map(case: _Case, expected: dict, state: GameState, diffs: list[str]) -> None:
    rs = case.rs
    for area_name, nations in expected.items():
        area = case.name(area_name, f"expect.map.{area_name}")
        want: dict[str, dict] = {}
        for nat_name, pieces in (nations or {}).items():
            n = case.name(nat_name, f"expect.map.{area_name}.{nat_name}", ("nation",))
            try:
                st = Stack.from_dict(pieces)
            except (ValueError, TypeError) as e:
                case.fail(f"expect.map.{area_name}.{nat_name}", str(e))
            st.leaders = sorted(case.name(x, f"expect.map.{area_name}.{nat_name}.leaders", ("leader",)) for x in st.leaders)
            want[n] = st.to_dict() if isinstance(st.to_dict(), dict) else {"armies": st.armies}
        got: dict[str, dict] = {}
        for n, st in state.areas.get(area, {}).items():
            if st.empty():
                continue
            s2 = Stack(st.armies, st.cavalry, st.raiders, st.fort, st.burhs, sorted(st.leaders))
            d = s2.to_dict()
            got[n] = d if isinstance(d, dict) else {"armies": d}
        if want != got:
            diffs.append(f"{rs.display(area)}: expected {_fmt(rs, want)}, got {_fmt(rs, got)}")


def _fmt(rs: Ruleset, d: dict) -> str:
    if not d:
        return "{}"
    return "{" + ", ".join(f"{rs.display(n)}: {v}" for n, v in sorted(d.items())) + "}"


def case_files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out += sorted(x for x in path.rglob("*.yaml") if x.is_file())
            out += sorted(x for x in path.rglob("*.yml") if x.is_file())
        elif path.is_file():
            out.append(path)
        else:
            raise CaseError(f"{p}: no such file or folder")
    return out


def run_paths(paths: list[str]) -> tuple[list[CaseResult], list[str]]:
    """Run every case under the paths; returns results and case-file errors (one line each)."""
    results: list[CaseResult] = []
    errors: list[str] = []
    for f in case_files(paths):
        try:
            results.append(run_case(load_case(f)))
        except PbemError as e:
            errors.append(f"ERROR {f}: {e}" if not str(e).startswith(str(f)) else f"ERROR {e}")
    return results, errors
