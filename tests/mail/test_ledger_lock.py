"""Issue 33 item 1 — the mail ledger's own flock lock (pbem.mail._lock): one holder at a time, a
waiter gives up after its timeout, a release lets the next one in, and it excludes (and is excluded
by) the filelock package's lock on the same file, which the game and site locks use."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from filelock import FileLock, Timeout

from pbem.errors import MailError
from pbem.mail._lock import FlockLock, LockTimeout
from pbem.mail.ledger import Ledger


def test_one_holder_at_a_time_and_a_release_lets_the_next_in(tmp_path):
    path = str(tmp_path / "x.lock")
    first, second = FlockLock(path, timeout=0.1), FlockLock(path, timeout=0.1)
    first.acquire()
    assert first.is_locked
    t0 = time.monotonic()
    with pytest.raises(LockTimeout):
        second.acquire()
    assert time.monotonic() - t0 >= 0.1
    assert not second.is_locked
    first.release()
    second.acquire()
    second.release()
    second.release()        # a second release is harmless


def test_a_lock_held_by_another_process_is_waited_for_then_taken(tmp_path):
    path = tmp_path / "x.lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pbem.mail._lock import FlockLock; "
        f"lk = FlockLock({str(path)!r}); lk.acquire(); print('held', flush=True); time.sleep(0.6)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LockTimeout):
            FlockLock(str(path), timeout=0.05).acquire()
        waiter = FlockLock(str(path), timeout=10)
        waiter.acquire()            # the holder exits: its lock goes with it
        waiter.release()
    finally:
        holder.wait(timeout=10)


def test_it_and_the_filelock_package_exclude_each_other(tmp_path):
    path = str(tmp_path / "x.lock")
    with FileLock(path):
        with pytest.raises(LockTimeout):
            FlockLock(path, timeout=0.05).acquire()
    mine = FlockLock(path, timeout=0.05)
    mine.acquire()
    with pytest.raises(Timeout):
        FileLock(path, timeout=0.05).acquire()
    mine.release()
    with FileLock(path, timeout=0.05):
        pass


def test_a_busy_ledger_says_the_intake_is_already_running(tmp_path):
    ledger, other = Ledger(tmp_path / "ledger.jsonl", lock_timeout=0.05), Ledger(tmp_path / "ledger.jsonl",
                                                                                 lock_timeout=0.05)
    with ledger:
        with pytest.raises(MailError, match="already running"):
            other.__enter__()
    with other:                 # released on exit
        pass


def test_without_fcntl_the_filelock_package_takes_the_lock(tmp_path, monkeypatch):
    from pbem.mail import _lock

    monkeypatch.setattr(_lock, "fcntl", None)
    path = str(tmp_path / "x.lock")
    mine = FlockLock(path, timeout=0.05)
    mine.acquire()
    assert mine.is_locked
    with pytest.raises(LockTimeout):
        FlockLock(path, timeout=0.05).acquire()
    mine.release()
    assert not mine.is_locked
    FlockLock(path, timeout=0.05).acquire()
