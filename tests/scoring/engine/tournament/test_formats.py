"""Tournament formats (scoring/engine/tournament/formats.py): the presets carry the issue's
numbers, a format survives the site's JSON, and a format that cannot work is refused."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from typing import Any

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.preferans.rules import PRESETS as TARIFFS
from scoring.engine.tournament.formats import PRESETS, Cut, Format, Length

D = Decimal


def test_the_four_presets() -> None:
    assert set(PRESETS) >= {"fspr", "gambler", "playelephant", "league_night"}
    fspr = PRESETS["fspr"]
    assert (fspr.length.kind, fspr.table_size, fspr.points.kind) == ("time", 4, "raw")
    assert fspr.tariff == "fspr_leningrad"
    gambler = PRESETS["gambler"]
    assert gambler.tours == 5
    assert gambler.seating[1:] == ("swiss",) * 4
    assert gambler.cut == Cut(after=3, keep=6)
    assert (gambler.length.pool, gambler.length.deals) == (10, 18)
    assert (gambler.yellow_below, gambler.cards_to_disqualify) == (D(-1000), 2)
    assert gambler.timeout_scores_zero
    elephant = PRESETS["playelephant"]
    assert elephant.tours == 6  # 5 tours and the final
    assert elephant.length_for(5) == Length("deals", deals=6)
    assert elephant.length_for(6) == Length("deals", deals=9)
    assert elephant.cut == Cut(after=5, keep=9, deals=9)
    night = PRESETS["league_night"]
    assert night.tours == 1
    assert night.points.places == (D(3), D(2), D(0))
    assert (night.points.sole_positive, night.points.second_negative) == (D(4), D(1))
    for preset in PRESETS.values():
        assert preset.tariff is None or preset.tariff in TARIFFS


@pytest.mark.parametrize("key", sorted(PRESETS))
def test_a_format_survives_json(key: str) -> None:
    data = json.loads(json.dumps(PRESETS[key].to_dict()))
    assert Format.from_dict(data) == PRESETS[key]


def _edit(key: str, **changes: Any) -> Format:
    return dataclasses.replace(PRESETS[key], **changes)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tours": 0}, "the tours must be a whole number"),
        ({"cut": Cut(after=3, keep=6, deals=0)}, "the deals must be a whole number"),
        ({"seating": ("random",) * 4}, "one seating mode per tour: 5 tours, 4 modes"),
        ({"seating": ("swiss",) * 5}, "the first tour is seated at random or by the schedule"),
        ({"seating": ("random", "schedule", "swiss", "swiss", "swiss")}, "a schedule is"),
        ({"seating": ("random", "dice", "swiss", "swiss", "swiss")}, "unknown seating mode"),
        ({"length": Length("pool")}, "a tour played to a pool needs the pool's size"),
        ({"length": Length("laps", pool=3)}, "unknown tour length"),
        ({"best_of": 6}, "best 6 of 5 tours"),
        ({"cut": Cut(after=5, keep=6)}, "leaves no tour to play"),
        ({"cut": Cut(after=3, keep=2)}, "at least 3 players"),
        ({"table_size": 5}, "3 or 4 players"),
        ({"yellow_below": D(100)}, "below 0"),
        ({"game": "bridge"}, "unknown game"),
    ],
)
def test_a_format_that_cannot_work(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(RuleError, match=message):
        _edit("gambler", **changes)


def test_a_garbled_format_is_refused_in_words() -> None:
    with pytest.raises(RuleError, match="the format cannot be read"):
        Format.from_dict({"name": "x"})
    data = PRESETS["gambler"].to_dict()
    data["points"]["bands"][0]["factor"] = "lots"
    with pytest.raises(RuleError, match="the format cannot be read"):
        Format.from_dict(data)
