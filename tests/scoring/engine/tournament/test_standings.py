"""A tournament's standings (scoring/engine/tournament/standings.py): totals over the
counted tours, the tie-breaks in order, cards and disqualification, the cut."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine.errors import RuleError
from scoring.engine.tournament.formats import PRESETS
from scoring.engine.tournament.points import PointsRule, TourScore, score_table
from scoring.engine.tournament.standings import (
    CutTie,
    Line,
    cut,
    cut_tie,
    rank,
    with_decision,
    with_final,
)
from tests.hypothesis_profiles import examples

D = Decimal
RAW = PointsRule("raw")


def _tour(*tables: Mapping[str, int | Decimal], rule: PointsRule = RAW) -> dict[str, TourScore]:
    scores: dict[str, TourScore] = {}
    for table in tables:
        scores.update(score_table({p: D(r) for p, r in table.items()}, rule))
    return scores


def _order(lines: list[Line]) -> list[tuple[str, int | None, str]]:
    """Each line's player, rank and total (written out, as the tests give it)."""
    return [(line.player, line.rank, str(line.total)) for line in lines]


def test_points_then_the_total_result() -> None:
    # Serbian places. Tour 1: a 3, b 2, c 0 | d 4 (sole positive), e 1 (negative 2nd), f 0.
    # Tour 2: d 3, e 2, a 0 | b 4 (sole positive), c 1 (negative 2nd), f 0.
    serbian = PRESETS["league_night"].points
    tours = [
        _tour({"a": 30, "b": 10, "c": -40}, {"d": 50, "e": -20, "f": -30}, rule=serbian),
        _tour({"a": -30, "d": 20, "e": 10}, {"b": 40, "c": -10, "f": -30}, rule=serbian),
    ]
    lines = rank(tours)
    assert _order(lines) == [
        ("d", 1, "7"),
        ("b", 2, "6"),
        ("a", 3, "3"),  # results 30 − 30 = 0
        ("e", 4, "3"),  # results −20 + 10 = −10
        ("c", 5, "1"),
        ("f", 6, "0"),
    ]
    assert lines[3].result_total == -10
    assert lines[3].tie_break == "equal points; the total result decides: -10 against 0"
    assert lines[2].tie_break == ""  # 3 points against b's 6: nothing to break


def test_head_to_head_then_opponents_strength_then_a_shared_rank() -> None:
    # Raw results, so points and result tie together.
    # b −5 + 10 = 5 and e 0 + 5 = 5: they met in tour 2, where b finished above e.
    head_to_head = [
        _tour({"a": 20, "b": -5, "c": -15}, {"d": 5, "e": 0, "f": -5}),
        _tour({"b": 10, "e": 5, "c": -15}, {"a": 0, "d": 5, "f": -5}),
    ]
    lines = rank(head_to_head)
    assert [line.player for line in lines] == ["a", "d", "b", "e", "f", "c"]  # d 5 + 5 = 10
    assert lines[3].tie_break == ("equal points and result; head-to-head decides: -1 against 1")
    # b −5 + 10 = 5 and e 0 + 5 = 5 never met. Totals: a 20, d 0, c −15, f −15. b met a,
    # c, a, f: 20 − 15 + 20 − 15 = 10; e met d, f, c, d: 0 − 15 − 15 + 0 = −30. c met
    # a, b, e, d: 20 + 5 + 5 + 0 = 30; f met d, e, b, a: 0 + 5 + 5 + 20 = 30: a shared rank.
    strength = [
        _tour({"a": 20, "b": -5, "c": -15}, {"d": 5, "e": 0, "f": -5}),
        _tour({"b": 10, "a": 0, "f": -10}, {"e": 5, "c": 0, "d": -5}),
    ]
    lines = rank(strength)
    assert _order(lines) == [
        ("a", 1, "20"),
        ("b", 2, "5"),
        ("e", 3, "5"),
        ("d", 4, "0"),
        ("c", 5, "-15"),
        ("f", 5, "-15"),
    ]
    assert lines[2].tie_break == (
        "equal points, result and head-to-head; opponents' strength decides: -30 against 10"
    )
    assert lines[5].tie_break == "equal on every tie-break: the same rank"
    with pytest.raises(RuleError, match="c, f are equal on every tie-break at the cut"):
        cut(lines, 5)
    assert cut(lines, 4) == ("a", "b", "e", "d")


def test_best_of_penalties_and_a_missed_tour() -> None:
    tours = [
        _tour({"a": 10, "b": -4, "c": -6}),
        _tour({"a": -5, "b": 2, "c": 3}),
        _tour({"a": 20, "b": -10, "c": -10}),
        _tour({"b": 1, "c": 2, "d": -3}),
    ]
    lines = {line.player: line for line in rank(tours, best_of=2, penalties={"c": D(-1)})}
    a = lines["a"]
    assert a.counted == (True, False, True, False)  # 10 and 20; the −5 and the missed 4th out
    assert a.tours[3] is None
    assert (a.total, a.result_total) == (D(30), D(30))
    c = lines["c"]
    assert c.counted == (False, True, False, True)  # 3 and 2 (−6 and −10 dropped)
    assert (c.total, c.penalty, c.result_total) == (D(4), D(-1), D(5))  # 3 + 2 − 1
    b = lines["b"]
    assert b.counted == (False, True, False, True)
    assert b.total == 3


def test_yellow_cards_and_disqualification() -> None:
    tours = [
        _tour({"a": 1200, "b": -1200, "c": 0}),
        _tour({"a": -1001, "b": 1001, "c": 0}),
        _tour({"a": 1000, "b": 0, "c": -1000}),  # −1000 is not worse than −1000
    ]
    lines = rank(tours, yellow_below=D(-1000), cards={"b": 1}, disqualify_at=2)
    assert [(line.player, line.rank, line.cards, line.disqualified) for line in lines] == [
        ("a", 1, 1, False),  # 1200 − 1001 + 1000 = 1199; −1001 in tour 2: one card
        ("c", 2, 0, False),  # −1000
        ("b", None, 1 + 1, True),  # −199 beats c, but −1200 and a judge's card disqualify
    ]
    assert cut(lines, 3) == ("a", "c")


def test_players_without_a_tour_are_listed() -> None:
    lines = rank([_tour({"a": 1, "b": 0, "c": -1})], players=["z"])
    assert [line.player for line in lines] == ["a", "b", "z", "c"]  # z: 0 points, like b
    z = lines[2]
    assert (z.rank, z.total, z.tours, z.counted) == (2, D(0), (None,), (False,))
    assert z.tie_break == "equal on every tie-break: the same rank"


points = st.decimals(-500, 500, places=1)


@settings(max_examples=examples(80), deadline=None)
@given(
    tours=st.lists(st.tuples(points, points, points, points), min_size=1, max_size=6),
    best_of=st.none() | st.integers(1, 6),
    rule=st.sampled_from([RAW, PRESETS["gambler"].points, PRESETS["league_night"].points]),
)
def test_totals_are_the_sum_of_the_counted_tours(
    tours: list[tuple[Decimal, ...]], best_of: int | None, rule: PointsRule
) -> None:
    scored = [_tour(dict(zip("abcd", t, strict=True)), rule=rule) for t in tours]
    lines = rank(scored, best_of=best_of)
    for line in lines:
        chosen = [s for s, c in zip(line.tours, line.counted, strict=True) if c and s]
        assert line.total == sum((s.points for s in chosen), D(0))
        assert line.result_total == sum((s.result for s in chosen), D(0))
        assert sum(line.counted) == min(best_of or len(tours), len(tours))
        dropped = [s.points for s, c in zip(line.tours, line.counted, strict=True) if s and not c]
        assert all(d <= min(s.points for s in chosen) for d in dropped)
    ranks = [line.rank for line in lines]
    assert ranks == sorted(ranks)  # type: ignore[type-var]
    assert [line.total for line in lines] == sorted((line.total for line in lines), reverse=True)


def test_the_finalists_rank_above_everyone_else() -> None:
    # Tour 1 of six; the cut keeps a, b, c; the final (tour 2) is theirs alone. d had
    # more points than c after tour 2, but did not play it: c is 3rd, d 4th.
    tours = [
        _tour({"a": 30, "b": 20, "c": -50}, {"d": 40, "e": -15, "f": -25}),
        _tour({"a": -10, "b": 5, "c": 5}),
    ]
    at_cut = rank(tours[:1])
    assert [line.player for line in at_cut] == ["d", "a", "b", "e", "f", "c"]
    finalists = ("a", "b", "c")  # the judges' cut, as the format said
    lines = with_final(at_cut, rank(tours), finalists)
    assert _order(lines) == [
        ("b", 1, "25"),
        ("a", 2, "20"),
        ("c", 3, "-45"),
        ("d", 4, "40"),
        ("e", 5, "-15"),
        ("f", 6, "-25"),
    ]


def _tied_at_two() -> list[Line]:
    """Raw results, one tour of three tables. a makes 20 but has 10 off (a penalty): total
    10, result 20. d and g make 10 each: total 10, result 10, so a ranks above both
    ("the total result decides: 10 against 20"). d and g never met (head-to-head 0 each)
    and their opponents' totals are 0 + (−10) = −10 each: they share rank 2."""
    tour = _tour(
        {"a": 20, "b": 0, "c": -20}, {"d": 10, "e": 0, "f": -10}, {"g": 10, "h": 0, "i": -10}
    )
    return rank([tour], penalties={"a": D(-10)})


def test_a_tie_at_the_line_says_who_shares_which_places() -> None:
    lines = _tied_at_two()
    assert _order(lines)[:3] == [("a", 1, "10"), ("d", 2, "10"), ("g", 2, "10")]
    # Keeping 2: d and g share places 2–3, one of those places is inside the cut.
    assert cut_tie(lines, 2) == CutTie(players=("d", "g"), first=2, last=3, free=1)
    # Keeping 3 (a, d, g) or 1 (a alone) the line falls between two ranks.
    assert cut_tie(lines, 3) is None
    assert cut_tie(lines, 1) is None
    # Keeping 4: b, e, h are on 0; their opponents' totals: e d + f = 10 − 10 = 0, h
    # g + i = 0, b a + c = 10 − 20 = −10. So e and h share places 4–5, b is 6th.
    assert _order(lines)[3:6] == [("e", 4, "0"), ("h", 4, "0"), ("b", 6, "0")]
    assert cut_tie(lines, 4) == CutTie(players=("e", "h"), first=4, last=5, free=1)


def test_the_judges_decide_who_goes_on_from_a_tie_at_the_cut() -> None:
    lines = _tied_at_two()
    with pytest.raises(RuleError, match="d, g are equal on every tie-break at the cut"):
        cut(lines, 2)
    assert cut(lines, 2, decided=["g"]) == ("a", "g")
    assert cut(lines, 2, decided=["d"]) == ("a", "d")
    assert cut(lines, 3) == ("a", "d", "g")


@pytest.mark.parametrize(
    ("keep", "decided", "message"),
    [
        (2, ["b"], "b are not tied at the cut"),
        (2, ["d", "a"], "a are not tied at the cut"),
        (2, ["d", "g"], "choose 1 of the players tied for places 2–3"),
        (2, [], "choose 1 of the players tied for places 2–3"),
        (3, ["d"], "nobody is tied at the cut: the judges' decision does not apply"),
    ],
)
def test_a_decision_that_does_not_fit_the_tie_is_refused(
    keep: int, decided: list[str], message: str
) -> None:
    with pytest.raises(RuleError) as refused:
        cut(_tied_at_two(), keep, decided=decided)
    assert refused.value.message == message
    with pytest.raises(RuleError) as refused:
        with_decision(_tied_at_two(), keep, decided, "draw")
    assert refused.value.message == message


def test_the_decision_orders_the_tie_and_says_so() -> None:
    lines = with_decision(_tied_at_two(), 2, ["g"], "a draw")
    # g goes on: place 2; d, left out, takes place 3. The rest are as they were.
    assert _order(lines)[:4] == [("a", 1, "10"), ("g", 2, "10"), ("d", 3, "10"), ("e", 4, "0")]
    assert lines[1].tie_break == (
        "equal points; the total result decides: 10 against 20; the judges' decision: a draw"
    )
    assert lines[2].tie_break == "the judges' decision: a draw"
    assert lines[3].tie_break == ""  # e: 0 points against 10
    assert [line.player for line in lines] == ["a", "g", "d", "e", "h", "b", "f", "i", "c"]


def test_a_decision_among_four_for_two_places() -> None:
    # Tables of four {a 30, b 0, c 0, d −30} and {e 30, f 0, g 0, h −30}: a and e share
    # place 1; b, c, f, g are on 0, none above another where they met (b and c share
    # second place: head-to-head 0), and their opponents' totals are 30 + 0 − 30 = 0
    # each: they share places 3–6. Keeping 4 leaves two of those places to them.
    lines = rank([_tour({"a": 30, "b": 0, "c": 0, "d": -30}, {"e": 30, "f": 0, "g": 0, "h": -30})])
    assert cut_tie(lines, 4) == CutTie(players=("b", "c", "f", "g"), first=3, last=6, free=2)
    assert cut(lines, 4, decided=["g", "b"]) == ("a", "e", "b", "g")
    decided = with_decision(lines, 4, ["g", "b"], "ГСК")
    assert _order(decided)[2:6] == [("b", 3, "0"), ("g", 3, "0"), ("c", 5, "0"), ("f", 5, "0")]
    assert {line.tie_break for line in decided[2:6]} == {"the judges' decision: ГСК"}
