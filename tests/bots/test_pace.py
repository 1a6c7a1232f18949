"""The pace simulator (issue 32): simulated players on a simulated clock, through the real `pbem run`."""

import random
from datetime import UTC, datetime

from pbem.bots.pace import PaceSettings, _next_tick, answer_time, simulate_game


def test_an_answer_due_at_night_is_written_in_the_morning():
    s = PaceSettings(mean_hours=0.01, spread=0.01)
    rng = random.Random(1)
    late = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)        # 23:30 in London
    t = answer_time(late, 0, rng, s)
    assert t.date() == datetime(2026, 3, 2).date() and 7 <= t.hour <= 8
    t = answer_time(late, 3, rng, s)                         # 02:30 in Moscow: 07:xx there is 04:xx UTC
    assert 4 <= t.hour <= 5
    day = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    assert answer_time(day, 0, rng, s).hour == 12            # awake: at once (a tiny delay)


def test_cron_ticks():
    t = datetime(2026, 3, 1, 12, 1, tzinfo=UTC)
    assert _next_tick(t, 10) == datetime(2026, 3, 1, 12, 10, tzinfo=UTC)
    assert _next_tick(datetime(2026, 3, 1, 12, 10, tzinfo=UTC), 10) == datetime(2026, 3, 1, 12, 10, tzinfo=UTC)


def test_a_short_simulation_plays_turns_and_is_repeatable(tmp_path):
    s = PaceSettings(style="ahead", max_days=3, mean_hours=2)
    a = simulate_game(s, seed=5, games_dir=tmp_path / "a")
    b = simulate_game(s, seed=5, games_dir=tmp_path / "b")
    assert a.days == b.days and [p.sent for p in a.players] == [p.sent for p in b.players]
    assert sum(p.sent for p in a.players) > 0 and a.runs > 1
    assert not a.finished and a.rounds >= 1
    assert all(p.received >= p.asked for p in a.players)


def test_the_nations_a_request_names():
    from pbem.bots.pace import asked_nations

    assert asked_nations("[g1] your orders for the Jutes, Saxons") == ("Jutes", "Saxons")
    assert asked_nations("[g1] Reminder: your orders for the Welsh") == ("Welsh",)
    assert asked_nations("[g1] your orders for the Picts: please correct") == ("Picts",)
