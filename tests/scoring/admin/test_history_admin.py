"""The record book of the paper history's imports (scoring/admin/history.py): who brought a
file in, when, its name, its rows, the tables it made, read-only for everyone; nobody
deletes an import, administrators included, and the database refuses it too.

The file is ``tests/scoring/services/test_history.py``'s: 7 rows, a table of 3 players and
one of 4, and Пётр, a new guest at both."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db.models import ProtectedError
from django.test import Client
from django.urls import reverse

from scoring.models import HistoryImport, Table
from scoring.services.history import history_import
from tests import factories
from tests.html_forms import form_data
from tests.scoring.services.test_history import FILE

pytestmark = pytest.mark.django_db
LIST = reverse("admin:scoring_historyimport_changelist")


@pytest.fixture
def record(club: dict[str, Any]) -> HistoryImport:
    factories.member("Жанна Р.", username="zhanna")
    return history_import(content=FILE, file_name="notebook.csv", by=club["Anna"])


def _client(**flags: bool) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(factories.member("Oleg", username="oleg", is_staff=True, **flags))
    return client


@pytest.fixture
def oleg() -> Client:
    """An organiser with staff access: the admin's reader."""
    return _client(organiser=True)


@pytest.fixture
def ada() -> Client:
    """An administrator (a superuser)."""
    return _client(is_superuser=True)


def _cells(html: str, row: str) -> list[str]:
    """The texts of the changelist's cells of one column class (``field-<row>``)."""
    return [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(rf'class="field-{row}[^"]*">(.*?)</t[dh]>', html)
    ]


def test_each_import_is_a_line_of_who_when_file_rows_tables(
    record: HistoryImport, oleg: Client, django_assert_num_queries: Any
) -> None:
    other = history_import(
        content=b"table,date,game,player,result\n1,2026-04-01,preferans,anna,5\n"
        b"1,2026-04-01,preferans,boris,-5\n1,2026-04-01,preferans,vera,0\n",
        file_name="second.csv",
        by=None,
    )
    # session, member, his two permission sets, the count twice (filtered and in all),
    # the lines with their row counts, the club's name twice (menu and title), the
    # admin log's content types
    with django_assert_num_queries(11):
        html = oleg.get(LIST).content.decode()
    assert _cells(html, "file_name") == ["second.csv", "notebook.csv"]  # the newest first
    assert _cells(html, "imported_by") == ["—", "Anna"]
    assert _cells(html, "rows") == ["3", "7"]
    assert _cells(html, "tables") == ["1", "2"]
    assert _cells(html, "guests") == ["0", "1"]
    assert other.tables_made.count() == 1


def test_an_import_lists_the_tables_it_made_and_nothing_is_editable(
    record: HistoryImport, oleg: Client, django_assert_num_queries: Any
) -> None:
    made = list(Table.objects.filter(history_import=record).order_by("played_on"))
    assert len(made) == 2 and all(table.totals_only for table in made)
    page = reverse("admin:scoring_historyimport_change", args=[record.pk])
    # session, member, the import, his two permission sets, the club's name twice, the
    # admin log's content type, the tables and their seats
    with django_assert_num_queries(10):
        html = oleg.get(page).content.decode()
    for table in made:
        assert f'href="{reverse("scoring:table_detail", args=[table.pk])}"' in html
    assert "Anna, Boris, Пётр" in html and "Vera, Anna, Пётр, Жанна Р." in html
    assert set(form_data(html, "historyimport_form")) == {"csrfmiddlewaretoken"}  # no field
    assert 'name="_save"' not in html
    assert reverse("admin:scoring_historyimport_delete", args=[record.pk]) not in html


@pytest.mark.parametrize("method", ["get", "post"])
def test_nobody_deletes_an_import_not_even_an_administrator(
    record: HistoryImport, ada: Client, method: str
) -> None:
    url = reverse("admin:scoring_historyimport_delete", args=[record.pk])
    response = getattr(ada, method)(url, {"post": "yes"} if method == "post" else None)
    assert response.status_code == 403
    assert HistoryImport.objects.filter(pk=record.pk).exists()


def test_the_list_offers_no_deletion_and_no_addition(record: HistoryImport, ada: Client) -> None:
    html = ada.get(LIST).content.decode()
    assert "delete_selected" not in html
    assert reverse("admin:scoring_historyimport_add") not in html
    assert ada.get(reverse("admin:scoring_historyimport_add")).status_code == 403


def test_the_database_keeps_an_import_that_made_tables(record: HistoryImport) -> None:
    with pytest.raises(ProtectedError):
        record.delete()
