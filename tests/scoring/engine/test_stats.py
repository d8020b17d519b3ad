"""Per-seat statistics of a pulka (scoring/engine/stats.py), for conceded contracts: a
concession is a contract declared and not made, and also counted as conceded
(preferans.md §13.11). No database."""

from __future__ import annotations

import pytest

from scoring.engine.preferans.deals import Concede, Game
from scoring.engine.preferans.pulka import Pulka, PulkaSetup
from scoring.engine.preferans.rules import PreferansRules
from scoring.engine.stats import before_concessions, preferans_stats, stats_by_holder

A, B, C = 0, 1, 2
CONCEDE = {"concede": True}
CONSOLED = {"concede": True, "concede_consolation": True}
MADE_7 = Game(A, 7, "S", {B: "pass", C: "pass"})  # both pass: made, unplayed


def stats(overrides, deals):
    rules = PreferansRules.preset("sochi").with_overrides(overrides)
    pulka = Pulka(PulkaSetup(players=("Anna", "Boris", "Vera"), rules=rules))
    for deal in deals:
        pulka.play(deal)
    return preferans_stats(pulka.setup, deals, pulka.result().deals)


# Sochi 7: V = 4, remise and consolation 1 × V per undertrick.
CASES = [
    pytest.param(
        CONCEDE,
        [Concede(C, 7, "S", 3)],
        [{}, {}, {"declared_7": 1, "conceded_7": 1}],
        id="no consolation: nobody writes whists",
    ),
    pytest.param(
        CONSOLED,
        [Concede(C, 7, "S", 3)],
        # Anna and Boris console: 3 × 4 = 12 each on Vera.
        [
            {"whists_written": 12},
            {"whists_written": 12},
            {"declared_7": 1, "conceded_7": 1, "whists_received": 24},
        ],
        id="consolation counts as whists",
    ),
    pytest.param(
        CONCEDE,
        [MADE_7, Concede(A, 7, "H", 2), Concede(A, 9, "N", 1)],
        [{"declared_7": 2, "made_7": 1, "conceded_7": 1, "declared_9": 1, "conceded_9": 1}, {}, {}],
        id="declared, not made, by level",
    ),
]


@pytest.mark.parametrize(("overrides", "deals", "expected"), CASES)
def test_a_concession_is_a_contract_declared_and_not_made(overrides, deals, expected):
    assert stats(overrides, deals) == expected


OLD_COUNTS = [
    # What the site stored before concessions were counted, for the counts above.
    pytest.param({}, {}, id="nothing"),
    pytest.param({"declared_7": 1, "conceded_7": 1}, {}, id="only conceded"),
    pytest.param(
        {"declared_7": 1, "conceded_7": 1, "whists_received": 24},
        {"whists_received": 24},
        id="consolation stays",
    ),
    pytest.param(
        {"declared_7": 2, "made_7": 1, "conceded_7": 1, "declared_9": 1, "conceded_9": 1},
        {"declared_7": 1, "made_7": 1},
        id="a made 7 stays",
    ),
    pytest.param(
        {"declared_ask-supported": 1, "made_ask-supported": 0},
        {"declared_ask-supported": 1, "made_ask-supported": 0},
        id="Boston counts untouched",
    ),
]


@pytest.mark.parametrize(("counts", "before"), OLD_COUNTS)
def test_the_counts_before_concessions_were_counted(counts, before):
    assert before_concessions(counts) == before


def test_before_concessions_leaves_its_argument_alone():
    counts = {"declared_7": 1, "conceded_7": 1}
    before_concessions(counts)
    assert counts == {"declared_7": 1, "conceded_7": 1}


# A substitute mid-pulka: each player's counts cover the deals he played himself.
# ``segments[k]``: the seats' counts before substitute k; ``positions[k]``: his seat.
HOLDER_CASES = [
    pytest.param(
        [[{"x": 1}, {"x": 2}, {"x": 4}]], [], ([{"x": 1}, {"x": 2}, {"x": 4}], []), id="none"
    ),
    pytest.param(
        # Seat 2 changes hands after the first segment: its 4 is the leaver's, its 40
        # the newcomer's; seats 0 and 1 keep both segments (1 + 10, 2 + 20).
        [[{"x": 1}, {"x": 2}, {"x": 4}], [{"x": 10}, {"x": 20}, {"x": 40}]],
        [2],
        ([{"x": 11}, {"x": 22}, {"x": 40}], [{"x": 4}]),
        id="one",
    ),
    pytest.param(
        # Seat 1 changes hands twice: the first leaver has segment 0's 2, the second
        # segment 1's 20, the last holder segment 2's 200; seat 0 has 1 + 10 + 100.
        [[{"x": 1}, {"x": 2}, {}], [{"x": 10}, {"x": 20}, {}], [{"x": 100}, {"x": 200}, {}]],
        [1, 1],
        ([{"x": 111}, {"x": 200}, {}], [{"x": 2}, {"x": 20}]),
        id="one-seat-twice",
    ),
    pytest.param(
        # Seats 0 and 2 after the same deal (an empty segment between them): seat 0's
        # leaver has 1, seat 2's leaver 4 (segments 0 and 1 both before his change).
        [[{"x": 1}, {"y": 2}, {"x": 4}], [{}, {}, {}], [{"x": 10}, {"y": 20}, {"x": 40}]],
        [0, 2],
        ([{"x": 10}, {"y": 22}, {"x": 40}], [{"x": 1}, {"x": 4}]),
        id="two-seats-at-once",
    ),
]


@pytest.mark.parametrize(("segments", "positions", "expected"), HOLDER_CASES)
def test_each_holder_keeps_the_counts_of_his_own_deals(segments, positions, expected):
    assert stats_by_holder(segments, positions) == expected


def test_the_segments_must_match_the_substitutes():
    with pytest.raises(ValueError, match="one segment more"):
        stats_by_holder([[{}, {}, {}]], [1])
