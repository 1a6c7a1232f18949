"""game.yaml mistakes of a hand edit are refused when the game opens, naming the key (issue 32):
a misspelt key would otherwise be ignored silently (`turn_houres: 72` leaves the default deadline)."""

import pytest

from pbem.store.game import Game, create_game
from pbem.store.settings_keys import is_address
from pbem.store.yamlio import SaveError


@pytest.fixture
def game_dir(tmp_path):
    create_game(tmp_path, "g1", players=4)
    return tmp_path / "g1"


def _edit(game_dir, old: str, new: str) -> None:
    path = game_dir / "game.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _refused(game_dir) -> str:
    with pytest.raises(SaveError) as e:
        Game.open(game_dir)
    return str(e.value) + " " + e.value.hint


def test_a_fresh_game_opens(game_dir):
    assert Game.open(game_dir).id == "g1"


def test_misspelt_deadline_key_is_refused_with_did_you_mean(game_dir):
    _edit(game_dir, "turn_hours:", "turn_houres:")
    msg = _refused(game_dir)
    assert "deadlines.turn_houres" in msg and "did you mean 'turn_hours'" in msg


def test_unknown_top_level_key_is_refused(game_dir):
    (game_dir / "game.yaml").write_text((game_dir / "game.yaml").read_text() + "pausd: true\n")
    msg = _refused(game_dir)
    assert "pausd" in msg and "did you mean 'paused'" in msg


def test_misspelt_player_key_is_refused(game_dir):
    _edit(game_dir, "    address:", "    adress:")
    msg = _refused(game_dir)
    assert "players[0].adress" in msg and "did you mean 'address'" in msg


def test_unknown_colour_is_refused_with_the_colours(game_dir):
    text = (game_dir / "game.yaml").read_text()
    colour = text.split("colour: ", 1)[1].split()[0]
    _edit(game_dir, f"colour: {colour}", f"colour: {colour}x")
    msg = _refused(game_dir)
    assert f"unknown colour '{colour}x'" in msg and f"did you mean '{colour}'" in msg


def test_address_without_at_is_refused(game_dir):
    text = (game_dir / "game.yaml").read_text()
    address = text.split("address: ", 1)[1].split()[0]
    _edit(game_dir, f"address: {address}", "address: ann.example.org")
    assert "players[0].address: 'ann.example.org' is not a mail address" in _refused(game_dir)


def test_digits_only_token_says_to_quote_it(game_dir):
    text = (game_dir / "game.yaml").read_text()
    token = text.split("token: ", 1)[1].split()[0]
    _edit(game_dir, f"token: {token}", "token: 123456")
    msg = _refused(game_dir)
    assert "players[0].token: was read as the number 123456" in msg and 'token: "123456"' in msg
    assert "non-empty string" not in msg


def test_quoted_digits_token_is_fine(game_dir):
    text = (game_dir / "game.yaml").read_text()
    token = text.split("token: ", 1)[1].split()[0]
    _edit(game_dir, f"token: {token}", 'token: "123456"')
    assert Game.open(game_dir).players()[0]["token"] == "123456"


def test_observer_address_is_checked(game_dir):
    _edit(game_dir, "observers: []", "observers:\n  - watcher at example.org")
    assert "observers[0]" in _refused(game_dir)


@pytest.mark.parametrize("value,ok", [("a@b.org", True), ("redacted", True), ("a.b.org", False),
                                      ("Ann <a@b.org>", False), ("a @b.org", False), ("@b.org", False), (3, False)])
def test_is_address(value, ok):
    assert is_address(value) is ok


def test_options_may_name_the_rulesets_optional_rules(game_dir):
    _edit(game_dir, "options:\n  nmr: hold", "options:\n  nmr: hold\n  brittany: true")
    assert Game.open(game_dir).settings["options"]["brittany"] is True
    _edit(game_dir, "brittany: true", "britany: true")
    assert "did you mean 'brittany'" in _refused(game_dir)
