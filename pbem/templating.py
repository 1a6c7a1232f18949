"""The jinja2 environment for every mail and report: StrictUndefined, templates/ next to the package
(a source checkout) or pbem/templates (an installed package), and jinja2's i18n extension with the
translations of a players' language installed (pbem.i18n): `{{ _("Deadline:") }}` and
`{% trans count=n %}...{% pluralize %}...{% endtrans %}` in a template; English by default."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

import pbem
from pbem import i18n
from pbem.errors import PbemError


def template_dirs() -> list[Path]:
    pkg = Path(pbem.__file__).resolve().parent
    return [p for p in (pkg.parent / "templates", pkg / "templates") if p.is_dir()]


# How every template is compiled (the environment's options; gettext calls are compiled new-style):
# part of each compiled template's cache entry, so that a pbem that compiles otherwise never runs
# code another compiled from the same template source
_OPTIONS: dict = dict(autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                      extensions=["jinja2.ext.i18n"],
                      auto_reload=False)    # the templates ship with pbem: no stat of the file per mail
_COMPILED_BY = f"jinja2 {jinja2.__version__}, {sorted(_OPTIONS.items())!r}, newstyle gettext\0"


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between runs in jinja2's own cache folder (the user's, mode 0700, in
    the temp folder; a template's entry is used only while its source, the jinja2 version and the
    compile options are unchanged): compiling the reply and turn-mail templates was a twentieth of
    a cron run taking one mail (issue 33). A cache that cannot be read or written is no cache: the
    template is compiled as before."""

    def get_source_checksum(self, source: str) -> str:
        return super().get_source_checksum(_COMPILED_BY + source)

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - a damaged entry (truncated, unpicklable) is compiled afresh
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


@functools.lru_cache(maxsize=1)
def _bytecode_cache() -> jinja2.BytecodeCache | None:
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):    # no safe folder of this user's (jinja2's checks)
        return None


@functools.lru_cache(maxsize=8)
def environment(dirs: tuple[str, ...] | None = None, language: str = i18n.DEFAULT) -> jinja2.Environment:
    """The environment rendering in `language` (one per language and template folder)."""
    paths = list(dirs) if dirs else [str(p) for p in template_dirs()]
    if not paths:
        raise PbemError("the templates are missing", hint="expected a templates/ folder next to the pbem package or in it")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(paths), undefined=jinja2.StrictUndefined,
                             bytecode_cache=_bytecode_cache(), **_OPTIONS)
    translations = i18n.translations(language)
    env.install_gettext_translations(translations, newstyle=True)
    env.globals.update(_direct_gettext(translations))
    return env


def _direct_gettext(translations) -> dict:
    """`_`, `gettext` and `ngettext` for the templates as plain functions, doing what jinja2's
    new-style ones do with autoescape off (the translated text, always formatted with its variables;
    `num` set for a plural): jinja2's own take the render context and call through it twice for every
    phrase, a twentieth of rendering a reply in a burst of mail (issue 33)."""
    find, find_plural = translations.gettext, translations.ngettext

    def gettext(__string: str, **variables) -> str:
        return find(__string) % variables

    def ngettext(__singular: str, __plural: str, __num: int, **variables) -> str:
        variables.setdefault("num", __num)
        return find_plural(__singular, __plural, __num) % variables

    return {"_": gettext, "gettext": gettext, "ngettext": ngettext}


def render(template: str, language: str = i18n.DEFAULT, **context) -> str:
    return environment(language=language).get_template(template).render(**context)
