"""The standings pages made and kept after a finish, before a reader asks for them
(``services.standings_pages_made``, issue 33 item 4). That the worker makes them after its
update: ``test_rating_tasks.py``."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from scoring import services
from scoring.models import Season, Table
from tests.factories import finished_pulka

pytestmark = pytest.mark.django_db


def visitor(language: str) -> Client:
    return Client(headers={"accept-language": language})


def test_the_boards_and_the_profiles_are_made_in_both_languages(
    club: Any, settings: Any, django_assert_num_queries: Any
) -> None:
    settings.SITE_URL = "http://testserver"  # the address the test client asks at
    today = timezone.localdate()
    season = Season.objects.create(name="Now", starts_on=today, ends_on=today)
    players = [club["Anna"], club["Boris"], club["Vera"]]
    finished_pulka(players, club["Anna"], today)

    # This season's board, the all-time board and Anna's and Boris's profiles, in Russian
    # and English: 4 × 2.
    with translation.override("ru"):
        made = services.standings_pages_made(
            game=Table.PREFERANS, members=[club["Anna"].pk, club["Boris"].pk]
        )
        # The worker's language is left as it was (the English pages were made last).
        assert translation.get_language() == "ru"

    assert made == 8
    for url in (
        reverse("scoring:season_standings", args=[season.pk, "preferans"]),
        reverse("scoring:standings", args=["preferans"]),
        reverse("members:detail", args=["anna"]),
        reverse("members:detail", args=["boris"]),
    ):
        for language in ("ru", "en"):
            with django_assert_num_queries(1):  # the page's version; the page kept
                assert visitor(language).get(url).status_code == 200
    vera = reverse("members:detail", args=["vera"])
    with django_assert_num_queries(9):  # not made: her first visitor makes it
        assert visitor("en").get(vera).status_code == 200


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_the_pages_are_made_at_the_sites_address(
    club: Any, settings: Any, scheme: str, django_assert_num_queries: Any
) -> None:
    # A kept page's key names its address: made at SITE_URL, it is found by a visitor at
    # that address (https in production) and not by one at another.
    settings.SITE_URL = f"{scheme}://testserver"
    finished_pulka([club["Anna"], club["Boris"], club["Vera"]], club["Anna"], "2026-03-02")
    services.standings_pages_made(game=Table.PREFERANS)
    url = reverse("scoring:standings", args=["preferans"])

    with django_assert_num_queries(1):  # the page's version; the page kept
        assert visitor("en").get(url, secure=scheme == "https").status_code == 200
    # The other scheme: the page made again by this visitor (around the board, which the
    # worker's page left in the standings cache): a query more.
    with django_assert_num_queries(2):
        assert visitor("ru").get(url, secure=scheme != "https").status_code == 200
