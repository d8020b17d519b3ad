"""The home page: tables in play, the latest finished tables, the leaders of the season."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring.models import Season, Table
from tests import factories
from tests.factories import finished_pulka

pytestmark = pytest.mark.django_db

HOME = "/"


def days_ago(n: int) -> datetime.date:
    return timezone.localdate() - datetime.timedelta(days=n)


def leaders(response: Any) -> dict[str, list[tuple[int, str]]]:
    return {
        game: [(line.rank, line.name) for line in lines]
        for game, _label, _url, lines in response.context["leaders"]
    }


def test_the_home_page_keeps_its_introduction(client: Client):
    """The club's welcome (scoring.models.Club: the migration's texts) and what the site
    does, in the page's language."""
    english = client.get(HOME).content.decode()
    russian = Client().get(HOME).content.decode()  # the site's own language

    assert "<h1>Preferans and Boston club</h1>" in english
    assert "Our club&#x27;s site for scoring Preferans (the pulka) and Boston" in english
    assert "Deal by deal." in english
    assert "<h1>Клуб преферанса и бостона</h1>" in russian
    assert "Сайт нашего клуба для подсчёта очков в преферанс (пулька) и бостон" in russian
    assert "Запись по раздачам." in russian
    for html in (english, russian):
        assert "style=" not in html
        assert "<style" not in html


def test_tables_in_play_and_the_latest_finished(client: Client, club):
    anna, boris, vera, gleb, _dina = club.values()
    in_play = factories.pulka([anna, boris, vera])
    finished = [finished_pulka([anna, boris, gleb], anna, days_ago(10 - i)).pk for i in range(6)]

    response = client.get(HOME)

    html = response.content.decode()
    live, latest = html.split('id="latest"')
    assert f'href="{reverse("scoring:table_detail", args=[in_play.pk])}"' in live
    assert "updates live" in live
    shown = [int(pk) for pk in re.findall(r'href="/tables/(\d+)/"', latest)]
    assert shown == finished[::-1][:5]  # the five latest, newest first
    assert "Anna, Boris, Gleb" in latest
    assert f'href="{reverse("scoring:table_list")}"' in html


def test_the_current_seasons_top_three(client: Client, club):
    anna, boris, vera, gleb, dina = club.values()
    Season.objects.create(name="Now", starts_on=days_ago(30), ends_on=days_ago(-30), min_games=1)
    finished_pulka([anna, boris, vera], anna, days_ago(40))  # before the season
    finished_pulka([anna, boris, vera], boris, days_ago(3))
    finished_pulka([boris, gleb, dina], boris, days_ago(2))
    finished_pulka([vera, gleb, dina], vera, days_ago(1))

    response = client.get(HOME)

    html = response.content.decode()
    assert "Season Now: the leaders" in html
    board = leaders(response)
    # Boris +133.34; Vera 66.67 − 33.33; then Anna, Gleb and Dina lower.
    assert board[Table.PREFERANS][:2] == [(1, "Boris"), (2, "Vera")]
    assert len(board[Table.PREFERANS]) == 3
    assert board[Table.BOSTON] == []
    assert "Nobody is ranked yet." in html
    season = Season.objects.get()
    url = reverse("scoring:season_standings", kwargs={"pk": season.pk, "game": "preferans"})
    assert f'href="{url}"' in html
    assert f'href="{reverse("members:detail", args=["boris"])}"' in html


def test_between_seasons_the_home_page_shows_all_time(client: Client, club):
    Season.objects.create(name="Old", starts_on=days_ago(90), ends_on=days_ago(60))
    anna, boris, vera = club["Anna"], club["Boris"], club["Vera"]
    finished_pulka([anna, boris, vera], vera, days_ago(1))

    response = client.get(HOME)

    assert "All time: the leaders" in response.content.decode()
    assert leaders(response)[Table.PREFERANS][0] == (1, "Vera")


def test_private_standings_stay_off_the_home_page(client: Client, club, settings):
    settings.STANDINGS_PUBLIC = False
    anna, boris, vera = club["Anna"], club["Boris"], club["Vera"]
    finished_pulka([anna, boris, vera], anna, days_ago(1))

    anonymous = client.get(HOME)
    client.force_login(anna)
    member = client.get(HOME)

    assert "leaders" not in anonymous.context
    assert 'id="leaders"' not in anonymous.content.decode()
    assert 'id="leaders"' in member.content.decode()


@pytest.mark.parametrize("tables", [1, 8])
def test_the_home_page_costs_the_same_queries_whatever_the_tables(
    client: Client, club, django_assert_num_queries: Any, tables: int
):
    Season.objects.create(name="Now", starts_on=days_ago(30), ends_on=days_ago(-30), min_games=1)
    members = list(club.values())
    for i in range(tables):
        seated = members[i % 3 : i % 3 + 3]
        finished_pulka(seated, seated[0], days_ago(i % 20))
        factories.pulka(seated)  # in play

    # Tables in play (1), the latest finished (1), their seats (1), the season (1), the
    # standings stamp (1), two boards of two queries each (4), the leaders' usernames (1),
    # the club's name (1).
    with django_assert_num_queries(11):
        response = client.get(HOME)
    # Again, nothing changed: the leaders and the club's name come from the cache.
    with django_assert_num_queries(5):
        client.get(HOME)

    assert len(response.context["in_play"]) == tables
    assert len(response.context["latest"]) == min(tables, 5)
