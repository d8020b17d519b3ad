"""The widow premium on the site (issue 31 item 3): the deal form asks for the fast tricks
in one tap only where the tariff plays the premium, the deal is saved with them, and the
log shows the premium with its arithmetic.

The tariff is the «ФСПР Ленинградская» preset: a 6's whist per trick is 2 × 2 = 4. Anna
plays 6♠, Boris and Vera whist, tricks 6 2 2, two aces in the widow (3): Anna's pool 2;
Boris and Vera each write 2 × 4 = 8 for their tricks and 3 × 4 / 2 = 6 of the premium.
"""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from scoring import selectors, services
from scoring.engine.preferans.rules import PreferansRules
from scoring.models import Table
from scoring.pages import labels
from tests import factories
from tests.factories import post_deal

pytestmark = pytest.mark.django_db

TARIFF = "ФСПР Ленинградская"
GAME = {
    "kind": "game",
    "declarer": "Anna",
    "level": "6",
    "suit": "S",
    "answer:Boris": "whist",
    "answer:Vera": "whist",
    "tricks:Anna": "6",
    "tricks:Boris": "2",
    "tricks:Vera": "2",
    "fast_tricks": "3",
}


def table_under(client: Client, tariff: str) -> Table:
    table = factories.pulka(tariff=tariff, pool_target=20)
    client.force_login(table.seats.get(position=0).member)
    return table


@pytest.fixture
def fspr(client: Client) -> Table:
    rules = PreferansRules.preset("fspr_leningrad")
    services.tariff_import(
        {"format": "house-tariff/1", "game": "preferans", "name": TARIFF, "rules": rules.to_dict()},
        by=None,
    )
    return table_under(client, TARIFF)


def page(client: Client, table: Table) -> str:
    return html.unescape(
        client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    )


def test_the_form_asks_for_fast_tricks_in_one_tap(client, fspr):
    text = page(client, fspr)
    for n in range(4):
        assert f'name="fast_tricks" value="{n}"' in text
    assert "fast tricks in the widow" in text


def test_the_form_never_asks_where_the_tariff_has_no_premium(client):
    table = table_under(client, "Сочи (Sochi)")
    assert 'name="fast_tricks"' not in page(client, table)
    response = post_deal(client, table, GAME)  # a stray value is not taken
    assert response.status_code == 302
    deal = services.table_export(Table.objects.get(pk=table.pk))["deals"][0]
    assert "fast_tricks" not in deal


def test_a_deal_with_fast_tricks_is_saved_and_explained(client, fspr):
    response = post_deal(client, fspr, GAME)

    assert response.status_code == 302
    replay = selectors.replay(Table.objects.get(pk=fspr.pk))
    result = replay.game.result()
    assert result.pool == (2, 0, 0)
    assert result.whists[1][0] == result.whists[2][0] == 8 + 6
    assert services.table_export(fspr)["deals"][0]["fast_tricks"] == 3
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page(client, fspr)))
    assert "widow premium (fast tricks)" in text
    assert "3 × 4 / 2 = 6" in text


def test_a_game_nobody_whisted_takes_no_premium(client, fspr):
    passed = {**GAME, "answer:Boris": "pass", "answer:Vera": "pass"}
    for name in ("Anna", "Boris", "Vera"):
        del passed[f"tricks:{name}"]

    response = post_deal(client, fspr, passed)

    assert response.status_code == 302
    deal = services.table_export(Table.objects.get(pk=fspr.pk))["deals"][0]
    assert "fast_tricks" not in deal


@pytest.mark.parametrize(
    ("language", "fast", "words"),
    [
        ("en", 1, "game 6♠ · Anna · whist–whist · 1 fast trick in the widow"),
        ("en", 3, "game 6♠ · Anna · whist–whist · 3 fast tricks in the widow"),
        ("ru", 1, "1 быстрая взятка в прикупе"),
        ("ru", 2, "2 быстрые взятки в прикупе"),
        ("en", 0, "game 6♠ · Anna · whist–whist"),
    ],
)
def test_the_deal_in_words_names_its_fast_tricks(language, fast, words):
    deal = {
        "kind": "game",
        "declarer": "Anna",
        "contract": "6S",
        "answers": {"Boris": "whist", "Vera": "whist"},
        "tricks": {"Anna": 6, "Boris": 2, "Vera": 2},
    }
    if fast:
        deal["fast_tricks"] = fast
    with translation.override(language):
        said = labels.deal_words(deal, ("Anna", "Boris", "Vera"))
    assert said.endswith(words)
    assert fast or "widow" not in said
