"""Pages kept whole for visitors who are not signed in (clubsite/pages.py): read again
until what they show changes, never served to a member, never with a message of the
visitor's own."""

from __future__ import annotations

import io
import re
import signal
from typing import Any

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from django_tasks_db.models import DBTaskResult

from clubsite.pages import last_made_key
from members.models import Member
from scoring import services
from scoring.models import Season
from scoring.services import judging
from scoring.views import tables as tables_views
from tests import factories
from tests.factories import FIRST_GAME, PASSOUT, post_deal
from tests.html_forms import form_data

pytestmark = pytest.mark.django_db


def visitor(language: str = "en") -> Client:
    return Client(headers={"accept-language": language})


def test_a_table_page_is_kept_until_a_deal_changes_it(
    client: Client, table: Any, anna: Any, django_assert_num_queries: Any
) -> None:
    post_deal(client, table, FIRST_GAME)
    url = reverse("scoring:table_detail", args=[table.pk])
    guest = visitor()
    first = guest.get(url)

    # The table's version only: the tests' cache is one process's memory, which keeps no
    # revision (live.revisions; with Redis none, tests/scoring/live/test_snapshots.py).
    with django_assert_num_queries(1):
        again = guest.get(url)

    assert again.content == first.content
    post_deal(client, table, PASSOUT)
    after = guest.get(url)
    assert after.content != first.content
    cache.clear()
    assert guest.get(url).content == after.content  # the page made afresh is the same


def test_the_live_sheet_is_kept_for_the_viewers_after_a_deal(
    client: Client, table: Any, anna: Any, django_assert_num_queries: Any
) -> None:
    url = reverse("scoring:table_live", args=[table.pk])
    first, second = visitor(), visitor()
    etag = first.get(url)["ETag"]
    post_deal(client, table, FIRST_GAME)
    made = first.get(url, HTTP_IF_NONE_MATCH=etag)  # the first viewer after the deal

    # The rest: the table's version, read once for the ETag and the kept answer, from the
    # cache (live.revisions).
    with django_assert_num_queries(0):
        kept = second.get(url, HTTP_IF_NONE_MATCH=etag)

    assert kept.status_code == made.status_code == 200
    assert kept.content == made.content
    assert kept["ETag"] == made["ETag"] != etag
    assert kept["Cache-Control"] == made["Cache-Control"] == "no-cache"
    with django_assert_num_queries(0):  # and then nothing changed: 304
        assert second.get(url, HTTP_IF_NONE_MATCH=kept["ETag"]).status_code == 304


def test_a_leaderboard_is_kept_until_the_standings_change(
    django_assert_num_queries: Any,
) -> None:
    season = Season.objects.create(name="Весна", starts_on="2026-03-01", ends_on="2026-05-31")
    url = reverse("scoring:season_standings", args=[season.pk, "preferans"])
    guest = visitor()
    guest.get(url)
    with django_assert_num_queries(1):  # the standings stamp
        guest.get(url)

    Season.objects.filter(pk=season.pk).update(name="Лето")  # what only a new stamp shows
    assert "Весна" in guest.get(url).content.decode()  # kept: the stamp is the same
    services.standings_changed()
    assert "Лето" in guest.get(url).content.decode()


def test_a_scorers_page_has_his_form_and_the_kept_one_not(client: Client, table: Any, anna: Any):
    url = reverse("scoring:table_detail", args=[table.pk])
    kept = visitor().get(url).content.decode()
    assert "Sign in" in kept

    page = client.get(url).content.decode()

    assert "Sign out" in page and "Sign in" not in page
    assert 'id="deal-form"' in page and 'id="deal-form"' not in kept


def test_each_language_and_address_has_its_own_page(table: Any) -> None:
    url = reverse("scoring:table_detail", args=[table.pk])
    english = visitor("en").get(url).content.decode()
    russian = visitor("ru").get(url).content.decode()
    history = visitor("en").get(url, {"history": "all"}).content.decode()

    assert '<html lang="en">' in english
    assert '<html lang="ru">' in russian
    assert visitor("en").get(url).content.decode() == english
    assert visitor("ru").get(url).content.decode() == russian
    # The address is in the page (the sign-in link brings the visitor back to it).
    assert "history%3Dall" in history and "history%3Dall" not in english


def test_a_visitor_with_a_message_gets_it_on_a_page_made_for_him(table: Any) -> None:
    url = reverse("scoring:table_detail", args=[table.pk])
    visitor().get(url)  # kept
    guest = visitor()
    storage = CookieStorage(RequestFactory().get("/"))
    guest.cookies["messages"] = storage._encode([Message(constants.INFO, "Только для вас")])

    with_message = guest.get(url).content.decode()
    next_page = guest.get(url).content.decode()

    assert "Только для вас" in with_message
    assert "Только для вас" not in next_page  # shown once; then the kept page


def test_a_kept_page_has_the_headers_of_a_page_made(table: Any) -> None:
    url = reverse("scoring:table_detail", args=[table.pk])
    made = visitor().get(url)
    kept = visitor().get(url)

    for header in ("Content-Type", "Content-Security-Policy", "X-Frame-Options", "Vary"):
        assert kept.headers[header] == made.headers[header], header
    assert not kept.cookies


@pytest.mark.parametrize("missing", ["table", "member"])
def test_what_is_missing_is_not_kept(table: Any, missing: str) -> None:
    url = (
        reverse("scoring:table_detail", args=[table.pk + 1000])
        if missing == "table"
        else reverse("members:detail", args=["nobody"])
    )
    guest = visitor()
    assert guest.get(url).status_code == 404

    with CaptureQueriesContext(connection) as again:
        assert guest.get(url).status_code == 404

    # Made again: the page's version (none) and the view's own lookup.
    assert len(again.captured_queries) == 2


# -- one kept page for everyone, each one's own parts filled in ----------------------------


def main(page: str) -> str:
    """The page below the site's header."""
    return page.partition('<main id="main">')[2]


def test_a_member_gets_the_kept_leaderboard_with_his_own_parts(
    client: Client, club: Any, django_assert_num_queries: Any
) -> None:
    season = Season.objects.create(name="Весна", starts_on="2026-03-01", ends_on="2026-05-31")
    services.standings_changed()
    url = reverse("scoring:season_standings", args=[season.pk, "preferans"])
    kept = visitor().get(url).content.decode()
    client.force_login(club["Anna"])

    # The session and himself (2), the page's version (the stamp); no rendering of the page.
    with django_assert_num_queries(3):
        mine = client.get(url).content.decode()

    assert "Sign out" in mine and "Sign in" not in mine
    assert 'href="/members/anna/">Anna</a>' in mine
    assert 'name="csrfmiddlewaretoken"' in mine  # his sign-out form's token, his own
    assert "Sign in" in kept and "Anna" not in kept and "csrfmiddlewaretoken" not in kept
    assert "<!--own:" not in mine and "<!--own:" not in kept
    # Then a visitor gets the page kept, with nothing of Anna's in it.
    assert visitor().get(url).content.decode() == kept


def test_each_member_gets_his_own_token_and_name_on_the_same_kept_page(club: Any) -> None:
    season = Season.objects.create(name="Весна", starts_on="2026-03-01", ends_on="2026-05-31")
    services.standings_changed()
    url = reverse("scoring:season_standings", args=[season.pk, "preferans"])
    anna, boris = visitor(), visitor()
    anna.force_login(club["Anna"])
    boris.force_login(club["Boris"])

    annas, boriss = anna.get(url).content.decode(), boris.get(url).content.decode()

    assert ">Anna</a>" in annas and ">Boris</a>" not in annas
    assert ">Boris</a>" in boriss and ">Anna</a>" not in boriss
    assert anna.cookies["csrftoken"].value != boris.cookies["csrftoken"].value
    assert main(annas) == main(boriss)


def test_an_organiser_gets_the_admin_link_filled_in(organiser: Any, client: Client) -> None:
    season = Season.objects.create(name="Весна", starts_on="2026-03-01", ends_on="2026-05-31")
    services.standings_changed()
    url = reverse("scoring:season_standings", args=[season.pk, "preferans"])
    visitor().get(url)  # kept

    page = client.get(url).content.decode()

    assert page.count('href="/admin/"') == 2  # the menu and the phone's "more"
    assert 'href="/admin/"' not in visitor().get(url).content.decode()


ME_TAB_HERE = 'aria-current="page"><span class="icon icon--me"'


def test_a_members_frame_made_once_follows_his_name_his_rights_and_his_me_tab(
    organiser: Any, client: Client, club: Any
) -> None:
    """The frame's parts are made once per person in the process (clubsite.pages._frame):
    each thing they show of him is part of whom they are made for."""
    services.standings_changed()
    board = reverse("scoring:standings", args=["preferans"])
    mine, annas = (reverse("members:detail", args=[name]) for name in ("olga", "anna"))
    client.get(board)  # her frame made

    organiser.display_name = "Ольга Петровна"
    organiser.save()
    renamed = client.get(board).content.decode()
    organiser.groups.clear()
    no_longer = client.get(board).content.decode()

    assert 'href="/members/olga/">Ольга Петровна</a>' in renamed
    assert renamed.count('href="/admin/"') == 2 and 'href="/admin/"' not in no_longer
    assert ME_TAB_HERE in client.get(mine).content.decode()
    assert ME_TAB_HERE not in client.get(annas).content.decode()
    assert ME_TAB_HERE not in client.get(board).content.decode()
    assert "Выйти" in client.get(board, headers={"accept-language": "ru"}).content.decode()


def test_a_message_is_filled_into_the_kept_page(club: Any) -> None:
    season = Season.objects.create(name="Весна", starts_on="2026-03-01", ends_on="2026-05-31")
    services.standings_changed()
    url = reverse("scoring:season_standings", args=[season.pk, "preferans"])
    kept = visitor().get(url).content.decode()
    guest = visitor()
    storage = CookieStorage(RequestFactory().get("/"))
    guest.cookies["messages"] = storage._encode([Message(constants.INFO, "Только для вас")])

    with_message = guest.get(url).content.decode()

    assert "Только для вас" in with_message
    assert guest.get(url).content.decode() == kept  # shown once


def test_a_profile_is_kept_and_his_own_parts_are_his_and_the_organisers(
    club: Any, django_assert_num_queries: Any
) -> None:
    services.standings_changed()
    url = reverse("members:detail", args=["anna"])
    kept = visitor().get(url).content.decode()
    anna, boris, olga = visitor(), visitor(), visitor()
    anna.force_login(club["Anna"])
    boris.force_login(club["Boris"])
    olga.force_login(factories.member("Olga", organiser=True, username="olga"))

    # Another member: the session and himself (2), the page's version (1); nothing of his
    # own to read.
    with django_assert_num_queries(3):
        boriss = boris.get(url).content.decode()
    annas = anna.get(url).content.decode()
    olgas = olga.get(url).content.decode()

    assert "Your settings" in annas and "Account with the club" in annas
    assert "Your settings" not in olgas and "Account with the club" in olgas
    for page in (kept, boriss):
        assert "Your settings" not in page and "Account with the club" not in page
    assert all("<h1>Anna</h1>" in page for page in (kept, annas, boriss, olgas))


# -- the table page: one kept page, the scorer's form and sheet his own ------------------------

SCORERS_PARTS = (
    'id="deal-form"',  # his deal form
    'id="table-actions"',  # undo, finish
    'class="deal-fix"',  # his sheet: each deal's "Correct"
    'href="#deal-form"',  # the skip link to his form
    'name="csrfmiddlewaretoken"',  # his form's token
    "Sign out",
)


def test_a_scorer_gets_the_kept_table_page_with_his_own_parts(
    client: Client, table: Any, anna: Any, django_assert_num_queries: Any
) -> None:
    post_deal(client, table, FIRST_GAME)
    url = reverse("scoring:table_detail", args=[table.pk])
    kept = visitor().get(url).content.decode()

    # The session, himself and the page's version (3; the version comes from Redis where
    # one is shared, live.revisions); the table with its seats (read by the visitor's
    # view), his sheet, the form's fields and the page are kept.
    with django_assert_num_queries(3):
        mine = client.get(url).content.decode()

    for part in SCORERS_PARTS:
        assert part in mine, part
        assert part not in kept, part
    assert "<!--own:" not in mine and "<!--own:" not in kept
    # The page around his parts is the kept one: its history and its sharing.
    assert main(mine).split('id="sheet"')[0].split("<header")[1] in kept


def test_a_scorer_is_told_by_the_table_kept_when_a_seat_changes(
    client: Client, table: Any, anna: Any, club: Any
) -> None:
    # The table read for the page is kept under its revision: a write that changes who
    # sits there moves the revision, so Anna's page no longer offers her the form.
    url = reverse("scoring:table_detail", args=[table.pk])
    assert 'id="deal-form"' in client.get(url).content.decode()
    post_deal(client, table, PASSOUT)  # a substitute comes in after a deal

    judging.table_seat_substitute(
        table=table, position=0, newcomer=club["Gleb"], by=None, reason="ушла домой"
    )

    page = client.get(url).content.decode()
    assert "Sign out" in page
    assert 'id="deal-form"' not in page and 'class="deal-fix"' not in page


def test_a_table_page_made_first_for_a_scorer_keeps_nothing_of_his(
    client: Client, table: Any, anna: Any
) -> None:
    post_deal(client, table, FIRST_GAME)
    url = reverse("scoring:table_detail", args=[table.pk])
    assert 'id="deal-form"' in client.get(url).content.decode()  # the page kept, made here

    after = visitor().get(url).content.decode()

    for part in SCORERS_PARTS:
        assert part not in after, part
    cache.clear()
    assert visitor().get(url).content.decode() == after  # as a visitor's own first view


def test_a_member_who_does_not_score_gets_the_visitors_sheet(table: Any, club: Any) -> None:
    url = reverse("scoring:table_detail", args=[table.pk])
    kept = visitor().get(url).content.decode()
    gleb = visitor()
    gleb.force_login(club["Gleb"])

    page = gleb.get(url).content.decode()

    assert "Sign out" in page and ">Gleb</a>" in page
    assert 'id="deal-form"' not in page and 'href="#deal-form"' not in page
    assert main(page) == main(kept)


def test_an_organiser_gets_the_reopening_of_a_kept_finished_table(
    organiser: Any, client: Client, club: Any
) -> None:
    members = [club["Anna"], club["Boris"], club["Vera"]]
    table = factories.finished_pulka(members, club["Anna"], "2026-03-02")
    url = reverse("scoring:table_detail", args=[table.pk])
    kept = visitor().get(url).content.decode()

    page = client.get(url).content.decode()

    assert 'class="reopen cluster"' in page and "Judge's decisions" in page
    assert 'class="reopen cluster"' not in kept and "Judge" not in kept
    assert 'class="reopen cluster"' not in visitor().get(url).content.decode()


# -- one table page for each set of rights, filled in with each one's person ------------------

WRITE_KEY = re.compile(r'name="write_key" value="([^"]+)"')
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
STAND_IN = re.compile(r"(token|key)[0-9a-f]{32}")  # where the token and keys were put in


def test_two_scorers_share_the_table_page_kept_for_scorers_each_with_his_person(
    client: Client, table: Any, anna: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_deal(client, table, FIRST_GAME)
    url = reverse("scoring:table_detail", args=[table.pk])
    client.get(url)  # "Deal 1 saved", shown once on a page made for her
    boris = visitor()
    boris.force_login(table.seats.get(position=1).member)
    made = []
    own_parts = tables_views.own_table_context
    monkeypatch.setattr(
        tables_views, "own_table_context", lambda *a, **k: made.append(a) or own_parts(*a, **k)
    )
    annas = client.get(url).content.decode()  # kept for scorers here

    boriss = boris.get(url).content.decode()

    assert len(made) == 1  # his parts were kept from hers
    assert ">Anna</a>" in annas and ">Boris</a>" in boriss and ">Anna</a>" not in boriss
    for part in SCORERS_PARTS:
        assert part in boriss, part
    # Each request its own token and a key of its own for each form drawn.
    again = client.get(url).content.decode()
    keys = WRITE_KEY.findall(annas) + WRITE_KEY.findall(boriss) + WRITE_KEY.findall(again)
    assert len(keys) == 3 and len(set(keys)) == 3
    assert TOKEN.findall(annas)[0] != TOKEN.findall(boriss)[0]
    assert "<!--own:" not in boriss and not STAND_IN.search(boriss)

    def without_person(page: str) -> str:
        return WRITE_KEY.sub("", TOKEN.sub("", main(page)))

    assert without_person(annas) == without_person(boriss)


def test_a_deal_from_the_page_kept_for_scorers_is_saved_once(table: Any) -> None:
    url = reverse("scoring:table_detail", args=[table.pk])
    action = reverse("scoring:deal_create", args=[table.pk])
    boris = Client(enforce_csrf_checks=True)
    boris.force_login(table.seats.get(position=1).member)
    anna = Client(enforce_csrf_checks=True)
    anna.force_login(table.seats.get(position=0).member)
    anna.get(url)  # the page kept for scorers, made for Anna
    form = form_data(boris.get(url).content.decode(), action=action)
    drawn = {name: form[name] for name in ("csrfmiddlewaretoken", "revision", "write_key")}

    saved = boris.post(action, {**drawn, **FIRST_GAME})
    again = boris.post(action, {**drawn, **FIRST_GAME})  # the answer lost: sent again

    assert saved.status_code == again.status_code == 302
    assert table.deal_records.filter(deleted=False).count() == 1


def test_an_organiser_and_a_scorer_are_each_shown_what_they_may_do(
    client: Client, table: Any, anna: Any
) -> None:
    url = reverse("scoring:table_detail", args=[table.pk])
    olga = visitor()
    olga.force_login(factories.member("Olga", organiser=True, username="olga"))
    annas = client.get(url).content.decode()

    olgas = olga.get(url).content.decode()

    assert "Close the table early" in olgas and "Judge's decisions" in olgas
    assert "Close the table early" not in annas and "Judge's decisions" not in annas
    assert 'id="deal-form"' in olgas and 'id="deal-form"' in annas
    assert "Close the table early" not in client.get(url).content.decode()


def test_a_scorer_with_a_message_waiting_gets_it_in_his_form(client: Client, table: Any, anna: Any):
    url = reverse("scoring:table_detail", args=[table.pk])
    client.get(url)  # the page kept for scorers

    saved = post_deal(client, table, FIRST_GAME, follow=True).content.decode()  # no htmx
    after = client.get(url).content.decode()

    assert 'class="deal-saved message success"' in saved
    assert 'class="deal-saved message success"' not in after  # shown once


# -- a board or a profile made by the task worker, the last one shown meanwhile -----------------

PAGES_MADE_TASK = "clubsite.pages.pages_made_task"
BESIDE_THE_WORKER = pytest.mark.django_db(transaction=True, serialized_rollback=True)
"""The worker closes the connections it used: a test that runs it cannot be rolled back."""


@pytest.fixture
def worker(settings: Any) -> Any:
    """Tasks go to the database, as in production; ``worker()`` runs those due, as
    ``manage.py db_worker --batch`` does. The worker makes pages at ``SITE_URL``: here the
    test client's address."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    settings.SITE_URL = "http://testserver"
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)}

    def run() -> None:
        options = {"batch": True, "reload": False, "interval": 0, "startup_delay": False}
        try:
            call_command("db_worker", stdout=io.StringIO(), **options)
        finally:
            for number, handler in handlers.items():
                signal.signal(number, handler)

    return run


def queued_pages() -> list[tuple[str, list[Any]]]:
    return list(
        DBTaskResult.objects.filter(task_path=PAGES_MADE_TASK, status="READY").values_list(
            "task_path", "args_kwargs__args"
        )
    )


def board_seen_then_changed() -> str:
    """A season's board made and kept as «Весна»; then the season renamed «Лето», which only
    a new stamp shows, and the stamp renewed. Returns the board's address."""
    season = Season.objects.create(name="Весна", starts_on="2026-03-01", ends_on="2026-05-31")
    services.standings_changed()
    url = reverse("scoring:season_standings", args=[season.pk, "preferans"])
    assert "Весна" in visitor().get(url).content.decode()
    Season.objects.filter(pk=season.pk).update(name="Лето")
    services.standings_changed()
    return url


@BESIDE_THE_WORKER
def test_after_a_change_readers_get_the_last_board_until_the_worker_has_made_the_new_one(
    worker: Any, django_assert_num_queries: Any
) -> None:
    url = board_seen_then_changed()
    assert queued_pages() == []  # its first reader made it, and asked nobody

    first = visitor().get(url).content.decode()  # asks the worker for the new one
    with django_assert_num_queries(1):  # the stamp; nothing made, nothing asked again
        second = visitor().get(url).content.decode()

    assert "Весна" in first and "Лето" not in first
    assert second == first
    assert queued_pages() == [(PAGES_MADE_TASK, [[url]])]
    worker()
    assert queued_pages() == []
    with django_assert_num_queries(1):  # made by the worker: the stamp only
        made = visitor().get(url).content.decode()
    assert "Лето" in made and "Весна" not in made


def test_a_member_gets_the_last_board_with_his_own_parts(worker: Any, club: Any) -> None:
    url = board_seen_then_changed()
    anna = visitor()
    anna.force_login(club["Anna"])

    page = anna.get(url).content.decode()

    assert "Весна" in page and ">Anna</a>" in page and "Sign in" not in page
    assert "<!--own:" not in page


def test_the_last_board_is_never_kept_as_the_new_one(worker: Any) -> None:
    url = board_seen_then_changed()
    guest = visitor()
    assert "Весна" in guest.get(url).content.decode()

    # The last page gone from the cache (it lives PAGE_SECONDS) before the worker came:
    # the reader makes the new one himself, and nothing of the last one was kept for it.
    with translation.override("en"):
        assert cache.delete(last_made_key(f"http://testserver{url}"))

    assert "Лето" in guest.get(url).content.decode()


def test_with_no_page_made_before_the_reader_makes_it_and_asks_no_worker(
    worker: Any, club: Any
) -> None:
    services.standings_changed()
    url = reverse("members:detail", args=["anna"])

    assert "<h1>Anna</h1>" in visitor().get(url).content.decode()
    assert queued_pages() == []


@BESIDE_THE_WORKER
def test_a_profile_is_shown_as_it_was_until_the_worker_has_made_it_again(
    worker: Any, club: Any
) -> None:
    services.standings_changed()
    url = reverse("members:detail", args=["anna"])
    visitor().get(url)
    Member.objects.filter(username="anna").update(display_name="Анна")
    services.standings_changed()

    assert "<h1>Anna</h1>" in visitor().get(url).content.decode()
    worker()
    assert "<h1>Анна</h1>" in visitor().get(url).content.decode()


def test_without_a_worker_the_reader_after_a_change_makes_the_new_board() -> None:
    url = board_seen_then_changed()

    assert "Лето" in visitor().get(url).content.decode()
    assert not DBTaskResult.objects.exists()
