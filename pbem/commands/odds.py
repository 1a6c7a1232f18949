"""`pbem odds`: the exact odds of a planned battle (pbem.rules.odds), as the ODDS mail line answers."""

from __future__ import annotations

import click

from pbem.orders.odds import OddsQuestion, odds_lines, parse_odds
from pbem.rules.odds import Plan, Side, battle_odds


@click.command("odds")
@click.argument("words", nargs=-1)
@click.option("--attackers", type=click.IntRange(0, 99), default=None, help="Attacking armies.")
@click.option("--attacker-cavalry", type=click.IntRange(0, 99), default=0, help="Attacking cavalry.")
@click.option("--attacker-leader", is_flag=True, help="A leader attacks with them (+1 on each die, rule 9.2).")
@click.option("--roman-attackers", is_flag=True, help="The attackers are Roman armies.")
@click.option("--defenders", type=click.IntRange(0, 99), default=None, help="Defending armies.")
@click.option("--defender-cavalry", type=click.IntRange(0, 99), default=0, help="Defending cavalry.")
@click.option("--defender-leader", is_flag=True, help="A leader defends with them.")
@click.option("--roman-defenders", is_flag=True, help="The defenders are Roman armies (killed only by a 6).")
@click.option("--fort", is_flag=True, help="A Roman fort defends (rule 10.4).")
@click.option("--burhs", type=click.IntRange(0, 9), default=0, help="Burhs defending.")
@click.option("--area", default=None, help="The battle area (its terrain: hiland or clear).")
@click.option("--hiland", is_flag=True, help="Hiland terrain: the attacker needs 6s (rule 8.0).")
@click.option("--attack", "attack", default="fight", show_default=True,
              help="fight | retreat-if-outnumbered | retreat-after-K (the ATTACK order).")
@click.option("--defend", "defend", default="hold", show_default=True,
              help="hold | retreat | retreat-if-outnumbered, optionally -after-K (the DEFEND order).")
@click.option("--ruleset", "ruleset_id", default="classic", show_default=True)
def odds(words, attackers, attacker_cavalry, attacker_leader, roman_attackers, defenders, defender_cavalry,
         defender_leader, roman_defenders, fort, burhs, area, hiland, attack, defend, ruleset_id) -> None:
    """The exact odds of a battle: who takes the area, who holds, both gone, expected losses.

    Either options (`pbem odds --attackers 3 --defenders 2 --hiland`) or the words of an ODDS mail
    line (`pbem odds 3 LEADER VS 2 FORT IN Powys`). Every roll is counted: exact, not sampled.
    """
    from pbem.data.loader import load

    rs = load(ruleset_id)
    if words:
        q = parse_odds(" ".join(words), rs)
    else:
        if attackers is None or defenders is None:
            raise click.UsageError("give --attackers and --defenders (or the words of an ODDS line)")
        plan = Plan(*_mode(attack, "attack"), *_mode(defend, "defend"))
        where = None
        if area:
            from pbem.orders.names import resolve

            where = resolve(rs, area, ("area",))
            hiland = hiland or rs.hiland(where)
        q = OddsQuestion(Side(attackers, attacker_cavalry, attacker_leader, roman_attackers),
                         Side(defenders, defender_cavalry, defender_leader, roman_defenders, fort, burhs),
                         hiland, where, plan)
    o = battle_odds(rs, q.attacker, q.defender, hiland=q.hiland, plan=q.plan)
    click.echo("\n".join(odds_lines(q, o, rs)))


def _mode(text: str, who: str) -> tuple[str, int | None]:
    t = text.strip().lower().replace("_", "-").replace(" ", "-")
    after = None
    if "-after-" in t:
        t, _, k = t.partition("-after-")
        if not k.isdigit():
            raise click.BadParameter(f"{text!r}: AFTER needs a round number", param_hint=f"--{who}")
        after = int(k)
    elif t.startswith("retreat-after"):
        raise click.BadParameter(f"{text!r}: write retreat-after-K", param_hint=f"--{who}")
    modes = {"attack": {"fight": "fight", "retreat-if-outnumbered": "retreat_if_outnumbered", "retreat": "retreat_after"},
             "defend": {"hold": "hold", "retreat": "retreat", "retreat-if-outnumbered": "retreat_if_outnumbered"}}[who]
    if t not in modes:
        raise click.BadParameter(f"{text!r}: one of {', '.join(modes)}", param_hint=f"--{who}")
    if who == "attack" and modes[t] == "retreat_after" and after is None:
        raise click.BadParameter("write retreat-after-K or retreat-if-outnumbered", param_hint="--attack")
    return modes[t], after
