"""Issue 30, must show: over bot turns with injected mistakes, in both rulesets, each mail gets exactly
one reply, `pbem check` prints that reply byte for byte, its line numbers are the mail's, every line
it calls OK is named by an event of the adjudication and no refused line is carried out.

The mistakes (a seeded choice per turn): a misspelt place, a move to a place out of reach, a line
doubled (too many armies, or stacking), a STAY at sea, orders for a later nation of the player in the
same mail, comment and blank lines that shift the numbering. Kept to a dozen turns per ruleset."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from click.testing import CliRunner
from jobkit import PLAYERS, T0, body, mails

from pbem.bots import bot_orders
from pbem.cli import cli
from pbem.report.lines import mail_line_map, renumbered
from pbem.rules.events import OrderDropped, OrderUnused
from pbem.service.job import run_job
from pbem.store.game import Game, create_game

TURNS = 12
LINE = re.compile(r"^  line +(\d+)  (OK|ERROR)  +(.*)$")
STANDING = ("DEFEND", "VOTE", "SUBMIT", "SECOND MOVEMENT", "PASS")   # answered later, or no order of the turn


def misspell(line: str, rng: random.Random) -> str:
    words = [w for w in re.findall(r"[A-Z][a-z]{4,}", line)]
    if not words:
        return line
    w = rng.choice(words)
    return line.replace(w, w[:-2] + w[-1] + "q", 1)


def inject(text: str, rng: random.Random, kind: str, rs, state, later: str | None) -> str:
    lines = text.splitlines()
    moves = [i for i, ln in enumerate(lines) if "->" in ln]
    if kind == "misspell" and moves:
        i = rng.choice(moves)
        lines[i] = misspell(lines[i], rng)
    elif kind == "too-far" and moves:
        i = rng.choice(moves)
        far = rng.choice(sorted(a for a in rs.areas if rs.is_land(a)))
        lines[i] = lines[i].rsplit("->", 1)[0] + "-> " + rs.display(far)
    elif kind == "doubled" and moves:
        i = rng.choice(moves)
        lines.insert(i + 1, lines[i])
    elif kind == "stay-at-sea":
        seas = sorted(rs.seas)
        lines.append(f"STAY 2 {rs.display(rng.choice(seas))}")
    elif kind == "later" and later:
        lines += [f"NATION {rs.display(later)}", "1 Nowhere -> Kent"]
    lines.insert(1, "# my plan, as the shifted numbering shows")
    lines.insert(2, "")
    return "\n".join(lines) + "\n"


def reply_lines(text: str) -> dict[int, tuple[str, str, bool]]:
    """{mail line: (OK|ERROR, text shown, said to do nothing (OK) or to be carried out in part (ERROR))}."""
    out: dict[int, tuple[str, str, bool]] = {}
    rows = text.splitlines()
    for i, row in enumerate(rows):
        m = LINE.match(row)
        if m:
            notes = []
            for nxt in rows[i + 1:]:
                if not nxt.startswith(" " * 20):
                    break
                notes.append(nxt.strip())
            noted = any(n.startswith("no effect:") for n in notes) or any("still carried out" in n for n in notes)
            out[int(m.group(1))] = (m.group(2), m.group(3).strip('"'), noted)
    return out


@pytest.mark.parametrize("ruleset", ["classic", "ffg2"])
def test_every_mail_gets_one_reply_that_says_what_is_played(tmp_path, ruleset):
    rng = random.Random(f"issue 30 {ruleset}")
    game = create_game(tmp_path, "p1", ruleset=ruleset, players=4, player_specs=PLAYERS,
                       secret=b"property test secret " + ruleset.encode(), time=T0.isoformat())
    (game.path / "inbox").mkdir(exist_ok=True)
    now = T0
    run_job(tmp_path, now=now, render_map=False)
    kinds = ["misspell", "too-far", "doubled", "stay-at-sea", "later", "none"]
    checked = 0
    for turn in range(TURNS):
        g = Game.open(game.path)
        state, rs = g.state, g.ruleset()
        nation = state.next_nation
        if state.finished or nation is None:
            now += timedelta(hours=80)
            run_job(tmp_path, now=now, render_map=False)
            continue
        player = g.player_of(nation)
        order = list(rs.order_of_play)
        later = next((n for n in order[order.index(nation) + 1:] if n in g.nations_of(player)), None)
        kind = kinds[turn % len(kinds)] if turn < len(kinds) else rng.choice(kinds)
        orders = inject(bot_orders(rs, state, nation, kind="greedy", seed=turn), rng, kind, rs, state, later)
        token = g.player(player)["token"]
        text = f"TOKEN {token}\n" + orders           # the mail: line 1 is the TOKEN line
        (tmp_path / "orders.txt").write_text(text)
        check = CliRunner().invoke(cli, ["check", "--game", str(g.path), "--nation", nation, str(tmp_path / "orders.txt")])
        addr = g.player(player)["address"]
        before = len(mails(g.path / "outbox"))
        n = turn + 1
        (g.path / "inbox" / f"{n:03d}.eml").write_text(
            f"From: {addr}\nSubject: [{g.id}] orders\nMessage-ID: <p{n}@x.org>\n\n{text}")
        now += timedelta(minutes=30)
        run_job(tmp_path, now=now, render_map=False)
        new = [m for m in mails(g.path / "outbox")[before:] if m["To"] == addr]
        replies = [m for m in new if "Re:" in str(m["Subject"])]
        assert len(replies) == 1, (kind, [str(m["Subject"]) for m in new])
        assert not [m for m in new if "please correct" in str(m["Subject"])], "the reply was the answer"
        answer = body(replies[0])
        assert answer.startswith(check.output.rstrip("\n")), (kind, answer, check.output)
        said = reply_lines(answer)
        mail_rows = text.splitlines()
        for line, (_verdict, shown, _noted) in said.items():   # the mail's own numbering
            assert 0 < line <= len(mail_rows) and (mail_rows[line - 1].strip() == shown
                                                   or _verdict == "OK"), (line, shown, mail_rows)
        g = Game.open(game.path)
        if g.state.next_nation == nation:                  # orders with problems: the deadline plays them
            now += timedelta(hours=73)
            run_job(tmp_path, now=now, render_map=False)
            g = Game.open(game.path)
        turns = [e for e in g.entries("turn") if e.get("nation") == nation and e.get("round") == state.round]
        assert turns, "the turn was played"
        entry = turns[-1]
        events = [ev for ev in renumbered(entry.typed_events(), mail_line_map(g.entries(), entry))
                  if (getattr(ev, "nation", None) or getattr(ev, "attacker", None) or getattr(ev, "turn", None)) == nation]
        named, dropped = set(), set()
        for ev in events:
            lines = set(getattr(ev, "lines", None) or []) | ({ev.line} if getattr(ev, "line", 0) else set())
            (dropped if isinstance(ev, OrderDropped) else named).update(lines)
        unused = {ev.line for ev in events if isinstance(ev, OrderUnused)}
        own = rs.display(nation)
        section = None
        for line, row in enumerate(mail_rows, 1):
            if row.upper().startswith("NATION "):
                section = row[7:].strip()
            if section != own or line not in said:
                continue
            verdict, shown, noted = said[line]
            if verdict == "OK" and not shown.upper().startswith(STANDING):
                assert line in named and line not in dropped, (kind, line, shown, answer)
                assert noted == (line in unused), (kind, line, shown, "no effect as the reply said")
            if verdict == "ERROR" and not noted:   # (noted: "still carried out where the rules allow it")
                assert line not in named - unused, (kind, line, shown, "a refused line was carried out", answer)
        checked += 1
    assert checked >= TURNS - 2
