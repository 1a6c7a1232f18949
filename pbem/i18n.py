"""Players' languages: the message catalogs every text a player receives is translated from (issue 34).

English is the language of the code and the templates (the msgids); every other language has a
gettext catalog, `pbem/locale/<language>/LC_MESSAGES/messages.po`, read with Babel and compiled in
memory on first use (no compiled .mo file to keep in step with its .po). The jinja2 environment of
pbem.templating installs these translations through jinja2's i18n extension, so a template writes
`{{ _("Deadline:") }}` or `{% trans count=n %}...{% pluralize %}...{% endtrans %}`; Python code calls
`gettext(language, ...)` / `ngettext(language, ...)`. Plural forms follow the catalog's
`Plural-Forms` header (Russian has three: 1 армия, 2 армии, 5 армий).

The strings are found by `pybabel extract -F babel.cfg -k _N:1,2 -o messages.pot .` (babel.cfg at the
top of the repository); tests/test_i18n.py checks that every string it finds has a Russian translation.

A player's language is game.yaml `players[i].language` (`pbem new --player ann=ann@x --lang ru`, or
the player's mail line `LANGUAGE ru`: pbem.service.away.set_language), English when absent.

Python code writes `tr(language, _("Deadline %(when)s"), when=...)` and `trn(language, _N(...), n)`;
`name(language, rs, id)` writes a nation, leader or area as a player of that language knows it with
the board's name beside it (`Йорк (York)`), and `order_line(language, rs, line)` an order line with
the player's names only (it parses to the same order). What the rules core says in English is
translated where it reaches the player: pbem.report.localize (the report's facts), pbem.orders.phrases
(the parser's and the rules' refusals in a reply).
"""

from __future__ import annotations

import functools
import gettext as _gettext
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pbem.errors import PbemError

DEFAULT = "en"
LANGUAGES = ("en", "ru")
"""The languages a player may choose; every one but English has a catalog in pbem/locale."""
LANGUAGE_NAMES = {"en": "English", "ru": "русский"}
_SPELLINGS = {"english": "en", "английский": "en", "англ": "en", "russian": "ru", "русский": "ru", "рус": "ru",
              "ру": "ru"}
"""What a `LANGUAGE` mail line may say besides the code (`LANGUAGE русский`)."""
DOMAIN = "messages"
CATALOGS = Path(__file__).resolve().parent / "locale"


def catalog_path(language: str) -> Path:
    return CATALOGS / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def check_language(value: Any) -> str:
    """The language code `value` names ("ru", "RU", " ru "), or a PbemError listing the known ones."""
    code = str(value).strip().lower() if isinstance(value, str) else ""
    code = _SPELLINGS.get(code, code)
    if code not in LANGUAGES:
        raise PbemError(f"unknown language {value!r}", hint="known languages: " + ", ".join(LANGUAGES))
    return code


def player_language(player: Mapping[str, Any] | None) -> str:
    """A game.yaml player's language (English when not given)."""
    value = (player or {}).get("language")
    return value if value in LANGUAGES else DEFAULT


@functools.lru_cache(maxsize=len(LANGUAGES))
def translations(language: str) -> _gettext.NullTranslations:
    """The compiled catalog of `language` (English: no translation)."""
    language = check_language(language)
    if language == DEFAULT:
        return _gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    path = catalog_path(language)
    try:
        with path.open("rb") as f:
            catalog = read_po(f, locale=language, domain=DOMAIN)
    except OSError as e:
        raise PbemError(f"the {language} message catalog is missing ({path.name})",
                        hint="reinstall pbem: the catalogs ship in pbem/locale") from e
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(fp=buf, domain=DOMAIN)


def gettext(language: str, message: str) -> str:
    return translations(language).gettext(message)


def ngettext(language: str, singular: str, plural: str, n: int) -> str:
    """The form of a message for the count `n` (`%(num)d` in it is left for the caller)."""
    return translations(language).ngettext(singular, plural, n)


def count(language: str, n: int, singular: str, plural: str) -> str:
    """`n` and its noun in the plural form the language needs: count("ru", 5, "%(num)d army",
    "%(num)d armies") -> "5 армий"."""
    return ngettext(language, singular, plural, n) % {"num": n}


# Strings Python code translates at run time are marked where they are written, `_("...")` or
# `_N("%(num)d army", "%(num)d armies")` (no-ops), so that `pybabel extract -k _N:1,2` finds them.
def _(message: str) -> str:
    return message


def _N(singular: str, plural: str) -> tuple[str, str]:
    return singular, plural


PIECES = {
    "armies": _N("%(num)d army", "%(num)d armies"),
    "cavalry": _N("%(num)d cavalry", "%(num)d cavalry"),
    "leader": _N("%(num)d leader", "%(num)d leaders"),
}
"""How a report counts pieces: count(language, n, *PIECES[kind])."""


def tr(language: str, message: str, /, **fields: Any) -> str:
    """`message` (marked `_("...")` where it is written) in `language`, its `%(field)s` filled in."""
    text = gettext(language, message)
    return text % fields if fields else text


def trn(language: str, forms: tuple[str, str], n: int, /, **fields: Any) -> str:
    """The plural form of `forms` (marked `_N(...)`) for `n`, `%(num)d` and the fields filled in."""
    return ngettext(language, forms[0], forms[1], n) % {"num": n, **fields}


def name(language: str, rs, ident: str) -> str:
    """A nation's, leader's or area's name as a player of `language` knows it, the board's name beside
    it where it differs (Russian: `Йорк (York)`); the board's own name in English."""
    board = rs.display(ident)
    local = local_name(language, rs, ident)
    return board if not local or local == board else f"{local} ({board})"


area = name


def local_name(language: str, rs, ident: str) -> str:
    """The name of a nation, leader or area in `language` (names.<language>.yaml), "" without one."""
    if language == DEFAULT:
        return ""
    entry = (getattr(rs, "local_names", None) or {}).get(language, {}).get(ident)
    if not entry:
        return ""
    return entry[0] if isinstance(entry, (tuple, list)) else str(entry)


# Words a template translates from a value (`{{ _(p.kind) }}`): marked here so that pybabel finds them.
PROBLEM_KINDS = (_("syntax"), _("unknown-name"), _("ambiguous-name"), _("not-your-unit"), _("not-adjacent"),
                 _("too-far"), _("hiland-stop"), _("enemy-stop"), _("sea-move"), _("landing-restriction"),
                 _("strait"), _("stacking"), _("not-now"), _("auth"))
"""The error kinds of an order line (pbem.errors.ORDER_ERROR_KINDS)."""
CHATTER = (_("a greeting or sign-off"), _("a name or a word or two, not an order"))
"""Why a line was read as mail talk (pbem.orders.hygiene.chatter)."""
GUIDES = {"en": "PLAYERS.md", "ru": "PLAYERS.ru.md"}
"""The players' guide in each language (docs/; attached to the prompts)."""


_BOARD_NAMES: dict[tuple, tuple] = {}


def _board_names(rs, language: str):
    """(pattern of every board name with a local one, board name -> local name), longest first; one
    per ruleset (its id and data version) and language."""
    import re

    key = (getattr(rs, "id", ""), getattr(rs, "data_version", 0), language)
    if key in _BOARD_NAMES:
        return _BOARD_NAMES[key]
    local = {}
    for ident in (getattr(rs, "local_names", None) or {}).get(language, {}):
        board, mine = rs.display(ident), local_name(language, rs, ident)
        if mine and mine != board:
            local[board] = mine
    names = sorted(local, key=len, reverse=True)
    found = (re.compile(r"(?<!\w)(" + "|".join(re.escape(n) for n in names) + r")(?!\w)"), local) if local else (None, {})
    _BOARD_NAMES[key] = found
    return found


def order_line(language: str, rs, line: str) -> str:
    """A canonical order line (board names) read back in `language`: each name as the player knows it
    (`3 Кент -> Эссекс`), the order words as they are; the line parses to the same order."""
    if language == DEFAULT or not line:
        return line
    pattern, local = _board_names(rs, language)
    return pattern.sub(lambda m: local[m.group(1)], line) if pattern else line


COLOURS = {"yellow": _("yellow"), "green": _("green"), "red": _("red"), "blue": _("blue"), "purple": _("purple"),
           "pink": _("pink"), "orange-red": _("orange-red"),
           "black": _("black")}
"""The players' colours (nations.yaml)."""


def colour(language: str, value: str) -> str:
    """A player's colour in `language` (as it is when it is no colour we know)."""
    key = str(value or "").lower()
    return tr(language, COLOURS[key]) if key in COLOURS and language != DEFAULT else str(value or "")


def cite(language: str, ref: str) -> str:
    """A rule reference a ruleset gives (Rules.rule_ref: `rule 7.2`, `FFG 18`) in `language`: the
    rule book's numbers as they are, the word `rule` translated."""
    import re

    m = re.fullmatch(r"rule (\S+)", ref or "")
    return tr(language, _("rule %(number)s"), number=m.group(1)) if m and language != DEFAULT else ref
