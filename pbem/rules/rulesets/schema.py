"""The data a rules family owns (issue 28 item 3): the sections of a ruleset's files only its rules read.

The common loader (pbem/data/schema.py) reads and checks what every ruleset has: the map, the
nations and their pieces, the order of play, the timeline, the victory-point cards, the player
tables, the typed constants, doubts, roles. What only one family's rules use (the classic rules'
Bretwalda and King rounds, the Limes round, submission to the empire, the FFG tables) is that
family's: its `Rules.schema` (a subclass of `Schema` below) checks those sections and says how they
read. A family without such rules (`family: base`, the made-up tiny ruleset of the tests) writes
none of them.

A check reports through a `Reader` of the file it is in: `raise reader.fail(key, message)` makes
the DataError naming the file and the dotted key (`pbem/data/classic/ruleset.yaml: scoring.limes_round:
missing`), as every other check of the loader does.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from pbem.errors import DataError
from pbem.records import record

if TYPE_CHECKING:
    from collections.abc import Callable

    from pbem.rules.ruleset import LandArea, Leader, Nation, SeaArea, VPCard


def kind_of(v: Any) -> str:
    """How a message names the kind of a value: 'a mapping', 'a list', 'a text' ..."""
    return {dict: "a mapping", list: "a list", str: "a text", int: "a number", float: "a number",
            bool: "true/false", type(None): "empty"}.get(type(v), type(v).__name__)


class Reader:
    """Reads one file of a ruleset, remembering where it is so errors name the file and the key.
    `label` makes the file's name when an error needs it (pbem/data/<ruleset>/<file>.yaml)."""

    def __init__(self, name: str, label: Callable[[], str]) -> None:
        self.name = name
        self._label = label
        self._file: str | None = None
        self.at = "-"

    @property
    def file(self) -> str:
        if self._file is None:
            self._file = self._label()
        return self._file

    def fail(self, key: str, msg: str) -> DataError:
        """The error for `key` of this file (raise it)."""
        return DataError(self.file, key or "-", msg)

    def get(self, d: Any, key: Any, path: str) -> Any:
        where = f"{path}.{key}" if path else str(key)
        if not isinstance(d, Mapping):
            raise self.fail(path or "-", "must be a mapping")
        if key not in d:
            raise self.fail(where, "missing")
        self.at = where
        return d[key]

    def mapping(self, d: Any, key: Any, path: str, *, required: bool = True) -> dict:
        where = f"{path}.{key}" if path else str(key)
        if not required and (not isinstance(d, Mapping) or d.get(key) is None):
            return {}
        v = self.get(d, key, path)
        if not isinstance(v, Mapping):
            raise self.fail(where, f"must be a mapping, not {kind_of(v)}")
        return v

    def seq(self, d: Any, key: Any, path: str, *, required: bool = False) -> list:
        where = f"{path}.{key}" if path else str(key)
        if not required and (not isinstance(d, Mapping) or d.get(key) is None):
            return []
        v = self.get(d, key, path)
        if not isinstance(v, list):
            raise self.fail(where, f"must be a list, not {kind_of(v)}")
        return v

    def text(self, d: Any, key: Any, path: str) -> str:
        v = self.get(d, key, path)
        if not isinstance(v, str) or not v.strip():
            raise self.fail(f"{path}.{key}" if path else str(key), "must be a non-empty text")
        return v

    def integer(self, v: Any, where: str, *, minimum: int | None = None) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(where, f"must be a whole number, not {v!r}")
        if minimum is not None and v < minimum:
            raise self.fail(where, f"must be at least {minimum}, not {v}" if minimum != 1 else f"must be positive, not {v}")
        return v

    def ids(self, values: Any, where: str, universe: Iterable[str], what: str) -> list[str]:
        """A list of ids, each of which must be in `universe`."""
        if not isinstance(values, list):
            raise self.fail(where, f"must be a list of {what} ids, not {kind_of(values)}")
        universe = list(universe)
        for v in values:
            self.one(v, where, universe, what)
        return list(values)

    def one(self, v: Any, where: str, universe: Iterable[str], what: str) -> str:
        universe = list(universe)
        if not isinstance(v, str) or v not in universe:
            close = difflib.get_close_matches(str(v), universe, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise self.fail(where, f"unknown {what} {v!r}{hint}")
        return v

    def rounds_list(self, v: Any, where: str, max_rounds: int) -> list[int]:
        """A non-empty list of game turns, each from 1 to the last."""
        if not isinstance(v, list) or not v:
            raise self.fail(where, "must be a non-empty list of turns")
        for i, r in enumerate(v):
            self.integer(r, f"{where}.{i}", minimum=1)
            if r > max_rounds:
                raise self.fail(f"{where}.{i}", f"turn {r} is after the last turn ({max_rounds})")
        return list(v)

    def round_set(self, spec: Any, where: str, max_rounds: int) -> frozenset[int]:
        """'any' (or nothing): every turn, an empty set; 'A-B'; or a list of turns."""
        if spec in (None, "any"):
            return frozenset()
        if isinstance(spec, str) and re.fullmatch(r"\d+-\d+", spec):
            lo, hi = (int(x) for x in spec.split("-"))
            if not 1 <= lo <= hi <= max_rounds:
                raise self.fail(where, f"bad turn range {spec!r}")
            return frozenset(range(lo, hi + 1))
        if isinstance(spec, list):
            return frozenset(self.rounds_list(spec, where, max_rounds))
        raise self.fail(where, f"must be 'any', 'A-B' or a list of turns, not {spec!r}")


@record
class Board:
    """What the common loader has read when it hands the family its sections: the tables (after a
    game's overrides), a Reader per file, and the checked map, nations and leaders."""

    tables: Mapping[str, Mapping[str, Any]]
    readers: Mapping[str, Reader]
    areas: Mapping[str, LandArea]
    seas: Mapping[str, SeaArea]
    nations: Mapping[str, Nation]
    leaders: Mapping[str, Leader]
    max_rounds: int

    @property
    def ruleset(self) -> Mapping[str, Any]:
        """ruleset.yaml as a mapping."""
        return self.tables["ruleset"]

    @property
    def regions(self) -> tuple[str, ...]:
        """The regions the map's areas are in (map.yaml `region`), in the order they appear."""
        return tuple(dict.fromkeys(a.region for a in self.areas.values()))

    def universe(self, kind: str) -> Mapping[str, Any]:
        """The ids of a kind: area, sea, nation, leader, region."""
        if kind == "region":
            return dict.fromkeys(self.regions)
        return {"area": self.areas, "sea": self.seas, "nation": self.nations, "leader": self.leaders}[kind]


class Schema:
    """The data sections of a family and their checks; this base: a family that owns none.

    Each hook gets the Board and returns plain data the Ruleset keeps (rs.scoring, rs.submission,
    rs.lists, rs.extras). A subclass extends the one of the family it builds on (super()).
    """

    list_keys: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """ruleset.yaml list-valued facts of the family (rs.constants_list(key)), key -> kind of id they list"""
    colour_key: ClassVar[str | None] = None
    """nations.yaml `colour_4p.<key>` read as a nation's colour when ruleset.yaml has no `colour_key`
    (None: a nation writes `colour: <colour>`)"""
    forces_keys: ClassVar[tuple[str, ...]] = ()
    """nations.yaml `forces.<kind>.<source>`: the sources read, in order, after ruleset.yaml
    `forces_keys` (none: `forces.<kind>` is a number)"""
    round_notes_keys: ClassVar[tuple[str, ...]] = ("notes",)
    """timeline.yaml rounds.<n>: the key of a round's notes for people (the first one present)"""
    leader_place_keys: ClassVar[tuple[str, ...]] = ("where",)
    """timeline.yaml rounds.<n>.leaders.<i>: the key of the only area a leader may enter in"""
    kill_of: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """victory_points.yaml kill lines: words the family allows for `of:` besides a list of nations,
    any_other_nation and any_enemy_nation, each naming the KillRule flag it sets"""

    def leader_doubt(self, board_ruleset: Mapping[str, Any], leader: Mapping[str, Any], nation_name: str,
                     place_name: str | None) -> str:
        """The doubt to show beside a leader of nations.yaml (none)."""
        return ""

    def scoring(self, board: Board, scoring: dict[str, Any]) -> None:
        """Check the family's keys of ruleset.yaml `scoring` (the common ones, hold_rounds and
        vp_table_rounds, are checked already)."""

    def submission(self, board: Board) -> dict[str, Any]:
        """ruleset.yaml `submission`, checked (a family without submission: none may be written)."""
        rc = board.readers["ruleset"]
        if board.ruleset.get("submission"):
            raise rc.fail("submission", "the rules family of this ruleset has no submission")
        return {}

    def kill_line(self, board: Board, kind: str, line: Mapping[str, Any], where: str) -> dict[str, Any]:
        """Extra KillRule fields a family reads from a kill line of a victory-point card (none)."""
        return {}

    def cards(self, board: Board, cards: dict[str, VPCard]) -> dict[str, VPCard]:
        """The victory-point cards as the family reads them (as written)."""
        return cards

    def extras(self, board: Board) -> dict[str, Any]:
        """Family-specific tables (rs.extras; none)."""
        return {}
