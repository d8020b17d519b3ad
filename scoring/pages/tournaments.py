"""What the tournament pages show: the field, each tour's tables with their players and
results, the standings after each tour with every number explained (the engine's words,
translated), the seating and table cards, the big screen and the standings CSV's rows.
Writes nothing; reads through ``scoring.selectors.tournaments``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import prefetch_related_objects
from django.utils import formats
from django.utils.translation import gettext as _

from scoring.engine.tournament.standings import Line
from scoring.models import Entry, Penalty, Table, Tour, Tournament, TourTable
from scoring.models.tournaments import text_from_json
from scoring.pages.confirmations import finality_text
from scoring.pages.labels import engine_text
from scoring.selectors import tournaments as selectors
from scoring.selectors.confirmations import CLOSED_TOUR, Finality, finalities


@dataclass(frozen=True)
class SeatLine:
    """A player at a tour's table: his name and, once the tour is closed, his result,
    place and points with the words that explain them."""

    name: str
    is_guest: bool
    result: Decimal | None
    place: int | None
    points: Decimal | None
    explanation: str


@dataclass(frozen=True)
class TableCard:
    """One table of a tour: its number, the ordinary table (its live sheet), its players."""

    number: int
    link: TourTable
    table: Table
    players: list[SeatLine]
    clock: Any = None  # the control time's moment, for a tour played to time
    finality: Finality | None = None  # once it finishes: provisional or final
    finality_text: str = ""


@dataclass(frozen=True)
class TourView:
    tour: Tour
    tables: list[TableCard]
    byes: list[SeatLine]

    @property
    def in_play(self) -> list[TableCard]:
        return [t for t in self.tables if t.table.is_open]


@dataclass(frozen=True)
class TourCell:
    """A player's tour in the standings: his points, whether they count (best N of M)
    and how they were counted."""

    points: Decimal | None
    counted: bool
    explanation: str


@dataclass(frozen=True)
class StandingLine:
    rank: int | None
    name: str
    entry: Entry
    total: Decimal
    result_total: Decimal
    penalty: Decimal
    cards: int
    disqualified: bool
    tie_break: str
    cells: list[TourCell]
    explanation: str


@dataclass(frozen=True)
class StandingsView:
    """The standings after ``after`` tours (``None``: none closed yet)."""

    after: int | None
    tours: tuple[int, ...]
    lines: list[StandingLine]


@dataclass(frozen=True)
class CutView:
    """A tie at the cut's line in the standings after the cut's tour: the tied players
    (in the standings' order), the places they share, how many of them go on, the
    judges' decision in force (a ``Penalty.CUT`` row per player let go on: empty until
    they decide) and whether it may still be made or reversed (``open``: the final is
    not seated yet)."""

    tied: list[Entry]
    first: int
    last: int
    free: int
    decision: tuple[Penalty, ...]
    open: bool

    @property
    def waiting(self) -> bool:
        """Seating the final waits for the judges."""
        return self.open and not self.decision


@dataclass
class TournamentPage:
    """Everything the tournament's page shows."""

    tournament: Tournament
    entries: list[Entry]
    tours: list[TourView]
    standings: StandingsView
    history: list[StandingsView] = field(default_factory=list)
    penalties: list[Penalty] = field(default_factory=list)
    cut: CutView | None = None

    @property
    def current(self) -> TourView | None:
        """The tour in play (seated, not closed)."""
        return next((t for t in self.tours if not t.tour.is_closed), None)

    @property
    def checked_in(self) -> int:
        return sum(e.checked_in for e in self.entries)


def _seat_line(seat: Any) -> SeatLine:
    return SeatLine(
        name=seat.entry.name,
        is_guest=seat.entry.guest_id is not None,
        result=seat.result,
        place=seat.place,
        points=seat.points,
        explanation=_explained(seat.calc) if seat.calc else "",
    )


def _explained(calc: Any) -> str:
    return engine_text(text_from_json(calc))


def _number(value: Decimal) -> str:
    """A figure in the page's language (a decimal comma in Russian), minus as «−»."""
    return str(formats.number_format(value)).replace("-", "−")


def tour_views(tours: list[Tour], tournament: Tournament | None = None) -> list[TourView]:
    """Each tour's tables with their players in seat order, and its byes; given the
    ``tournament``, each finished table's finality too (two queries more)."""
    finality = _finalities(tours, tournament) if tournament is not None else {}
    views = []
    for tour in tours:
        seats = list(tour.seats.all())
        cards = []
        for link in tour.tables.all():
            mine = sorted(
                (s for s in seats if s.table_id == link.pk), key=lambda s: s.position or 0
            )
            cards.append(
                TableCard(
                    number=link.number,
                    link=link,
                    table=link.table,
                    players=[_seat_line(s) for s in mine],
                    clock=link.table.control_moment(),
                    finality=finality.get(link.table_id),
                    finality_text=finality_text(finality.get(link.table_id)),
                )
            )
        byes = [_seat_line(s) for s in seats if s.table_id is None]
        views.append(TourView(tour=tour, tables=cards, byes=byes))
    return views


def _finalities(tours: list[Tour], tournament: Tournament) -> dict[int, Finality]:
    """Each finished table's finality: a closed tour's tables are final; the tour in
    play's are read (their seats and their confirmations: two queries)."""
    found = {
        link.table_id: CLOSED_TOUR for tour in tours if tour.is_closed for link in tour.tables.all()
    }
    tables = [
        link.table
        for tour in tours
        if not tour.is_closed
        for link in tour.tables.all()
        if not link.table.is_open
    ]
    if tables:
        prefetch_related_objects(tables, "seats")
        found |= finalities(tables, window=lambda _t: tournament.correction_minutes)
    return found


def _line(line: Line, standings: selectors.Standings) -> StandingLine:
    entry = standings.entries[line.player]
    cells = [
        TourCell(
            points=score.points if score is not None else None,
            counted=counted,
            explanation=engine_text(score.explanation) if score is not None else "",
        )
        for score, counted in zip(line.tours, line.counted, strict=True)
    ]
    counted_points = [c.points for c in cells if c.counted and c.points is not None]
    parts = " + ".join(_number(p) for p in counted_points) or "0"
    if line.penalty:
        explanation = _("%(tours)s (tours counted) − %(penalty)s (penalties) = %(total)s") % {
            "tours": parts,
            "penalty": _number(-line.penalty),
            "total": _number(line.total),
        }
    else:
        explanation = _("%(tours)s (tours counted) = %(total)s") % {
            "tours": parts,
            "total": _number(line.total),
        }
    return StandingLine(
        rank=line.rank,
        name=entry.name,
        entry=entry,
        total=line.total,
        result_total=line.result_total,
        penalty=line.penalty,
        cards=line.cards,
        disqualified=line.disqualified,
        tie_break=engine_text(line.tie_break) if line.tie_break else "",
        cells=cells,
        explanation=explanation,
    )


def standings_view(standings: selectors.Standings) -> StandingsView:
    return StandingsView(
        after=standings.tours[-1] if standings.tours else None,
        tours=standings.tours,
        lines=[_line(line, standings) for line in standings.lines],
    )


def tournament_page(tournament: Tournament, *, history: bool = True) -> TournamentPage:
    """The tournament's page: the field, the tours, the standings now and after each
    closed tour (``history``), the penalties. A fixed number of queries however many
    tours and players (the standings are ranked in Python from the stored scores)."""
    field_ = selectors.entries(tournament)
    tours = selectors.tours(tournament)
    given = list(selectors.penalties(tournament))
    now = selectors.standings(tournament, field=field_, played=tours, given=given)
    closed = [t.number for t in tours if t.is_closed]
    past = (
        [
            standings_view(
                selectors.standings(tournament, field=field_, played=tours, given=given, upto=n)
            )
            for n in closed[:-1]
        ]
        if history
        else []
    )
    return TournamentPage(
        tournament=tournament,
        entries=field_,
        tours=tour_views(tours, tournament),
        standings=standings_view(now),
        history=past,
        penalties=given,
        cut=_cut_view(tournament, now, len(tours)),
    )


def _cut_view(tournament: Tournament, now: selectors.Standings, seated: int) -> CutView | None:
    """The tie at the cut's line, when the standings now are the cut's and have one."""
    if now.tie is None:
        return None
    return CutView(
        tied=[now.entries[key] for key in now.tie.players],
        first=now.tie.first,
        last=now.tie.last,
        free=now.tie.free,
        decision=now.decision,
        open=tournament.is_running and seated == tournament.cut_after,
    )


CSV_COLUMNS = ("tour", "player", "table", "result", "place", "points", "total")
"""The standings CSV's columns, exactly (issue 32): one row per player and tour."""


def csv_rows(tournament: Tournament) -> Iterator[tuple[Any, ...]]:
    """The standings CSV's rows, tour by tour, each player's row with his table's number
    (as in ``/tables/N/``; empty for a bye), his result there, his place, the tour's
    points and his total after that tour."""
    field_ = selectors.entries(tournament)
    tours = selectors.tours(tournament)
    given = list(selectors.penalties(tournament))
    for tour in tours:
        if not tour.is_closed:
            continue
        after = selectors.standings(
            tournament, field=field_, played=tours, given=given, upto=tour.number
        )
        totals = {line.player: line.total for line in after.lines}
        links = {link.pk: link.table_id for link in tour.tables.all()}
        for seat in sorted(tour.seats.all(), key=lambda s: s.entry.name):
            yield (
                tour.number,
                seat.entry.name,
                links.get(seat.table_id, "") if seat.table_id else "",
                seat.result,
                seat.place,
                seat.points,
                totals.get(seat.entry.key, ""),
            )
