"""A tournament day on phones (issue 32): the judge checks the field in, starts, seats
tour 1; on each of the two tables a player enters the deal on his phone and finishes it
(the tour is one deal long: the deal cap makes the table complete); every player
confirms his table — the scorer on the table page (htmx), the others on the tournament
page (a plain form) — the judge closes the tour, seats tour 2 by the standings (Swiss:
the leaders together), the same again, and the final standings are checked against
numbers worked out by hand.

Each deal is an 8♠ that both defenders pass on Sochi with a pool of 10: the declarer
writes 6 in his pool (8♠ is worth 6 in the Sochi pool, so 6 of the 10), and at the
close the pulka is settled on the pools: +40 whists for him, −20 for each defender
(``manage.py score`` of that one deal gives 40 / −20 / −20). The format's raw rule makes
those the tour points.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect

from members.models import Member
from scoring.models import Tournament
from scoring.services import tournaments as services
from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_pulka_flow import choose, pick, save_deal, sign_in, swapped_by

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

NAMES = ("Alla", "Boris", "Dima", "Egor", "Fima", "Gleb")
WIN, LOSS = Decimal(40), Decimal(-20)


def _draft(olga: Member) -> Tournament:
    """Six members entered, nobody checked in yet: two Swiss tours of one deal, three at
    a table, pool 10 on Sochi, raw points, a correction window of 0 (only the players'
    taps make a table final)."""
    tournament = factories.tournament(
        0,
        name="Осенний кубок",
        length=Tournament.DEALS,
        deals=1,
        correction_minutes=0,
    )
    tournament.judges.add(olga)
    for name in NAMES:
        member = factories.member(name, username=name.lower())
        services.entry_add(tournament=tournament, member=member)
    return tournament  # type: ignore[no-any-return]


def _seating(page: Page) -> list[tuple[str, list[str]]]:
    """The seating page's tables: each table's address and its players in seat order."""
    rows = []
    for row in page.locator("table.seating tbody tr").all():
        href = row.locator("th a").get_attribute("href")
        assert href is not None
        names = [n for n in row.locator("td").all_inner_texts() if n.strip()]
        rows.append((href, names))
    return rows


def _play(page: Page, table_url: str, declarer: str, defenders: list[str]) -> None:
    """On the scorer's phone: the one deal (8♠, both pass), then finish the table."""
    page.goto(table_url)
    form = page.locator("#deal-form")
    expect(form.locator(".deal-cap")).to_have_text("deal 1 of 1")
    choose(page, "kind", "game")
    choose(page, "declarer", declarer)
    pick(form, "level", "8")
    pick(form, "suit", "S")
    for name in defenders:
        pick(form, f"answer:{name}", "pass")
    save_deal(page)
    expect(page.locator("#deal-form .deal-cap")).to_have_text(
        "All 1 deals of the tour are played: finish the table."
    )
    page.get_by_role("link", name="Finish the table…").click()
    page.get_by_role("button", name="Finish the table").click()
    expect(page.locator("#table-body .table-head")).to_contain_text("finished")
    expect(page.locator("#table-finality")).to_contain_text("provisional: 0 of 3 confirmed")


def _confirm_on_table_page(page: Page, table_url: str, confirmed: int) -> None:
    page.goto(table_url)
    button = page.locator("#table-finality").get_by_role("button", name="Confirm the result")
    swapped_by(page, "#table-body", button.click)
    expect(page.locator("#table-finality")).to_contain_text(
        f"provisional: {confirmed} of 3 confirmed"
    )


def _confirm_on_tournament_page(page: Page, tournament_url: str) -> None:
    page.goto(tournament_url)
    tour = page.locator("section.tour").first
    tour.get_by_role("button", name="Confirm the result").click()
    expect(page.locator(".messages")).to_contain_text("result confirmed.")
    expect(
        page.locator("section.tour").first.get_by_role("button", name="Confirm the result")
    ).to_have_count(0)


def _play_and_confirm(
    phones: dict[str, Page],
    tournament_url: str,
    table_url: str,
    names: list[str],
    declarer: str,
    totals: dict[str, Decimal],
) -> None:
    """The table's first player scores the deal ``declarer`` wins and confirms on the
    table page; the other two confirm on the tournament page. Adds the results by hand."""
    defenders = [n for n in names if n != declarer]
    _play(phones[names[0]], table_url, declarer, defenders)
    _confirm_on_table_page(phones[names[0]], table_url, 1)
    for name in names[1:]:
        _confirm_on_tournament_page(phones[name], tournament_url)
    totals[declarer] += WIN
    for name in defenders:
        totals[name] += LOSS


def _close_tour(judge: Page, tournament_url: str) -> None:
    """Every table final («окончательно»): the judge closes the tour."""
    judge.goto(tournament_url)
    expect(judge.locator("section.tour").first.locator(".finality")).to_have_text(
        ["result final", "result final"]
    )
    judge.get_by_role("button", name="Close the tour").click()
    expect(judge.locator("section.tour").first.locator("h2 .badge")).to_have_text("locked")


def _standings(page: Page) -> dict[str, str]:
    """The standings now: each player's total, as the page shows it."""
    table = page.locator("#tournament-live table.tournament-standings").first
    shown = {}
    for row in table.locator("tbody tr").all():
        name = row.locator("th").inner_text().split("\n")[0].strip()
        shown[name] = row.locator("td strong").inner_text()
    return shown


def _figure(value: Decimal) -> str:
    return f"{value:.2f}"


def test_a_tournament_on_phones_from_check_in_to_the_final_standings(new_page, browser_problems):
    olga = factories.member("Olga", organiser=True, username="olga")
    tournament = _draft(olga)
    tournament_url = f"/tournaments/{tournament.pk}/"

    # -- the judge, on her phone, checks the field in and starts.
    judge = new_page(**PHONE)
    sign_in(judge, "olga")
    judge.goto(tournament_url)
    for _ in NAMES:
        judge.get_by_role("button", name="check in", exact=True).first.click()
    expect(judge.locator("h2", has_text="The field")).to_have_text("The field (6 / 6)")
    judge.get_by_role("button", name="Start the tournament").click()
    expect(judge.locator(".page-meta .badge")).to_have_text("running")

    phones = {}
    for name in NAMES:
        phones[name] = new_page(**PHONE)
        sign_in(phones[name], name.lower())

    totals = dict.fromkeys(NAMES, Decimal(0))

    # -- tour 1, drawn from the seed: each table's first player declares and wins.
    judge.goto(tournament_url)
    judge.get_by_role("button", name="Seat the next tour").click()
    tour1 = _seating(judge)
    assert sorted(n for _, names in tour1 for n in names) == sorted(NAMES)
    winners = [names[0] for _, names in tour1]
    for url, names in tour1:
        _play_and_confirm(phones, tournament_url, url, names, names[0], totals)
    _close_tour(judge, tournament_url)
    expect(judge.locator("#tournament-live h2").first).to_contain_text("after tour 1")
    assert _standings(judge) == {n: _figure(t) for n, t in totals.items()}

    # -- tour 2, seated by the standings: the two winners of tour 1 share table 1. Table
    # 1's winner of tour 1 wins again; at table 2 its last-seated player wins.
    judge.get_by_role("button", name="Seat the next tour").click()
    tour2 = _seating(judge)
    assert set(winners) <= set(tour2[0][1])
    for (url, names), declarer in zip(tour2, [winners[0], tour2[1][1][-1]], strict=True):
        _play_and_confirm(phones, tournament_url, url, names, declarer, totals)
    _close_tour(judge, tournament_url)

    # -- the final standings. By hand: tour 1's first winner 40 + 40 = 80; the other
    # winner of tour 1 40 − 20 = 20; tour 2's winner at table 2 −20 + 40 = 20; the third
    # player of table 1 and the two losers of table 2 −20 − 20 = −40 each.
    expect(judge.locator(".page-meta .badge")).to_have_text("finished")
    shown = _standings(judge)
    assert shown == {n: _figure(t) for n, t in totals.items()}
    assert shown[winners[0]] == "80.00" and shown[winners[1]] == "20.00"
    assert sorted(totals.values()) == [Decimal(v) for v in (-40, -40, -40, 20, 20, 80)]
    assert browser_problems.seen == []
