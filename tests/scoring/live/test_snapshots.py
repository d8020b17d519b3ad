"""The per-revision caches: the replay snapshot and the rendered sheet and history are
reused only for the revision they were made for, so no page ever shows a stale table."""

from __future__ import annotations

import threading
import time

import pytest
from django.core.cache import cache
from django.urls import reverse

from scoring import selectors
from scoring.live import fragments, snapshots
from scoring.live.keys import claim_key, revision_key
from scoring.models import DealRecord, Table
from tests import factories
from tests.factories import FIRST_GAME, HTMX, MISERE, PASSOUT, post_deal
from tests.scoring.views.buttons import choices

# Up to 25 deals are played: a pool of 50 keeps the pulka open.
pytestmark = [pytest.mark.django_db, pytest.mark.pool_target(50)]


def fresh(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


def play(client, table, deals: int) -> None:
    for n in range(deals):
        post_deal(client, table, (FIRST_GAME, PASSOUT, MISERE)[n % 3])


def test_a_snapshot_gives_the_replayed_game_and_the_latest_rows(client, table, anna):
    play(client, table, 7)
    replayed = selectors.replay(fresh(table))
    assert selectors.current(fresh(table)).records == replayed.records  # a miss: replayed

    latest = selectors.current(fresh(table), latest=3)  # a hit: from the snapshot
    assert latest.document() == replayed.document()
    assert latest.deal_ids == [r.pk for r in replayed.records]
    assert latest.records == replayed.records[-3:]
    assert selectors.current(fresh(table), latest=0).records == []


def test_the_latest_rows_come_from_the_snapshot_and_older_ones_from_the_database(
    client, table, anna, django_assert_num_queries
):
    play(client, table, 13)
    replayed = selectors.replay(fresh(table))
    selectors.current(fresh(table))  # a miss: replayed, and the latest 10 rows kept
    shown = Table.objects.prefetch_related("seats").get(pk=table.pk)  # as the views read it
    with django_assert_num_queries(0):
        latest = selectors.current(shown, latest=snapshots.LATEST_ROWS)
    assert latest.records == replayed.records[-snapshots.LATEST_ROWS :]
    with django_assert_num_queries(1):  # more than it keeps: read
        everything = selectors.current(shown)
    assert everything.records == replayed.records


def test_rows_that_are_not_the_latest_deals_are_not_kept(client, table, anna):
    play(client, table, 3)
    state = selectors.replay(fresh(table))
    snapshots.remember(state.table, state.game, state.deal_ids, state.records[:2])
    stored = snapshots.SNAPSHOTS.get(revision_key(state.table, "table-state"))
    assert stored.latest == ()
    assert selectors.current(fresh(table), latest=3).records == state.records  # read


def test_a_snapshot_is_a_copy_the_caller_may_advance(client, table, anna):
    play(client, table, 2)
    before = selectors.current(fresh(table)).document()
    selectors.current(fresh(table)).game.close()  # the hit's game is the caller's own
    assert selectors.current(fresh(table)).document() == before


def test_a_correction_is_shown_at_once_though_the_old_sheet_was_cached(client, table, anna):
    play(client, table, 3)
    url = reverse("scoring:table_detail", args=[table.pk])
    assert "Anna: pool 2" in client.get(url).content.decode()  # caches this revision
    first = DealRecord.objects.filter(table=table).order_by("sequence").first()
    client.post(
        reverse("scoring:deal_edit", args=[table.pk, first.pk]),
        {
            **FIRST_GAME,
            "tricks:Anna": "5",
            "tricks:Boris": "4",
            "reason": "misread",
            **factories.drawn(table),
        },
    )
    page = client.get(url).content.decode()
    assert "Anna: pool 2" not in page
    assert selectors.current(fresh(table)).document() == selectors.replay(fresh(table)).document()


def test_a_saved_deal_leaves_the_snapshot_of_the_new_revision(
    client, table, anna, django_capture_on_commit_callbacks
):
    play(client, table, 2)
    with django_capture_on_commit_callbacks(execute=True):
        post_deal(client, table, PASSOUT, **HTMX)
    stored = snapshots.SNAPSHOTS.get(revision_key(fresh(table), "table-state"))
    assert stored is not None
    game, deal_ids, latest = stored
    replayed = selectors.replay(fresh(table))
    assert list(deal_ids) == [r.pk for r in replayed.records]
    assert game.result() == replayed.game.result()
    assert [r.pk for r in latest] == [r.pk for r in replayed.records]  # 3 deals: all kept


def test_viewers_and_scorers_get_their_own_sheet(client, table, anna):
    play(client, table, 1)
    url = reverse("scoring:table_live", args=[table.pk])
    correct = reverse("scoring:deal_edit", args=[table.pk, DealRecord.objects.get().pk])
    assert correct in client.get(url).content.decode()
    client.logout()
    assert correct not in client.get(url).content.decode()  # same revision, other audience


def test_the_full_log_is_not_taken_from_the_latest_deals(client, table, anna):
    play(client, table, 25)
    url = reverse("scoring:table_detail", args=[table.pk])
    assert client.get(url).content.decode().count('class="deal-fix"') == 10
    assert client.get(url + "?log=all").content.decode().count('class="deal-fix"') == 25


def test_the_print_view_holds_every_deal(client, table, anna):
    play(client, table, 25)
    page = client.get(reverse("scoring:table_print", args=[table.pk])).content.decode()
    assert page.split('<table class="deals">')[1].count('<th scope="row">') == 25


def test_a_deal_is_deleted_from_its_own_page(client, table, anna):
    play(client, table, 2)
    second = DealRecord.objects.filter(table=table).order_by("sequence").last()
    page = client.get(reverse("scoring:deal_edit", args=[table.pk, second.pk])).content.decode()
    delete = reverse("scoring:deal_delete", args=[table.pk, second.pk])
    assert f'action="{delete}"' in page
    response = client.post(
        delete, {"reason": "entered twice", **factories.drawn(table)}, follow=True
    )
    assert "Deal deleted." in response.content.decode()
    assert DealRecord.objects.get(pk=second.pk).deleted


def test_a_page_of_an_unchanged_table_reads_only_the_table_seats_and_club_name_or_its_version(
    shared_cache, client, table, anna, django_assert_num_queries
):
    play(client, table, 5)
    url = reverse("scoring:table_detail", args=[table.pk])
    client.get(url)  # rendered once for this revision
    # The session, the member with whether she is an organiser (who is offered closing the
    # table early); the table with its seats is kept under its revision, as is the page
    # around her parts (clubsite.pages), and the club's name is cached. Without a shared
    # cache the table's version is read from the database too (live.revisions).
    with django_assert_num_queries(2 if shared_cache == "redis" else 3):
        client.get(url)
    client.logout()
    client.get(url)
    # A visitor's page is kept whole (clubsite.pages) under the table's version, which a
    # shared cache keeps too (live.revisions): no query at all; one process's own memory
    # keeps no revision, which is then read from the database.
    with django_assert_num_queries(0 if shared_cache == "redis" else 1):
        client.get(url)


def test_the_empty_form_follows_the_dealer_and_the_lowest_contract(client):
    players = [factories.member(n) for n in ("Anna", "Boris", "Vera", "Gleb")]
    table = factories.pulka(players, tariff="Ленинград (Leningrad)")
    client.force_login(players[0])
    url = reverse("scoring:table_detail", args=[table.pk])
    for n in range(8):  # pass-outs raise the lowest contract; the dealer sits out in turn
        state = selectors.replay(fresh(table))
        page = client.get(url).content.decode()
        form = page[page.index('id="deal-form"') : page.index('id="table-actions"')]
        active = [state.players[s] for s in state.game.active_seats()]
        assert [p.name for p in players if f'name="tricks:{p.name}"' in form] == active
        lowest = state.game.lowest_contract()
        assert [int(value) for value, _ in choices(form, "level")] == list(range(lowest, 11))
        tricks = dict(zip(active, ("4", "3", "3"), strict=True))
        if n % 3 == 2:
            declarer, *defenders = active
            deal = {"kind": "game", "declarer": declarer, "level": str(lowest), "suit": "N"}
            deal |= {f"answer:{d}": "pass" for d in defenders}
        else:
            deal = {"kind": "passout"} | {f"tricks:{p}": t for p, t in tricks.items()}
        assert post_deal(client, table, deal, **HTMX).status_code == 200
    assert DealRecord.objects.filter(table=table).count() == 8


def test_the_snapshot_store_drops_the_least_recently_used():
    store = snapshots.Snapshots(kept=2)
    game = object()
    store.put("a", (game, ()))
    store.put("b", (game, ()))
    store.get("a")  # used since "b" was kept
    store.put("c", (game, ()))
    assert store.get("b") is None
    assert store.get("a") is not None
    assert store.get("c") is not None


def test_threads_that_miss_together_make_the_text_once():
    # A deal has landed and four viewers' polls miss the cache at once: one makes the sheet,
    # the others wait for it. (The pause inside ``make`` only gives them time to queue; if
    # they come later they find the text in the cache, so the count is 1 either way.)
    made, answers = [], []
    together = threading.Barrier(4)

    def make() -> str:
        made.append(threading.get_ident())
        time.sleep(0.05)
        return "the sheet"

    def poll() -> None:
        together.wait()
        answers.append(fragments.cached("sheet-html:test", make))

    threads = [threading.Thread(target=poll) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == ["the sheet"] * 4
    assert len(made) == 1
    assert cache.get(claim_key("sheet-html:test")) is None


def test_a_failed_making_leaves_no_claim_and_is_tried_again():
    def fail() -> str:
        raise RuntimeError("drawing failed")

    with pytest.raises(RuntimeError):
        fragments.cached("sheet-html:test", fail)
    assert cache.get(claim_key("sheet-html:test")) is None
    assert fragments.cached("sheet-html:test", lambda: "the sheet") == "the sheet"
