"""The parsed files of a ruleset kept between processes.

Reading the files keeps their comments (the doubts), which needs ruamel's pure-Python round-trip
parser: about a second. Every `pbem` process needs the ruleset, so the parsed tables are kept in the
user's cache folder ($XDG_CACHE_HOME/pbem or ~/.cache/pbem; marshal: plain data only), keyed by the
ruleset id and the SHA-256 of the files' bytes: a changed file is read again, whatever its folder.
A cache that cannot be read or written is only slower.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from pathlib import Path

from pbem.data import folders
from pbem.errors import DataError


def cache_file(ruleset_id: str) -> Path | None:
    try:
        digest = hashlib.sha256()
        for name in folders.FILES:
            digest.update(folders.file_path(ruleset_id, f"{name}.yaml").read_bytes())
    except (OSError, DataError):
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pbem"
    return base / f"{ruleset_id}-{digest.hexdigest()[:24]}-py{sys.version_info[0]}{sys.version_info[1]}.marshal"


def read(ruleset_id: str):
    """(tables, notes) as parsed before, or None."""
    path = cache_file(ruleset_id)
    try:
        data = marshal.loads(path.read_bytes()) if path else None
    except (OSError, EOFError, ValueError, TypeError):
        return None
    ok = isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], dict) and isinstance(data[1], dict)
    return data if ok else None


def write(ruleset_id: str, parsed) -> None:
    path = cache_file(ruleset_id)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(marshal.dumps(parsed))
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass   # only a cache
