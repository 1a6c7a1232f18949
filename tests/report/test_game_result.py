"""Who won, as the game-over mail and the site say it (pbem.report.result), by the ruleset's rule of
who wins together: rule 14.1 (each player alone) and Duel's [Number of Players] / [Goal] (four players
as two sides of partners, their points added)."""
from __future__ import annotations

from pbem.data.loader import load_ruleset
from pbem.report.result import partner_totals, result_line
from pbem.rules.scoring import winners, winning_groups


def test_classic_players_win_alone():
    rs = load_ruleset("classic")
    holdings = {"ann": ["saxons"], "bo": ["angles"]}
    assert result_line(rs, {"saxons": 9, "angles": 7}, holdings) == "Winner: ann"
    assert result_line(rs, {"saxons": 7, "angles": 7}, holdings) == "Tie: ann, bo"
    assert partner_totals(rs, {"saxons": 7}, holdings) == []


def test_duel_partners_win_together_on_their_side_total():
    rs = load_ruleset("duel")
    seats = dict(rs.players_table(4))
    vp = {"welsh": 40, "danes": 15, "saxons": 30, "scots": 30}   # one Brython-Viking seat has the most alone
    assert winning_groups(rs, vp, seats) == [("anglo_saxon_1", "anglo_saxon_2")]
    assert winners(rs, vp, 4) == ["anglo_saxon_1", "anglo_saxon_2"]
    assert result_line(rs, vp, seats) == "Winners (partners): anglo_saxon_1, anglo_saxon_2"
    assert result_line(rs, vp, seats, "ru") == "Победители (партнёры): anglo_saxon_1, anglo_saxon_2"
    assert sorted(partner_totals(rs, vp, seats)) == ["anglo_saxon_1 + anglo_saxon_2: 60",
                                                     "brython_viking_1 + brython_viking_2: 55"]
    tied = {**vp, "danes": 20}
    assert result_line(rs, tied, seats) == "Tie: anglo_saxon_1 + anglo_saxon_2, brython_viking_1 + brython_viking_2"


def test_duel_two_players_win_alone():
    rs = load_ruleset("duel")
    assert winners(rs, {"welsh": 40, "saxons": 30}, 2) == ["brython_viking"]
