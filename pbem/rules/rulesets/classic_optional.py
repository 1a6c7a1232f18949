"""The classic family's optional rules (16.0), played only in a game whose game.yaml `options:` asks
for them: the ruleset's data then holds their feature (ruleset.yaml `optional_rules`), read here.
ClassicRules calls them at the points the generic sequence of play gives (Rules.optional_rules_before_movement,
optional_rules_after_movement, raiders_home_on_land).

- 16.251 Brittany (feature `brittany`): at the start of its movement phase in the listed turns, the
  nation may send armies standing in the listed areas to Brittany (BRITTANY N A): `per_army` points
  each, at most `per_turn` a turn; after the movement of the last listed turn a die below the number
  sent in all scores `bonus`.
- 16.1 Pict raiders (feature `pict_raiders`): in the listed turns every army of the nation is a raider;
  at the raider withdrawal the raiders go back along their way to the land area they started the turn
  in (pbem.rules.endturn); those that cannot, or SETTLE, cost the raid's kill points (7.13).
"""

from __future__ import annotations

from pbem.errors import OrderProblem
from pbem.rules.context import TurnContext
from pbem.rules.dice import RollRequest
from pbem.rules.orders import Brittany

SENT_TO_BRITTANY = "sent_to_brittany"   # GameState.extras: armies sent to Brittany so far (16.251)


def brittany(ctx: TurnContext) -> list[OrderProblem]:
    """16.251 — the BRITTANY orders of the nation to move, at the start of its movement phase."""
    orders = ctx.own().of(Brittany)
    if not orders:
        return []
    rule = ctx.rs.feature("brittany")
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    problems: list[OrderProblem] = []
    if not rule:
        return [OrderProblem("not-now", o.line, o.text, "the optional rule 16.251 (Brittany) is not played in this game")
                for o in orders]
    if nation != rule["nation"] or state.round not in rule["rounds"]:
        who = rs.nations[rule["nation"]].name
        return [OrderProblem("not-now", o.line, o.text, f"only the {who} send armies to Brittany, at the start of "
                             f"their movement in turns {', '.join(map(str, rule['rounds']))} (16.251)") for o in orders]
    sent = 0
    for o in orders:
        st = state.get(o.area, nation)
        if o.area not in rule["areas"]:
            where = " or ".join(rs.display(a) for a in rule["areas"])
            problems.append(OrderProblem("not-now", o.line, o.text, f"armies leave for Brittany only from {where} (16.251)"))
        elif o.count < 1 or not st or st.armies < o.count:
            problems.append(OrderProblem("not-your-unit", o.line, o.text,
                                         f"the {rs.nations[nation].name} have {st.armies if st else 0} armies in {rs.display(o.area)}"))
        elif sent + o.count > rule["per_turn"]:
            problems.append(OrderProblem("not-now", o.line, o.text, f"at most {rule['per_turn']} armies a turn leave for Brittany (16.251)"))
        else:
            sent += o.count
            st.armies -= o.count
            st.raiders = min(st.raiders, st.armies)
            if not st.units and st.leaders:   # a leader does not stay behind alone (9.2)
                state.dead_leaders.update(st.leaders)
                st.leaders.clear()
            points = rule["per_army"] * o.count
            state.score(nation, points, f"{o.count} to Brittany from {rs.display(o.area)} (16.251)", "brittany", nation)
            state.extras[SENT_TO_BRITTANY] = state.extras.get(SENT_TO_BRITTANY, 0) + o.count
            ctx.emit("to_brittany", nation=nation, area=o.area, armies=o.count, points=points, line=o.line)
    state.prune()
    return problems


def brittany_roll(ctx: TurnContext) -> None:
    """16.251 — after the movement of the last Brittany turn: a die below the number sent scores the bonus."""
    rule = ctx.rs.feature("brittany")
    state = ctx.state
    if not rule or ctx.nation != rule["nation"] or state.round != max(rule["rounds"]) or ctx.cycle != 1:
        return
    sent = state.extras.get(SENT_TO_BRITTANY, 0)
    if not sent:
        return
    req = RollRequest(game=state.game, round=state.round, nation=ctx.nation, area="brittany", cycle=1,
                      battle_round=1, side=ctx.nation, count=1)
    faces = ctx.dice.faces(req)
    face = int((faces if isinstance(faces, list) else [f for v in faces.values() for f in v])[0])
    points = rule["bonus"] if face < sent else 0
    if points:
        state.score(ctx.nation, points, f"Brittany: a {face}, below the {sent} armies sent (16.251)", "brittany", ctx.nation)
    ctx.emit("brittany_roll", nation=ctx.nation, sent=sent, face=face, points=points)


def pict_raiders(ctx: TurnContext) -> None:
    """16.1 — in the listed turns every army of the nation on land is a raider (it starts the turn there)."""
    rule = ctx.rs.feature("pict_raiders")
    if not rule or ctx.nation != rule["nation"] or ctx.state.round not in rule["rounds"]:
        return
    for area, stacks in ctx.state.areas.items():
        st = stacks.get(ctx.nation)
        if st and ctx.rs.is_land(area):
            st.raiders = st.armies


def raiders_home_on_land(ctx: TurnContext) -> bool:
    """16.1 — the nation's raiders go home to the land area they started the turn in, not to a sea."""
    rule = ctx.rs.feature("pict_raiders")
    return bool(rule) and ctx.nation == rule["nation"] and ctx.state.round in rule["rounds"]
