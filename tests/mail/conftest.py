"""Fixtures for the mail tests: a real Dovecot IMAP server and a real aiosmtpd SMTP server on 127.0.0.1.

Dovecot runs from a throwaway config in a temp dir (own base_dir, passwd-file with one user, Maildir,
plaintext auth, no TLS, no auth penalty, no fsync). As root the mail processes run as the `dovecot`
user (Dovecot refuses uid 0), so the temp dir lives outside pytest's private tmp. Without
/usr/sbin/dovecot (or $PBEM_TEST_DOVECOT) the IMAP tests are skipped, unless the env var CI is set
(the CI script installs dovecot-imapd, so there a missing binary is a failure).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest
from imapclient import IMAPClient

from pbem.mail.directory import GameContact, PlayerContact, StaticDirectory
from pbem.mail.intake import Reply

DOVECOT = os.environ.get("PBEM_TEST_DOVECOT") or shutil.which("dovecot") or "/usr/sbin/dovecot"
DOVEADM = shutil.which("doveadm") or "/usr/bin/doveadm"
IMAP_USER = "player"
IMAP_PASSWORD = "s3cret-pass"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc_check, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                if s.recv(100).startswith(b"* OK"):
                    return
        except OSError:
            pass
        proc_check()
        time.sleep(0.05)
    raise RuntimeError(f"dovecot did not answer on port {port}")


def _alive(pid: int) -> bool:
    """True while the process runs (a zombie left to a non-reaping init counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _signal(pid: int, sig: int) -> None:
    """Signal the dovecot master and, when it leads its own process group (it daemonizes with
    setsid), its children too, so that they all stop at once."""
    try:
        target_group = os.getpgid(pid) == pid
        if target_group:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except OSError:
        pass


def _stop(pid: int) -> None:
    _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.02)
    if _alive(pid):
        _signal(pid, signal.SIGKILL)


@dataclass
class Dovecot:
    host: str
    port: int
    user: str
    password: str
    conf: Path
    root: Path
    folders: list[str] = field(default_factory=list)

    def client(self) -> IMAPClient:
        c = IMAPClient(self.host, port=self.port, ssl=False, timeout=10)
        c.login(self.user, self.password)
        return c

    def new_folder(self) -> str:
        """A fresh, empty folder for one test (tests never share folders)."""
        name = f"t{uuid.uuid4().hex[:12]}"
        with self.client() as c:
            c.create_folder(name)
        return name

    def append(self, folder: str, raw: bytes, when: datetime | None = None) -> None:
        self.append_many(folder, [(raw, when)])

    def append_many(self, folder: str, mails) -> None:
        """IMAP APPEND each (raw, INTERNALDATE or None) over one connection."""
        with self.client() as c:
            for raw, when in mails:
                c.append(folder, raw, msg_time=when)

    def config(self, folder: str, **extra) -> dict:
        return {"type": "imap", "host": self.host, "port": self.port, "security": "none",
                "username": self.user, "password": self.password, "folder": folder, **extra}


def _dovecot_conf(root: Path, port: int, as_root: bool) -> str:
    me = pwd.getpwuid(os.getuid()).pw_name
    if as_root:
        mail_user = "dovecot"
        users = "default_internal_user = dovecot\ndefault_login_user = dovenull\n"
        chroot = ""
    else:
        mail_user = me
        users = f"default_internal_user = {me}\ndefault_login_user = {me}\n"
        chroot = "  chroot =\n"
    return f"""
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
{users}first_valid_uid = 1
mail_location = maildir:{root}/mail/%u
mail_fsync = never
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user} gid={mail_user} home={root}/home/%u
}}
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service imap-login {{
{chroot}  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
"""


@pytest.fixture(scope="session")
def dovecot():
    if not os.path.exists(DOVECOT):
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {DOVECOT} is missing (apt-get install dovecot-imapd dovecot-core)")
        pytest.skip("dovecot is not installed (apt-get install -y dovecot-imapd dovecot-core)")
    as_root = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    os.chmod(root, 0o755)  # the mail processes run as the `dovecot` user and must reach mail/
    for d in ("run", "state", "mail", "home"):
        (root / d).mkdir()
    if as_root:
        pw = pwd.getpwnam("dovecot")
        for d in ("mail", "home"):
            os.chown(root / d, pw.pw_uid, pw.pw_gid)
    (root / "passwd").write_text(f"{IMAP_USER}:{{PLAIN}}{IMAP_PASSWORD}::::::\n")
    port = free_port()
    conf = root / "dovecot.conf"
    conf.write_text(_dovecot_conf(root, port, as_root))
    # No pipes: the daemon keeps inherited stdout/stderr open, and reading them would block for ever.
    with open(root / "start.log", "wb") as out:
        started = subprocess.run([DOVECOT, "-c", str(conf)], stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT, timeout=30)
    if started.returncode != 0:
        pytest.fail(f"dovecot did not start: {(root / 'start.log').read_text(errors='replace')}")

    def check():
        if not (root / "run" / "master.pid").exists():
            log = (root / "dovecot.log").read_text() if (root / "dovecot.log").exists() else ""
            raise RuntimeError(f"dovecot exited: {log[-2000:]}")

    pid = None
    try:
        _wait_port(port, check)
        pid = int((root / "run" / "master.pid").read_text().strip())
        yield Dovecot("127.0.0.1", port, IMAP_USER, IMAP_PASSWORD, conf, root)
    finally:
        if pid is None:  # never answered: ask doveadm to stop whatever did start
            subprocess.run([DOVEADM, "-c", str(conf), "stop"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        else:
            _stop(pid)
        shutil.rmtree(root, ignore_errors=True)


class _Capture:
    def __init__(self) -> None:
        self.messages: list[tuple[str, list[str], bytes]] = []
        self.lock = threading.Lock()
        self.refuse: set[str] = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.refuse:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.content)))
        return "250 Message accepted"


@dataclass
class Smtp:
    host: str
    port: int
    capture: _Capture

    @property
    def messages(self):
        with self.capture.lock:
            return list(self.capture.messages)

    def config(self, **extra) -> dict:
        return {"type": "smtp", "host": self.host, "port": self.port, "security": "none", **extra}


SMTP_USER, SMTP_PASSWORD = "relay", "relay-pass"


@pytest.fixture(scope="session")
def smtp_server():
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (getattr(auth_data, "login", b"") == SMTP_USER.encode()
              and getattr(auth_data, "password", b"") == SMTP_PASSWORD.encode())
        return AuthResult(success=ok, handled=False)  # handled=False: the server answers 535

    capture = _Capture()
    port = free_port()
    controller = Controller(capture, hostname="127.0.0.1", port=port, authenticator=authenticator,
                            auth_require_tls=False)
    controller.start()
    try:
        yield Smtp("127.0.0.1", port, capture)
    finally:
        controller.stop()


@pytest.fixture
def smtp(smtp_server):
    """The session SMTP server with an empty capture list."""
    with smtp_server.capture.lock:
        smtp_server.capture.messages.clear()
        smtp_server.capture.refuse.clear()
    return smtp_server


# -- a small game world and a fake orders handler ---------------------------------------------------
ALICE = ("alice@example.org", "8f2c41")
BOB = ("bob@example.net", "b0b0b0")
MOD = ("mod@example.com", "m0d3r4")
CAROL = ("carol@example.org", "c4r01c")
PBEM = "Britannia PBEM <pbem@adjudicator.example>"


def directory() -> StaticDirectory:
    return StaticDirectory([
        GameContact("demo-1", {"alice": PlayerContact(*ALICE, ("saxons", "jutes")),
                               "bob": PlayerContact(*BOB, ("welsh",))}, MOD),
        GameContact("north-2", {"carol": CAROL}),
    ])


class FakeHandler:
    """Records calls; replies with the lines it read, like the orders layer will."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []

    def __call__(self, game_id, sender, mail):
        self.calls.append((game_id, sender, mail.sha256))
        lines = [ln for ln in mail.text.splitlines() if ln.strip() and not ln.upper().startswith("TOKEN")]
        return Reply("Orders read:\n" + "\n".join(f"  {ln[:100]}  OK" for ln in lines[:20]) + "\n")


def make_mail(frm: str, subject: str, body: str, *, mid: str | None = None, extra: str = "") -> bytes:
    mid_line = f"Message-ID: {mid}\r\n" if mid else ""
    return (f"From: {frm}\r\nTo: pbem@adjudicator.example\r\nSubject: {subject}\r\n"
            f"Date: Mon, 3 Jun 2024 10:00:00 +0000\r\n{mid_line}{extra}"
            f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}").encode()
