"""The running hash of a game's log (issue 18: a truncated log shows).

    h(0) = ""      h(n) = SHA-256 hex of ( h(n-1) + SHA-256 hex of the bytes of log entry n )

Log entries are append-only files that are never rewritten, so their bytes are stable (an export
keeps them). Every turn mail ends with `Log: entry N, running hash H`; `pbem replay --log-hash N:H`
checks that the log still holds entry N with that hash, so deleting the last entries (or changing
any earlier one) is seen by anyone who kept a turn mail.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# loghash alone, measured): pbem.store.game +147.


def running_hashes(game_dir: Path) -> list[tuple[int, str]]:
    """[(entry id, running hash after it)] for the log files in order."""
    from pbem.store.game import ENTRY_NAME, LOG

    files = sorted((int(m.group(1)), p) for p in (Path(game_dir) / LOG).iterdir()
                   if (m := ENTRY_NAME.match(p.name)))
    return chain_hashes([(eid, hashlib.sha256(p.read_bytes()).hexdigest()) for eid, p in files])


def chain_hashes(digests: list[tuple[int, str]], after: str = "") -> list[tuple[int, str]]:
    """[(entry id, SHA-256 hex of the file's bytes)] in log order -> [(entry id, running hash)];
    `after`: the running hash before the first of them (the log's earlier entries)."""
    out: list[tuple[int, str]] = []
    h = after
    for eid, digest in digests:
        h = hashlib.sha256((h + digest).encode("ascii")).hexdigest()
        out.append((eid, h))
    return out


def log_end(game: Any) -> tuple[int, str]:
    """(last entry id, its running hash) of an open Game (its file hashes cached, Game.running_hashes);
    (0, '') for an empty log."""
    hashes = game.running_hashes()
    return hashes[-1] if hashes else (0, "")


def parse_expectation(text: str) -> tuple[int, str]:
    """'N:H' (as a turn mail prints it) -> (N, H); ValueError when it is not that."""
    n, sep, h = str(text).strip().partition(":")
    if not sep or not n.strip().isdigit() or len(h.strip()) != 64:
        raise ValueError(f"not ENTRY:HASH (64 hex digits): {text!r}")
    return int(n), h.strip().lower()
