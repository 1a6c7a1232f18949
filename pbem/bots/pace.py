"""How long a game by mail takes in calendar days (issue 32): simulated players on a simulated clock.

A game is played through the real cron cycle — `pbem run` (service.job.run_job) on a folder game, at
the ticks a cron job every `cron_minutes` would make — by simulated players who read the mails the
judge sends them and answer the ones that ask for something (a prompt, a reminder, a correction, a
retreat question) after a realistic delay:

- the delay is drawn from a log-normal distribution with the mean `mean_hours` (most answers come
  within a few hours, a few take a day or more);
- each player lives in a time zone and sleeps from 23:00 to 07:00 local time: an answer that would
  fall in the night is written in the morning, a little after waking;
- with the probability `miss` a player overlooks a request; the reminder then brings an answer with
  the probability `reminder_answer` (after the same kind of delay, so it may still come too late);
  otherwise the judge's no-orders rule plays that nation at its deadline.

Their orders are the greedy bot's, written as text (pbem.bots.bot_orders) against the position when
they answer, so they go through the parser, the validator and the adjudicator like a person's. Two
ways of playing (`style`):

- `asked`: a player sends the orders of the nation they were asked about (votes when asked to vote);
- `ahead`: with those, the orders of every nation of theirs still to come in the round, one mail for
  all (the judge plays each when its turn comes if still legal, and asks again only when not).

Nothing here reads the wall clock or the global random generator: a run is the same for the same
seed. The figures (calendar days per 16-round game, mails each player sends and receives) are the
`pace` rows of `pbem bench` and of `pbem pace`.
"""

from __future__ import annotations

import heapq
import math
import random
import re
import statistics
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.utils import parseaddr
from pathlib import Path

STYLES = ("asked", "ahead")
NIGHT = (23, 7)                      # local hours: asleep from 23:00 to 07:00
ZONES = (-5, 0, 1, 3, -8, 9)         # UTC offsets of the simulated players, in turn
ASKING = re.compile(r"\]\s*(Reminder: )?(your orders|corrected orders|your Bretwalda vote|retreat decision)",
                    re.IGNORECASE)


@dataclass(frozen=True)
class PaceSettings:
    players: int = 4
    ruleset: str = "classic"
    style: str = "asked"
    mean_hours: float = 8.0          # mean answer delay while awake
    spread: float = 1.0              # sigma of the log-normal delay
    miss: float = 0.05               # chance a request is overlooked
    reminder_answer: float = 0.5     # chance the reminder of an overlooked request is answered
    cron_minutes: int = 10
    turn_hours: float = 72.0
    reminder_hours: float = 24.0
    max_days: float = 730.0          # give up after this much simulated time


@dataclass
class PlayerTally:
    name: str
    utc_offset: int
    sent: int = 0                    # order mails the player wrote
    received: int = 0                # mails the judge sent them
    asked: int = 0                   # of which requests (prompts, reminders, corrections)
    missed: int = 0                  # requests overlooked (the reminder may still bring an answer)


@dataclass
class PaceResult:
    settings: PaceSettings
    seed: int
    days: float                      # from the game's creation to its end (or to max_days)
    finished: bool
    rounds: int
    runs: int                        # cron runs that had something to do
    nmr: int                         # nation turns played at the deadline without orders
    players: list[PlayerTally] = field(default_factory=list)

    @property
    def mails_sent(self) -> float:
        return statistics.mean(p.sent for p in self.players)

    @property
    def mails_received(self) -> float:
        return statistics.mean(p.received for p in self.players)


def _delay_hours(rng: random.Random, s: PaceSettings) -> float:
    """A log-normal delay whose mean is s.mean_hours: mu = ln(mean) - sigma^2 / 2."""
    mu = math.log(max(s.mean_hours, 0.01)) - s.spread ** 2 / 2
    return rng.lognormvariate(mu, s.spread)


def answer_time(received: datetime, offset: int, rng: random.Random, s: PaceSettings) -> datetime:
    """When a player living at UTC+offset answers a mail received at `received`: after the delay,
    moved out of the night to a little after 07:00 local."""
    t = received + timedelta(hours=_delay_hours(rng, s))
    local = t + timedelta(hours=offset)
    sleep, wake = NIGHT
    if local.hour >= sleep or local.hour < wake:
        morning = local.replace(hour=wake, minute=0, second=0, microsecond=0)
        if local.hour >= sleep:
            morning += timedelta(days=1)
        local = morning + timedelta(minutes=rng.uniform(5, 90))
    return local - timedelta(hours=offset)


def _next_tick(t: datetime, minutes: int) -> datetime:
    """The first cron tick at or after t (ticks at whole multiples of `minutes` past midnight UTC)."""
    base = t.replace(hour=0, minute=0, second=0, microsecond=0)
    step = timedelta(minutes=minutes)
    n = math.ceil((t - base) / step)
    return base + n * step


class _Table:
    """The simulated players around one folder game."""

    def __init__(self, games_dir: Path, game_id: str, s: PaceSettings, seed: int, start: datetime) -> None:
        from pbem.store.game import Game, create_game

        specs = [(f"p{i + 1}", f"p{i + 1}@example.org") for i in range(s.players)]
        create_game(games_dir, game_id, ruleset=s.ruleset, players=s.players, player_specs=specs,
                    secret=f"pace simulation, seed {seed}".encode(), time=start.isoformat())
        self.dir = games_dir / game_id
        game = Game.open(self.dir)
        game.settings["deadlines"]["turn_hours"] = s.turn_hours
        game.settings["deadlines"]["decision_hours"] = s.turn_hours
        game.settings["deadlines"]["reminder_hours"] = s.reminder_hours
        for i, p in enumerate(game.settings["players"]):   # each player's zone, so that reminders come in their day
            p["timezone"] = zone_name(ZONES[i % len(ZONES)])
        game.save_settings()
        self.game_id, self.s = game_id, s
        self.rng = random.Random(seed)
        self.tally = {p["name"]: PlayerTally(p["name"], ZONES[i % len(ZONES)]) for i, p in enumerate(game.players())}
        self.by_address = {p["address"]: p["name"] for p in game.players()}
        self.seen_outbox: set[str] = set()
        self.overlooked: set[tuple[str, str]] = set()      # (player, subject without "Reminder: ")
        self.mail_no = 0

    def read_outbox(self, now: datetime) -> list[tuple[datetime, str, tuple[str, ...]]]:
        """Deliver the judge's new mails; return the answers the requests among them call for."""
        answers = []
        outbox = self.dir / "outbox"
        for path in sorted(outbox.glob("*.eml")):
            if path.name in self.seen_outbox:
                continue
            self.seen_outbox.add(path.name)
            msg = message_from_bytes(path.read_bytes())
            subject = " ".join(str(msg.get("Subject", "")).split())
            to = [parseaddr(a)[1] for a in str(msg.get("To", "")).split(",")]
            for addr in to:
                name = self.by_address.get(addr)
                if name is None:
                    continue
                t = self.tally[name]
                t.received += 1
                if not ASKING.search(subject):
                    continue
                t.asked += 1
                request = subject.replace("Reminder: ", "")
                if "Reminder: " in subject:
                    # the answer to the prompt is on its way, unless the player overlooked it
                    if (name, request) not in self.overlooked or self.rng.random() >= self.s.reminder_answer:
                        continue
                    self.overlooked.discard((name, request))
                elif self.rng.random() < self.s.miss:
                    t.missed += 1
                    self.overlooked.add((name, request))
                    continue
                answers.append((answer_time(now, t.utc_offset, self.rng, self.s), name, asked_nations(subject)))
        return answers

    def write_orders(self, player: str, now: datetime, asked: tuple[str, ...] = ()) -> bool:
        """The player answers with what is owed to them now (`asked`: the nations the request named,
        as the mail wrote them); False when nothing is."""
        from pbem.rules.flow import votes_owed
        from pbem.rules.legal import vote_options
        from pbem.store.game import Game

        game = Game.open(self.dir)
        state, rs = game.state, game.ruleset()
        if state.finished:
            return False
        mine = [n for n in rs.order_of_play if game.player_of(n) == player]
        parts = []
        if state.next_nation is None:
            if votes_owed(rs, state):
                for n in mine:
                    if n in vote_options(rs, state):
                        parts.append(f"NATION {rs.display(n)}\nVOTE {rs.display(n)}\n")
        elif state.next_nation in mine:
            order = list(rs.order_of_play)
            later = [n for n in order[order.index(state.next_nation) + 1:] if n in mine]
            named = {a.lower() for a in asked}
            nations = [state.next_nation] + [n for n in later if self.s.style == "ahead"
                                             or rs.display(n).lower() in named]
            for n in nations:
                parts.append(_orders_now(rs, state, n, seed=f"{self.game_id}:{state.round}:{n}:{self.mail_no}"))
        if not parts:
            return False
        address = game.player(player)["address"]
        token = game.player(player)["token"]
        self.mail_no += 1
        body = f"TOKEN {token}\n" + "\n".join(parts)
        raw = (f"From: {address}\nTo: pbem-{self.game_id}@localhost\nSubject: [{self.game_id}] orders\n"
               f"Message-ID: <pace-{self.mail_no}@example.org>\nDate: {now.strftime('%a, %d %b %Y %H:%M:%S +0000')}\n"
               f"\n{body}")
        inbox = self.dir / "inbox"
        inbox.mkdir(exist_ok=True)
        (inbox / f"pace-{self.mail_no:05d}.eml").write_text(raw.replace("\n", "\r\n"), encoding="utf-8")
        self.tally[player].sent += 1
        return True

    def next_deadline_tick(self, now: datetime) -> datetime | None:
        """The cron tick at which the judge next has a reminder or a deadline to act on."""
        from pbem.rules.flow import votes_owed
        from pbem.store.clock import current_deadline, player_zone, remind_time
        from pbem.store.game import Game

        game = Game.open(self.dir)
        if game.state.finished:
            return None
        d = current_deadline(game, vote=votes_owed(game.ruleset(), game.state))
        reminders = [remind_time(d, player_zone(game, p["name"])) for p in game.players()]
        times = [t for t in (*reminders, d.due) if t > now]
        return _next_tick(min(times), self.s.cron_minutes) if times else None


def zone_name(offset: int) -> str:
    """The IANA name of a whole-hour UTC offset (Etc/GMT+5 is UTC-5: the sign is POSIX's)."""
    return f"Etc/GMT{-offset:+d}" if offset else "Etc/UTC"


def asked_nations(subject: str) -> tuple[str, ...]:
    """The nations a request's subject names ("[g] your orders for the Jutes, Saxons")."""
    m = re.search(r" for the (.+?)(?:: please correct)?$", subject)
    return tuple(n.strip() for n in m.group(1).split(",")) if m else ()


def _orders_now(rs, state, nation: str, seed: str) -> str:
    """The greedy bot's orders for `nation` written against today's position, as a player who sends
    the orders of a nation whose turn is still to come does (they are checked again at its turn)."""
    from pbem.bots.base import render
    from pbem.bots.selfplay import make_bot

    if state.next_nation != nation:
        state = state.copy()
        state.next_nation = nation
    return render(rs, nation, make_bot("greedy", seed, ()).turn(rs, state, nation), None)


def simulate_game(s: PaceSettings, seed: int = 1, *, games_dir: Path | None = None) -> PaceResult:
    """Play one whole game by mail on the simulated clock (see the module doc)."""
    from pbem.service.job import run_job
    from pbem.store.game import Game

    if s.style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}")
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    with tempfile.TemporaryDirectory(prefix="pbem-pace-") as tmp:
        root = Path(games_dir) if games_dir else Path(tmp)
        table = _Table(root, f"pace{seed}", s, seed, start)
        answers: list[tuple] = []      # (when, order of scheduling, player, the nations asked for)
        n = 0
        now, runs = start, 0
        end = start + timedelta(days=s.max_days)
        while now < end:
            report = run_job(root, now=now, only=[table.game_id], render_map=False)
            runs += 1
            if report.errors:
                raise RuntimeError(f"pbem run failed at {now.isoformat()}: {report.errors}")
            for when, player, asked in table.read_outbox(now):
                n += 1
                heapq.heappush(answers, (when, n, player, asked))
            game = Game.open(table.dir)
            if game.state.finished:
                break
            # the next moment anything happens: a player's answer reaches the inbox, or a deadline
            later = [t for t in [table.next_deadline_tick(now)] if t]
            if answers:
                later.append(_next_tick(answers[0][0], s.cron_minutes))
            if not later:
                break
            now = max(min(later), now + timedelta(minutes=s.cron_minutes))
            while answers and answers[0][0] <= now:
                when, _, player, asked = heapq.heappop(answers)
                table.write_orders(player, when, asked)
        game = Game.open(table.dir)
        from pbem.store.clock import nmr_counts

        return PaceResult(s, seed, days=(now - start).total_seconds() / 86400, finished=game.state.finished,
                          rounds=game.state.round, runs=runs, nmr=sum(nmr_counts(game).values()),
                          players=list(table.tally.values()))


def summary_line(results: list[PaceResult]) -> str:
    """Days per game and mails per player over a set of simulated games, one line."""
    s = results[0].settings
    days = [r.days for r in results]
    sent = statistics.mean(r.mails_sent for r in results)
    received = statistics.mean(r.mails_received for r in results)
    done = sum(r.finished for r in results)
    nmr = statistics.mean(r.nmr for r in results)
    spread = f" (range {min(days):.1f}-{max(days):.1f})" if len(days) > 1 else ""
    return (f"{s.ruleset}, {s.players} players, style {s.style}: {statistics.mean(days):.1f} days a game{spread}, "
            f"{sent:.0f} mails sent and {received:.0f} received per player, {nmr:.1f} missed deadlines a game, "
            f"{done}/{len(results)} finished")


def assumptions(s: PaceSettings) -> str:
    """The simulated players' behaviour, in one sentence (printed beside every figure)."""
    zones = ", ".join(f"UTC{z:+d}" for z in ZONES[: s.players])
    return (f"players answer each request after a log-normal delay (mean {s.mean_hours:g} h, sigma {s.spread:g}), "
            f"asleep 23:00-07:00 local ({zones}), {100 * s.miss:g} % of requests overlooked, of which "
            f"{100 * s.reminder_answer:g} % answered after the reminder; cron every "
            f"{s.cron_minutes} min; deadlines {s.turn_hours:g} h, reminder {s.reminder_hours:g} h before")


def simulate(s: PaceSettings, games: int, seed: int = 1) -> list[PaceResult]:
    return [simulate_game(s, seed + i) for i in range(games)]
