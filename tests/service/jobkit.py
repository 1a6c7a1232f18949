"""What the job tests share: a four-player game in a folder, order mails dropped in its inbox, the
mails it sends read back."""

from __future__ import annotations

import email
from datetime import UTC, datetime
from email import policy
from pathlib import Path

from pbem.store.game import Game, create_game

REPO = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]


def mails(outbox: Path) -> list[email.message.EmailMessage]:
    return [email.message_from_bytes(p.read_bytes(), policy=policy.default) for p in sorted(outbox.glob("*.eml"))]


def body(m) -> str:
    return m.get_body(("plain",)).get_content()


def new_game(tmp_path: Path, secret: bytes) -> Game:
    g = create_game(tmp_path, "t1", players=4, player_specs=PLAYERS, secret=secret, time=T0.isoformat())
    (g.path / "inbox").mkdir(exist_ok=True)
    return g


def send(game: Game, player: str, text: str, n: int, *, token: str | None = None, sender: str | None = None,
         id_prefix: str = "m") -> None:
    """An orders mail from `player` (or a forged `sender`), with the player's token unless another is given."""
    p = game.player(player)
    raw = (f"From: {sender or p['address']}\nSubject: [{game.id}] orders\nMessage-ID: <{id_prefix}{n}@x.org>\n\n"
           f"TOKEN {token or p['token']}\n{text}\n")
    (game.path / "inbox" / f"{n:03d}.eml").write_text(raw)
