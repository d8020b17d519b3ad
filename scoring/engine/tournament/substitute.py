"""A substitute mid-pulka (Kodeks 3.1.2): the newcomer takes the average pool and the
average mountain of the players who stay, **rounded against him**: his pool (which helps
him) rounded down, his mountain (which counts against him) rounded up. His whists start
empty; each player's statistics keep their own deals.

Worked example (tests/scoring/engine/tournament/test_substitute.py): the others have pools
7 and 4 (average 5.5 → 5) and mountains 3 and 6 (average 4.5 → 5): the newcomer enters
with pool 5 and mountain 5.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction

from scoring.engine.errors import N_, RuleError
from scoring.engine.preferans.deals import Deal
from scoring.engine.preferans.pulka import Pulka
from scoring.engine.text import Text


@dataclass(frozen=True)
class Entry:
    """What the newcomer writes on entering: his ``pool`` and ``mountain``, explained."""

    pool: int
    mountain: Decimal
    explanation: Text


def substitute_entry(
    pools: Mapping[str, int], mountains: Mapping[str, Decimal | int], *, leaving: str
) -> Entry:
    """The newcomer's pool and mountain when ``leaving`` leaves the table (``pools`` and
    ``mountains``: every seat's, the leaving player's included; the average is over the
    others). ``RuleError`` when ``leaving`` is not at the table."""
    if leaving not in pools or set(pools) != set(mountains):
        raise RuleError(N_("%(player)s is not at this table"), field="player", player=leaving)
    others = [p for p in pools if p != leaving]
    if not others:
        raise RuleError(N_("no one stays at the table to average"), field="player")
    pool_average = Decimal(sum(pools[p] for p in others)) / len(others)
    mountain_average = Decimal(sum(Decimal(mountains[p]) for p in others)) / len(others)
    pool = int(pool_average.to_integral_value(rounding=ROUND_FLOOR))
    mountain = mountain_average.to_integral_value(rounding=ROUND_CEILING)
    return Entry(
        pool,
        mountain,
        Text(
            N_(
                "the others' pools %(pools)s average %(pool_average)s, rounded down: "
                "pool %(pool)s; their mountains %(mountains)s average %(mountain_average)s, "
                "rounded up: mountain %(mountain)s"
            ),
            pools=", ".join(str(pools[p]) for p in others),
            pool_average=_shown(pool_average),
            pool=pool,
            mountains=", ".join(str(mountains[p]) for p in others),
            mountain_average=_shown(mountain_average),
            mountain=mountain,
        ),
    )


def _shown(value: Decimal) -> Decimal:
    """An average as shown: to the hundredth, without trailing zeros (5.5, 5.33)."""
    shown = value.quantize(Decimal("0.01"))
    if shown == shown.to_integral_value():
        return shown.quantize(Decimal(1))
    return shown.normalize()


@dataclass(frozen=True)
class Departure:
    """A player leaving a pulka in play (``seat``): his ``balance`` as the sheet stood,
    settled with each player who stays (``settled[j]``: what seat ``j`` receives from him,
    negative when ``j`` pays; they add up to minus his balance), and the ``entry`` his
    substitute writes on taking the seat."""

    seat: int
    balance: Fraction
    settled: Mapping[int, Fraction]
    entry: Entry


def substitute_seat(pulka: Pulka, seat: int) -> Departure:
    """Seat ``seat``'s player leaves ``pulka`` (changed in place) and a substitute takes
    his seat (Kodeks 3.1.2).

    The leaver settles as the sheet stands, with each player who stays, by the same
    «средняя гора» terms as the end of the pulka (§9) taken pair by pair: for the pair of
    him and ``j``, the difference of their pools and of their mountains over the number of
    players (times the tariff's weights and divisor), and their whists on each other. The
    pairs add up to his balance by ``settle``. Everything between him and the others is
    then paid, so the seat starts afresh: the substitute's pool and mountain are the
    averages of the players who stay, rounded against him (``substitute_entry``), and no
    whists are written by or on the seat. What stays on the sheet between the others is
    settled at the end as before, so the leaver's balance, the amounts settled with him
    and the end's balances add up to zero."""
    n = pulka.setup.size
    if not 0 <= seat < n:
        raise RuleError(N_("choose a seat of this table"), field="seat")
    rules = pulka.rules
    divisor = n if rules.settlement_divisor == "players" else n - 1
    pools = [Fraction(p) for p in pulka.pool]
    if rules.settlement_pools == "ignored":
        pools = [Fraction(0)] * n
    settled = {}
    for j in range(n):
        if j == seat:
            continue
        sheet = Fraction(1, divisor) * (
            rules.pool_weight * (pools[seat] - pools[j])
            - rules.mountain_weight * (Fraction(pulka.mountain[seat]) - Fraction(pulka.mountain[j]))
        )
        settled[j] = -(sheet + Fraction(pulka.whists[seat][j]) - Fraction(pulka.whists[j][seat]))
    entry = substitute_entry(
        {str(i): int(pulka.pool[i]) for i in range(n)},
        {
            str(i): Decimal(Fraction(pulka.mountain[i]).numerator)
            / Fraction(pulka.mountain[i]).denominator
            for i in range(n)
        },
        leaving=str(seat),
    )
    pulka.pool[seat] = entry.pool
    pulka.mountain[seat] = int(entry.mountain)
    for j in range(n):
        pulka.whists[seat][j] = 0
        pulka.whists[j][seat] = 0
    return Departure(seat, -sum(settled.values(), Fraction(0)), settled, entry)


@dataclass(frozen=True)
class Substitution:
    """A seat changing hands in a game record: after the record's first ``after_deal``
    deals, ``left`` leaves seat ``seat`` and ``came`` takes it (``substitute_seat``)."""

    after_deal: int
    seat: int
    left: str
    came: str


def seatings(
    players: Sequence[str], substitutions: Sequence[Substitution]
) -> list[tuple[str, ...]]:
    """Who held the seats before each substitution, then after the last (``players``: the
    seats' holders at the end): the names deal ``n`` is written with are
    ``seatings(...)[k]``, ``k`` the substitutions made before it (``after_deal < n``)."""
    return seat_holders(players, [(s.seat, s.left) for s in substitutions])


def seat_holders(
    players: Sequence[str], leavers: Sequence[tuple[int, str]]
) -> list[tuple[str, ...]]:
    """``seatings`` from each change's (seat, who left it), in the order they came: the
    site's stored seat changes are read through it too."""
    names = list(players)
    found = [tuple(names)]
    for seat, left in reversed(leavers):
        names[seat] = left
        found.append(tuple(names))
    return list(reversed(found))


def play_with_substitutes(
    pulka: Pulka, deals: Sequence[Deal], substitutions: Sequence[Substitution]
) -> list[Departure]:
    """Play ``deals`` on ``pulka`` (set up with the players who sat down first), seating
    each substitute after his ``after_deal`` (and those after the last deal at the end),
    the setup's names following who holds the seats. Returns the departures in order."""
    names = [pulka.setup.players]
    for substitution in substitutions:
        held = list(names[-1])
        held[substitution.seat] = substitution.came
        names.append(tuple(held))
    departures: list[Departure] = []
    pending = list(substitutions)

    def seat_the_next() -> None:
        substitution = pending.pop(0)
        departures.append(substitute_seat(pulka, substitution.seat))
        pulka.setup = replace(pulka.setup, players=names[len(departures)])

    for n, deal in enumerate(deals, start=1):
        while pending and pending[0].after_deal < n:
            seat_the_next()
        pulka.play(deal)
    while pending:
        seat_the_next()
    return departures
