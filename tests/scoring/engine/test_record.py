"""The game record's dispatch (``scoring/engine/record.py``): the club's limits on one
record, checked before any deal is read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.record import (
    MAX_DEALS,
    MAX_RECORD_BYTES,
    check_head,
    check_size,
    load,
    score_record,
)

PASSOUT = {"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "Vera": 0}}
BOSTON_PASS = {"kind": "pass"}


def record(game: str, deals: int) -> dict[str, Any]:
    """A legal record of ``deals`` deals (a pool of 10,000 closes after ~10,000 pass-outs)."""
    if game == "boston":
        return {
            "format": "pulka/1",
            "game": "boston",
            "players": ["Anna", "Boris", "Vera", "Gleb"],
            "deals": [BOSTON_PASS] * deals,
        }
    return {
        "format": "pulka/1",
        "game": "preferans",
        "players": ["Anna", "Boris", "Vera"],
        "pool_target": 10_000,
        "deals": [PASSOUT] * deals,
    }


def test_the_limits_are_far_above_a_real_pulka_and_below_the_attack():
    # A long real pulka has about 150 deals; the attack imported 5,000 and 85,000.
    assert 150 * 5 <= MAX_DEALS < 5_000
    # A record of the most deals, as the site exports it (indented), fits several times.
    exported = json.dumps(record("preferans", MAX_DEALS), indent=1)
    assert len(exported.encode()) * 5 < MAX_RECORD_BYTES


@pytest.mark.parametrize("game", ["preferans", "boston"])
def test_a_record_of_the_most_deals_scores(game):
    assert len(score_record(record(game, MAX_DEALS))["deals"]) == MAX_DEALS


@pytest.mark.parametrize("game", ["preferans", "boston"])
@pytest.mark.parametrize("deals", [MAX_DEALS + 1, 5_000, 85_000])
def test_a_record_of_more_deals_is_refused_by_its_count(game, deals):
    data = record(game, deals)
    # Every deal is broken: the refusal comes before any of them is read.
    data["deals"] = [{"kind": "nonsense"}] * deals
    message = f"deals: a game record has at most 1,000 deals; this one has {deals:,}"
    with pytest.raises(RuleError) as refused:
        check_head(data)
    assert str(refused.value) == message
    with pytest.raises(RuleError, match=message):
        score_record(data)
    text = json.dumps(data)
    # 85,000 deals are over the size limit too, which ``load`` checks first.
    first = message if len(text) <= MAX_RECORD_BYTES else "larger than 1,000,000 bytes"
    with pytest.raises(RuleError, match=first):
        load(text)


@pytest.mark.parametrize(
    ("size", "refused"),
    [(0, False), (MAX_RECORD_BYTES, False), (MAX_RECORD_BYTES + 1, True), (5_000_000, True)],
)
def test_check_size(size, refused):
    if not refused:
        check_size(size)
        return
    with pytest.raises(RuleError) as error:
        check_size(size)
    assert str(error.value) == (
        "the record is larger than 1,000,000 bytes (1 MB), the limit for a game record"
    )


def test_load_refuses_a_text_over_the_limit_before_parsing_it():
    # Not even JSON: the size alone refuses it.
    with pytest.raises(RuleError, match="larger than 1,000,000 bytes"):
        load("[" * (MAX_RECORD_BYTES + 1))


def test_load_counts_bytes_not_characters():
    # Cyrillic letters are two bytes each in UTF-8: fewer characters than the limit.
    note = "я" * (MAX_RECORD_BYTES // 2)
    text = json.dumps(record("preferans", 1) | {"note": note}, ensure_ascii=False)
    assert len(text) < MAX_RECORD_BYTES < len(text.encode())
    with pytest.raises(RuleError, match="larger than 1,000,000 bytes"):
        load(text)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_constant_that_is_no_number_is_refused_in_one_message(constant: str) -> None:
    """RuleError is a ValueError: caught as one, NaN's own message became the reason of
    another ("not valid JSON: not valid JSON: NaN …"), which the site showed translated
    only in half: «неверный JSON: not valid JSON: NaN is not a number»."""
    text = json.dumps(record("preferans", 0))[:-1] + f', "pool_target": {constant}}}'

    with pytest.raises(RuleError) as raised:
        load(text)

    assert raised.value.template == "not valid JSON: %(name)s is not a number"
    assert str(raised.value) == f"not valid JSON: {constant} is not a number"
