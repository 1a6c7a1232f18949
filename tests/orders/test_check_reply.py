"""check_orders (parse + the rules core's validate), the reply text, and `pbem check`."""

from __future__ import annotations

from datetime import UTC, datetime

from click.testing import CliRunner

from pbem.cli import cli
from pbem.errors import OrderProblem
from pbem.orders.check import check_orders
from pbem.orders.reply import render_reply, template_dirs
from pbem.rules.state import GameState, Stack


def _state() -> GameState:
    st = GameState(game="demo-1", round=7, next_nation="saxons")
    st.areas = {"essex": {"saxons": Stack(armies=3)}, "kent": {"saxons": Stack(armies=2)},
                "suffolk": {"angles": Stack(armies=2)}}
    return st


def fake_validate(ruleset, state, nation_orders):
    out = []
    for o in nation_orders.orders:
        if getattr(o, "path", None) and o.path[-1] == "norfolk":
            out.append(OrderProblem("too-far", o.line, o.text, "Norfolk is too far", "Reachable: Suffolk, Kent."))
    out.append(OrderProblem("stacking", 0, "", "too many armies in Kent"))
    return out


def test_parse_only_without_state(rs):
    r = check_orders("3 Essex -> Suffolk\n3 Esex -> Kent\n", rs, nation="saxons")
    assert not r.ok and not r.validated
    assert [(ln.line, ln.ok, ln.canonical) for ln in r.lines] == [(1, True, "3 Essex -> Suffolk"), (2, False, None)]
    assert [p.kind for p in r.problems] == ["unknown-name"]


def test_validator_problems_are_merged(rs):
    r = check_orders("3 essex -> suffolk\n2 Kent -> Essex -> Norfolk\n", rs, _state(), nation="saxons",
                     validate=fake_validate)
    assert r.validated and not r.ok
    assert r.lines[0].ok and not r.lines[1].ok
    assert r.lines[0].canonical == "3 Essex -> Suffolk"
    assert [p.kind for p in r.lines[1].problems] == ["too-far"]
    assert [p.kind for p in r.general] == ["stacking"]
    assert [p.kind for p in r.problems] == ["too-far", "stacking"]


def test_validator_is_called_per_nation(rs):
    seen = []
    r = check_orders("NATION Saxons\nPASS\nNATION Jutes\nPASS\n", rs, _state().to_dict(),
                     validate=lambda rs_, st, no: seen.append(no.nation) or [])
    assert seen == ["saxons", "jutes"] and r.ok


def test_reply_reads_back_and_quotes_errors(rs):
    r = check_orders("GAME demo-1\nTOKEN secret99\n3 essex → suffolk\n2 kent → essex → norfolk\n3 Esex -> Kent\n",
                     rs, _state(), nation="saxons", validate=fake_validate)
    text = render_reply(r, rs, missing=["DEFEND orders for Kent (optional)"],
                        deadline=datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
    assert "Game demo-1" in text and "Saxons" in text
    assert "OK     3 Essex -> Suffolk" in text
    assert '"2 kent → essex → norfolk"' in text and "read as: 2 Kent -> Essex -> Norfolk" in text
    assert "read as: 3 Esex" not in text
    assert "too-far: Norfolk is too far." in text and "Reachable: Suffolk, Kent." in text
    assert '"3 Esex -> Kent"' in text and "Did you mean Essex" in text
    assert "stacking: too many armies in Kent." in text
    assert "Still missing for this turn:" in text and "DEFEND orders for Kent" in text
    assert "Deadline: 2024-05-01 18:00 UTC" in text
    assert "secret99" not in text          # the token is never echoed
    assert "line   4" in text and "line   5" in text


def test_reply_all_ok(rs):
    r = check_orders("PASS\n", rs, nation="saxons")
    text = render_reply(r, rs)
    assert "OK     PASS" in text and "are OK" in text and "Deadline" not in text and "missing" not in text


def test_reply_empty_message(rs):
    text = render_reply(check_orders("-- \nsig\n", rs, nation="saxons"), rs)
    assert "No order lines" in text


def test_reply_is_capped(rs):
    r = check_orders("3 Esex -> Kent\n" * 1000, rs, nation="saxons")
    text = render_reply(r, rs, max_problems=10)
    assert text.count("Did you mean") == 10 and "990 more line(s)" in text


def test_templates_found():
    assert any((d / "reply.txt.j2").exists() for d in template_dirs())


def _game(tmp_path, state: GameState | None = None):
    from pbem.store.game import create_game

    return create_game(tmp_path, "chk", state=state or _state(), secret=b"check command test secret").path


def test_cli_check_ok(tmp_path):
    g = _game(tmp_path)
    r = CliRunner().invoke(cli, ["check", "--game", str(g), "--nation", "Saxons", "-"], input="3 Essex -> Suffolk\n")
    assert r.exit_code == 0, r.output
    assert "OK     3 Essex -> Suffolk" in r.output


def test_cli_check_errors_exit_1(tmp_path):
    g = _game(tmp_path)
    f = tmp_path / "orders.txt"
    f.write_bytes("3 Essex \u2192 Suffolk\r\n3 Esex -> Kent\r\n".encode())
    before = sorted((p.relative_to(g), p.stat().st_mtime_ns) for p in g.rglob("*") if p.is_file())
    r = CliRunner().invoke(cli, ["check", "--game", str(g), "--nation", "saxons", str(f)])
    assert r.exit_code == 1
    assert "unknown-name" in r.output and "line   2" in r.output
    # records nothing
    after = sorted((p.relative_to(g), p.stat().st_mtime_ns) for p in g.rglob("*") if p.is_file()
                   if not p.name.startswith(".log-index"))
    assert after == [x for x in before if not x[0].name.startswith(".log-index")]


def test_cli_check_bad_nation_and_missing_game(tmp_path):
    g = _game(tmp_path)
    r = CliRunner().invoke(cli, ["check", "--game", str(g), "--nation", "Saxns"], input="PASS\n")
    assert r.exit_code == 2 and "Saxons" in r.output
    r = CliRunner().invoke(cli, ["check", "--game", str(tmp_path / "nope"), "--nation", "Saxons"], input="PASS\n")
    assert r.exit_code == 1 and "nope" in r.output


def test_a_standing_order_replaced_later_in_the_mail_is_said_to_do_nothing(rs):
    """Found in the new-user run (docs/NEW-USER-RUN.md): `DEFEND Mar: RETREAT TO Alban IF OUTNUMBERED`
    then `DEFEND Mar: HOLD` were both read back OK, though only the last is kept (a standing order
    is kept per kind and area, rules.orders.standing_key), as the reply already says of VOTE lines."""
    r = check_orders("DEFEND Essex: RETREAT TO Kent IF OUTNUMBERED\nDEFEND Essex: HOLD\nDEFEND Kent: HOLD\n"
                     "LOSSES ALL: CAVALRY LAST\nLOSSES ALL: RAIDERS FIRST\nDEFEND Suffolk: HOLD\nCLEAR DEFEND Suffolk\n",
                     rs, _state(), nation="saxons")
    notes = {ln.line: ln.notes for ln in r.lines}
    assert notes[1] == ["the DEFEND on line 2 replaces it (a standing order for an area is the last one written)"]
    assert notes[4] == ["the LOSSES on line 5 replaces it (a standing order for an area is the last one written)"]
    assert notes[6] == ["the CLEAR DEFEND on line 7 replaces it (a standing order for an area is the last one written)"]
    assert notes[2] == notes[3] == notes[5] == notes[7] == []
    assert all(ln.ok for ln in r.lines)
    assert "no effect: the DEFEND on line 2 replaces it" in render_reply(r, rs)


def test_second_movement_without_a_major_invasion_is_said_to_do_nothing(rs):
    """Found in the new-user run (docs/NEW-USER-RUN.md): the Picts' `SECOND MOVEMENT` in round 1
    was read back OK though they have no major invasion (rule 7.3); only the move after it was
    refused. The line itself is marked "no effect", saying why."""
    r = check_orders("3 Essex -> Suffolk\nSECOND MOVEMENT\n2 Kent -> Essex\n", rs, _state(), nation="saxons")
    second = r.lines[1]
    assert second.ok and second.notes == ["the Saxons have no major invasion this turn (rule 7.3): the moves "
                                          "after this line are refused"]
    assert [p.kind for p in r.lines[2].problems] == ["not-now"]
    assert "no effect: the Saxons have no major invasion" in render_reply(r, rs)
