"""A season scored as a league (scoring/engine/league.py): each rule over a small season
of three nights, two tables a night, with every number worked out by hand.

The season (G is a guest: he places the others but is never listed):

====== =================================== ====================================
night  table 1                             table 2
====== =================================== ====================================
0      A 60, B 20, C −80                   D 40, E −10, F −10, G −20
1      A −30, D 50, E −20                  B 100, C −40, F −30, G −30
2      A 10, B −5, C −5                    D −50, E 70, F −20
====== =================================== ====================================
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.league import LeagueRule, NightTable, check_league, league_standings
from scoring.engine.tournament.points import Band, PointsRule

D = Decimal
MEMBERS = ("A", "B", "C", "D", "E", "F")


def night_table(night: int, table: str, **results: int) -> NightTable:
    return NightTable(night, table, {p: D(r) for p, r in results.items()})


SEASON = (
    night_table(0, "t1", A=60, B=20, C=-80),
    night_table(0, "t2", D=40, E=-10, F=-10, G=-20),
    night_table(1, "t3", A=-30, D=50, E=-20),
    night_table(1, "t4", B=100, C=-40, F=-30, G=-30),
    night_table(2, "t5", A=10, B=-5, C=-5),
    night_table(2, "t6", D=-50, E=70, F=-20),
)

SERBIAN = PointsRule(
    kind="places", places=(D(3), D(2), D(0)), sole_positive=D(4), second_negative=D(1)
)


def lines(rule: LeagueRule, **kwargs: object) -> list[tuple[int | None, str, object, object]]:
    ranked, below = league_standings(SEASON, rule, players=MEMBERS, **kwargs)  # type: ignore[arg-type]
    return [(line.rank, line.player, line.points, line.result_total) for line in ranked + below]


def test_place_points_every_night():
    # Table by table (3 / 2 / 0; 4 for a sole positive; 1 for a negative 2nd; a shared
    # place splits its points):
    # t1 A 3, B 2, C 0 (two positive: no bonus) · t2 D 4 (alone positive), E and F share
    # 2nd–3rd: (1 + 0) / 2 = 0.5 each (G 0, not listed) · t3 D 4, E 1, A 0 · t4 B 4,
    # F shares 2nd–3rd with G: 0.5, C 0 · t5 A 4, B and C share: 0.5 each · t6 E 4, F 1, D 0.
    # A 3 + 0 + 4 = 7; B 2 + 4 + 0.5 = 6.5; C 0 + 0 + 0.5 = 0.5; D 4 + 4 + 0 = 8;
    # E 0.5 + 1 + 4 = 5.5; F 0.5 + 0.5 + 1 = 2. Results: A 40, B 115, C −125, D 40, E 40, F −60.
    assert lines(LeagueRule("places", SERBIAN)) == [
        (1, "D", D(8), D(40)),
        (2, "A", D(7), D(40)),
        (3, "B", D("6.5"), D(115)),
        (4, "E", D("5.5"), D(40)),
        (5, "F", D(2), D(-60)),
        (6, "C", D("0.5"), D(-125)),
    ]


def test_place_points_best_two_of_three_nights():
    # A 4 (night 2) + 3 (night 0) = 7, result 10 + 60; B 4 + 2 = 6, 100 + 20; C 0.5 and,
    # of two nights of 0, the earlier: 0.5, −5 − 80; D 4 + 4 = 8, 40 + 50; E 4 + 1 = 5,
    # 70 − 20; F 1 + 0.5 (night 0 before night 1 on equal points) = 1.5, −20 − 10.
    assert lines(LeagueRule("places", SERBIAN, best_of=2)) == [
        (1, "D", D(8), D(90)),
        (2, "A", D(7), D(70)),
        (3, "B", D(6), D(120)),
        (4, "E", D(5), D(50)),
        (5, "F", D("1.5"), D(-30)),
        (6, "C", D("0.5"), D(-85)),
    ]
    ranked, _below = league_standings(
        SEASON, LeagueRule("places", SERBIAN, best_of=2), players=MEMBERS
    )
    f = next(line for line in ranked if line.player == "F")
    assert (f.nights, f.counted, f.tables) == ((0, 1, 2), (0, 2), 3)


def test_equal_points_go_to_the_larger_result():
    # Best 1 of 3: A, B, D, E each count one night of 4 points; their results that night
    # order them: B 100, E 70, D 40 (night 0, the earliest of his two 4s), A 10.
    ranked, _below = league_standings(
        SEASON, LeagueRule("places", SERBIAN, best_of=1), players=MEMBERS
    )
    assert [(line.rank, line.player, line.points, line.result_total) for line in ranked] == [
        (1, "B", D(4), D(100)),
        (2, "E", D(4), D(70)),
        (3, "D", D(4), D(40)),
        (4, "A", D(4), D(10)),
        (5, "F", D(1), D(-20)),
        (6, "C", D("0.5"), D(-5)),
    ]
    assert ranked[1].tie_break == "equal points; the total result decides: 70 against 100"
    assert ranked[4].tie_break == ""


def test_equal_points_and_result_share_a_rank():
    tables = (
        night_table(0, "t1", P=30, Q=-10, R=-20),
        night_table(0, "t2", S=30, U=-10, V=-20),
    )
    rule = LeagueRule("places", PointsRule(kind="places", places=(D(3), D(2), D(0))))
    ranked, _below = league_standings(tables, rule, players=("P", "Q", "R", "S", "U", "V"))
    assert [(line.rank, line.player, line.points) for line in ranked] == [
        (1, "P", D(3)),
        (1, "S", D(3)),
        (3, "Q", D(2)),
        (3, "U", D(2)),
        (5, "R", D(0)),
        (5, "V", D(0)),
    ]
    assert ranked[1].tie_break == "equal on every tie-break: the same rank"


def test_capped_results():
    # In full up to 50, half beyond (symmetric): A 60 → 50 + 10 × 0.5 = 55, −30, 10: 35;
    # B 20, 100 → 50 + 25 = 75, −5: 90; C −80 → −65, −40, −5: −110; D 40, 50, −50: 40;
    # E −10, −20, 70 → 60: 30; F −10, −30, −20: −60.
    bands = PointsRule(kind="bands", bands=(Band(D(50), D(1)), Band(None, D("0.5"))))
    assert lines(LeagueRule("bands", bands)) == [
        (1, "B", D(90), D(115)),
        (2, "D", D(40), D(40)),
        (3, "A", D(35), D(40)),
        (4, "E", D(30), D(40)),
        (5, "F", D(-60), D(-60)),
        (6, "C", D(-110), D(-125)),
    ]


def test_raw_results_best_two_nights():
    # The result as it is, best 2 of 3 nights: A 60 + 10; B 100 + 20; C −5 − 40;
    # D 50 + 40; E 70 − 10; F −10 − 20.
    assert lines(LeagueRule("raw", PointsRule(), best_of=2)) == [
        (1, "B", D(120), D(120)),
        (2, "D", D(90), D(90)),
        (3, "A", D(70), D(70)),
        (4, "E", D(60), D(60)),
        (5, "F", D(-30), D(-30)),
        (6, "C", D(-45), D(-45)),
    ]


def test_average_place():
    # Places at each table (the guest's result places the others; equal results share):
    # A 1, 3, 1 → 5/3; B 2, 1, 2 → 5/3; C 3, 4, 2 → 3; D 1, 1, 3 → 5/3; E 2, 2, 1 → 5/3;
    # F 2, 2, 2 → 2. Equal averages go to the larger result: B 115, then A, D and E with
    # 40 each share 2nd.
    ranked, below = league_standings(SEASON, LeagueRule("average_place"), players=MEMBERS)
    assert below == []
    assert [(line.rank, line.player, line.average_place, line.points) for line in ranked] == [
        (1, "B", D("1.67"), None),
        (2, "A", D("1.67"), None),
        (2, "D", D("1.67"), None),
        (2, "E", D("1.67"), None),
        (5, "F", D(2), None),
        (6, "C", D(3), None),
    ]
    assert ranked[1].tie_break == ("equal average place; the total result decides: 40 against 115")
    assert ranked[2].tie_break == "equal on every tie-break: the same rank"


def test_guests_place_others_but_are_never_listed():
    ranked, below = league_standings(SEASON, LeagueRule("places", SERBIAN), players=MEMBERS)
    assert "G" not in {line.player for line in ranked + below}
    # F shares 2nd–3rd with the guest at t4: (1 + 0) / 2.
    f = next(line for line in ranked if line.player == "F")
    t4 = next(score for score in f.scores if score.table == "t4")
    assert (t4.place, t4.points, t4.result) == (2, D("0.5"), D(-30))
    assert t4.explanation == "places 2–3 shared (result -30): (1 + 0) / 2 = 0.5"


def test_the_breakdown_explains_each_table():
    ranked, _below = league_standings(SEASON, LeagueRule("places", SERBIAN), players=MEMBERS)
    d = ranked[0]
    assert [(s.night, s.table, s.result, s.place, s.points) for s in d.scores] == [
        (0, "t2", D(40), 1, D(4)),
        (1, "t3", D(50), 1, D(4)),
        (2, "t6", D(-50), 3, D(0)),
    ]
    assert d.scores[0].explanation == "place 1, the only positive result (40) → 4"
    assert d.average_place == D("1.67")


def test_the_minimum_lists_members_apart_and_ranks_the_others_again():
    tables = (*SEASON, night_table(3, "t7", H=10, A=0, B=-10))
    ranked, below = league_standings(
        tables, LeagueRule("places", SERBIAN), players=(*MEMBERS, "H", "Z"), min_tables=2
    )
    # t7: H alone positive 4, A 2nd at 0 (not negative) 2, B 0. H played once: apart,
    # unranked, and the ranks run on without him (his 4 was above F's 2); Z never
    # played: not listed at all.
    assert [(line.rank, line.player, line.points) for line in ranked] == [
        (1, "A", D(9)),
        (2, "D", D(8)),
        (3, "B", D("6.5")),
        (4, "E", D("5.5")),
        (5, "F", D(2)),
        (6, "C", D("0.5")),
    ]
    assert [(line.rank, line.player, line.points) for line in below] == [(None, "H", D(4))]


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (LeagueRule("wins"), "unknown league rule wins; use: raw, bands, places, average_place"),
        (LeagueRule("average_place", best_of=3), "the average place counts every table"),
        (LeagueRule("places", PointsRule(kind="places")), "give the points for each place"),
        (LeagueRule("raw", PointsRule(), best_of=0), "count at least one night"),
        (LeagueRule("bands", PointsRule(kind="bands")), "give at least one band"),
    ],
)
def test_rules_that_cannot_work_are_refused_in_words(rule: LeagueRule, message: str):
    with pytest.raises(RuleError, match=message):
        check_league(rule)
