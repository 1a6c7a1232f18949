"""Ruleset data versions (pbem/data/loader.py): a game keeps the rules it was created with.

tests/data/old_games/ holds whole games (3 ffg2, 1 classic, 16 rounds) logged and exported by the
pbem of before the data versions (commit 14ffa81: data version 1 of both rulesets; made with
tools/make_old_games.py). They must replay byte-identically (every event and state hash) under the
readings ruleset.yaml `versions.1` restores, while new games play the current readings (the cases of
the FFG fixes, FFG 18, 29, 39, 41, 43, 51, 56, run on the current version)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cases import load_case, run_case
from pbem.cli import cli
from pbem.data.loader import at_data_version, load, raw_tables
from pbem.errors import DataError
from pbem.rules.context import TurnContext
from pbem.rules.kingship import crown_time, crowns_at_end
from pbem.rules.rulesets.ffg2 import SUBMITTED_TO_EMPIRE
from pbem.rules.state import GameState, Stack
from pbem.rules.submission import submit
from pbem.store.archive import import_game
from pbem.store.game import Game, create_game
from pbem.store.replay import replay

REPO = Path(__file__).resolve().parents[2]
OLD_GAMES = sorted((REPO / "tests" / "data" / "old_games").glob("*.tar.gz"))
RUNNING = REPO / "tests" / "data" / "old_games" / "running" / "old-ffg2-101-r8.tar.gz"
CASES = REPO / "tests" / "cases" / "ffg2"
# the cases of the FFG fixes that the data version 1 reads the old way (each fails there)
CHANGED = ["18-no-stay-in-second-movement", "29-no-retreat-to-where-overrunners-came-from",
           "39-arthur-over-the-limits-excess-removed", "41-rb-attack-welsh-who-never-submitted",
           "43-danes-round-11-nothing-for-areas-passed", "43-danes-round-11-pay-for-areas-held",
           "51-capture-by-retreat-in-another-turn", "rounds/56-bretwalda-at-end-of-round-8",
           "rounds/56-crowns-of-round-13-give-way", "rounds/56-king-at-end-of-round-11",
           "rounds/56-no-crowns-at-start-of-round-9"]


def test_the_old_games_are_there_and_small():
    assert sorted(p.name.split("-")[1] for p in OLD_GAMES) == ["classic", "ffg2", "ffg2", "ffg2"]
    assert sum(p.stat().st_size for p in [*OLD_GAMES, RUNNING]) < 400_000


def test_old_games_replay_byte_identically():
    """`pbem replay` of each archive: every event, die and state hash as the old code logged them."""
    out = CliRunner().invoke(cli, ["replay", "-q", *map(str, OLD_GAMES)])
    assert out.exit_code == 0, out.output
    assert f"{len(OLD_GAMES)} match, 0 diverge or fail" in out.output, out.output
    assert sum(line.startswith("ok ") for line in out.output.splitlines()) == len(OLD_GAMES)


@pytest.mark.parametrize("archive", OLD_GAMES, ids=lambda p: p.stem)
def test_an_imported_old_game_plays_its_data_version(archive, tmp_path):
    game = import_game(archive, tmp_path)
    created = game.entry(1)
    assert created["data_version"] == 1
    rs = game.ruleset()
    assert rs.data_version == 1 and rs.latest_data_version == load(rs.id).data_version == 2
    assert rs.version_line().startswith(f"{rs.id}, data version 1 (now 2): the readings of games created before")
    assert replay(game).ok
    # pbem status says which rules the game plays
    out = CliRunner().invoke(cli, ["status", str(game.path)])
    assert out.exit_code == 0 and f"rules: {rs.id}, data version 1" in out.output


def test_old_ffg2_games_diverge_under_the_current_readings(tmp_path, monkeypatch):
    """The test data shows the change: read with the current version (as the code before this change
    did), each old ffg2 game diverges: by the end of round 8 (FFG 56: the Bretwalda judged then, not at
    the start of round 9), old-ffg2-105 already in round 7 (FFG 39: its Romano-British movement)."""
    monkeypatch.setattr(Game, "ruleset", lambda self: load(self.ruleset_id))
    for archive in OLD_GAMES:
        game = import_game(archive, tmp_path)
        div = replay(game).divergence
        if game.ruleset_id == "ffg2":
            assert div is not None and div.round <= 8, archive.name
        else:
            assert div is None   # the classic game writes no STAY after SECOND MOVEMENT


def test_a_new_game_plays_the_current_version(tmp_path):
    for ruleset_id in ("ffg2", "classic"):
        game = create_game(tmp_path, f"new-{ruleset_id}", ruleset=ruleset_id)
        assert game.entry(1)["data_version"] == 2
        rs = game.ruleset()
        assert rs is load(ruleset_id) and rs.version_line() == ""


@pytest.mark.parametrize("name", CHANGED)
def test_each_ffg_fix_is_read_the_old_way_at_data_version_1(name):
    """Each case of the FFG fixes passes on the current version (new games) and not on version 1."""
    case = load_case(CASES / f"{name}.yaml")
    assert run_case(case).passed
    case.rs = load("ffg2", data_version=1)
    assert not run_case(case).passed


def test_the_other_ffg2_cases_are_the_same_at_data_version_1():
    changed = {CASES / f"{n}.yaml" for n in CHANGED}
    others = [p for p in sorted(CASES.rglob("*.yaml")) if p not in changed]
    assert len(others) > 50
    for path in others:
        case = load_case(path)
        case.rs = load("ffg2", data_version=1)
        assert run_case(case).passed, path


def test_data_version_1_keeps_no_record_of_submissions():
    """FFG 41 at version 1: the AH 10.5 list; nothing written into the state (its hash keeps its bytes)."""
    for version, recorded in ((1, False), (None, True)):
        rs = load("ffg2", data_version=version)
        st = GameState(ruleset="ffg2", game="t", round=3)
        st.areas["alban"] = {"picts": Stack(armies=1)}
        submit(TurnContext(rs, st, "romans", {}, None), "picts", "romans", "test")  # type: ignore[arg-type]
        assert (SUBMITTED_TO_EMPIRE in st.extras) is recorded
        assert ("extras" in st.to_dict()) is recorded


def test_data_version_1_crowns_at_the_start_of_the_next_round():
    rs = load("ffg2", data_version=1)
    assert list(rs.scoring["bretwalda_rounds"]) == [9, 10, 11] and list(rs.scoring["king_rounds"]) == [12, 13, 14, 15]
    assert not crowns_at_end(rs) and crown_time(rs, 9) == "end of turn 8"
    now = load("ffg2")
    assert crowns_at_end(now) and crown_time(now, 8) == "end of turn 8"


def test_unknown_data_versions_are_refused():
    with pytest.raises(DataError, match="data version 3.*it knows 1, 2"):
        load("ffg2", data_version=3)
    assert load("ffg2", data_version=2) is load("ffg2")


def test_a_broken_versions_section_names_the_key():
    tables = raw_tables("ffg2")
    tables["ruleset"]["versions"][1]["overrides"]["ruleset.features.no_such_feature"] = False
    with pytest.raises(DataError, match=r"versions\.1\.overrides: .*no_such_feature"):
        at_data_version(tables, "ffg2", 1)
    tables = raw_tables("ffg2")
    tables["ruleset"]["versions"][2] = {"note": "x", "overrides": {}}
    with pytest.raises(DataError, match=r"versions\.2: an earlier data version"):
        at_data_version(tables, "ffg2", 1)
    tables = raw_tables("ffg2")
    del tables["ruleset"]["versions"][1]["note"]
    with pytest.raises(DataError, match=r"versions\.1\.note: missing"):
        at_data_version(tables, "ffg2", 1)


def test_classic_data_version_1_judges_every_stay_in_the_first_movement():
    """Classic 7.3: a STAY after SECOND MOVEMENT in a turn without a major invasion is refused now
    (it belongs to a second movement there is not); version 1 judged it in the first movement, as the
    code before did, with no reply (ffg2: the case of FFG 18 above)."""
    ruleset_id = "classic"
    from pbem.orders.parser import parse_message
    from pbem.rules.dice import ScriptedDice
    from pbem.rules.orders import NationOrders
    from pbem.rules.turn import play_nation_turn

    text = "NATION Romans\n1 English Channel -> Kent\nSECOND MOVEMENT\nSTAY 2 English Channel\n"
    problems = {}
    for version in (1, None):
        rs = load(ruleset_id, data_version=version)
        st = GameState(ruleset=ruleset_id, game="t", round=2)
        st.areas["english_channel"] = {"romans": Stack(armies=3)}
        st.next_nation = "romans"
        orders = NationOrders("romans")
        orders.orders += parse_message(text, rs).sections[0].orders
        result = play_nation_turn(rs, st, "romans", {"romans": orders}, ScriptedDice({}), start="movement",
                                  stop="end_of_turn", strict=False)
        problems[version] = [(p.kind, p.line) for p in result.problems]
    assert problems == {1: [], None: [("not-now", 4)]}


def test_an_old_running_game_goes_on_under_its_rules(tmp_path):
    """An ffg2 game logged by the code before, stopped after the last turn of round 8 and exported with
    its dice secret: the next step, played now, is what the code before played (the state and events
    hashes it gave for the same step): the Bretwalda of the end of round 8 judged at the start of round
    9 (data version 1), not the current closing step of round 8."""
    from pbem.rules.flow import votes_owed
    from pbem.rules.legal import vote_options
    from pbem.service.play import play_turn

    game = import_game(RUNNING, tmp_path)
    rs, state = game.ruleset(), game.state
    assert rs.data_version == 1 and (state.round, state.next_nation) == (9, None) and votes_owed(rs, state)
    voters = sorted(vote_options(rs, state))
    orders = {n: game.record_orders(n, game.player_of(n), f"NATION {rs.display(n)}\nVOTE Angles\n") for n in voters}
    entry = play_turn(game, step="start_round", orders=orders, time="2026-12-02T03:00:00Z")
    # the hashes the code before (commit 14ffa81) logged for this very step
    assert entry["state_hash"] == "856246b70440e7a7813b82847bdc7f1e85e4d813dff5cb3829ab9adf43622912"
    assert entry["events_hash"] == "682bf631071ddcf6dc54974377c0bb3fca9549670d4e1a62d3d093bdd34fbf01"
    assert [x for x in game.state.ledger if x["kind"] == "bretwalda"][-1]["reason"].startswith("Bretwalda (end of turn 8)")
    assert replay(game).ok
