"""A season scored as a league: its nights' tables into each member's league standing.

A league night is one evening of the club (the tables a member played that evening) or
one tournament of one tour; the site groups the tables and says which players rank (the
members: a guest's result places the others at his table, but he is never listed). The
rule (``LeagueRule.kind``) is one of:

* ``raw``, ``bands``, ``places`` — each table's results become points by the tournament's
  own rule (``tournament.points.score_table``: the result as it is, counted in bands, or
  place points with the sole-positive bonus); a night's points are the sum of the
  member's tables that night; the standings add the nights up, all of them or the best
  ``best_of`` (``tournament.standings.rank``), and equal points go to the larger total
  result over the counted nights, then share a rank;
* ``average_place`` — the member's average place over every table he played (lower
  ranks higher), equal averages to the larger total result, then a shared rank.

Every table's numbers keep the engine's explanation (``LeagueTable.explanation``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from scoring.engine.errors import N_, RuleError
from scoring.engine.standings import table_places
from scoring.engine.text import Text
from scoring.engine.tournament.points import PointsRule, TourScore, check_rule, score_table
from scoring.engine.tournament.standings import rank

LEAGUE_KINDS = ("raw", "bands", "places", "average_place")

HUNDREDTH = Decimal("0.01")

RAW = PointsRule()
"""The result as it is: the points of the ``raw`` kind."""


@dataclass(frozen=True)
class LeagueRule:
    """How a league season ranks: ``kind`` (module docstring), the ``points`` rule of the
    points kinds, and ``best_of``: count only a member's best N nights (empty: all)."""

    kind: str = "raw"
    points: PointsRule = RAW
    best_of: int | None = None


@dataclass(frozen=True)
class NightTable:
    """One finished table of a night: ``night`` the night's index (0 first), ``table`` the
    table's key, ``results`` every player's balance there (guests too)."""

    night: int
    table: str
    results: Mapping[str, Decimal]


@dataclass(frozen=True)
class LeagueTable:
    """One member's table in the breakdown: the night and table, his result and place
    there, the points the rule gave (``None`` under the average place) and why."""

    night: int
    table: str
    result: Decimal
    place: int
    points: Decimal | None
    explanation: Text


@dataclass(frozen=True)
class LeagueLine:
    """One member's league standing: his ``rank`` (``None`` when listed below the
    minimum), ``points`` (``None`` under the average place), ``result_total`` (whists
    over the counted nights), the ``tables`` and nights he played, the nights that count
    (``counted``: night indexes), his ``average_place`` (to the hundredth), his tables
    (``scores``) and what separated him from the line above (``tie_break``)."""

    player: str
    rank: int | None
    points: Decimal | None
    result_total: Decimal
    tables: int
    nights: tuple[int, ...]
    counted: tuple[int, ...]
    average_place: Decimal
    scores: tuple[LeagueTable, ...]
    tie_break: Text


def check_league(rule: LeagueRule) -> None:
    """Refuse a rule that cannot be applied (``RuleError`` in words)."""
    if rule.kind not in LEAGUE_KINDS:
        raise RuleError(
            N_("unknown league rule %(rule)s; use: %(kinds)s"),
            field="league_rule",
            rule=rule.kind,
            kinds=", ".join(LEAGUE_KINDS),
        )
    if rule.best_of is not None and rule.best_of < 1:
        raise RuleError(N_("count at least one night"), field="best_of")
    if rule.kind == "average_place":
        if rule.best_of is not None:
            raise RuleError(
                N_("the average place counts every table: leave the best nights empty"),
                field="best_of",
            )
        return
    if rule.points.kind != rule.kind:
        raise RuleError(N_("the points rule must be the league's own"), field="league_rule")
    check_rule(rule.points)


def _average(places: Sequence[int]) -> Fraction:
    return Fraction(sum(places), len(places)) if places else Fraction(0)


def _hundredths(value: Fraction) -> Decimal:
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
        HUNDREDTH, rounding=ROUND_HALF_UP
    )


def league_standings(
    tables: Sequence[NightTable],
    rule: LeagueRule,
    *,
    players: Sequence[str],
    min_tables: int = 0,
) -> tuple[list[LeagueLine], list[LeagueLine]]:
    """The league standings of ``players`` (the members: nobody else is listed) over
    ``tables``: those with at least ``min_tables`` tables ranked, then the others,
    unranked, in the same order."""
    check_league(rule)
    listed = set(players)
    scores: dict[str, list[LeagueTable]] = {p: [] for p in players}
    nights = 1 + max((t.night for t in tables), default=-1)
    for table in tables:
        results = {p: Decimal(r) for p, r in table.results.items()}
        if rule.kind == "average_place":
            places = table_places(list(results.values()))
            for (player, result), place in zip(results.items(), places, strict=True):
                if player in listed:
                    scores[player].append(
                        LeagueTable(
                            table.night,
                            table.table,
                            result,
                            place,
                            None,
                            Text(
                                N_("place %(place)s (result %(result)s)"),
                                place=place,
                                result=result,
                            ),
                        )
                    )
            continue
        for player, score in score_table(results, rule.points).items():
            if player in listed:
                scores[player].append(
                    LeagueTable(
                        table.night,
                        table.table,
                        score.result,
                        score.place,
                        score.points,
                        score.explanation,
                    )
                )
    played = [p for p in players if scores[p]]
    if rule.kind == "average_place":
        lines = _by_average_place(played, scores)
    else:
        lines = _by_points(played, scores, nights, rule.best_of)
    ranked = [line for line in lines if line.tables >= min_tables]
    below = [_unranked(line) for line in lines if line.tables < min_tables]
    return _reranked(ranked), below


def _night_scores(player: str, mine: list[LeagueTable], nights: int) -> list[TourScore | None]:
    """A member's nights as the tournament standings read tours: each night's points and
    result summed over his tables that night (no opponents: a night may hold several
    tables, so the standings break ties by the result alone)."""
    by_night: list[TourScore | None] = [None] * nights
    for score in mine:
        before = by_night[score.night]
        points = score.points or Decimal(0)
        if before is None:
            by_night[score.night] = TourScore(player, score.result, score.place, points, Text(""))
        else:
            by_night[score.night] = TourScore(
                player,
                before.result + score.result,
                min(before.place, score.place),
                before.points + points,
                Text(""),
            )
    return by_night


def _by_points(
    played: list[str], scores: dict[str, list[LeagueTable]], nights: int, best_of: int | None
) -> list[LeagueLine]:
    by_player = {p: _night_scores(p, scores[p], nights) for p in played}
    tours = [
        {p: s for p in played if (s := by_player[p][night]) is not None} for night in range(nights)
    ]
    result = []
    for line in rank(tours, best_of=best_of, players=played):
        mine = scores[line.player]
        result.append(
            LeagueLine(
                player=line.player,
                rank=line.rank,
                points=line.total,
                result_total=line.result_total,
                tables=len(mine),
                nights=tuple(i for i, s in enumerate(line.tours) if s is not None),
                counted=tuple(
                    i
                    for i, (s, c) in enumerate(zip(line.tours, line.counted, strict=True))
                    if c and s
                ),
                average_place=_hundredths(_average([s.place for s in mine])),
                scores=tuple(mine),
                tie_break=line.tie_break,
            )
        )
    return result


def _by_average_place(played: list[str], scores: dict[str, list[LeagueTable]]) -> list[LeagueLine]:
    keyed = []
    for player in played:
        mine = scores[player]
        average = _average([s.place for s in mine])
        total = sum((s.result for s in mine), Decimal(0))
        keyed.append(((average, -total), player, mine, total))
    keyed.sort(key=lambda k: (k[0], k[1]))
    result: list[LeagueLine] = []
    previous: tuple[Fraction, Decimal] | None = None
    for index, (key, player, mine, total) in enumerate(keyed):
        place = result[-1].rank if previous == key and result else index + 1
        why = Text("")
        if previous is not None and previous[0] == key[0]:
            why = (
                Text(
                    N_("equal average place; the total result decides: %(mine)s against %(above)s"),
                    mine=total,
                    above=-previous[1],
                )
                if previous[1] != key[1]
                else Text(N_("equal on every tie-break: the same rank"))
            )
        nights = tuple(sorted({s.night for s in mine}))
        result.append(
            LeagueLine(
                player=player,
                rank=place,
                points=None,
                result_total=total,
                tables=len(mine),
                nights=nights,
                counted=nights,
                average_place=_hundredths(key[0]),
                scores=tuple(mine),
                tie_break=why,
            )
        )
        previous = key
    return result


def _unranked(line: LeagueLine) -> LeagueLine:
    return replace(line, rank=None, tie_break=Text(""))


def _reranked(lines: list[LeagueLine]) -> list[LeagueLine]:
    """Ranks counted again among the qualified only (members below the minimum left the
    list), equal lines keeping a shared rank."""
    result: list[LeagueLine] = []
    for index, line in enumerate(lines):
        shared = result and lines[index - 1].rank == line.rank
        place = result[-1].rank if shared else index + 1
        result.append(replace(line, rank=place))
    return result
