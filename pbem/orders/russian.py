"""The Russian order words: a line written in Russian -> the same line with the English order words.

`to_english("АТАКА Йорк: ОТСТУПИТЬ ПОСЛЕ РАУНДА 2")` is `"ATTACK Йорк: RETREAT AFTER ROUND 2"`; the
order parser (pbem.orders.parser) then reads it as any English line and the names (Йорк, Йорке,
Римлянам) go through pbem.orders.names like every name. Only the words of the tables are
changed, whole words, case-insensitively (ё as е, й as и, Latin look-alike letters inside a Cyrillic
word as their Cyrillic twins); everything else of the line is left as written. A line without a
Cyrillic letter is not touched, so no English order reads differently. The tables: each form's
keyword in Russian (`OrderForm.translations["ru"]`, registered with the form: pbem.orders.forms and
a family's own forms) and the words inside an order (INNER_WORDS).

The words are ours (no Russian printing of the game has order words); the game terms follow the
Russian rules summary players use: Движение (movement), Битва (battle), Отступление (retreat), Откат
Набега (raider withdrawal), Вожди (leaders), покориться (submission, rule 11), Потери (losses).

The prepositions take the meaning the line's order needs: `в`, `во`, `на` are IN after LEADER (unless
the line also says where from: `ВОЖДЬ Артур из Йорка в Лотиан` is a move) and STAY, TO in a move,
DEFEND and SUBMIT, and are left out elsewhere (`БРЕТАНЬ 2 в Корнуолл`); `из`, `от` and `за` (from,
for) are left out (`3 из Кента в Эссекс`, `ГОЛОС за Римлян`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache

import pbem.orders.forms  # noqa: F401  (the generic forms and their Russian keywords)
import pbem.rules.rulesets  # noqa: F401  (the rules families' own forms)
from pbem.orders.names import normalize, readings, script
from pbem.rules.orders import forms_generation, registered_forms

LANGUAGE = "ru"
# The words inside an order (English as the parser reads it -> the Russian words and phrases that
# mean it); the order keywords, the first word of a line, are each form's own (OrderForm.translations).
INNER_WORDS: dict[str, tuple[str, ...]] = {
    "MOVEMENT": ("движение",),
    "FIGHT": ("бой", "биться", "сражаться"),
    "RETREAT": ("отступить", "отступление", "отступать"),
    "HOLD": ("держать", "стоять", "удерживать"),
    "IF OUTNUMBERED": ("если меньше", "если в меньшинстве", "если нас меньше"),
    "AFTER": ("после",),
    "ROUND": ("раунд", "раунда", "раунде", "раунды", "раундов"),
    "RAIDERS": ("набеги", "налетчики", "рейдеры"),
    "SETTLERS": ("поселенцы", "переселенцы"),
    "CAVALRY": ("конница", "конницу", "конницы", "кавалерия", "кавалерию", "всадники", "всадников"),
    "FIRST": ("первыми", "первым", "первые", "сначала"),
    "LAST": ("последней", "последними", "последним", "последние"),
    "ALL": ("все", "всех", "везде"),
    "REST": ("остальные", "остальных"),
    "armies": ("армия", "армии", "армию", "отряд", "отряда", "отрядов"),
    "fort": ("форт", "форты", "фортов", "бурх", "бурхи", "бурхов"),
    "to": ("к", "ко", "до"),
}
_WHERE = ("в", "во", "на")      # IN, TO or nothing, by the order (module doc)
_FROM = ("из", "от", "за")      # left out
_IN_AFTER = ("LEADER", "STAY")
_TO_AFTER = ("DEFEND", "SUBMIT", "ATTACK", "VICTORS")   # VICTORS: a family's retreat of the victors
_WORD = re.compile(r"[^\W\d_]+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


@lru_cache(maxsize=4)
def _tables(generation: int) -> tuple[dict[str, tuple[str, ...]], dict[tuple[str, ...], str], int, frozenset[str]]:
    """(English -> Russian words: the forms' keywords, then INNER_WORDS; Russian phrase (normalized
    words) -> English; the longest phrase; the keywords with Russian words), for the forms registered."""
    keywords = {f.keyword: f.translations[LANGUAGE] for f in registered_forms().values()
                if f.translations.get(LANGUAGE)}
    words = {**keywords, **INNER_WORDS}
    phrases: dict[tuple[str, ...], str] = {}
    for english, russian in words.items():
        for phrase in russian:
            phrases[tuple(normalize(phrase).split())] = english
    for w in (*_WHERE, *_FROM):
        phrases[(normalize(w),)] = ""
    return words, phrases, max(len(k) for k in phrases), frozenset(keywords)


def _current():
    return _tables(forms_generation())


class _Words(Mapping):
    """English -> the Russian words that mean it, for the forms registered now (read-only)."""

    def __getitem__(self, english: str) -> tuple[str, ...]:
        return _current()[0][english]

    def __iter__(self) -> Iterator[str]:
        return iter(_current()[0])

    def __len__(self) -> int:
        return len(_current()[0])


WORDS: Mapping[str, tuple[str, ...]] = _Words()


def first_words() -> dict[str, str]:
    """The Russian words that start an order -> its English keyword (for a did-you-mean)."""
    words, _, _, keywords = _current()
    return {r: e for e, ws in words.items() if e in keywords for r in ws}


def every_word() -> set[str]:
    """Every word of the table, normalized (no name of a ruleset may be one: tests check)."""
    return {w for k in _current()[1] for w in k}


def _key(word: str) -> str:
    if script(word) == "mixed":
        for sc, read in readings(word):
            if sc == "cyrillic":
                return normalize(read)
    return normalize(word)


def to_english(line: str) -> str:
    """The line with its Russian order words in English (see the module doc)."""
    if not _CYRILLIC.search(line):
        return line
    _, phrases, longest, keywords = _current()
    words = list(_WORD.finditer(line))
    keys = [_key(m.group()) for m in words]
    spans: list[tuple[int, int, str]] = []    # (start, end, English) to replace
    i = 0
    while i < len(words):
        for n in range(min(longest, len(words) - i), 0, -1):
            english = phrases.get(tuple(keys[i:i + n]))
            between = line[words[i].end():words[i + n - 1].start()] if n > 1 else ""
            if english is not None and not between.strip(" "):
                spans.append((words[i].start(), words[i + n - 1].end(), english))
                i += n
                break
        else:
            i += 1
    if not spans:
        return line
    first = spans[0][2] if spans[0][0] == words[0].start() else ""
    has_from = any(line[a:b].lower() in _FROM_SET for a, b, e in spans if e == "")
    leader_move = first == "LEADER" and (has_from or "->" in line)
    where = ("in" if first in _IN_AFTER and not leader_move
             else "to" if leader_move or first in _TO_AFTER or first not in keywords else "")
    out, at = [], 0
    for a, b, english in spans:
        if english == "" and normalize(line[a:b]) in _WHERE_SET:
            english = where
        out.append(line[at:a])
        out.append(english)
        at = b
    out.append(line[at:])
    return " ".join("".join(out).split())


_WHERE_SET = {normalize(w) for w in _WHERE}
_FROM_SET = {normalize(w) for w in _FROM}
