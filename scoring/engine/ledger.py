"""The evening ledger: one list of who pays whom for all of an evening's tables.

Each finished table has left every seat a money balance (the table's column sums to zero,
to the cent: ``money.to_cents``). The ledger adds up each player's balances over the
evening's tables, charges each player who played the evening's table money (a season
setting, paid to the club: ``CLUB``), and settles the totals with the same greedy payment
list that settles one table (``money.payments``, preferans.md §9): so at most n − 1
transfers for n parties, exact to the cent. Parties are keys (``m<member id>``,
``g<guest id>``), never names, so two players of one name stay two.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from scoring.engine.money import payments

CLUB = "club"
"""The party that receives the table money."""


@dataclass(frozen=True)
class Transfer:
    """``payer`` pays ``payee`` ``amount`` (a positive amount to the cent)."""

    payer: str
    payee: str
    amount: Decimal


def evening_balances(
    tables: Iterable[Mapping[str, Decimal]], *, table_money: Decimal = Decimal(0)
) -> dict[str, Decimal]:
    """Each party's money for the evening: its tables' balances added up, less the table
    money; the club's is the table money of everyone who played. The balances sum to 0."""
    if table_money < 0:
        raise ValueError("the table money cannot be negative")
    totals: dict[str, Decimal] = {}
    for table in tables:
        if sum(table.values(), Decimal(0)) != 0:
            raise ValueError("a table's money must sum to zero")
        for party, money in table.items():
            totals[party] = totals.get(party, Decimal(0)) + money
    if table_money:
        for party in list(totals):
            totals[party] -= table_money
        totals[CLUB] = totals.get(CLUB, Decimal(0)) + table_money * (len(totals) - (CLUB in totals))
    return totals


def evening_ledger(
    tables: Iterable[Mapping[str, Decimal]], *, table_money: Decimal = Decimal(0)
) -> list[Transfer]:
    """Who pays whom to settle the evening (module docstring); parties are taken in their
    key order, so the same evening always gives the same list."""
    balances = evening_balances(tables, table_money=table_money)
    if not balances:  # no table has finished yet: nobody owes anybody
        return []
    parties = sorted(balances)
    return [
        Transfer(parties[payer], parties[payee], amount)
        for payer, payee, amount in payments([balances[p] for p in parties])
    ]
