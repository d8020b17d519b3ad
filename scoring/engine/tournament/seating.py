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

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from scoring.engine.draw import DrawRequest, draw, table_sizes
from scoring.engine.errors import N_, RuleError
from scoring.engine.tournament.formats import SEATING_MODES

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


SEARCH_STEPS_PER_PLAYER = 150
"""Annealing steps per seated player for a Swiss tour: enough for 12–32 players to reach
no repeat whenever the tests know one exists, cheap enough for one tap."""

SCHEDULE_ATTEMPTS = 4
"""Schedules built from different seeds (derived from the one given); the one with the
fewest repeats is kept (the first with none ends the search)."""


def precheck(
    players: int, *, game: str = "preferans", prefer: int = 4, tours: int = 1, mode: str = "random"
) -> None:
    """Refuse, in words (``RuleError``), a field that cannot play: fewer players than one
    table, an unknown game, table size or mode, no tours."""
    if game not in ("preferans", "boston"):
        raise RuleError(N_("unknown game %(game)s"), field="game", game=game)
    if game == "preferans" and prefer not in (3, 4):
        raise RuleError(N_("a Preferans table has 3 or 4 players"), field="table_size")
    if mode not in SEATING_MODES:
        raise RuleError(
            N_("unknown seating mode %(mode)s; use: %(modes)s"),
            field="seating",
            mode=mode,
            modes=", ".join(SEATING_MODES),
        )
    if tours < 1:
        raise RuleError(N_("a tournament has at least one tour"), field="tours")
    smallest = 4 if game == "boston" else 3
    if players < smallest:
        raise RuleError(
            N_("%(count)s players cannot make a table: a table needs %(smallest)s"),
            field="players",
            count=players,
            smallest=smallest,
        )


def _layout(players: int, *, game: str, prefer: int) -> tuple[tuple[int, ...], int]:
    """The tables' sizes and the number of byes: as few byes as the field allows."""
    precheck(players, game=game, prefer=prefer)
    byes = players % 4 if game == "boston" else (1 if players == 5 else 0)
    return table_sizes(players - byes, game=game, prefer=prefer), byes


def _ranked(players: Sequence[str], ranking: Sequence[str]) -> list[str]:
    """``players`` in ranking order, those the ranking misses after, in the given order."""
    present = set(players)
    ranked = [p for p in dict.fromkeys(ranking) if p in present]
    listed = set(ranked)
    return ranked + [p for p in players if p not in listed]


def _pick_byes(order: list[str], count: int, bye_counts: Mapping[str, int]) -> list[str]:
    """The ``count`` lowest in ``order`` among those with the fewest byes so far."""
    position = {p: i for i, p in enumerate(order)}
    return sorted(order, key=lambda p: (bye_counts.get(p, 0), -position[p]))[:count]


def _cost(tables: Sequence[Sequence[str]], met: Mapping[Pair, int]) -> int:
    return sum(met.get(frozenset(pair), 0) for table in tables for pair in combinations(table, 2))


def _swiss(
    order: list[str], sizes: tuple[int, ...], met: Mapping[Pair, int], rng: random.Random
) -> list[list[str]]:
    """Leaders together, a repeat meeting avoided by moving players between tables: the
    search minimises ``weight × repeats + displacement`` (how many tables each player is
    moved from his block), so any repeat costs more than every move together."""
    ideal: dict[str, int] = {}
    tables: list[list[str]] = []
    start = 0
    for index, size in enumerate(sizes):
        block = order[start : start + size]
        tables.append(block)
        ideal.update(dict.fromkeys(block, index))
        start += size
    if len(tables) < 2 or _cost(tables, met) == 0:
        return tables
    weight = len(order) * len(tables) + 1

    def player_cost(player: str, index: int, table: list[str]) -> int:
        repeats = sum(met.get(frozenset((player, o)), 0) for o in table if o != player)
        return weight * repeats + abs(index - ideal[player])

    def cost(layout: list[list[str]]) -> int:
        return weight * _cost(layout, met) + sum(
            abs(i - ideal[p]) for i, table in enumerate(layout) for p in table
        )

    current = cost(tables)
    best, best_cost = [t[:] for t in tables], current
    steps = SEARCH_STEPS_PER_PLAYER * len(order)
    for step in range(steps):
        temperature = weight * (0.0005 ** (step / steps))
        a, b = rng.sample(range(len(tables)), 2)
        i, j = rng.randrange(len(tables[a])), rng.randrange(len(tables[b]))
        x, y = tables[a][i], tables[b][j]
        before = player_cost(x, a, tables[a]) + player_cost(y, b, tables[b])
        tables[a][i], tables[b][j] = y, x
        after = player_cost(y, a, tables[a]) + player_cost(x, b, tables[b])
        delta = after - before
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            current += delta
            if current < best_cost:
                best, best_cost = [t[:] for t in tables], current
        else:
            tables[a][i], tables[b][j] = x, y
    return best


def _interval(order: list[str], sizes: tuple[int, ...], step: int) -> list[list[str]]:
    """Blocks of ``step`` tables, each taking the next players of the ranking in turn."""
    tables: list[list[str]] = [[] for _ in sizes]
    start = 0
    for first in range(0, len(sizes), step):
        block = list(range(first, min(first + step, len(sizes))))
        count = sum(sizes[t] for t in block)
        turn = 0
        for player in order[start : start + count]:
            while len(tables[block[turn % len(block)]]) >= sizes[block[turn % len(block)]]:
                turn += 1
            tables[block[turn % len(block)]].append(player)
            turn += 1
        start += count
    return tables


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
    the same seating; each table's seat order (who deals first) is drawn from the seed.
    """
    if len(set(players)) != len(players):
        raise RuleError(N_("each player can take one seat only"), field="players")
    precheck(len(players), game=game, prefer=prefer, mode=mode)
    met = met or {}
    if mode == "schedule":
        return _scheduled(players, schedule, tour)
    sizes, bye_count = _layout(len(players), game=game, prefer=prefer)
    rng = random.Random(seed)  # noqa: S311 - a reproducible seating, not a secret
    order = _ranked(players, ranking)
    if mode == "random" and not ranking:
        rng.shuffle(order)
    byes = _pick_byes(order, bye_count, bye_counts or {})
    seated = [p for p in order if p not in byes]
    if mode == "random" and not any(count and pair <= set(seated) for pair, count in met.items()):
        # No one has met yet (tour 1): any split is as good, no search needed.
        rng.shuffle(seated)
        tables = [seated[sum(sizes[:i]) : sum(sizes[: i + 1])] for i in range(len(sizes))]
    elif mode == "random":
        drawn = draw(DrawRequest(tuple(seated), sizes, rng.randrange(2**31), meetings=met))
        tables = [
            list(t.players[t.first_dealer :] + t.players[: t.first_dealer]) for t in drawn.tables
        ]
    elif mode == "swiss":
        tables = _swiss(seated, sizes, met, rng)
        for table in tables:
            rng.shuffle(table)
    else:
        if interval < 1:
            raise RuleError(N_("the interval is at least 1"), field="interval")
        tables = _interval(seated, sizes, interval)
        for table in tables:
            rng.shuffle(table)
    return Seating(tuple(tuple(t) for t in tables), tuple(byes), seed)


def _scheduled(players: Sequence[str], plan: Schedule | None, tour: int) -> Seating:
    if plan is None:
        raise RuleError(N_("no schedule has been published"), field="seating")
    if not 1 <= tour <= len(plan.tours):
        raise RuleError(
            N_("the schedule has %(tours)s tours, not tour %(tour)s"),
            field="seating",
            tours=len(plan.tours),
            tour=tour,
        )
    seating = plan.tours[tour - 1]
    planned = {p for t in seating.tables for p in t} | set(seating.byes)
    if planned != set(players):
        raise RuleError(
            N_("the field is not the schedule's: %(missing)s; seat this tour another way"),
            field="players",
            missing=", ".join(sorted(planned ^ set(players))),
        )
    return seating


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
    rule in the module docstring (the seed's order standing in for a ranking). Each tour
    is the evening's draw given the meetings of the tours before it; ``SCHEDULE_ATTEMPTS``
    such schedules are tried and the one with the fewest repeats kept."""
    if len(set(players)) != len(players):
        raise RuleError(N_("each player can take one seat only"), field="players")
    precheck(len(players), game=game, prefer=prefer, tours=tours, mode="schedule")
    rng = random.Random(seed)  # noqa: S311 - a reproducible schedule, not a secret
    attempts: list[Schedule] = []
    for _ in range(SCHEDULE_ATTEMPTS):
        attempts.append(_attempt(players, tours, seed, rng, prefer=prefer, game=game))
        if attempts[-1].repeats == 0:
            break
    return min(attempts, key=lambda plan: plan.repeats)


def _attempt(
    players: Sequence[str], tours: int, seed: int, rng: random.Random, *, prefer: int, game: str
) -> Schedule:
    """One schedule: each tour drawn given the meetings of the tours before it."""
    order = list(players)
    rng.shuffle(order)
    met: dict[Pair, int] = {}
    bye_counts: dict[str, int] = {}
    seatings = []
    for number in range(1, tours + 1):
        drawn = seat_tour(
            order,
            mode="random",
            seed=rng.randrange(2**31),
            tour=number,
            ranking=order,
            met=met,
            prefer=prefer,
            game=game,
            bye_counts=bye_counts,
        )
        seating = Seating(drawn.tables, drawn.byes, seed)
        seatings.append(seating)
        for pair, count in meetings([seating]).items():
            met[pair] = met.get(pair, 0) + count
        for player in seating.byes:
            bye_counts[player] = bye_counts.get(player, 0) + 1
    return Schedule(tuple(seatings), seed, sum(count - 1 for count in met.values()))


def meetings(seatings: Sequence[Seating]) -> dict[Pair, int]:
    """How many times each pair sat at one table over ``seatings`` (``met`` for the next
    tour)."""
    met: dict[Pair, int] = {}
    for seating in seatings:
        for table in seating.tables:
            for pair in combinations(table, 2):
                key = frozenset(pair)
                met[key] = met.get(key, 0) + 1
    return met
