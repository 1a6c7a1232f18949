"""Small crash-safe file helpers for the mail layer (raw mail is stored before anything else)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from pbem.store.fs import TEMP_PREFIX, atomic_write, fsync_dir, write_point

__all__ = ["atomic_write", "fsync_dir", "link_new", "write_once", "write_tmp", "write_tmp_from"]


def write_tmp(directory: Path, data: bytes, *, durable: bool = True) -> Path:
    """Write `data` to a fresh hidden temp file in `directory`, fsynced (unless not `durable`: the
    caller makes it durable later, pbem.store.fs.make_durable); return its path."""
    tmp = directory / f"{TEMP_PREFIX}{uuid.uuid4().hex}"
    try:
        fh = open(tmp, "xb")
    except FileNotFoundError:
        directory.mkdir(parents=True, exist_ok=True)
        fh = open(tmp, "xb")
    with fh:
        os.fchmod(fh.fileno(), 0o600)   # mails hold tokens: readable by the owner only
        fh.write(data)
        if durable:
            fh.flush()
            os.fsync(fh.fileno())
    write_point("tmp", tmp)
    return tmp


def write_tmp_from(directory: Path, source) -> Path:
    """As write_tmp, copying from the open binary file `source` in chunks (a big mail is never in
    memory whole)."""
    import shutil

    tmp = directory / f"{TEMP_PREFIX}{uuid.uuid4().hex}"
    with open(tmp, "xb") as fh:
        os.fchmod(fh.fileno(), 0o600)
        shutil.copyfileobj(source, fh, 1024 * 1024)
        fh.flush()
        os.fsync(fh.fileno())
    write_point("tmp", tmp)
    return tmp


def write_once(path: Path, data: bytes, *, durable: bool = True) -> bool:
    """Store `data` at `path` unless a file with the same bytes is already there.

    Used for content-addressed files (`<sha256>.eml`): rewriting is idempotent. Returns True when
    the file was (re)written. `durable=False`: without the fsyncs (the caller makes the file durable
    later, pbem.store.fs.make_durable).
    """
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except OSError:
        pass
    atomic_write(path, data, mode=0o600, durable=durable)   # mails hold tokens: readable by the owner only
    return True


def link_new(tmp: Path, directory: Path, names, *, durable: bool = True) -> Path:
    """Give the written temp file `tmp` the first name from `names` not taken yet, never overwriting.

    Uses a hard link (fails atomically if the name exists), falling back to an existence check
    plus rename on file systems without hard links.
    """
    for name in names:
        final = directory / name
        try:
            os.link(tmp, final)
        except FileExistsError:
            continue
        except OSError:
            if final.exists():
                continue
            os.replace(tmp, final)
            if durable:
                fsync_dir(directory)
            write_point("done", final)
            return final
        tmp.unlink(missing_ok=True)
        if durable:
            fsync_dir(directory)
        write_point("done", final)
        return final
    tmp.unlink(missing_ok=True)
    raise FileExistsError(f"no free name in {directory}")
