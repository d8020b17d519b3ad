"""Records stored under the first edition replay exactly as before (preferans.md §13 keeps
every existing record's score), here a correction that raises one pool past the target and
lowers another: an adjustment is written as entered, each pool entry with its overflow
straight after it, so the pulka stays open and the next deal is still accepted.

(§13.9's order, every own point before any overflow, would send the overflow to the pool
lowered after it, close every pool and refuse deal 3 as "the pulka is complete".)
"""

from __future__ import annotations

from typing import Any

from scoring.engine.preferans.record import score_record

NAMES = ["Anna", "Boris", "Vera"]
RECORD: dict[str, Any] = {
    "format": "pulka/1",
    "game": "preferans",
    "rules": "sochi",
    "players": NAMES,
    "pool_target": 10,
    "deals": [
        {"kind": "adjust", "reason": "carried over", "pool": {"Anna": 8, "Boris": 10, "Vera": 10}},
        {"kind": "adjust", "reason": "correction", "pool": {"Anna": 5, "Boris": -3}},
        {
            "kind": "game",
            "declarer": "Boris",
            "contract": "6S",
            "answers": {"Vera": "pass", "Anna": "pass"},
        },
    ],
}
# What the first edition's engine gave for RECORD (computed with it, copied here).
FIRST_EDITION = {
    "complete": False,
    "pool": {"Anna": 10, "Boris": 9, "Vera": 10},
    "mountain": {"Anna": -3, "Boris": 0, "Vera": 0},
    "balance": {"Anna": "23.33", "Boris": "-16.67", "Vera": "-6.67"},
    "entries": [
        [["pool", "Anna", 8], ["pool", "Boris", 10], ["pool", "Vera", 10]],
        [["pool", "Anna", 2], ["mountain", "Anna", -3], ["pool", "Boris", -3]],
        [["pool", "Boris", 2]],
    ],
}


def test_a_correction_raising_and_lowering_pools_replays_with_the_same_completion():
    result = score_record(RECORD)

    assert result["complete"] is FIRST_EDITION["complete"]
    assert len(result["deals"]) == 3  # the game after the correction is still accepted
    for name in NAMES:
        player = result["players"][name]
        assert player["pool"] == FIRST_EDITION["pool"][name]
        assert player["mountain"] == FIRST_EDITION["mountain"][name]
        assert player["balance"] == FIRST_EDITION["balance"][name]
    assert [deal["entries"] for deal in result["deals"]] == FIRST_EDITION["entries"]


def test_the_same_correction_in_the_other_seat_order_is_written_as_entered():
    """Boris's lowered pool listed first (his seat comes first): he goes down to 7, then
    Anna's overflow helps him, the largest open pool, and every pool is closed."""
    record = {
        **RECORD,
        "players": ["Boris", "Anna", "Vera"],
        "deals": RECORD["deals"][:2],
    }

    result = score_record(record)

    assert result["complete"] is True
    assert result["deals"][1]["entries"] == [
        ["pool", "Boris", -3],
        ["pool", "Anna", 2],
        ["pool", "Boris", 3],
        ["whists", "Anna", "Boris", 30],
    ]
