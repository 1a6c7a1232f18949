"""The case forms of a Russian name, generated from its nominative (Йорк -> Йорка, Йорку, Йорком, Йорке).

A Russian order sentence puts names in the case its words ask for: `3 из Кента в Эссекс` (genitive,
accusative), `ВОЖДЬ Артур в Йорке` (prepositional), `ПОКОРИТЬСЯ Римлянам` (dative). The names files
(pbem/data/<ruleset>/names.ru.yaml) list only the nominative; `forms(name)` gives the other five
cases by the common noun and adjective endings, word by word:

- a noun in a consonant (Кент), `-й`/`-ь` (Морей, Завоеватель), `-а` (Марка), `-я`/`-ия` (Кумбрия);
  the neuter `море`; other foreign names ending in a vowel (Хвикке, Линдси, Освиу) do not decline;
- an adjective in `-ая -яя -ое -ее -ый -ий -ой -ые -ие` (Южная Мерсия, Северное море);
- a plural name (`plural=True`: nations, Пеннины, Оркнейские острова): `-ы/-и` (Саксов, Саксам),
  `-цы` (Валлийцев), `-ане/-яне` (Римлян), `-а` (островов).

In a name of several words every word takes the same case; a noun before the last word is accepted
both declined and as written (Дал Риады, Фергуса Мор мак Эрка). Irregular forms the endings do not
give (the genitive Пеннин, Гебрид) are listed in the names file. The loader checks that no form of
one name is a name or form of another (pbem.data.loader._unique_names).
"""

from __future__ import annotations

import itertools

# nominative, genitive, dative, accusative, instrumental, prepositional; an accusative that is the
# nominative (inanimate) or the genitive (animate: nations, leaders) is there already
CASES = 6
_HUSHING = "жшчщц"
_VELAR_HUSHING = "гкхжшчщ"
_NEUTER_NOUNS = {"море": "мор", "поле": "пол"}   # common nouns in -е that decline (моря, морю, морем)
_VOWELS = "аеёиоуыэюя"


def _adjective(w: str, plural: bool) -> list[list[str]] | None:
    low = w.lower()
    if len(low) < 4:
        return None
    end, stem = low[-2:], w[:-2]
    if end in ("ые", "ие"):
        y = "ы" if end == "ые" else "и"
        return [[w], [stem + y + "х"], [stem + y + "м"], [w], [stem + y + "ми"], [stem + y + "х"]]
    if plural:
        return None
    if end == "ая":
        return [[w], [stem + "ой"], [stem + "ой"], [stem + "ую"], [stem + "ой", stem + "ою"], [stem + "ой"]]
    if end == "яя":
        return [[w], [stem + "ей"], [stem + "ей"], [stem + "юю"], [stem + "ей"], [stem + "ей"]]
    if end in ("ое", "ый", "ой") or (end == "ий" and stem[-1:].lower() in _VELAR_HUSHING[:3]):
        i = "и" if stem[-1:].lower() in _VELAR_HUSHING[:3] else "ы"
        return [[w], [stem + "ого"], [stem + "ому"], [w], [stem + i + "м"], [stem + "ом"]]
    if end in ("ее", "ий"):
        return [[w], [stem + "его"], [stem + "ему"], [w], [stem + "им"], [stem + "ем"]]
    return None


def _plural_noun(w: str) -> list[list[str]]:
    low = w.lower()
    if low.endswith(("ане", "яне")):
        stem = w[:-1]
        return [[w], [stem], [stem + "ам"], [w], [stem + "ами"], [stem + "ах"]]
    if low[-1:] in "ыиая":
        stem = w[:-1]
        last = stem[-1:].lower()
        gen = stem + ("ев" if last == "ц" else "ей" if last in "жшчщ" else "ов")
        a = "я" if low[-1] == "я" else "а"
        return [[w], [gen], [stem + a + "м"], [w], [stem + a + "ми"], [stem + a + "х"]]
    return [[w]] * CASES


def _singular_noun(w: str) -> list[list[str]]:
    low = w.lower()
    last = low[-1:]
    if low in _NEUTER_NOUNS:
        stem = w[:-1]
        return [[w], [stem + "я"], [stem + "ю"], [w], [stem + "ем"], [stem + "е"]]
    if low.endswith("ия"):
        stem = w[:-1]
        return [[w], [stem + "и"], [stem + "и"], [stem + "ю"], [stem + "ей", stem + "ею"], [stem + "и"]]
    if last == "я":
        stem = w[:-1]
        return [[w], [stem + "и"], [stem + "е"], [stem + "ю"], [stem + "ей"], [stem + "е"]]
    if last == "а":
        stem = w[:-1]
        before = stem[-1:].lower()
        gen = stem + ("и" if before in _VELAR_HUSHING else "ы")
        ins = stem + ("ей" if before in _HUSHING else "ой")
        return [[w], [gen], [stem + "е"], [stem + "у"], [ins], [stem + "е"]]
    if last in ("й", "ь"):
        stem = w[:-1]
        return [[w], [stem + "я"], [stem + "ю"], [w], [stem + "ем"], [stem + "е"]]
    if last in _VOWELS or not last.isalpha() or not ("а" <= last <= "я"):
        return [[w]] * CASES    # a foreign name in a vowel (Хвикке, Линдси), or not Cyrillic
    ins = w + ("ем" if last in _HUSHING else "ом")
    return [[w], [w + "а"], [w + "у"], [w], [ins], [w + "е"]]


def _word(w: str, plural: bool, last: bool) -> list[list[str]]:
    adj = _adjective(w, plural)
    if adj is not None:
        return adj
    declined = _plural_noun(w) if plural else _singular_noun(w)
    if last:
        return declined
    return [sorted({w, *alts}) for alts in declined]   # a noun before the last word: either way


def forms(name: str, *, plural: bool = False) -> tuple[str, ...]:
    """Every case form of `name` (the nominative first), each once, in a stable order."""
    words = name.split()
    if not words:
        return ()
    table = [_word(w, plural, i == len(words) - 1) for i, w in enumerate(words)]
    out: dict[str, None] = {name: None}
    for case in range(CASES):
        for combo in itertools.product(*(t[case] for t in table)):
            out.setdefault(" ".join(combo), None)
    return tuple(out)
