"""The control time, the last round and closing early, through real HTTP (preferans.md
§13.12, issue 16 items 4 and 5): the confirmation pages, who may do what, the reasons the
history keeps, the sheet and the table page in English and Russian, the clock through the
deal form, export and import.

Each table is Anna, Boris and Vera (first dealer Anna) at pool 100, so no pool closes;
every deal is Boris's clean misère (``MISERE``), and the deal passes after each one.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from scoring import selectors, services
from scoring.models import AuditEntry, Table
from scoring.pages.sheet import pulka_svg
from tests import factories
from tests.factories import HTMX, MISERE, post_deal

pytestmark = pytest.mark.django_db

FRIDAY = datetime.date(2026, 3, 6)


def at(hour: int, minute: int = 0) -> datetime.datetime:
    return datetime.datetime.combine(FRIDAY, datetime.time(hour, minute))


@pytest.fixture
def pulka(clock: Any) -> Table:
    """Opened on Friday at 19:00 with the control time 23:00."""
    clock.at(at(19))
    members = [factories.member(name, username=name.lower()) for name in ("Anna", "Boris", "Vera")]
    return factories.pulka(members, pool_target=100, control_time=datetime.time(23, 0))


@pytest.fixture
def anna(client: Client, pulka: Table) -> Any:
    user = pulka.seats.get(position=0).member
    client.force_login(user)
    return user


def deals(client: Client, table: Table, count: int, **headers: Any) -> Any:
    response = None
    for _ in range(count):
        response = post_deal(client, table, MISERE, **headers)
        assert response.status_code in (200, 302)
    return response


def page(client: Client, table: Table) -> str:
    response = client.get(reverse("scoring:table_detail", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


def mark_url(table: Table) -> str:
    return reverse("scoring:control_time_mark", args=[table.pk])


def finish_url(table: Table) -> str:
    return reverse("scoring:table_finish", args=[table.pk])


def fresh(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


# -- marking by hand ---------------------------------------------------------------------------


def test_the_scorer_marks_the_control_time_after_a_confirmation(client, pulka, anna):
    """Two deals (Anna and Boris dealt): Vera deals the last deal of the round."""
    deals(client, pulka, 2)
    html = page(client, pulka)
    assert "Last round (control time)…" in html
    assert "last round" not in html.replace("Last round (control time)", "")

    confirm = client.get(mark_url(pulka))
    assert confirm.status_code == 200
    text = confirm.content.decode()
    assert "After the mark: 1 deal left" in text
    assert "the first deal saved after it marks the control time by itself" in text
    assert fresh(pulka).control_time_deal is None  # the page itself changes nothing

    revision = fresh(pulka).revision
    response = client.post(mark_url(pulka), factories.drawn(pulka))
    assert response.status_code == 302
    marked = fresh(pulka)
    assert (marked.control_time_deal, marked.revision) == (2, revision + 1)
    html = page(client, pulka)
    assert "Control time marked: the last round is on." in html
    assert "last round</strong>: 1 deal left" in html
    assert "Last round (control time)…" not in html  # marked once
    assert "control time marked: the last round" in html  # the history
    assert AuditEntry.objects.get(table=pulka, action=AuditEntry.MARK).actor == anna


def test_marking_at_the_first_dealer_says_the_pulka_completes_at_once(client, pulka, anna):
    deals(client, pulka, 3)  # Anna, Boris and Vera dealt: back at Anna
    text = client.get(mark_url(pulka)).content.decode()
    assert "The deal is back at the first dealer: the pulka is complete at once." in text
    client.post(mark_url(pulka), factories.drawn(pulka))
    html = page(client, pulka)
    assert "The last round is over: the pulka is complete." in html
    assert ">Finish the table…</a>" in html
    assert "Close the table early…" not in html


def test_the_round_played_out_refuses_a_deal_and_the_players_finish(client, pulka, anna):
    deals(client, pulka, 1)
    client.post(
        mark_url(pulka), factories.drawn(pulka)
    )  # after Anna's deal: Boris and Vera deal, 2 left
    assert "last round</strong>: 2 deals left" in page(client, pulka)
    deals(client, pulka, 2)
    html = page(client, pulka)
    assert "The last round is over: the pulka is complete." in html
    refused = post_deal(client, pulka, MISERE, **HTMX).content.decode()
    assert "the pulka is complete; only adjustments are allowed" in refused
    assert selectors.replay(fresh(pulka)).count == 3
    assert (
        client.post(finish_url(pulka), factories.drawn(pulka)).status_code == 302
    )  # a seated member, no reason
    assert fresh(pulka).status == Table.FINISHED


def test_marking_is_refused_when_marked_already_and_at_a_finished_table(client, pulka, anna):
    deals(client, pulka, 1)
    client.post(mark_url(pulka), factories.drawn(pulka))
    again = client.get(mark_url(pulka))
    assert again.status_code == 302
    assert "The control time is marked already." in client.get(again["Location"]).content.decode()
    services.table_finish(pulka, by=anna)
    closed = client.post(mark_url(pulka), factories.drawn(pulka))
    assert "the table is finished" in client.get(closed["Location"]).content.decode()
    assert AuditEntry.objects.filter(table=pulka, action=AuditEntry.MARK).count() == 1


def test_a_viewer_sees_the_mark_on_the_live_sheet(client, pulka, anna):
    deals(client, pulka, 2)
    live = reverse("scoring:table_live", args=[pulka.pk])
    etag = Client(headers={"accept-language": "en"}).get(live)["ETag"]
    client.post(mark_url(pulka), factories.drawn(pulka))
    viewer = Client(headers={"accept-language": "en"})
    response = viewer.get(live, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200  # the revision moved on
    html = response.content.decode()
    assert "last round</strong>: 1 deal left" in html
    # In the drawing's centre too, in the page's language.
    assert 'class="sheet-last-round" font-size="9.5">last round</text>' in html


# -- the clock through the deal form -----------------------------------------------------------


def test_the_first_deal_saved_after_the_control_time_marks_it(client, clock, pulka, anna):
    """Two deals before 23:00; the third, Vera's, saved at 23:04 (htmx): the mark is 3,
    the deal is back at Anna and the pulka complete (finish_circle)."""
    clock.at(at(22, 30))
    deals(client, pulka, 2)
    clock.at(at(23, 4))
    response = post_deal(client, pulka, MISERE, **HTMX)
    html = response.content.decode()
    assert response["HX-Retarget"] == "#sheet"
    assert fresh(pulka).control_time_deal == 3
    assert "The last round is over: the pulka is complete." in html
    assert ">Finish the table…</a>" in html  # the table's buttons, out of band
    history = page(client, pulka)
    assert "control time passed: the last round" in history


def test_a_deal_before_the_control_time_marks_nothing(client, clock, pulka, anna):
    clock.at(at(22, 59))
    deals(client, pulka, 1)
    assert fresh(pulka).control_time_deal is None
    assert "Last round (control time)…" in page(client, pulka)


# -- clearing the mark -------------------------------------------------------------------------


def test_an_organiser_clears_the_mark_saying_why(client, pulka, anna):
    deals(client, pulka, 1)
    client.post(mark_url(pulka), factories.drawn(pulka))
    assert "Clear the control-time mark" not in page(client, pulka)  # a seated member
    clear = reverse("scoring:control_time_clear", args=[pulka.pk])
    assert client.post(clear, {"reason": "by mistake"} | factories.drawn(pulka)).status_code == 403
    client.force_login(factories.member("Olga", organiser=True))
    assert "Clear the control-time mark" in page(client, pulka)

    refused = client.post(clear, {"reason": ""} | factories.drawn(pulka), **HTMX)
    assert "Say why the control-time mark is cleared." in refused.content.decode()
    assert fresh(pulka).control_time_deal == 1

    cleared = client.post(clear, {"reason": "pressed by mistake"} | factories.drawn(pulka), **HTMX)
    assert "Control-time mark cleared." in cleared.content.decode()
    assert fresh(pulka).control_time_deal is None
    assert "«pressed by mistake»" in page(client, pulka)


def test_a_mark_waiting_for_its_deal_after_an_undo_is_explained(client, pulka, anna):
    deals(client, pulka, 2)
    client.post(mark_url(pulka), factories.drawn(pulka))
    client.post(reverse("scoring:deal_undo", args=[pulka.pk]), factories.drawn(pulka))
    html = page(client, pulka)
    assert "The control time is marked after deal 2" in html
    assert "last round</strong>" not in html


# -- closing early -----------------------------------------------------------------------------


def test_only_an_organiser_closes_early_with_a_confirmation_and_a_reason(client, pulka, anna):
    deals(client, pulka, 1)
    html = page(client, pulka)
    assert "Close the table early…" not in html  # Anna is a seated member
    assert "Finish the table" not in html
    assert "Close at the control time" not in html  # the old button is gone
    refused = client.get(finish_url(pulka))
    assert (
        "only an organiser can close the pulka early"
        in client.get(refused["Location"]).content.decode()
    )

    client.force_login(factories.member("Olga", organiser=True))
    assert "Close the table early…" in page(client, pulka)
    confirm = client.get(finish_url(pulka)).content.decode()
    assert "<h1>Close the table early" in confirm
    assert "settled as it stands" in confirm
    assert 'name="reason"' in confirm and "required" in confirm

    nothing = client.post(finish_url(pulka), {"reason": "  "} | factories.drawn(pulka))
    assert nothing.status_code == 200
    assert "Say why the table is closed early." in nothing.content.decode()
    assert fresh(pulka).is_open

    done = client.post(
        finish_url(pulka),
        {"reason": "the club closes at midnight", "counts": "yes"} | factories.drawn(pulka),
    )
    assert done.status_code == 302
    assert fresh(pulka).status == Table.FINISHED
    entry = AuditEntry.objects.get(table=pulka, action=AuditEntry.CLOSE)
    assert entry.reason == "the club closes at midnight"


def test_a_boston_table_is_finished_by_its_players_as_before(client):
    table = factories.boston_table(deals=[{"kind": "pass"}])
    client.force_login(table.seats.get(position=0).member)
    html = page(client, table)
    assert ">Finish the table…</a>" in html
    assert "Last round (control time)…" not in html
    assert client.get(mark_url(table)).status_code == 404
    assert client.post(finish_url(table), factories.drawn(table)).status_code == 302
    assert fresh(table).status == Table.FINISHED


# -- the drawing: the arrow and the dealer -----------------------------------------------------


def test_the_sheet_marks_the_dealer_until_the_table_is_finished(client, pulka, anna):
    deals(client, pulka, 1)  # Boris deals now; the arrow stays at Anna
    html = page(client, pulka)
    assert 'data-first-dealer="0"' in html
    assert 'data-dealer="1"' in html
    assert "dealer-arrow" in html and "dealer-mark" in html
    services.table_finish(pulka, by=anna)
    finished = page(client, pulka)
    assert 'data-first-dealer="0"' in finished
    assert "data-dealer=" not in finished
    assert "dealer-arrow" not in finished and "dealer-mark" not in finished
    printed = client.get(reverse("scoring:table_print", args=[pulka.pk])).content.decode()
    assert "dealer-arrow" not in printed


# -- in Russian --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "left", "words"),
    [(2, 1, "осталась 1 сдача"), (1, 2, "осталось 2 сдачи")],
)
def test_the_last_round_speaks_russian(client, pulka, anna, before, left, words):
    deals(client, pulka, before)
    russian = Client()
    russian.force_login(anna)
    confirm = russian.get(mark_url(pulka)).content.decode()
    assert "Последний круг" in confirm
    assert f"После отметки: {words}" in confirm
    russian.post(mark_url(pulka), factories.drawn(pulka))
    html = page(russian, pulka)
    assert f"последний круг</strong>: {words}" in html
    assert "Контрольное время отмечено: играется последний круг." in html


def test_five_deals_left_in_russian():
    """3 players, one more circle: marked after Anna's deal, Boris and Vera finish the
    circle and one more circle follows: 5 deals."""
    factories.preferans_tariff("Сочи, ещё круг", last_round="one_more_circle")
    members = [factories.member(name) for name in ("Anna", "Boris", "Vera")]
    table = factories.pulka(members, tariff="Сочи, ещё круг", pool_target=100)
    russian = Client()
    russian.force_login(members[0])
    deals(russian, table, 1)
    russian.post(mark_url(table), factories.drawn(table))
    assert "последний круг</strong>: осталось 5 сдач" in page(russian, table)


def test_closing_early_speaks_russian(pulka):
    russian = Client()
    russian.force_login(factories.member("Olga", organiser=True))
    confirm = russian.get(finish_url(pulka)).content.decode()
    assert "Закрыть стол досрочно" in confirm
    assert "Закрыть стол досрочно…" in page(russian, pulka)
    refused = russian.post(finish_url(pulka), {"reason": ""}).content.decode()
    assert "Укажите, почему стол закрыт досрочно." in refused


# -- export and import -------------------------------------------------------------------------


def test_export_then_import_keeps_the_mark_and_the_same_sheet(client, pulka, anna):
    """Marked after 1 deal, the round played out (3 deals): the record says so, and the
    imported table replays to the same complete pulka and draws the same sheet."""
    deals(client, pulka, 1)
    client.post(mark_url(pulka), factories.drawn(pulka))
    deals(client, pulka, 2)
    record = json.loads(client.get(reverse("scoring:table_export", args=[pulka.pk])).content)
    assert record["control_time_deal"] == 1

    upload = SimpleUploadedFile("game.json", json.dumps(record).encode(), "application/json")
    response = client.post(reverse("scoring:table_import"), {"record": upload, "game": "preferans"})
    assert response.status_code == 302

    imported = Table.objects.exclude(pk=pulka.pk).get()
    assert imported.control_time_deal == 1
    original, copy = selectors.replay(fresh(pulka)).game, selectors.replay(imported).game
    assert (copy.complete, copy.last_round, copy.deals_left()) == (True, True, 0)
    assert copy.result().deals == original.result().deals
    assert pulka_svg(copy, finished=True) == pulka_svg(original, finished=True)
    again = json.loads(client.get(reverse("scoring:table_export", args=[imported.pk])).content)
    assert again == record
