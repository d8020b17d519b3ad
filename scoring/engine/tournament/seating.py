"""A tour's seating: who sits at which table in each tour of a tournament.

Players are keys (strings). The tables' sizes come from ``draw.table_sizes`` (Preferans 3
and 4 mixed as the preference allows, Boston 4). Modes (``formats.SEATING_MODES``):

* ``random`` — reproducible from the seed: the evening's draw (``draw.draw``), which also
  keeps pairs that have already met (``met``) apart as far as it can;
* ``swiss`` — by ``ranking`` (best first): leaders together, table 1 the best players,
  then the next; a player is moved to a neighbouring table only to avoid seating
  opponents who have already met (a repeat costs more than any move);
* ``interval`` — over the ranking with a step: step 1 seats 1-2-3-4, 5-6-7-8; step 2 seats
  1-3-5-7 and 2-4-6-8 (each block of ``step`` tables takes the next players in turn);
* ``schedule`` — the tour's seating from a ``Schedule`` published before the event
  (``schedule``), built so that no pair meets twice while that is possible.

**Byes.** When the field cannot be seated (Preferans: 5 players; Boston: a field not a
multiple of 4) the fewest players sit out the tour: the lowest-ranked among those with the
fewest byes so far (``bye_counts``); with no ranking (tour 1) the seed's random order
decides. A bye scores ``Format.bye_points``. A field too small for one table is refused
by ``precheck``.

Tables come out numbered (their order in ``Seating.tables``): Swiss and interval tables in
ranking order (table 1 the leaders), random ones in the draw's order; each table lists its
players in seat order (the first deals first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Pair = frozenset[str]


@dataclass(frozen=True)
class Seating:
    """One tour's seating: the tables (players in seat order), the players on a bye and
    the seed it was drawn from."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...]
    seed: int


@dataclass(frozen=True)
class Schedule:
    """A seating for every tour, published in advance. ``repeats``: the pairs meeting
    again, counted once per extra meeting (0 when no pair meets twice)."""

    tours: tuple[Seating, ...]
    seed: int
    repeats: int


def precheck(
    players: int, *, game: str = "preferans", prefer: int = 4, tours: int = 1, mode: str = "random"
) -> None:
    """Refuse, in words (``RuleError``), a field that cannot play: fewer players than one
    table, an unknown game, table size or mode, no tours."""
    raise NotImplementedError


def seat_tour(
    players: Sequence[str],
    *,
    mode: str,
    seed: int,
    tour: int = 1,
    ranking: Sequence[str] = (),
    met: Mapping[Pair, int] | None = None,
    schedule: Schedule | None = None,
    prefer: int = 4,
    game: str = "preferans",
    interval: int = 2,
    bye_counts: Mapping[str, int] | None = None,
) -> Seating:
    """Seat ``players`` for ``tour`` (1-based) by ``mode`` (module docstring).

    ``ranking``: the current standings, best first (players missing from it come after,
    in the given order); ``met``: for each pair, how many times the two have sat at one
    table in this tournament; ``schedule``: for ``mode="schedule"`` (its tour ``tour``;
    ``RuleError`` when the field differs from the schedule's); ``interval``: the step for
    ``mode="interval"``; ``bye_counts``: byes each player has had. The same arguments give
    the same seating.
    """
    raise NotImplementedError


def schedule(
    players: Sequence[str],
    tours: int,
    *,
    seed: int,
    prefer: int = 4,
    game: str = "preferans",
) -> Schedule:
    """A seating for each of ``tours`` tours, reproducible from ``seed``, with as few
    repeat meetings as the search finds (none while that is possible); byes rotate by the
    rule in the module docstring."""
    raise NotImplementedError


def meetings(seatings: Sequence[Seating]) -> dict[Pair, int]:
    """How many times each pair sat at one table over ``seatings`` (``met`` for the next
    tour)."""
    raise NotImplementedError
