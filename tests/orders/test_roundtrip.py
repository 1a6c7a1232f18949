"""canonical(order) parses back to an equal order, for generated orders of every type."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.data.loader import load
from pbem.orders.canonical import canonical, canonical_lines, canonical_text
from pbem.orders.parser import parse_message
from pbem.rules.orders import (
    LOSS_PREFERENCES,
    Allow,
    Attack,
    Battles,
    ClearDefend,
    Defend,
    Disband,
    Losses,
    Move,
    NationOrders,
    Pass,
    Place,
    PlaceLeader,
    SecondMovement,
    Settle,
    Stay,
    Submit,
    Vote,
    Withdraw,
)

RS = load("classic")
AREAS = st.sampled_from(sorted(RS.areas))
SEAS = st.sampled_from(sorted(RS.seas))
PLACES = st.sampled_from(sorted(RS.areas) + sorted(RS.seas))
NATIONS = st.sampled_from(sorted(RS.nations))
LEADERS = st.sampled_from(sorted(RS.leaders))
COUNTS = st.integers(1, 99)
ROUNDS = st.integers(1, 99)
AREA_OR_ALL = st.one_of(AREAS, st.just("all"))
PATHS = st.lists(PLACES, min_size=2, max_size=5).map(tuple)
AREA_LISTS = st.lists(AREAS, min_size=1, max_size=5).map(tuple)

MOVES = st.one_of(
    st.builds(Move, count=COUNTS, kind=st.just("armies"), path=PATHS),
    st.builds(Move, count=COUNTS, kind=st.just("cavalry"), path=PATHS),
    st.builds(Move, count=st.just(1), kind=st.just("leader"), path=PATHS, leader=LEADERS),
)
ORDERS = st.one_of(
    MOVES,
    st.builds(Place, areas=AREA_LISTS),
    st.builds(PlaceLeader, leader=LEADERS, area=AREAS),
    st.builds(Stay, count=COUNTS, sea=SEAS),
    st.builds(Battles, areas=AREA_LISTS),
    st.builds(Attack, area=PLACES, mode=st.just("fight")),
    st.builds(Attack, area=PLACES, mode=st.just("retreat_after"), after_round=ROUNDS),
    st.builds(Attack, area=PLACES, mode=st.just("retreat_if_outnumbered")),
    st.builds(Withdraw, area=AREAS),
    st.builds(Settle, area=AREAS),
    st.builds(Disband, areas=AREA_LISTS),
    st.builds(Vote, nation=NATIONS),
    st.builds(Submit, to=NATIONS),
    st.builds(Allow, nation=NATIONS),
    st.just(Pass()),
    st.builds(Defend, area=AREA_OR_ALL, hold=st.just(True)),
    st.builds(Defend, area=AREA_OR_ALL, hold=st.just(False), to=AREAS, if_outnumbered=st.booleans(),
              after_round=st.one_of(st.none(), ROUNDS)),
    # rule 8.2 split retreat: RETREAT 2 TO B, 1 TO C[, REST TO D]
    st.lists(st.tuples(COUNTS, AREAS), min_size=1, max_size=3).flatmap(lambda parts: st.builds(
        Defend, area=AREA_OR_ALL, hold=st.just(False), to=st.one_of(st.none(), AREAS), if_outnumbered=st.booleans(),
        after_round=st.one_of(st.none(), ROUNDS), split_counts=st.just(tuple(n for n, _ in parts)),
        split_to=st.just(tuple(a for _, a in parts)))),
    st.builds(ClearDefend, area=AREA_OR_ALL),
    st.builds(Losses, area=AREA_OR_ALL, preference=st.sampled_from(LOSS_PREFERENCES)),
)


def _parse_one(text: str):
    pm = parse_message(text, RS, default_nation="saxons")
    assert pm.problems == [], (text, [p.describe() for p in pm.problems])
    (o,) = pm.sections[0].orders
    return o


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ORDERS)
def test_canonical_round_trip(order):
    text = canonical(order, RS)
    assert _parse_one(text) == order
    # and the canonical form is a fixed point
    assert canonical(_parse_one(text), RS) == text


@settings(max_examples=60, deadline=None)
@given(st.lists(ORDERS, max_size=6), st.lists(MOVES, max_size=4), NATIONS)
def test_nation_orders_round_trip(first, second, nation):
    orders = [o for o in first if not isinstance(o, SecondMovement)]
    if second:
        orders += [SecondMovement()] + [Move(count=m.count, kind=m.kind, path=m.path, leader=m.leader, cycle=2)
                                        for m in second]
    text = canonical_text([NationOrders(nation, orders)], RS)
    pm = parse_message(text, RS)
    assert pm.problems == []
    if orders:
        assert [s.nation for s in pm.sections] == [nation]
        assert pm.sections[0].orders == orders
        assert [m.cycle for m in pm.sections[0].of(Move)] == [m.cycle for m in orders if isinstance(m, Move)]


def test_canonical_lines_put_in_second_movement():
    m2 = Move(count=2, kind="armies", path=("essex", "kent"), cycle=2)
    assert canonical_lines([m2], RS) == ["SECOND MOVEMENT", "2 Essex -> Kent"]


def test_canonical_examples():
    assert canonical(Move(count=3, kind="armies", path=("essex", "suffolk")), RS) == "3 Essex -> Suffolk"
    assert canonical(Move(count=2, kind="cavalry", path=("york", "lindsey")), RS) == "2 cavalry York -> Lindsey"
    assert canonical(Move(count=1, kind="leader", leader="egbert", path=("sussex", "downlands")), RS) \
        == "Egbert Sussex -> Downlands"
    assert canonical(Defend(area="north_mercia", hold=False, to="hwicce", after_round=1), RS) \
        == "DEFEND North Mercia: RETREAT TO Hwicce AFTER ROUND 1"
    assert canonical(Losses(area="all", preference="cavalry_last"), RS) == "LOSSES ALL: CAVALRY LAST"
    assert canonical(Vote(nation="romano_british"), RS) == "VOTE Romano-British"


def test_lines_remembered_across_messages_read_the_same():
    """parser.lines_remembered (replay: a game's lines are read once): every message reads exactly as
    alone; a line with a problem keeps its own message's hint (not shared)."""
    from pbem.orders.parser import lines_remembered

    rs = load("classic")
    mails = ["Essex -> Kent\nPASS\n", "NATION Saxons\nEssex -> Kent\nVOTE Saxons\n", "Esex -> Kent\nZzzz -> Kent\n",
             "Essex -> Kent\nEsex -> Kent\n", "3 Essex -> Kent\nPASS\n"]

    def read(text):
        pm = parse_message(text, rs, default_nation="saxons")
        return [(ln.line, ln.text, ln.nation, ln.order, [(p.kind, p.message, p.hint) for p in ln.problems])
                for ln in pm.lines]

    alone = [read(m) for m in mails]
    with lines_remembered():
        together = [read(m) for m in mails + mails]
    assert together == alone + alone


def test_lines_remembered_read_a_message_once_per_nation():
    """Within lines_remembered (replay) the same text for the same nation comes back as the message
    read before; another nation's reading, or a read outside the block, is made afresh."""
    from pbem.orders.parser import lines_remembered

    rs = load("classic")
    text = "Essex -> Kent\nPASS\n"
    with lines_remembered():
        first = parse_message(text, rs, default_nation="saxons")
        assert parse_message(text, rs, default_nation="saxons") is first
        other = parse_message(text, rs, default_nation="angles")
        assert other is not first and other.nations == ["angles"]
    alone = parse_message(text, rs, default_nation="saxons")
    assert alone is not first and alone == first
