"""Conceding a contract on the site (уход, preferans.md §13.11; issue 16 item 3): the deal
form offers it where the tariff allows it, the log, the preview and the print view say it,
a deal is corrected to and from it, a table with one exports and scores alike, and a
member's statistics count it.

The tariff is Sochi with conceding and its consolation allowed and a pass-out exit of 7.
Sochi 7: V = 4; the remise and the consolation are 1 × V per undertrick, so Vera's 7♠
conceded three down writes 3 × 4 = 12 into her mountain, and Anna and Boris (both
defenders console) each write 12 whists on her.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from scoring import selectors, services
from scoring.engine.preferans.rules import PreferansRules
from scoring.models import AuditEntry, DealRecord, PreferansTariff, Seat, Table
from scoring.pages import profiles
from scoring.selectors import profiles as profile_reads
from tests import factories
from tests.factories import FIRST_GAME, HTMX, post_deal
from tests.html_forms import field_errors, form_data, shown_fields
from tests.scoring.views.buttons import choices, chosen

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
TARIFF = "Уход"
RULES = {"concede": True, "concede_consolation": True, "passout_exit": (7,)}
CONCEDE_FORM = {
    "kind": "concede",
    "declarer": "Vera",
    "level": "7",
    "suit": "S",
    "undertricks": "3",
}
CONCEDE_DEAL = {"kind": "concede", "declarer": "Vera", "contract": "7S", "undertricks": 3}
ANNA_6 = {"kind": "concede", "declarer": "Anna", "contract": "6S", "undertricks": 2}
PASSOUT = {"kind": "passout", "tricks:Anna": "4", "tricks:Boris": "4", "tricks:Vera": "2"}


def concede_tariff(name: str = TARIFF, **overrides: object) -> None:
    rules = PreferansRules().with_overrides(RULES | overrides)
    services.tariff_import(
        {"format": "house-tariff/1", "game": "preferans", "name": name, "rules": rules.to_dict()},
        by=None,
    )


@pytest.fixture
def pulka(client):
    """An open pulka for Anna, Boris and Vera under the conceding tariff; Anna signed in."""
    concede_tariff()
    table = factories.pulka(tariff=TARIFF, pool_target=20)
    client.force_login(table.seats.get(position=0).member)
    return table


def document(table):
    return selectors.replay(Table.objects.get(pk=table.pk)).document()


def page(client, table, **query):
    return html.unescape(
        client.get(reverse("scoring:table_detail", args=[table.pk]), query).content.decode()
    )


def words(text: str) -> str:
    """The page's text without its tags."""
    return re.sub(r"<[^>]+>", "", text)


def saved_nothing(table):
    assert not DealRecord.objects.filter(table=table).exists()
    assert Table.objects.get(pk=table.pk).revision == table.revision


# -- the form -----------------------------------------------------------------------------


def test_the_form_offers_conceding_only_where_the_tariff_allows_it(client, pulka, table, anna):
    client.force_login(anna)  # seated at the Sochi ``table`` only
    assert 'value="concede"' not in page(client, table)
    client.force_login(pulka.seats.get(position=0).member)
    assert ("concede", "conceded contract") in choices(page(client, pulka), "kind")


@pytest.mark.parametrize("usual", [3, 2])
def test_the_concession_fields_start_at_the_tariffs_usual_undertricks(client, usual):
    concede_tariff(concede_undertricks=usual)
    table = factories.pulka(tariff=TARIFF)
    client.force_login(table.seats.get(position=0).member)

    redrawn = post_deal(client, table, {"kind": "concede", "change": "1"}, **HTMX)

    text = redrawn.content.decode()
    assert chosen(text, "kind") == ["concede"]
    undertricks = choices(text, "undertricks")
    assert [value for value, _ in undertricks] == [str(n) for n in range(1, 11)]
    assert chosen(text, "undertricks") == [str(usual)]
    shown = shown_fields(text)
    assert {"declarer", "level", "suit", "undertricks"} <= shown
    assert "tricks:Vera" not in shown  # nothing is played
    assert "answer:Boris" not in shown
    # Without JavaScript the "Show fields" button posts the same and gets the whole page.
    plain = post_deal(client, table, {"kind": "concede", "change": "1"}).content.decode()
    assert "<html" in plain
    assert choices(plain, "undertricks") == undertricks
    assert chosen(plain, "undertricks") == [str(usual)]
    assert not DealRecord.objects.exists()


@pytest.mark.parametrize("headers", [HTMX, {}], ids=["htmx", "plain"])
def test_a_concession_is_stored_as_the_game_record_writes_it(client, pulka, headers):
    response = post_deal(client, pulka, CONCEDE_FORM, **headers)

    if headers:
        assert response.status_code == 200
        assert response["HX-Retarget"] == "#sheet"
    else:
        assert response.status_code == 302
    assert DealRecord.objects.get(table=pulka).data == CONCEDE_DEAL
    players = document(pulka)["players"]
    assert [players[n]["mountain"] for n in ("Anna", "Boris", "Vera")] == [0, 0, 12]
    assert [players[n]["pool"] for n in ("Anna", "Boris", "Vera")] == [0, 0, 0]
    assert players["Anna"]["whists"] == {"Boris": 0, "Vera": 12}
    assert players["Boris"]["whists"] == {"Vera": 12, "Anna": 0}
    assert AuditEntry.objects.filter(table=pulka, action="add").count() == 1


@pytest.mark.parametrize("headers", [HTMX, {}], ids=["htmx", "plain"])
def test_conceding_is_refused_where_the_tariff_does_not_allow_it(client, table, anna, headers):
    response = post_deal(client, table, CONCEDE_FORM, **headers)

    assert response.status_code == 200
    page = response.content.decode()
    refusal = "conceding a contract is not allowed under this tariff"
    assert field_errors(page, "id_kind") == [refusal]
    assert html.unescape(page).count(refusal) == 1  # on the kind, not again above the form
    saved_nothing(table)


@pytest.mark.parametrize(
    ("level", "undertricks", "message"),
    [
        ("7", "8", "must be 1–7, got 8"),
        ("6", "7", "must be 1–6, got 7"),
        ("7", "0", "Select a valid choice. 0 is not one of the available choices."),
        ("7", "11", "Select a valid choice. 11 is not one of the available choices."),
        ("7", "three", "Select a valid choice. three is not one of the available choices."),
    ],
)
def test_undertricks_out_of_range_are_refused_naming_the_field(
    client, pulka, level, undertricks, message
):
    data = CONCEDE_FORM | {"level": level, "undertricks": undertricks}

    response = post_deal(client, pulka, data, **HTMX)

    assert response.status_code == 200
    page = response.content.decode()
    assert field_errors(page, "id_undertricks") == [message]  # on its field
    assert html.unescape(page).count(message) == 1  # and nowhere else
    saved_nothing(pulka)


def test_the_exit_holds_for_a_concession_which_does_not_end_the_series(client, pulka):
    post_deal(client, pulka, PASSOUT)  # the exit is 7 now

    refused = post_deal(client, pulka, CONCEDE_FORM | {"level": "6"}, **HTMX)
    assert field_errors(refused.content.decode(), "id_level") == [
        "Select a valid choice. 6 is not one of the available choices."
    ]
    assert DealRecord.objects.filter(table=pulka).count() == 1

    assert post_deal(client, pulka, CONCEDE_FORM).status_code == 302
    # A concession does not end the pass-out series: the next contract is still 7 at least.
    levels = choices(page(client, pulka), "level")
    assert [value for value, _ in levels] == ["7", "8", "9", "10"]
    assert document(pulka)["players"]["Vera"]["mountain"] == 2 + 12


# -- what the pages say -----------------------------------------------------------------------


def test_the_log_says_the_concession_in_russian_and_english(client, pulka):
    post_deal(client, pulka, CONCEDE_FORM)
    russian = Client()
    russian.force_login(pulka.seats.get(position=0).member)

    text = words(page(russian, pulka))

    assert "Vera 7♠ — уход без трёх" in text
    assert "Vera: гора 12 (уход: недобор в гору: 3 × 4 = 12)" in text
    assert "Anna → Vera: висты 12 (консоляция при уходе: 3 × 4 = 12)" in text
    assert "Boris → Vera: висты 12 (консоляция при уходе: 3 × 4 = 12)" in text
    assert ("concede", "уход") in choices(page(russian, pulka), "kind")
    english = words(page(client, pulka))
    assert "Vera 7♠ — conceded, three down" in english
    assert "Vera: mountain 12 (contract conceded: 3 × 4 = 12)" in english


def test_an_imported_concession_is_titled_with_the_undertricks_that_scored_it(client):
    """A game record may leave the undertricks to the tariff's usual number."""
    concede_tariff(concede_undertricks=2)
    members = [factories.member(name) for name in ("Anna", "Boris", "Vera")]
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": PreferansRules().with_overrides(RULES | {"concede_undertricks": 2}).to_dict(),
        "players": ["Anna", "Boris", "Vera"],
        "deals": [{"kind": "concede", "declarer": "Boris", "contract": "8H"}],
    }
    version = PreferansTariff.objects.get(name=TARIFF).current_version
    table = services.table_import(record, version=version, members=members, by=members[0])

    text = words(page(client, table))

    assert "Boris 8♥ — conceded, two down" in text
    assert "Boris: mountain 12 (contract conceded: 2 × 6 = 12)" in text  # 8: V = 6
    assert DealRecord.objects.get(table=table).data == record["deals"][0]  # stored as it came


def test_the_preview_explains_a_concession_and_saves_nothing(client, pulka):
    response = post_deal(client, pulka, CONCEDE_FORM | {"preview": "1"}, **HTMX)

    lines = re.findall(r"<li>(.*?)</li>", select_preview(response.content.decode()))
    assert [html.unescape(line) for line in lines] == [
        "Vera: mountain 12 — contract conceded: 3 × 4 = 12",
        "Anna → Vera: whists 12 — consolation on a conceded contract: 3 × 4 = 12",
        "Boris → Vera: whists 12 — consolation on a conceded contract: 3 × 4 = 12",
    ]
    saved_nothing(pulka)


def select_preview(text: str) -> str:
    match = re.search(r'<div class="preview".*?<ul>(.*?)</ul>', text, re.S)
    assert match, "no preview"
    return match[1]


def test_the_print_view_lists_the_concession_and_what_it_wrote(client, pulka):
    post_deal(client, pulka, CONCEDE_FORM)

    printed = client.get(reverse("scoring:table_print", args=[pulka.pk])).content.decode()

    assert (
        "<td>Vera 7♠ — conceded, three down</td><td>Vera: mountain 12; Anna → Vera: whists 12; "
        "Boris → Vera: whists 12</td>"
    ) in html.unescape(printed)


# -- corrections ----------------------------------------------------------------------------


def test_a_game_is_corrected_into_a_concession_and_back(client, pulka):
    post_deal(client, pulka, FIRST_GAME)  # Anna 6♠ made: pool 2; Boris whists 4 × 2 = 8
    record = DealRecord.objects.get(table=pulka)
    url = reverse("scoring:deal_edit", args=[pulka.pk, record.pk])
    conceded = {"kind": "concede", "declarer": "Anna", "level": "6", "suit": "S"}

    redrawn = client.post(url, conceded | {"change": "1", "reason": "gave up"}, **HTMX)
    assert chosen(redrawn.content.decode(), "undertricks") == ["3"]  # the usual number
    data = conceded | {"undertricks": "2", "reason": "she gave it up"}
    response = client.post(url, data | factories.drawn(pulka))

    assert response.status_code == 302
    record.refresh_from_db()
    assert record.data == ANNA_6
    # Sochi 6: V = 2. Anna's mountain 2 × 2 = 4; Boris and Vera console 2 × 2 = 4 each.
    players = document(pulka)["players"]
    assert (players["Anna"]["pool"], players["Anna"]["mountain"]) == (0, 4)
    assert players["Boris"]["whists"]["Anna"] == players["Vera"]["whists"]["Anna"] == 4
    edit = AuditEntry.objects.get(table=pulka, action="edit")
    assert edit.before["kind"] == "game"
    assert edit.after == record.data

    # The edit page shows the concession as stored: submitted unchanged, it stays the same.
    shown = form_data(client.get(url).content.decode(), "deal-edit")
    assert (shown["kind"], shown["declarer"], shown["level"], shown["suit"]) == (
        "concede",
        "Anna",
        "6",
        "S",
    )
    assert shown["undertricks"] == "2"
    assert (
        client.post(url, shown | {"reason": "looked again"} | factories.drawn(pulka)).status_code
        == 302
    )
    record.refresh_from_db()
    assert record.data == ANNA_6

    played = FIRST_GAME | {"reason": "she played it"} | factories.drawn(pulka)
    assert client.post(url, played).status_code == 302
    record.refresh_from_db()
    assert record.data["kind"] == "game"
    players = document(pulka)["players"]
    assert (players["Anna"]["pool"], players["Anna"]["mountain"]) == (2, 0)
    assert players["Boris"]["whists"]["Anna"] == 8


# -- the record and the statistics --------------------------------------------------------


@pytest.mark.slow  # manage.py score in a process of its own
def test_a_table_with_a_concession_exports_and_manage_py_score_gives_the_same(client, pulka):
    post_deal(client, pulka, CONCEDE_FORM)
    post_deal(client, pulka, PASSOUT)
    exported = client.get(reverse("scoring:table_export", args=[pulka.pk])).content.decode()
    assert json.loads(exported)["deals"][0] == CONCEDE_DEAL

    run = subprocess.run(
        [sys.executable, "manage.py", "score", "-"],
        cwd=ROOT,
        input=exported,
        capture_output=True,
        text=True,
        check=False,
        # An unreachable database proves the command never touches one.
        env={"PATH": "", "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"},
    )

    assert run.returncode == 0, run.stderr
    scored = json.loads(run.stdout)
    assert scored["players"] == document(pulka)["players"]
    assert scored["players"]["Vera"]["mountain"] == 12 + 2  # the concession, the pass-out


def test_a_concession_counts_as_a_contract_declared_and_not_made(client, pulka):
    post_deal(client, pulka, CONCEDE_FORM)
    services.table_finish(pulka, by=pulka.seats.get(position=0).member)

    seats = {s.name: s.stats for s in Seat.objects.filter(table=pulka)}
    assert seats == {
        "Anna": {"whists_written": 12},
        "Boris": {"whists_written": 12},
        "Vera": {"declared_7": 1, "conceded_7": 1, "whists_received": 24},
    }
    vera = pulka.seats.get(name="Vera").member
    stats = profiles.preferans_stats(profile_reads.member_totals(vera))
    seven = next(t for t in stats.levels if t.label == "7")
    assert (seven.declared, seven.made, seven.percent, stats.conceded) == (1, 0, 0, 1)
    shown = client.get(reverse("members:detail", args=[vera.username])).content.decode()
    assert "Contracts conceded" in shown
    assert "1 contract, counted above as declared and not made" in shown
    anna = pulka.seats.get(name="Anna").member
    others = client.get(reverse("members:detail", args=[anna.username])).content.decode()
    assert "Contracts conceded" not in others
