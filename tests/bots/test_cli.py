"""Smoke tests of `pbem selfplay` and `pbem bench` (figures are never asserted)."""

from __future__ import annotations

from click.testing import CliRunner

from pbem.cli import cli


def test_selfplay_cli(tmp_path):
    r = CliRunner().invoke(cli, ["selfplay", "--players", "4", "--games", "2", "--seed", "4", "--bot", "random",
                                 "--check", "--dump-dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "Winners by player:" in out and "purple" in out and "Romans" in out
    assert "Score spread" in out and "Timing:" in out
    assert "Invariants: checked after every step, no violation." in out
    assert "parser 0, validate 0, engine 0" in out


def test_selfplay_cli_bad_options():
    r = CliRunner().invoke(cli, ["selfplay", "--bot", "clever", "--games", "1"])
    assert r.exit_code == 2 and "clever" in r.output
    r = CliRunner().invoke(cli, ["selfplay", "--players", "9", "--games", "1"])
    assert r.exit_code == 2


def test_bench_cli_tiny(tmp_path):
    md = tmp_path / "BENCH.md"
    r = CliRunner().invoke(cli, ["bench", "--size", "tiny", "--write", str(md)])
    assert r.exit_code == 0, r.output
    for row in ("engine: 16-round 4-player bot game", "engine: 16-round 4-player bot game (ffg2)", "parse 20 order mails", "map render", "poll a 20-message folder",
                "replay + verify 1"):
        assert row in r.output, row
    text = md.read_text()
    assert text.startswith("# Benchmarks") and "| engine: 16-round" in text and "Machine:" in text
    assert "| benchmark | result (wall time) | CPU time | how |" in text


def test_benchmarks_md_keeps_notes():
    from pbem.bots.bench import NOTES_MARK, BenchReport, Row, benchmarks_md

    rep = BenchReport("tiny", [Row("engine", "1 ms", "how", cpu=0.0009), Row("render", "2 ms", "how")],
                      {"nproc": "2", "cpu": "x", "python": "3.11", "platform": "linux"})
    first = benchmarks_md(rep)
    # the CPU time stands beside the wall time of every row ("-" where a row has none)
    assert "| engine | 1 ms | 0.9 ms | how |" in first and "| render | 2 ms | - | how |" in first
    assert first.rstrip().endswith(NOTES_MARK)
    again = benchmarks_md(rep, first + "\n## Notes\nhot spots\n")
    assert again.endswith("\n## Notes\nhot spots\n") and again.count(NOTES_MARK) == 1


def test_bench_rows_of_issue_33_run_at_a_small_size(monkeypatch):
    """The rows `pbem bench --size full` shows for issue 33 (tiny skips them): they run and say how."""
    from pbem.bots.bench import BASELINE, bench_idle_shared, bench_mail_burst

    monkeypatch.delenv(BASELINE, raising=False)
    for row in (*bench_idle_shared(2, runs=1), bench_mail_burst(2, runs=1)):
        assert not row.skipped and row.seconds is not None and row.cpu is not None, row
        assert BASELINE in row.detail and "goal" in row.detail
