"""Answering an evening announced ahead on a 390×844 phone, in one tap (issue 34 item 1):
the calendar swaps the evening's answer region in place (htmx, no new page), the pressed
button is the answer given, and a seat freed by someone's «не приду» goes to the first in
line by itself."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from scoring.services import calendar as services
from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_pulka_flow import sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_a_member_answers_an_evening_in_one_tap(new_page, browser_problems):
    olga = factories.member("Olga", organiser=True, username="olga")
    anna = factories.member("Anna", username="anna")
    (evening,) = services.evening_schedule(
        organiser=olga,
        played_on=timezone.localdate() + datetime.timedelta(days=3),
        starts_at=datetime.time(19, 0),
        place="Hall",
        game="preferans",
        table_size=4,
        seats=3,
    )
    boris, vera, gleb = (factories.member(n) for n in ("Boris", "Vera", "Gleb"))
    for member in (boris, vera, gleb):
        services.evening_answer(evening=evening, member=member, answer="yes")

    page = new_page(**PHONE)
    sign_in(page, "anna")
    page.goto("/evenings/calendar/")
    region = page.locator(f"#evening-answer-{evening.pk}")
    expect(region).to_contain_text("3 coming of 3 seats")
    coming = region.get_by_role("button", name="Coming", exact=True)
    box = coming.bounding_box()
    assert box is not None and box["height"] >= 44 and box["y"] + box["height"] <= 844
    url = page.url

    coming.tap()  # one tap: the region is swapped in place, the page stays
    expect(region).to_contain_text("waiting list: number 1")
    expect(region.get_by_role("button", name="Coming", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    assert page.url == url
    assert evening.answers.get(member=anna).answer == "yes"

    # Gleb cannot come: Anna, first in line, has his seat without doing anything.
    services.evening_answer(evening=evening, member=gleb, answer="no")
    page.reload()
    region = page.locator(f"#evening-answer-{evening.pk}")
    expect(region).to_contain_text("3 coming of 3 seats · 0 maybe · 1 not coming")
    expect(region).not_to_contain_text("waiting list")

    region.get_by_role("button", name="Maybe", exact=True).tap()
    expect(region.get_by_role("button", name="Maybe", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(region).to_contain_text("2 coming of 3 seats")
    assert browser_problems.seen == []
