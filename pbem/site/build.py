"""Write the archive site: `OUT/index.html` (every game), and per game `OUT/<id>/index.html` (the
turn-by-turn viewer), `OUT/<id>/maps/NNNNNN.png` (the map after each turn), `OUT/<id>/vp.png` (the VP
chart) and `OUT/<id>/site.json` (what the pages are made of; also the cache of the next refresh).

Self-contained: the pages carry their style and script inline and refer only to files beside them
(relative links), so the folder opens from file:// with no server and no network, and can be copied
anywhere. Nothing private goes in: players appear by name and nations only (no address, no token),
orders as sent are not shown, the dice secret only once it is revealed.

Incremental: a turn already in site.json (same entry, same position hash, its map there, and drawn
from its turn mail if that has gone out since) is not touched; the engine resumes from the cached position after the last entry walked, so a refresh
adjudicates and renders only the new turns. A turn's report and map come from the turn mail's copy
in the game's outbox (outbox/reports/<entry>/) when it is there — exactly what the players got, and no
rendering at all — else they are made the way the turn mail makes them (pbem.report, pbem.render).
A game that cannot be read stops only itself; temp files of a killed refresh are swept.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import filelock
import jinja2
import orjson

from pbem.errors import GameBusy, GameError, PbemError
from pbem.report import report_text
from pbem.report.facts import REPORT_FORMAT
from pbem.report.result import result_line
from pbem.rules.state import GameState
from pbem.service.advance import mailed_report_folder, outbox_of
from pbem.service.faults import describe
from pbem.service.job import game_dirs
from pbem.site import fresh
from pbem.site.history import LogWalk, Walked
from pbem.site.maps import TurnJob, Turns
from pbem.store.fs import atomic_write, clean_stale_temp_files
from pbem.store.game import Game
from pbem.store.hashing import state_hash
from pbem.templating import template_dirs

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# build alone, measured): pbem.site.chart +286.

SITE_FORMAT = 1
MANIFEST = "site.json"
MAPS = "maps"
CHART = "vp.png"
PAGE = "index.html"
LOCK = ".lock"
STEP_NAMES = {"start_round": "start of the round", "end_round": "end of the round"}


@dataclass
class SiteReport:
    out: Path
    games: list[str] = field(default_factory=list)
    rendered: int = 0          # maps drawn now
    copied: int = 0            # maps taken from the turn mails
    kept: int = 0              # turns already on the site
    errors: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)   # games another pbem was working on: left as they were

    def lines(self) -> list[str]:
        out = [f"site {self.out}: {len(self.games)} game(s); turns: {self.rendered} maps rendered, "
               f"{self.copied} taken from turn mails, {self.kept} unchanged"]
        out += [f"{g}: busy (another pbem is working on it); its pages are left as they were" for g in self.busy]
        return out + [f"error: {e}" for e in self.errors]


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """HTML templates: the project's templates folder, autoescaped (report texts hold < and >)."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader([str(p) for p in template_dirs()]),
                              undefined=jinja2.StrictUndefined, autoescape=True, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True)


def build_site(games_dir: Path | str, out: Path | str, *, only: Iterable[str] | None = None,
               render_maps: bool = True) -> SiteReport:
    """Refresh the site in `out` for every game in `games_dir` (or the games named in `only`)."""
    games_dir, out = Path(games_dir), Path(out)
    wanted = set(only or [])
    dirs = [d for d in game_dirs(games_dir) if not wanted or d.name in wanted]
    if wanted and not dirs:
        raise GameError(f"no game {', '.join(sorted(wanted))} in {games_dir}")
    out.mkdir(parents=True, exist_ok=True)
    report = SiteReport(out)
    with filelock.FileLock(str((out / LOCK).resolve())):
        clean_stale_temp_files(out, older_than=0.0)   # a killed refresh's; none is being written (the lock)
        cache = fresh.load(out)
        built = False
        for d in dirs:
            if fresh.unchanged(cache, d, out / d.name, render_maps):
                report.games.append(d.name)       # nothing in its folder changed: its pages stand
                report.kept += int((cache[d.name].get("summary") or {}).get("turns") or 0)
                continue
            source = fresh.source_key(d, render_maps)   # before the build: a change meanwhile is seen next time
            try:
                game = Game.open(d)
                with game.lock(blocking=False):   # not half-way through a turn and its mail (pbem run holds it)
                    entries = game.entries()
                summary = build_game(game, out / d.name, report, entries=entries, render_maps=render_maps)
                report.games.append(d.name)
                cache[d.name] = {"source": source, "written": fresh.written_key(out / d.name), "summary": summary}
                built = True
            except GameBusy:
                report.busy.append(d.name)  # the next refresh catches up; its pages stay as they were
            except PbemError as e:
                report.errors.append(f"{d.name}: {e}")
            except Exception as e:  # noqa: BLE001 - a game that cannot be read or locked (read-only) stops only itself

                report.errors.append(f"{d.name}: {describe(e)}; its pages are left as they were")
        shown = sorted(p.parent.name for p in out.glob(f"*/{MANIFEST}"))
        if built or sorted(cache) != shown or not (out / PAGE).is_file():
            summaries = [_summary_of(out / gid, cache) for gid in shown]
            write_if_changed(out / PAGE, environment().get_template("site_index.html.j2").render(
                games=[s for s in summaries if s]))
        fresh.save(out, {gid: cache[gid] for gid in shown if gid in cache})
    return report


def _summary_of(dest: Path, cache: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The index row of a game on the site: from the refresh cache while its site.json is the one
    the cache saw, else read from site.json (a game kept on the site whose folder has gone)."""
    hit = cache.get(dest.name)
    if isinstance(hit, dict) and hit.get("written") == fresh.written_key(dest) and isinstance(hit.get("summary"), dict):
        return hit["summary"]
    m = _manifest(dest)
    return m["summary"] if m else None


# --- one game ---------------------------------------------------------------------------------------
def build_game(game: Game, dest: Path, report: SiteReport, *, entries: list | None = None,
               render_maps: bool = True) -> dict[str, Any]:
    """Refresh one game's folder of the site from its log `entries` (default: as it is now);
    returns its summary (the row of the index)."""
    rs = game.ruleset()
    dest.mkdir(parents=True, exist_ok=True)
    old = _manifest(dest) if (dest / MANIFEST).is_file() else None
    old = old if old and old.get("game") == game.id else None
    records: dict[int, dict] = {int(r["entry"]): r for r in (old or {}).get("turns", [])}
    entries = game.entries() if entries is None else entries
    def complete(rec: Mapping[str, Any]) -> bool:
        return (not render_maps or bool(rec["map"] and (dest / rec["map"]).is_file())) and not _mailed_since(game, rec)

    # turns shown without their map (an earlier --no-map, a deleted file) or drawn before their turn
    # mail went out need their positions again
    walk = _resume(game, entries, old, fresh=not all(complete(r) for r in records.values()))
    made = removed = 0
    expected = sum(1 for e in entries if e.kind == "turn" and not (e.id in records and complete(records[e.id])))
    with Turns(game.path, rs, expected, maps=render_maps) as turns:
        for w in walk:
            if not w.mailed:
                continue
            e = w.entry
            have = records.get(e.id)
            if have and have["state_hash"] == e.get("state_hash") and complete(have):
                continue
            _record(game, rs, w, dest, report, render_maps, turns, records)
            made += 1
        turns.finish()      # the reports and maps no turn mail had: from the workers (pbem.site.maps)
    live = {e.id for e in entries if e.kind == "turn"} - walk.voided
    for eid in [k for k in records if k not in live]:     # rolled back since: no longer part of the game
        (dest / MAPS / f"{eid:06d}.png").unlink(missing_ok=True)
        del records[eid]
        removed += 1
    turns = [records[k] for k in sorted(records)]
    report.kept += len(turns) - made
    players = _public_players(game)
    summary = _summary(game, rs, turns, players)
    if turns and (made or removed or not (dest / CHART).is_file()):
        from pbem.site.chart import vp_chart

        atomic_write(dest / CHART, vp_chart(turns, players, rs))
    page = environment().get_template("site_game.html.j2").render(
        g=summary, turns=turns, players=players, chart=CHART if turns else None,
        names={n: rs.display(n) for n in rs.order_of_play},
        commitment=game.commitment, revealed=(game.settings.get("dice") or {}).get("revealed_secret"))
    write_if_changed(dest / PAGE, page)
    resume = {"entry": walk.last_id, "state_hash": state_hash(walk.state) if walk.state else None,
              "state": walk.state.to_dict() if walk.state else None}
    manifest = {"format": SITE_FORMAT, "game": game.id, "summary": summary, "turns": turns, "resume": resume}
    write_if_changed(dest / MANIFEST, orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
                                                   | orjson.OPT_APPEND_NEWLINE).decode())
    return summary


def write_if_changed(path: Path, text: str) -> None:
    """Write atomically, and not at all when the file already says this (mirrors copy only news)."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write(path, text)


def _manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = orjson.loads((folder / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == SITE_FORMAT else None


def _resume(game: Game, entries: list, old: Mapping[str, Any] | None, *, fresh: bool) -> LogWalk:
    """Walk on from the cached position when it is still the log's (the log only grows), else (or
    when `fresh`) from the start."""
    r = {} if fresh else (old or {}).get("resume") or {}
    by_id = {e.id: e for e in entries}
    try:
        after, state = int(r["entry"]), GameState.from_dict(r["state"])
    except (KeyError, TypeError, ValueError):
        return LogWalk(game, entries)
    ok = after in by_id and state_hash(state) == r.get("state_hash")
    if ok and by_id[after].kind == "turn" and by_id[after].get("state_hash") not in (None, r.get("state_hash")):
        ok = False
    return LogWalk(game, entries, after=after, state=state) if ok else LogWalk(game, entries)


def _public_players(game: Game) -> list[dict[str, Any]]:
    """Players as the site shows them: name, colour, nations. Never the address or the token."""
    return [{"name": str(p.get("name")), "colour": str(p.get("colour") or ""), "nations": list(p.get("nations") or [])}
            for p in game.players()]


def _public_settings(game: Game) -> dict[str, Any]:
    """What build_report needs of the settings, and nothing private."""
    return {"id": game.id, "players": _public_players(game), "dice": {"commitment": game.commitment}}


def _mailed(game: Game, entry_id: int) -> Path:
    return mailed_report_folder(outbox_of(game), entry_id)


def _mailed_since(game: Game, rec: Mapping[str, Any]) -> bool:
    """A turn drawn from the log while its turn mail was still owed (a run killed in between) whose
    mail has gone out since: drawn again, from the mail's copy, as the players got it."""
    return rec.get("source") != "turn mail" and (_mailed(game, int(rec["entry"])) / "report.json").is_file()


def _mailed_facts(folder: Path) -> dict[str, Any] | None:
    try:
        facts = orjson.loads((folder / "report.json").read_bytes())
    except (OSError, ValueError):
        return None
    keys = ("title", "events", "battles", "scores", "players", "next", "finished")
    if not isinstance(facts, dict) or facts.get("format") != REPORT_FORMAT or any(k not in facts for k in keys):
        return None
    return facts


def _record(game: Game, rs: Any, w: Walked, dest: Path, report: SiteReport, render_maps: bool, turns: Turns,
            records: dict[int, dict]) -> None:
    """One turn of the site into `records` (now, or when `turns` has done its work): the report as
    mailed (or made the same way), the map, the dice."""
    e = w.entry
    events = e.typed_events()
    mailed = _mailed(game, e.id)
    facts = _mailed_facts(mailed)
    map_name = f"{MAPS}/{e.id:06d}.png" if render_maps else None
    if map_name:
        (dest / MAPS).mkdir(exist_ok=True)
    copy_map = bool(map_name) and (mailed / "map.png").is_file()
    if copy_map:
        shutil.copyfile(mailed / "map.png", dest / map_name)
        report.copied += 1
    elif map_name:
        report.rendered += 1
    source = "turn mail" if mailed.is_dir() and (mailed / "report.json").is_file() else "log"

    def done(made: dict[str, Any] | None, text: str | None) -> None:
        records[e.id] = _turn_record(rs, e, made or facts, text, map_name, source)

    if facts is not None:
        text_file = mailed / "report.txt"
        text = text_file.read_text(encoding="utf-8") if text_file.is_file() else report_text(facts, rs=rs)
        if copy_map or not map_name:
            done(None, text)
        else:   # a turn mail without its map: drawn as that mail would have it
            turns.submit(TurnJob(game.path, w.after, events, None, dest / map_name, facts["title"]),
                         lambda _facts, _text: done(None, text))
        return
    ask = {"settings": _public_settings(game), "played": e.get("nation"), "round_played": int(e.get("round")),
           "ledger_from": len(w.before.ledger)}
    turns.submit(TurnJob(game.path, w.after, events, ask, None if copy_map or not map_name else dest / map_name),
                 done)


def _turn_record(rs: Any, e: Any, facts: Mapping[str, Any], text: str | None, map_name: str | None,
                 source: str) -> dict[str, Any]:
    nation = e.get("nation")
    what = f"the {rs.display(nation)}" if nation else STEP_NAMES.get(str(e.get("step")), str(e.get("step")))
    return {
        "entry": e.id, "round": int(e.get("round")), "nation": nation, "step": e.get("step", "nation"),
        "label": f"Round {e.get('round')}: {what}", "title": facts["title"], "time": str(e.time or ""),
        "text": text, "battles": facts["battles"],
        "players": {str(p["name"]): p["vp"] for p in facts["players"]},
        "nations": {str(s["nation"]): s["vp"] for s in facts["scores"]},
        "dice": [[str(label), int(face)] for label, face in (e.get("dice") or {}).items()],
        "map": map_name, "state_hash": e.get("state_hash"), "finished": bool(facts["finished"]),
        "next": (facts.get("next") or {}).get("line", ""),
        "source": source,
    }


def _summary(game: Game, rs: Any, turns: list[dict], players: list[dict]) -> dict[str, Any]:
    """The index row: ruleset, players and their scores, round, status, winner."""
    last = turns[-1] if turns else None
    scores = [{"name": p["name"], "vp": (last or {}).get("players", {}).get(p["name"], 0),
               "nations": [rs.display(n) for n in p["nations"]]} for p in players]
    scores.sort(key=lambda s: -s["vp"])
    winner = ""
    if last is None:
        status = "not started"
    elif last["finished"]:
        status = "finished"
        winner = result_line(rs, last.get("nations", {}), {str(p["name"]): p["nations"] for p in players})
    else:
        status = ("paused; " if game.paused else "") + f"next: {last['next']}"
    return {"game": game.id, "ruleset": rs.name, "players": scores, "status": status, "winner": winner,
            "round": last["round"] if last else 0, "turns": len(turns), "last": last["label"] if last else "",
            "link": f"{quote(game.path.name)}/{PAGE}"}
