"""Bot games: every nation played by a bot, whose order TEXT is read back by the real parser,
checked by validate() and adjudicated by pbem.rules.flow.play_game with HmacDice from the seed.

Game `seed` uses the dice secret sha256(`selfplay-<seed>`) and game id `selfplay-<seed>`, so a game is
reproduced by its seed alone (`pbem selfplay --games 1 --seed <seed> --bot ... --ruleset ... --check`).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.bots import conservation, invariants
from pbem.bots.base import Bot, NoDice
from pbem.bots.greedy import GreedyBot
from pbem.bots.random_bot import RandomBot
from pbem.orders.parser import parse_message
from pbem.rules.book import OrdersBook
from pbem.rules.decisions import pending
from pbem.rules.dice import HmacDice
from pbem.rules.events import to_dicts
from pbem.rules.flow import Step, play_game
from pbem.rules.flow import step as play_step
from pbem.rules.legal import validate
from pbem.rules.orders import Move, NationOrders, SecondMovement
from pbem.rules.ruleset import Ruleset
from pbem.rules.scoring import player_totals, winning_groups
from pbem.rules.state import GameState
from pbem.rules.turn import new_game_state, play_nation_turn

BOTS = {"random": RandomBot, "greedy": GreedyBot}
MAX_RETRIES = 5


def game_secret(seed: int | str) -> bytes:
    """The dice secret of self-play game `seed` (32 bytes, so the store accepts it too)."""
    return hashlib.sha256(f"selfplay-{seed}".encode()).digest()


def make_bot(kind: str, seed: int | str = 0, friends: tuple[str, ...] = ()) -> Bot:
    try:
        cls = BOTS[kind]
    except KeyError:
        raise ValueError(f"unknown bot {kind!r} (one of: {', '.join(BOTS)})") from None
    return cls(seed, friends)


def bot_kinds(rs: Ruleset, players: int, bot: str) -> dict[str, str]:
    """player -> bot kind: one kind for all (`greedy`), or one per player in the order of the control
    table (`greedy,random,random,random`)."""
    colours = list(rs.players_table(players))
    kinds = [k.strip() for k in bot.split(",")]
    if len(kinds) == 1:
        kinds = kinds * len(colours)
    if len(kinds) != len(colours):
        raise ValueError(f"{len(kinds)} bot kinds for {len(colours)} players ({', '.join(colours)})")
    for k in kinds:
        if k not in BOTS:
            raise ValueError(f"unknown bot {k!r} (one of: {', '.join(BOTS)})")
    return dict(zip(colours, kinds))


def players_of(rs: Ruleset, players: int) -> dict[str, str]:
    """nation -> player (the colour of the control table, 13.0)."""
    return {n: colour for colour, nations in rs.players_table(players).items() for n in nations}


@dataclass
class Stats:
    """What a game (or many) cost and what went wrong that should not have."""

    steps: int = 0
    mails: int = 0                      # order texts read
    engine: float = 0.0                 # seconds in flow.step
    bots: float = 0.0                   # seconds deciding and writing text
    parse: float = 0.0                  # seconds in parse_message
    validate: float = 0.0               # seconds in validate()
    check: float = 0.0                  # seconds checking invariants
    parse_problems: list[dict] = field(default_factory=list)   # bug: a bot line the parser refused
    dropped: list[dict] = field(default_factory=list)          # bug: a bot line validate() refused
    engine_problems: list[dict] = field(default_factory=list)  # bug: a validated line step() refused
    second_movement_dropped: int = 0    # expected: a second-movement line the battles made impossible

    def add(self, other: Stats) -> None:
        for k in ("steps", "mails", "engine", "bots", "parse", "validate", "check", "second_movement_dropped"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.parse_problems += other.parse_problems
        self.dropped += other.dropped
        self.engine_problems += other.engine_problems

    @property
    def bugs(self) -> int:
        return len(self.parse_problems) + len(self.dropped) + len(self.engine_problems)


@dataclass
class GameResult:
    seed: int
    bot: str
    players: int
    state: GameState
    by_player: dict[str, int]
    winner: tuple[str, ...] | None
    """The player(s) who won (partners together), None for a tie."""
    stats: Stats
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0
    dump: Path | None = None
    texts: list[str] = field(default_factory=list)


def _without_lines(text: str, drop: set[int]) -> str:
    return "\n".join(line for i, line in enumerate(text.splitlines(), 1) if i not in drop) + "\n"


def read_orders(rs: Ruleset, state: GameState, nation: str, text: str, stats: Stats,
                where: dict[str, Any] | None = None, *, check_legal: bool = True) -> tuple[NationOrders, str]:
    """The game's side: parse the text; drop lines the parser or validate() refuses (each one counted,
    they are bugs), until the orders pass. Returns the orders and the text finally used."""
    where = where or {}
    for _ in range(MAX_RETRIES + 1):
        t0 = time.perf_counter()
        pm = parse_message(text, rs, default_nation=nation)
        stats.parse += time.perf_counter() - t0
        stats.mails += 1
        if pm.problems:
            lines = text.splitlines()
            for p in pm.problems:
                stats.parse_problems.append({**where, "nation": nation, "line": lines[p.line - 1] if 0 < p.line <= len(lines) else "",
                                             "kind": p.kind, "message": p.message})
            text = _without_lines(text, {p.line for p in pm.problems})
            continue
        orders = pm.section(nation) or NationOrders(nation)
        if not check_legal:
            return orders, text
        t0 = time.perf_counter()
        problems = validate(rs, state, orders)
        stats.validate += time.perf_counter() - t0
        if not problems:
            return orders, text
        lines = text.splitlines()
        drop = {p.line for p in problems if p.line}
        if any(not p.line for p in problems):
            drop |= {o.line for o in orders.orders if isinstance(o, Move | SecondMovement)}
        for p in problems:
            stats.dropped.append({**where, "nation": nation, "line": lines[p.line - 1] if 0 < p.line <= len(lines) else "",
                                  "kind": p.kind, "message": p.message})
        text = _without_lines(text, drop)
    return NationOrders(nation), f"NATION {rs.display(nation)}\nPASS\n"


class BotGame:
    """One game between bots; `play()` runs it to the end."""

    def __init__(self, rs: Ruleset, seed: int, *, bot: str = "greedy", players: int = 4, check: bool = False,
                 dump_dir: Path | None = None, keep_texts: bool = False, start: GameState | None = None) -> None:
        self.rs = rs
        self.start = start   # a typed-in position to play on from (pbem selfplay --position), else rule 3.0
        self.seed = seed
        self.bot = bot
        self.players = players
        self.check = check
        self.dump_dir = Path(dump_dir) if dump_dir else None
        self.keep_texts = keep_texts
        self.owner = players_of(rs, players)
        team: dict[str, list[str]] = {}
        for n, p in self.owner.items():
            team.setdefault(p, []).append(n)
        kinds = bot_kinds(rs, players, bot)
        self.bots = {n: make_bot(kinds.get(self.owner.get(n, ""), "greedy"), f"{seed}/{n}",
                                 tuple(team.get(self.owner.get(n, ""), ()))) for n in rs.nations}
        self.game_id = f"selfplay-{seed}"
        self.secret = game_secret(seed)
        self.stats = Stats()
        self.records: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self._seen: set[str] = set()
        self.texts: list[str] = []
        self._before: GameState | None = None
        self._mark = 0.0
        self._pending: dict[str, Any] = {}
        self._given: dict[str, NationOrders] = {}
        self._conservation = conservation.Checker(rs)
        self.dump: Path | None = None

    def orders_for(self, state: GameState) -> dict[str, NationOrders]:
        self._before = state
        out: dict[str, NationOrders] = {}
        self._given = out
        where = {"seed": self.seed, "round": state.round}
        # the bots answer what the decision machine says is owed (each step's orders are fresh)
        for d in pending(self.rs, state, OrdersBook()):
            out[d.nation] = self._ask(state, d.nation, where, check_legal=d.kind == "turn")
        nation = state.next_nation
        if nation is not None and nation in out:
            if self.check:
                t0 = time.perf_counter()
                mid = play_nation_turn(self.rs, state, nation, out, NoDice(), stop="after_movement", strict=False)
                found = invariants.stacking(self.rs, mid.state, [nation], "after movement")
                # the same turn with the same dice (HmacDice is a function of the label) up to the end of
                # its battles: retreats (8.2, 8.3) must keep everyone's stacking legal (5.21)
                fought = play_nation_turn(self.rs, state, nation, out, HmacDice(self.secret), stop="after_battles",
                                          strict=False)
                found += invariants.stacking(self.rs, fought.state, None, "after battles and retreats")
                self._pending["after_movement"] = found
                self.stats.check += time.perf_counter() - t0
        self._mark = time.perf_counter()
        return out

    def _ask(self, state: GameState, nation: str, where: dict, check_legal: bool) -> NationOrders:
        t0 = time.perf_counter()
        text = self.bots[nation].orders(self.rs, state, nation)
        self.stats.bots += time.perf_counter() - t0
        orders, used = read_orders(self.rs, state, nation, text, self.stats, where, check_legal=check_legal)
        if self.keep_texts:
            self.texts.append(text)
        rec = {"round": state.round, "nation": nation, "step": "vote" if state.next_nation is None else "turn",
               "text": used}
        if used != text:
            rec["text_sent"] = text
        self.records.append(rec)
        return orders

    def on_step(self, step: Step) -> None:
        now = time.perf_counter()
        self.stats.engine += now - self._mark
        self.stats.steps += 1
        if step.problems:
            for p in step.problems:
                rec = self.records[-1] if self.records else {}
                line = rec.get("text", "").splitlines()[p.line - 1] if 0 < p.line <= len(rec.get("text", "").splitlines()) else ""
                if self._second_movement_line(rec.get("text", ""), p.line):
                    self.stats.second_movement_dropped += 1
                else:
                    self.stats.engine_problems.append({"seed": self.seed, "round": step.round, "nation": step.nation,
                                                       "line": line, "kind": p.kind, "message": p.message})
        if self.check:
            found = invariants.after_step(self.rs, self._before, step) + self._pending.pop("after_movement", [])
            found += invariants.orders_accounted(step, self._given.get(step.nation or ""))
            if self._before is not None:
                found += self._conservation.after_step(self._before, step)
                found += self._replayed_the_same(step)
            new = [v for v in found if v not in self._seen]
            if new and len(self.violations) < 50:
                # every distinct violation is listed; the first step that breaks one is dumped
                where = f"round {step.round}, {step.kind}" + (f" of the {step.nation}" if step.nation else "")
                self._seen.update(new)
                first = not self.violations
                self.violations += [f"{where}: {v}" for v in new]
                if first:
                    self._dump(step)
        self._pending.clear()
        self.stats.check += time.perf_counter() - now
        self._mark = time.perf_counter()

    def _replayed_the_same(self, step: Step) -> list[str]:
        """Issue 31 — the step played again from its inputs (the position before, the orders given,
        the game's dice) gives the same position and the same events, as replaying the log must."""
        again = play_step(self.rs, self._before, self._given, HmacDice(self.secret))
        out = []
        if to_dicts(again.events) != to_dicts(step.events):
            out.append("replay: the step played again from its inputs gives other events")
        if again.state.to_dict() != step.state.to_dict():
            out.append("replay: the step played again from its inputs gives another position")
        return out

    @staticmethod
    def _second_movement_line(text: str, line: int) -> bool:
        lines = [x.strip().upper() for x in text.splitlines()]
        return any(x == "SECOND MOVEMENT" for x in lines[: max(line - 1, 0)])

    def play(self) -> GameResult:
        t0 = time.perf_counter()
        if self.start is not None:
            state = self.start.copy()
            state.game = self.game_id
        else:
            state = new_game_state(self.rs, self.game_id)
        end = play_game(self.rs, state, self.orders_for, HmacDice(self.secret), on_step=self.on_step)
        if self.check and not self.violations:
            found = invariants.finished(self.rs, end)
            if found:
                self.violations = found
                self._dump(None, end)
        by_player = player_totals(self.rs, end.vp, self.players)
        best = winning_groups(self.rs, end.vp, self.rs.players_table(self.players))
        winner = best[0] if len(best) == 1 else None     # a tie has no winner; partners win together
        return GameResult(self.seed, self.bot, self.players, end, by_player, winner, self.stats, self.violations,
                          time.perf_counter() - t0, self.dump, self.texts)

    # --- reproduction cases ---------------------------------------------------------------------------
    def _dump(self, step: Step | None, end: GameState | None = None) -> None:
        if self.dump_dir is None:
            return
        folder = self.dump_dir / f"seed-{self.seed}"
        folder.mkdir(parents=True, exist_ok=True)
        data = {
            "seed": self.seed,
            "bot": self.bot,
            "players": self.players,
            "game": self.game_id,
            "dice_secret": self.secret.hex(),
            "reproduce": (f"pbem selfplay --games 1 --seed {self.seed} --bot {self.bot} --players {self.players} "
                          f"--ruleset {self.rs.id} --check"),
            "violations": list(self.violations),
            "step": None if step is None else {"kind": step.kind, "round": step.round, "nation": step.nation,
                                               "events": to_dicts(step.events)},
            "orders": self.records,
            "state_before": self._before.to_dict() if self._before is not None else None,
            "state_after": (step.state if step is not None else end).to_dict(),
        }
        write_yaml(folder / "repro.yaml", data)
        self.dump = folder


def write_yaml(path: Path, data: Any) -> None:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    with open(path, "w", encoding="utf-8") as f:
        yaml.dump(_plain(data), f)


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, set | frozenset):
        return sorted(_plain(v) for v in x)
    return x


def play_bot_game(rs: Ruleset, seed: int, *, bot: str = "greedy", players: int = 4, check: bool = False,
                  dump_dir: Path | None = None, keep_texts: bool = False, start: GameState | None = None) -> GameResult:
    """Play one whole game between bots (see the module doc), from `start` when given."""
    return BotGame(rs, seed, bot=bot, players=players, check=check, dump_dir=dump_dir, keep_texts=keep_texts,
                   start=start).play()


def replay_dump(rs: Ruleset, path: Path) -> GameState:
    """Replay the order texts of a dumped game (repro.yaml) with its dice; returns the last position.
    Use it to turn a fuzz failure into a test: the texts are what the game read."""
    from ruamel.yaml import YAML

    with open(path, encoding="utf-8") as f:
        data = YAML(typ="safe", pure=True).load(f)
    texts = list(data["orders"])
    state = new_game_state(rs, data["game"])
    dice = HmacDice(bytes.fromhex(str(data["dice_secret"])))

    def orders_for(st: GameState) -> dict[str, NationOrders]:
        out = {}
        kind = "vote" if st.next_nation is None else "turn"
        while texts and texts[0]["round"] == st.round and texts[0]["step"] == kind and (
                kind == "vote" or texts[0]["nation"] == st.next_nation):
            rec = texts.pop(0)
            pm = parse_message(rec["text"], rs, default_nation=rec["nation"])
            out[rec["nation"]] = pm.section(rec["nation"]) or NationOrders(rec["nation"])
            if kind == "turn":
                break
        return out

    from pbem.rules.flow import step as flow_step

    while not state.finished and texts:
        state = flow_step(rs, state, orders_for(state), dice).state
    return state


_FORKED_RULESET: Ruleset | None = None    # the ruleset handed to forked workers (it does not pickle)


def _play_one(args: tuple) -> GameResult:
    ruleset_id, seed, kw = args
    rs = _FORKED_RULESET
    if rs is None or rs.id != ruleset_id:
        from pbem.data.loader import load

        rs = load(ruleset_id)
    res = play_bot_game(rs, seed, **kw)
    res.texts = []
    return res


def play_many(rs: Ruleset, seeds: list[int], *, jobs: int = 1, **kw: Any):
    """Play the games of `seeds` (in `jobs` processes when > 1); yields GameResults as they finish."""
    if jobs <= 1 or len(seeds) <= 1:
        for seed in seeds:
            res = play_bot_game(rs, seed, **kw)
            yield res
        return
    import multiprocessing as mp

    global _FORKED_RULESET
    _FORKED_RULESET = rs
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    with ctx.Pool(jobs) as pool:
        yield from pool.imap_unordered(_play_one, [(rs.id, seed, kw) for seed in seeds])
