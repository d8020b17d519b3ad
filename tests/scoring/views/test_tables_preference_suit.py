"""Boston's preference suit through real HTTP (boston.md §3): asked when a Boston table
opens, shown in the sheet's head, asked again as each deal's trump, and carried by the
export, ``manage.py score`` and the import."""

from __future__ import annotations

import html
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from scoring import selectors, services
from scoring.models import DealRecord, Table
from tests import factories
from tests.factories import HTMX, post_deal
from tests.fuzz_strategies import db_snapshot
from tests.html_forms import field_errors
from tests.scoring.views.buttons import choices, chosen

pytestmark = pytest.mark.django_db

OPEN = reverse("scoring:table_open", args=["boston"])


def page_text(response) -> str:
    return html.unescape(response.content.decode())


def chips(table: Table) -> dict[str, int]:
    document = selectors.replay(Table.objects.get(pk=table.pk)).document()
    return {name: row["chips"] for name, row in document["players"].items()}


@pytest.fixture
def four():
    return [factories.member(name) for name in ("Anna", "Boris", "Vera", "Gleb")]


def open_form(players, **fields):
    return {
        "version": factories.boston_version().pk,
        "price": "0.10",
        **{f"player_{i}": player.pk for i, player in enumerate(players)},
        **fields,
    }


# -- opening -------------------------------------------------------------------------------


def test_the_open_form_asks_for_the_preference_suit(client, four):
    client.force_login(four[0])
    page = page_text(client.get(OPEN))

    # A row of buttons, none chosen: the suit is turned at the table, so nothing can be
    # assumed for it.
    for suit, option in zip(
        ("spades", "clubs", "diamonds", "hearts"),
        ("♠ spades", "♣ clubs", "♦ diamonds", "♥ hearts"),
        strict=True,
    ):
        assert f'<input type="radio" name="preference_suit" value="{suit}"' in page
        assert f"<span>{option}</span>" in page
    assert 'name="preference_suit" value="hearts" checked' not in page
    assert "The suit turned at the first deal" in page
    # A pulka has no preference suit to ask for.
    pulka_page = client.get(reverse("scoring:table_open", args=["preferans"])).content.decode()
    assert "preference_suit" not in pulka_page


def test_a_boston_table_opens_with_its_preference_suit(client, four):
    client.force_login(four[0])
    response = client.post(OPEN, open_form(four, preference_suit="hearts"))

    table = Table.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:table_detail", args=[table.pk])
    assert (table.game, table.preference_suit) == (Table.BOSTON, "hearts")


@pytest.mark.parametrize(
    ("suit", "message"),
    [
        ("", "This field is required."),
        ("red", "Select a valid choice. red is not one of the available choices."),
        ("H", "Select a valid choice. H is not one of the available choices."),
    ],
)
def test_a_new_boston_table_needs_a_known_preference_suit(client, four, suit, message):
    client.force_login(four[0])
    before = db_snapshot()
    response = client.post(OPEN, open_form(four, preference_suit=suit))

    assert response.status_code == 200
    assert message in page_text(response)
    assert db_snapshot() == before


def test_the_sheet_head_shows_the_preference_suit(client, four):
    table = factories.boston_table(four, preference_suit="diamonds")
    client.force_login(four[0])

    page = page_text(client.get(reverse("scoring:table_detail", args=[table.pk])))
    assert "Preference suit: <strong>♦ diamonds</strong>" in page
    printed = page_text(client.get(reverse("scoring:table_print", args=[table.pk])))
    assert "Preference suit: ♦ diamonds" in printed


def test_a_table_opened_before_the_preference_suit_shows_none_and_asks_the_class(client, four):
    table = factories.boston_table(four)
    client.force_login(four[0])

    page = page_text(client.get(reverse("scoring:table_detail", args=[table.pk])))
    assert "Preference suit" not in page
    assert 'name="trump"' not in page
    assert choices(page, "suit") == [("minor", "minor"), ("major", "major")]


def test_russian_pages_name_the_suit_in_russian(four):
    from django.test import Client

    table = factories.boston_table(four, preference_suit="hearts")
    client = Client(headers={"accept-language": "ru"})
    client.force_login(four[0])

    page = page_text(client.get(reverse("scoring:table_detail", args=[table.pk])))
    assert "Старшая масть: <strong>♥ червы</strong>" in page
    assert "Старшая масть — ♥ червы: козырь этой масти — старшая, любой другой — младшая." in page


# -- deals ---------------------------------------------------------------------------------


@pytest.fixture
def hearts(client, four):
    """A payment-tariff table whose preference suit is hearts, Anna signed in."""
    client.force_login(four[0])
    return factories.boston_table(four, preference_suit="hearts")


SUPPORTED = {"kind": "ask", "declarer": "Anna", "partner": "Vera", "tour": "simple", "tricks": "9"}


def test_the_deal_form_asks_for_the_trump(client, hearts):
    page = page_text(client.get(reverse("scoring:table_detail", args=[hearts.pk])))

    assert [label for _, label in choices(page, "trump")] == ["—", "♠", "♣", "♦", "♥"]
    assert "or the suit" in page
    assert "Preference suit ♥ hearts: a trump in it is major, any other minor." in page


@pytest.mark.parametrize("headers", [HTMX, {}], ids=["htmx", "plain"])
@pytest.mark.parametrize(
    ("given", "stored", "paid"),
    [
        # supported 9: 2 + 2 × 1 = 4; hearts is major: × 2 = 8. Boris → Anna, Gleb → Vera.
        ({"trump": "hearts", "suit": ""}, {"trump": "hearts"}, 8),
        # spades is minor: 4
        ({"trump": "spades", "suit": ""}, {"trump": "spades"}, 4),
        # no trump: the class as chosen
        ({"trump": "", "suit": "major"}, {"suit": "major"}, 8),
        ({"trump": "", "suit": "minor"}, {"suit": "minor"}, 4),
    ],
)
def test_a_deal_is_stored_as_entered_and_paid_in_its_class(
    client, hearts, headers, given, stored, paid
):
    response = post_deal(client, hearts, SUPPORTED | given, **headers)

    assert response.status_code == (200 if headers else 302)
    assert DealRecord.objects.get(table=hearts).data == {
        "kind": "ask",
        "declarer": "Anna",
        "partner": "Vera",
        **stored,
        "tour": "simple",
        "tricks": 9,
    }
    assert chips(hearts) == {"Anna": paid, "Boris": -paid, "Vera": paid, "Gleb": -paid}


def test_an_independence_by_its_trump(client, hearts):
    # Boris alone in clubs, 8 tricks: 16, minor; each other pays him.
    post_deal(
        client,
        hearts,
        {"kind": "independence", "declarer": "Boris", "trump": "clubs", "tricks": "8"},
    )
    assert DealRecord.objects.get(table=hearts).data["trump"] == "clubs"
    assert chips(hearts) == {"Anna": -16, "Boris": 48, "Vera": -16, "Gleb": -16}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"trump": "hearts", "suit": "major"}, "give the trump or the suit class, not both"),
        ({"trump": "", "suit": ""}, "choose the trump (or, if it is not known, minor or major)"),
        (
            {"trump": "notrump", "suit": ""},
            "Select a valid choice. notrump is not one of the available choices.",
        ),
    ],
)
def test_a_refused_trump_comes_back_in_the_form_and_saves_nothing(client, hearts, given, message):
    before = db_snapshot()
    response = post_deal(client, hearts, SUPPORTED | given, **HTMX)

    assert response.status_code == 200
    page = page_text(response)
    assert 'id="deal-form"' in page
    assert message in field_errors(response.content.decode(), "id_trump")
    assert page.count(message) == 1  # on the trump, not again above the form
    assert db_snapshot() == before


def test_the_log_shows_the_trump_and_the_class_it_gives(client, hearts):
    post_deal(client, hearts, SUPPORTED | {"trump": "hearts"})
    post_deal(
        client,
        hearts,
        {"kind": "independence", "declarer": "Boris", "trump": "clubs", "tricks": "8"},
    )
    post_deal(client, hearts, SUPPORTED | {"suit": "minor"})

    page = page_text(client.get(reverse("scoring:table_detail", args=[hearts.pk])))
    assert "ask ♥ major · Anna" in page
    assert "independence ♣ minor · Boris" in page
    assert "ask minor · Anna" in page


def test_the_preview_prices_the_trump(client, hearts):
    response = post_deal(client, hearts, SUPPORTED | {"trump": "hearts", "preview": "1"}, **HTMX)
    page = page_text(response)
    assert "Boris → Anna: 8 — supported ask won: 2 + 2 × 1 = 4, major ×2 = 8" in page
    assert not DealRecord.objects.filter(table=hearts).exists()


def test_the_form_keeps_the_trump_when_it_is_redrawn(client, hearts):
    response = post_deal(
        client,
        hearts,
        SUPPORTED | {"kind": "independence", "trump": "diamonds", "change": "1"},
        **HTMX,
    )
    assert chosen(page_text(response), "trump") == ["diamonds"]


def test_a_trump_deal_is_corrected_on_its_edit_page(client, hearts):
    post_deal(client, hearts, SUPPORTED | {"trump": "hearts"})
    record = DealRecord.objects.get(table=hearts)
    url = reverse("scoring:deal_edit", args=[hearts.pk, record.pk])
    assert chosen(page_text(client.get(url)), "trump") == ["hearts"]

    data = SUPPORTED | {"trump": "clubs", "reason": "it was clubs"} | factories.drawn(hearts)
    response = client.post(url, data)

    assert response.status_code == 302
    record.refresh_from_db()
    assert record.data["trump"] == "clubs"
    assert chips(hearts) == {"Anna": 4, "Boris": -4, "Vera": 4, "Gleb": -4}


# -- export, manage.py score, import -------------------------------------------------------


def test_the_export_scores_with_manage_py_score_as_the_site_scored_it(client, hearts, tmp_path):
    for deal in (
        SUPPORTED | {"trump": "hearts"},
        {"kind": "independence", "declarer": "Gleb", "trump": "spades", "tricks": "6"},
        SUPPORTED | {"suit": "major", "tricks": "13"},
    ):
        post_deal(client, hearts, deal)
    services.table_finish(hearts, by=None)
    export = client.get(reverse("scoring:table_export", args=[hearts.pk])).content

    record = json.loads(export)
    assert record["preference_suit"] == "hearts"
    assert [deal.get("trump") for deal in record["deals"]] == ["hearts", "spades", None]
    assert record["deals"][2]["suit"] == "major"
    path = tmp_path / "table.json"
    path.write_bytes(export)
    out = io.StringIO()
    call_command("score", str(path), stdout=out)
    scored = json.loads(out.getvalue())
    assert scored == Table.objects.get(pk=hearts.pk).result
    # 8 (♥ major), then Gleb's ♠ independence two short: 16 + 4 × 2 = 24 minor to each,
    # then the supported major slam: 24 × 2 = 48.
    assert {name: row["chips"] for name, row in scored["players"].items()} == {
        "Anna": 8 + 24 + 48,
        "Boris": -8 + 24 - 48,
        "Vera": 8 + 24 + 48,
        "Gleb": -8 - 72 - 48,
    }


RECORD = {
    "format": "pulka/1",
    "game": "boston",
    "rules": "payment-tariff",
    "players": ["Anna", "Boris", "Vera", "Gleb"],
    "chip_price": "0.50",
    "preference_suit": "clubs",
    "deals": [
        {"kind": "ask", "declarer": "Anna", "partner": "Vera", "trump": "clubs", "tricks": 8},
        {"kind": "independence", "declarer": "Boris", "trump": "hearts", "tricks": 9},
    ],
}


def upload(record):
    content = json.dumps(record).encode()
    return {
        "record": SimpleUploadedFile("game.json", content, "application/json"),
        "game": "boston",
    }


def test_a_record_with_a_preference_suit_imports(client, four):
    client.force_login(four[0])
    response = client.post(reverse("scoring:table_import"), upload(RECORD))

    table = Table.objects.get()
    assert response.status_code == 302
    assert table.preference_suit == "clubs"
    assert [r.data.get("trump") for r in table.deal_records.order_by("sequence")] == [
        "clubs",
        "hearts",
    ]
    # 1. clubs, major: 2 × 2 = 4, Boris → Anna, Gleb → Vera. 2. hearts, minor: 16 + 4 = 20
    # from each to Boris.
    assert chips(table) == {"Anna": 4 - 20, "Boris": -4 + 60, "Vera": 4 - 20, "Gleb": -4 - 20}
    exported = services.table_export(table)
    assert exported["preference_suit"] == "clubs"
    assert exported["deals"] == [
        {
            "kind": "ask",
            "declarer": "Anna",
            "partner": "Vera",
            "trump": "clubs",
            "tour": "simple",
            "tricks": 8,
        },
        {
            "kind": "independence",
            "declarer": "Boris",
            "trump": "hearts",
            "tour": "simple",
            "tricks": 9,
        },
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: {k: v for k, v in r.items() if k != "preference_suit"},
            "deal 1, trump: the table has no preference suit",
        ),
        (lambda r: r | {"preference_suit": "stars"}, "preference_suit: must be one of spades"),
    ],
)
def test_an_import_whose_trump_cannot_be_priced_is_refused(client, four, change, message):
    client.force_login(four[0])
    before = db_snapshot()
    response = client.post(reverse("scoring:table_import"), upload(change(RECORD)))

    assert response.status_code == 200
    assert message in page_text(response)
    assert db_snapshot() == before


def test_the_preference_suit_is_part_of_the_game(client, four):
    """Two records that differ only in the suit turned are two games: neither is refused
    as the other's duplicate."""
    client.force_login(four[0])
    by_class = RECORD | {
        "deals": [{"kind": "ask", "declarer": "Anna", "suit": "minor", "tricks": 5}]
    }
    client.post(reverse("scoring:table_import"), upload(by_class))
    response = client.post(
        reverse("scoring:table_import"), upload(by_class | {"preference_suit": "spades"})
    )

    assert response.status_code == 302
    assert sorted(Table.objects.values_list("preference_suit", flat=True)) == ["clubs", "spades"]
