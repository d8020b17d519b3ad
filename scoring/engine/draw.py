"""The seating draw of a club evening: who sits at which table, and who deals first.

Pure Python (docs/evenings.md, "The draw"). Players are given by key (a member's or, later,
a guest's seat id as a string) so the draw never needs to know who they are. The draw:

* splits the players who do not sit out into tables of the sizes ``table_sizes`` gives;
* seats them so that the **repeat meetings** — for every pair at the same table, the number
  of times those two have already met at a table this season — add up to as little as the
  search finds (``repeats``), while keeping every "not together" pair apart;
* makes the first dealer at each table the player who has dealt first least often this
  season (ties broken by the draw's random order), and seats each table in random order.

The search is simulated annealing over swaps of two players at different tables, driven by
one ``random.Random(seed)``: the same request and seed give the same draw, and the seed is
shown so the organiser can say how it was drawn. Small evenings are checked against a
brute-force optimum in the tests.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from scoring.engine.errors import N_, RuleError

Pair = frozenset[str]

APART_WEIGHT = 1_000_000
"""The cost of seating a "not together" pair at one table: more than any repeat count, so
the search gives up any number of repeats before it seats such a pair together."""

STEPS_PER_PLAYER = 150
"""Annealing steps per seated player and restart: enough that every small case in the tests
reaches the brute-force optimum, cheap enough for one tap (0.3 s for 16 players)."""

RESTARTS = 3
"""Independent annealing runs from fresh random seatings; the best is kept."""


def table_sizes(players: int, *, game: str, prefer: int = 4) -> tuple[int, ...]:
    """The sizes of the tables for ``players`` players, largest first.

    Boston is played four to a table, so the count must be a multiple of 4. Preferans is
    played three or four to a table: ``prefer=4`` makes as many tables of 4 as the count
    allows (the rest of 3), ``prefer=3`` as many of 3 (the rest of 4). 1, 2 and 5 players
    cannot be seated; ``RuleError`` says so.
    """
    if game == "boston":
        if players < 4 or players % 4:
            raise RuleError(
                N_(
                    "Boston is played four to a table: %(count)s players cannot be seated; "
                    "mark someone as sitting out, or check someone in"
                ),
                field="players",
                count=players,
            )
        return (4,) * (players // 4)
    if prefer not in (3, 4):
        raise RuleError(N_("a Preferans table has 3 or 4 players"), field="table_size")
    other = 7 - prefer
    for many in range(players // prefer, -1, -1):  # as many preferred tables as possible
        rest = players - many * prefer
        if rest % other == 0:
            sizes = (prefer,) * many + (other,) * (rest // other)
            return tuple(sorted(sizes, reverse=True))
    raise RuleError(
        N_(
            "%(count)s players cannot be seated at tables of 3 and 4; "
            "mark someone as sitting out, or check someone in"
        ),
        field="players",
        count=players,
    )


@dataclass(frozen=True)
class DrawRequest:
    """What the draw needs. ``meetings``: for each pair of players, how many times the two
    have sat at one table this season; ``first_deals``: how many times each player has
    dealt first this season. Pairs and players missing from them count 0."""

    players: tuple[str, ...]
    sizes: tuple[int, ...]
    seed: int
    sits_out: frozenset[str] = frozenset()
    apart: frozenset[Pair] = frozenset()
    meetings: Mapping[Pair, int] = field(default_factory=dict)
    first_deals: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class DrawnTable:
    """One table of the draw: its players clockwise, and the seat that deals first."""

    players: tuple[str, ...]
    first_dealer: int


@dataclass(frozen=True)
class Draw:
    """The draw: its tables, its seed and its repeat meetings (the cost it minimised)."""

    tables: tuple[DrawnTable, ...]
    seed: int
    repeats: int


def repeats(tables: Sequence[Sequence[str]], meetings: Mapping[Pair, int]) -> int:
    """How many times the pairs seated together have met before, added up."""
    return sum(
        meetings.get(frozenset(pair), 0) for table in tables for pair in combinations(table, 2)
    )


def _cost(tables: Sequence[Sequence[str]], request: DrawRequest) -> int:
    apart = sum(
        APART_WEIGHT
        for table in tables
        for pair in combinations(table, 2)
        if frozenset(pair) in request.apart
    )
    return apart + repeats(tables, request.meetings)


def _player_cost(player: str, table: Sequence[str], request: DrawRequest) -> int:
    """What ``player`` adds to the cost by sitting with the others at ``table``."""
    total = 0
    for other in table:
        if other != player:
            pair = frozenset((player, other))
            total += request.meetings.get(pair, 0)
            if pair in request.apart:
                total += APART_WEIGHT
    return total


def _anneal(seated: list[str], request: DrawRequest, rng: random.Random) -> list[list[str]]:
    """One annealing run from a random seating: swaps of two players at different tables,
    a worse swap taken with probability exp(−Δ/T) as T cools from 2 to 0.05."""
    order = seated[:]
    rng.shuffle(order)
    tables: list[list[str]] = []
    start = 0
    for size in request.sizes:
        tables.append(order[start : start + size])
        start += size
    if len(tables) < 2:
        return tables
    cost = _cost(tables, request)
    best, best_cost = [t[:] for t in tables], cost
    steps = STEPS_PER_PLAYER * len(seated)
    for step in range(steps):
        temperature = 2.0 * (0.025 ** (step / steps))
        a, b = rng.sample(range(len(tables)), 2)
        i, j = rng.randrange(len(tables[a])), rng.randrange(len(tables[b]))
        x, y = tables[a][i], tables[b][j]
        before = _player_cost(x, tables[a], request) + _player_cost(y, tables[b], request)
        tables[a][i], tables[b][j] = y, x
        after = _player_cost(y, tables[a], request) + _player_cost(x, tables[b], request)
        delta = after - before
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            cost += delta
            if cost < best_cost:
                best, best_cost = [t[:] for t in tables], cost
        else:
            tables[a][i], tables[b][j] = x, y
    return best


def draw(request: DrawRequest) -> Draw:
    """Seat the players (module docstring). ``RuleError`` when the sizes do not add up to
    the players who play, or when a "not together" pair cannot be kept apart."""
    seated = [p for p in request.players if p not in request.sits_out]
    if len(set(seated)) != len(seated):
        raise RuleError(N_("each player can take one seat only"), field="players")
    if sum(request.sizes) != len(seated) or any(s not in (3, 4) for s in request.sizes):
        raise RuleError(N_("the tables' sizes do not match the players"), field="players")
    rng = random.Random(request.seed)  # noqa: S311 - a reproducible draw, not a secret
    runs = [_anneal(seated, request, rng) for _ in range(RESTARTS)]
    tables = min(runs, key=lambda t: _cost(t, request))
    for table in tables:
        for pair in combinations(table, 2):
            if frozenset(pair) in request.apart:
                a, b = sorted(pair)
                raise RuleError(
                    N_(
                        "%(first)s and %(second)s asked not to sit together, and the tables "
                        "cannot keep them apart; change the requests or the table size"
                    ),
                    field="apart",
                    first=a,
                    second=b,
                )
    drawn = []
    for table in tables:
        rng.shuffle(table)
        dealer = min(range(len(table)), key=lambda i: request.first_deals.get(table[i], 0))
        drawn.append(DrawnTable(tuple(table), dealer))
    return Draw(tuple(drawn), request.seed, repeats(tables, request.meetings))
