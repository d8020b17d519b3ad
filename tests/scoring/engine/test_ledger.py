"""The evening ledger (scoring/engine/ledger.py): worked examples, and properties — the
transfers settle every table of the evening exactly, in at most n − 1 payments."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.engine.ledger import CLUB, Transfer, evening_balances, evening_ledger

D = Decimal


def test_two_tables_net_into_one_list() -> None:
    """Anna wins 10.50 at the first table and loses 4.00 at the second; Boris loses 10.50
    and wins 4.00: netted, Boris pays Anna 6.50 once, and the others settle as usual."""
    first = {"anna": D("10.50"), "boris": D("-10.50"), "vera": D("0.00")}
    second = {"anna": D("-4.00"), "boris": D("4.00"), "gleb": D("3.00"), "dima": D("-3.00")}
    assert evening_ledger([first, second]) == [
        Transfer("boris", "anna", D("6.50")),
        Transfer("dima", "gleb", D("3.00")),
    ]


def test_table_money_is_paid_to_the_club() -> None:
    """Table money 2.00 a player: Anna +5.00 → 3.00, Boris −5.00 → −7.00, Vera 0 → −2.00;
    the club is owed 6.00. Greedy, the largest debt to the largest credit: Boris (−7) pays
    the club (6) 6.00; then Vera (−2) is the largest debtor and pays Anna (3) 2.00; then
    Boris (−1) pays Anna (1) 1.00."""
    table = {"anna": D("5.00"), "boris": D("-5.00"), "vera": D("0.00")}
    assert evening_balances([table], table_money=D(2)) == {
        "anna": D("3.00"),
        "boris": D("-7.00"),
        "vera": D("-2.00"),
        CLUB: D("6.00"),
    }
    assert evening_ledger([table], table_money=D(2)) == [
        Transfer("boris", CLUB, D("6.00")),
        Transfer("vera", "anna", D("2.00")),
        Transfer("boris", "anna", D("1.00")),
    ]


def test_an_evening_without_a_finished_table_owes_nothing() -> None:
    assert evening_ledger([]) == []
    assert evening_ledger([], table_money=Decimal(5)) == []


def test_a_table_that_does_not_sum_to_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="sum to zero"):
        evening_ledger([{"anna": D("1.00"), "boris": D("-0.99")}])


# Members and guests (``g<id>``) alike: a guest pays and is paid at the door.
PARTIES = [f"m{i}" for i in range(7)] + [f"g{i}" for i in range(4)]
cents = st.integers(min_value=-100_000, max_value=100_000).map(lambda c: Decimal(c) / 100)


@st.composite
def a_table(draw: st.DrawFn) -> dict[str, Decimal]:
    players = draw(st.lists(st.sampled_from(PARTIES), min_size=3, max_size=4, unique=True))
    money = [draw(cents) for _ in players[1:]]
    return dict(zip(players, [-sum(money, D(0)), *money], strict=True))


@given(
    st.lists(a_table(), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=1000).map(lambda c: Decimal(c) / 100),
)
def test_the_ledger_settles_every_table_exactly(
    tables: list[dict[str, Decimal]], table_money: Decimal
) -> None:
    transfers = evening_ledger(tables, table_money=table_money)
    owed: dict[str, Decimal] = {}
    for table in tables:
        for party, money in table.items():
            owed[party] = owed.get(party, D(0)) + money
    players = len(owed)
    for party in owed:
        owed[party] -= table_money
    owed[CLUB] = table_money * players
    for t in transfers:
        assert t.amount > 0
        assert t.amount == t.amount.quantize(D("0.01"))
        owed[t.payer] += t.amount
        owed[t.payee] -= t.amount
    assert all(v == 0 for v in owed.values())  # everyone's evening is settled to the cent
    assert len(transfers) <= max(len(owed) - 1, 0)  # n − 1 at most
