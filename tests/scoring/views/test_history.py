"""The paper history pages (scoring/views/history.py), in Russian as the club reads them:
the upload, its dry run, the confirmation, the template and a history table's page."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from scoring.engine.history import parse_history
from scoring.models import Guest, HistoryImport, Seat, StandingsTotal, Table
from tests import factories

pytestmark = pytest.mark.django_db

NOTEBOOK = (
    "table,date,game,player,result,money\n"
    "1,2026-03-10,preferans,anna,40,20\n"
    "1,2026-03-10,preferans,Boris,-13.33,-6.67\n"
    "1,2026-03-10,preferans,Пётр,-26.67,-13.33\n"
).encode()


@pytest.fixture
def olga(club: dict[str, Any]) -> Client:
    """Olga, an organiser, on a Russian page."""
    client = Client(headers={"accept-language": "ru"})
    client.force_login(factories.member("Olga", organiser=True, username="olga"))
    return client


def upload(client: Client, content: bytes, name: str = "тетрадь.csv") -> Any:
    return client.post(
        reverse("scoring:history_upload"), {"file": SimpleUploadedFile(name, content, "text/csv")}
    )


def text(response: Any) -> str:
    return html.unescape(re.sub(r"\s+", " ", response.content.decode()))


def test_the_dry_run_shows_what_will_be_made_and_writes_nothing(
    olga: Client, django_assert_max_num_queries: Any
):
    with django_assert_max_num_queries(20):
        response = upload(olga, NOTEBOOK)
    page = text(response)
    assert response.status_code == 200
    assert "1 стол к загрузке" in page
    assert "Новые гости: Пётр" in page
    assert "10.03.2026 · Преферанс · стол 1" in page
    assert "40,00 вистов" in page and "-13,33 виста" in page
    assert "Загрузить 1 стол" in page
    assert (Table.objects.count(), Guest.objects.count(), HistoryImport.objects.count()) == (
        0,
        0,
        0,
    )


def test_refused_rows_are_listed_by_line_in_russian_and_nothing_can_be_confirmed(olga: Client):
    bad = (
        "table;date;game;player;result\n"
        "1;2026-03-10;преферанс;anna;40\n"
        "2;10.03.2026;preferans;anna;1\n"
        "2;2026-03-10;preferans;boris;-1\n"
        "3;2026-03-10;preferans;anna;5\n"
        "3;2026-03-10;preferans;boris;-3\n"
        "3;2026-03-10;preferans;vera;-1\n"
    ).encode()
    response = upload(olga, bad)
    page = text(response)
    assert "4 строки отклонены" in page
    assert (
        '<td class="num">2</td><td>неизвестная игра преферанс: напишите preferans или boston</td>'
        in page
    )
    assert "10.03.2026 — не дата в виде ГГГГ-ММ-ДД" in page
    assert "стол 2 не загружается: одна из его строк отклонена" in page
    assert "стол 3: сумма результатов 1,00, а должна быть 0" in page
    assert reverse("scoring:history_confirm") not in page
    assert not Table.objects.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("table,date\nПётр".encode("cp1251"), "файл не в кодировке UTF-8"),
        (b"x" * 1_000_001, "файл больше 1 МБ"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_on_the_form(
    olga: Client, content: bytes, message: str
):
    page = text(upload(olga, content))
    assert message in page
    assert "Проверить файл" in page  # the form again
    assert not Table.objects.exists()


def test_a_confirmed_file_is_imported_and_counts_in_the_standings(olga: Client, club):
    preview = upload(olga, NOTEBOOK).content.decode()
    content = re.search(r'name="content" value="([^"]+)"', preview)
    name = re.search(r'name="file_name" value="([^"]+)"', preview)
    assert content is not None and name is not None
    response = olga.post(
        reverse("scoring:history_confirm"),
        {"content": content.group(1), "file_name": html.unescape(name.group(1))},
        follow=True,
    )
    page = text(response)
    assert "Загружено столов: 1, новых гостей: 1." in page
    assert "тетрадь.csv" in page  # in the list of imports
    table = Table.objects.get()
    assert table.totals_only
    anna = StandingsTotal.objects.get(member=club["Anna"], season=None)
    assert (anna.tables, anna.total, anna.money) == (1, Decimal(40), Decimal(20))
    board = text(olga.get(reverse("scoring:standings", args=["preferans"])))
    assert "Anna" in board and "Boris" in board and "Пётр" not in board
    # The same file again: refused, nothing more written.
    again = olga.post(
        reverse("scoring:history_confirm"),
        {"content": content.group(1), "file_name": "тетрадь.csv"},
    )
    assert "этот файл уже загружен" in text(again)
    assert Table.objects.count() == 1


def test_a_confirmation_whose_file_was_damaged_writes_nothing(olga: Client):
    response = olga.post(
        reverse("scoring:history_confirm"), {"content": "not base64!", "file_name": "x.csv"}
    )
    assert response.status_code == 302
    assert "Файл вернулся неполным" in text(olga.get(response["Location"]))
    assert not Table.objects.exists()


def test_the_template_downloads_and_reads_without_a_refusal(olga: Client):
    response = olga.get(reverse("scoring:history_template"))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    parsed = parse_history(response.content.decode())
    assert parsed.refused == ()
    assert len(parsed.tables) == 2


def test_a_history_table_shows_its_totals_and_no_sheet(
    olga: Client, club, django_assert_num_queries: Any
):
    from scoring.services.history import history_import

    history_import(content=NOTEBOOK, file_name="тетрадь.csv", by=None)
    table = Table.objects.get()
    visitor = Client(headers={"accept-language": "ru"})
    with django_assert_num_queries(7):  # the table, seats, tariff, import entry, club …
        page = text(visitor.get(reverse("scoring:table_detail", args=[table.pk])))
    assert "бумажная история" in page
    assert "нет раздач и листа" in page
    assert "Пётр гость" in re.sub(r"<[^>]+>", "", page).replace("  ", " ")
    assert "-26,67 виста" in page and "-13,33" in page
    assert "стол 1 из файла тетрадь.csv" in page
    for name in ("table_live", "table_print", "table_sheet_png", "table_export"):
        assert visitor.get(reverse(f"scoring:{name}", args=[table.pk])).status_code == 404
    assert Seat.objects.filter(table=table, guest__isnull=False).count() == 1


def test_only_organisers_see_the_way_to_the_history(olga: Client, club):
    url = reverse("scoring:history_upload")
    assert url in olga.get(reverse("scoring:table_list")).content.decode()
    member = Client()
    member.force_login(club["Anna"])
    assert url not in member.get(reverse("scoring:table_list")).content.decode()
