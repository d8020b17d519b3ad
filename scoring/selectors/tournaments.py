"""Tournament reads: the field, the tours with their tables and seats, each closed tour's
scores as the engine's ``TourScore`` and the standings the engine ranks from them
(``scoring/engine/tournament/standings.py``). The scores are stored when a tour closes
(``services.tournaments.tour_close``), so the standings are ranked from a few rows, never
by replaying the tables.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations

from django.db.models import Prefetch, QuerySet

from scoring.engine.errors import RuleError
from scoring.engine.tournament.points import TourScore
from scoring.engine.tournament.standings import CutTie, Line, cut_tie, rank, with_decision
from scoring.models import Entry, Penalty, Tour, Tournament, TourSeat, TourTable
from scoring.models.tournaments import entry_key, text_from_json

Pair = frozenset[str]


def entries(tournament: Tournament) -> list[Entry]:
    """The field, with each player's member or guest (one query)."""
    return list(tournament.entries.select_related("member", "guest").order_by("id"))


def tours(tournament: Tournament) -> list[Tour]:
    """The tours, each with its tables (their ordinary table) and its seats with their
    entries' players (four queries however many tours)."""
    seats = TourSeat.objects.select_related("entry__member", "entry__guest").order_by(
        "table__number", "position", "id"
    )
    tables = TourTable.objects.select_related("table").order_by("number")
    return list(
        tournament.tour_set.order_by("number").prefetch_related(
            Prefetch("tables", queryset=tables), Prefetch("seats", queryset=seats)
        )
    )


def penalties(tournament: Tournament) -> QuerySet[Penalty]:
    return tournament.penalties.select_related(
        "entry__member", "entry__guest", "by", "reversed_by", "tour"
    ).order_by("at", "id")


def scores(tour: Tour) -> dict[str, TourScore]:
    """A closed tour's stored scores by entry key (``e<id>``), as the engine made them."""
    seats = list(tour.seats.all())
    at_table: dict[int | None, list[str]] = defaultdict(list)
    for seat in seats:
        at_table[seat.table_id].append(seat.entry.key)
    found = {}
    for seat in seats:
        if seat.points is None:
            continue
        key = seat.entry.key
        others = (
            () if seat.table_id is None else tuple(k for k in at_table[seat.table_id] if k != key)
        )
        found[key] = TourScore(
            player=key,
            result=seat.result or Decimal(0),
            place=seat.place or 0,
            points=seat.points,
            explanation=text_from_json(seat.calc),
            opponents=others,
        )
    return found


def met(tours_played: list[Tour]) -> dict[Pair, int]:
    """How many times each pair of entries sat at one table in ``tours_played``."""
    counts: Counter[Pair] = Counter()
    for tour in tours_played:
        tables: dict[int, list[str]] = defaultdict(list)
        for seat in tour.seats.all():
            if seat.table_id is not None:
                tables[seat.table_id].append(seat.entry.key)
        for keys in tables.values():
            counts.update(frozenset(pair) for pair in combinations(keys, 2))
    return dict(counts)


def byes(tours_played: list[Tour]) -> dict[str, int]:
    """How many byes each entry has had."""
    return dict(Counter(s.entry.key for t in tours_played for s in t.seats.all() if s.is_bye))


@dataclass(frozen=True)
class Standings:
    """The standings after the closed tours: the engine's lines, the entries by key, the
    closed tours' numbers (the lines' ``tours`` columns) and the penalties in force.

    Standings after the cut's tour also say whether a tie straddles the cut's line
    (``tie``, found in ``at_cut``, the lines as ranked) and the judges' decision in force
    (``decision``: a ``Penalty.CUT`` row per player let go on); ``lines`` then have the
    decision written in (``with_decision``) when it fits the tie."""

    lines: list[Line]
    entries: Mapping[str, Entry]
    tours: tuple[int, ...]
    at_cut: list[Line] | None = None
    tie: CutTie | None = None
    decision: tuple[Penalty, ...] = ()


def standings(
    tournament: Tournament,
    *,
    field: list[Entry] | None = None,
    played: list[Tour] | None = None,
    given: list[Penalty] | None = None,
    upto: int | None = None,
) -> Standings:
    """The standings after the closed tours (``upto``: after that tour only), with the
    penalties in force given by then (a penalty of a tour counts from that tour; one
    without a tour from when it was given). The field, tours and penalties may be passed
    in when the page has read them already."""
    field = entries(tournament) if field is None else field
    played = tours(tournament) if played is None else played
    closed = [t for t in played if t.is_closed and (upto is None or t.number <= upto)]
    given = list(penalties(tournament)) if given is None else given
    last = closed[-1] if closed else None
    by_key = {e.key: e for e in field}
    points: dict[str, Decimal] = defaultdict(Decimal)
    cards: dict[str, int] = defaultdict(int)
    decision: list[Penalty] = []
    for penalty in given:
        if not penalty.in_force or not _given_by(penalty, last, upto):
            continue
        key = entry_key(penalty.entry_id)
        points[key] -= penalty.points
        if penalty.category == Penalty.YELLOW:
            cards[key] += 1
        elif penalty.category == Penalty.DISQUALIFICATION:
            cards[key] += tournament.cards_to_disqualify
        elif penalty.category == Penalty.CUT:
            decision.append(penalty)
    lines = rank(
        [scores(t) for t in closed],
        best_of=tournament.best_of,
        penalties=dict(points),
        yellow_below=tournament.yellow_below,
        cards=dict(cards),
        disqualify_at=tournament.cards_to_disqualify,
        players=[e.key for e in field if e.checked_in],
    )
    numbers = tuple(t.number for t in closed)
    keep = tournament.cut_to
    if last is None or keep is None or last.number != tournament.cut_after:
        return Standings(lines=lines, entries=by_key, tours=numbers)
    at_cut, tie = lines, cut_tie(lines, keep)
    if decision:
        keys = [entry_key(p.entry_id) for p in decision]
        # A decision that no longer fits the tie (a table corrected since) leaves the lines
        # as ranked: seating the next tour refuses it in words.
        with suppress(RuleError):
            lines = with_decision(lines, keep, keys, decision[0].reason)
    return Standings(
        lines=lines,
        entries=by_key,
        tours=numbers,
        at_cut=at_cut,
        tie=tie,
        decision=tuple(decision),
    )


def _given_by(penalty: Penalty, last: Tour | None, upto: int | None) -> bool:
    """Whether ``penalty`` counts in the standings after ``last`` (``upto`` that tour)."""
    if upto is None:
        return True
    if penalty.tour is not None:
        return penalty.tour.number <= upto
    return last is not None and last.closed_at is not None and penalty.at <= last.closed_at
