"""The paper history brought in on a phone (issue 34, item 6): an organiser uploads a CSV
of past results from the tables list, sees a refused row by its line, uploads the corrected
file, checks the dry run and confirms, and the all-time board counts the notebook's
tables. A 390×844 touch viewport in Debian's Chromium.

The figures, by hand: at table 1 Anna +40, Boris −13.33 and Pyotr (a guest) −26.67; at
table 2 Anna −10, Boris +25, Vera −15. Anna's all-time total is 40 − 10 = 30 in two
tables, Boris's −13.33 + 25 = 11.67, Vera's −15; Pyotr is on no board.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Guest, Table
from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_evening_flow import tap_and_load
from tests.browser.test_pulka_flow import sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def notebook(day: datetime.date, boris_at_2: str = "25") -> str:
    d = day.isoformat()
    return (
        "table,date,game,player,result\n"
        f"1,{d},preferans,anna,40\n1,{d},preferans,boris,-13.33\n1,{d},preferans,Pyotr,-26.67\n"
        f"2,{d},preferans,anna,-10\n2,{d},preferans,boris,{boris_at_2}\n2,{d},preferans,vera,-15\n"
    )


def fits_the_phone(page: Page) -> None:
    """No page is wider than the phone: a wide table scrolls in its own box."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["viewport"]["width"]


def test_an_organiser_brings_the_paper_history_in_from_a_phone(new_page, tmp_path: Path):
    factories.member("Olga", organiser=True, username="olga")
    for name in ("Anna", "Boris", "Vera"):
        factories.member(name, username=name.lower())
    day = datetime.date.today() - datetime.timedelta(days=30)
    bad, good = tmp_path / "bad.csv", tmp_path / "notebook.csv"
    bad.write_text(notebook(day, boris_at_2="twenty-five"), encoding="utf-8")
    good.write_text(notebook(day), encoding="utf-8")
    phone = new_page(**PHONE)
    sign_in(phone, "olga")

    phone.goto("/tables/")
    tap_and_load(phone, "link", name="Paper history")
    expect(phone.locator("h1")).to_have_text("Paper history")
    fits_the_phone(phone)

    # A file with a bad cell: every refusal by its line, and no way to import it.
    phone.get_by_label("file of past results (CSV)").set_input_files(bad)
    check_the_results(phone)
    refused = phone.locator("#history-refused")
    expect(refused).to_contain_text("2 rows refused")
    expect(refused.locator("tr", has_text="twenty-five is not a number")).to_contain_text("6")
    expect(refused).to_contain_text("table 2 is left out: one of its rows is refused")
    expect(phone.get_by_role("button", name=re.compile("^Import"))).to_have_count(0)
    fits_the_phone(phone)
    assert not Table.objects.exists()

    # The corrected file: the dry run shows both tables and the new guest.
    tap_and_load(phone, "link", name="Upload a corrected file")
    phone.get_by_label("file of past results (CSV)").set_input_files(good)
    check_the_results(phone)
    plan = phone.locator("#history-plan")
    expect(plan).to_contain_text("2 tables to import")
    expect(plan).to_contain_text("New guests: Pyotr")
    expect(plan.locator("article").first).to_contain_text("new guest")
    fits_the_phone(phone)
    assert not Table.objects.exists()  # a dry run writes nothing

    tap_and_load(phone, "button", name="Import 2 tables")
    expect(phone.locator("body")).to_contain_text("Imported: 2 tables, 1 new guests.")
    expect(phone.locator("body")).to_contain_text("notebook.csv")
    assert Table.objects.filter(totals_only=True).count() == 2
    assert Guest.objects.get().name == "Pyotr"

    # The all-time board counts the notebook: Anna 30 in 2 tables, Boris 11.67, Vera −15.
    phone.goto("/standings/preferans/")
    board = phone.locator("table.figures").first
    anna = board.locator("tr", has_text="Anna")
    expect(anna).to_contain_text("30")
    expect(board.locator("tr", has_text="Boris")).to_contain_text("11.67")
    expect(board).not_to_contain_text("Pyotr")
    fits_the_phone(phone)

    # A table of the notebook: its totals and no sheet.
    table = Table.objects.filter(totals_only=True).order_by("pk").first()
    assert table is not None
    phone.goto(f"/tables/{table.pk}/")
    expect(phone.locator("#table-totals")).to_contain_text("no deals and no sheet")
    expect(phone.locator("#table-totals")).to_contain_text("Pyotr")
    fits_the_phone(phone)


def check_the_results(phone: Page) -> None:
    """Send the results' file to its dry run (the members' file has a button of its own)."""
    results = phone.locator("form", has=phone.get_by_label("file of past results (CSV)"))
    with phone.expect_navigation():
        results.get_by_role("button", name="Check the file").tap()
