"""Crash-safe file writes for game saves: every file is written to a temp file beside it, fsynced,
then renamed over the old one (os.replace), and the directory is fsynced.

A reader therefore always sees either the old or the new file, never half a file, and a crash leaves
at most a stray `.tmp-*` file, which `clean_temp_files` removes.

A file that can be rebuilt from durable ones (state.yaml, re-derived from the log by
pbem.store.recover) is written with `durable=False`: the same temp file and rename, no fsync. A killed
process still leaves the old or the new file; only a machine that loses power may lose the file's
last version or leave it empty, which the reader then rebuilds.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TEMP_PREFIX = ".tmp-"

WRITE_HOOK: Callable[[str, Path], None] | None = None
"""Called at every write point (`tmp`: a temp file is written, `done`: the file is in place) with the
path. Tests set it to raise and so kill a run deterministically at the N-th write; None in use."""


def write_point(what: str, path: Path) -> None:
    """A durable write happened (see WRITE_HOOK); mail transports and ledgers call it too."""
    if WRITE_HOOK is not None:
        WRITE_HOOK(what, Path(path))


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file inside `path` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


SYNCFS_OVER = 16
"""More files than this to make durable at once: one syncfs(2) of their file system instead of an
fsync each (Linux; elsewhere the fsyncs)."""


def make_durable(files: list[Path], dirs: list[Path]) -> None:
    """Make files written without their fsync (`durable=False`) and the names in `dirs` durable, all
    at once: what a batch of writes needs before anything that depends on them (issue 33: the mail
    archive's copies before the mailbox lets go of the mails)."""
    files, dirs = list(dict.fromkeys(map(Path, files))), list(dict.fromkeys(map(Path, dirs)))
    if len(files) + len(dirs) > SYNCFS_OVER and _syncfs(dirs or [f.parent for f in files]):
        return
    for f in files:
        try:
            fd = os.open(f, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    for d in dirs:
        fsync_dir(d)


def _syncfs(dirs: list[Path]) -> bool:
    """syncfs(2) once per file system of `dirs`; False where it is not available (then: fsyncs)."""
    try:
        import ctypes

        call = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return False
    done: set[int] = set()
    for d in dirs:
        try:
            fd = os.open(d, os.O_RDONLY)
        except OSError:
            return False
        try:
            dev = os.fstat(fd).st_dev
            if dev not in done:
                if call(fd) != 0:
                    return False
                done.add(dev)
        finally:
            os.close(fd)
    return True


_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_temp_numbers = itertools.count()


def write_temp(directory: Path, name: str, data: bytes, mode: int, durable: bool = True) -> Path:
    """A new temp file `.tmp-<pid>-<n>-<name>` in `directory` (made if missing) holding `data`, with
    exactly `mode`, fsynced unless not `durable`. Created exclusively: a name taken (a run killed
    before, with the same pid) is passed over for a random one, never overwritten. Plain os calls (no
    file object, no random name to draw, no mkdir when the folder is there): a burst of mail writes
    a reply file a mail (issue 33)."""
    tmp = os.path.join(directory, f"{TEMP_PREFIX}{os.getpid()}-{next(_temp_numbers)}-{name}")
    for attempt in range(100):
        try:
            fd = os.open(tmp, _TEMP_FLAGS, 0o600)
            break
        except FileNotFoundError:
            if attempt:
                raise
            os.makedirs(directory, exist_ok=True)
        except FileExistsError:
            tmp = os.path.join(directory, f"{TEMP_PREFIX}{uuid.uuid4().hex}-{name}")
    else:
        raise FileExistsError(f"no free temp name in {directory}")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    write_point("tmp", Path(tmp))
    return Path(tmp)


def atomic_write(path: Path | str, data: bytes | str, *, mode: int = 0o644, durable: bool = True) -> None:
    """Replace `path` with `data` atomically (temp file + fsync + os.replace + directory fsync);
    `durable=False`: without the two fsyncs, for a file rebuilt from others after a power loss."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = write_temp(path.parent, path.name, data, mode, durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)
    write_point("done", path)


def create_exclusive(path: Path | str, data: bytes | str, *, mode: int = 0o644) -> None:
    """Create `path` with `data`, complete or not at all; FileExistsError if the name is taken.

    The data is written to a temp file first and then hard-linked to its name (a link never
    overwrites), so an append-only log never holds a half-written or a replaced entry.
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = write_temp(path.parent, path.name, data, mode)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except OSError:   # file systems without hard links: exclusive create, then the data
            with open(path, "xb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    write_point("done", path)


def temp_files(directory: Path) -> list[Path]:
    """Stray temp files a crash may have left in `directory` (not recursive)."""
    try:
        with os.scandir(directory) as it:     # scandir: no Path per file (the log has hundreds)
            names = [d.name for d in it if d.name.startswith(TEMP_PREFIX)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(directory / n for n in names)


def clean_stale_temp_files(top: Path, older_than: float = 600.0) -> int:
    """Remove the temp files a killed run left anywhere under `top` (mail archive, outbox, reports,
    pending mails ...), when older than `older_than` seconds: a younger one may belong to a run that
    is writing it right now."""
    cutoff = time.time() - older_than
    n = 0
    for p in Path(top).rglob(f"{TEMP_PREFIX}*"):
        try:
            if p.is_file() and p.stat().st_mtime < cutoff:
                p.unlink()
                n += 1
        except OSError:
            pass
    return n


def clean_temp_files(directory: Path) -> int:
    n = 0
    for p in temp_files(directory):
        p.unlink(missing_ok=True)
        n += 1
    return n


def stat_key(p: Path | str) -> list[int] | None:
    """What a cache trusts a file or folder by: size, mtime, ctime (any write changes it; it cannot
    be set back) and inode; None when it is not there."""
    try:
        st = os.stat(p)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
