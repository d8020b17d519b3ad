"""A club evening on phones, by taps (issue 17 item 8): the organiser creates the evening,
checks the players in, draws, opens the tables; a scorer enters a deal at the table; the
organiser closes the table; the ledger shows who pays whom as the sheet's money says; and
closing the evening e-mails its summary. A 390×844 touch viewport in Debian's Chromium.

The money, by hand: one deal, 6♠ that both defenders pass, writes the declarer 2 into his
pool (Sochi, pool 20, a whist at 1). Closed there, the pool is settled in whists, 10 a
point shared among three players: the declarer's 2 points are 20 whists, of which he
wins two thirds from the other two, 20 × 2/3 = 13.33, and each of them pays him a third,
6.67 less the cent the total must lose (13.33 = 6.67 + 6.66).
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.core import mail
from django.utils import timezone
from playwright.sync_api import Page, expect

from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_phone import Thumb
from tests.browser.test_pulka_flow import result_row, sign_in, swapped_by

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

NAMES = ("Anna", "Boris", "Vera")


def tap_and_load(page: Page, target: str, **options: str) -> None:
    """Tap a link or a button that leads to a new page (a form's post/redirect/get)."""
    with page.expect_navigation():
        page.get_by_role(target, **options).tap()  # type: ignore[arg-type]


def money(text: str) -> Decimal:
    return Decimal(text.replace("−", "-").replace(",", ".").replace("+", "").strip())


def test_an_evening_from_check_in_to_the_ledger_by_taps(new_page, browser_problems):
    factories.member("Olga", organiser=True, username="olga", email="olga@club.example")
    for name in NAMES:
        factories.member(name, username=name.lower(), email=f"{name.lower()}@club.example")
    organiser = new_page(**PHONE)
    sign_in(organiser, "olga")

    # The organiser creates tonight's evening (the date is today's, filled in).
    organiser.goto("/evenings/")
    expect(organiser.get_by_label("Date")).to_have_value(timezone.localdate().isoformat())
    organiser.get_by_label("Place").fill("Hall")
    tap_and_load(organiser, "button", name="Create the evening")
    expect(organiser.locator("h1")).to_contain_text("Club evening")
    evening_url = organiser.url

    # Check-in: the list opened once, then one tap on each arriving member's name; htmx
    # swaps the region in and the list stays open for the next (issue 30).
    organiser.locator("summary", has_text="Check in").tap()
    check_in = organiser.locator("details#check-in")
    for n, name in enumerate(NAMES, start=1):
        arrival = check_in.get_by_role("button", name=name, exact=True)
        swapped_by(organiser, "#evening-setup", arrival.tap)
        expect(organiser.locator("ul.checked-in > li")).to_have_count(n)
        expect(check_in).to_have_attribute("open", "")
        expect(check_in.get_by_role("button", name="Olga", exact=True)).to_be_visible()

    # The draw: three players, one table of three; then it opens.
    tap_and_load(organiser, "button", name="Draw the tables")
    expect(organiser.locator("ol.draft > li")).to_have_count(1)
    seed = organiser.locator("p", has_text="Seed").locator("strong").inner_text()
    assert re.fullmatch(r"\d+", seed)
    tap_and_load(organiser, "button", name="Open all the tables")
    table_link = organiser.locator("#evening-tables a").first
    expect(table_link).to_contain_text("Preferans #")
    table_url = table_link.get_attribute("href")
    assert table_url is not None

    # A scorer at the table, on her own phone: the first hand plays 6♠, both pass.
    scorer = new_page(**PHONE)
    sign_in(scorer, "anna")
    scorer.goto(table_url)
    thumb = Thumb(scorer)
    declarer = thumb.form.locator('input[name="declarer"]:checked').get_attribute("value")
    assert declarer in NAMES
    thumb.choose("level", "6")
    thumb.save()
    assert thumb.deal() == 2

    # The organiser closes the table (early: its pools are open), with a reason.
    organiser.goto(table_url)
    tap_and_load(organiser, "link", name="Close the table early…")
    organiser.get_by_label("Reason").fill("the evening is over")
    organiser.get_by_label("yes", exact=True).check()  # it counts in the standings
    tap_and_load(organiser, "button", name="Close the table")
    sheet = {name: money(result_row(organiser, name).last.inner_text()) for name in NAMES}
    defenders = [name for name in NAMES if name != declarer]
    assert sheet[declarer] == Decimal("13.33")
    assert sorted(sheet[name] for name in defenders) == [Decimal("-6.67"), Decimal("-6.66")]

    # The ledger: each defender pays the declarer what the sheet says he lost.
    organiser.goto(evening_url)
    tap_and_load(organiser, "link", name="Who pays whom")
    lines = organiser.locator("ol.ledger > li")
    expect(lines).to_have_count(2)
    shown = {}
    for text in lines.all_inner_texts():
        found = re.match(r"(\w+) → (\w+): ([\d.,]+)", text)
        assert found is not None, text
        payer, payee, amount = found.groups()
        assert payee == declarer
        shown[payer] = money(amount)
    assert shown == {name: -sheet[name] for name in defenders}

    # Closing the evening mails the summary to the three who played.
    organiser.goto(evening_url)
    mail.outbox.clear()  # the finished table's own e-mails
    tap_and_load(organiser, "link", name="Close the evening…")
    tap_and_load(organiser, "button", name="Close the evening and send the summary")
    expect(organiser.locator(".message")).to_contain_text("its summary goes to 3 members")
    assert sorted(message.to[0] for message in mail.outbox) == [
        f"{name.lower()}@club.example" for name in NAMES
    ]
    assert browser_problems.seen == []
