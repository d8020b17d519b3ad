"""Bad input, property-based: every form and ``manage.py score`` fed malformed and hostile
data (wrong types, huge numbers, unicode, unknown players, other tables' ids, deals after
the table closed). For every input:

* no 500 — the test client (``CountingClient``) counts a 5xx answer against its input,
  then fails the example with the view's traceback; a command's crash counts as one;
* no partial write — a snapshot of everything a request could write is compared before
  and after: a refusal changes nothing, a success makes exactly its one write;
* a clear message — a refused request shows an error on the page it answers with (or on
  the page its redirect leads to).

Each example runs in a savepoint that is rolled back, so the examples are independent of
each other (hypothesis replays a failing one exactly). The number of inputs tried and of
5xx answers is printed at the end of the run, with the other fuzz modules' (the URLs in
``tests/clubsite/test_url_fuzz.py``, the backups in ``tests/scoring/club/test_backup_fuzz.py``):
``fuzz: N inputs tried, 0 answered 5xx (deal form (preferans): …)`` (tests/fuzz_harness.py).

``FUZZ_EXAMPLES=1000 FUZZ_RANDOM=1 pytest tests/scoring/test_fuzz.py`` explores further than
the default run (which is derandomized, so it always tries the same inputs). Locally the
default run tries a tenth of the inputs CI does (tests/hypothesis_profiles.py).

The fuzz found eleven bugs (all fixed since): each is pinned by a plain test below that
reproduces it exactly, named for what the site must do (``test_import_refuses_...``,
``test_the_deal_form_shows_every_error``, ``test_a_deal_kind_that_is_a_list_is_refused``,
``test_a_tariffs_rows_cannot_be_added_by_the_management_form``,
``test_tariff_import_refuses_a_nul_or_a_lone_surrogate_anywhere`` …). A new bug found here
gets such a test, marked ``xfail(strict=True)`` until it is fixed.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import redirect_stderr
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils.html import escape
from hypothesis import given
from hypothesis import strategies as st

from scoring import services
from scoring.engine.errors import RuleError
from scoring.engine.record import BAD_TEXT, load, score_record
from scoring.models import BostonTariff, PreferansTariff, Season, Table
from tests import factories
from tests.factories import FIRST_GAME, HTMX
from tests.fuzz_harness import (
    CountingClient,
    Crash,
    fuzz,
    fuzz_input,
    login,
    quiet_request_logs,
    rolled_back,
)
from tests.fuzz_strategies import (
    HOSTILE_TEXT,
    counts,
    db_snapshot,
    form_value,
    hostile_scalar,
    json_values,
    mutated_form,
    mutated_json,
    upload_bytes,
    wire,
)
from tests.html_forms import form_data as form_fields

pytestmark = [pytest.mark.django_db, pytest.mark.slow]  # a fuzz of every form

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "scoring" / "engine" / "examples"


# -- counting (tests/fuzz_harness.py) -----------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def _quiet_logs() -> Iterator[None]:
    """Keep the logs of the hundreds of 403s, 404s and failed sign-ins the fuzz provokes
    off the console (a 5xx still fails its test, with the view's traceback)."""
    with quiet_request_logs():
        yield


@pytest.fixture
def client() -> Client:
    """The test client, in English, counting 5xx answers (tests/fuzz_harness.py)."""
    return CountingClient()


# -- helpers --------------------------------------------------------------------------------


def shows_error(html: str) -> bool:
    """Whether a page tells the member something went wrong."""
    return any(
        marker in html
        for marker in ('class="errorlist', 'class="message error"', 'class="errornote"')
    )


def page_after(client: Client, response: Any) -> str:
    """The page a response shows: itself, or where its redirect leads."""
    if response.status_code in (301, 302):
        return client.get(response["Location"]).content.decode()
    return response.content.decode()


def changed(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    return {key for key in before if before[key] != after[key]}


def new_rows(before: list[Any], after: list[Any]) -> list[Any]:
    old = {row[0] for row in before}
    return [row for row in after if row[0] not in old]


def live_deals(snapshot: dict[str, Any], table: Table) -> int:
    return sum(1 for row in snapshot["deals"] if row[1] == table.pk and not row[3])


PREFERANS_FORMS = (
    FIRST_GAME,
    {"kind": "passout", "tricks:Anna": "5", "tricks:Boris": "5", "tricks:Vera": "0"},
    {"kind": "misere", "declarer": "Boris", "tricks:Boris": "0"},
    {"kind": "adjust", "reason": "a slip", "pool:Anna": "2", "mountain:Vera": "-1"},
    {
        "kind": "adjust",
        "reason": "whists",
        "whist_writer": "Anna",
        "whist_on": "Boris",
        "whist_amount": "10",
    },
    {},
)
PREFERANS_KEYS = (
    "kind",
    "declarer",
    "level",
    "suit",
    "dealer_tricks",
    "dark",
    "looked",
    "reason",
    "whist_writer",
    "whist_on",
    "whist_amount",
    "revision",
    "write_key",
    "preview",
    "change",
    *(f"{field}:{name}" for field in ("answer", "tricks") for name in ("Anna", "Boris", "Vera")),
    *(f"{field}:{name}" for field in ("pool", "mountain") for name in ("Anna", "Boris", "Vera")),
    "tricks:Gleb",
    "answer:Zoe",
)
BOSTON_FORMS = (
    {
        "kind": "ask",
        "declarer": "Anna",
        "partner": "Vera",
        "suit": "minor",
        "tour": "simple",
        "tricks": "13",
    },
    {"kind": "independence", "declarer": "Boris", "suit": "minor", "tour": "simple", "tricks": "7"},
    {"kind": "ask", "declarer": "Vera", "trump": "hearts", "tour": "simple", "tricks": "6"},
    {
        "kind": "card",
        "declarer": "Gleb",
        "contract": "7",
        "column": "hearts",
        "honours": "3",
        "tour": "double",
        "tricks": "7",
    },
    {"kind": "pass"},
    {"kind": "adjust", "reason": "a slip", "payer": "Anna", "payee": "Gleb", "amount": "5"},
    {},
)
BOSTON_KEYS = (
    "kind",
    "declarer",
    "partner",
    "suit",
    "trump",
    "tour",
    "tricks",
    "contract",
    "column",
    "honours",
    "reason",
    "payer",
    "payee",
    "amount",
    "revision",
    "write_key",
    "preview",
    "change",
)
STRANGERS = ("Anna", "Boris", "Vera", "Gleb", "Zoe", "anna", "ANNA", "Anna ", "Борис")
"""Names of the players, of players at another table (Zoe), and near misses."""


def deal_post_data(forms: tuple[dict[str, str], ...], keys: tuple[str, ...]) -> Any:
    """A deal form as posted: a real deal (or nothing) with some fields made hostile, and
    the table revision the form was drawn at (right, stale, or hostile)."""
    return st.tuples(
        st.sampled_from(forms).flatmap(lambda base: mutated_form(base, keys, STRANGERS)),
        st.one_of(st.just("right"), st.just("stale"), hostile_scalar()),
    )


# -- the world ------------------------------------------------------------------------------


@pytest.fixture
def world() -> SimpleNamespace:
    """Anna, Boris and Vera at a pulka with two deals (one struck), Gleb joining them at a
    Boston table; Zoe's table next door; an organiser and a member who plays nowhere."""
    anna, boris, vera, gleb = (
        factories.member(name, username=name.lower()) for name in ("Anna", "Boris", "Vera", "Gleb")
    )
    pulka = factories.pulka([anna, boris, vera], pool_target=10)
    first = services.deal_create(
        pulka,
        {
            "kind": "game",
            "declarer": "Anna",
            "contract": "6S",
            "answers": {"Boris": "whist", "Vera": "pass"},
            "tricks": {"Anna": 6, "Boris": 3, "Vera": 1},
        },
        by=anna,
    ).record
    struck = services.deal_create(
        pulka, {"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "Vera": 0}}, by=anna
    ).record
    services.deal_undo(pulka, by=anna)
    last = services.deal_create(
        pulka, {"kind": "misere", "declarer": "Boris", "tricks": {"Boris": 0}}, by=anna
    ).record
    boston = factories.boston_table([anna, boris, vera, gleb], preference_suit="hearts")
    services.deal_create(
        boston,
        {
            "kind": "ask",
            "declarer": "Anna",
            "partner": "Vera",
            "suit": "minor",
            "tour": "simple",
            "tricks": 13,
        },
        by=anna,
    )
    zoe = factories.member("Zoe", username="zoe")
    other = factories.pulka([zoe, factories.member("Yan"), factories.member("Xena")])
    other_deal = services.deal_create(
        other, {"kind": "passout", "tricks": {"Zoe": 4, "Yan": 3, "Xena": 3}}, by=zoe
    ).record
    return SimpleNamespace(
        anna=anna,
        boris=boris,
        vera=vera,
        gleb=gleb,
        zoe=zoe,
        pulka=pulka,
        boston=boston,
        other=other,
        first=first,
        struck=struck,
        last=last,
        other_deal=other_deal,
        organiser=factories.member("Olga", organiser=True, username="olga"),
        member=factories.member("Mila", username="mila"),
        inactive=factories.member("Ivan", username="ivan", is_active=False),
    )


# -- deal entry -----------------------------------------------------------------------------


def check_deal_post(
    client: Client, table: Table, data: dict[str, Any], htmx: bool, count: Any
) -> None:
    """Post ``data`` to the table's deal form (as whoever the client is signed in as) and
    check the three properties: a 200 or 302, at most the one deal written, a message."""
    before = db_snapshot()
    live = live_deals(before, table)
    posted = dict(data)
    revision = factories.drawn(table)["revision"]
    if count == "right":
        posted["revision"] = revision
    elif count == "stale":
        posted["revision"] = revision - 1
    else:
        posted["revision"] = wire(count)
    url = reverse("scoring:deal_create", args=[table.pk])
    response = client.post(url, posted, **(HTMX if htmx else {}))
    after = db_snapshot()

    # 400: no usable revision; 409: a stale one (the table moved on since the form).
    assert response.status_code in (200, 302, 400, 409)
    html = response.content.decode()
    if after != before:
        assert "preview" not in posted
        assert "change" not in posted
        assert changed(before, after) <= {"deals", "audit", "tables"}
        added = new_rows(before["deals"], after["deals"])
        assert [row[1] for row in added] == [table.pk]
        assert live_deals(after, table) == live + 1
        assert [row[2] for row in new_rows(before["audit"], after["audit"])] == ["add"]
        if htmx:  # the new sheet, with the empty form out of band
            assert response.status_code == 200
            assert response["HX-Retarget"] == "#sheet"
        else:
            assert response.status_code == 302
            assert (
                response["Location"]
                == reverse("scoring:table_detail", args=[table.pk]) + "#deal-form"
            )
        return
    if response.status_code == 302:  # refused without htmx: the message waits on the page
        assert not htmx
        page = client.get(response["Location"]).content.decode()
        assert shows_error(page), f"no message for {posted!r}"
        return
    assert response.status_code in (200, 400, 409)
    if "change" in posted:
        return  # the form redrawn for another kind of deal: nothing refused
    if "preview" in posted and "This deal will write" in html:
        return
    assert shows_error(html), f"no message for {posted!r}"


@fuzz(100)
@given(post=deal_post_data(PREFERANS_FORMS, PREFERANS_KEYS), htmx=st.booleans())
def test_preferans_deal_form(client: Client, world: SimpleNamespace, post: Any, htmx: bool) -> None:
    data, count = post
    with fuzz_input("deal form (preferans)"), rolled_back():
        login(client, world.anna)
        check_deal_post(client, world.pulka, data, htmx, count)


@fuzz(80)
@given(post=deal_post_data(BOSTON_FORMS, BOSTON_KEYS), htmx=st.booleans())
def test_boston_deal_form(client: Client, world: SimpleNamespace, post: Any, htmx: bool) -> None:
    data, count = post
    with fuzz_input("deal form (boston)"), rolled_back():
        login(client, world.anna)
        check_deal_post(client, world.boston, data, htmx, count)


@fuzz(50)
@given(
    post=deal_post_data(PREFERANS_FORMS + BOSTON_FORMS, PREFERANS_KEYS + BOSTON_KEYS),
    boston=st.booleans(),
    by_organiser=st.booleans(),
)
def test_deals_after_the_table_closed(
    client: Client, world: SimpleNamespace, post: Any, boston: bool, by_organiser: bool
) -> None:
    """A finished table takes no deal, whoever sends it and whatever it holds (htmx: the
    plain form post's missing message is ``test_a_deal_posted_to_a_finished_table_...``)."""
    data, count = post
    table = world.boston if boston else world.pulka
    with fuzz_input("deals after close"), rolled_back():
        services.table_finish(table, by=world.anna)
        login(client, world.organiser if by_organiser else world.anna)
        before = db_snapshot()
        check_deal_post(client, table, data, True, count)
        assert db_snapshot() == before


def test_a_deal_posted_to_a_finished_table_without_htmx_says_why(
    client: Client, world: SimpleNamespace
) -> None:
    """Found by the fuzz: without htmx the refusal was rendered into the deal form, which a
    finished table's page does not show: a 200 with no message."""
    services.table_finish(world.pulka, by=world.anna)
    client.force_login(world.anna)
    before = db_snapshot()
    response = client.post(
        reverse("scoring:deal_create", args=[world.pulka.pk]),
        {**PREFERANS_FORMS[1], **factories.drawn(world.pulka)},
    )
    assert db_snapshot() == before
    assert "the table is finished" in page_after(client, response)


@pytest.mark.parametrize(
    ("boston", "data"),
    [
        (
            False,
            {
                "kind": "adjust",
                "reason": "x",
                "whist_writer": "Anna",
                "whist_on": "Boris",
                "whist_amount": "200000",
            },
        ),
        (False, {**FIRST_GAME, "suit": "X"}),
        (True, {"kind": "adjust", "reason": "x", "payer": "Anna", "payee": "Gleb", "amount": "0"}),
        (True, {**BOSTON_FORMS[1], "tour": "triple"}),
    ],
    ids=["preferans-whist-amount", "preferans-suit", "boston-amount", "boston-tour"],
)
def test_the_deal_form_shows_every_error(
    client: Client, world: SimpleNamespace, boston: bool, data: dict[str, str]
) -> None:
    """Found by the fuzz: an error on a field the form does not print next to it (suit,
    tour, whist amount, chips …) was dropped: a 200 with the form and no message."""
    table = world.boston if boston else world.pulka
    client.force_login(world.anna)
    before = db_snapshot()
    response = client.post(
        reverse("scoring:deal_create", args=[table.pk]),
        {**data, **factories.drawn(table)},
        **HTMX,
    )
    assert response.status_code == 200
    assert db_snapshot() == before
    assert shows_error(response.content.decode())


def test_the_preview_of_a_deal_that_writes_nothing_says_so(
    client: Client, world: SimpleNamespace
) -> None:
    """Found by the fuzz: the preview of a pass round (an empty list) showed nothing."""
    client.force_login(world.anna)
    response = client.post(
        reverse("scoring:deal_create", args=[world.boston.pk]),
        {"kind": "pass", "preview": "1", **factories.drawn(world.boston)},
        **HTMX,
    )
    assert "This deal will write" in response.content.decode()


# -- corrections: edit, delete, undo, finish, reopen ---------------------------------------

TARGETS = ("first", "last", "struck", "other", "zero", "huge", "random")


def deal_id(world: SimpleNamespace, target: str, number: int) -> int:
    return {
        "first": world.first.pk,
        "last": world.last.pk,
        "struck": world.struck.pk,
        "other": world.other_deal.pk,
        "zero": 0,
        "huge": 10**30,
        "random": number,
    }[target]


@fuzz(120)
@given(
    endpoint=st.sampled_from(("edit", "delete", "undo", "finish", "reopen")),
    who=st.sampled_from(("seated", "organiser", "member", "anonymous")),
    target=st.sampled_from(TARGETS),
    number=st.integers(min_value=0, max_value=2**63),
    reason=form_value(),
    finished=st.booleans(),
    htmx=st.booleans(),
    deal=st.sampled_from(PREFERANS_FORMS).flatmap(
        lambda base: mutated_form(base, PREFERANS_KEYS, STRANGERS)
    ),
)
def test_corrections(
    client: Client,
    world: SimpleNamespace,
    endpoint: str,
    who: str,
    target: str,
    number: int,
    reason: Any,
    finished: bool,
    htmx: bool,
    deal: dict[str, Any],
) -> None:
    counted_as = {"edit": "edit deal", "delete": "delete deal"}.get(endpoint, endpoint)
    table = world.pulka
    actor = {"seated": world.anna, "organiser": world.organiser, "member": world.member}.get(who)
    pk = deal_id(world, target, number)
    urls = {
        "edit": f"/tables/{table.pk}/deals/{pk}/edit/",
        "delete": f"/tables/{table.pk}/deals/{pk}/delete/",
        "undo": reverse("scoring:deal_undo", args=[table.pk]),
        "finish": reverse("scoring:table_finish", args=[table.pk]),
        "reopen": reverse("scoring:table_reopen", args=[table.pk]),
    }
    data = {"reason": wire(reason)}
    if endpoint == "edit":
        data = {**deal, "reason": wire(reason)}
    with fuzz_input(counted_as), rolled_back():
        if finished:
            services.table_finish(table, by=world.anna)
        login(client, actor)
        before = db_snapshot()
        data |= factories.drawn(table)  # the revision of the page the scorer sees
        response = client.post(urls[endpoint], data, **(HTMX if htmx else {}))
        after = db_snapshot()

        may = who in ("seated", "organiser")
        if endpoint == "reopen":
            may = who == "organiser" and finished  # permissions.can_reopen
        if endpoint == "edit":
            may = may and not finished
        if not may:
            assert response.status_code == 403
            assert after == before
            return
        assert response.status_code in (200, 302, 404)
        if response.status_code == 404:
            assert endpoint in ("edit", "delete")
            assert target not in ("first", "last")
            assert after == before
            return
        if after != before:
            check_one_write(before, after, endpoint, table)
            assert response.status_code == (200 if htmx and endpoint != "edit" else 302)
            return
        if endpoint == "edit" and "change" in data:
            return  # the form redrawn for another kind of deal
        html = page_after(client, response)
        assert shows_error(html), f"no message for {endpoint} {data!r}"


def check_one_write(
    before: dict[str, Any], after: dict[str, Any], endpoint: str, table: Table
) -> None:
    """The write ``endpoint`` makes, and nothing else."""
    audit = new_rows(before["audit"], after["audit"])
    assert [row[1] for row in audit] == [table.pk]
    action = audit[0][2]
    assert (
        action
        == {
            "edit": "edit",
            "delete": "delete",
            "undo": "undo",
            "finish": "close",
            "reopen": "reopen",
        }[endpoint]
    )
    assert not new_rows(before["deals"], after["deals"])
    deals = [(b, a) for b, a in zip(before["deals"], after["deals"], strict=True) if b != a]
    if endpoint == "edit":
        assert len(deals) <= 1  # none: corrected to what it was (the history still says so)
        assert all(b[3] is False and a[3] is False for b, a in deals)  # a live deal
    elif endpoint in ("delete", "undo"):
        assert len(deals) == 1
        assert (deals[0][0][3], deals[0][1][3]) == (False, True)
    else:
        assert not deals
        status = dict((row[0], row[1]) for row in after["tables"])[table.pk]
        assert status == ("finished" if endpoint == "finish" else "open")
    assert changed(before, after) <= {
        "deals",
        "audit",
        "tables",
        "seats",
        "ratings",
        "rating_history",
    }


# -- opening a table -------------------------------------------------------------------------


@fuzz(80)
@given(
    game=st.sampled_from(("preferans", "boston", "poker", "Preferans", "бостон", "%00")),
    by_organiser=st.booleans(),
    seats=st.lists(
        st.one_of(
            st.sampled_from(("anna", "boris", "vera", "gleb", "zoe", "inactive", "blank")),
            hostile_scalar(),
        ),
        min_size=0,
        max_size=4,
    ),
    version=st.one_of(st.sampled_from(("preferans", "boston", "old")), hostile_scalar()),
    fields=st.dictionaries(
        st.sampled_from(("first_dealer", "pool_target", "price", "control_time", "player_9")),
        form_value(),
        max_size=4,
    ),
)
def test_open_table_form(
    client: Client,
    world: SimpleNamespace,
    game: str,
    by_organiser: bool,
    seats: list[Any],
    version: Any,
    fields: dict[str, Any],
) -> None:
    members = {
        "anna": world.anna,
        "boris": world.boris,
        "vera": world.vera,
        "gleb": world.gleb,
        "zoe": world.zoe,
        "inactive": world.inactive,
    }
    versions = {
        "preferans": factories.preferans_version().pk,
        "boston": factories.boston_version().pk,
        "old": factories.preferans_version("Ленинград (Leningrad)").pk,
    }
    data: dict[str, Any] = {
        "version": versions.get(version, version) if isinstance(version, str) else version,
        "first_dealer": "0",
        "pool_target": "20",
        "price": "1",
    }
    for i, seat in enumerate(seats):
        if seat == "blank":
            data[f"player_{i}"] = ""
        elif isinstance(seat, str) and seat in members:
            data[f"player_{i}"] = members[seat].pk
        else:
            data[f"player_{i}"] = seat
    data |= fields
    data = {key: wire(value) for key, value in data.items()}
    with fuzz_input("open table"), rolled_back():
        actor = world.organiser if by_organiser else world.anna
        login(client, actor)
        before = db_snapshot()
        response = client.post(f"/tables/new/{quote(game)}/", data)
        after = db_snapshot()

        assert response.status_code in (200, 302, 403, 404)
        if response.status_code in (403, 404):
            assert game not in ("preferans", "boston")
            assert after == before
            return
        if after != before:
            assert response.status_code == 302
            assert changed(before, after) == {"tables", "seats"}
            (table,) = Table.objects.exclude(pk__in=[row[0] for row in before["tables"]])
            assert response["Location"] == reverse("scoring:table_detail", args=[table.pk])
            assert table.game == game
            assert table.opened_by == actor
            seated = list(table.seats.values_list("member_id", flat=True))
            assert len(seated) in ((3, 4) if game == "preferans" else (4,))
            assert by_organiser or world.anna.pk in seated
            assert world.inactive.pk not in seated
            return
        assert response.status_code == 200
        assert shows_error(response.content.decode()), f"no message for {data!r}"


# -- import ----------------------------------------------------------------------------------


def exported(table: Table) -> dict[str, Any]:
    return json.loads(json.dumps(services.table_export(table)))


@fuzz(100)
@given(
    boston=st.booleans(),
    who=st.sampled_from(("player", "organiser", "stranger")),
    content=st.data(),
    game=st.one_of(st.sampled_from(("preferans", "boston")), hostile_scalar()),
    played_on=st.one_of(
        st.sampled_from(("", "2026-01-01", "1900-02-29", "9999-12-31", "0001-01-01")),
        hostile_scalar(),
    ),
)
def test_import_upload(
    client: Client,
    world: SimpleNamespace,
    boston: bool,
    who: str,
    content: st.DataObject,
    game: Any,
    played_on: Any,
) -> None:
    table = world.boston if boston else world.pulka
    upload = content.draw(upload_bytes(exported(table)))
    actor = {"player": world.anna, "organiser": world.organiser, "stranger": world.member}[who]
    data = {
        "record": SimpleUploadedFile("game.json", upload, "application/json"),
        "game": wire(game),
        "played_on": wire(played_on),
    }
    with fuzz_input("import"), rolled_back():
        login(client, actor)
        before = db_snapshot()
        response = client.post(reverse("scoring:table_import"), data)
        after = db_snapshot()

        assert response.status_code in (200, 302)
        if after != before:
            assert response.status_code == 302
            assert who != "stranger"
            (new,) = Table.objects.exclude(pk__in=[row[0] for row in before["tables"]])
            assert new.status == Table.FINISHED
            assert response["Location"] == reverse("scoring:table_detail", args=[new.pk])
            assert "import" in [row[2] for row in new_rows(before["audit"], after["audit"])]
            return
        assert response.status_code == 200
        assert shows_error(response.content.decode()), f"no message for {upload[:200]!r}"


@pytest.mark.parametrize("limit", [2**31, 2**63, 10**30], ids=["2**31", "2**63", "10**30"])
def test_import_refuses_a_double_tour_beyond_the_database(
    client: Client, world: SimpleNamespace, limit: int
) -> None:
    """Found by the fuzz: a 500 (OverflowError on SQLite from 2**63, 'integer out of range'
    on PostgreSQL from 2**31) when the table was saved."""
    record = exported(world.boston) | {"double_tour_from": limit}
    client.force_login(world.anna)
    before = db_snapshot()
    upload = SimpleUploadedFile("game.json", json.dumps(record).encode(), "application/json")
    response = client.post(reverse("scoring:table_import"), {"record": upload, "game": "boston"})
    assert response.status_code == 200
    assert "double_tour_from" in response.content.decode()
    assert db_snapshot() == before


def test_import_refuses_a_nul_character(client: Client, world: SimpleNamespace) -> None:
    """Found by the fuzz: a 500 on PostgreSQL, whose jsonb refuses \\u0000."""
    record = exported(world.pulka)
    record["deals"].append({"kind": "adjust", "reason": "a\x00b", "pool": {"Anna": 1}})
    client.force_login(world.anna)
    upload = SimpleUploadedFile("game.json", json.dumps(record).encode(), "application/json")
    before = db_snapshot()
    response = client.post(reverse("scoring:table_import"), {"record": upload, "game": "preferans"})
    assert response.status_code == 200
    assert "the text holds a NUL character" in response.content.decode()
    assert db_snapshot() == before


HUGE_INTEGER = "9" * 5000


def test_import_refuses_an_integer_of_5000_digits(client: Client, world: SimpleNamespace) -> None:
    """Found by the fuzz: json.loads raises a plain ValueError for an integer of more than
    4300 digits, which the record reader did not catch: a 500."""
    text = json.dumps(exported(world.pulka)).replace(
        '"pool_target": 10', f'"pool_target": {HUGE_INTEGER}'
    )
    client.force_login(world.anna)
    before = db_snapshot()
    upload = SimpleUploadedFile("game.json", text.encode(), "application/json")
    response = client.post(reverse("scoring:table_import"), {"record": upload, "game": "preferans"})
    assert response.status_code == 200
    assert shows_error(response.content.decode())
    assert db_snapshot() == before


# -- signing in, display names ---------------------------------------------------------------


@fuzz(60)
@given(
    username=st.one_of(st.sampled_from(("anna", "ANNA", "anna ", "ivan")), hostile_scalar()),
    password=st.one_of(st.just("wrong"), hostile_scalar()),
    next_url=st.one_of(
        st.sampled_from(("/tables/", "//evil.example/", "javascript:alert(1)")), hostile_scalar()
    ),
    drop=st.sets(st.sampled_from(("username", "password"))),
)
def test_sign_in_form(
    client: Client,
    world: SimpleNamespace,
    username: Any,
    password: Any,
    next_url: Any,
    drop: set[str],
) -> None:
    data = {"username": wire(username), "password": wire(password), "next": wire(next_url)}
    for name in drop:
        data.pop(name)
    with fuzz_input("sign-in"), rolled_back():
        client.logout()
        before = db_snapshot()
        response = client.post(reverse("members:login"), data)
        assert response.status_code in (200, 429)
        assert "_auth_user_id" not in client.session
        assert db_snapshot() == before
        html = response.content.decode()
        assert shows_error(html) or "Too many sign-in attempts" in html


@fuzz(50)
@given(name=form_value(("Boris", "Анна", "  padded  ", "x" * 60, "x" * 61)))
def test_display_name_form(client: Client, world: SimpleNamespace, name: Any) -> None:
    url = reverse("members:settings")
    with fuzz_input("display name"), rolled_back():
        login(client, world.anna)
        before = db_snapshot()
        response = client.post(url, {"display_name": wire(name)})
        after = db_snapshot()
        assert response.status_code in (200, 302)
        if response.status_code == 302:
            assert changed(before, after) <= {"members"}
            world.anna.refresh_from_db()
            assert len(world.anna.display_name) <= 60
            assert "\x00" not in world.anna.display_name
            return
        assert after == before
        assert shows_error(response.content.decode())


# -- the admin: tariff import, tariff edit, seasons --------------------------------------------


@pytest.fixture
def organiser_client() -> Client:
    """An organiser with staff, in the admin; no table is in play."""
    client = CountingClient()
    client.force_login(
        factories.member("Oleg", organiser=True, is_staff=True, username="oleg-staff")
    )
    return client


@fuzz(80)
@given(boston=st.booleans(), content=st.data(), name=form_value())
def test_tariff_import(
    organiser_client: Client, boston: bool, content: st.DataObject, name: Any
) -> None:
    model = BostonTariff if boston else PreferansTariff
    tariff = model.objects.order_by("pk").first()
    document = services.tariff_export(tariff) | {"name": "Новый"}
    upload = content.draw(upload_bytes(document))
    url = reverse(f"admin:scoring_{model._meta.model_name}_import")
    data = {"file": SimpleUploadedFile("t.json", upload, "application/json"), "name": wire(name)}
    with fuzz_input("tariff import"), rolled_back():
        before = db_snapshot()
        response = organiser_client.post(url, data)
        after = db_snapshot()
        assert response.status_code in (200, 302)
        if after != before:
            assert response.status_code == 302
            key = "boston" if boston else "preferans"
            assert changed(before, after) <= {
                f"{key}_tariffs",
                f"{key}_versions",
                "payment_rows",
                "card_rows",
            }
            created = new_rows(
                [(t["id"],) for t in before[f"{key}_tariffs"]],
                [(t["id"],) for t in after[f"{key}_tariffs"]],
            )
            assert len(created) == len(
                new_rows(before[f"{key}_versions"], after[f"{key}_versions"])
            )
            return
        assert response.status_code == 200
        assert shows_error(response.content.decode()), f"no message for {upload[:200]!r}"


def sochi_export() -> dict[str, Any]:
    document = services.tariff_export(PreferansTariff.objects.get(name="Сочи (Sochi)"))
    return json.loads(json.dumps(document)) | {"name": "Новый"}


def post_tariff_file(client: Client, content: bytes) -> Any:
    upload = SimpleUploadedFile("t.json", content, "application/json")
    return client.post(
        reverse("admin:scoring_preferanstariff_import"), {"file": upload, "name": ""}
    )


def with_rules(**changes: Any) -> Any:
    return lambda document: document | {"rules": document["rules"] | changes}


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d | {"name": "a\x00b"}, "name"),
        (lambda d: d | {"description": "a\x00b"}, "description"),
        # Found by the fuzz once its JSON spelled lone surrogates: a 500 on both databases
        # (UnicodeEncodeError), saving the tariff or sending a message that quoted one.
        (lambda d: d | {"name": "A\ud800"}, "name"),
        (lambda d: d | {"description": "x\udfffy"}, "description"),
        (lambda d: d | {"game": "\ud800"}, "game"),
        (with_rules(lone_whist="greedy\x00"), "rules.lone_whist"),
        (with_rules(passout_ladder=[1, "\ud800"]), "rules.passout_ladder[1]"),
        (with_rules(**{"contract_values\ud800": [2, 4]}), "'rules.contract_values\\ud800'"),
    ],
    ids=[
        "nul-in-name",
        "nul-in-description",
        "surrogate-in-name",
        "surrogate-in-description",
        "surrogate-as-game",
        "nul-in-a-setting",
        "surrogate-in-a-list-setting",
        "surrogate-in-a-settings-name",
    ],
)
def test_tariff_import_refuses_a_nul_or_a_lone_surrogate_anywhere(
    organiser_client: Client, change: Any, where: str
) -> None:
    """Found by the fuzz: a NUL was a 500 on PostgreSQL ("text fields cannot contain NUL"),
    a lone surrogate on both databases. Refused with the shared message, naming where."""
    before = db_snapshot()
    response = post_tariff_file(organiser_client, json.dumps(change(sochi_export())).encode())
    assert response.status_code == 200
    assert f"{BAD_TEXT} (at {escape(where)})" in response.content.decode()
    assert db_snapshot() == before


def test_tariff_import_names_the_other_games_page(organiser_client: Client) -> None:
    """A Boston file on the Preferans import says where it belongs (an unknown game is
    the service's "must be preferans or boston", without quoting what the file holds)."""
    document = sochi_export() | {"game": "boston"}
    response = post_tariff_file(organiser_client, json.dumps(document).encode())
    assert (
        "this is a boston tariff; import it on that game&#x27;s page." in response.content.decode()
    )
    response = post_tariff_file(organiser_client, json.dumps(document | {"game": "poker"}).encode())
    assert "game: must be &quot;preferans&quot; or &quot;boston&quot;" in response.content.decode()


NESTED_5000 = "[" * 5000 + "]" * 5000


def in_a_setting(setting: str, text: str) -> str:
    """Sochi's export with ``text`` (JSON no encoder writes) as the value of ``setting``."""
    return json.dumps(with_rules(**{setting: "@"})(sochi_export())).replace('"@"', text)


@pytest.mark.parametrize(
    "content",
    [
        lambda: HUGE_INTEGER,
        lambda: NESTED_5000,
        lambda: in_a_setting("pool_weight", HUGE_INTEGER),
        lambda: in_a_setting("passout_ladder", NESTED_5000),
    ],
    ids=[
        "integer-of-5000-digits",
        "nested-5000-deep",
        "integer-of-5000-digits-in-a-setting",
        "nested-5000-deep-in-a-setting",
    ],
)
def test_tariff_import_refuses_unreadable_json(organiser_client: Client, content: Any) -> None:
    """Found by the fuzz: only JSONDecodeError was caught, so a huge integer (ValueError)
    or deep nesting (RecursionError) was a 500, at the top or deep inside the settings."""
    before = db_snapshot()
    response = post_tariff_file(organiser_client, content().encode())
    assert response.status_code == 200
    assert "The file is not valid JSON" in response.content.decode()
    assert db_snapshot() == before


def admin_form(client: Client, url: str, form_id: str) -> dict[str, Any]:
    response = client.get(url)
    assert response.status_code == 200
    return form_fields(response.content.decode(), form_id)


@pytest.fixture
def tariff_forms(organiser_client: Client) -> dict[bool, tuple[Any, str, dict[str, Any]]]:
    """Each game's last tariff, its change URL and the form as the admin shows it."""
    forms = {}
    for boston, model in ((False, PreferansTariff), (True, BostonTariff)):
        tariff = model.objects.order_by("pk").last()
        url = reverse(f"admin:scoring_{model._meta.model_name}_change", args=[tariff.pk])
        form = admin_form(organiser_client, url, f"{model._meta.model_name}_form")
        forms[boston] = (tariff, url, form)
    return forms


@fuzz(30)
@given(boston=st.booleans(), edits=st.data())
def test_tariff_change_form(
    organiser_client: Client,
    tariff_forms: dict[bool, tuple[Any, str, dict[str, Any]]],
    boston: bool,
    edits: st.DataObject,
) -> None:
    """The tariff editor with hostile values in a few fields (no table in play under the
    tariff, so a save is saved at once)."""
    tariff, url, base = tariff_forms[boston]
    keys = tuple(k for k in base if not k.endswith(("-id", "-tariff")))
    data = edits.draw(mutated_form(base, keys, max_changes=3))
    with fuzz_input("tariff edit"), rolled_back():
        before = db_snapshot()
        response = organiser_client.post(url, {**data, "_save": "Save"})
        after = db_snapshot()
        assert response.status_code in (200, 302)
        if response.status_code == 302:  # saved: the same rows, at most a new version
            grown = {key: counts(after)[key] - n for key, n in counts(before).items()}
            assert all(n == 0 for key, n in grown.items() if not key.endswith("_versions"))
            assert all(n in (0, 1) for n in grown.values())
            tariff.refresh_from_db()
            # Through the engine: a version published before a setting existed lacks its key.
            assert tariff.current_version.has_rules(tariff.to_rules())
            return
        assert after == before
        assert shows_error(response.content.decode()), f"no message for {data!r}"


@pytest.mark.parametrize("initial", ["16", "0"], ids=["one-row-as-new", "all-rows-as-new"])
def test_a_tariffs_rows_cannot_be_added_by_the_management_form(
    organiser_client: Client,
    tariff_forms: dict[bool, tuple[Any, str, dict[str, Any]]],
    initial: str,
) -> None:
    """Found by the fuzz: with card_rows-INITIAL_FORMS lowered the admin inserted keyless
    rows: an 18th card row (INITIAL_FORMS=16, a 302) or an IntegrityError (0, a 500)."""
    _tariff, url, data = tariff_forms[True]
    before = db_snapshot()
    response = organiser_client.post(
        url, {**data, "card_rows-INITIAL_FORMS": initial, "_save": "Save"}
    )
    assert response.status_code == 200
    assert shows_error(response.content.decode())
    assert db_snapshot() == before


SEASON_FORM = {
    "name": "Next",
    "starts_on": "2030-01-01",
    "ends_on": "2030-03-31",
    "preferans_tariff": "",
    "boston_tariff": "",
    "min_games": "3",
    "ranking": "wins, money",
    # A league (issue 32): its rule, its nights and its numbers, typed as JSON.
    "league_rule": "places",
    "league_nights": "evenings",
    "place_points": "[3, 2, 0]",
    "sole_positive": "4",
    "second_negative": "1",
    "bands": "[[200, 1], [650, 0.1], [null, 0]]",
    "best_of": "8",
}


@fuzz(40)
@given(data=mutated_form(SEASON_FORM, tuple(SEASON_FORM), max_changes=3))
def test_season_form(organiser_client: Client, data: dict[str, Any]) -> None:
    with fuzz_input("season admin"), rolled_back():
        before = db_snapshot()
        response = organiser_client.post(
            reverse("admin:scoring_season_add"), {**data, "_save": "Save"}
        )
        after = db_snapshot()
        assert response.status_code in (200, 302)
        if response.status_code == 302:
            assert changed(before, after) == {"seasons"}
            assert Season.objects.count() == len(before["seasons"]) + 1
            return
        assert after == before
        assert shows_error(response.content.decode()), f"no message for {data!r}"


# -- manage.py score -------------------------------------------------------------------------


def example_records() -> list[Any]:
    return [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(EXAMPLES.glob("*.json"))
        if not path.name.endswith(".expected.json")
    ]


RECORD_TEXT = st.one_of(
    st.text(max_size=50),
    json_values.map(json.dumps),
    st.sampled_from(example_records()).flatmap(mutated_json).map(json.dumps),
    st.sampled_from(example_records()).flatmap(mutated_json).map(json.dumps).map(lambda s: s[:-3]),
    st.sampled_from(HOSTILE_TEXT).map(wire),
)


@fuzz(300)
@given(text=RECORD_TEXT)
def test_score_engine(text: str) -> None:
    """What ``manage.py score`` calls: a result document, or one clear RuleError."""
    with fuzz_input("score (engine)"):
        try:
            result = score_record(load(text))
        except RuleError as error:
            message = str(error)
            assert message.strip()
            assert "\n" not in message
            assert "Traceback" not in message
            return
        json.dumps(result, ensure_ascii=False)


@fuzz(80)
@given(text=RECORD_TEXT)
def test_score_command_in_process(text: str) -> None:
    """``manage.py score -`` itself, with standard input replaced: exit 2 and one line on
    standard error, or the result on standard output."""
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with fuzz_input("score (command)"), redirect_stderr(err):
            call_command("score", "-", stdout=out)
    except SystemExit as exit_:
        assert exit_.code == 2
        assert out.getvalue() == ""
        lines = err.getvalue().splitlines()
        assert len(lines) == 1
        assert lines[0].startswith("score: ")
        return
    finally:
        sys.stdin = stdin
    assert err.getvalue() == ""
    json.loads(out.getvalue())


def test_score_refuses_an_integer_of_5000_digits() -> None:
    """Found by the fuzz: a ValueError traceback and exit 1."""
    text = f'{{"format": "pulka/1", "game": "boston", "chip_price": {HUGE_INTEGER}}}'
    err = io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with redirect_stderr(err), pytest.raises(SystemExit) as exit_:
            call_command("score", "-", stdout=io.StringIO())
    finally:
        sys.stdin = stdin
    assert exit_.value.code == 2
    assert err.getvalue().startswith("score: not valid JSON")


KIND_LIST = {
    "format": "pulka/1",
    "game": "preferans",
    "players": ["Anna", "Boris", "Vera"],
    "deals": [{"kind": [], "tricks": {"Anna": 5, "Boris": 5, "Vera": 0}}],
}


@pytest.mark.parametrize("where", ["score", "import"])
def test_a_deal_kind_that_is_a_list_is_refused(
    client: Client, world: SimpleNamespace, where: str
) -> None:
    """Found by this fuzz (``kind not in DEAL_FIELDS`` raised TypeError), fixed in the
    engine: manage.py score and the import now refuse it with a message."""
    if where == "score":
        with pytest.raises(RuleError, match="kind"):
            score_record(KIND_LIST)
        return
    client.force_login(world.anna)
    before = db_snapshot()
    upload = SimpleUploadedFile("game.json", json.dumps(KIND_LIST).encode(), "application/json")
    response = client.post(reverse("scoring:table_import"), {"record": upload, "game": "preferans"})
    assert response.status_code == 200
    assert shows_error(response.content.decode())
    assert db_snapshot() == before


SUBPROCESS_INPUTS = {
    "empty": b"",
    "not-utf8": b"\xff\xfe{\x00",
    "nested": b"[" * 100_000 + b"]" * 100_000,
    "huge-number": json.dumps(
        {
            "format": "pulka/1",
            "game": "preferans",
            "players": ["A", "B", "C"],
            "pool_target": 10**30,
        }
    ).encode(),
    "unknown-player": json.dumps(
        {
            "format": "pulka/1",
            "game": "boston",
            "players": ["A", "B", "C", "D"],
            "deals": [{"kind": "pass"}, {"kind": "ask", "declarer": "Zoe", "tricks": 7}],
        }
    ).encode(),
}


@pytest.mark.parametrize("name", SUBPROCESS_INPUTS)
def test_score_command_subprocess(name: str) -> None:
    """A few real runs: the process exits 0 or 2, with no traceback."""
    with fuzz_input("score (subprocess)"):
        run = subprocess.run(
            [sys.executable, "manage.py", "score", "-"],
            cwd=ROOT,
            input=SUBPROCESS_INPUTS[name],
            capture_output=True,
            check=False,
            env={"PATH": "", "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"},
            timeout=60,
        )
        stderr = run.stderr.decode("utf-8", "replace")
        if "Traceback" in stderr:
            raise Crash(stderr)
    assert run.returncode == 2, stderr
    assert "Traceback" not in stderr
    assert stderr.startswith("score: ")
    assert len(stderr.strip().splitlines()) == 1
