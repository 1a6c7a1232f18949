"""Test helpers: the classic ruleset (the real loader), the engine's state types, the start position."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ruamel.yaml import YAML

DATA = Path(__file__).resolve().parents[2] / "pbem" / "data" / "classic"


from pbem.rules.state import GameState as State  # noqa: E402,F401
from pbem.rules.state import Stack  # noqa: E402,F401


def _yaml(name: str) -> dict:
    return YAML(typ="safe").load((DATA / name).read_text("utf-8"))


@cache
def map_data() -> dict:
    """The raw map facts (land_areas, seas, straits, four_corners)."""
    return _yaml("map.yaml")


@cache
def classic_ruleset():
    from pbem.data.loader import load

    return load("classic")


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
