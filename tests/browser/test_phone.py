"""The table at the table (issue 14): the deal form on a 390×844 touch phone, counted in
taps; Save on the first screen; a readable sheet; no page wider than the phone; the wide
screen's side-by-side layout; axe-core's accessibility rules; a deal entered by keyboard.

Taps are counted as Playwright ``tap()`` calls on a ``has_touch`` context, Save included.
The targets are issue 14's: a whisted game ≤ 8, a pass-out ≤ 5, a made misère ≤ 3, a game
both defenders pass ≤ 3.
"""

from __future__ import annotations

import datetime
import itertools
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from scoring.models import Season
from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_pulka_flow import SAVED, sign_in, swapped_by

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PHONE_WIDTH = PHONE["viewport"]["width"]
PHONE_HEIGHT = PHONE["viewport"]["height"]
TAP_TARGET = 44  # CSS px, each way (WCAG 2.5.5)
LABEL_PX = 11


class Thumb:
    """Taps the deal form's buttons and counts the taps; each tapped target must be at
    least 44 × 44 CSS px."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.form = page.locator("#deal-form")
        self.taps = 0

    def tap(self, target: Locator) -> None:
        box = target.bounding_box()
        assert box is not None
        assert box["width"] >= TAP_TARGET and box["height"] >= TAP_TARGET, box
        target.tap()
        self.taps += 1

    def button(self, field: str, value: str) -> Locator:
        return self.form.locator(f'label.segment:has(input[name="{field}"][value="{value}"])')

    def choose(self, field: str, value: str) -> None:
        """A choice that only records itself."""
        self.tap(self.button(field, value))
        expect(self.form.locator(f'input[name="{field}"][value="{value}"]')).to_be_checked()

    def redraw(self, field: str, value: str) -> None:
        """A choice that changes the form's rows (the kind, the declarer): a Preferans form
        switches them in the page, a Boston form is redrawn by htmx."""
        if self.form.locator('input[name="drawn"]').count():
            self.choose(field, value)
        else:
            swapped_by(self.page, "#deal-form", lambda: self.tap(self.button(field, value)))

    def save(self) -> None:
        save = self.form.get_by_role("button", name="Save deal")
        swapped_by(self.page, "#sheet", lambda: self.tap(save))
        expect(self.form.locator(".buttons .deal-saved")).to_have_text(SAVED)

    def deal(self) -> int:
        """Taps for the deal just saved; the count starts again."""
        taps, self.taps = self.taps, 0
        return taps


def latest_deal(page: Page) -> Locator:
    return page.locator("#sheet .deal-log > li").first


def test_each_kind_of_deal_in_a_few_taps(new_page):
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    table = factories.pulka([anna, boris, vera])  # Anna deals first
    page = new_page(**PHONE)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    thumb = Thumb(page)

    # Deal 1, Anna deals: the first hand, Boris, plays 6♠ and both defenders pass.
    expect(thumb.form.locator('input[name="declarer"][value="Boris"]')).to_be_checked()
    thumb.choose("level", "6")
    thumb.save()
    assert thumb.deal() == 2  # ≤ 3
    expect(latest_deal(page)).to_contain_text("Boris")
    expect(latest_deal(page)).to_contain_text("6♠")

    # Deal 2, Boris deals (first hand Vera): Anna plays 7♥, Boris whists, Vera passes;
    # Anna 7 tricks, Boris 2, and Vera's 1 is derived.
    thumb.redraw("declarer", "Anna")
    thumb.choose("level", "7")
    thumb.choose("suit", "H")
    thumb.choose("answer:Boris", "whist")
    thumb.choose("tricks:Anna", "7")
    thumb.choose("tricks:Boris", "2")
    expect(thumb.form.locator('input[name="tricks:Vera"][value="1"]')).to_be_checked()
    thumb.save()
    assert thumb.deal() == 7  # ≤ 8
    expect(latest_deal(page)).to_contain_text("7♥")
    expect(latest_deal(page)).to_contain_text("Boris → Anna")

    # Deal 3, Vera deals (first hand Anna): Anna's misère, clean.
    thumb.redraw("kind", "misere")
    thumb.choose("tricks:Anna", "0")
    thumb.save()
    assert thumb.deal() == 3  # ≤ 3
    expect(latest_deal(page)).to_contain_text("misère · Anna")

    # Deal 4: a pass-out, Anna 4, Boris 4, and Vera's 2 derived.
    thumb.redraw("kind", "passout")
    thumb.choose("tricks:Anna", "4")
    thumb.choose("tricks:Boris", "4")
    expect(thumb.form.locator('input[name="tricks:Vera"][value="2"]')).to_be_checked()
    thumb.save()
    assert thumb.deal() == 4  # ≤ 5
    expect(latest_deal(page)).to_contain_text("pass-out")
    expect(page.locator("#sheet .deal-log > li")).to_have_count(4)


def test_the_form_says_what_is_missing_and_the_server_still_checks(new_page):
    table = factories.pulka([factories.member(n, username=n.lower()) for n in ("Anna", "Bo", "Vi")])
    page = new_page(**PHONE)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    thumb = Thumb(page)
    missing = thumb.form.locator(".deal-missing")
    expect(missing).to_be_hidden()  # nothing is said before anything is touched
    thumb.redraw("kind", "passout")
    expect(missing).to_have_text("distribute the tricks: 0 of 10")
    thumb.choose("tricks:Anna", "6")
    expect(missing).to_have_text("distribute the tricks: 6 of 10")
    thumb.choose("tricks:Bo", "5")  # no number is left for Vi
    expect(thumb.form.locator('input[name="tricks:Vi"]:checked')).to_have_count(0)
    expect(missing).to_have_text("distribute the tricks: 11 of 10")
    # Saved anyway, the server refuses it and nothing is written.
    thumb.tap(thumb.form.get_by_role("button", name="Save deal"))
    expect(thumb.form.locator(".errorlist").first).to_be_visible()
    expect(page.locator("#sheet")).to_contain_text("No deals yet.")


def demo_table() -> Any:
    """A pulka in play with a long sheet: the page the scorer sees late in the evening."""
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    deals = [
        {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}},
        {
            "kind": "game",
            "declarer": "Anna",
            "contract": "7S",
            "answers": {"Boris": "whist", "Vera": "pass"},
            "tricks": {"Anna": 7, "Boris": 3, "Vera": 0},
        },
        {"kind": "misere", "declarer": "Boris", "tricks": {"Boris": 0}},
        {
            "kind": "game",
            "declarer": "Vera",
            "contract": "6H",
            "answers": {"Anna": "pass", "Boris": "pass"},
        },
    ] * 3
    return factories.pulka([anna, boris, vera], deals=deals, pool_target=50)


def test_save_is_on_the_first_screen_and_the_sheet_is_readable(new_page):
    table = demo_table()
    page = new_page(**PHONE)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    save = page.locator("#deal-form").get_by_role("button", name="Save deal")
    expect(save).to_be_visible()
    assert page.evaluate("window.scrollY") == 0
    box = save.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE_HEIGHT, box
    # Every word of the drawn sheet at its size as displayed (the SVG's scale applied), once
    # "Actual size" is on: by default the whole sheet fits the phone (test_sheet_phone.py).
    page.get_by_text("Actual size").tap()
    sizes = page.evaluate(
        """() => {
            const svg = document.querySelector('#sheet svg.pulka-sheet');
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return Array.from(svg.querySelectorAll('text'))
                .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
        }"""
    )
    assert sizes and min(sizes) >= LABEL_PX, min(sizes)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def site_pages(table: Any, finished: Any, season: Season, username: str) -> list[str]:
    return [
        "/",
        "/tables/",
        f"/tables/{table.pk}/",
        f"/tables/{finished.pk}/",
        "/tables/new/preferans/",
        "/tables/new/boston/",
        "/tables/import/",
        f"/tables/{table.pk}/print/",
        "/seasons/",
        f"/seasons/{season.pk}/preferans/",
        "/standings/preferans/",
        f"/members/{username}/",
        "/tariffs/",
        "/rules/",
    ]


def test_no_page_is_wider_than_a_phone(new_page):
    table = demo_table()
    others = [factories.member(n) for n in ("Gleb", "Dina", "Oleg")]
    finished = factories.finished_pulka(others, others[0], datetime.date(2026, 3, 1))
    season = Season.objects.create(
        name="Spring", starts_on=datetime.date(2020, 1, 1), ends_on=datetime.date(2040, 1, 1)
    )
    guest = new_page(**PHONE)
    guest.goto("/members/sign-in/")
    widths = {"/members/sign-in/": guest.evaluate("document.documentElement.scrollWidth")}
    page = new_page(**PHONE)
    sign_in(page, "anna")
    for url in site_pages(table, finished, season, "anna"):
        page.goto(url)
        widths[url] = page.evaluate("document.documentElement.scrollWidth")
    assert {url: w for url, w in widths.items() if w > PHONE_WIDTH} == {}


def test_a_wide_screen_shows_sheet_form_and_log_side_by_side(new_page):
    table = demo_table()
    page = new_page(viewport={"width": 1280, "height": 900})
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    boxes = [
        page.locator(selector).bounding_box()
        for selector in ("#sheet .sheet-main", "#sheet .sheet-log", "#deal-form")
    ]
    assert all(box is not None for box in boxes)
    lefts = sorted((b["x"], b["x"] + b["width"], b["y"]) for b in boxes if b)
    for (_, right, _), (left, _, _) in itertools.pairwise(lefts):
        assert right <= left  # side by side, not overlapping
    assert all(top < 900 for _, _, top in lefts)  # all three start on the first screen


def serious(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each."""
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}"
        for v in results.response["violations"]
        if v["impact"] in {"serious", "critical"}
    ]


def test_axe_finds_nothing_serious(new_page):
    table = demo_table()
    page = new_page(**PHONE)
    sign_in(page, "anna")
    found = {}
    for url in (
        f"/tables/{table.pk}/",
        "/tables/new/preferans/",
        "/standings/preferans/",
        "/members/anna/",
    ):
        page.goto(url)
        found[url] = serious(page)
    assert {url: problems for url, problems in found.items() if problems} == {}


def test_a_deal_entered_from_the_keyboard(new_page):
    table = factories.pulka([factories.member(n, username=n.lower()) for n in ("Anna", "Bo", "Vi")])
    page = new_page()
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    form = page.locator("#deal-form")
    form.locator('input[name="kind"]:checked').focus()

    def tab_to(selector: str) -> None:
        for _ in range(60):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement.matches({selector!r})"):
                return
        pytest.fail(f"Tab never reached {selector}")

    tab_to('input[name="level"]')  # no contract chosen yet: the first, 6
    page.keyboard.press("ArrowRight")  # 7
    expect(form.locator('input[name="level"][value="7"]')).to_be_checked()
    tab_to('button[type="submit"]:not([name])')
    swapped_by(page, "#sheet", lambda: page.keyboard.press("Enter"))
    expect(latest_deal(page)).to_contain_text("7♠")


def test_a_boston_deal_in_taps(new_page):
    players = [factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera", "Gleb")]
    table = factories.boston_table(players, preference_suit="hearts")
    page = new_page(**PHONE)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    thumb = Thumb(page)
    expect(thumb.form.locator('input[name="kind"][value="ask"]')).to_be_checked()
    expect(thumb.form.locator(".deal-missing")).to_be_hidden()  # not before a touch
    # Anna asks with Vera as partner, hearts trump (major at this table), 9 tricks.
    thumb.choose("declarer", "Anna")
    expect(thumb.form.locator(".deal-missing")).to_have_text(
        "still to choose: tricks of the declaring side"
    )
    thumb.choose("partner", "Vera")
    thumb.choose("trump", "hearts")
    thumb.choose("tricks", "9")
    expect(thumb.form.locator(".deal-missing")).to_be_hidden()
    thumb.save()
    assert thumb.deal() == 5
    expect(latest_deal(page)).to_contain_text("Anna")
    expect(page.locator("#sheet .deal-log > li")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH
