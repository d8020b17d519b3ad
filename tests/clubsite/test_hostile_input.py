"""No 500 from any input (issue 19, item 4): the attack's repro steps, one test each.

PostgreSQL refuses a NUL character in text (a ``DataError``: the 500s the attack found on
the member page, the import and the finish reason), and no database column holds half of
a surrogate pair, which JSON's ``\\u`` escapes can spell. Every test here runs on the
database the run uses: CI runs the suite on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.engine.record import BAD_TEXT, load
from scoring.models import DealRecord, Season, Table
from tests import factories
from tests.factories import FIRST_GAME, PASSOUT, post_deal
from tests.fuzz_strategies import db_snapshot

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "tests/scoring/engine/examples/sochi-short-pulka.json").read_text())
HOSTILE = {"nul": "Anna\x00", "surrogate": "Anna\ud800"}


# -- URLs and query strings ---------------------------------------------------------------


def test_a_nul_in_a_member_url_is_a_404(client: Client, club: dict[str, Member]) -> None:
    assert client.get("/members/anna%00/").status_code == 404
    assert client.get("/members/%00/").status_code == 404
    assert client.get("/members/anna/").status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "/members/anna/?season=%00",
        "/standings/preferans/?sort=%00&dir=%00",
        "/seasons/?x=%00",
        "/tables/?x=%00",
        "/members/sign-in/?next=%00",
    ],
)
def test_a_nul_in_a_query_string_is_ignored(
    client: Client, club: dict[str, Member], url: str
) -> None:
    assert client.get(url).status_code == 200


def test_a_nul_in_a_tables_query_string_is_ignored(client: Client, anna: Member) -> None:
    table = Table.objects.get()
    for query in ("log=%00", "history=%00", "log=all%00"):
        assert client.get(f"/tables/{table.pk}/?{query}").status_code == 200


@pytest.fixture
def superuser(client: Client) -> Member:
    user = factories.member("Root", username="root", is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


SEASONS = "/admin/scoring/season/"


@pytest.mark.parametrize(
    "query",
    [
        "starts_on__year=99999",
        "starts_on__year=9999",  # the year's end is in year 10000
        "starts_on__year=9999&starts_on__month=12",
        "starts_on__year=9999&starts_on__month=12&starts_on__day=31",
        "starts_on__year=2026&starts_on__month=13",
        "starts_on__year=2026&starts_on__month=2&starts_on__day=31",
        "starts_on__year=" + "9" * 30,
        "starts_on__year=2026&starts_on__month=" + "9" * 30,
        "starts_on__year__gt=" + "9" * 30,
        "starts_on__gte=99999-01-01",
    ],
)
def test_the_season_admins_date_filters_never_fail(
    client: Client, superuser: Member, query: str
) -> None:
    """Django's "an error in the lookup": back to the plain list, which shows."""
    Season.objects.create(name="Осень", starts_on="2026-09-01", ends_on="2026-11-30")
    response = client.get(f"{SEASONS}?{query}")
    assert response.status_code == 302
    assert response["Location"] == f"{SEASONS}?e=1"
    assert client.get(response["Location"]).status_code == 200


def test_the_season_admins_date_hierarchy_still_filters(client: Client, superuser: Member) -> None:
    Season.objects.create(name="Осень", starts_on="2026-09-01", ends_on="2026-11-30")
    Season.objects.create(name="Зима", starts_on="2027-01-01", ends_on="2027-02-28")
    page = client.get(f"{SEASONS}?starts_on__year=2026&starts_on__month=9").content.decode()
    assert "Осень" in page
    assert "Зима" not in page


@pytest.mark.parametrize(
    "url",
    [
        "/admin/scoring/preferanstariff/?changed_at__year=" + "9" * 30,
        "/admin/scoring/preferanstariff/?changed_at__gte=99999-01-01",
        "/admin/scoring/preferanstariffversion/?rules__contains=%00",
        "/admin/scoring/preferanstariffversion/?created_at__date=99999-01-01",
        "/admin/members/member/?date_joined__year=" + "9" * 30,
    ],
)
def test_the_other_admin_lists_date_filters_never_fail(
    client: Client, superuser: Member, url: str
) -> None:
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].endswith("?e=1")


@pytest.mark.parametrize(
    "url",
    [
        f"{SEASONS}?name=%00",
        f"{SEASONS}?ranking=%00",
        "/admin/scoring/preferanstariff/?name=%00",
        "/admin/scoring/bostontariff/?system=%00",
        "/admin/members/member/?username=%00",
        "/admin/auth/group/?name=%00",
    ],
)
def test_a_nul_in_an_admin_lists_filter_is_no_error(
    client: Client, superuser: Member, url: str
) -> None:
    """An empty list on SQLite; on PostgreSQL, which refuses the query, the plain list."""
    response = client.get(url)
    if response.status_code == 302:
        assert response["Location"].endswith("?e=1")
    else:
        assert response.status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        f"{SEASONS}?name__regex=(",
        "/admin/scoring/preferanstariff/?description__iregex=%00",
        "/admin/members/member/?display_name__regex=(",
    ],
)
def test_the_admin_refuses_regular_expression_lookups(
    client: Client, superuser: Member, url: str
) -> None:
    """400: the database compiles the pattern, and a broken one is its error (a 500 on
    PostgreSQL, a 503 on SQLite, as if it were down)."""
    assert client.get(url).status_code == 400


@pytest.mark.parametrize(
    "url",
    [
        f"{SEASONS}?name__range=%20",
        f"{SEASONS}?starts_on__range=2026-01-01",
        "/admin/members/member/?username__range=a",
        "/admin/axes/accessattempt/?username__range=%20",
    ],
)
def test_the_admin_refuses_range_lookups(client: Client, superuser: Member, url: str) -> None:
    """Found by the URL fuzz: a 500 (IndexError) on every change list; the admin passes a
    range on as one string, so a query string cannot give one."""
    assert client.get(url).status_code == 400


@pytest.mark.parametrize(
    "url",
    [
        f"{SEASONS}?q=%00",
        "/admin/members/member/?q=%00",
        "/admin/scoring/preferanstariff/?q=%00",
        "/admin/scoring/preferanstariffversion/?tariff__id__exact=" + "9" * 25,
    ],
)
def test_the_admin_search_and_list_filters_ignore_hostile_values(
    client: Client, superuser: Member, url: str
) -> None:
    assert client.get(url).status_code == 200


def test_every_admin_change_list_answers_any_query_string() -> None:
    """Found by the URL fuzz: django-axes' sign-in logs were registered as axes ships
    them, without ``SafeLookups`` (the 500s below). Every model admin has it now."""
    from django.contrib import admin

    from clubsite.admin_lookups import SafeLookups

    left_out = [
        model._meta.label
        for model, model_admin in admin.site._registry.items()
        if not isinstance(model_admin, SafeLookups)
    ]
    assert left_out == []
    assert "axes.AccessAttempt" in {model._meta.label for model in admin.site._registry}


SIGN_IN_LOGS = ("/admin/axes/accessattempt/", "/admin/axes/accesslog/")


@pytest.mark.parametrize("url", SIGN_IN_LOGS)
@pytest.mark.parametrize(
    "query",
    ["attempt_time__year=9999", "attempt_time__year=9999&attempt_time__month=12"],
    ids=["year-9999", "december-9999"],
)
def test_the_sign_in_logs_date_filters_never_fail(
    client: Client, superuser: Member, url: str, query: str
) -> None:
    """Found by the URL fuzz: a 500 (ValueError: year 10000 is out of range, or an
    OverflowError) on both databases."""
    client.post(reverse("members:login"), {"username": "root", "password": "wrong"})
    response = client.get(f"{url}?{query}")
    assert response.status_code == 302
    assert response["Location"] == f"{url}?e=1"
    assert client.get(f"{url}?attempt_time__year=2026").status_code == 200


@pytest.mark.parametrize("url", SIGN_IN_LOGS)
def test_the_sign_in_logs_refuse_regular_expression_lookups(
    client: Client, superuser: Member, url: str
) -> None:
    """Found by the URL fuzz: ``?username__regex=(`` was a 500 on PostgreSQL."""
    assert client.get(f"{url}?username__regex=(").status_code == 400


AUTOCOMPLETE = "/admin/autocomplete/?app_label=scoring&model_name=season&field_name="


@pytest.mark.parametrize("term", ["%00", "%D0%A1%D0%BE%D1%87%D0%B8%00"], ids=["nul", "sochi-nul"])
def test_the_admin_autocomplete_finds_nothing_for_a_nul(
    client: Client, superuser: Member, term: str
) -> None:
    """Found by the URL fuzz: a 500 on PostgreSQL, which refuses a NUL in a query; no
    tariff's name holds one, so nothing matches."""
    response = client.get(f"{AUTOCOMPLETE}preferans_tariff&term={term}")
    assert response.status_code == 200
    assert response.json()["results"] == []


def test_the_admin_autocomplete_still_finds_a_tariff(client: Client, superuser: Member) -> None:
    response = client.get(f"{AUTOCOMPLETE}preferans_tariff&term=%D0%A1%D0%BE%D1%87%D0%B8")
    assert [result["text"] for result in response.json()["results"]] == ["Сочи (Sochi)"]


# -- JSON records and backups ---------------------------------------------------------------


def hostile_record(how: str) -> dict[str, Any]:
    record = json.loads(json.dumps(RECORD))
    record["players"][0] = HOSTILE[how]
    return record


@pytest.mark.parametrize("how", HOSTILE)
def test_load_refuses_a_nul_or_a_lone_surrogate(how: str) -> None:
    with pytest.raises(RuleError, match=r"NUL character .* \(at players\[0\]\)"):
        load(json.dumps(hostile_record(how)))
    record = json.loads(json.dumps(RECORD))
    record["deals"][1]["note"] = "\ud83d"
    with pytest.raises(RuleError, match=r"at deals\[1\]\.note"):
        load(json.dumps(record))
    with pytest.raises(RuleError, match="at '"):  # in a key
        load(json.dumps({**RECORD, "k\x00": 1}))


def test_load_walks_a_deeply_nested_record_without_recursion() -> None:
    text = '{"format": "pulka/1", "game": "preferans", "x": ' + "[" * 900 + "]" * 900 + "}"
    assert load(text)["game"] == "preferans"


@pytest.mark.parametrize("how", HOSTILE)
def test_the_import_page_refuses_a_nul_or_a_lone_surrogate(
    client: Client, anna: Member, how: str
) -> None:
    before = db_snapshot()
    content = json.dumps(hostile_record(how)).encode()  # ASCII: the escapes spell them
    upload = SimpleUploadedFile("game.json", content, "application/json")
    response = client.post(reverse("scoring:table_import"), {"record": upload, "game": "preferans"})
    assert response.status_code == 200
    assert "NUL character" in response.content.decode()
    assert db_snapshot() == before


@pytest.mark.parametrize("how", HOSTILE)
def test_the_score_command_refuses_a_nul_or_a_lone_surrogate(
    how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from scoring.management.commands.score import BAD_INPUT, Command

    stdin = io.StringIO(json.dumps(hostile_record(how)))
    with mock.patch.object(sys, "stdin", stdin), pytest.raises(SystemExit) as exit_:
        Command().handle(file="-")
    assert exit_.value.code == BAD_INPUT
    assert capsys.readouterr().err.startswith(f"score: {BAD_TEXT} (at players[0])")


@pytest.mark.parametrize("how", HOSTILE)
def test_import_club_refuses_a_nul_or_a_lone_surrogate(tmp_path: Path, how: str) -> None:
    from tests.scoring.club.test_backup import a_backup, run_import

    document = a_backup()
    document["members"][0]["display_name"] = HOSTILE[how]
    path = tmp_path / "club.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    before = db_snapshot()

    status, out, err = run_import(str(path))

    assert status == 2, out
    assert BAD_TEXT in err
    assert "members[0].display_name" in err
    assert db_snapshot() == before


# -- free text in forms ----------------------------------------------------------------------


def test_a_nul_in_the_finish_reason_is_refused(client: Client, table: Table) -> None:
    client.force_login(factories.member("Olga", organiser=True))
    before = db_snapshot()
    finish = reverse("scoring:table_finish", args=[table.pk])
    response = client.post(finish, {"reason": "a\x00b", **factories.drawn(table)})
    assert response.status_code == 200  # the confirmation page again, saying why
    assert "Null characters are not allowed" in response.content.decode()
    assert db_snapshot() == before
    # A reason without one finishes the table, as before.
    client.post(finish, {"reason": "control time", "counts": "yes", **factories.drawn(table)})
    assert Table.objects.get(pk=table.pk).status == Table.FINISHED


def test_a_too_long_finish_reason_is_refused(client: Client, table: Table) -> None:
    client.force_login(factories.member("Olga", organiser=True))
    before = db_snapshot()
    response = client.post(reverse("scoring:table_finish", args=[table.pk]), {"reason": "x" * 201})
    assert response.status_code == 200  # the confirmation page again, saying why
    assert "at most 200 characters" in response.content.decode()
    assert db_snapshot() == before


def test_a_nul_in_a_deals_reasons_is_refused(client: Client, table: Table, anna: Member) -> None:
    post_deal(client, table, FIRST_GAME)
    post_deal(client, table, PASSOUT)
    first = DealRecord.objects.filter(table=table).order_by("sequence").first()
    assert first is not None
    before = db_snapshot()

    edit = reverse("scoring:deal_edit", args=[table.pk, first.pk])
    response = client.post(edit, {**FIRST_GAME, "reason": "a\x00b", **factories.drawn(table)})
    assert response.status_code == 200
    assert "Null characters are not allowed" in response.content.decode()

    delete = reverse("scoring:deal_delete", args=[table.pk, first.pk])
    response = client.post(delete, {"reason": "a\x00b", **factories.drawn(table)})
    assert "Null characters are not allowed" in client.get(response["Location"]).content.decode()

    adjust = {"kind": "adjust", "reason": "a\x00b", "pool:Anna": "2"}
    response = post_deal(client, table, adjust)
    assert response.status_code == 200
    assert "Null characters are not allowed" in response.content.decode()

    assert db_snapshot() == before
    # Without a reason the refusal still says what is missing.
    response = client.post(delete, {"reason": " "})
    assert "Say why the deal is deleted." in client.get(response["Location"]).content.decode()


def test_a_nul_in_a_display_name_is_refused(client: Client, club: dict[str, Member]) -> None:
    client.force_login(club["Anna"])
    before = db_snapshot()
    response = client.post(reverse("members:settings"), {"display_name": "An\x00na"})
    assert response.status_code == 200
    assert "Null characters are not allowed" in response.content.decode()
    assert db_snapshot() == before


def test_a_nul_in_the_sign_in_form_is_refused(client: Client, club: dict[str, Member]) -> None:
    response = client.post(reverse("members:login"), {"username": "anna\x00", "password": "x\x00"})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_a_nul_in_the_open_table_form_is_refused(client: Client, club: dict[str, Member]) -> None:
    client.force_login(club["Anna"])
    before = db_snapshot()
    response = client.post(
        reverse("scoring:table_open", args=["preferans"]),
        {"player_0": "anna\x00", "price": "1\x00", "version": "\x00"},
    )
    assert response.status_code == 200
    assert db_snapshot() == before
