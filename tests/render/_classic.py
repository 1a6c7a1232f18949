"""Test adapter: the classic ruleset and a tiny stand-in for the game state.

`classic_ruleset()` uses the lead's loader `pbem.rules.ruleset.load_ruleset("classic")` when it
works; until then it reads the classic YAML data itself (pbem/data/classic/, the same facts as
/work/shared/reference/classic-map.yaml) into plain objects with the attributes the renderer reads.
Switch to the loader only by deleting the fallback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from ruamel.yaml import YAML

DATA = Path(__file__).resolve().parents[2] / "pbem" / "data" / "classic"


@dataclass
class Stack:
    """Stand-in for pbem.rules.state.Stack (the renderer only duck-types it)."""

    armies: int = 0
    cavalry: int = 0
    raiders: int = 0
    fort: bool = False
    burhs: int = 0
    leaders: list[str] = field(default_factory=list)


@dataclass
class State:
    areas: dict[str, dict[str, Stack]] = field(default_factory=dict)
    vp: dict[str, int] = field(default_factory=dict)


def _yaml(name: str) -> dict:
    return YAML(typ="safe").load((DATA / name).read_text("utf-8"))


@cache
def map_data() -> dict:
    """The raw map facts (land_areas, seas, straits, four_corners)."""
    return _yaml("map.yaml")


@cache
def classic_ruleset():
    try:
        from pbem.rules.ruleset import load_ruleset  # type: ignore[attr-defined]

        return load_ruleset("classic")
    except Exception:  # noqa: BLE001 - the loader is not there yet / still changing
        pass
    m, n = map_data(), _yaml("nations.yaml")
    areas = {
        a: SimpleNamespace(id=a, name=v["name"], region=v["region"], terrain=v["terrain"],
                           land=frozenset(v.get("land") or ()), straits=frozenset(v.get("straits") or ()),
                           seas=frozenset(v.get("seas") or ()))
        for a, v in m["land_areas"].items()
    }
    seas = {s: SimpleNamespace(id=s, name=v["name"], seas=frozenset(v["seas"]), coast=frozenset(v["coast"]))
            for s, v in m["seas"].items()}
    nations = {
        k: SimpleNamespace(id=k, name=v["name"], colour=v["colour_4p"]["ah"],
                           leaders=tuple(SimpleNamespace(id=ld["id"], name=ld["name"]) for ld in v.get("leaders") or ()))
        for k, v in n["nations"].items()
    }
    return SimpleNamespace(id="classic", areas=areas, seas=seas, nations=nations,
                           order_of_play=tuple(n["order_of_play"]["ah"]))


START = {
    "belgae": ["downlands", "essex", "kent", "lindsey", "norfolk", "north_mercia", "south_mercia", "suffolk",
               "sussex", "wessex"],
    "welsh": ["avalon", "clwyd", "cornwall", "devon", "dyfed", "gwent", "gwynedd", "hwicce", "powys"],
    "brigantes": ["bernicia", "cheshire", "cumbria", "galloway", "lothian", "march", "pennines", "strathclyde",
                  "york"],
    "caledonians": ["caithness", "hebrides", "orkneys"],
    "picts": ["alban", "dalriada", "dunedin", "mar", "moray", "skye"],
}


def start_state() -> State:
    st = State()
    for nation, areas in START.items():
        for a in areas:
            st.areas.setdefault(a, {})[nation] = Stack(armies=1)
    st.areas["english_channel"] = {"romans": Stack(armies=15)}
    return st
