"""Issue 29: while Duel Britannia plays on the provisional reconstruction of its board and aid (no
public source has the printed ones; [The Game Board], [Unit List]), every map says PROVISIONAL, in
the players' language; a ruleset from the printed game is drawn without it."""

from __future__ import annotations

import pytest

from pbem.data.loader import load
from pbem.render import map as map_module
from pbem.rules.turn import new_game_state, start_round


def _texts(monkeypatch, ruleset_id: str, language: str) -> list[str]:
    seen: list[str] = []
    inner = map_module._Layer.text

    def text(self, x, y, s, *a, **kw):
        seen.append(str(s))
        return inner(self, x, y, s, *a, **kw)

    monkeypatch.setattr(map_module._Layer, "text", text)
    rs = load(ruleset_id)
    state, _ = start_round(rs, new_game_state(rs, "g"))
    png = map_module.render_map(rs, state, title="[g] Round 1", language=language)
    assert png.startswith(b"\x89PNG")
    return seen


@pytest.mark.parametrize("language,word", [("en", "PROVISIONAL board"), ("ru", "ПРЕДВАРИТЕЛЬНАЯ карта")])
def test_a_duel_map_says_provisional(monkeypatch, language, word):
    assert word in _texts(monkeypatch, "duel", language)


def test_a_classic_map_does_not(monkeypatch):
    assert not any("PROVISIONAL" in t for t in _texts(monkeypatch, "classic", "en"))


def test_a_ruleset_whose_seats_are_sides_draws_them_in_the_player_colours():
    """Duel's four seats are sides (anglo_saxon_1 ... brython_viking_2), not colours: each is drawn in
    its side's colour ([Game Setup]: Brython-Viking purple/black, Anglo-Saxon red/blue), its nations
    listed under it."""
    from pbem.render import style

    rs = load("duel")
    assert style.player_order(rs) == ("red", "blue", "black", "purple")
    assert {style.player_of(n, rs) for n in rs.nations} == {"purple", "black", "red", "blue"}
    classic = load("classic")
    assert style.player_of("romans", classic) == "purple" and style.player_order(classic) == style.PLAYER_ORDER
