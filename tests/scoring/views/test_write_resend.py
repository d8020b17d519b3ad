"""A write sent again with its key (issue 35 item 2): the outbox resends a deal whose answer
was lost, and may send it at the table's revision as it now stands. It is answered as the
first was (200 or the redirect, with the revision the write made), whatever revision it
carries; a key sent with another kind of write, deal or table is refused in words (400)
and stores nothing. And a correction racing the delete of its deal (issue 35 item 7)."""

from __future__ import annotations

import html
import uuid

import pytest
from django.urls import reverse

from scoring import services
from scoring.models import DealRecord, Table, WriteKey
from scoring.views import deals as deal_views
from tests import factories
from tests.factories import FIRST_GAME, GAME_RECORD, HTMX, PASSOUT, PASSOUT_RECORD

pytestmark = pytest.mark.django_db

REFUSED = "this form's key belongs to another write, so nothing was saved"


def text(response) -> str:
    return html.unescape(response.content.decode())


def live(table: Table) -> list[int]:
    return list(DealRecord.objects.filter(table=table, deleted=False).values_list("pk", flat=True))


def revision(table: Table) -> int:
    return Table.objects.values_list("revision", flat=True).get(pk=table.pk)


def post(client, name: str, table: Table, data: dict[str, str], key: uuid.UUID, at: int, **kw):
    args = [table.pk, *kw.pop("args", ())]
    write = {**data, "revision": str(at), "write_key": str(key)}
    return client.post(reverse(f"scoring:{name}", args=args), write, **kw)


@pytest.mark.parametrize("headers", [HTMX, {}], ids=["htmx", "plain"])
def test_a_deal_sent_again_is_answered_as_the_first_whatever_its_revision(
    client, table, anna, headers
):
    key = uuid.uuid4()
    first = post(client, "deal_create", table, FIRST_GAME, key, 0, **headers)
    assert first["X-Table-Revision"] == "1"
    # The outbox sends it again at the table's revision now: the deal's own (it was a 500).
    again = post(client, "deal_create", table, FIRST_GAME, key, 1, **headers)
    assert (again.status_code, again["X-Table-Revision"]) == (first.status_code, "1")
    assert "X-Write-Refused" not in again
    services.deal_create(table, PASSOUT_RECORD, by=anna)
    # ... and after another scorer's deal, at the revision that one made.
    later = post(client, "deal_create", table, FIRST_GAME, key, 2, **headers)
    assert (later.status_code, later["X-Table-Revision"]) == (first.status_code, "1")
    assert len(live(table)) == 2
    assert revision(table) == 2
    if headers:
        assert later["HX-Retarget"] == "#sheet"
        assert "Deal saved." in text(later)
    else:
        assert later["Location"] == reverse("scoring:table_detail", args=[table.pk]) + "#deal-form"


@pytest.mark.parametrize("headers", [HTMX, {}], ids=["htmx", "plain"])
def test_an_undo_sent_again_strikes_nothing_more(client, table, anna, headers):
    services.deal_create(table, GAME_RECORD, by=anna)
    services.deal_create(table, PASSOUT_RECORD, by=anna)
    key = uuid.uuid4()
    first = post(client, "deal_undo", table, {}, key, 2, **headers)
    assert first["X-Table-Revision"] == "3"
    for at in (3, 2):  # the table's revision now, and the one the undo was drawn at
        again = post(client, "deal_undo", table, {}, key, at, **headers)
        assert (again.status_code, again["X-Table-Revision"]) == (first.status_code, "3")
    assert len(live(table)) == 1
    assert revision(table) == 3


@pytest.mark.parametrize("at", ["old", "now"])
def test_a_deals_key_sent_with_an_undo_is_refused_in_words(client, table, anna, at):
    """It answered «Last deal undone» and struck nothing."""
    key = uuid.uuid4()
    post(client, "deal_create", table, FIRST_GAME, key, 0)
    post(client, "deal_create", table, PASSOUT, uuid.uuid4(), 1)
    refused = post(client, "deal_undo", table, {}, key, 0 if at == "old" else 2, **HTMX)
    assert refused.status_code == 400
    assert refused["X-Write-Refused"] == "1"
    assert REFUSED in text(refused)
    assert "Last deal undone" not in text(refused)
    assert len(live(table)) == 2
    assert revision(table) == 2


def test_a_deals_key_sent_with_a_correction_is_refused_in_words(client, table, anna):
    key = uuid.uuid4()
    post(client, "deal_create", table, FIRST_GAME, key, 0)
    deal = DealRecord.objects.get(table=table)
    correction = {**PASSOUT, "reason": "typo"}
    refused = post(client, "deal_edit", table, correction, key, 1, args=[deal.pk])
    assert refused.status_code == 400
    assert REFUSED in text(refused)
    deal.refresh_from_db()
    assert deal.data["kind"] == "game"
    assert revision(table) == 1


def test_a_corrections_key_sent_for_another_deal_is_refused(client, table, anna):
    first = services.deal_create(table, GAME_RECORD, by=anna).record
    second = services.deal_create(table, PASSOUT_RECORD, by=anna).record
    key = uuid.uuid4()
    correction = {**PASSOUT, "reason": "typo"}
    done = post(client, "deal_edit", table, correction, key, 2, args=[first.pk])
    assert (done.status_code, done["X-Table-Revision"]) == (302, "3")
    again = post(client, "deal_edit", table, correction, key, 3, args=[first.pk])
    assert (again.status_code, again["X-Table-Revision"]) == (302, "3")
    refused = post(client, "deal_edit", table, correction, key, 3, args=[second.pk])
    assert refused.status_code == 400
    assert revision(table) == 3


def test_a_deals_key_sent_with_a_finish_or_at_another_table_is_refused(table, anna):
    key = uuid.uuid4()
    services.deal_create(table, GAME_RECORD, by=anna, drawn=services.Drawn(0, key))
    with pytest.raises(services.KeyReused):
        services.table_finish(table, by=anna, reason="late", drawn=services.Drawn(1, key))
    other = factories.pulka([s.member for s in table.seats.order_by("position")], pool_target=10)
    with pytest.raises(services.KeyReused):
        services.deal_create(other, GAME_RECORD, by=anna, drawn=services.Drawn(0, key))
    assert Table.objects.get(pk=table.pk).is_open
    assert not DealRecord.objects.filter(table=other).exists()
    assert WriteKey.objects.filter(key=key).count() == 1


def test_a_deals_key_at_another_table_is_refused_in_words(client, table, anna):
    key = uuid.uuid4()
    post(client, "deal_create", table, FIRST_GAME, key, 0)
    other = factories.pulka([s.member for s in table.seats.order_by("position")], pool_target=10)
    refused = post(client, "deal_create", other, FIRST_GAME, key, 0, **HTMX)
    assert refused.status_code == 400
    assert REFUSED in text(refused)
    assert live(other) == []


def test_a_key_kept_before_its_kind_was_still_answers_its_table(table, anna):
    """Keys stored before the kind was recorded answer a resend as they did."""
    key = uuid.uuid4()
    services.deal_create(table, GAME_RECORD, by=anna, drawn=services.Drawn(0, key))
    WriteKey.objects.filter(key=key).update(action="", deal=None)
    with pytest.raises(services.AlreadyStored) as stored:
        services.deal_create(table, GAME_RECORD, by=anna, drawn=services.Drawn(1, key))
    assert stored.value.revision == 1


# -- a correction racing the delete of its deal ---------------------------------------------


@pytest.mark.parametrize("method", ["get", "post", "htmx"])
def test_a_correction_of_a_deal_deleted_meanwhile_says_so(client, table, anna, monkeypatch, method):
    """The delete commits after the correction found the deal and before it drew the
    form (it was a 500, ``StopIteration`` in ``_deal_position``)."""
    deal = services.deal_create(table, GAME_RECORD, by=anna).record
    found = deal_views.get_object_or_404

    def found_then_deleted(*args, **kwargs):
        record = found(*args, **kwargs)
        services.deal_delete(DealRecord.objects.get(pk=record.pk), by=anna, reason="race")
        return record

    monkeypatch.setattr(deal_views, "get_object_or_404", found_then_deleted)
    url = reverse("scoring:deal_edit", args=[table.pk, deal.pk])
    if method == "get":
        answer = client.get(url)
    else:
        data = {**PASSOUT, "reason": "typo", "revision": "1", "write_key": str(uuid.uuid4())}
        answer = client.post(url, data, **(HTMX if method == "htmx" else {}))
    table_page = reverse("scoring:table_detail", args=[table.pk])
    if method == "htmx":
        assert (answer.status_code, answer["HX-Redirect"]) == (200, table_page)
    else:
        assert (answer.status_code, answer["Location"]) == (302, table_page)
    assert "this deal was deleted already" in text(client.get(table_page))
    assert live(table) == []


def test_a_correction_refused_as_its_deal_was_deleted_meanwhile_says_so(
    client, table, anna, monkeypatch
):
    """The delete commits after the form was drawn, before the correction's row lock."""
    deal = services.deal_create(table, GAME_RECORD, by=anna).record
    drawn_forms = deal_views.edit_forms

    def drawn_then_deleted(*args, **kwargs):
        forms = drawn_forms(*args, **kwargs)
        if DealRecord.objects.filter(pk=deal.pk, deleted=False).exists():
            services.deal_delete(DealRecord.objects.get(pk=deal.pk), by=anna, reason="race")
        return forms

    monkeypatch.setattr(deal_views, "edit_forms", drawn_then_deleted)
    data = {**PASSOUT, "reason": "typo", "revision": "2", "write_key": str(uuid.uuid4())}
    answer = client.post(reverse("scoring:deal_edit", args=[table.pk, deal.pk]), data)
    assert answer.status_code == 302
    assert live(table) == []
