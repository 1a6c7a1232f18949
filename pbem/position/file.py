"""A position file: read (YAML with line numbers), turned into a GameState with the shared reader, and
checked against the ruleset. Problems name the file and line: `pos.yaml:12: setup.Essex.Saxons: ...`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedBase
from ruamel.yaml.error import YAMLError

from pbem.data.loader import load
from pbem.errors import PbemError, PositionError
from pbem.orders.names import NameProblem, resolve
from pbem.position.check import STARTS, Finding, check_position
from pbem.position.read import STATE_KEYS, plain, read_setup, read_state
from pbem.position.write import FORMAT, NOT_IN_STATE
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState
from pbem.yaml_limits import bracket_depth

TOP_KEYS = ("format", "rules", "game", "round", "nation", "start", "setup", "state", "description", "notes")
# fields of the position beyond the known records (added by later versions) are read as they are
RAW_STATE_KEYS = tuple(k for k in GameState().to_dict() if k not in NOT_IN_STATE and k not in STATE_KEYS)
IMPORTED = "imported"   # the kind of the ledger entries holding the VP scored before the import


@dataclass
class Position:
    state: GameState
    start: str                       # round_start | nation_turn | end_of_round
    warnings: list[str] = field(default_factory=list)
    text: str = ""


def line_of(data: Any, key: str) -> int | None:
    """The 1-based line of a dotted key (`setup.North Sea.Danes`) in a ruamel round-trip tree: the deepest
    part of the key that exists. Keys may hold dots themselves, so the longest matching part wins."""
    parts = key.split(".")
    node, line = data, None
    i = 0
    while i < len(parts) and isinstance(node, CommentedBase) and isinstance(node, dict):
        for j in range(len(parts), i, -1):
            k = ".".join(parts[i:j])
            match = next((x for x in node if str(x) == k), None)
            if match is not None:
                line = node.lc.key(match)[0] + 1
                node = node[match]
                i = j
                break
        else:
            break
    return line


class _File:
    """The Source of pbem.position.read for a position file: names resolved, failures with the line."""

    def __init__(self, label: str, data: Any, rs: Ruleset) -> None:
        self.label = label
        self.data = data
        self.rs = rs

    def where(self, key: str) -> str:
        line = line_of(self.data, key)
        return f"{self.label}:{line}" if line else self.label

    def fail(self, key: str, msg: str) -> NoReturn:
        raise PositionError(f"{self.where(key)}: {key}: {msg}")

    def name(self, text: Any, key: str, kinds: tuple[str, ...] = ("area", "sea")) -> str:
        try:
            return resolve(self.rs, str(text), kinds)
        except NameProblem as e:
            self.fail(key, e.message + (f" ({e.hint})" if e.hint else ""))


MAX_DEPTH = 32
"""Deepest `[`/`{` nesting read (a position needs 3; the YAML reader takes seconds on thousands)."""
MAX_SIZE = 1024 * 1024



def parse_text(text: str, label: str = "position") -> Any:
    if len(text) > MAX_SIZE:
        raise PositionError(f"{label}: too long for a position ({len(text)} characters; at most {MAX_SIZE})")
    if bracket_depth(text) > MAX_DEPTH:
        raise PositionError(f"{label}: nested deeper than a position can be (more than {MAX_DEPTH} brackets)")
    try:
        data = YAML().load(text)
    except YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{label}:{mark.line + 1}" if mark is not None else label
        raise PositionError(f"{where}: not YAML: {getattr(e, 'problem', None) or e}") from e
    except RecursionError as e:
        raise PositionError(f"{label}: nested deeper than a position can be") from e
    except (ValueError, OverflowError) as e:   # e.g. a number of 4 301 digits, past Python's int() limit
        raise PositionError(f"{label}: a value cannot be read (a number too long, or a date that is no date)",
                            hint="numbers in a position are small whole numbers") from e
    except Exception as e:  # noqa: BLE001 - the YAML reader's own errors on odd input (a mapping as a key: TypeError)
        raise PositionError(f"{label}: not a YAML file pbem can read (e.g. a key that is itself a list or mapping)",
                            hint="docs/POSITIONS.md describes the format") from e
    if not isinstance(data, dict):
        raise PositionError(f"{label}: a position is a mapping (round, nation, setup, state)")
    return data


def read_position(text: str, *, label: str = "position", ruleset: str | Ruleset = "classic",
                  game: str = "game") -> Position:
    """Read and check a position; raises PositionError listing every error (with its line)."""
    data = parse_text(text, label)
    if isinstance(ruleset, str):
        try:
            rs = load(ruleset)
        except PbemError as e:
            raise PositionError(f"ruleset {ruleset!r}: {e}") from e
    else:
        rs = ruleset
    src = _File(label, data, rs)
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        src.fail(str(unknown[0]), f"unknown key (the keys are {', '.join(TOP_KEYS)})")
    if data.get("format", FORMAT) != FORMAT:
        src.fail("format", f"this pbem reads position format {FORMAT}")
    if "rules" in data and str(data["rules"]) != rs.id:
        src.fail("rules", f"the position is for {data['rules']!r}, the game for {rs.id!r} (say --ruleset {data['rules']})")
    rnd = data.get("round")
    if isinstance(rnd, bool) or not isinstance(rnd, int):
        src.fail("round", "missing or not a whole number" if rnd is None else f"must be a round number, not {rnd!r}")
    start = str(data.get("start") or ("nation_turn" if data.get("nation") is not None else "round_start"))
    if start not in STARTS:
        src.fail("start", f"must be one of {', '.join(STARTS)}" + (" (a finished game cannot be continued)"
                                                                    if start == "game_over" else ""))
    state = GameState(ruleset=rs.id, game=game, round=rnd)
    if data.get("nation") is not None:
        state.next_nation = src.name(data["nation"], "nation", ("nation",))
    if "setup" not in data:
        src.fail("setup", "missing: list every area with pieces (unlisted areas are empty)")
    keys = read_setup(src, data.get("setup"), state)
    st = data.get("state") or {}
    read_state(src, st, state, allowed=STATE_KEYS + RAW_STATE_KEYS)
    raw = {k: plain(v) for k, v in (st.items() if isinstance(st, dict) else []) if k in RAW_STATE_KEYS}
    if raw:
        try:
            state = GameState.from_dict({**state.to_dict(), **raw})
        except (ValueError, TypeError, AttributeError) as e:
            src.fail(f"state.{sorted(raw)[0]}", f"cannot be read: {e}")
    state.prune()
    findings = check_position(rs, state, start, keys)
    errors = [f for f in findings if f.level == "error"]
    if errors:
        raise PositionError(f"{label}: {len(errors)} error{'s' if len(errors) > 1 else ''} in the position:\n"
                            + "\n".join(_line(src, f) for f in errors),
                            hint="fix the lines named; docs/POSITIONS.md describes the format")
    for nation in sorted(state.vp):
        if state.vp[nation]:
            state.ledger.append({"round": state.round, "nation": nation, "points": state.vp[nation], "kind": IMPORTED,
                                 "reason": "victory points before the game moved to pbem", "turn": None})
    return Position(state, start, [_line(src, f) for f in findings if f.level == "warning"], text)


def _line(src: _File, f: Finding) -> str:
    return f"{src.where(f.key)}: {f.key}: {f.message}"


def read_position_file(path: str | Path, *, ruleset: str | Ruleset = "classic", game: str = "game") -> Position:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PositionError(f"{p}: cannot read: {e}") from e
    return read_position(text, label=str(p), ruleset=ruleset, game=game)
