"""SmtpTransport: outgoing mail via smtplib (issue 9). TLS on connect (ssl), STARTTLS or none;
authentication only when a username is set."""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Mapping
from email.message import Message

from pbem.errors import MailError
from pbem.mail.transport import PermanentMailError, secret


class SmtpTransport:
    """One SMTP submission server; the connection is opened at the first `send`, kept, and closed by
    `close()` (Transports.close() closes every transport)."""

    def __init__(
        self,
        host: str,
        *,
        port: int | None = None,
        security: str = "starttls",
        username: str = "",
        password: str | None = None,
        timeout: float = 60.0,
        ssl_context: ssl.SSLContext | None = None,
        envelope_from: str | None = None,
        name: str | None = None,
    ) -> None:
        if security not in ("ssl", "starttls", "none"):
            raise MailError(f"smtp: unknown security {security!r}", hint="use ssl, starttls or none")
        self.host = host
        self.security = security
        self.port = port or {"ssl": 465, "starttls": 587, "none": 25}[security]
        self.username = username
        self.password = password
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.envelope_from = envelope_from
        self.name = name or f"smtp:{host}:{self.port}"
        self._server: smtplib.SMTP | None = None

    @classmethod
    def from_config(cls, config: Mapping) -> SmtpTransport:
        """From settings: host, port, security (ssl|starttls|none; or ssl/starttls booleans),
        username, password or password_env (default PBEM_SMTP_PASSWORD), timeout, envelope_from, name."""
        if not config.get("host"):
            raise MailError("smtp transport: `host` is missing")
        security = config.get("security")
        if security is None:
            security = "ssl" if config.get("ssl") else ("none" if config.get("starttls") is False else "starttls")
        return cls(
            str(config["host"]), port=int(config["port"]) if config.get("port") else None,
            security=str(security), username=str(config.get("username", "")),
            password=secret(config, "PBEM_SMTP_PASSWORD"), timeout=float(config.get("timeout", 60)),
            envelope_from=config.get("envelope_from"), name=config.get("name"),
        )

    def _connect(self) -> smtplib.SMTP:
        if self.security == "ssl":
            server: smtplib.SMTP = smtplib.SMTP_SSL(
                self.host, self.port, timeout=self.timeout,
                context=self.ssl_context or ssl.create_default_context(),
            )
        else:
            server = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        try:
            if self.security == "starttls":
                server.starttls(context=self.ssl_context or ssl.create_default_context())
            if self.username:
                server.login(self.username, self.password or "")
        except BaseException:
            server.close()
            raise
        return server

    def send(self, message: Message) -> None:
        """Submit one message (recipients from To/Cc/Bcc).

        What fails for every recipient is the transport's fault, not the mail's (a relay refusing
        everything, a rejected login or sender, a dropped connection, any 4xx): MailError, and the
        mail stays owed and is sent again on the next run. Only a refusal that names this mail is
        PermanentMailError: some recipients refused while others took it (the mail went to those;
        sending it again would duplicate it), or a 5xx to the message itself (after DATA).

        The connection is kept for the next send (a run sends many replies) until `close()`; a kept
        connection the server dropped meanwhile is replaced once, transparently."""
        mid = message.get("Message-ID", "")
        refused: dict = {}
        for attempt in (1, 2):
            reused = self._server is not None
            try:
                if self._server is None:
                    self._server = self._connect()
                refused = self._server.send_message(message, from_addr=self.envelope_from)
                break
            except smtplib.SMTPRecipientsRefused as exc:   # nobody took it: retry on the next run
                self.close()
                raise MailError(f"{self.name}: every recipient of {mid} refused, will retry: "
                                f"{_codes(exc.recipients)}") from exc
            except smtplib.SMTPResponseException as exc:
                self.close()
                if reused and attempt == 1 and exc.smtp_code == 421:
                    continue  # "closing connection" on a kept connection: open a new one
                permanent = isinstance(exc, smtplib.SMTPDataError) and 500 <= exc.smtp_code < 600
                cls = PermanentMailError if permanent else MailError
                raise cls(f"{self.name}: sending {mid} failed: {exc}") from exc
            except (smtplib.SMTPException, OSError) as exc:  # OSError covers timeouts and TLS errors
                self.close()
                if reused and attempt == 1:
                    continue  # the kept connection had gone stale
                raise MailError(f"{self.name}: sending {mid} failed: {exc}") from exc
        if refused:   # the others have it (sending it again would duplicate it): these addresses lose it
            raise PermanentMailError(f"{self.name}: {mid} sent, but recipients refused: {_codes(refused)}")

    def close(self) -> None:
        """Say QUIT on the kept connection (errors ignored)."""
        server, self._server = self._server, None
        if server is not None:
            try:
                server.quit()
            except (smtplib.SMTPException, OSError):
                server.close()


def _codes(refused: Mapping) -> str:
    """{address: (code, message)} -> 'a@x (550), b@y (451)'."""
    return ", ".join(f"{addr} ({code})" for addr, (code, _) in sorted(refused.items()))
