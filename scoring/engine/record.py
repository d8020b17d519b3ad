"""The JSON game record (game-format.md) for both games: load, check, dispatch, score."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from scoring.engine.errors import N_, Grouped, RuleError

FORMAT = "pulka/1"
GAMES = ("preferans", "boston")

# The club's limits on one game record, shared by ``manage.py score``, the import page,
# deal entry and the backup (docs/operations.md, "Limits on a game record"). A long real
# pulka has about 150 deals; 1,000 leaves room for the longest evening and Boston's long
# tables, and is far below what makes a table's pages slow (an attack imported 85,000). A
# 1,000-deal record is about 100 kB as exported, so 1 MB leaves room for a note on every
# deal.
# (Each game's reader keeps its own, far larger bound for callers that skip this module.)
MAX_RECORD_BYTES = 1_000_000
MAX_DEALS = 1_000


def check_size(size: int) -> None:
    """``RuleError`` if a record of ``size`` bytes is over ``MAX_RECORD_BYTES``: asked
    before the text is read or parsed, so an oversized record costs nothing."""
    if size > MAX_RECORD_BYTES:
        raise RuleError(
            N_(
                "the record is larger than %(limit)s bytes (%(megabytes)s MB), "
                "the limit for a game record"
            ),
            limit=Grouped(MAX_RECORD_BYTES),
            megabytes=MAX_RECORD_BYTES // 1_000_000,
        )


def check_deal_count(count: int) -> None:
    """``RuleError`` if a game of ``count`` deals is over ``MAX_DEALS``."""
    if count > MAX_DEALS:
        raise RuleError(
            N_("a game record has at most %(limit)s deals; this one has %(count)s"),
            field="deals",
            limit=Grouped(MAX_DEALS),
            count=Grouped(count),
        )


def load(text: str) -> Mapping[str, Any]:
    """Parse a record's JSON text, with a clear message for broken JSON; a text over the
    size limit is refused before it is parsed."""
    check_size(len(text.encode("utf-8", "surrogatepass")))
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise RuleError(
            N_("not valid JSON: %(reason)s at line %(line)s, column %(column)s"),
            reason=error.msg,
            line=error.lineno,
            column=error.colno,
        ) from None
    except RecursionError:
        raise RuleError(N_("not valid JSON: nested too deeply")) from None
    except RuleError:  # NaN or Infinity (``_no_constant``): its own message, as it is
        raise
    except ValueError as error:  # e.g. an integer of thousands of digits
        raise RuleError(N_("not valid JSON: %(reason)s"), reason=str(error)) from None
    where = bad_text(data)
    if where is not None:
        raise RuleError(BAD_TEXT_AT, at=where[:80])
    return check_head(data)


BAD_TEXT_AT = N_(
    "the text holds a NUL character (\\u0000) or half of a surrogate pair (\\ud800–\\udfff), "
    "which no name or note can hold (at %(at)s)"
)
"""Why a JSON document with such a string is refused: JSON's ``\\u`` escapes can spell
them, but neither is text (a database column refuses them; PostgreSQL refuses NUL)."""
BAD_TEXT = BAD_TEXT_AT.removesuffix(" (at %(at)s)")
"""The same without the place, for messages that are not an engine error."""

_BAD_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def bad_text(document: Any) -> str | None:
    """Where in a parsed JSON document a string (a key or a value) holds a NUL or a lone
    surrogate, as a path such as ``deals[3].note``; ``None`` if nowhere. Walks with a stack
    of its own, so a document nested as deeply as ``json`` parses cannot overflow it."""
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if _BAD_CHARACTER.search(value):
                return path or "the top"
        elif isinstance(value, Mapping):
            for key, item in value.items():
                inner = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and _BAD_CHARACTER.search(key):
                    return ascii(inner)
                stack.append((item, inner))
        elif isinstance(value, list | tuple):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(value))
    return None


def check_head(data: Any) -> Mapping[str, Any]:
    """``data`` if it is a game record object of a known format and game, with at most
    ``MAX_DEALS`` deals (counted before any deal is read)."""
    if not isinstance(data, Mapping):
        raise RuleError(N_("a game record must be a JSON object"))
    if data.get("format") != FORMAT:
        raise RuleError(N_('must be "%(wanted)s"'), field="format", wanted=FORMAT)
    if data.get("game") not in GAMES:
        raise RuleError(N_('must be "preferans" or "boston"'), field="game")
    deals = data.get("deals")
    if isinstance(deals, list):  # the game's reader says what else is wrong with it
        check_deal_count(len(deals))
    return data


def record_digest(record: Mapping[str, Any]) -> str:
    """The SHA-256 (64 hex digits) of ``record`` written as canonical JSON: keys sorted, no
    spaces, ASCII. Equal records, however they were spaced or ordered, share it; what
    makes two games "the same" is what the caller puts in the record (docs/operations.md)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def score_record(data: Any) -> dict[str, Any]:
    """Score a game record of either game and return its result document."""
    record = check_head(data)
    if record["game"] == "preferans":
        from scoring.engine.preferans.record import score_record as score_preferans

        return score_preferans(record)
    from scoring.engine.boston.record import score_record as score_boston

    return score_boston(record)


def _no_constant(name: str) -> None:
    raise RuleError(N_("not valid JSON: %(name)s is not a number"), name=name)
