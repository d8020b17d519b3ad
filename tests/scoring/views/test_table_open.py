"""Opening a table in a few taps (issue 30, finding 9), through real HTTP: the club's
players as buttons (the regulars first, a staff account that does not play left out), seat
А the member opening it, the club's tariff chosen, seats and the first dealer lettered
alike, the control time a time input; the form as drawn, with two seats added, opens the
table without JavaScript."""

from __future__ import annotations

import datetime
import html

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from scoring import games
from scoring.models import PreferansTariff, Season, Table
from scoring.selectors import players as player_reads
from scoring.selectors.tariffs import opening_tariff
from tests import factories
from tests.fuzz_strategies import db_snapshot
from tests.html_forms import field_errors, form_data
from tests.scoring.views.buttons import choices, chosen

pytestmark = pytest.mark.django_db

OPEN = reverse("scoring:table_open", args=["preferans"])
SOCHI, LENINGRAD = "Сочи (Sochi)", "Ленинград (Leningrad)"


def signed_in(member, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(member)
    return client


def drawn(client: Client, url: str = OPEN) -> str:
    return html.unescape(client.get(url).content.decode())


def days_ago(n: int) -> datetime.date:
    return timezone.localdate() - datetime.timedelta(days=n)


def version_of(name: str) -> str:
    return str(PreferansTariff.objects.get(name=name).current_version.pk)


# -- who is offered ------------------------------------------------------------------------


def test_a_staff_account_that_never_played_is_not_offered_as_a_player():
    anna, boris = factories.member("Anna"), factories.member("Boris")
    admin = factories.member("Администратор", is_staff=True, is_superuser=True)
    playing_staff = factories.member("Dima", is_staff=True)
    factories.pulka([anna, boris, playing_staff])

    text = drawn(signed_in(anna))

    offered = [label for _value, label in choices(text, "player_1")]
    assert offered == ["—", "Anna", "Boris", "Dima"]
    assert "Администратор" not in text
    # Posted anyway (an old page), he is refused and nothing is stored.
    before = db_snapshot()
    refused = signed_in(anna, "ru").post(
        OPEN,
        {"version": version_of(SOCHI), "first_dealer": "0", "pool_target": "20", "price": "1"}
        | {"player_0": anna.pk, "player_1": boris.pk, "player_2": admin.pk},
    )
    assert refused.status_code == 200
    assert field_errors(refused.content.decode(), "id_player_2") == [
        f"Выберите корректный вариант. {admin.pk} нет среди допустимых значений."
    ]
    assert db_snapshot() == before


def test_seat_a_is_the_member_opening_it_and_not_a_staff_account_that_does_not_play():
    anna = factories.member("Anna")
    admin = factories.member("Администратор", is_staff=True, is_superuser=True)

    assert chosen(drawn(signed_in(anna)), "player_0") == [str(anna.pk)]
    # The administrator may seat himself (he is offered to himself), but is not seated.
    text = drawn(signed_in(admin))
    assert chosen(text, "player_0") == [""]
    assert (str(admin.pk), "Администратор") in choices(text, "player_0")
    for seat in (1, 2, 3):
        assert chosen(text, f"player_{seat}") == [""]


def test_the_regulars_come_first_and_the_others_one_tap_further(monkeypatch):
    """With more members than ``REGULARS``, a seat shows the members with the most seats
    at the game lately, by name, and folds the others under «Other members»."""
    monkeypatch.setattr(player_reads, "REGULARS", 4)
    anna, boris, vera, gleb, dina, egor = (
        factories.member(n) for n in ("Anna", "Boris", "Vera", "Gleb", "Dina", "Egor")
    )
    factories.pulka([boris, vera, gleb], played_on=days_ago(3))
    factories.pulka([boris, vera, dina], played_on=days_ago(10))
    factories.pulka([vera, gleb, egor], played_on=days_ago(400))  # too long ago to count

    text = drawn(signed_in(anna))

    # Seats in the last year: Boris 2, Vera 2, Dina 1, Gleb 1 (a tie goes by name), Egor 0.
    # Anna, who opens it, takes the last place (Gleb's): Anna, Boris, Dina, Vera by name.
    seat = text.split('id="id_player_1"', 1)[1].split("</fieldset>", 1)[0]
    shown, more = seat.split('<details class="more-members">')
    assert [label for _v, label in choices(shown, "player_1")] == [
        "—",
        "Anna",
        "Boris",
        "Dina",
        "Vera",
    ]
    assert "<summary>Other members</summary>" in more
    assert [label for _v, label in choices(more, "player_1")] == ["Egor", "Gleb"]


# -- the tariff the club plays by now ------------------------------------------------------


def test_the_club_tariff_is_the_seasons_default_first():
    leningrad = PreferansTariff.objects.get(name=LENINGRAD)
    factories.pulka(tariff=SOCHI)  # played more, but the organisers chose otherwise
    today = timezone.localdate()
    Season.objects.create(
        name="Winter", starts_on=days_ago(30), ends_on=today, preferans_tariff=leningrad
    )

    assert opening_tariff(games.PREFERANS, today) == leningrad
    anna = factories.member("Anna")
    assert chosen(drawn(signed_in(anna)), "version") == [version_of(LENINGRAD)]


def test_without_a_default_the_tariff_most_played_lately_is_chosen():
    """Sochi was played most in all, Leningrad most in the last 90 days: Leningrad."""
    for n in (200, 300, 400):
        factories.pulka(tariff=SOCHI, played_on=days_ago(n))
    for n in (5, 50):
        factories.pulka(tariff=LENINGRAD, played_on=days_ago(n))
    factories.pulka(tariff=SOCHI, played_on=days_ago(20))
    today = timezone.localdate()

    assert opening_tariff(games.PREFERANS, today).name == LENINGRAD
    # Nothing lately: the most played ever (the rules page's house tariff), Sochi.
    assert opening_tariff(games.PREFERANS, today + datetime.timedelta(days=200)).name == SOCHI


def test_a_club_that_never_played_starts_on_the_default_preset():
    today = timezone.localdate()
    assert opening_tariff(games.PREFERANS, today).name == SOCHI
    assert opening_tariff(games.BOSTON, today).system == "payment-tariff"
    boston = drawn(
        signed_in(factories.member("Anna")), reverse("scoring:table_open", args=["boston"])
    )
    assert len(chosen(boston, "version")) == 1


# -- the form as drawn ---------------------------------------------------------------------


def test_the_form_as_drawn_opens_a_table_with_two_seats_added_and_no_javascript():
    anna, boris, vera = (factories.member(n) for n in ("Anna", "Boris", "Vera"))
    client = signed_in(anna)
    text = drawn(client)

    assert chosen(text, "first_dealer") == ["0"]
    assert [label for _v, label in choices(text, "first_dealer")] == ["A", "B", "C", "D"]
    assert '<input type="time" name="control_time"' in text
    assert "<select" not in text
    data = form_data(text, "table-open")
    assert (data["player_0"], data["player_1"], data["pool_target"], data["price"]) == (
        str(anna.pk),
        "",
        "20",
        "1",
    )

    response = client.post(
        OPEN, data | {"player_1": boris.pk, "player_2": vera.pk, "control_time": "23:30"}
    )

    table = Table.objects.get()
    assert response.status_code == 302
    assert [s.name for s in table.seats.order_by("position")] == ["Anna", "Boris", "Vera"]
    assert (table.first_dealer, table.pool_target, str(table.price)) == (0, 20, "1.00")
    assert table.control_time == datetime.time(23, 30)
    assert table.preferans_version.tariff.name == SOCHI


def test_a_guest_takes_a_seat_by_name_and_a_seat_is_not_both():
    anna, boris = factories.member("Anna"), factories.member("Boris")
    client = signed_in(anna)
    data = form_data(drawn(client), "table-open") | {"player_1": boris.pk}

    both = client.post(OPEN, data | {"player_2": boris.pk, "guest_2": "Пётр"})
    assert "A seat is a member or a guest, not both." in both.content.decode()
    assert not Table.objects.exists()

    client.post(OPEN, data | {"guest_2": "Пётр"})
    assert [s.name for s in Table.objects.get().seats.order_by("position")][2].startswith("Пётр")


def test_the_first_dealer_must_be_seated():
    anna, boris, vera = (factories.member(n) for n in ("Anna", "Boris", "Vera"))
    client = signed_in(anna, "ru")
    data = form_data(drawn(client), "table-open")

    response = client.post(
        OPEN, data | {"player_1": boris.pk, "player_2": vera.pk} | {"first_dealer": "3"}
    )

    assert response.status_code == 200
    assert field_errors(response.content.decode(), "id_first_dealer") != []
    assert not Table.objects.exists()


def test_the_open_page_reads_in_a_pinned_number_of_queries():
    """The session and its member, the club's name (every page's), the players with their
    recent seats (one query), the season, the tariff played lately, and the versions."""
    members = [factories.member(f"M{n}") for n in range(20)]
    for n in range(4):
        factories.pulka(members[3 * n : 3 * n + 3], played_on=days_ago(n))
    client = signed_in(members[0])

    with CaptureQueriesContext(connection) as queries:
        assert client.get(OPEN).status_code == 200

    assert len(queries) == 7, "\n".join(q["sql"][:300] for q in queries)
