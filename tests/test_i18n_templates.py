"""Issue 34 item 4: every message template a player receives renders in English and in Russian with
StrictUndefined (every variable given), and the Russian text leaves no English word of the template
behind: the only Latin words left are the values given (names, tokens) and what a player may write
in either script (the order keywords) or that is no English (SHA-256, UTC, pbem's commands)."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from pbem.templating import environment, template_dirs

REPO = Path(__file__).resolve().parents[1]
MAILS = sorted(p.name for p in (REPO / "templates").glob("*.txt.j2"))
KEEP = {
    # order keywords a player writes (either script) and the words of their forms
    "GAME", "NATION", "TOKEN", "ODDS", "VS", "IN", "CONFIRM", "DEFEND", "VOTE", "AWAY", "TIMEZONE", "LANGUAGE",
    "OK", "ERROR",
    # no English: abbreviations, commands, file names
    "SHA", "UTC", "NMR", "FFG", "pbem", "rules", "show", "replay", "verify", "dice", "log", "hash", "md", "ru",
}
RU_NAMES = {"Римляне (Romans)", "Саксы (Saxons)", "Йорк (York)", "Кент (Kent)"}


def report(lang: str) -> dict:
    romans, saxons = ("Римляне (Romans)", "Саксы (Saxons)") if lang == "ru" else ("Romans", "Saxons")
    return {
        "title": "[g] X", "played_by": "x1", "ruleset": {"name": "Britannia", "data_version": 3, "overrides": ["o1"]},
        "events": ["e1"],
        "battle_rules": "(b9)",
        "battles": [{"area_name": "Kent", "attacker_name": romans, "defender_name": saxons,
                     "rounds": [{"n": 1, "sides": [{"text": "s1"}]}], "notes": ["n1"], "result": "r1",
                     "label_pattern": "g/r1/b<round>"}],
        "vp_gained": [{"name": romans, "points": 2, "reason": "v1"}],
        "players": [{"name": "ann", "vp": 3, "nations": [romans]}],
        "scores": [{"name": romans, "vp": 3}],
        "finished": False, "next": {"line": "l1", "deadline": "2026-12-04 12:00 UTC"},
        "waiting_for": ["ann"], "nmr": {"ann": 1}, "next_options": ["o2"], "dice_commitment": "abc123",
    }


def context(template: str, lang: str) -> dict:
    romans = "Римляне (Romans)" if lang == "ru" else "Romans"
    guide = "PLAYERS.ru.md" if lang == "ru" else "PLAYERS.md"
    common = {"game": "g7", "deadline": "2026-12-04 12:00 UTC", "token": "abc123", "player": "ann", "colour": "c1",
              "nations": [romans], "guide_name": guide}
    return {
        "prompt.txt.j2": {**common, "round": 3, "what": "w1", "names": romans, "first": romans, "rules": "Britannia",
                          "reminder": True, "draft": ["d1"], "still_wrong": ["s1"], "turn": ["t1"],
                          "vote_lines": ["v1"], "guide_url": "https://x.org/g", "order_words": "w3"},
        "report.txt.j2": {"r": report(lang)},
        "welcome.txt.j2": {**common, "moved_round": None, "others": ["bob"], "optional": ["16.251 Brittany"],
                           "first": romans, "first_player": "ann", "commitment": "abc123",
                           "guide_url": "https://x.org/g", "ruleset": "Britannia", "ruleset_id": "duel", "provisional": True},
        "deadline.txt.j2": {**common, "changes": ["c2"], "paused": False, "what": "w1"},
        "replaced.txt.j2": {**common, "waiting": romans, "next": romans},
        "position.txt.j2": {**common, "corrected": True, "report": "r1", "round": 3, "nation": romans,
                            "position": "p1"},
        "reply.txt.j2": {**common, "nations": [romans], "later": [romans], "verdicts": [], "ok": False,
                         "validated": True, "n_lines": 2, "n_bad": 5, "hidden": 2, "hidden_lines": 1,
                         "sections": [{"nation": romans, "lines": [
                             {"line": 4, "ok": True, "shown": "PASS", "read_as": "", "problems": [], "notes": ["n1"],
                              "partly": False},
                             {"line": 5, "ok": False, "shown": "3 Йорх -> Кент", "read_as": "3 York -> Kent",
                              "problems": [{"kind": "unknown-name", "message": "m1", "hint": "h1"}], "notes": [],
                              "partly": True}]}],
                         "general": [{"kind": "syntax", "message": "m2", "text": "x", "hint": "h2"}],
                         "warnings": ["w2"], "chatter": [{"line": 1, "text": "Привет", "why": "a greeting or sign-off"}],
                         "grammar": ["PASS"], "odds": ["o1"], "missing": ["m3"]},
    }[template]


def english_words(text: str, ctx: dict) -> set[str]:
    """The Latin words of `text` that are not in a value of `ctx` nor in KEEP."""
    values = set()

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif v is not None:
            values.add(str(v))
    walk(ctx)
    for v in sorted(values, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(v) + r"(?!\w)", " ", text)
    return {w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in KEEP}


def test_every_mail_template_is_tested():
    assert set(MAILS) == {"prompt.txt.j2", "report.txt.j2", "welcome.txt.j2", "deadline.txt.j2",
                          "replaced.txt.j2", "position.txt.j2", "reply.txt.j2"}


@pytest.mark.parametrize("template", MAILS)
def test_a_template_renders_in_both_languages_and_the_russian_has_no_english_left(template):
    en = environment(language="en").get_template(template).render(**context(template, "en"))
    ru_ctx = context(template, "ru")
    ru = environment(language="ru").get_template(template).render(**ru_ctx)
    assert en.strip() and ru.strip() and en != ru
    assert english_words(en, context(template, "en")), "the check sees the English words of the English text"
    assert not english_words(ru, ru_ctx), f"{template}: English left in the Russian text:\n{ru}"
    assert re.search("[а-яА-Я]", ru)


@pytest.mark.parametrize("template", MAILS)
def test_a_missing_variable_is_an_error_in_either_language(template):
    for lang in ("en", "ru"):
        ctx = context(template, lang)
        ctx.pop(next(iter(ctx)))
        with pytest.raises(jinja2.UndefinedError):
            environment(language=lang).get_template(template).render(**ctx)


def test_the_templates_are_those_shipped():
    assert any((d / "reply.txt.j2").is_file() for d in template_dirs())


def test_compiled_templates_are_reused_and_a_damaged_cache_is_no_cache(tmp_path):
    """Issue 33: compiled templates are kept between runs (jinja2's bytecode cache); an entry that is
    damaged, or a cache folder that cannot be written, only means the template is compiled afresh."""
    from pbem.templating import _CompiledTemplates

    def env_with(cache):
        return jinja2.Environment(loader=jinja2.FileSystemLoader([str(p) for p in template_dirs()]),
                                  undefined=jinja2.StrictUndefined, extensions=["jinja2.ext.i18n"],
                                  bytecode_cache=cache)

    def reply_of(env):
        env.install_null_translations(newstyle=True)
        return env.get_template("reply.txt.j2")

    folder = tmp_path / "cache"
    folder.mkdir()
    reply_of(env_with(_CompiledTemplates(str(folder))))
    entries = list(folder.iterdir())
    assert len(entries) == 1
    entries[0].write_bytes(entries[0].read_bytes()[:40])     # truncated, as a full disk would leave it
    assert reply_of(env_with(_CompiledTemplates(str(folder)))).name == "reply.txt.j2"
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    assert reply_of(env_with(_CompiledTemplates(str(not_a_folder / "cache")))).name == "reply.txt.j2"


def test_a_template_compiled_with_other_options_is_compiled_afresh(tmp_path, monkeypatch):
    """Issue 33: a cache entry is the template's source AND how it was compiled (jinja2's version, the
    environment's options): a pbem compiling otherwise (an upgrade) never runs the older code."""
    import pbem.templating as templating

    cache = templating._CompiledTemplates(str(tmp_path))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([str(p) for p in template_dirs()]),
                             bytecode_cache=cache, **templating._OPTIONS)
    env.install_null_translations(newstyle=True)
    source, filename, _ = env.loader.get_source(env, "reply.txt.j2")
    env.get_template("reply.txt.j2")
    assert cache.get_bucket(env, "reply.txt.j2", filename, source).code is not None
    monkeypatch.setattr(templating, "_COMPILED_BY", templating._COMPILED_BY + "trim_blocks=False")
    assert cache.get_bucket(env, "reply.txt.j2", filename, source).code is None


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_direct_gettext_says_what_jinjas_own_says(language):
    """Issue 33: the templates' `_`, `gettext` and `ngettext` are plain functions (no call through
    the render context), formatting exactly as jinja2's new-style ones do: a phrase with and without
    variables, a literal `%%`, a plural with its count and `num`."""
    from pbem import i18n

    source = ('{{ _("Deadline:") }}|{{ _("Game %(game)s: your orders", game="g1") }}|{{ _("100%% sure") }}|'
              '{% trans count=n %}All {{ count }} order line(s) are OK{% pluralize %}All {{ count }} order line(s) are OK'
              '{% endtrans %}|{{ ngettext("%(num)s line", "%(num)s lines", n) }}')
    own = jinja2.Environment(extensions=["jinja2.ext.i18n"], autoescape=False)
    own.install_gettext_translations(i18n.translations(language), newstyle=True)
    ours = environment(language=language)
    assert {ours.globals[k].__module__ for k in ("_", "gettext", "ngettext")} == {"pbem.templating"}
    for n in (1, 2, 5):
        assert ours.from_string(source).render(n=n) == own.from_string(source).render(n=n)
