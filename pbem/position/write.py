"""A position written out in the form people type (`setup:` and `state:` with display names), so that
`pbem export --position` followed by `pbem new --position` gives the same position back.

The VP ledger is summed up: the file carries each nation's total; a game started from it has one
ledger entry per nation ("before the import").
"""

from __future__ import annotations

import io

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState

FORMAT = 1
# GameState.to_dict() keys that the top of the file or `setup:` carry, or that are not part of a position
NOT_IN_STATE = ("ruleset", "game", "round", "next_nation", "areas", "ledger", "finished")


def _flow(d: dict) -> CommentedMap:
    m = CommentedMap(d)
    m.fa.set_flow_style()
    return m


def _flow_list(items: list) -> CommentedSeq:
    s = CommentedSeq(items)
    s.fa.set_flow_style()
    return s


def _num(v: float) -> int | float:
    return int(v) if float(v).is_integer() else float(v)


def start_of(state: GameState) -> str:
    """Where the game stands: `game_over`, `round_start` (next_nation None) or `nation_turn`."""
    if state.finished:
        return "game_over"
    return "round_start" if state.next_nation is None else "nation_turn"


def state_block(rs: Ruleset, state: GameState) -> CommentedMap:
    """The `state:` mapping: known records with display names, any other field of the position as is."""
    d = state.to_dict()
    name = rs.display
    out = CommentedMap()
    if d["vp"]:
        out["vp"] = _flow({name(n): v for n, v in d["vp"].items()})
    if d["population"]:
        out["population"] = _flow({name(n): _num(v) for n, v in d["population"].items()})
    if d["forts_built"]:
        out["forts_built"] = _flow_list([name(a) for a in d["forts_built"]])
    if d["raided_from"]:
        out["raided_from"] = _flow({name(n): name(s) for n, s in d["raided_from"].items()})
    if d["captured"]:
        out["captured"] = CommentedMap((name(n), _flow_list([name(a) for a in areas])) for n, areas in d["captured"].items())
    if d["subjects"]:
        out["subjects"] = _flow({name(n): name(o) for n, o in d["subjects"].items()})
    if d.get("roman_permission"):   # classic-specific records may move into a ruleset's own block
        out["roman_permission"] = _flow_list([name(n) for n in d["roman_permission"]])
    if d["bretwalda"]:
        out["bretwalda"] = name(d["bretwalda"])
    if d["kings"]:
        out["kings"] = _flow_list([name(n) for n in d["kings"]])
    if d["dead_leaders"]:
        out["dead_leaders"] = _flow_list([name(x) for x in d["dead_leaders"]])
    if d["leader_killed_by"]:
        out["leader_killed_by"] = _flow({name(x): name(n) for x, n in d["leader_killed_by"].items()})
    if d.get("standing"):
        out["standing"] = CommentedMap((name(n), CommentedMap(v)) for n, v in d["standing"].items())
    if d.get("danes_withdraw_shortfall"):
        out["danes_withdraw_shortfall"] = d["danes_withdraw_shortfall"]
    if d.get("attacked_romano_british"):
        out["attacked_romano_british"] = _flow_list([name(n) for n in d["attacked_romano_british"]])
    known = set(NOT_IN_STATE) | set(out) | {"vp", "population", "forts_built", "raided_from", "captured",
                                             "subjects", "roman_permission", "bretwalda", "kings", "dead_leaders",
                                             "leader_killed_by", "standing", "danes_withdraw_shortfall",
                                             "attacked_romano_british"}
    for k, v in d.items():   # fields added to the position later travel as they are (ids)
        if k not in known and v not in (None, {}, [], 0, False):
            out[k] = v
    return out


def position_data(rs: Ruleset, state: GameState, *, game: str | None = None) -> CommentedMap:
    top = CommentedMap()
    top["format"] = FORMAT
    top["rules"] = rs.id
    if game:
        top["game"] = game
    top["round"] = state.round
    start = start_of(state)
    if state.next_nation and start == "nation_turn":
        top["nation"] = rs.display(state.next_nation)
    top["start"] = start
    setup = CommentedMap()
    for area in sorted(state.areas, key=lambda a: (not rs.is_land(a), rs.display(a))):
        stacks = {rs.display(n): s.to_dict() for n, s in sorted(state.areas[area].items()) if not s.empty()}
        if stacks:
            setup[rs.display(area)] = _flow({n: (_flow({k: ([rs.display(x) for x in v] if k == "leaders" else v)
                                                        for k, v in s.items()}) if isinstance(s, dict) else s)
                                             for n, s in stacks.items()})
    top["setup"] = setup
    block = state_block(rs, state)
    if block:
        top["state"] = block
    return top


def position_text(rs: Ruleset, state: GameState, *, game: str | None = None, entry: int | None = None) -> str:
    """The position as a YAML document (docs/POSITIONS.md)."""
    yaml = YAML()
    yaml.width = 4096   # one line per area
    buf = io.StringIO()
    buf.write("# A Britannia position for pbem (docs/POSITIONS.md): `pbem new GAME --position FILE` starts a game here.\n")
    if game:
        buf.write(f"# Exported from game {game}" + (f" after log entry {entry}" if entry else "") + ".\n")
    yaml.dump(position_data(rs, state, game=game), buf)
    return buf.getvalue()

