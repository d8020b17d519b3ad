"""The organisers' cash book (a top-up, a refund, a correction; the balances; the CSV) and
a member's balance on his page and on the organisers' members list."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.models import AccountEntry, Attendance, Club, Evening, EveningTable, Guest
from scoring.selectors import accounts as selectors
from scoring.services.accounts import account_record
from tests import factories

pytestmark = pytest.mark.django_db

BOOK = reverse("scoring:account_book")
RUSSIAN = {"HTTP_ACCEPT_LANGUAGE": "ru"}
DAY = datetime.date(2026, 11, 20)


@pytest.fixture
def boris() -> Member:
    return factories.member("Борис", username="boris")


def test_an_organiser_records_a_top_up_typed_the_russian_way(
    client: Client, organiser: Member, boris: Member
) -> None:
    response = client.post(
        BOOK,
        {"member": boris.pk, "kind": "top_up", "amount": "1234,50", "reason": "наличные"},
        **RUSSIAN,
    )

    assert response.status_code == 302
    entry = AccountEntry.objects.get()
    assert (entry.member, entry.kind, entry.amount, entry.recorded_by, entry.reason) == (
        boris,
        "top_up",
        Decimal("1234.50"),
        organiser,
        "наличные",
    )
    page = client.get(response["Location"], **RUSSIAN).content.decode()
    assert "Записано: пополнение, Борис." in page
    assert "1234,50" in page.replace("\xa0", "")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "top_up", "amount": "сто"}, "Введите число."),
        ({"kind": "refund", "amount": "10,01"}, "вернуть можно не больше остатка на счёте, 10,00"),
        ({"kind": "correction", "amount": "-3"}, "напишите, почему сделано исправление"),
        ({"kind": "top_up", "amount": "-3"}, "введите сумму без знака"),
        ({"kind": "top_up", "amount": "0,001"}, "2"),  # Django's «no more than 2 decimal places»
    ],
)
def test_bad_input_answers_in_russian_and_stores_nothing(
    client: Client, organiser: Member, boris: Member, data: dict[str, str], message: str
) -> None:
    account_record(member=boris, kind="top_up", amount=Decimal(10), by=organiser)

    response = client.post(BOOK, {"member": boris.pk} | data, **RUSSIAN)

    assert response.status_code == 200
    assert message in response.content.decode()
    assert AccountEntry.objects.count() == 1


def test_the_book_shows_every_balance_and_the_latest_entries(
    client: Client, organiser: Member, boris: Member, django_assert_num_queries: object
) -> None:
    vera = factories.member("Вера", username="vera")
    account_record(member=boris, kind="top_up", amount=Decimal("100"), by=organiser)
    account_record(member=boris, kind="refund", amount=Decimal("33.33"), by=organiser)
    account_record(
        member=vera, kind="correction", amount=Decimal("-5"), by=organiser, reason="долг"
    )
    client.get(BOOK)

    # The session and its member, the form's members, the balances, the entries.
    with django_assert_num_queries(5):  # type: ignore[operator]
        page = client.get(BOOK).content.decode()

    balances = page.split('class="figures account-balances"', 1)[1].split("</table>", 1)[0]
    assert ">66.67</td>" in balances  # Borís: 100 − 33.33
    assert ">-5.00</td>" in balances
    assert ">0.00</td>" in balances  # Olga herself, no entry yet
    entries = page.split('class="figures account-entries"', 1)[1]
    assert entries.index("долг") < entries.index("-33.33") < entries.index("100.00")


def test_the_csv_holds_every_entry_oldest_first_and_no_formula(
    client: Client, organiser: Member, boris: Member
) -> None:
    account_record(member=boris, kind="top_up", amount=Decimal("100"), by=organiser)
    account_record(
        member=boris, kind="correction", amount=Decimal("-0.50"), by=organiser, reason="=1+1"
    )

    response = client.get(reverse("scoring:account_csv"))

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = [line.split(",")[1:] for line in response.content.decode().splitlines()]
    assert rows == [
        ["member", "name", "kind", "amount", "evening", "recorded_by", "reason"],
        ["boris", "Борис", "top_up", "100.00", "", "olga", ""],
        ["boris", "Борис", "correction", "-0.50", "", "olga", "'=1+1"],
    ]


def test_a_member_sees_his_own_balance_and_nobody_elses(client: Client, boris: Member) -> None:
    olga = factories.member("Ольга", organiser=True, username="olga")
    account_record(member=boris, kind="top_up", amount=Decimal("250"), by=olga)
    page = reverse("members:detail", args=["boris"])

    assert "Account with the club" not in client.get(page).content.decode()  # a visitor
    client.force_login(factories.member("Вера", username="vera"))
    assert "Account with the club" not in client.get(page).content.decode()
    for reader in (boris, olga):
        client.force_login(reader)
        shown = client.get(page).content.decode()
        assert "Account with the club" in shown
        assert '<span class="stat__value">250.00</span>' in shown
        assert "top-up" in shown


def test_the_members_list_shows_each_balance(
    client: Client, organiser: Member, boris: Member
) -> None:
    account_record(member=boris, kind="top_up", amount=Decimal("12.5"), by=organiser)

    page = client.get(reverse("members:manage")).content.decode()

    row = page.split(">Борис</a>", 1)[1].split("</tr>", 1)[0]
    assert '<td class="num">12.50</td>' in row
    assert reverse("scoring:account_book") in page


def test_the_ledger_offers_the_accounts_to_organisers_only_and_settles_through_them(
    client: Client, organiser: Member
) -> None:
    anna, vera = (
        factories.member("Anna", username="anna"),
        factories.member("Vera", username="vera"),
    )
    gleb = factories.member("Gleb", username="gleb")
    evening = Evening.objects.create(organiser=organiser, played_on=DAY)
    table = factories.finished_pulka([anna, gleb, vera], anna, DAY)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    account_record(member=vera, kind="top_up", amount=Decimal(40), by=organiser)
    ledger = reverse("scoring:evening_ledger", args=[evening.pk])
    button = "через счёт</button>"

    page = client.get(ledger, **RUSSIAN).content.decode()
    assert page.count(button) == 2  # Vera → Anna, Gleb → Anna
    client.force_login(anna)  # she may mark her own payments as paid, not settle accounts
    assert button not in client.get(ledger, **RUSSIAN).content.decode()
    client.force_login(organiser)

    response = client.post(
        reverse("scoring:settlement_by_account", args=[evening.pk]),
        {"payer": f"m{vera.pk}", "payee": f"m{anna.pk}", "amount": "33.34"},
        **RUSSIAN,
    )

    assert response["Location"] == ledger
    page = client.get(ledger, **RUSSIAN).content.decode()
    assert "Рассчитались через счёт." in page
    assert page.count(button) == 1  # Gleb's payment is left
    assert selectors.balance(vera) == Decimal("6.66")
    assert selectors.balance(anna) == Decimal("33.34")

    client.post(
        reverse("scoring:settlement_by_account", args=[evening.pk]),
        {"payer": f"m{gleb.pk}", "payee": f"m{anna.pk}", "amount": "33.33"},
        **RUSSIAN,
    )
    page = client.get(ledger, **RUSSIAN).content.decode()
    assert "Gleb: на счёте 0,00 — не хватает, рассчитайтесь наличными" in page
    assert AccountEntry.objects.count() == 3


def test_an_organiser_splits_an_evenings_shared_expense_from_its_page(
    client: Client, organiser: Member
) -> None:
    anna, vera = (
        factories.member("Anna", username="anna"),
        factories.member("Vera", username="vera"),
    )
    away = factories.member("Zoya", username="zoya")  # not at the evening: not offered
    evening = Evening.objects.create(organiser=organiser, played_on=DAY)
    for member in (anna, vera):
        Attendance.objects.create(evening=evening, member=member)
    url = reverse("scoring:shared_expense", args=[evening.pk])

    form = client.get(url, **RUSSIAN).content.decode()
    assert "Общий расход" in form
    assert f'value="{anna.pk}"' in form and f'value="{away.pk}"' not in form

    refused = client.post(
        url, {"reason": "пицца", "total": "10,00", "members": [away.pk]}, **RUSSIAN
    )
    assert refused.status_code == 200
    assert not AccountEntry.objects.exists()

    response = client.post(
        url, {"reason": "пицца", "total": "10,01", "members": [anna.pk, vera.pk]}, **RUSSIAN
    )

    assert response["Location"] == reverse("scoring:evening_detail", args=[evening.pk])
    assert selectors.balances() == {anna.pk: Decimal("-5.01"), vera.pk: Decimal("-5.00")}
    assert "Списано со счетов 2 участников." in client.get(response["Location"]).content.decode()


def test_an_organiser_records_a_member_paying_a_guests_table_money_once(
    client: Client, organiser: Member
) -> None:
    Club.objects.update_or_create(pk=Club.ONLY_PK, defaults={"account_table_money": Decimal(120)})
    anna, vera = (
        factories.member("Анна", username="anna"),
        factories.member("Вера", username="vera"),
    )
    evening = Evening.objects.create(organiser=organiser, played_on=DAY)
    guest = Guest.objects.create(name="Пётр")
    for member in (anna, vera):
        Attendance.objects.create(evening=evening, member=member)
    Attendance.objects.create(evening=evening, guest=guest)
    page_url = reverse("scoring:evening_detail", args=[evening.pk])
    url = reverse("scoring:guest_paid", args=[evening.pk])

    page = client.get(page_url, **RUSSIAN).content.decode()
    assert "Плата за стол гостей (120" in page
    assert f'<option value="{vera.pk}">Вера</option>' in page
    client.force_login(anna)  # a member is not offered it, nor may he post it
    assert "guest-payer-" not in client.get(page_url, **RUSSIAN).content.decode()
    assert client.post(url, {"guest": guest.pk, "member": anna.pk}).status_code == 403
    client.force_login(organiser)

    response = client.post(url, {"guest": guest.pk, "member": vera.pk}, **RUSSIAN)

    assert response["Location"] == page_url
    page = client.get(page_url, **RUSSIAN).content.decode()
    assert "Вера платит за гостя Пётр со своего счёта." in page
    assert "за гостя платит: Вера" in page and "guest-payer-" not in page
    assert selectors.balances() == {vera.pk: Decimal("-120.00")}

    client.post(url, {"guest": guest.pk, "member": anna.pk}, **RUSSIAN)
    page = client.get(page_url, **RUSSIAN).content.decode()
    assert "Вера уже заплатил за гостя Пётр на этом вечере" in page
    client.post(url, {"guest": "x", "member": anna.pk}, **RUSSIAN)
    page = client.get(page_url, **RUSSIAN).content.decode()
    assert "гость не отмечен на этом вечере" in page
    assert selectors.balances() == {vera.pk: Decimal("-120.00")}
