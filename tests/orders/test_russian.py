"""Orders in Russian (issue 34 item 2): the order words, the names and their case forms, both scripts in
one mail, look-alike letters, did-you-mean in Cyrillic, and names that may not collide."""

from __future__ import annotations

import pytest

from pbem.data import loader
from pbem.errors import DataError
from pbem.orders import names, russian
from pbem.orders.declension import forms
from pbem.orders.parser import parse_message

# (English line, its Russian twin): every order keyword and every word inside an order
TWINS = [
    ("PLACE York, 2 Kent", "РАЗМЕСТИТЬ Йорк, 2 Кент"),
    ("LEADER Arthur IN York", "ВОЖДЬ Артур в Йорке"),
    ("Arthur York -> Lothian", "ВОЖДЬ Артур из Йорка в Лотиан"),
    ("Arthur York -> Lothian", "Артур Йорк -> Лотиан"),
    ("3 Kent -> Essex", "3 из Кента в Эссекс"),
    ("2 armies Kent -> Essex -> Sussex", "2 армии Кент -> Эссекс -> Суссекс"),
    ("2 cavalry York -> Lothian", "2 конницы Йорк в Лотиан"),
    ("STAY 2 North Sea", "ОСТАТЬСЯ 2 в Северном море"),
    ("BATTLES York, Kent", "БИТВЫ Йорк, Кент"),
    ("ATTACK York: FIGHT", "АТАКА Йорк: БИТЬСЯ"),
    ("ATTACK York: RETREAT AFTER ROUND 2", "АТАКА Йорк: ОТСТУПИТЬ ПОСЛЕ РАУНДА 2"),
    ("ATTACK York: RETREAT IF OUTNUMBERED", "АТАКА Йорк: ОТСТУПИТЬ ЕСЛИ МЕНЬШЕ"),
    ("WITHDRAW York", "ОТКАТ Йорк"),
    ("SETTLE York", "ОСЕСТЬ в Йорке"),
    ("DISBAND York, Kent", "РАСПУСТИТЬ Йорк, Кент"),
    ("BRITTANY 2 Cornwall", "БРЕТАНЬ 2 Корнуолл"),
    ("VOTE Romans", "ГОЛОС за Римлян"),
    ("SUBMIT TO Romans", "ПОКОРИТЬСЯ Римлянам"),
    ("ALLOW Romano-British", "РАЗРЕШИТЬ Бриттам"),
    ("PASS", "ПАС"),
    ("DEFEND York: HOLD", "ЗАЩИТА Йорк: ДЕРЖАТЬ"),
    ("DEFEND York: RETREAT TO Lothian IF OUTNUMBERED AFTER ROUND 2",
     "ОБОРОНА Йорк: ОТСТУПИТЬ В Лотиан ЕСЛИ МЕНЬШЕ ПОСЛЕ 2 РАУНДОВ"),
    ("DEFEND ALL: RETREAT 2 TO Lothian, REST TO Pennines", "ЗАЩИТА ВСЕ: ОТСТУПИТЬ 2 В Лотиан, ОСТАЛЬНЫЕ В Пеннины"),
    ("CLEAR DEFEND York", "ОТМЕНИТЬ ЗАЩИТУ Йорк"),
    ("LOSSES ALL: RAIDERS FIRST", "ПОТЕРИ ВСЕ: НАБЕГИ ПЕРВЫМИ"),
    ("LOSSES York: SETTLERS FIRST", "ПОТЕРИ Йорк: ПОСЕЛЕНЦЫ ПЕРВЫМИ"),
    ("LOSSES York: CAVALRY LAST", "ПОТЕРИ Йорк: КОННИЦА ПОСЛЕДНЕЙ"),
    ("SECOND MOVEMENT", "ВТОРОЕ ДВИЖЕНИЕ"),
    ("3 Kent -> Essex", "3 Кент -> Эссекс"),     # after SECOND MOVEMENT: cycle 2 in both
]


def _orders(text: str, rs):
    pm = parse_message(text, rs)
    assert pm.ok, [(p.line, p.message) for p in pm.problems]
    return pm


@pytest.mark.parametrize("ruleset_id", ["classic", "ffg2"])
def test_a_russian_mail_gives_the_orders_of_its_english_twin(ruleset_id):
    rs = loader.load(ruleset_id)
    english = _orders("GAME g1\nTOKEN t1\nNATION Romans\n" + "\n".join(e for e, _ in TWINS), rs)
    russian_ = _orders("ИГРА g1\nТОКЕН t1\nНАРОД Римляне\n" + "\n".join(r for _, r in TWINS), rs)
    assert (russian_.game, russian_.token, russian_.nations) == (english.game, english.token, ["romans"])
    assert [ln.order for ln in russian_.lines] == [ln.order for ln in english.lines]
    kinds = {type(ln.order).__name__ for ln in russian_.lines}
    assert len(kinds) >= 21     # every order form of the parser is in the table above


def test_every_russian_keyword_starts_its_order():
    phrases = [names.normalize(p) for ps in russian.WORDS.values() for p in ps]
    assert len(phrases) == len(set(phrases))       # no two words of the table read alike (бой, бои)
    for word, keyword in russian.first_words().items():
        assert russian.to_english(f"{word.upper()} Йорк").split()[0] == keyword


@pytest.mark.parametrize("text, ident", [
    ("Йорк", "york"), ("Йорка", "york"), ("Йорку", "york"), ("Йорком", "york"), ("Йорке", "york"),
    ("иорке", "york"), ("Чешира", "cheshire"), ("Кумбрии", "cumbria"), ("Пеннин", "pennines"),
    ("Берниции", "bernicia"), ("Южной Мерсии", "south_mercia"), ("Северную Мерсию", "north_mercia"),
    ("Марку", "march"), ("Морее", "moray"), ("Оркнейских островах", "orkneys"), ("Дал Риады", "dalriada"),
    ("Атлантическом океане", "atlantic_ocean"), ("Узкому морю", "english_channel"), ("Хвикке", "hwicce"),
])
def test_case_forms_of_a_place(text, ident):
    assert names.resolve(loader.load("ffg2"), text) == ident


@pytest.mark.parametrize("text, kind, ident", [
    ("Римлян", "nation", "romans"), ("Римлянам", "nation", "romans"), ("Бриттов", "nation", "romano_british"),
    ("Валлийцев", "nation", "welsh"), ("Данами", "nation", "danes"), ("Саксов", "nation", "saxons"),
    ("Боудикки", "leader", "boudicca"), ("Артура", "leader", "arthur"),
    ("Харальда Хардрады", "leader", "harald_hardrada"), ("Вильгельмом Завоевателем", "leader", "william"),
])
def test_case_forms_of_nations_and_leaders(text, kind, ident):
    assert names.resolve(loader.load("classic"), text, (kind,)) == ident


def test_forms_are_generated_by_the_endings():
    assert forms("Йорк") == ("Йорк", "Йорка", "Йорку", "Йорком", "Йорке")
    assert set(forms("Кумбрия")) >= {"Кумбрии", "Кумбрию", "Кумбрией"}
    assert set(forms("Северное море")) >= {"Северного моря", "Северному морю", "Северным морем", "Северном море"}
    assert set(forms("Саксы", plural=True)) >= {"Саксов", "Саксам", "Саксами", "Саксах"}
    assert forms("Линдси") == ("Линдси",)       # a foreign name in a vowel does not decline


def test_latin_and_cyrillic_names_in_one_mail():
    rs = loader.load("classic")
    pm = _orders("NATION Romans\n3 Кент -> Essex\n2 Kent -> Эссекс -> Sussex\nНАРОД Saxons\nPLACE Йорке", rs)
    moves = [ln.order for ln in pm.lines if type(ln.order).__name__ == "Move"]
    assert [m.path for m in moves] == [("kent", "essex"), ("kent", "essex", "sussex")]
    assert pm.nations == ["romans", "saxons"]
    assert pm.section("saxons").orders[0].areas == ("york",)


def test_look_alike_letters_are_read_when_they_name_one_thing():
    rs = loader.load("classic")
    assert names.resolve(rs, "Эссeкс") == "essex"          # a Latin e inside the Cyrillic word
    assert names.resolve(rs, "Kеnt") == "kent"             # a Cyrillic е inside the Latin word
    # case as typed matters: a Latin H is the twin of the Cyrillic Н, a Latin h has none
    with pytest.raises(names.NameProblem):
        names.resolve(rs, "кеhт")
    assert names.resolve(rs, "КЕHТ") == "kent"
    pm = _orders("NATION Romans\nPАЗМЕСТИТЬ Эссeкс", rs)     # a Latin P in the order word too
    assert pm.section("romans").orders[0].areas == ("essex",)


def test_look_alike_letters_are_refused_when_they_do_not():
    rs = loader.load("classic")
    with pytest.raises(names.NameProblem) as e:
        names.resolve(rs, "Кенt")                           # t has no Cyrillic twin, н no Latin one
    assert e.value.kind == "unknown-name" and "mixes Latin and Cyrillic letters" in e.value.message
    assert "one alphabet" in e.value.hint
    # two readings that name two areas: refused, naming both, never matched to either
    rs2 = loader.load("classic", {"ruleset.aliases": {"york": ["Сор"], "kent": ["Cop"]}})
    assert names.resolve(rs2, "Сор") == "york" and names.resolve(rs2, "Cop") == "kent"
    with pytest.raises(names.NameProblem) as e:
        names.resolve(rs2, "Соp")                           # Cyrillic С, о and a Latin p
    assert e.value.kind == "ambiguous-name"
    assert "Йорк (York)" in e.value.message and "Kent" in e.value.message
    pm = parse_message("NATION Romans\n3 Соp -> Essex", rs2)
    assert not pm.ok and "mixes Latin and Cyrillic" in pm.problems[0].message


def test_did_you_mean_in_cyrillic():
    rs = loader.load("classic")
    pm = parse_message("NATION Romans\n3 Йорх -> Лотиан\nРАЗМЕСТИТ Йорк\nГОЛОС Римлянек", rs)
    hints = [p.hint for p in pm.problems]
    assert "Did you mean Йорк (York)?" in hints[0]
    assert "Did you mean РАЗМЕСТИТЬ (PLACE)?" in hints[1]
    assert "Римляне (Romans)" in hints[2]
    # and in Latin as before
    assert "Did you mean York?" in parse_message("NATION Romans\n3 Yrok -> Lothian", rs).problems[0].hint


def test_ambiguous_in_cyrillic_names_both():
    with pytest.raises(names.AmbiguousName) as e:
        names.resolve(loader.load("classic"), "Мерсии")
    assert e.value.candidates == ("Северная Мерсия (North Mercia)", "Южная Мерсия (South Mercia)")


def test_a_russian_name_that_normalises_like_another_is_refused(monkeypatch):
    with pytest.raises(DataError) as e:     # a game's alias that is a case form of another area
        loader.load("classic", {"ruleset.aliases": {"kent": ["Йорке"]}})
    assert "york" in str(e.value)
    raw = loader._names_file("classic", "ru")
    clash = {**raw, "areas": {**raw["areas"], "kent": {"name": "Йорка"}}}    # a form of Йорк
    monkeypatch.setattr(loader, "_names_file", lambda rid, lang: clash)
    with pytest.raises(DataError) as e:
        loader.load_from_tables(loader.raw_tables("classic"), "classic")
    assert "names.ru.yaml" in str(e.value) and "Йорка" in str(e.value)


@pytest.mark.parametrize("ruleset_id", ["classic", "ffg2"])
def test_every_name_has_a_russian_name_and_no_order_word_is_part_of_one(ruleset_id):
    rs = loader.load(ruleset_id)
    local = rs.local_names["ru"]
    for table in (rs.areas, rs.seas, rs.nations, rs.leaders):
        assert set(table) <= set(local)
    name_words = {w for spellings in local.values() for s in spellings for w in names.normalize(s).split()}
    assert not name_words & russian.every_word()


def test_an_english_line_is_not_touched():
    for line in ("PLACE York, Kent", "3 Kent -> Essex", "DEFEND ALL: RETREAT TO Lothian"):
        assert russian.to_english(line) is line


def test_russian_greetings_and_sign_offs_are_mail_talk():
    pm = parse_message("Привет всем, вот мои приказы!\nНАРОД Римляне\nПАС\nС уважением, Аня\nСпасибо!",
                       loader.load("classic"))
    assert pm.ok and [why for _, _, why in pm.chatter] == ["a greeting or sign-off"] * 3
