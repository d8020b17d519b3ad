"""Tour points: a table's results (whists) into each player's tournament points.

A rule is one of three kinds (``PointsRule.kind``):

* ``raw`` — the points are the result itself (ФСПР);
* ``bands`` — the result counted band by band: each ``Band(upto, factor)`` multiplies the
  part of the result between the previous band's ``upto`` (0 for the first) and its own
  ``upto`` by ``factor``; the last band's ``upto`` may be ``None`` (everything beyond).
  Gambler: full up to 200, a tenth from 200 to 650, nothing beyond, so 300 scores
  200 + 100 × 0.1 = 210. **Bands are symmetric**: a negative result is banded by its size
  and keeps its sign (−300 scores −210), so a cap protects a loser as it limits a winner;
* ``places`` — points by the place at the table (``places[0]`` for 1st, ``places[1]`` for
  2nd, …; places beyond the list score 0). ``sole_positive``: what 1st scores instead when
  he is the only player with a positive result; ``second_negative``: what 2nd scores
  instead when his result is negative (Serbian league: 3 / 2 / 0, 4 for a sole positive,
  1 for a negative 2nd). Players with equal results share their places and split those
  places' points equally (two tied for 1st under 3 / 2 / 0 score 2.5 each); a share that
  does not come out in hundredths is rounded to the hundredth, half up ((3 + 2 + 0) / 3 =
  1.67), so such a table may hand out a hundredth more or less than its places.

Every ``TourScore`` carries an ``explanation`` (a ``Text``) that shows each number, as the
deal log explains a deal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from scoring.engine.errors import N_, RuleError
from scoring.engine.standings import table_places
from scoring.engine.text import Text

POINTS_KINDS = ("raw", "bands", "places")

HUNDREDTH = Decimal("0.01")


@dataclass(frozen=True)
class Band:
    """The part of a result up to ``upto`` whists (from the previous band's bound) counts
    ``factor`` times; ``upto=None``: everything beyond the previous bound."""

    upto: Decimal | None
    factor: Decimal


@dataclass(frozen=True)
class PointsRule:
    """How a table's results become tour points (module docstring). ``__post_init__``
    refuses a rule that cannot be applied (``RuleError``)."""

    kind: str = "raw"
    bands: tuple[Band, ...] = ()
    places: tuple[Decimal, ...] = ()
    sole_positive: Decimal | None = None
    second_negative: Decimal | None = None


@dataclass(frozen=True)
class TourScore:
    """One player's tour: his ``result`` (his balance in whists at his table), his
    ``place`` at the table (1 best; equal results share a place; 0 for a bye), his tour
    ``points`` and the ``explanation`` of how the rule made them. ``opponents``: the other
    players at his table (empty for a bye), which the standings' head-to-head and
    opponents' strength read."""

    player: str
    result: Decimal
    place: int
    points: Decimal
    explanation: Text
    opponents: tuple[str, ...] = ()


def check_rule(rule: PointsRule) -> None:
    """Refuse a rule that cannot be applied (``RuleError`` in words)."""
    if rule.kind not in POINTS_KINDS:
        raise RuleError(
            N_("unknown points rule %(rule)s; use: %(kinds)s"),
            field="points",
            rule=rule.kind,
            kinds=", ".join(POINTS_KINDS),
        )
    if rule.kind == "bands":
        if not rule.bands:
            raise RuleError(N_("give at least one band"), field="points")
        previous = Decimal(0)
        for i, band in enumerate(rule.bands):
            if band.factor < 0:
                raise RuleError(N_("a band's factor cannot be negative"), field="points")
            if band.upto is None:
                if i != len(rule.bands) - 1:
                    raise RuleError(N_("only the last band can be open-ended"), field="points")
            elif band.upto <= previous:
                raise RuleError(
                    N_("the bands' bounds must rise: %(bound)s after %(previous)s"),
                    field="points",
                    bound=band.upto,
                    previous=previous,
                )
            else:
                previous = band.upto
    if rule.kind == "places" and not rule.places:
        raise RuleError(N_("give the points for each place at the table"), field="points")


def _tidy(value: Decimal) -> Decimal:
    """``value`` without trailing zeros (210.0 → 210, 2.50 → 2.5), never in exponent form."""
    if value == value.to_integral_value():
        return value.quantize(Decimal(1))
    return value.normalize()


def _share(total: Decimal, tied: int) -> Decimal:
    """``total`` split ``tied`` ways: exact when it divides, else to the hundredth."""
    share = total / tied
    if share * tied == total and share == share.quantize(HUNDREDTH):
        return _tidy(share)
    return _tidy(share.quantize(HUNDREDTH, rounding=ROUND_HALF_UP))


def band_points(result: Decimal, bands: tuple[Band, ...]) -> tuple[Decimal, Text]:
    """``result`` counted through ``bands`` (symmetric for a negative result), with the
    arithmetic as a ``Text`` (e.g. «200 × 1 + 100 × 0.1»)."""
    size = abs(result)
    total = Decimal(0)
    parts: list[Text] = []
    lower = Decimal(0)
    for band in bands:
        upper = size if band.upto is None else min(size, band.upto)
        if upper > lower:
            portion = upper - lower
            total += portion * band.factor
            parts.append(Text("%(part)s × %(factor)s", part=_tidy(portion), factor=band.factor))
        if band.upto is None or size <= band.upto:
            break
        lower = band.upto
    calc = Text("0") if not parts else parts[0]
    for part in parts[1:]:
        calc = Text("%(left)s + %(right)s", left=calc, right=part)
    if result < 0:
        total = -total
        calc = Text("−(%(calc)s)", calc=calc)
    return _tidy(total), calc


def _place_points(ordered: list[Decimal], rule: PointsRule) -> list[tuple[Decimal, str | None]]:
    """The points of each position (best first) and why a position differs from the
    list: ``"sole"`` or ``"negative"``."""
    points: list[tuple[Decimal, str | None]] = [
        (rule.places[i] if i < len(rule.places) else Decimal(0), None) for i in range(len(ordered))
    ]
    if rule.sole_positive is not None and sum(r > 0 for r in ordered) == 1:
        points[0] = (rule.sole_positive, "sole")
    if rule.second_negative is not None and len(ordered) > 1 and ordered[1] < 0:
        points[1] = (rule.second_negative, "negative")
    return points


def score_table(results: Mapping[str, Decimal], rule: PointsRule) -> dict[str, TourScore]:
    """Each player's ``TourScore`` at one table from his result there (``results``: player
    → whists, 3 or 4 players, normally adding up to 0)."""
    check_rule(rule)
    if len(results) not in (3, 4):
        raise RuleError(
            N_("a table has 3 or 4 players, not %(count)s"), field="results", count=len(results)
        )
    players = list(results)
    values = [Decimal(results[p]) for p in players]
    places = table_places(values)
    ordered = sorted(values, reverse=True)
    by_position = _place_points(ordered, rule)
    scores: dict[str, TourScore] = {}
    for player, result, place in zip(players, values, places, strict=True):
        tied = sum(v == result for v in values)
        explanation: Text
        if rule.kind == "raw":
            points = _tidy(result)
            explanation = Text(
                N_("result %(result)s, counted as it is → %(points)s"),
                result=_tidy(result),
                points=points,
            )
        elif rule.kind == "bands":
            points, calc = band_points(result, rule.bands)
            explanation = Text(
                N_("result %(result)s through the bands: %(calc)s = %(points)s"),
                result=_tidy(result),
                calc=calc,
                points=points,
            )
        else:
            shared = by_position[place - 1 : place - 1 + tied]
            points = _share(sum((p for p, _ in shared), Decimal(0)), tied)
            reason = shared[0][1]
            if tied > 1:
                calc = Text("%(part)s", part=shared[0][0])
                for p, _ in shared[1:]:
                    calc = Text("%(left)s + %(right)s", left=calc, right=p)
                explanation = Text(
                    N_(
                        "places %(first)s–%(last)s shared (result %(result)s): "
                        "(%(calc)s) / %(tied)s = %(points)s"
                    ),
                    first=place,
                    last=place + tied - 1,
                    result=_tidy(result),
                    calc=calc,
                    tied=tied,
                    points=points,
                )
            elif reason == "sole":
                explanation = Text(
                    N_("place 1, the only positive result (%(result)s) → %(points)s"),
                    result=_tidy(result),
                    points=points,
                )
            elif reason == "negative":
                explanation = Text(
                    N_("place 2 with a negative result (%(result)s) → %(points)s"),
                    result=_tidy(result),
                    points=points,
                )
            else:
                explanation = Text(
                    N_("place %(place)s (result %(result)s) → %(points)s"),
                    place=place,
                    result=_tidy(result),
                    points=points,
                )
        opponents = tuple(p for p in players if p != player)
        scores[player] = TourScore(player, result, place, points, explanation, opponents)
    return scores


def bye_score(player: str, points: Decimal) -> TourScore:
    """The ``TourScore`` of a player on a bye: result 0, place 0, ``points`` as the format
    says (``Format.bye_points``)."""
    return TourScore(
        player,
        Decimal(0),
        0,
        _tidy(points),
        Text(N_("a bye → %(points)s, as the format says"), points=_tidy(points)),
    )


def timeout_scores(results: Mapping[str, Decimal]) -> dict[str, TourScore]:
    """Each player's ``TourScore`` at a table stopped by the time when the format says a
    time-out scores 0 (``Format.timeout_scores_zero``, Gambler): his result as the sheet
    stood is kept for the record and the total result, his place by it, his points 0."""
    places = table_places([Decimal(r) for r in results.values()])
    return {
        player: TourScore(
            player,
            Decimal(result),
            place,
            Decimal(0),
            Text(
                N_("the table ran out of time at %(result)s: 0, as the format says"),
                result=_tidy(Decimal(result)),
            ),
            tuple(p for p in results if p != player),
        )
        for (player, result), place in zip(results.items(), places, strict=True)
    }
