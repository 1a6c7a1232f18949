"""One set of line numbers (issue 30): a turn is played from its orders in canonical form (the turn
entry's `orders[nation].text`), so its events name the lines of that text; the players numbered the
lines of their mails. The orders entries a turn used log each canonical line's mail line
(`mail_lines`), and the report speaks of those."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pbem.rules.events import Event


def mail_line_map(entries: Sequence[Any], turn: Any) -> dict[str, dict[int, int]]:
    """{nation: {line of the turn's orders text: line of the mail it came from}} for one turn entry;
    lines whose mail is not known (supplied orders, entries from before `mail_lines`) are left out."""
    by_id = {e.id: e for e in entries}
    out: dict[str, dict[int, int]] = {}
    for nation, block in (turn.get("orders") or {}).items():
        ids = list(block.get("entries") or ([block["entry"]] if isinstance(block.get("entry"), int) else []))
        pool: dict[str, list[int]] = {}
        for ref in reversed(ids):    # a line in several mails: the latest mail's
            e = by_id.get(ref)
            if e is None or not e.get("mail_lines"):
                continue
            for line, mail in zip(str(e.get("text") or "").splitlines(), e.get("mail_lines"), strict=False):
                pool.setdefault(line.strip(), []).append(int(mail))
        found = {}
        for n, line in enumerate(str(block.get("text") or "").splitlines(), 1):
            got = pool.get(line.strip())
            if got:
                found[n] = got.pop(0)
        if found:
            out[nation] = found
    return out


def renumbered(events: Sequence[Event], mail_lines: Mapping[str, Mapping[int, int]] | None) -> list[Event]:
    """The events with their `line`/`lines` told as the lines of the players' mails."""
    if not mail_lines:
        return list(events)
    out = []
    for ev in events:
        owner = getattr(ev, "nation", None) or getattr(ev, "attacker", None) or getattr(ev, "turn", None)
        lines = mail_lines.get(str(owner or ""))
        if lines:
            if isinstance(getattr(ev, "line", None), int) and ev.line:
                ev = replace(ev, line=lines.get(ev.line, ev.line))
            if isinstance(getattr(ev, "lines", None), list):
                ev = replace(ev, lines=[lines.get(n, n) for n in ev.lines])
        out.append(ev)
    return out



def played_from_player_orders(rs, entries: Sequence[Any], turn: Any) -> bool:
    """Whether a nation's turn entry played turn orders a player sent (else the no-orders rule or the
    bot supplied them, and the report says so: issue 30)."""
    from pbem.orders.parser import parse_message
    from pbem.rules.orders import STANDING_TYPES

    nation = turn.get("nation")
    block = (turn.get("orders") or {}).get(nation) if nation else None
    if not block:
        return False
    ids = list(block.get("entries") or ([block["entry"]] if isinstance(block.get("entry"), int) else []))
    by_id = {e.id: e for e in entries}
    for ref in ids:
        e = by_id.get(ref)
        if e is None or e.kind != "orders" or e.get("nation") != nation:
            continue
        section = parse_message(str(e.get("text") or ""), rs, default_nation=nation).section(nation)
        if section is not None and any(not isinstance(o, STANDING_TYPES) for o in section.orders):
            return True
    return False
