"""Every write at a table carries the revision its page showed and an idempotency key
(issue 14 items 3–5): the races of the issue through real HTTP against the live server on
PostgreSQL (row locks), and through the test client the refusals a member reads: a stale
write, a write without a revision, a signed-out write, a CSRF failure, tricks for a game
nobody whisted, and the undo confirmation."""

from __future__ import annotations

import html
import re
import threading
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.urls import reverse

from scoring import services
from scoring.models import AuditEntry, DealRecord, Table, WriteKey
from tests import factories
from tests.factories import FIRST_GAME, HTMX, PASSOUT, post_deal
from tests.scoring.services.test_concurrency import Browser

pytestmark = pytest.mark.django_db

POSTGRESQL = pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"],
    reason="row locks need PostgreSQL (DATABASE_URL=postgres://…); SQLite has none",
)

VERA_7C = {  # «Вера 7♣, пас-пас»: the deal of the issue
    "kind": "game",
    "declarer": "Vera",
    "level": "7",
    "suit": "C",
    "answer:Anna": "pass",
    "answer:Boris": "pass",
}
HX = {"HX-Request": "true"}


def hidden(page: str, name: str) -> str:
    """The value of the hidden input ``name`` of the page's deal form (the first one)."""
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found, f"no {name} on the page"
    return found.group(1)


def text(response_or_html) -> str:
    body = getattr(response_or_html, "content", None)
    return html.unescape(body.decode() if body is not None else response_or_html)


def live(table: Table) -> int:
    return DealRecord.objects.filter(table=table, deleted=False).count()


def revision(table: Table) -> int:
    return Table.objects.values_list("revision", flat=True).get(pk=table.pk)


# -- the races, through real HTTP on PostgreSQL ---------------------------------------------


@pytest.mark.slow  # a live server
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@POSTGRESQL
def test_a_save_from_an_older_page_is_refused_though_its_form_was_redrawn(live_server):
    """The issue's race: A saves «Вера 7♣ пас-пас»; B, whose page was open before, changes
    the declarer (the form is redrawn) and saves the same deal: refused with a 409 that
    says what A saved, and the table has one more deal, not two."""
    table = factories.pulka(pool_target=10)
    anna, boris = (seat.member for seat in table.seats.order_by("position")[:2])
    a, b = Browser(live_server.url, anna.username), Browser(live_server.url, boris.username)
    path = f"/tables/{table.pk}/"
    page_a, page_b = a.get(path), b.get(path)
    assert hidden(page_b, "revision") == "0"
    key_b = hidden(page_b, "write_key")

    drawn_a = {"revision": hidden(page_a, "revision"), "write_key": hidden(page_a, "write_key")}
    status, headers, _ = a.send(f"{path}deals/", {**VERA_7C, **drawn_a}, page_a, HX)
    assert (status, headers["X-Table-Revision"]) == (200, "1")

    # B changes the declarer: the redraw keeps the revision and the key B's page had.
    redraw = {**VERA_7C, "declarer": "Anna", "change": "1", "revision": "0", "write_key": key_b}
    status, redrawn = b.post(f"{path}deals/", redraw, page_b, HX)
    assert status == 200
    assert hidden(redrawn, "revision") == "0"
    assert hidden(redrawn, "write_key") == key_b

    deal_b = {**VERA_7C, "revision": "0", "write_key": key_b}
    status, headers, refused = b.send(f"{path}deals/", deal_b, page_b, HX)
    assert status == 409
    assert headers["X-Write-Refused"] == "1"
    assert "X-Table-Revision" not in headers
    message = text(refused)
    assert "While you were entering it, the table changed: deal 1 saved: game 7♣ · Vera" in message
    assert "pass–pass" in message
    # The form comes back with what B typed, drawn for the table as it is now.
    assert hidden(refused, "revision") == "1"
    assert hidden(refused, "write_key") != key_b
    assert re.search(r'name="declarer" value="Vera"[^>]*checked', refused)
    assert live(table) == 1
    assert AuditEntry.objects.filter(table=table, action=AuditEntry.ADD).count() == 1
    connection.close()


@pytest.mark.slow  # a live server
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@POSTGRESQL
def test_the_same_key_sent_twice_at_once_and_again_is_stored_once(live_server):
    """A double tap, a retry: the same request (revision and key) sent twice at the same
    moment and once more later is stored once, and each answer is the success."""
    table = factories.pulka(pool_target=10)
    anna = table.seats.get(position=0).member
    browsers = [Browser(live_server.url, anna.username) for _ in range(2)]
    path = f"/tables/{table.pk}/"
    pages = [browser.get(path) for browser in browsers]
    request = {**PASSOUT, "revision": "0", "write_key": str(uuid.uuid4())}
    start = threading.Barrier(2)
    answers: list[tuple[int, dict[str, str], str]] = []

    def send(browser: Browser, page: str) -> None:
        start.wait()
        answers.append(browser.send(f"{path}deals/", request, page, HX))
        connection.close()

    threads = [
        threading.Thread(target=send, args=pair) for pair in zip(browsers, pages, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    answers.append(browsers[0].send(f"{path}deals/", request, pages[0], HX))

    assert [status for status, _, _ in answers] == [200, 200, 200]
    assert [headers["X-Table-Revision"] for _, headers, _ in answers] == ["1", "1", "1"]
    # The one stored names its number; the two answered as it was do not know it.
    assert sorted("Deal 1 saved." in body for _, _, body in answers) == [False, False, True]
    assert all("Deal 1 saved." in body or "Deal saved." in body for _, _, body in answers)
    assert live(table) == 1
    assert WriteKey.objects.filter(table=table).count() == 1
    assert revision(table) == 1
    connection.close()


@pytest.mark.slow  # a live server
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@POSTGRESQL
def test_an_undo_from_an_older_page_never_strikes_the_deal_saved_since(live_server):
    """B asks to undo deal 1 (his confirmation names it); meanwhile A saves deal 2; B's undo
    is refused, and both deals stay."""
    table = factories.pulka(
        pool_target=10, deals=[{"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}}]
    )
    anna, boris = (seat.member for seat in table.seats.order_by("position")[:2])
    a, b = Browser(live_server.url, anna.username), Browser(live_server.url, boris.username)
    path = f"/tables/{table.pk}/"
    confirm = b.get(f"{path}undo/?revision=1")
    assert "Undo deal 1: pass-out?" in text(confirm)
    page_a = a.get(path)
    status, _, _ = a.send(f"{path}deals/", {**PASSOUT, "revision": "1"}, page_a, HX)
    assert status == 200

    drawn = {"revision": hidden(confirm, "revision"), "write_key": hidden(confirm, "write_key")}
    status, refused = b.post(f"{path}undo/", drawn, confirm)
    assert status == 409
    assert "the table changed: deal 2 saved: pass-out" in text(refused)
    assert "Undo deal 2: pass-out?" in text(refused)  # asked again, about the deal now last
    assert live(table) == 2
    assert not AuditEntry.objects.filter(table=table, action=AuditEntry.UNDO).exists()
    connection.close()


@pytest.mark.slow  # a live server
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@POSTGRESQL
def test_two_corrections_of_one_deal_from_one_revision_the_second_is_refused(live_server):
    table = factories.pulka(
        pool_target=10, deals=[{"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}}]
    )
    deal = DealRecord.objects.get(table=table)
    anna, boris = (seat.member for seat in table.seats.order_by("position")[:2])
    a, b = Browser(live_server.url, anna.username), Browser(live_server.url, boris.username)
    edit = f"/tables/{table.pk}/deals/{deal.pk}/edit/"
    page_a, page_b = a.get(edit), b.get(edit)

    def correction(page: str, tricks: tuple[str, str, str], reason: str) -> dict[str, str]:
        names = ("Anna", "Boris", "Vera")
        return {
            "kind": "passout",
            **{f"tricks:{n}": t for n, t in zip(names, tricks, strict=True)},
            "reason": reason,
            "revision": hidden(page, "revision"),
            "write_key": hidden(page, "write_key"),
        }

    status, _ = a.post(edit, correction(page_a, ("5", "3", "2"), "misread"), page_a)
    assert status == 200  # redirected to the table page
    status, refused = b.post(edit, correction(page_b, ("2", "4", "4"), "typo"), page_b)
    assert status == 409
    message = text(refused)
    assert "the table changed: deal 1 corrected: pass-out" in message
    assert 'value="typo"' in refused  # the reason B typed is kept
    deal.refresh_from_db()
    assert deal.data["tricks"] == {"Anna": 5, "Boris": 3, "Vera": 2}  # A's, not B's
    assert AuditEntry.objects.filter(table=table, action=AuditEntry.EDIT).count() == 1
    connection.close()


@pytest.mark.slow  # a live server
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@POSTGRESQL
def test_a_save_after_the_session_expired_says_so_and_keeps_the_deal(live_server):
    table = factories.pulka(pool_target=10)
    anna = table.seats.get(position=0).member
    a = Browser(live_server.url, anna.username)
    path = f"/tables/{table.pk}/"
    page = a.get(path)
    Session.objects.all().delete()  # the session expired; the CSRF cookie is still there
    deal = {**VERA_7C, "revision": "0", "write_key": hidden(page, "write_key")}

    # htmx says which page it posts from; the Referer this client sends is the POST's URL.
    at_page = HX | {"HX-Current-URL": live_server.url + path}
    status, headers, fragment = a.send(f"{path}deals/", deal, page, at_page)
    assert status == 403
    assert (headers["HX-Retarget"], headers["HX-Reswap"]) == ("#write-problem", "innerHTML")
    assert headers["X-Write-Refused"] == "1"
    assert "You are not signed in (perhaps your session has expired)" in text(fragment)
    link = re.search(r'href="([^"]+)">Sign in again and come back', fragment)
    assert link
    back = parse_qs(urlsplit(html.unescape(link.group(1))).query)["next"][0]
    assert urlsplit(back).path == path
    assert parse_qs(urlsplit(back).query)["declarer"] == ["Vera"]  # the deal, to draw again

    status, page_refused = a.post(f"{path}deals/", deal, page)
    assert status == 403
    assert 'name="declarer" value="Vera"' in page_refused  # the form to send it again
    assert f'name="write_key" value="{deal["write_key"]}"' in page_refused
    assert live(table) == 0
    connection.close()


# -- what a member reads, through the test client -------------------------------------------


def test_a_stale_save_is_refused_with_what_changed_in_russian(table):
    anna = table.seats.get(position=0).member
    russian = Client()
    russian.force_login(anna)
    services.deal_create(
        table,
        {
            "kind": "game",
            "declarer": "Vera",
            "contract": "7C",
            "answers": {"Anna": "pass", "Boris": "pass"},
        },
        by=anna,
    )
    url = reverse("scoring:deal_create", args=[table.pk])
    refused = russian.post(url, {**FIRST_GAME, "revision": "0"})  # a plain POST
    assert refused.status_code == 409
    assert "Пока вы вводили, на столе записали раздачу 1: игра 7♣ · Vera · пас–пас." in text(
        refused
    )
    assert "Ничего не сохранено: проверьте и сохраните снова." in text(refused)
    assert 'name="declarer" value="Anna"' in refused.content.decode()
    assert live(table) == 1


def test_a_write_without_a_revision_is_refused_in_words(client, table, anna):
    url = reverse("scoring:deal_create", args=[table.pk])
    refused = client.post(url, FIRST_GAME, **HTMX)
    assert refused.status_code == 400
    assert refused["X-Write-Refused"] == "1"
    assert "the form does not say which state of the table it was filled in for" in text(refused)
    damaged = client.post(url, {**FIRST_GAME, "revision": "0", "write_key": "x"}, **HTMX)
    assert damaged.status_code == 400
    assert "the form's key is damaged" in text(damaged)
    undo = client.post(reverse("scoring:deal_undo", args=[table.pk]))
    assert undo.status_code == 400
    assert live(table) == 0
    assert revision(table) == 0


def test_every_write_answers_with_the_new_revision(client, table, anna):
    saved = post_deal(client, table, PASSOUT)
    assert (saved.status_code, saved["X-Table-Revision"]) == (302, "1")
    undone = client.post(reverse("scoring:deal_undo", args=[table.pk]), {"revision": "1"})
    assert (undone.status_code, undone["X-Table-Revision"]) == (302, "2")
    assert live(table) == 0


def test_the_forms_on_a_table_page_each_carry_a_key_of_their_own(client, table, anna):
    post_deal(client, table, PASSOUT)
    organiser = factories.member("Olga", organiser=True)
    client.force_login(organiser)
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    keys = re.findall(r'name="write_key" value="([^"]+)"', page)
    assert len(keys) >= 1
    assert len(set(keys)) == len(keys)
    assert all(uuid.UUID(key).version == 4 for key in keys)
    assert set(re.findall(r'name="revision" value="([^"]*)"', page)) == {"1"}


def test_a_csrf_failure_speaks_russian_and_keeps_the_deal(table):
    anna = table.seats.get(position=0).member
    russian = Client(enforce_csrf_checks=True)
    russian.force_login(anna)
    url = reverse("scoring:deal_create", args=[table.pk])
    deal = {**VERA_7C, "revision": "0", "csrfmiddlewaretoken": "stale" * 8}

    refused = russian.post(url, deal)
    assert refused.status_code == 403
    page = text(refused)
    assert "<h1>Ничего не сохранено</h1>" in page
    assert "страница, с которой отправлена форма, устарела" in page
    assert "Войти снова и вернуться" in page
    assert 'name="declarer" value="Vera"' in refused.content.decode()
    assert 'value="stalestale' not in refused.content.decode()  # the bad token is not kept
    fragment = russian.post(url, deal, **HTMX)
    assert fragment.status_code == 403
    assert fragment["HX-Retarget"] == "#write-problem"
    assert "<html" not in fragment.content.decode()
    assert live(table) == 0


def test_tricks_for_a_game_both_passed_are_refused_on_the_tricks(client, table, anna):
    both_passed = {**VERA_7C, "tricks:Anna": "3", "tricks:Boris": "3", "tricks:Vera": "4"}
    response = post_deal(client, table, both_passed, **HTMX)
    assert response.status_code == 200
    form = response.content.decode()
    tricks = form[form.index('<fieldset class="tricks') :]
    tricks = tricks[: tricks.index("</ul></fieldset>")]  # the row, up to its own error list
    assert "tricks are entered only when somebody whists" in text(tricks)
    assert "when-whisted" not in tricks.split(">")[0]  # shown, with its error
    assert "checked" not in tricks  # cleared: Save again stores the game both passed
    assert live(table) == 0
    saved = post_deal(client, table, VERA_7C)
    assert saved.status_code == 302
    assert DealRecord.objects.get(table=table).data.get("tricks") is None


def test_the_undo_confirmation_names_the_deal_in_russian(table):
    anna = table.seats.get(position=0).member
    russian = Client()
    russian.force_login(anna)
    post_deal(russian, table, FIRST_GAME)
    url = reverse("scoring:deal_undo", args=[table.pk])
    page = russian.get(url)
    assert "Отменить раздачу 1: игра 6♠ · Anna · вист–пас?" in text(page)
    partial = russian.get(url, **HTMX)
    assert text(partial).lstrip().startswith('<section id="undo-confirm"')
    assert 'hx-post="' in partial.content.decode()
    assert 'hx-post="' not in page.content.decode()  # the page's own form posts plainly
    assert live(table) == 1  # asking changes nothing
    table_page = russian.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    assert f'href="{url}?revision=1"' in table_page  # a link to the question, not a button


def test_the_undo_confirmation_says_what_changed_since_the_page(client, table, anna):
    post_deal(client, table, PASSOUT)
    post_deal(client, table, FIRST_GAME)
    page = client.get(reverse("scoring:deal_undo", args=[table.pk]) + "?revision=1")
    said = text(page)
    assert "the table changed: deal 2 saved: game 6♠ · Anna · whist–pass" in said
    assert "Undo deal 2: game 6♠ · Anna · whist–pass?" in said


@pytest.mark.pool_target(1000)
def test_an_expanded_log_stays_expanded_across_live_updates(client, table, anna):
    for _ in range(12):  # two more than the log shows folded (LOG_SHOWN)
        post_deal(client, table, PASSOUT)
    client.logout()  # a viewer
    folded = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    live_url = reverse("scoring:table_live", args=[table.pk])
    assert f'hx-get="{live_url}"' in folded
    assert "Show 2 earlier deals" in folded
    expanded = client.get(reverse("scoring:table_detail", args=[table.pk]) + "?log=all")
    assert f'hx-get="{live_url}?log=all"' in expanded.content.decode()
    services.deal_create(
        table, {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}}, by=None
    )
    polled = client.get(f"{live_url}?log=all").content.decode()  # the live update
    assert polled.count('<li value="') == 13
    assert f'hx-get="{live_url}?log=all"' in polled  # and the next one asks the same
    assert "Show 3 earlier deals" not in polled


def test_finishing_a_complete_table_asks_first(client, anna):
    table = factories.pulka(
        [anna, factories.member("Boris"), factories.member("Vera")], pool_target=1
    )
    pools = {"kind": "adjust", "reason": "pools", "pool": {"Anna": 1, "Boris": 1, "Vera": 1}}
    services.deal_create(table, pools, by=anna)
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    finish = reverse("scoring:table_finish", args=[table.pk])
    assert f'href="{finish}">Finish the table…</a>' in page  # a link to the question
    confirm = client.get(finish)
    assert "takes no more deals and counts in the standings" in text(confirm)
    assert Table.objects.get(pk=table.pk).is_open
    done = client.post(finish, {"revision": hidden(confirm.content.decode(), "revision")})
    assert done.status_code == 302
    assert Table.objects.get(pk=table.pk).status == Table.FINISHED


def test_the_way_back_after_signing_in_draws_the_deal_typed(client, table, anna):
    """The sign-in link of a refused write leads to the table page with the deal in its
    address (clubsite.writes): the form shows it, ready to save."""
    url = reverse("scoring:table_detail", args=[table.pk])
    page = client.get(url + "?kind=game&declarer=Vera&level=7&suit=C").content.decode()
    assert re.search(r'name="declarer" value="Vera"[^>]*checked', page)
    assert re.search(r'name="level" value="7"[^>]*checked', page)
    assert re.search(r'name="suit" value="C"[^>]*checked', page)
    assert hidden(page, "revision") == "0"


def test_a_signed_out_redraw_shows_the_message_not_an_empty_form(table):
    """htmx selects ``#deal-form`` from a redraw's answer: the refusal unsets it."""
    url = reverse("scoring:deal_create", args=[table.pk])
    response = Client().post(url, {"kind": "passout", "change": "1"}, **HTMX)
    assert response.status_code == 403
    assert response["HX-Reselect"] == "unset"
    assert response["HX-Retarget"] == "#write-problem"
