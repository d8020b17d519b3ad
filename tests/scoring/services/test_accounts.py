"""The members' accounts: an append-only cash book whose sum is the balance, and the
evening's table money drawn from it once when the evening is closed."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.models import AccountEntry, Attendance, Club, Evening, EveningTable, Guest, Season
from scoring.models.accounts import AppendOnlyError
from scoring.selectors import accounts as selectors
from scoring.selectors import evenings as evening_selectors
from scoring.services import notifications
from scoring.services.accounts import (
    account_record,
    evening_table_money_draw,
    guest_paid_by_member,
    settlement_by_account,
    shared_expense_split,
)
from scoring.services.evenings import evening_check_in_guest
from tests import factories

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 11, 20)


@pytest.fixture
def olga() -> Member:
    return factories.member("Olga", organiser=True, username="olga")


@pytest.fixture
def boris() -> Member:
    return factories.member("Boris", username="boris")


def test_the_balance_is_the_sum_of_the_entries_to_the_cent(olga: Member, boris: Member) -> None:
    assert selectors.balance(boris) == Decimal("0.00")
    account_record(member=boris, kind="top_up", amount=Decimal("500"), by=olga)
    account_record(member=boris, kind="refund", amount=Decimal("120.50"), by=olga, reason="cash")
    account_record(member=boris, kind="correction", amount=Decimal("-0.25"), by=olga, reason="typo")

    # 500 − 120,50 − 0,25
    assert selectors.balance(boris) == Decimal("379.25")
    assert selectors.balances() == {boris.pk: Decimal("379.25")}
    amounts = [e.amount for e in selectors.entries(boris)]
    assert amounts == [Decimal("-0.25"), Decimal("-120.50"), Decimal("500.00")]  # newest first
    assert {e.recorded_by for e in selectors.entries(boris)} == {olga}


@pytest.mark.parametrize(
    ("kind", "amount", "reason", "message"),
    [
        ("refund", Decimal("100.01"), "", "a refund is at most the balance, 100.00"),
        ("top_up", Decimal("-5"), "", "type the amount without a sign"),
        ("top_up", Decimal("0"), "", "the amount is more than 0 and at most 100000"),
        ("top_up", Decimal("100000.01"), "", "the amount is more than 0 and at most 100000"),
        ("correction", Decimal("-5"), "  ", "say why the correction is made"),
        ("table_money", Decimal("5"), "", "choose a top-up, a refund or a correction"),
        ("top_up", Decimal("5"), "x" * 201, "the reason is at most 200 characters"),
    ],
)
def test_bad_input_is_refused_and_records_nothing(
    olga: Member, boris: Member, kind: str, amount: Decimal, reason: str, message: str
) -> None:
    account_record(member=boris, kind="top_up", amount=Decimal(100), by=olga)

    with pytest.raises(RuleError) as refused:
        account_record(member=boris, kind=kind, amount=amount, by=olga, reason=reason)

    assert refused.value.message == message
    assert AccountEntry.objects.count() == 1
    assert selectors.balance(boris) == Decimal("100.00")


def test_a_refund_of_the_whole_balance_leaves_zero(olga: Member, boris: Member) -> None:
    account_record(member=boris, kind="top_up", amount=Decimal("33.34"), by=olga)
    entry = account_record(member=boris, kind="refund", amount=Decimal("33.34"), by=olga)

    assert entry.amount == Decimal("-33.34")
    assert selectors.balance(boris) == Decimal("0.00")


def test_an_entry_is_never_changed_or_deleted(olga: Member, boris: Member) -> None:
    entry = account_record(member=boris, kind="top_up", amount=Decimal(50), by=olga)

    entry.amount = Decimal(5000)
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(AppendOnlyError):
        AccountEntry.objects.filter(pk=entry.pk).update(amount=Decimal(5000))
    with pytest.raises(AppendOnlyError):
        AccountEntry.objects.all().delete()
    assert AccountEntry.objects.get().amount == Decimal("50.00")


@pytest.mark.parametrize(
    ("kind", "amount"),
    [
        ("top_up", Decimal(0)),
        ("top_up", Decimal(-1)),
        ("refund", Decimal(1)),
        ("table_money", Decimal(1)),
    ],
)
def test_the_database_refuses_a_movement_of_the_wrong_sign(
    olga: Member, boris: Member, kind: str, amount: Decimal
) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        AccountEntry.objects.create(member=boris, kind=kind, amount=amount, recorded_by=olga)


# -- the evening's table money ----------------------------------------------------------------


@pytest.fixture
def evening(olga: Member) -> Evening:
    """Anna, Boris and Vera played a finished table; Gleb came and sat out; a guest came."""
    players = [factories.member(n, username=n.lower()) for n in ("Anna", "Boris2", "Vera")]
    evening = Evening.objects.create(organiser=olga, played_on=DAY, place="Зал")
    for member in [*players, factories.member("Gleb", username="gleb")]:
        Attendance.objects.create(evening=evening, member=member)
    evening_check_in_guest(evening=evening, name="Пётр", by=olga)
    table = factories.finished_pulka(players, players[0], DAY)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    return evening


def _club_table_money(amount: str) -> None:
    club = Club.load()
    club.account_table_money = Decimal(amount)
    club.save()


def test_closing_the_evening_draws_the_table_money_from_each_member_once(
    olga: Member, evening: Evening
) -> None:
    _club_table_money("150.00")
    with notifications.paused():
        notifications.evening_close(evening=evening, by=olga)
        with pytest.raises(RuleError):
            notifications.evening_close(evening=evening, by=olga)

    drawn = AccountEntry.objects.filter(evening=evening)
    assert sorted(e.member.username for e in drawn) == ["anna", "boris2", "gleb", "vera"]
    assert {(e.kind, e.amount, e.recorded_by) for e in drawn} == {
        ("table_money", Decimal("-150.00"), olga)
    }
    # Drawn again (a retry, a reopened evening): nobody is charged twice.
    assert evening_table_money_draw(evening=evening, by=olga) == 0
    assert drawn.count() == 4
    assert selectors.balance(Member.objects.get(username="gleb")) == Decimal("-150.00")


def test_a_refused_close_draws_nothing(olga: Member, evening: Evening) -> None:
    _club_table_money("150.00")
    table = factories.pulka(
        list(Member.objects.filter(username__in=["anna", "vera", "gleb"])), played_on=DAY
    )
    EveningTable.objects.create(evening=evening, table=table, round=2)

    with notifications.paused(), pytest.raises(RuleError):
        notifications.evening_close(evening=evening, by=olga)

    assert not AccountEntry.objects.exists()


def test_no_table_money_set_draws_nothing(olga: Member, evening: Evening) -> None:
    with notifications.paused():
        notifications.evening_close(evening=evening, by=olga)

    assert not AccountEntry.objects.exists()


def test_the_same_evening_cannot_charge_a_member_twice_in_the_database(
    olga: Member, evening: Evening
) -> None:
    gleb = Member.objects.get(username="gleb")
    AccountEntry.objects.create(
        member=gleb, kind="table_money", amount=Decimal(-1), evening=evening, recorded_by=olga
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        AccountEntry.objects.create(
            member=gleb, kind="table_money", amount=Decimal(-1), evening=evening, recorded_by=olga
        )


# -- a payment of the ledger settled through the accounts ------------------------------------


def _member(username: str) -> Member:
    return Member.objects.get(username=username)


def _lines(evening: Evening) -> list[tuple[str, str, Decimal]]:
    return [(x.payer_name, x.payee_name, x.amount) for x in evening_selectors.ledger(evening).lines]


def test_a_payment_settled_through_the_accounts_is_two_entries_summing_to_zero(
    olga: Member, evening: Evening
) -> None:
    # Anna won 66.67 at a pool of 10: Boris2 owes her 33.33 and Vera 33.34.
    assert sorted(_lines(evening)) == [
        ("Boris2", "Anna", Decimal("33.33")),
        ("Vera", "Anna", Decimal("33.34")),
    ]
    vera, anna = _member("vera"), _member("anna")
    account_record(member=vera, kind="top_up", amount=Decimal(50), by=olga)

    settled = settlement_by_account(
        evening=evening, payer=f"m{vera.pk}", payee=f"m{anna.pk}", amount=Decimal("33.34"), by=olga
    )

    assert (settled.payer, settled.payee, settled.amount, settled.settled_by) == (
        f"m{vera.pk}",
        f"m{anna.pk}",
        Decimal("33.34"),
        olga,
    )
    moved = AccountEntry.objects.filter(kind="settlement", evening=evening)
    assert sorted((e.member.username, e.amount) for e in moved) == [
        ("anna", Decimal("33.34")),
        ("vera", Decimal("-33.34")),
    ]
    assert sum(e.amount for e in moved) == 0
    assert (selectors.balance(vera), selectors.balance(anna)) == (
        Decimal("16.66"),
        Decimal("33.34"),
    )
    assert {e.reason for e in moved} == {"Vera → Anna"}

    with pytest.raises(RuleError) as again:
        settlement_by_account(
            evening=evening,
            payer=f"m{vera.pk}",
            payee=f"m{anna.pk}",
            amount=Decimal("33.34"),
            by=olga,
        )
    assert again.value.message == "this payment is marked as paid already"
    assert moved.count() == 2


@pytest.mark.parametrize(
    ("payer", "payee", "amount", "message"),
    [
        ("boris2", "anna", "33.33", "Boris2 has 20.00 on the account: not enough, settle in cash"),
        ("vera", "anna", "33.33", "this payment is not in the evening's ledger"),
        ("guest", "anna", "33.33", "a guest has no account: settle this payment in cash"),
    ],
)
def test_a_settlement_the_accounts_cannot_make_changes_nothing(
    olga: Member, evening: Evening, payer: str, payee: str, amount: str, message: str
) -> None:
    account_record(member=_member("boris2"), kind="top_up", amount=Decimal(20), by=olga)
    guest = evening.attendances.get(guest__isnull=False).guest
    keys = {"guest": guest.key} | {
        name: f"m{_member(name).pk}" for name in ("boris2", "anna", "vera")
    }

    with pytest.raises(RuleError) as refused:
        settlement_by_account(
            evening=evening,
            payer=keys[payer],
            payee=keys[payee],
            amount=Decimal(amount),
            by=olga,
        )

    assert refused.value.message == message
    assert AccountEntry.objects.count() == 1
    assert not evening.settlements.exists()


def test_table_money_paid_to_the_club_through_an_account_is_one_entry(
    olga: Member, evening: Evening
) -> None:
    Season.objects.create(name="Autumn", starts_on=DAY, ends_on=DAY, table_money=Decimal("1.00"))
    # The three players' table money (1.00 each) is netted into the ledger (fewest
    # payments): Boris2 hands the club all 3.00; Vera pays Anna 1.00 more, Boris2 2.00 less.
    assert _lines(evening) == [
        ("Vera", "Anna", Decimal("34.34")),
        ("Boris2", "Anna", Decimal("31.33")),
        ("Boris2", "the club", Decimal("3.00")),
    ]
    boris = _member("boris2")
    account_record(member=boris, kind="top_up", amount=Decimal(10), by=olga)

    settlement_by_account(
        evening=evening, payer=f"m{boris.pk}", payee="club", amount=Decimal("3.00"), by=olga
    )

    moved = AccountEntry.objects.filter(kind="settlement")
    assert [(e.member, e.amount) for e in moved] == [(boris, Decimal("-3.00"))]
    assert selectors.balance(boris) == Decimal("7.00")


# -- an evening's shared expense ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "shares"),
    [
        # 100.00 ÷ 3 = 33.33 and one cent over: Anna, first by name, pays it.
        ("100.00", {"anna": "-33.34", "boris2": "-33.33", "vera": "-33.33"}),
        # 0.05 ÷ 3 = 0.01 and two cents over: Anna and Boris2.
        ("0.05", {"anna": "-0.02", "boris2": "-0.02", "vera": "-0.01"}),
        ("99.99", {"anna": "-33.33", "boris2": "-33.33", "vera": "-33.33"}),
    ],
)
def test_a_shared_expense_is_split_to_the_cent_first_names_paying_the_extra_cent(
    olga: Member, evening: Evening, total: str, shares: dict[str, str]
) -> None:
    chosen = [_member(name) for name in ("vera", "anna", "boris2")]  # any order

    entries = shared_expense_split(
        evening=evening, members=chosen, total=Decimal(total), reason="пицца", by=olga
    )

    assert {e.member.username: str(e.amount) for e in entries} == shares
    assert sum(e.amount for e in entries) == -Decimal(total)
    assert {(e.kind, e.evening, e.reason) for e in entries} == {
        ("shared_expense", evening, "пицца")
    }


def test_a_shared_expense_may_take_a_balance_below_zero(olga: Member, evening: Evening) -> None:
    gleb = _member("gleb")
    account_record(member=gleb, kind="top_up", amount=Decimal(10), by=olga)

    shared_expense_split(
        evening=evening, members=[gleb], total=Decimal("25.50"), reason="зал", by=olga
    )

    assert selectors.balance(gleb) == Decimal("-15.50")


@pytest.mark.parametrize(
    ("names", "total", "reason", "message"),
    [
        (["anna", "olga"], "10", "зал", "choose members checked in at the evening"),
        ([], "10", "зал", "choose members checked in at the evening"),
        (["anna", "vera", "gleb"], "0.02", "зал", "the amount is less than a cent each"),
        (["anna"], "0", "зал", "the amount is more than 0 and at most 100000"),
        (["anna"], "1.005", "зал", "the amount is more than 0 and at most 100000"),
        (["anna"], "10", " ", "say what the expense was (at most 200 characters)"),
    ],
)
def test_a_shared_expense_that_cannot_be_split_charges_nobody(
    olga: Member, evening: Evening, names: list[str], total: str, reason: str, message: str
) -> None:
    with pytest.raises(RuleError) as refused:
        shared_expense_split(
            evening=evening,
            members=[_member(n) for n in names],
            total=Decimal(total),
            reason=reason,
            by=olga,
        )

    assert refused.value.message == message
    assert not AccountEntry.objects.exists()


# -- a member pays a guest's table money ---------------------------------------------------------


def test_a_member_pays_a_guests_table_money_and_his_own_at_the_close(
    olga: Member, evening: Evening
) -> None:
    _club_table_money("150.00")
    vera, guest = _member("vera"), Guest.objects.get(name="Пётр")

    entry = guest_paid_by_member(evening=evening, guest=guest, member=vera, by=olga)

    assert (entry.member, entry.kind, entry.amount, entry.evening, entry.guest, entry.reason) == (
        vera,
        "guest",
        Decimal("-150.00"),
        evening,
        guest,
        "Пётр",
    )
    assert entry.recorded_by == olga
    assert selectors.guest_payers(evening) == {guest.pk: "Vera"}
    with notifications.paused():
        notifications.evening_close(evening=evening, by=olga)
    # −150 for Пётр, −150 of her own table money at the close
    assert selectors.balance(vera) == Decimal("-300.00")
    assert selectors.balance(_member("anna")) == Decimal("-150.00")


def test_a_guest_is_paid_for_once_per_evening(olga: Member, evening: Evening) -> None:
    _club_table_money("150.00")
    guest = Guest.objects.get(name="Пётр")
    guest_paid_by_member(evening=evening, guest=guest, member=_member("vera"), by=olga)

    with pytest.raises(RuleError) as refused:
        guest_paid_by_member(evening=evening, guest=guest, member=_member("anna"), by=olga)

    assert refused.value.message == "Vera has paid for Пётр tonight already"
    assert list(AccountEntry.objects.values_list("member__username", "amount")) == [
        ("vera", Decimal("-150.00"))
    ]


@pytest.mark.parametrize(
    ("price", "case", "message"),
    [
        ("0", "", "the club draws no table money from the accounts: the guest pays at the door"),
        ("150", "guest away", "the guest is not checked in at this evening"),
        ("150", "member away", "choose a member checked in at the evening"),
    ],
)
def test_paying_for_a_guest_is_refused_in_words(
    olga: Member, evening: Evening, price: str, case: str, message: str
) -> None:
    _club_table_money(price)
    guest, member = Guest.objects.get(name="Пётр"), _member("vera")
    if case == "guest away":
        guest = Guest.objects.create(name="Семён")  # came to another evening
    elif case == "member away":
        member = factories.member("Dina", username="dina")

    with pytest.raises(RuleError) as refused:
        guest_paid_by_member(evening=evening, guest=guest, member=member, by=olga)

    assert refused.value.message == message
    assert not AccountEntry.objects.exists()


def test_the_database_refuses_a_second_payment_for_a_guest(olga: Member, evening: Evening) -> None:
    guest = Guest.objects.get(name="Пётр")
    fields = {"kind": "guest", "amount": Decimal(-1), "evening": evening, "guest": guest}
    AccountEntry.objects.create(member=_member("vera"), recorded_by=olga, **fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        AccountEntry.objects.create(member=_member("anna"), recorded_by=olga, **fields)
