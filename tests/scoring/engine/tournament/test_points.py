"""Tour points (scoring/engine/tournament/points.py): every rule with numbers worked out
by hand from the issue's published rules."""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.tournament.formats import PRESETS
from scoring.engine.tournament.points import (
    Band,
    PointsRule,
    band_points,
    bye_score,
    score_table,
    timeout_scores,
)

D = Decimal
GAMBLER = PRESETS["gambler"].points
PLAYELEPHANT = PRESETS["playelephant"].points
SERBIAN = PRESETS["league_night"].points


@pytest.mark.parametrize(
    ("result", "points"),
    [
        # Gambler: full up to 200, a tenth from 200 to 650, nothing beyond.
        ("150", "150"),
        ("200", "200"),
        ("201", "200.1"),  # 200 + 1 × 0.1
        ("300", "210"),  # 200 + 100 × 0.1
        ("650", "245"),  # 200 + 450 × 0.1
        ("651", "245"),  # the whist beyond 650 counts nothing
        ("1000", "245"),
        ("0", "0"),
        ("-300", "-210"),  # symmetric: the loss is banded by its size
        ("-1200", "-245"),
        ("33.33", "33.33"),
    ],
)
def test_gambler_bands(result: str, points: str) -> None:
    assert band_points(D(result), GAMBLER.bands)[0] == D(points)


@pytest.mark.parametrize(
    ("result", "points"),
    [
        # PlayElephant: full up to 50, ×0.5 between 51 and 100, ×0.1 above 100.
        ("50", "50"),
        ("51", "50.5"),  # 50 + 1 × 0.5
        ("80", "65"),  # 50 + 30 × 0.5
        ("100", "75"),  # 50 + 50 × 0.5
        ("101", "75.1"),  # 75 + 1 × 0.1
        ("150", "80"),  # 75 + 50 × 0.1
        ("300", "95"),  # 75 + 200 × 0.1
        ("-150", "-80"),
    ],
)
def test_playelephant_bands(result: str, points: str) -> None:
    assert band_points(D(result), PLAYELEPHANT.bands)[0] == D(points)


def test_bands_explain_each_part() -> None:
    scores = score_table({"anna": D(300), "boris": D(-120), "vera": D(-180)}, GAMBLER)
    assert scores["anna"].explanation == "result 300 through the bands: 200 × 1 + 100 × 0.1 = 210"
    assert scores["boris"].explanation == "result -120 through the bands: −(120 × 1) = -120"
    assert [scores[p].place for p in ("anna", "boris", "vera")] == [1, 2, 3]


def test_raw_counts_the_result() -> None:
    scores = score_table({"a": D(40), "b": D(-10), "c": D(-30), "d": D(0)}, PointsRule("raw"))
    assert {p: s.points for p, s in scores.items()} == {"a": 40, "b": -10, "c": -30, "d": 0}
    assert [scores[p].place for p in "abcd"] == [1, 3, 4, 2]
    assert scores["a"].opponents == ("b", "c", "d")
    assert scores["a"].explanation == "result 40, counted as it is → 40"


@pytest.mark.parametrize(
    ("results", "points"),
    [
        # Two positive: plain 3 / 2 / 0.
        ((60, 20, -80), (3, 2, 0)),
        # A sole positive player scores 4; the 2nd, negative, scores 1.
        ((90, -20, -70), (4, 1, 0)),
        # Sole positive, 2nd exactly 0 (not negative): 4 / 2 / 0.
        ((50, 0, -50), (4, 2, 0)),
        # Two tied for 1st split 3 + 2; the 3rd scores 0.
        ((40, 40, -80), (2.5, 2.5, 0)),
        # Tied 2nd and 3rd, both negative behind a sole positive: 4, then (1 + 0) / 2.
        ((30, -15, -15), (4, 0.5, 0.5)),
        # Everyone at 0: the three places shared, (3 + 2 + 0) / 3 to the hundredth.
        ((0, 0, 0), ("1.67",) * 3),
    ],
)
def test_serbian_places(results: tuple[int, ...], points: tuple[object, ...]) -> None:
    scores = score_table(dict(zip("abc", map(D, results), strict=True)), SERBIAN)
    assert tuple(scores[p].points for p in "abc") == tuple(D(str(p)) for p in points)


def test_serbian_at_four_the_fourth_scores_zero() -> None:
    scores = score_table({"a": D(30), "b": D(10), "c": D(-10), "d": D(-30)}, SERBIAN)
    assert [scores[p].points for p in "abcd"] == [3, 2, 0, 0]
    # A sole positive, then three tied negatives: 4, then (1 + 0 + 0) / 3 = 0.33 each.
    scores = score_table({"a": D(30), "b": D(-10), "c": D(-10), "d": D(-10)}, SERBIAN)
    assert [scores[p].points for p in "abcd"] == [4, D("0.33"), D("0.33"), D("0.33")]
    assert scores["d"].explanation == "places 2–4 shared (result -10): (1 + 0 + 0) / 3 = 0.33"


def test_place_explanations() -> None:
    scores = score_table({"a": D(30), "b": D(-15), "c": D(-15)}, SERBIAN)
    assert scores["a"].explanation == "place 1, the only positive result (30) → 4"
    assert scores["b"].explanation == "places 2–3 shared (result -15): (1 + 0) / 2 = 0.5"
    scores = score_table({"a": D(60), "b": D(20), "c": D(-80)}, SERBIAN)
    assert scores["b"].explanation == "place 2 (result 20) → 2"
    scores = score_table({"a": D(90), "b": D(-20), "c": D(-70)}, SERBIAN)
    assert scores["b"].explanation == "place 2 with a negative result (-20) → 1"


def test_a_bye() -> None:
    score = bye_score("anna", D("1.50"))
    assert (score.result, score.place, score.points, score.opponents) == (D(0), 0, D("1.5"), ())
    assert score.explanation == "a bye → 1.5, as the format says"


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (PointsRule("elo"), "unknown points rule"),
        (PointsRule("bands"), "at least one band"),
        (PointsRule("bands", bands=(Band(None, D(1)), Band(D(5), D(1)))), "only the last"),
        (PointsRule("bands", bands=(Band(D(50), D(1)), Band(D(20), D(1)))), "must rise"),
        (PointsRule("bands", bands=(Band(D(50), D(-1)),)), "cannot be negative"),
        (PointsRule("places"), "each place"),
    ],
)
def test_a_rule_that_cannot_be_applied(rule: PointsRule, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        score_table({"a": D(1), "b": D(0), "c": D(-1)}, rule)


def test_a_table_of_two_is_refused() -> None:
    with pytest.raises(RuleError, match="3 or 4 players, not 2"):
        score_table({"a": D(1), "b": D(-1)}, PointsRule("raw"))


def test_a_table_out_of_time_scores_zero() -> None:
    scores = timeout_scores({"a": D(120), "b": D(-20), "c": D(-100)})
    assert [(s.result, s.place, s.points) for s in scores.values()] == [
        (D(120), 1, D(0)),
        (D(-20), 2, D(0)),
        (D(-100), 3, D(0)),
    ]
    assert scores["a"].explanation == "the table ran out of time at 120: 0, as the format says"
    assert scores["b"].opponents == ("a", "c")
