"""A scorer's deal saved from the page he saw (``services.deal_create`` with ``seen``): one
write path on every database (the row lock, the checks, the rows), which stores what a
deal replayed afresh stores, and nothing when the table is no longer as his page showed
it. (A one-statement append on PostgreSQL beside it was measured and removed: issue 28,
docs/performance.md.)"""

from __future__ import annotations

import uuid

import pytest
from django.db.models import Model
from django.urls import reverse

from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.models import AuditEntry, DealRecord, Table, WriteKey
from tests import factories

pytestmark = pytest.mark.django_db

GAME, PASSOUT = factories.GAME_RECORD, factories.PASSOUT_RECORD


def seen(table: Table) -> selectors.TableState:
    """The table as a scorer's page replays it (seats prefetched, the latest rows)."""
    fresh = Table.objects.prefetch_related("seats").get(pk=table.pk)
    return selectors.current(fresh, latest=10)


def rows(table: Table) -> dict[str, list[dict[str, object]]]:
    """What a table's writes left, without ids and clocks."""

    def of(model: type[Model], *fields: str) -> list[dict[str, object]]:
        return list(model.objects.filter(table=table).order_by("pk").values(*fields))

    return {
        "deals": of(DealRecord, "sequence", "data", "deleted", "created_by"),
        "history": of(
            AuditEntry, "deal__sequence", "action", "actor", "revision", "reason", "before", "after"
        ),
        "keys": of(WriteKey, "revision"),
        "table": list(Table.objects.filter(pk=table.pk).values("revision", "status")),
    }


def test_a_deal_saved_from_the_page_is_stored_as_a_deal_replayed_afresh(
    django_assert_num_queries,
):
    anna, boris, vera = (factories.member(name) for name in ("Anna", "Boris", "Vera"))
    from_page = factories.pulka([anna, boris, vera], deals=[GAME])
    replayed = factories.pulka([anna, boris, vera], deals=[GAME])
    state = seen(from_page)

    # The transaction (a savepoint here), the row lock, the key looked up (a resend is
    # answered as the first, whatever its revision), the deal, its history entry, the
    # revision, the key kept, the commit: the page's replay is advanced, nothing else read.
    with django_assert_num_queries(8):
        saved = services.deal_create(
            from_page,
            PASSOUT,
            by=boris,
            drawn=services.Drawn(state.table.revision, uuid.uuid4()),
            seen=state,
        )
    # Without the page's replay, the table is replayed under the lock.
    services.deal_create(
        replayed, PASSOUT, by=boris, drawn=services.Drawn(state.table.revision, uuid.uuid4())
    )

    assert rows(from_page) == rows(replayed)
    assert rows(from_page)["keys"] == [{"revision": 2}]  # opened at 0, a deal: 1, this one: 2
    assert saved.record.sequence == 2
    assert saved.record.data == DealRecord.objects.get(pk=saved.record.pk).data
    assert saved.state.table.revision == 2
    assert saved.state.document() == selectors.replay(from_page).document()


def test_a_table_moved_on_since_the_page_stores_nothing_and_is_told(django_assert_num_queries):
    table = factories.pulka(deals=[GAME])
    anna = table.seats.get(position=0).member
    page = seen(table)
    services.deal_create(table, PASSOUT, by=anna)  # another scorer's deal meanwhile
    before = rows(table)

    with pytest.raises(services.StaleWrite):
        services.deal_create(
            table,
            PASSOUT,
            by=anna,
            drawn=services.Drawn(page.table.revision, uuid.uuid4()),
            seen=page,
        )
    assert rows(table) == before


def test_a_table_finished_behind_the_page_stores_nothing():
    table = factories.pulka(deals=[GAME])
    anna = table.seats.get(position=0).member
    page = seen(table)
    # Not the way the site finishes a table (that moves the revision on): the status alone
    # is checked under the lock too.
    Table.objects.filter(pk=table.pk).update(status=Table.FINISHED)
    before = rows(table)

    with pytest.raises(RuleError, match="the table is finished"):
        services.deal_create(
            table, PASSOUT, by=anna, drawn=services.Drawn(page.table.revision, None), seen=page
        )
    assert rows(table) == before


def test_a_deal_the_rules_refuse_is_not_stored():
    table = factories.pulka(deals=[GAME])
    anna = table.seats.get(position=0).member
    page = seen(table)
    before = rows(table)
    short = {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 2}}  # 9 tricks

    with pytest.raises(RuleError):
        services.deal_create(
            table, short, by=anna, drawn=services.Drawn(page.table.revision, None), seen=page
        )
    assert rows(table) == before


def test_a_save_through_the_site_costs_twelve_statements(client, django_assert_num_queries):
    table = factories.pulka(deals=[GAME])
    client.force_login(table.seats.get(position=0).member)
    client.get(reverse("scoring:table_detail", args=[table.pk]))  # the revision's snapshot
    url = reverse("scoring:deal_create", args=[table.pk])
    form = {**factories.PASSOUT, **factories.drawn(table), "write_key": str(uuid.uuid4())}
    # The table and its seats, the session, the member (with whether he organises: the
    # buttons under the form), and the write's eight (as above).
    with django_assert_num_queries(12):
        response = client.post(url, form, **factories.HTMX)
    assert response.status_code == 200
    assert DealRecord.objects.filter(table=table).count() == 2
