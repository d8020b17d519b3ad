"""Money shared by both games: rounding to the cent and the shortest payment list.

Balances come in as exact fractions (whists for Preferans, chips for Boston) that sum to
zero; money goes out as ``Decimal`` cents that sum to exactly zero (preferans.md §9).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

CENT = Decimal("0.01")

Payment = tuple[int, int, Decimal]
"""(payer seat, payee seat, amount of money)."""


def to_cents(balances: Sequence[Fraction | int], price: Decimal) -> list[Decimal]:
    """Each balance × price, rounded to the cent so that the column sums to exactly zero.

    Every amount is first taken down to the cent; then the amounts with the largest
    cut-off fractions (ties: seat order) get one cent each until the column sums to zero.
    """
    exact = [Fraction(b) * Fraction(price) * 100 for b in balances]
    cents = [math.floor(x) for x in exact]
    missing = -sum(cents)
    if missing < 0 or missing > len(cents):
        raise ValueError("balances must sum to zero")
    by_cut_off = sorted(range(len(exact)), key=lambda i: (-(exact[i] - cents[i]), i))
    for seat in by_cut_off[:missing]:
        cents[seat] += 1
    return [Decimal(c) * CENT for c in cents]


def payments(money: Sequence[Decimal]) -> list[Payment]:
    """The payments that settle the table: the largest debtor repeatedly pays the largest
    creditor (ties: seat order) the smaller of the two amounts; at most n − 1 transfers."""
    left = list(money)
    result: list[Payment] = []
    while True:
        debtor = min(range(len(left)), key=lambda i: (left[i], i))
        creditor = max(range(len(left)), key=lambda i: (left[i], -i))
        if left[debtor] >= 0 or left[creditor] <= 0:
            return result
        amount = min(-left[debtor], left[creditor])
        result.append((debtor, creditor, amount))
        left[debtor] += amount
        left[creditor] -= amount


def two_decimals(value: Fraction | int) -> str:
    """A balance shown to 2 decimals, half away from zero (e.g. ``"-49.33"``)."""
    exact = Fraction(value)
    shown = Decimal(exact.numerator) / Decimal(exact.denominator)
    rounded = abs(shown).quantize(CENT, rounding=ROUND_HALF_UP)
    return str(rounded.copy_sign(shown) if rounded else rounded)


def exact_number(value: Fraction | int) -> int | str:
    """An amount for a result document: an integer where exact, else a decimal string."""
    exact = Fraction(value)
    if exact.denominator == 1:
        return exact.numerator
    return two_decimals(exact) if _repeats(exact) else str(_terminating(exact))


def _repeats(value: Fraction) -> bool:
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d != 1


def _terminating(value: Fraction) -> Decimal:
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    return Decimal(value.numerator * 10**places // value.denominator).scaleb(-places)
