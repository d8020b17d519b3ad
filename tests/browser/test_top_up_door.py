"""A member's account with the club on phones (issue 34, item 6): the organiser records a
top-up in the cash book; after the evening's game, at the door, Vera's payment of the
ledger is settled «через счёт» (through the accounts) from that top-up, Boris's is refused
for an empty account and paid in cash; closing the evening draws the table money. The
balance on the member's own page and in the organisers' members list is the sum of the
entries, to the cent. A 390×844 touch viewport in Debian's Chromium.

The evening's game is ``factories.finished_pulka`` (the evening's check-in, draw and
scoring by taps are ``test_evening_flow.py``'s): Anna wins a short pulka, Vera pays her
33.34 and Boris 33.33 (the ledger's lines, as in ``tests/scoring/test_permissions.py``).

The money, by hand (the club draws 5.00 of table money from the accounts on closing):

* Vera: top-up 50.00, settled to Anna −33.34, table money −5.00: 50.00 − 33.34 − 5.00 = 11.66
* Anna: settled from Vera +33.34, table money −5.00: 28.34
* Boris: pays Anna in cash (no entry), table money −5.00: −5.00
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import Locator, Page, expect

from members.models import Member
from scoring.models import AccountEntry, Attendance, Club, Evening, EveningTable
from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_evening_flow import money, tap_and_load
from tests.browser.test_history_upload import fits_the_phone
from tests.browser.test_pulka_flow import sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

BALANCES = {"Anna": Decimal("28.34"), "Boris": Decimal("-5.00"), "Vera": Decimal("11.66")}


def entries_sum(member: Member) -> Decimal:
    return sum((e.amount for e in AccountEntry.objects.filter(member=member)), Decimal(0))


def ledger_line(page: Page, payer: str) -> Locator:
    return page.locator("ol.ledger > li").filter(has_text=re.compile(rf"^\s*{payer} → Anna"))


def test_a_top_up_pays_at_the_door_and_the_balances_add_up(new_page, browser_problems):
    olga = factories.member("Olga", organiser=True, username="olga")
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    Club.objects.update_or_create(
        pk=Club.ONLY_PK, defaults={"account_table_money": Decimal("5.00")}
    )
    today = timezone.localdate()
    evening = Evening.objects.create(organiser=olga, played_on=today)
    for member in (anna, boris, vera):
        Attendance.objects.create(evening=evening, member=member)
    organiser = new_page(**PHONE)
    sign_in(organiser, "olga")

    # Before the evening: Vera hands Olga 50 and Olga records it in the cash book.
    organiser.goto("/accounts/")
    organiser.get_by_label("member").select_option(label="Vera")
    organiser.get_by_label("kind").select_option(value="top_up")
    organiser.get_by_label("amount").fill("50")
    tap_and_load(organiser, "button", name="Record")
    expect(organiser.locator(".message").first).to_contain_text("Vera")
    entry = AccountEntry.objects.get()
    assert (entry.member, entry.kind, entry.amount, entry.recorded_by) == (
        vera,
        "top_up",
        Decimal("50.00"),
        olga,
    )

    # The evening is played: Anna wins, Vera owes her 33.34, Boris 33.33.
    table = factories.finished_pulka([anna, boris, vera], anna, today)
    EveningTable.objects.create(evening=evening, table=table, round=1)

    # At the door: Vera and Anna agree that Vera pays from her account.
    organiser.goto(f"/evenings/{evening.pk}/ledger/")
    expect(organiser.locator("ol.ledger > li")).to_have_count(2)
    vera_line = ledger_line(organiser, "Vera")
    expect(vera_line).to_contain_text("33.34")
    button = vera_line.get_by_role("button", name="through the accounts")
    box = button.bounding_box()
    assert box is not None and box["height"] >= 36  # a row's small button (docs/design.md)
    with organiser.expect_navigation():
        button.tap()
    expect(organiser.locator(".message").first).to_contain_text("Settled through the accounts.")
    expect(ledger_line(organiser, "Vera")).to_contain_text("paid, marked")
    fits_the_phone(organiser)

    # Boris has nothing on his account: refused with the reason, nothing moves; he pays cash.
    with organiser.expect_navigation():
        ledger_line(organiser, "Boris").get_by_role("button", name="through the accounts").tap()
    expect(organiser.locator(".message").first).to_contain_text(
        "Boris has 0.00 on the account: not enough, settle in cash"
    )
    assert AccountEntry.objects.filter(member=boris).count() == 0
    with organiser.expect_navigation():
        ledger_line(organiser, "Boris").get_by_role("button", name="mark as paid").tap()
    expect(ledger_line(organiser, "Boris")).to_contain_text("paid, marked")

    # Closing the evening draws the table money, 5.00 from each of the three.
    organiser.goto(f"/evenings/{evening.pk}/")
    tap_and_load(organiser, "link", name="Close the evening…")
    tap_and_load(organiser, "button", name="Close the evening and send the summary")
    expect(organiser.locator(".message").first).to_contain_text("The evening is closed")

    by_name = {"Anna": anna, "Boris": boris, "Vera": vera}
    assert {name: entries_sum(m) for name, m in by_name.items()} == BALANCES

    # The organisers' members list shows each balance, the entries' sum.
    organiser.goto("/members/manage/")
    for name, balance in BALANCES.items():
        row = organiser.locator("table.member-list tbody tr").filter(
            has=organiser.locator("th", has_text=re.compile(rf"^{name}$"))
        )
        assert money(row.locator("td.num").inner_text()) == balance, name

    # Vera, on her own phone, sees her balance and the three entries that make it up.
    member = new_page(**PHONE)
    sign_in(member, "vera")
    member.goto("/members/vera/")
    account = member.locator("section.member-account")
    assert money(account.locator(".stat__value").inner_text()) == BALANCES["Vera"]
    amounts = [money(a) for a in account.locator("td.num").all_inner_texts()]
    assert sorted(amounts) == [Decimal("-33.34"), Decimal("-5.00"), Decimal("50.00")]
    assert sum(amounts) == BALANCES["Vera"]
    fits_the_phone(member)

    # The organiser sees the same on Vera's page; Boris, a member, does not.
    organiser.goto("/members/vera/")
    shown = organiser.locator("section.member-account .stat__value").inner_text()
    assert money(shown) == BALANCES["Vera"]
    other = new_page(**PHONE)
    sign_in(other, "boris")
    other.goto("/members/vera/")
    expect(other.locator("h1")).to_have_text("Vera")
    expect(other.locator("section.member-account")).to_have_count(0)
    assert browser_problems.seen == []
