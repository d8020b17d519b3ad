"""The JSON game record (game-format.md) for both games: load, check, dispatch, score."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scoring.engine.errors import RuleError

FORMAT = "pulka/1"
GAMES = ("preferans", "boston")


def load(text: str) -> Mapping[str, Any]:
    """Parse a record's JSON text, with a clear message for broken JSON."""
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise RuleError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except RecursionError:
        raise RuleError("not valid JSON: nested too deeply") from None
    except ValueError as error:  # e.g. an integer of thousands of digits
        raise RuleError(f"not valid JSON: {error}") from None
    return check_head(data)


def check_head(data: Any) -> Mapping[str, Any]:
    """``data`` if it is a game record object of a known format and game."""
    if not isinstance(data, Mapping):
        raise RuleError("a game record must be a JSON object")
    if data.get("format") != FORMAT:
        raise RuleError(f'must be "{FORMAT}"', field="format")
    if data.get("game") not in GAMES:
        raise RuleError('must be "preferans" or "boston"', field="game")
    return data


def score_record(data: Any) -> dict[str, Any]:
    """Score a game record of either game and return its result document."""
    record = check_head(data)
    if record["game"] == "preferans":
        from scoring.engine.preferans.record import score_record as score_preferans

        return score_preferans(record)
    from scoring.engine.boston.record import score_record as score_boston

    return score_boston(record)


def _no_constant(name: str) -> None:
    raise RuleError(f"not valid JSON: {name} is not a number")
