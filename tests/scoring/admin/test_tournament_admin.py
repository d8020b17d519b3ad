"""The tournament admin (scoring/admin/tournaments.py): a preset chosen fills in the
format, a format the engine cannot play is refused in words, and a started tournament
keeps its format."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import Tournament
from scoring.services import tournaments as services
from tests import factories
from tests.html_forms import form_data

pytestmark = pytest.mark.django_db
ADD = reverse("admin:scoring_tournament_add")


@pytest.fixture
def admin_client() -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(factories.member("Olga", organiser=True, is_staff=True))
    return client


def _add(client: Client, **changes: str) -> object:
    data = form_data(client.get(ADD).content.decode(), "tournament_form") | changes
    return client.post(ADD, data | {"_save": "Save"})


def test_choosing_gambler_copies_its_format(admin_client: Client) -> None:
    response = _add(admin_client, name="Питер на 3-х", preset="gambler")
    assert response.status_code == 302, response.content.decode()[:2000]  # type: ignore[attr-defined]
    cup = Tournament.objects.get()
    assert (cup.tours, cup.seating, cup.table_size, cup.length) == (5, "swiss", 3, "pool")
    assert (cup.pool_target, cup.deals, cup.points) == (10, 18, "bands")
    assert cup.bands == [[200, 1], [650, 0.1], [None, 0]]
    assert (cup.cut_after, cup.cut_to, cup.yellow_below) == (3, 6, Decimal(-1000))
    assert cup.timeout_scores_zero


def test_a_format_that_cannot_be_played_is_refused_in_words(admin_client: Client) -> None:
    response = _add(admin_client, name="Cup", tours="2", best_of="3")
    page = response.content.decode()  # type: ignore[attr-defined]
    assert "best 3 of 2 tours: cannot count more tours than are played" in page
    assert not Tournament.objects.exists()


def test_a_started_tournament_shows_its_format_read_only(admin_client: Client) -> None:
    cup = factories.tournament(3)
    services.tournament_start(tournament=cup, seed=1)
    page = admin_client.get(reverse("admin:scoring_tournament_change", args=[cup.pk]))
    fields = form_data(page.content.decode(), "tournament_form")
    assert "name" in fields and "tours" not in fields and "preset" not in fields
