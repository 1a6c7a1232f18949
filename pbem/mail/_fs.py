"""Small crash-safe file helpers for the mail layer (raw mail is stored before anything else)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from pbem.store.fs import TEMP_PREFIX, atomic_write, fsync_dir, write_point, write_temp

__all__ = ["atomic_write", "fsync_dir", "link_new", "write_once", "write_tmp", "write_tmp_from"]


def write_tmp(directory: Path, data: bytes, *, durable: bool = True) -> Path:
    """Write `data` to a fresh hidden temp file in `directory` (mode 0600: mails hold tokens), fsynced
    (unless not `durable`: the caller makes it durable later, pbem.store.fs.make_durable); return its
    path."""
    return write_temp(directory, "mail", data, 0o600, durable)


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


def write_once(path: Path, data: bytes, *, durable: bool = True, source: Path | None = None) -> bool:
    """Store `data` at `path` unless a file with the same bytes is already there.

    Used for content-addressed files (`<sha256>.eml`): rewriting is idempotent. Returns True when
    the file was (re)written. `durable=False`: without the fsyncs (the caller makes the file durable
    later, pbem.store.fs.make_durable). `source`: a file holding exactly `data` (a mail folder's
    message file), given the name by a hard link where it can be (no copy), made readable by the
    owner only.
    """
    if source is not None:
        try:
            os.link(source, path)
        except OSError:     # the name is taken, no hard links here, the source gone: as below
            pass
        else:
            try:
                os.chmod(path, 0o600)     # mails hold tokens
                same = os.stat(path).st_size == len(data)   # not written to since it was read
            except OSError:
                os.unlink(path)
                raise
            if not same:
                os.unlink(path)
                atomic_write(path, data, mode=0o600, durable=durable)
                return True
            if durable:
                fsync_dir(path.parent)
            write_point("done", path)
            return True
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except OSError:
        pass
    atomic_write(path, data, mode=0o600, durable=durable)   # mails hold tokens: readable by the owner only
    return True


def link_new(tmp: Path, directory: Path, names, *, durable: bool = True, keep: bool = False) -> Path:
    """Give the written temp file `tmp` the first name from `names` not taken yet, never overwriting.

    Uses a hard link (fails atomically if the name exists), falling back to an existence check
    plus rename on file systems without hard links. `keep`: `tmp` is a file to keep under its own
    name too (only linked: without hard links, the OSError is raised for the caller to copy it).
    """
    for name in names:
        final = directory / name
        try:
            os.link(tmp, final)
        except FileExistsError:
            continue
        except OSError:
            if keep:
                raise
            if final.exists():
                continue
            os.replace(tmp, final)
            if durable:
                fsync_dir(directory)
            write_point("done", final)
            return final
        if not keep:
            tmp.unlink(missing_ok=True)
        if durable:
            fsync_dir(directory)
        write_point("done", final)
        return final
    if not keep:
        tmp.unlink(missing_ok=True)
    raise FileExistsError(f"no free name in {directory}")
