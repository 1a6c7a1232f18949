"""Issue 30 item 6: after a rollback the turn is rolled under `<game>~g<N>/...`; the report prints the
labels the dice were really computed from, so the players' guide's check gives the faces shown."""

from __future__ import annotations

from pbem.report.facts import rolled_label


def test_a_replayed_turns_labels_carry_its_generation():
    assert rolled_label("g1/r1/romans/kent/b1/romans/d0", 1) == "g1~g1/r1/romans/kent/b1/romans/d0"
    assert rolled_label("g1/r1/romans/kent/b1/romans/d0", 0) == "g1/r1/romans/kent/b1/romans/d0"
    assert rolled_label("g1~g2/r1/romans/kent/b1/romans/d0", 2) == "g1~g2/r1/romans/kent/b1/romans/d0"


def test_the_report_of_a_turn_played_again_prints_the_labels_rolled(tmp_path):
    import sys
    from datetime import timedelta
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
    from jobkit import T0, new_game, send

    from pbem.report import build_report
    from pbem.service import moderator
    from pbem.service.job import run_job
    from pbem.service.play import play_turn
    from pbem.store.game import Game

    g = new_game(tmp_path, b"dice generation secret for the report")
    run_job(tmp_path, now=T0, render_map=False)
    send(g, "ann", "NATION Romans\n8 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(g.path)
    first = [e for e in g.entries("turn") if e.get("nation") == "romans"][0]
    moderator.rollback(g, "mod", "again", first.id)
    again = play_turn(Game.open(g.path), "romans", orders={"romans": "8 Channel -> Kent\n"})
    g = Game.open(g.path)
    report = build_report(g.ruleset(), g.state, again.typed_events(), dict(g.settings), played="romans",
                          round_played=1, dice_generation=int(again.get("dice_generation") or 0))
    labels = [lb for b in report["battles"] for r in b.get("rounds", []) for sd in r["sides"] for lb in sd["labels"]]
    assert labels and set(labels) <= set(again["dice"])
