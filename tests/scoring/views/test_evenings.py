"""The evening pages (scoring/views/evenings.py): check-in by tap, the draw and its seed,
opening the tables, the live tables region, the ledger page and its CSV."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from members.models import Member
from scoring.models import Attendance, Evening, EveningAnswer, EveningTable, Table
from scoring.services import evenings as services
from tests import factories
from tests.factories import HTMX

pytestmark = pytest.mark.django_db
DAY = datetime.date(2026, 11, 20)


def _evening(organiser: Member) -> Evening:
    return services.evening_create(
        organiser=organiser, played_on=DAY, place="Hall", game="preferans", table_size=4
    )


def test_an_organiser_creates_an_evening(client: Client, organiser: Member) -> None:
    response = client.post(
        reverse("scoring:evening_create"),
        {"played_on": "2026-11-20", "place": "Hall", "game": "preferans", "table_size": "3"},
    )
    evening = Evening.objects.get()
    assert response["Location"] == reverse("scoring:evening_detail", args=[evening.pk])
    assert (evening.place, evening.table_size, evening.organiser) == ("Hall", 3, organiser)


def test_a_bad_evening_form_answers_with_its_errors(client: Client, organiser: Member) -> None:
    response = client.post(reverse("scoring:evening_create"), {"played_on": "x", "game": "chess"})
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not Evening.objects.exists()


def test_the_organiser_taps_people_in_draws_and_opens(client: Client, organiser: Member) -> None:
    evening = _evening(organiser)
    people = [factories.member(f"P{i}") for i in range(7)]
    page = client.get(reverse("scoring:evening_detail", args=[evening.pk])).content.decode()
    assert "P3" in page  # the tap list offers who is not here yet
    for m in people:
        client.post(reverse("scoring:evening_check_in", args=[evening.pk]), {"member": m.pk})
    assert Attendance.objects.filter(evening=evening).count() == 7
    client.post(reverse("scoring:evening_draw", args=[evening.pk]), {"seed": "4242"})
    page = client.get(reverse("scoring:evening_detail", args=[evening.pk])).content.decode()
    assert "<strong>4242</strong>" in page
    assert page.count("Deals first: ") == 2
    response = client.post(reverse("scoring:evening_open", args=[evening.pk]))
    assert response.status_code == 302
    assert EveningTable.objects.filter(evening=evening).count() == 2
    assert Table.objects.filter(status=Table.OPEN).count() == 2
    live = client.get(reverse("scoring:evening_detail", args=[evening.pk]), **HTMX)
    html = live.content.decode()
    assert html.startswith('\n<section id="evening-tables"') or html.lstrip().startswith(
        '<section id="evening-tables"'
    )
    assert html.count("/tables/") == 2
    assert "<h1>" not in html


def test_a_draw_that_cannot_seat_says_why(client: Client, organiser: Member) -> None:
    evening = _evening(organiser)
    for i in range(5):
        Attendance.objects.create(evening=evening, member=factories.member(f"P{i}"))
    response = client.post(reverse("scoring:evening_draw", args=[evening.pk]), {"seed": ""})
    page = client.get(response["Location"]).content.decode()
    assert "5 players cannot be seated" in page
    evening.refresh_from_db()
    assert evening.draft is None


def test_a_member_checks_himself_in_but_not_another(client: Client) -> None:
    evening = _evening(factories.member("Olga", organiser=True))
    vera, gleb = factories.member("Vera"), factories.member("Gleb")
    client.force_login(vera)
    url = reverse("scoring:evening_check_in", args=[evening.pk])
    assert client.post(url, {"member": gleb.pk}).status_code == 403
    assert client.post(url, {"member": "x"}).status_code == 403
    assert client.post(url, {"member": vera.pk}).status_code == 302
    assert list(evening.attendances.values_list("member", flat=True)) == [vera.pk]
    assert client.post(reverse("scoring:evening_draw", args=[evening.pk])).status_code == 403


def test_the_evening_page_costs_a_fixed_number_of_queries(
    client: Client, organiser: Member, django_assert_num_queries: object
) -> None:
    evening = _evening(organiser)
    for i in range(7):
        Attendance.objects.create(evening=evening, member=factories.member(f"P{i}"))
    services.evening_draw(evening=evening, seed=1)
    services.evening_open_tables(evening=evening, by=organiser)
    for i, answer in enumerate(("yes", "yes", "maybe", "no")):
        member = factories.member(f"A{i}")
        queued = timezone.now() if answer == "yes" else None
        EveningAnswer.objects.create(
            evening=evening, member=member, answer=answer, queued_at=queued
        )
    url = reverse("scoring:evening_detail", args=[evening.pk])
    client.get(url)
    # 11: the guests who came before (a tap list to check one in again) is one query, the
    # answers with their members another; the organiser is read with whether he is one;
    # the club's name comes from the cache.
    with django_assert_num_queries(11):  # type: ignore[operator]
        client.get(url)


def test_the_ledger_page_and_csv(client: Client, organiser: Member) -> None:
    evening = _evening(organiser)
    anna, boris, vera = (factories.member(n) for n in ("=Anna", "Boris", "Vera"))
    table = factories.finished_pulka([anna, boris, vera], anna, DAY)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    page = client.get(reverse("scoring:evening_ledger", args=[evening.pk])).content.decode()
    assert "Vera → =Anna: <strong>33.34</strong>" in page
    assert "Boris → =Anna: <strong>33.33</strong>" in page
    csv = client.get(reverse("scoring:evening_ledger_csv", args=[evening.pk]))
    assert csv["Content-Type"] == "text/csv; charset=utf-8"
    assert csv.content.decode().splitlines() == [
        "payer,payee,amount",
        "Vera,'=Anna,33.34",
        "Boris,'=Anna,33.33",
    ]
    client.post(
        reverse("scoring:settlement_mark", args=[evening.pk]),
        {"payer": f"m{vera.pk}", "payee": f"m{anna.pk}", "amount": "33.34"},
    )
    assert evening.settlements.get().amount == Decimal("33.34")
    page = client.get(reverse("scoring:evening_ledger", args=[evening.pk])).content.decode()
    assert "paid, marked" in page


def _ledger_evening(organiser: Member) -> tuple[Evening, list[Member]]:
    """Anna wins a short pulka of the evening: Vera pays her 33.34, Boris 33.33."""
    evening = _evening(organiser)
    players = [factories.member(n) for n in ("Anna", "Boris", "Vera")]
    table = factories.finished_pulka(players, players[0], DAY)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    return evening, players


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_ledger_s_own_button_marks_a_payment_paid_in_either_language(
    language: str, organiser: Member
) -> None:
    """The page writes the amount in its language («33,34» in Russian); the button posts
    one the view reads, so the payment is found (issue 35, item 5)."""
    evening, (anna, _boris, vera) = _ledger_evening(organiser)
    client = Client(headers={"accept-language": language})
    client.force_login(organiser)
    page = client.get(reverse("scoring:evening_ledger", args=[evening.pk])).content.decode()
    shown = "33,34" if language == "ru" else "33.34"
    assert f"Vera → Anna: <strong>{shown}</strong>" in page
    form = re.search(
        rf'name="payer" value="m{vera.pk}">.*?name="amount" value="([^"]*)"', page, re.S
    )
    assert form is not None
    response = client.post(
        reverse("scoring:settlement_mark", args=[evening.pk]),
        {"payer": f"m{vera.pk}", "payee": f"m{anna.pk}", "amount": form[1]},
    )
    assert response.status_code == 302
    assert evening.settlements.get().amount == Decimal("33.34")
    after = client.get(response["Location"]).content.decode()
    mark = reverse("scoring:settlement_mark", args=[evening.pk])
    assert after.count(f'action="{mark}"') == 1  # Boris's payment is left to mark


@pytest.mark.parametrize(("language", "typed"), [("ru", "33,34"), ("ru", "33.34"), ("en", "33.34")])
def test_an_amount_typed_as_the_language_writes_it_is_read(
    language: str, typed: str, organiser: Member
) -> None:
    evening, (anna, _boris, vera) = _ledger_evening(organiser)
    client = Client(headers={"accept-language": language})
    client.force_login(organiser)
    client.post(
        reverse("scoring:settlement_mark", args=[evening.pk]),
        {"payer": f"m{vera.pk}", "payee": f"m{anna.pk}", "amount": typed},
    )
    assert evening.settlements.get().amount == Decimal("33.34")


@pytest.mark.parametrize("amount", ["", "x", "NaN", "Infinity", "33.35"])
def test_an_amount_not_in_the_ledger_is_refused(
    amount: str, client: Client, organiser: Member
) -> None:
    evening, (anna, _boris, vera) = _ledger_evening(organiser)
    response = client.post(
        reverse("scoring:settlement_mark", args=[evening.pk]),
        {"payer": f"m{vera.pk}", "payee": f"m{anna.pk}", "amount": amount},
        follow=True,
    )
    assert not evening.settlements.exists()
    assert "payment" in response.content.decode()


def test_who_has_paid_is_shown_to_the_players_and_organisers_only(client: Client) -> None:
    """Who pays whom is public; which payments are marked paid, only the evening's players
    and the organisers see (issue 35, item 5)."""
    olga = factories.member("Olga", organiser=True)
    evening, (anna, boris, vera) = _ledger_evening(olga)
    services.settlement_mark(
        evening=evening, payer=f"m{vera.pk}", payee=f"m{anna.pk}", amount=Decimal("33.34"), by=anna
    )
    late = factories.member("Gleb")
    Attendance.objects.create(evening=evening, member=late)  # here, but played no table
    url = reverse("scoring:evening_ledger", args=[evening.pk])
    for viewer, sees in [
        (None, False),
        (factories.member("Dmitri"), False),
        (boris, True),
        (late, True),
        (factories.member("Irina", organiser=True), True),
    ]:
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        page = client.get(url).content.decode()
        assert "Vera → Anna: <strong>33.34</strong>" in page
        assert ("paid, marked" in page) is sees, viewer


def test_the_members_page_shows_his_unpaid_balance_to_him_only(client: Client) -> None:
    olga = factories.member("Olga", organiser=True)
    evening = _evening(olga)
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    table = factories.finished_pulka([anna, boris, vera], anna, DAY)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    for m in (anna, boris, vera):
        Attendance.objects.create(evening=evening, member=m)
    url = reverse("members:detail", args=["vera"])
    client.force_login(vera)
    assert "Club evenings: you still owe 33.34." in client.get(url).content.decode()
    client.force_login(anna)
    assert "Club evenings" not in client.get(url).content.decode()
    mine = client.get(reverse("members:detail", args=["anna"])).content.decode()
    assert "Club evenings: 66.67 still to be paid to you." in mine


# -- The evening in one hand (issue 30, item 4) ---------------------------------------------


def test_the_new_evening_s_date_is_filled_in_as_a_date_input_reads_it(
    client: Client, organiser: Member
) -> None:
    """An <input type=date> takes ISO dates only: «06.12.2026» left it empty on the
    Russian page."""
    with translation.override("ru"):
        page = client.get(reverse("scoring:evening_list"), HTTP_ACCEPT_LANGUAGE="ru")
    today = timezone.localdate()
    field = page.content.decode().split('name="played_on"')[1].split(">")[0]
    assert f'value="{today.isoformat()}"' in field, field
    assert today.strftime("%d.%m.%Y") not in field


def test_a_tap_checks_one_in_and_leaves_the_list_open(client: Client, organiser: Member) -> None:
    evening = _evening(organiser)
    anna, boris = factories.member("Anna"), factories.member("Boris")
    url = reverse("scoring:evening_check_in", args=[evening.pk])
    # Without JavaScript: back to the page with the list open and in view.
    response = client.post(url, {"member": anna.pk})
    detail = reverse("scoring:evening_detail", args=[evening.pk])
    assert response["Location"] == f"{detail}?opened=check-in#check-in"
    page = client.get(response["Location"]).content.decode()
    assert '<details id="check-in" open>' in page
    assert '<details id="guest">' in page  # only the list tapped
    # With htmx: the page, whose setup region htmx swaps in, the list still open.
    swapped = client.post(url, {"member": boris.pk}, **HTMX)
    html = swapped.content.decode()
    assert swapped.status_code == 200
    assert '<div id="evening-setup"' in html
    assert '<details id="check-in" open>' in html
    here = html.split('<ul class="checked-in rows">')[1].split("</ul>")[0]
    assert "Anna" in here and "Boris" in here
    assert list(evening.attendances.values_list("member", flat=True)) == [anna.pk, boris.pk]
    # Without ?opened the lists are closed, as before.
    assert '<details id="check-in">' in client.get(detail).content.decode()


def test_a_refused_tap_says_why_in_the_region_and_stores_nothing(
    client: Client, organiser: Member
) -> None:
    evening = _evening(organiser)
    url = reverse("scoring:evening_check_in_guest", args=[evening.pk])
    response = client.post(url, {"name": "   "}, **HTMX)
    html = response.content.decode()
    region = html.split('<div id="evening-setup"')[1]
    assert '<p class="message error" role="alert">type the guest&#x27;s name</p>' in region
    assert '<details id="guest" open>' in region
    assert not evening.attendances.exists()
    # Without JavaScript the refusal is the page's message, the guest list open.
    plain = client.post(url, {"name": ""})
    assert plain["Location"].endswith("?opened=guest#guest")
    assert "type the guest&#x27;s name" in client.get(plain["Location"]).content.decode()


def test_sitting_out_and_leaving_are_buttons_that_say_what_they_do(
    client: Client, organiser: Member
) -> None:
    evening = _evening(organiser)
    anna = factories.member("Anna")
    Attendance.objects.create(evening=evening, member=anna)
    page = client.get(reverse("scoring:evening_detail", args=[evening.pk])).content.decode()
    assert '<button type="submit" class="button button--small">Sit out</button>' in page
    assert '<button type="submit" class="button button--small">Check out</button>' in page
    response = client.post(
        reverse("scoring:evening_sits_out", args=[evening.pk]),
        {"member": anna.pk, "sits_out": "1"},
        **HTMX,
    )
    html = response.content.decode()
    assert '<span class="badge badge--muted">sits out</span>' in html
    assert ">Back in the draw</button>" in html
    assert Attendance.objects.get(evening=evening, member=anna).sits_out


def test_the_draw_names_who_deals_first_in_words_for_anyone(
    client: Client, organiser: Member
) -> None:
    """«Первым сдаёт: Марина», not «Марина (сдаёт первым)»; a guest is marked once."""
    evening = _evening(organiser)
    for name in ("Anna", "Boris"):
        Attendance.objects.create(evening=evening, member=factories.member(name))
    services.evening_check_in_guest(evening=evening, name="Pyotr", by=organiser)
    services.evening_draw(evening=evening, seed=7)
    evening.refresh_from_db()
    (drawn,) = evening.draft
    with translation.override("ru"):
        page = client.get(
            reverse("scoring:evening_detail", args=[evening.pk]), HTTP_ACCEPT_LANGUAGE="ru"
        ).content.decode()
    card = page.split('<ol class="draft cards">')[1].split("</ol>")[0]
    names = {"m": {m.pk: m.name for m in Member.objects.all()}}
    first = drawn["players"][drawn["first_dealer"]]
    first_name = "Pyotr" if first.startswith("g") else names["m"][int(first[1:])]
    assert f"Первым сдаёт: {first_name}" in card
    assert "сдаёт первым" not in card
    assert card.count("Pyotr") == 1 + (first_name == "Pyotr")
    assert card.count('<span class="badge badge--guest">гость</span>') == 1


def test_a_tap_s_answer_costs_a_fixed_number_of_queries(
    client: Client, organiser: Member, django_assert_num_queries: object
) -> None:
    """The htmx answer is the evening's page after the write: the page's queries and the
    write's, however many are here."""
    evening = _evening(organiser)
    people = [factories.member(f"P{i}") for i in range(9)]
    for m in people[:6]:
        Attendance.objects.create(evening=evening, member=m)
    url = reverse("scoring:evening_check_in", args=[evening.pk])
    client.post(url, {"member": people[6].pk}, **HTMX)
    # 15: the session and the organiser; the evening and the member tapped; the write and
    # the home page's stamp in its savepoint (4); then the page: the evening again, its
    # tables, the members' answers, who is here, the guests who came before, the "not
    # together" requests, who is not here yet.
    with django_assert_num_queries(15):  # type: ignore[operator]
        client.post(url, {"member": people[7].pk}, **HTMX)
