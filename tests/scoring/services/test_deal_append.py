"""A scorer's deal stored in one statement (``services.tables.APPEND_SQL``, PostgreSQL):
it writes what the locking path writes, and nothing when the table is no longer as the
scorer's page showed it — the locking path then says why."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from django.db.models import Model
from django.urls import reverse

from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.models import AuditEntry, DealRecord, Table, WriteKey
from tests import factories

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"],
        reason="the one-statement append is PostgreSQL's (DATABASE_URL=postgres://…); "
        "SQLite always takes the locking path",
    ),
]

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


def test_an_appended_deal_is_stored_as_the_locking_path_stores_it(django_assert_num_queries):
    anna, boris, vera = (factories.member(name) for name in ("Anna", "Boris", "Vera"))
    appended = factories.pulka([anna, boris, vera], deals=[GAME])
    locked = factories.pulka([anna, boris, vera], deals=[GAME])
    state = seen(appended)

    with django_assert_num_queries(1):  # the one statement: no lock, no replay, no reads
        saved = services.deal_create(
            appended,
            PASSOUT,
            by=boris,
            drawn=services.Drawn(state.table.revision, uuid.uuid4()),
            seen=state,
        )
    # Without the revision the page showed, the deal takes the locking path.
    services.deal_create(locked, PASSOUT, by=boris, drawn=services.Drawn(None, uuid.uuid4()))

    assert rows(appended) == rows(locked)
    assert rows(appended)["keys"] == [{"revision": 2}]  # opened at 0, a deal: 1, this one: 2
    assert saved.record.sequence == 2
    assert saved.record.data == DealRecord.objects.get(pk=saved.record.pk).data
    assert saved.state.table.revision == 2
    assert saved.state.document() == selectors.replay(appended).document()


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
    # is checked by the statement too.
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


def test_a_save_through_the_site_costs_five_statements(client, django_assert_num_queries):
    table = factories.pulka(deals=[GAME])
    client.force_login(table.seats.get(position=0).member)
    client.get(reverse("scoring:table_detail", args=[table.pk]))  # the revision's snapshot
    url = reverse("scoring:deal_create", args=[table.pk])
    form = {**factories.PASSOUT, **factories.drawn(table), "write_key": str(uuid.uuid4())}
    # The table and its seats, the session, the member (with whether he organises: the
    # buttons under the form), the append.
    with django_assert_num_queries(5):
        response = client.post(url, form, **factories.HTMX)
    assert response.status_code == 200
    assert DealRecord.objects.filter(table=table).count() == 2
