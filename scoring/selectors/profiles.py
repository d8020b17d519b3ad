"""A member's profile: history, statistics, head-to-head and charts.

Everything is read from what was stored on each seat when its table finished (result,
money, place, per-seat counts in ``Seat.stats``) and from the rating history, so a profile
never replays a deal, and it costs the same few queries whatever the member's history:
their seats, the head-to-head aggregate, the seasons and the rating history.

A regular's page lists hundreds of tables and rivals, so the big reads skip model instances
(``values_list``), and those two lists are written out here as HTML rows rather than in a
template loop: Django's template engine spends about a microsecond per node, and a row with
a link and a dozen values cost ~100 µs (most of the page's time, at 500 rows).
"""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from html import escape
from typing import Any
from urllib.parse import quote

from django.db.models import Count, F, Q, Sum
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from members.models import name_fields, shown_name_of
from scoring import games
from scoring.charts import line_chart
from scoring.engine.boston.rules import BOSTON_ROWS, MISERE_ROWS, TRICK_ROWS
from scoring.engine.preferans.rules import LEVELS
from scoring.games import CENT
from scoring.models import RatingHistory, Season, Seat, Table

BOSTON_KINDS: dict[str, Any] = {
    "ask-supported": gettext_lazy("Ask, supported (8 together)"),
    "ask-unsupported": gettext_lazy("Ask, alone (5)"),
    "independence": gettext_lazy("Independence"),
    **{f"card-{row}": row for row in TRICK_ROWS},
    "card-slam-by-two": gettext_lazy("Slam by two"),
    "card-small-misere": gettext_lazy("Small misère"),
    "card-piccolissimo": gettext_lazy("Piccolissimo"),
    "card-grand-misere": gettext_lazy("Grand misère"),
    "card-four-tour-misere": gettext_lazy("Four-tour misère"),
    "card-small-open-misere": gettext_lazy("Small open misère"),
    "card-grand-open-misere": gettext_lazy("Grand open misère"),
    "card-boston": gettext_lazy("Boston"),
    "card-open-boston": gettext_lazy("Open Boston"),
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


URL_MARKER = "4815162342"  # digits: a value every one-argument path converter accepts


def url_maker(viewname: str) -> Callable[[object], str]:
    """``reverse(viewname, args=[value])`` for many values: the URL is reversed once around
    a marker, which each value's quoted text then replaces. A ``reverse`` costs ~20 µs (it
    matches the pattern again every time), which adds up over hundreds of links. For URLs
    with one argument that its converter writes as plain text (``str``, ``int``)."""
    head, marker, tail = reverse(viewname, args=[URL_MARKER]).partition(URL_MARKER)
    assert marker, viewname  # noqa: S101 - the URL must show its argument
    # What reverse() keeps unquoted (RFC 3986 pchar), except that "/" never occurs in one.
    safe = RFC3986_SUBDELIMS + "~:@"
    return lambda value: f"{head}{quote(str(value), safe=safe)}{tail}"


# -- history ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemberSeat:
    """A member's seat as a profile reads it: what was stored when its table finished,
    and the few columns of the table and its tariff that the page shows."""

    table_id: int
    game: str
    status: str
    played_on: datetime.date
    tariff: str
    result: Decimal | None  # whists (Preferans) or chips (Boston); None while in play
    money: Decimal | None
    won: bool
    stats: dict[str, Any] | None

    @property
    def is_open(self) -> bool:
        return self.status == Table.OPEN


def member_seats(member: Any) -> list[MemberSeat]:
    """Every seat the member took, newest table first, with its table's game, status, date
    and tariff name (one query, plain rows: model instances for a seat, its table, tariff
    version and tariff took several times as long as the query itself)."""
    rows = (
        Seat.objects.filter(member=member)
        .order_by("-table__played_on", "-table__id")
        .values_list(
            "table_id",
            "table__game",
            "table__status",
            "table__played_on",
            # The table's tariff version is of its game; the others are empty.
            Coalesce(*(f"table__{g.version_field}__tariff__name" for g in games.GAMES.values())),
            "result",
            "money",
            "won",
            "stats",
        )
    )
    return [MemberSeat(*row) for row in rows]


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

    @property
    def unit(self) -> str:
        return unit(self.game)

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
            )
        )
    return lines


def history_rows(lines: Iterable[HistoryLine]) -> SafeString:
    """The member's tables as the ``<tr>`` rows of the page's table list (every text
    escaped, as a template would, but for figures)."""
    sheet_url = url_maker("scoring:table_detail")
    date_text = date_texts("SHORT_DATE_FORMAT")
    sheet, in_play = escape(_("Sheet")), escape(_("in play"))
    labels = {game: escape(str(label)) for game, label in Table.GAMES}
    units = {game: escape(unit(game)) for game, _label in Table.GAMES}
    rows = []
    for line in lines:
        if line.is_open:
            outcome = f'<td colspan="2" class="in-play">{in_play}</td>'
        else:
            # Figures (digits, a sign and a point) need no escaping.
            outcome = (
                f'<td class="amount {line.sign}">{line.result or "—"} {units[line.game]}</td>'
                f'<td class="amount {line.sign}">{line.money or "—"}</td>'
            )
        rows.append(
            f'<tr><td class="col-name">{escape(date_text(line.played_on))}</td>'
            f'<td class="col-name">{labels[line.game]}</td>'
            f'<td class="col-name">{escape(line.tariff)}</td>'
            f"{outcome}"
            f'<td><a href="{escape(sheet_url(line.table_id))}">{sheet} #{line.table_id}</a>'
            "</td></tr>\n"
        )
    return mark_safe("".join(rows))  # noqa: S308 - nothing unescaped but figures


def finished(seats: Iterable[MemberSeat], game: str | None = None) -> list[MemberSeat]:
    """The seats of finished tables (of ``game``) that carry a stored result."""
    return [s for s in seats if not s.is_open and s.result is not None and game in (None, s.game)]


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


def summaries(seats: Sequence[MemberSeat], ratings: dict[str, float]) -> list[GameSummary]:
    lines = []
    for game, _label in Table.GAMES:
        played = finished(seats, game)
        if not played:
            continue
        results = [s.result for s in played if s.result is not None]
        lines.append(
            GameSummary(
                game=game,
                tables=len(played),
                wins=sum(s.won for s in played),
                total=sum(results, Decimal(0)),
                money=sum((s.money or Decimal(0) for s in played), Decimal(0)),
                best=max(results),
                worst=min(results),
                rating=ratings.get(game),
            )
        )
    return lines


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
    def passout_average(self) -> Decimal | None:
        """Tricks taken per pass-out deal played."""
        if not self.passouts:
            return None
        return (Decimal(self.passout_tricks) / self.passouts).quantize(CENT)


@dataclass(frozen=True)
class BostonStats:
    tables: int
    kinds: tuple[Tally, ...]  # only the contracts declared at least once


def _counts(seats: Iterable[MemberSeat]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for seat in seats:
        counts.update({k: v for k, v in (seat.stats or {}).items() if isinstance(v, int)})
    return counts


def preferans_stats(seats: Sequence[MemberSeat]) -> PreferansStats | None:
    played = finished(seats, games.PREFERANS.code)
    if not played:
        return None
    c = _counts(played)
    return PreferansStats(
        tables=len(played),
        levels=tuple(
            Tally(str(level), c[f"declared_{level}"], c[f"made_{level}"]) for level in LEVELS
        ),
        misere=Tally(_("misère"), c["misere_declared"], c["misere_made"]),
        conceded=sum(c[f"conceded_{level}"] for level in LEVELS),
        passouts=c["passouts"],
        passout_tricks=c["passout_tricks"],
        whists_written=c["whists_written"],
        whists_received=c["whists_received"],
        help_given=c["help_given"],
        help_received=c["help_received"],
    )


def boston_stats(seats: Sequence[MemberSeat]) -> BostonStats | None:
    played = finished(seats, games.BOSTON.code)
    if not played:
        return None
    c = _counts(played)
    known = [k for k in BOSTON_KINDS if c[f"declared_{k}"]]
    # A kind a later rule book adds still shows, after the known ones.
    other = sorted(
        k.removeprefix("declared_")
        for k in c
        if k.startswith("declared_") and k.removeprefix("declared_") not in BOSTON_KINDS
    )
    return BostonStats(
        tables=len(played),
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

    @property
    def unit(self) -> str:
        return unit(self.game)

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


def rivals(member: Any) -> list[Rival]:
    """Head-to-head against every member met at a finished table, per game, in one
    aggregate query: the other seats of the member's tables, each joined to the member's
    own seat at the same table (the join the filter made, reused by the sums)."""
    rows = (
        Seat.objects.members_only()  # a guest met at a table is nobody's rival
        .filter(table__status=Table.FINISHED, table__seats__member=member)
        .exclude(member=member)
        .values("member_id", *name_fields("member__"), "table__game")
        .annotate(
            tables=Count("id"),
            theirs=Sum("result"),
            mine=Sum("table__seats__result"),
            above=Count("id", filter=Q(table__seats__place__lt=F("place"))),
        )
        .order_by("table__game", "-tables", "member__display_name", "member__username")
    )
    return [
        Rival(
            username=row["member__username"],
            name=shown_name_of(row, "member__"),
            game=row["table__game"],
            tables=row["tables"],
            mine=row["mine"] or Decimal(0),
            theirs=row["theirs"] or Decimal(0),
            above=row["above"],
        )
        for row in rows
    ]


def rival_rows(rivals: Iterable[Rival]) -> SafeString:
    """The head-to-head as the ``<tr>`` rows of its table (every text escaped, as a template
    would, but for figures: digits, a sign and a point)."""
    member_url = url_maker("members:detail")
    labels = {code: escape(str(game.label)) for code, game in games.GAMES.items()}
    units = {game: escape(unit(game)) for game, _label in Table.GAMES}
    rows = []
    for rival in rivals:
        shown = units[rival.game]
        rows.append(
            f'<tr><th scope="row" class="col-name"><a href="{escape(member_url(rival.username))}">'
            f"{escape(rival.name)}</a></th>"
            f"<td>{labels[rival.game]}</td>"
            f"<td>{rival.tables}</td>"
            f'<td class="amount {rival.sign}">{rival.mine_shown} {shown}</td>'
            f'<td class="amount">{rival.theirs_shown} {shown}</td>'
            f"<td>{rival.above} ({rival.above_percent}%)</td></tr>\n"
        )
    return mark_safe("".join(rows))  # noqa: S308 - nothing unescaped but figures


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
    rows = (
        RatingHistory.objects.filter(member=member)
        .order_by("game", "played_on", "table_id")
        .values_list("game", "played_on", "ordinal")
    )
    day = date_texts(CHART_DAY)
    for game, played_on, ordinal in rows:
        series[game].append((day(played_on), round(ordinal, 2)))
    return dict(series)


@dataclass(frozen=True)
class Chart:
    game: str
    title: str
    svg: SafeString


@dataclass(frozen=True)
class Profile:
    lines: list[HistoryLine]
    summaries: list[GameSummary]
    preferans: PreferansStats | None
    boston: BostonStats | None
    rivals: list[Rival]
    history_rows: SafeString
    rival_rows: SafeString
    seasons: list[Season]
    season: Season | None
    result_charts: list[Chart]
    rating_charts: list[Chart]


def profile(member: Any, *, season: str | None = None) -> Profile:
    """Everything a member's page shows, in four queries."""
    seats = member_seats(member)
    ratings = rating_series(member)
    seasons = list(Season.objects.all())
    chosen = chosen_season(seasons, season)
    played = [game for game, _label in Table.GAMES if finished(seats, game)]
    labels = dict(Table.GAMES)
    period = chosen.name if chosen is not None else _("all time")
    result_charts = []
    for game in played:
        title = _("%(game)s: cumulative result, %(period)s") % {
            "game": labels[game],
            "period": period,
        }
        points = result_series(seats, game, chosen)
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
    lines = history(seats)
    met = rivals(member)
    return Profile(
        lines=lines,
        summaries=summaries(seats, {g: points[-1][1] for g, points in ratings.items()}),
        preferans=preferans_stats(seats),
        boston=boston_stats(seats),
        rivals=met,
        history_rows=history_rows(lines),
        rival_rows=rival_rows(met),
        seasons=seasons,
        season=chosen,
        result_charts=result_charts,
        rating_charts=rating_charts,
    )
