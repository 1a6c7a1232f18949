"""The mail ledger's lock: one exclusive flock(2) on a lock file, waited for up to a timeout.

Every cron run takes it (the site's mailbox is polled each run), so it is kept to the few calls it
needs: importing the filelock package costs 30-40 ms on a small server, most of an idle run over a
thousand games (issue 33). The game and site locks keep filelock (one lock object per file in a
process, re-entrant across Game objects). Both take the same flock, so the two agree on one file.
"""

from __future__ import annotations

import os
import time

try:
    import fcntl
except ImportError:     # not POSIX (Windows): filelock's own lock, imported when one is taken
    fcntl = None

POLL = 0.05     # seconds between tries while another process holds the lock


class LockTimeout(Exception):
    """Another process held the lock for the whole timeout."""


class FlockLock:
    """`acquire` / `release` of an exclusive lock on `lock_file` (created if missing, never removed:
    removing it could let two processes lock two different files of one name). Not re-entrant: the
    ledger takes it once a run."""

    def __init__(self, lock_file: str, timeout: float = 10.0) -> None:
        self.lock_file = lock_file
        self.timeout = timeout
        self._fd: int | None = None
        self._other = None          # filelock's lock where there is no fcntl

    @property
    def is_locked(self) -> bool:
        return self._fd is not None or self._other is not None

    def acquire(self) -> None:
        if self.is_locked:
            raise RuntimeError(f"lock {self.lock_file} is already held by this object")
        if fcntl is None:
            self._acquire_elsewhere()
            return
        deadline = time.monotonic() + max(self.timeout, 0.0)
        fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockTimeout(self.lock_file) from None
                    time.sleep(POLL)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)        # closing the only descriptor of the open file lets go of its flock
        other, self._other = self._other, None
        if other is not None:
            other.release()

    def _acquire_elsewhere(self) -> None:
        import filelock

        lock = filelock.FileLock(self.lock_file, timeout=self.timeout)
        try:
            lock.acquire()
        except filelock.Timeout as e:
            raise LockTimeout(self.lock_file) from e
        self._other = lock
