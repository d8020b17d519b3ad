"""What a league season's board shows: each member's points, the nights counted of those
he played, his average place and total result, and the breakdown that explains every
number (night, table, result, place, points, and the rule's words for them); the rule
in words; the CSV's columns and rows. Writes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.urls import reverse
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring import selectors
from scoring.engine.league import LeagueLine
from scoring.models import Season
from scoring.pages.labels import engine_text
from scoring.pages.profiles import figure


@dataclass(frozen=True)
class LeagueRow:
    """One table of a member's breakdown; numbers as machine text (points)."""

    night: str
    table: int
    url: str
    result: str
    place: int
    points: str | None
    counted: bool
    explanation: str


@dataclass(frozen=True)
class LeagueBoardLine:
    """One member's league line; numbers as machine text, shown by the ``number`` filter."""

    rank: int | None
    username: str | None
    name: str
    points: str | None
    counted: int
    nights: int
    tables: int
    result: str
    average_place: str
    tie_break: str
    rows: list[LeagueRow]

    def cells(self) -> list[str]:
        return [
            "" if self.rank is None else str(self.rank),
            self.name,
            self.points or "",
            str(self.counted),
            str(self.nights),
            str(self.tables),
            self.result,
            self.average_place,
        ]


def csv_header() -> list[str]:
    return [
        _("Rank"),
        _("Member"),
        _("Points"),
        _("Nights counted"),
        _("Nights played"),
        _("Tables"),
        _("Result"),
        _("Average place"),
    ]


def _plain(value: Decimal) -> str:
    """A number as machine text without trailing zeros (2.50 → 2.5, 4.00 → 4)."""
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1)))
    return str(value.normalize())


def _night_words(night: selectors.leagues.Night) -> str:
    day = formats.date_format(night.played_on, "j E Y")
    return f"{night.tournament}, {day}" if night.tournament else day


def league_lines(
    game: str, league: selectors.League, usernames: dict[int, str]
) -> tuple[list[LeagueBoardLine], list[LeagueBoardLine]]:
    """The ranked lines and those below the minimum, with their breakdowns."""
    nights = [_night_words(n) for n in league.nights]

    def line(item: LeagueLine) -> LeagueBoardLine:
        counted = set(item.counted)
        rows = [
            LeagueRow(
                night=nights[s.night],
                table=int(s.table),
                url=reverse("scoring:table_detail", args=[int(s.table)]),
                result=figure(s.result, game) or "",
                place=s.place,
                points=None if s.points is None else _plain(s.points),
                counted=s.night in counted,
                explanation=engine_text(s.explanation),
            )
            for s in item.scores
        ]
        member = league.members[item.player]
        return LeagueBoardLine(
            rank=item.rank,
            username=usernames.get(member),
            name=league.names[item.player],
            points=None if item.points is None else _plain(item.points),
            counted=len(item.counted),
            nights=len(item.nights),
            tables=item.tables,
            result=figure(item.result_total, game) or "",
            average_place=str(item.average_place),
            tie_break=engine_text(item.tie_break) if item.tie_break else "",
            rows=rows,
        )

    return [line(i) for i in league.ranked], [line(i) for i in league.below]


def league_in_words(season: Season) -> str:
    """How the season ranks, as the rule book says it."""
    rule = season.league()
    points = rule.points
    number = formats.number_format
    if season.league_rule == Season.PLACES:
        words = _(
            "Ranked by place points at each table: %(places)s for the 1st, 2nd, 3rd … place."
        ) % {"places": ", ".join(number(p) for p in points.places)}
        if points.sole_positive is not None:
            words += " " + _("The 1st scores %(points)s when he alone is positive.") % {
                "points": number(points.sole_positive.normalize())
            }
        if points.second_negative is not None:
            words += " " + _("The 2nd scores %(points)s when his result is negative.") % {
                "points": number(points.second_negative.normalize())
            }
        words += " " + _("Equal results share their places' points.")
    elif season.league_rule == Season.BANDS:
        parts = []
        lower = Decimal(0)
        for band in points.bands:
            if band.upto is None:
                parts.append(
                    _("× %(share)s beyond %(lower)s")
                    % {"share": number(band.factor), "lower": number(lower)}
                )
            else:
                parts.append(
                    _("× %(share)s from %(lower)s to %(upper)s")
                    % {
                        "share": number(band.factor),
                        "lower": number(lower),
                        "upper": number(band.upto),
                    }
                )
                lower = band.upto
        words = _(
            "Ranked by the results counted in bands: %(bands)s; a loss is counted the same way."
        ) % {"bands": "; ".join(parts)}
    elif season.league_rule == Season.RAW:
        words = _("Ranked by the total result of the tables.")
    else:
        words = _("Ranked by the average place at the tables; a lower place comes first.")
    if rule.best_of is not None:
        words += " " + ngettext(
            "Only a member's best %(count)d night counts.",
            "Only a member's best %(count)d nights count.",
            rule.best_of,
        ) % {"count": rule.best_of}
    if season.league_rule == Season.AVERAGE_PLACE:
        words += " " + _("Equal averages: the larger total result ranks higher.")
    else:
        words += " " + _("Equal points: the larger total result ranks higher.")
    return words


def nights_in_words(season: Season) -> str:
    if season.league_nights == Season.TOURNAMENTS:
        return _("Each tournament of one tour played within the season's dates is a league night.")
    return _(
        "Each club evening is a league night: a member's tables that evening make his night. "
        "Guests play but are never ranked."
    )
