"""Shared helpers for the intake tests: a folder-transport intake and ways to look at its results."""

from __future__ import annotations

import email
import json
import os
from email import policy
from pathlib import Path

from pbem.mail.folder import FolderTransport
from pbem.mail.intake import Intake

from .conftest import PBEM, FakeHandler, directory


class Setup:
    """An intake over `<tmp>/inbox` and `<tmp>/outbox` with the test directory and a FakeHandler."""

    def __init__(self, tmp: Path, handler=None, fault=None, outgoing="folder", directory_=None) -> None:
        self.tmp = tmp
        self.inbox = tmp / "inbox"
        self.outbox = tmp / "outbox"
        self.archive = tmp / "mail"
        self.handler = handler or FakeHandler()
        self.transport = FolderTransport(self.inbox, self.outbox)
        self.outgoing = self.transport if outgoing == "folder" else outgoing
        self.fault = fault
        self.directory = directory_ or directory()

    def intake(self) -> Intake:
        return Intake([self.transport], self.outgoing, self.directory, self.handler,
                      archive_dir=self.archive, from_addr=PBEM, fault=self.fault)

    def run(self):
        return self.intake().run_once()

    def drop(self, name: str, raw: bytes, mtime: float) -> Path:
        self.inbox.mkdir(parents=True, exist_ok=True)
        p = self.inbox / name
        p.write_bytes(raw)
        os.utime(p, (mtime, mtime))
        return p

    def sent(self) -> list:
        """Parsed outbox mails, in the order they were written."""
        if not self.outbox.exists():
            return []
        files = sorted(self.outbox.glob("*.eml"), key=lambda p: (p.stat().st_mtime_ns, p.name))
        return [email.message_from_bytes(p.read_bytes(), policy=policy.default) for p in files]

    def ledger(self) -> list[dict]:
        path = self.archive / "ledger.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def entries(self):
        intake = self.intake()
        intake.ledger.load()
        return intake.ledger.entries

    def pending_files(self) -> list[str]:
        return sorted(p.name for p in self.inbox.glob("*") if p.is_file()) if self.inbox.exists() else []
