"""The club's identity: one row an organiser edits in the admin (name and home-page
introduction, Russian and English), read by every page through the context processor."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.models import Club
from tests import factories
from tests.html_forms import form_data

pytestmark = pytest.mark.django_db

CHANGE = reverse("admin:scoring_club_change", args=[1])
NAMED = {
    "name": "Клуб «Семь пик»",
    "name_en": "Seven of Spades club",
    "intro": "Играем по четвергам.\n\nГостям рады.",
    "intro_en": "We play on Thursdays.",
}
# Pages of every kind that a member sees: lists, a table, a tariff, standings, the rules, a
# member's page, sign-in, an error page.
PAGES = [
    "/",
    "/rules/",
    "/tables/",
    "/tariffs/",
    "/seasons/",
    "/standings/preferans/",
    "/members/sign-in/",
    "/no-such-page/",
]


def organiser_client() -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(factories.member("Olga", organiser=True, is_staff=True))
    return client


def save_club(client: Client, **changes: str) -> object:
    data = form_data(client.get(CHANGE).content.decode(), "club_form") | changes
    return client.post(CHANGE, data | {"_save": "Save"})


def title_and_header(html: str) -> tuple[str, str]:
    title = html.split("<title>", 1)[1].split("</title>", 1)[0]
    header = html.split('class="site-name"', 1)[1].split("</a>", 1)[0]
    return title, header


def test_the_migration_gives_the_club_its_first_name() -> None:
    club = Club.objects.get()

    assert club.pk == 1
    assert (club.name, club.name_en) == ("Клуб преферанса и бостона", "Preferans and Boston club")


@pytest.mark.parametrize("url", PAGES)
def test_every_page_names_the_club_from_its_row(url: str) -> None:
    Club.objects.filter(pk=1).update(**NAMED)
    table = factories.pulka()

    for address in (url, reverse("scoring:table_detail", args=[table.pk])):
        russian = Client().get(address).content.decode()
        english = Client(headers={"accept-language": "en"}).get(address).content.decode()

        title, header = title_and_header(russian)
        assert title.endswith(" · Клуб «Семь пик»"), address
        assert header.endswith(">Клуб «Семь пик»"), address
        title, header = title_and_header(english)
        assert title.endswith(" · Seven of Spades club"), address
        assert header.endswith(">Seven of Spades club"), address
        for html in (russian, english):
            assert "Клуб преферанса и бостона" not in html
            assert "Preferans and Boston club" not in html


def test_the_home_page_shows_the_introduction_in_paragraphs() -> None:
    Club.objects.filter(pk=1).update(**NAMED)

    russian = Client().get("/").content.decode()
    english = Client(headers={"accept-language": "en"}).get("/").content.decode()

    assert "<h1>Клуб «Семь пик»</h1>" in russian
    assert "<p>Играем по четвергам.</p>\n\n<p>Гостям рады.</p>" in russian
    assert "<h1>Seven of Spades club</h1>" in english
    assert "<p>We play on Thursdays.</p>" in english


def test_an_empty_english_text_shows_the_russian() -> None:
    Club.objects.filter(pk=1).update(**NAMED | {"name_en": "", "intro_en": ""})

    english = Client(headers={"accept-language": "en"}).get("/").content.decode()

    assert "<h1>Клуб «Семь пик»</h1>" in english
    assert "<p>Играем по четвергам.</p>" in english


def test_the_introduction_is_text_not_markup() -> None:
    Club.objects.filter(pk=1).update(intro='<script>alert("x")</script>')

    html = Client().get("/").content.decode()

    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert '<script>alert("x")</script>' not in html


def test_an_organiser_renames_the_club_in_the_admin(
    django_capture_on_commit_callbacks: Any,
) -> None:
    client = organiser_client()
    assert "Клуб преферанса и бостона" in Client().get("/").content.decode()  # now cached

    with django_capture_on_commit_callbacks(execute=True):
        response = save_club(client, **NAMED)

    assert response.status_code == 302
    club = Club.objects.get()
    assert (club.name, club.intro_en) == (NAMED["name"], NAMED["intro_en"])
    html = Client().get("/").content.decode()
    assert "<h1>Клуб «Семь пик»</h1>" in html


def test_pages_read_the_club_once_then_from_the_cache(
    django_assert_num_queries: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_assert_num_queries(1):
        first = Club.shown("ru")
    with django_assert_num_queries(0):
        assert Club.shown("ru") == first
        assert Club.shown(None) == first  # any language but English reads the Russian texts

    club = Club.load()
    club.name = "Клуб «Бубны»"
    with django_capture_on_commit_callbacks(execute=True):
        club.save()

    assert Club.shown("ru").name == "Клуб «Бубны»"


def test_a_name_too_long_or_empty_is_refused_and_changes_nothing() -> None:
    client = organiser_client()

    long = save_club(client, name="К" * 101)
    empty = save_club(client, name="")

    for response in (long, empty):
        assert response.status_code == 200  # the form again, with the error
        assert "errornote" in response.content.decode()
    assert Club.objects.get().name == "Клуб преферанса и бостона"


def test_the_admin_has_one_club_page_and_no_list_add_or_delete() -> None:
    client = organiser_client()

    listing = client.get(reverse("admin:scoring_club_changelist"))
    add = client.get(reverse("admin:scoring_club_add"))
    delete = client.post(reverse("admin:scoring_club_delete", args=[1]), {"post": "yes"})

    assert listing.status_code == 302
    assert listing["Location"] == CHANGE
    assert add.status_code == 403
    assert delete.status_code == 403
    assert Club.objects.count() == 1


def test_staff_who_are_not_organisers_cannot_edit_the_club() -> None:
    client = Client()
    client.force_login(factories.member("Stas", is_staff=True))

    assert client.get(CHANGE).status_code == 403
    assert client.get(reverse("admin:scoring_club_changelist")).status_code == 403


def test_the_database_keeps_one_club() -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Club.objects.bulk_create([Club(pk=2, name="Второй")])
    second = Club(name="Второй")
    second.save()  # saving any club saves the one row

    assert list(Club.objects.values_list("pk", "name")) == [(1, "Второй")]


@pytest.mark.parametrize(
    "url",
    ["scoring:table_live", "scoring:table_export", "scoring:standings_csv"],
)
def test_answers_that_are_no_page_do_not_read_the_club(client: Client, url: str) -> None:
    """The context processor is lazy: the live sheet's partial, which every viewer polls,
    a game record and a CSV never ask for the club's name."""
    table = factories.pulka()
    args = ["preferans"] if url == "scoring:standings_csv" else [table.pk]

    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse(url, args=args)).status_code == 200

    assert queries.captured_queries  # the answer was computed here, not cached
    assert not [q for q in queries.captured_queries if "scoring_club" in q["sql"]]
