"""Classic 16.0 — an optional rule named in game.yaml `options:` is played by mail: the start mail
says it is in play, orders use it, replies read them back, the turn is adjudicated by it and the log
replays (16.251 Brittany, 16.1 Pict raiders)."""

from __future__ import annotations

from datetime import timedelta

from jobkit import PLAYERS, T0, body, mails, send

from pbem.rules.state import GameState, Stack
from pbem.service.job import run_job
from pbem.store.game import Game, create_game
from pbem.store.replay import replay


def game_at(tmp_path, rnd: int, nation: str, areas: dict, option: str) -> Game:
    st = GameState(ruleset="classic", game="opt", round=rnd, next_nation=nation)
    for area, stacks in areas.items():
        for n, armies in stacks.items():
            st.areas.setdefault(area, {})[n] = Stack(armies=armies)
    g = create_game(tmp_path, "opt", players=4, player_specs=PLAYERS, state=st, secret=b"optional rules by mail",
                    time=T0.isoformat(), source="test position")
    (g.path / "inbox").mkdir(exist_ok=True)
    g = Game.open(g.path)
    g.settings["options"][option] = True
    g.save_settings()
    return g


def test_the_start_mail_names_the_optional_rules_in_play(tmp_path):
    g = create_game(tmp_path, "t1", players=4, player_specs=PLAYERS, secret=b"welcome mail secret, 16+", time=T0.isoformat())
    g = Game.open(g.path)
    g.settings["options"]["brittany"] = True
    g.save_settings()
    run_job(tmp_path, now=T0, render_map=False)
    welcome = [m for m in mails(g.path / "outbox") if "the game starts" in str(m["Subject"])]
    assert welcome and all("Optional rules in play in this game: 16.251 Brittany" in body(m) for m in welcome)


def test_brittany_by_mail(tmp_path):
    g = game_at(tmp_path, 5, "welsh", {"devon": {"welsh": 3}, "powys": {"welsh": 2}}, "brittany")
    player = g.player_of("welsh")
    run_job(tmp_path, now=T0, render_map=False)
    send(g, player, "NATION Welsh\nBRITTANY 2 Devon\nPASS", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(g.path)
    assert g.state.get("devon", "welsh").armies == 1 and g.state.vp.get("welsh") == 2
    out = mails(g.path / "outbox")
    assert any("BRITTANY 2 Devon" in body(m) and "as read" in body(m) for m in out), "read back"
    assert any("leave for Brittany" in body(m) for m in out if "have played" in str(m["Subject"]))
    assert replay(g.path).ok


def test_pict_raiders_by_mail(tmp_path):
    g = game_at(tmp_path, 4, "picts", {"dunedin": {"picts": 2}, "alban": {"picts": 1}, "lothian": {"romans": 1}},
                "pict_raiders")
    player = g.player_of("picts")
    run_job(tmp_path, now=T0, render_map=False)
    send(g, player, "NATION Picts\n2 Dunedin -> Lothian\nATTACK Lothian: FIGHT", 1)
    for h in range(1, 4):
        run_job(tmp_path, now=T0 + timedelta(hours=h), render_map=False)
    g = Game.open(g.path)
    entry = next(e for e in g.entries("turn") if e.get("nation") == "picts")
    kinds = [ev["type"] for ev in entry.get("events")]
    assert "battle" in kinds and "withdrew" in kinds
    st = g.state
    assert "lothian" not in st.areas and st.get("dunedin", "picts"), "the raiders won and went home to Dunedin"
    assert not any(s.raiders for stacks in st.areas.values() for n, s in stacks.items() if n == "picts")
    assert replay(g.path).ok
