"""Colours, codes and sizes of the map picture.

Which nation is which player's colour, and its 2-letter code, come only from the ruleset (nations.yaml
`colour`, `code`): a map is always drawn with one. Player colours: the four colours of the 4-player game (purple, green, red, blue) are drawn with
Okabe-Ito colours, which stay distinct for the common kinds of colour blindness. Every counter also
carries the nation's 2-letter code, so colour is never the only clue.
"""

from __future__ import annotations

from typing import Any

# Okabe & Ito (2008) "Color Universal Design" palette
OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "black": "#000000",
}

PLAYER_COLOURS = {
    "purple": OKABE_ITO["reddish_purple"],
    "green": OKABE_ITO["bluish_green"],
    "red": OKABE_ITO["vermillion"],
    "blue": OKABE_ITO["blue"],
    "yellow": OKABE_ITO["yellow"],   # a ruleset's colour table may replace purple by yellow
    "orange": OKABE_ITO["orange"],   # the fifth player of a 5-player table
    "black": OKABE_ITO["black"],     # Duel's Brython-Viking second colour
}
PLAYER_ORDER = ("purple", "green", "red", "blue")
# what the drawn colour looks like where it differs from the colour's name (the colour-blind-safe
# palette has no true purple or red): players are told both, so nobody looks for a purple counter
DRAWN_AS = {"purple": "pink", "red": "orange-red"}


def colour_name(colour: str) -> str:
    """'Purple (drawn pink)', 'Green' — a player colour as named and as drawn."""
    drawn = DRAWN_AS.get(colour)
    return colour.capitalize() + (f" (drawn {drawn})" if drawn else "")


def player_order(ruleset: Any = None) -> tuple[str, ...]:
    """The player colours of the ruleset's 4-player table, in its order (classic: purple, green, red,
    blue; ffg2: yellow, green, red, blue)."""
    colours = tuple(c for c in (drawn_seat(seat, ruleset) for seat in _four_player_seats(ruleset)) if c)
    return colours or PLAYER_ORDER


def _four_player_seats(ruleset: Any) -> list[str]:
    control = _get(ruleset, "control", None) or {}
    table = control.get(4) if hasattr(control, "get") else None
    return [str(seat).lower() for seat in (table or {})]


def drawn_seat(seat: str, ruleset: Any) -> str | None:
    """The player colour a seat of the 4-player table is drawn in: its own name when it is a colour
    (classic's purple, green, red, blue), else the colour its family gives it (`Rules.seat_colour`:
    Duel's brython_viking_1 black ... anglo_saxon_2 blue), else the colour of its place in the table."""
    if seat in PLAYER_COLOURS:
        return seat
    rules = _get(ruleset, "rules", None)
    own = rules.seat_colour(ruleset, seat) if rules is not None else None   # the family's colour of the seat
    if own in PLAYER_COLOURS:
        return own
    seats = _four_player_seats(ruleset)
    return PLAYER_ORDER[seats.index(seat)] if seat in seats and seats.index(seat) < len(PLAYER_ORDER) else None

SEA = "#cfe3f1"
SEA_BORDER = "#7fa7c6"
SEA_TEXT = "#2b5b84"
LAND = "#f1e8cf"
HILAND = "#d5c095"
HILAND_HATCH = "#a98d5c"
AREA_EDGE = "#7a6a4f"
REGION_EDGE = "#3d2b1f"
CONTEXT_LAND = "#dedcd6"
CONTEXT_EDGE = "#b9b6ae"
CONTEXT_TEXT = "#8f8b82"
AREA_TEXT = "#2a2218"
STRAIT = "#5b3a1a"
IMPASSABLE = "#b3a58c"         # land no piece may enter (mountains)
IMPASSABLE_HATCH = "#6f6350"
WOUNDED = "#c0392b"            # the square of a piece holding a hit
CENTRE_FILL = "#fff3c4"        # a scoring centre's badge
CENTRE_EDGE = "#9a7412"
BATTLE = OKABE_ITO["yellow"]
PANEL = "#faf8f2"
UNKNOWN_NATION = "#777777"


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def nations_of(ruleset: Any) -> dict:
    return dict(_get(ruleset, "nations", None) or {})


def player_of(nation: str, ruleset: Any = None) -> str | None:
    """The nation's player colour from nations.yaml ('purple' | 'green' | 'red' | 'blue', 'yellow' in
    ffg2), or None for a nation the ruleset does not know or gives no player colour."""
    colour = _get(nations_of(ruleset).get(nation), "colour")
    return drawn_seat(colour.lower(), ruleset) if isinstance(colour, str) else None


def nation_colour(nation: str, ruleset: Any = None) -> str:
    player = player_of(nation, ruleset)
    if player:
        return PLAYER_COLOURS[player]
    colour = _get(nations_of(ruleset).get(nation), "colour")
    if isinstance(colour, str) and colour.startswith("#") and len(colour) == 7:
        return colour
    return UNKNOWN_NATION


def nation_code(nation: str, ruleset: Any = None) -> str:
    """The nation's 2-letter code from nations.yaml; for an id the ruleset does not know, its first two
    letters (never a table of our own)."""
    code = _get(nations_of(ruleset).get(nation), "code")
    if isinstance(code, str) and code:
        return code
    return nation[:2].upper()


def nation_name(nation: str, ruleset: Any = None) -> str:
    name = _get(nations_of(ruleset).get(nation), "name")
    return name if isinstance(name, str) and name else nation.replace("_", " ").title()


def text_colour_on(hex_colour: str) -> str:
    """Black or white, whichever reads better on the given background (WCAG relative luminance)."""
    rgb = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "#000000" if (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) else "#ffffff"


def hex_to_rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
