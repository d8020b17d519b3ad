"""A member's profile as its page shows it: history lines, statistics, head-to-head and
charts, from the reads of ``scoring.selectors.profiles``.

The totals, the statistics and the head-to-head are read from the rows kept when tables
finish and reopen (``StandingsTotal``, ``RivalTotal``: a row per game, and per game and
rival), so they cost the same whatever the member's history. The page lists the member's
latest tables and, per game, the rivals he shared the most tables with (all of either on
request), and draws the result and rating charts from the seats and the rating history;
the view keeps the rendered page in the cache until the standings change or the member
sits at a new table.
"""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from members.models import shown_name_of
from scoring import games
from scoring.engine.boston.rules import BOSTON_ROWS, MISERE_ROWS, TRICK_ROWS
from scoring.engine.preferans.rules import LEVELS
from scoring.games import CENT
from scoring.models import Season, StandingsTotal, Table
from scoring.models.vocabulary import CARD_CONTRACT_NAMES
from scoring.pages.charts import line_chart
from scoring.selectors.profiles import (
    MemberSeat,
    charted_seats,
    finished,
    member_seats,
    member_totals,
    rating_history,
    rival_rows,
    seasons_listed,
    tables_of,
)

BOSTON_KINDS: dict[str, Any] = {
    "ask-supported": gettext_lazy("Ask, supported (8 together)"),
    "ask-unsupported": gettext_lazy("Ask, alone (5)"),
    "independence": gettext_lazy("Independence"),
    **{f"card-{row}": row for row in TRICK_ROWS},
    **{f"card-{row}": names.stats for row, names in CARD_CONTRACT_NAMES.items()},
}
"""Boston contracts as ``Seat.stats`` names them, in the order the profile lists them."""
assert all(f"card-{row}" in BOSTON_KINDS for row in (*MISERE_ROWS, *BOSTON_ROWS))  # noqa: S101


def unit(game: str) -> str:
    """What a result is counted in: whists (Preferans) or chips (Boston)."""
    return str(games.of(game).unit)


def figure(value: Decimal | None, game: str) -> str | None:
    """A stored result as the sheet writes it: whists to the cent, chips whole."""
    if value is None:
        return None
    return games.of(game).figure(value)


def _percent(part: int, whole: int) -> int | None:
    return round(100 * part / whole) if whole else None


@lru_cache(maxsize=4096)
def _date_in(day: datetime.date, format_name: str, language: str | None) -> str:
    return date_format(day, format_name)


def date_texts(format_name: str) -> Callable[[datetime.date], str]:
    """``date_format`` in the current language, remembered: it costs ~20 µs, and a profile
    shows each of hundreds of dates twice (list and chart), the same ones on every visit."""
    language = get_language()
    return lambda day: _date_in(day, format_name, language)


# -- history ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One table on a member's page, with the member's result when it is finished."""

    table_id: int
    game: str
    played_on: datetime.date
    is_open: bool
    tariff: str
    result: str | None  # whists (Preferans) or chips (Boston); None while in play
    money: str | None
    standing: str = Table.COUNTED  # a finished table that does not count is marked

    @property
    def unit(self) -> str:
        return unit(self.game)

    @property
    def game_label(self) -> str:
        return str(games.of(self.game).label)

    @property
    def sign(self) -> str:
        """``"plus"``, ``"minus"`` or ``"zero"``: a class name for the result's colour."""
        value = (self.money or "0").lstrip()
        if value.startswith("-"):
            return "minus"
        return "zero" if value.strip("0.") == "" else "plus"


def history(seats: Iterable[MemberSeat]) -> list[HistoryLine]:
    lines = []
    for seat in seats:
        finished = not seat.is_open
        lines.append(
            HistoryLine(
                table_id=seat.table_id,
                game=seat.game,
                played_on=seat.played_on,
                is_open=seat.is_open,
                tariff=seat.tariff,
                result=figure(seat.result, seat.game) if finished else None,
                money=None if not finished or seat.money is None else str(seat.money),
                standing=seat.standing,
            )
        )
    return lines


# -- summary and statistics ---------------------------------------------------------------


@dataclass(frozen=True)
class GameSummary:
    """A member's totals in one game."""

    game: str
    tables: int
    wins: int
    total: Decimal
    money: Decimal
    best: Decimal
    worst: Decimal
    rating: float | None

    @property
    def unit(self) -> str:
        return unit(self.game)

    @property
    def label(self) -> str:
        """The game's name."""
        return str(games.of(self.game).label)

    @property
    def average(self) -> Decimal:
        return (self.total / self.tables).quantize(CENT)

    def shown(self, name: str) -> str | None:
        return figure(getattr(self, name), self.game)

    @property
    def total_shown(self) -> str | None:
        return self.shown("total")

    @property
    def best_shown(self) -> str | None:
        return self.shown("best")

    @property
    def worst_shown(self) -> str | None:
        return self.shown("worst")


def summaries(totals: Mapping[str, StandingsTotal], ratings: dict[str, float]) -> list[GameSummary]:
    """A line per game the member finished a table of, in the games' order."""
    return [
        GameSummary(
            game=game,
            tables=total.tables,
            wins=total.wins,
            total=total.total,
            money=total.money,
            best=total.best,
            worst=total.worst,
            rating=ratings.get(game),
        )
        for game, _label in Table.GAMES
        if (total := totals.get(game)) is not None
    ]


@dataclass(frozen=True)
class Tally:
    """Contracts of one kind: how many the member declared and how many they made."""

    label: str
    declared: int
    made: int

    @property
    def percent(self) -> int | None:
        return _percent(self.made, self.declared)


@dataclass(frozen=True)
class PreferansStats:
    tables: int
    levels: tuple[Tally, ...]
    """Contracts by level; a conceded one is declared and not made."""
    misere: Tally
    conceded: int
    """Contracts given up unplayed (уход), of every level."""
    passouts: int
    passout_tricks: int
    whists_written: int
    whists_received: int
    help_given: int
    help_received: int

    @property
    def contracts(self) -> tuple[Tally, ...]:
        """The rows of the statistics table: each level, then the misère."""
        return (*self.levels, self.misere)

    @property
    def passout_average(self) -> Decimal | None:
        """Tricks taken per pass-out deal played."""
        if not self.passouts:
            return None
        return (Decimal(self.passout_tricks) / self.passouts).quantize(CENT)


@dataclass(frozen=True)
class BostonStats:
    tables: int
    kinds: tuple[Tally, ...]  # only the contracts declared at least once


def preferans_stats(totals: Mapping[str, StandingsTotal]) -> PreferansStats | None:
    total = totals.get(games.PREFERANS.code)
    if total is None:
        return None
    c = Counter(total.stats)
    return PreferansStats(
        tables=total.tables,
        levels=tuple(
            Tally(str(level), c[f"declared_{level}"], c[f"made_{level}"]) for level in LEVELS
        ),
        misere=Tally(_("Misère"), c["misere_declared"], c["misere_made"]),
        conceded=sum(c[f"conceded_{level}"] for level in LEVELS),
        passouts=c["passouts"],
        passout_tricks=c["passout_tricks"],
        whists_written=c["whists_written"],
        whists_received=c["whists_received"],
        help_given=c["help_given"],
        help_received=c["help_received"],
    )


def boston_stats(totals: Mapping[str, StandingsTotal]) -> BostonStats | None:
    total = totals.get(games.BOSTON.code)
    if total is None:
        return None
    c = Counter(total.stats)
    declared = [k.removeprefix("declared_") for k in c if k.startswith("declared_") and c[k]]
    known = [k for k in BOSTON_KINDS if k in declared]
    # A kind a later rule book adds still shows, after the known ones.
    other = sorted(k for k in declared if k not in BOSTON_KINDS)
    return BostonStats(
        tables=total.tables,
        kinds=tuple(
            Tally(str(BOSTON_KINDS.get(k, k)), c[f"declared_{k}"], c[f"made_{k}"])
            for k in (*known, *other)
        ),
    )


# -- head-to-head -------------------------------------------------------------------------


@dataclass(frozen=True)
class Rival:
    """Another member as seen from the profile's member: at the tables they shared."""

    username: str
    name: str
    game: str
    tables: int
    mine: Decimal  # the member's total result at those tables
    theirs: Decimal  # the rival's total result at those tables
    above: int  # tables where the member finished above the rival
    in_game: int  # the member's rivals in this game, listed or not

    @property
    def unit(self) -> str:
        return unit(self.game)

    @property
    def game_label(self) -> str:
        return str(games.of(self.game).label)

    @property
    def mine_shown(self) -> str | None:
        return figure(self.mine, self.game)

    @property
    def theirs_shown(self) -> str | None:
        return figure(self.theirs, self.game)

    @property
    def above_percent(self) -> int | None:
        return _percent(self.above, self.tables)

    @property
    def sign(self) -> str:
        return "plus" if self.mine > self.theirs else "minus" if self.mine < self.theirs else "zero"


RIVALS_SHOWN = 10
"""How many rivals per game the page lists, those with the most tables together (all of
them on request)."""


def rivals(member: Any, *, per_game: int | None = None) -> list[Rival]:
    """Head-to-head against the members met at a finished table, per game, most tables
    together first (then by name): every one, or the first ``per_game`` of each game
    (``selectors.profiles.rival_rows``)."""
    return [
        Rival(
            username=row["rival__username"],
            name=shown_name_of(row, "rival__"),
            game=row["game"],
            tables=row["tables"],
            mine=row["mine"],
            theirs=row["theirs"],
            above=row["above"],
            in_game=row["in_game"],
        )
        for row in rival_rows(member, per_game=per_game)
    ]


@dataclass(frozen=True)
class RivalsCut:
    """A game whose head-to-head the page cuts short: ``shown`` of the ``total`` rivals."""

    game: str
    shown: int
    total: int

    @property
    def label(self) -> str:
        return str(games.of(self.game).label)


def rivals_cut(shown: Sequence[Rival]) -> list[RivalsCut]:
    """The games of which ``shown`` lists fewer rivals than the member has, in its order."""
    counts = Counter(rival.game for rival in shown)
    totals = {rival.game: rival.in_game for rival in shown}
    return [
        RivalsCut(game, counts[game], total)
        for game, total in totals.items()
        if total > counts[game]
    ]


# -- charts -------------------------------------------------------------------------------


CHART_DAY = "j M y"  # a chart's dates: "1 Mar 26"


def chosen_season(
    seasons: Sequence[Season], asked: str | None, today: datetime.date | None = None
) -> Season | None:
    """The season a profile's result chart shows: the one asked for (``"all"`` for all
    time), else the current one, else the latest that has begun, else all time."""
    if asked == "all":
        return None
    by_pk = {str(season.pk): season for season in seasons}
    if asked in by_pk:
        return by_pk[asked]
    today = today or timezone.localdate()
    begun = [s for s in seasons if s.starts_on <= today]
    current = [s for s in begun if s.ends_on >= today]
    latest = current or sorted(begun, key=lambda s: s.starts_on, reverse=True)
    return latest[0] if latest else None


def result_series(
    seats: Sequence[MemberSeat], game: str, season: Season | None
) -> list[tuple[str, Decimal]]:
    """The member's cumulative result in ``game`` after each table of the season."""
    played = [
        s
        for s in finished(seats, game)
        if season is None or season.starts_on <= s.played_on <= season.ends_on
    ]
    played.sort(key=lambda s: (s.played_on, s.table_id))
    day = date_texts(CHART_DAY)
    points, running = [], Decimal(0)
    for seat in played:
        running += seat.result or 0
        points.append((day(seat.played_on), running))
    return points


def rating_series(member: Any) -> dict[str, list[tuple[str, float]]]:
    """The member's rating (the shown ordinal) after each rated table, per game."""
    series: dict[str, list[tuple[str, float]]] = defaultdict(list)
    day = date_texts(CHART_DAY)
    for game, played_on, ordinal in rating_history(member):
        series[game].append((day(played_on), round(ordinal, 2)))
    return dict(series)


@dataclass(frozen=True)
class Chart:
    game: str
    title: str
    svg: SafeString


HISTORY_SHOWN = 50
"""How many of the member's latest tables the page lists (all of them on request)."""


@dataclass(frozen=True)
class Profile:
    lines: list[HistoryLine]
    table_count: int
    """All the member's tables, of which ``lines`` may be the latest."""
    summaries: list[GameSummary]
    preferans: PreferansStats | None
    boston: BostonStats | None
    rivals: list[Rival]
    rivals_cut: list[RivalsCut]
    """The games whose ``rivals`` are the first few of more."""
    seasons: list[Season]
    season: Season | None
    result_charts: list[Chart]
    rating_charts: list[Chart]


def profile(
    member: Any, *, season: str | None = None, all_tables: bool = False, all_rivals: bool = False
) -> Profile:
    """Everything a member's page shows, in seven queries: the totals, the head-to-head
    (the ``RIVALS_SHOWN`` with the most tables per game, or all), the rating history, the
    seasons, the seats the result chart draws, the latest tables and their count."""
    totals = member_totals(member)
    ratings = rating_series(member)
    seasons = seasons_listed()
    chosen = chosen_season(seasons, season)
    played = [game for game, _label in Table.GAMES if game in totals]
    charted = charted_seats(member, chosen) if played else []
    labels = dict(Table.GAMES)
    period = chosen.name if chosen is not None else _("all time")
    result_charts = []
    for game in played:
        title = _("%(game)s: cumulative result, %(period)s") % {
            "game": labels[game],
            "period": period,
        }
        points = result_series(charted, game, chosen)
        svg = line_chart(
            [(str(labels[game]), points)],
            title=title,
            y_label=unit(game),
            empty_text=_("No games in this season"),
        )
        result_charts.append(Chart(game, title, svg))
    rating_charts = []
    for game in played:
        title = _("%(game)s: rating after each table") % {"game": labels[game]}
        svg = line_chart(
            [(str(labels[game]), ratings.get(game, []))], title=title, y_label=_("rating")
        )
        rating_charts.append(Chart(game, title, svg))
    lines = history(member_seats(member, latest=None if all_tables else HISTORY_SHOWN))
    count = len(lines) if all_tables or len(lines) < HISTORY_SHOWN else tables_of(member)
    shown_rivals = rivals(member, per_game=None if all_rivals else RIVALS_SHOWN)
    return Profile(
        lines=lines,
        table_count=count,
        summaries=summaries(totals, {g: points[-1][1] for g, points in ratings.items()}),
        preferans=preferans_stats(totals),
        boston=boston_stats(totals),
        rivals=shown_rivals,
        rivals_cut=rivals_cut(shown_rivals),
        seasons=seasons,
        season=chosen,
        result_charts=result_charts,
        rating_charts=rating_charts,
    )
