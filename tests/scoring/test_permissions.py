"""Who may do what: one table of every page and every write against every role, each cell
its own test (``enter-deal[member]``).

``MATRIX`` below is the table; ``docs/permissions.md`` prints the same table (a test
checks that the two agree: change one, and ``test_the_doc_prints_the_matrix`` prints the
other's new text). What each cell means:

* ``ok`` — allowed: the page answers (200), or the write is made and answers its redirect
  (302) or its download; the test checks the write happened.
* ``403`` — refused outright; nothing changed.
* ``login`` — sent to the site's sign-in page (``/members/sign-in/?next=…``); nothing changed.
* ``admin`` — sent to the admin's sign-in page (``/admin/login/?next=…``); nothing changed.
* ``refused`` — the action is open to the role, but this request is refused with a message
  (on the page, or on the page the redirect leads to); nothing changed.
* ``404`` — the object is not found through this URL; nothing changed.

The roles: ``anonymous`` (not signed in), ``member`` (signed in, not at the table),
``seated`` (plays at the table), ``organiser`` (the Organisers group, not staff),
``org-staff`` (an organiser who is also staff: the admin needs both), ``staff`` (staff with
every scoring model permission, but not an organiser) and ``admin`` (a superuser).
"""

from __future__ import annotations

import datetime
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from members.models import Member
from scoring import services
from scoring.models import DealRecord, PreferansTariff, Season, Table
from tests import factories
from tests.factories import FIRST_GAME, HTMX, PASSOUT
from tests.fuzz_strategies import db_snapshot
from tests.html_forms import form_data as form_fields

ROLES = ("anonymous", "member", "seated", "organiser", "org-staff", "staff", "admin")
ROLE_TITLES = {
    "anonymous": "anonymous",
    "member": "member",
    "seated": "seated member",
    "organiser": "organiser",
    "org-staff": "organiser + staff",
    "staff": "staff, not organiser",
    "admin": "administrator",
}
CELL_WORDS = {
    "ok": "allowed",
    "403": "403",
    "login": "→ sign-in",
    "admin": "→ admin sign-in",
    "refused": "refused, says why",
    "404": "404",
}

# fmt: off
MATRIX: list[tuple[str, str]] = [
    # action                 anonymous member seated organiser org-staff staff admin
    # -- pages
    ("home",                 "ok      ok      ok      ok      ok      ok      ok"),
    ("home-private",         "ok      ok      ok      ok      ok      ok      ok"),
    ("rules",                "ok      ok      ok      ok      ok      ok      ok"),
    ("tables",               "ok      ok      ok      ok      ok      ok      ok"),
    ("table",                "ok      ok      ok      ok      ok      ok      ok"),
    ("live-sheet",           "ok      ok      ok      ok      ok      ok      ok"),
    ("print",                "ok      ok      ok      ok      ok      ok      ok"),
    ("sheet-png",            "ok      ok      ok      ok      ok      ok      ok"),
    ("sheet-png-boston",     "404     404     404     404     404     404     404"),
    ("export",               "ok      ok      ok      ok      ok      ok      ok"),
    ("tariffs",              "ok      ok      ok      ok      ok      ok      ok"),
    ("tariff-preferans",     "ok      ok      ok      ok      ok      ok      ok"),
    ("tariff-boston",        "ok      ok      ok      ok      ok      ok      ok"),
    # -- tables: opening, deals, corrections, finishing, import
    ("open-table-form",      "login   ok      ok      ok      ok      ok      ok"),
    ("open-table",           "login   refused ok      ok      ok      refused ok"),
    ("enter-deal",           "403     403     ok      ok      ok      403     ok"),
    ("preview-deal",         "403     403     ok      ok      ok      403     ok"),
    ("edit-deal-form",       "403     403     ok      ok      ok      403     ok"),
    ("edit-deal",            "403     403     ok      ok      ok      403     ok"),
    ("delete-deal",          "403     403     ok      ok      ok      403     ok"),
    ("undo",                 "403     403     ok      ok      ok      403     ok"),
    ("finish-complete",      "403     403     ok      ok      ok      403     ok"),
    ("close-early",          "403     403     refused ok      ok      403     ok"),
    ("finish-boston",        "403     403     ok      ok      ok      403     ok"),
    ("reopen",               "403     403     403     ok      ok      403     ok"),
    ("enter-deal-finished",  "403     403     refused refused refused 403     refused"),
    ("edit-deal-finished",   "403     403     403     403     403     403     403"),
    ("delete-deal-finished", "403     403     refused refused refused 403     refused"),
    ("undo-finished",        "403     403     refused refused refused 403     refused"),
    ("edit-other-tables-deal",   "403 403     404     404     404     403     404"),
    ("delete-other-tables-deal", "403 403     404     404     404     403     404"),
    ("import-form",          "login   ok      ok      ok      ok      ok      ok"),
    ("import",               "login   refused ok      ok      ok      refused ok"),
    # -- standings (STANDINGS_PUBLIC on, then off)
    ("seasons",              "ok      ok      ok      ok      ok      ok      ok"),
    ("season-board",         "ok      ok      ok      ok      ok      ok      ok"),
    ("season-csv",           "ok      ok      ok      ok      ok      ok      ok"),
    ("board",                "ok      ok      ok      ok      ok      ok      ok"),
    ("board-csv",            "ok      ok      ok      ok      ok      ok      ok"),
    ("seasons-private",      "login   ok      ok      ok      ok      ok      ok"),
    ("season-board-private", "login   ok      ok      ok      ok      ok      ok"),
    ("season-csv-private",   "login   ok      ok      ok      ok      ok      ok"),
    ("board-private",        "login   ok      ok      ok      ok      ok      ok"),
    ("board-csv-private",    "login   ok      ok      ok      ok      ok      ok"),
    # -- members
    ("member-page",          "ok      ok      ok      ok      ok      ok      ok"),
    ("own-display-name",     "403     ok      ok      ok      ok      ok      ok"),
    ("other-display-name",   "403     403     403     403     403     403     403"),
    ("sign-in-form",         "ok      ok      ok      ok      ok      ok      ok"),
    ("sign-in",              "ok      ok      ok      ok      ok      ok      ok"),
    ("sign-out",             "ok      ok      ok      ok      ok      ok      ok"),
    # -- the admin: tariffs, seasons, members
    ("admin-index",          "admin   admin   admin   admin   ok      ok      ok"),
    ("tariff-admin-list",    "admin   admin   admin   admin   ok      403     ok"),
    ("tariff-admin-page",    "admin   admin   admin   admin   ok      403     ok"),
    ("tariff-admin-edit",    "admin   admin   admin   admin   ok      403     ok"),
    ("tariff-admin-add-form", "admin  admin   admin   admin   ok      403     ok"),
    ("tariff-admin-add",     "admin   admin   admin   admin   ok      403     ok"),
    ("tariff-admin-copy",    "admin   admin   admin   admin   ok      403     ok"),
    ("tariff-admin-export",  "admin   admin   admin   admin   ok      403     ok"),
    ("tariff-admin-import-form", "admin admin admin   admin   ok      403     ok"),
    ("tariff-admin-import",  "admin   admin   admin   admin   ok      403     ok"),
    ("tariff-versions",      "admin   admin   admin   admin   ok      403     ok"),
    ("tariff-version-edit",  "admin   admin   admin   admin   403     403     403"),
    ("season-admin-list",    "admin   admin   admin   admin   ok      403     ok"),
    ("season-admin-add",     "admin   admin   admin   admin   ok      403     ok"),
    ("season-admin-edit",    "admin   admin   admin   admin   ok      403     ok"),
    ("season-admin-edit-past", "admin admin   admin   admin   403     403     403"),
    ("member-admin",         "admin   admin   admin   admin   403     403     ok"),
]
# fmt: on

CASES: list[tuple[str, str, str]] = [
    (action, role, expected)
    for action, cells in MATRIX
    for role, expected in zip(ROLES, cells.split(), strict=True)
]
"""The matrix as (action, role, expected) rows: one test case each."""


# -- the world each case runs in -------------------------------------------------------------

ANNA_6S = {  # preferans.md §12 example 1, as the deal log stores it
    "kind": "game",
    "declarer": "Anna",
    "contract": "6S",
    "answers": {"Boris": "whist", "Vera": "pass"},
    "tricks": {"Anna": 6, "Boris": 3, "Vera": 1},
}


@dataclass
class World:
    """Anna, Boris and Vera at an open pulka with one deal; the actor for the role (Anna
    herself when the role is ``seated``); whatever the action prepared."""

    role: str
    anna: Member
    boris: Member
    vera: Member
    table: Table
    deal: DealRecord
    actor: Member | None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, role: str) -> World:
        anna, boris, vera = (
            factories.member(name, username=name.lower()) for name in ("Anna", "Boris", "Vera")
        )
        table = factories.pulka([anna, boris, vera], pool_target=10)
        deal = services.deal_create(table, ANNA_6S, by=anna).record
        return cls(role, anna, boris, vera, table, deal, actor=_actor(role, anna))

    def refresh(self) -> None:
        self.table = Table.objects.get(pk=self.table.pk)

    def live_deals(self, table: Table | None = None) -> int:
        return DealRecord.objects.filter(table=table or self.table, deleted=False).count()


def _actor(role: str, anna: Member) -> Member | None:
    if role == "anonymous":
        return None
    if role == "seated":
        return anna
    if role == "member":
        return factories.member("Mila", username="mila")
    if role == "organiser":
        return factories.member("Olga", organiser=True, username="olga")
    if role == "org-staff":
        return factories.member("Oleg", organiser=True, is_staff=True, username="oleg")
    if role == "staff":
        staff = factories.member("Stas", is_staff=True, username="stas")
        staff.user_permissions.add(*Permission.objects.filter(content_type__app_label="scoring"))
        return staff
    assert role == "admin"
    return factories.member("Ada", is_staff=True, is_superuser=True, username="ada")


def _superuser_client() -> Client:
    """A second browser, signed in as a superuser, to read the admin's forms."""
    client = Client(headers={"accept-language": "en"})
    client.force_login(factories.member("Root", is_staff=True, is_superuser=True))
    return client


# -- the actions -----------------------------------------------------------------------------


Send = Callable[[Client, World], HttpResponse]


@dataclass(frozen=True)
class Action:
    """One row of the matrix: how to do it, and what "allowed" looks like."""

    label: str
    send: Send
    prepare: Callable[[World], None] = lambda w: None
    ok_status: int = 200
    writes: bool = False
    done: Callable[[World, HttpResponse], None] | None = None
    """For an allowed write: check the write happened."""
    refusal: str = ""
    """The message a ``refused`` cell shows."""
    public_standings: bool = True


ACTIONS: dict[str, Action] = {}


def action(name: str, label: str, **options: Any) -> Callable[[Send], Send]:
    def register(send: Send) -> Send:
        ACTIONS[name] = Action(label, send, **options)
        return send

    return register


def _get(name: str, *attributes: str) -> Send:
    """GET the page ``name``; its URL arguments are the world's objects called so."""

    def send(client: Client, w: World) -> HttpResponse:
        return client.get(reverse(name, args=[getattr(w, a).pk for a in attributes]))

    return send


def _url(name: str, *args: Any) -> str:
    return reverse(name, args=args)


# pages

action("home", "Home page — `GET /`")(_get("scoring:home"))


def _home_private(client: Client, w: World) -> HttpResponse:
    return client.get(_url("scoring:home"))


def _leaders_only_for_members(w: World, response: HttpResponse) -> None:
    shown = response.context.get("leaders") is not None
    assert shown == (w.actor is not None)


action(
    "home-private",
    "Home page with `STANDINGS_PUBLIC = False` (leaders hidden from anonymous visitors)",
    public_standings=False,
    done=_leaders_only_for_members,
)(_home_private)
action("rules", "Rules — `GET /rules/`")(_get("scoring:rules"))
action("tables", "Tables list — `GET /tables/`")(_get("scoring:table_list"))
action("table", "Table page — `GET /tables/<id>/`")(_get("scoring:table_detail", "table"))
action("live-sheet", "Live sheet — `GET /tables/<id>/live/`")(_get("scoring:table_live", "table"))
action("print", "Print — `GET /tables/<id>/print/`")(_get("scoring:table_print", "table"))
action("sheet-png", "The sheet as a picture — `GET /tables/<id>/sheet.png`")(
    _get("scoring:table_sheet_png", "table")
)
action("export", "Export (JSON) — `GET /tables/<id>/export/`")(
    _get("scoring:table_export", "table")
)
action("tariffs", "Tariff list — `GET /tariffs/`")(_get("scoring:tariff_list"))


@action("tariff-preferans", "Preferans tariff — `GET /tariffs/preferans/<id>/`")
def _tariff_preferans(client: Client, w: World) -> HttpResponse:
    return client.get(_url("scoring:preferans_tariff_detail", PreferansTariff.objects.first().pk))


@action("tariff-boston", "Boston tariff — `GET /tariffs/boston/<id>/`")
def _tariff_boston(client: Client, w: World) -> HttpResponse:
    version = factories.boston_version()
    return client.get(_url("scoring:boston_tariff_detail", version.tariff.pk))


# opening a table


action("open-table-form", "Open a table, the form — `GET /tables/new/<game>/`")(
    lambda client, w: client.get(_url("scoring:table_open", "preferans"))
)


def _open_table(client: Client, w: World) -> HttpResponse:
    """For Anna, Boris and Vera: the seated role (Anna) takes a seat, nobody else does."""
    w.extra["tables"] = Table.objects.count()
    players = [w.anna, w.boris, w.vera]
    return client.post(
        _url("scoring:table_open", "preferans"),
        {
            "version": factories.preferans_version().pk,
            "first_dealer": 0,
            "pool_target": 20,
            "price": "0.50",
            **{f"player_{i}": m.pk for i, m in enumerate(players)},
        },
    )


def _table_opened(w: World, response: HttpResponse) -> None:
    assert Table.objects.count() == w.extra["tables"] + 1
    table = Table.objects.order_by("pk").last()
    assert response["Location"] == _url("scoring:table_detail", table.pk)
    assert table.opened_by == w.actor


action(
    "open-table",
    "Open a table — `POST /tables/new/<game>/` (a seated member takes a seat; the others "
    "open it for three other members)",
    ok_status=302,
    writes=True,
    done=_table_opened,
    refusal="Open a table you play at",
)(_open_table)


# deals


def _post_deal(client: Client, w: World, data: dict[str, Any], **headers: Any) -> HttpResponse:
    url = _url("scoring:deal_create", w.table.pk)
    return client.post(url, {**data, "count": w.live_deals()}, **headers)


def _deal_added(w: World, response: HttpResponse) -> None:
    assert w.live_deals() == 2
    assert response["Location"] == _url("scoring:table_detail", w.table.pk)


action(
    "enter-deal",
    "Enter a deal — `POST /tables/<id>/deals/`",
    ok_status=302,
    writes=True,
    done=_deal_added,
)(lambda client, w: _post_deal(client, w, PASSOUT))


def _previewed(w: World, response: HttpResponse) -> None:
    assert "This deal will write" in response.content.decode()


action(
    "preview-deal",
    "Preview a deal (“Why these numbers?”) — `POST /tables/<id>/deals/` with `preview`",
    done=_previewed,
)(lambda client, w: _post_deal(client, w, {**PASSOUT, "preview": "1"}))

action("edit-deal-form", "Edit a deal, the form — `GET /tables/<id>/deals/<deal>/edit/`")(
    lambda client, w: client.get(_url("scoring:deal_edit", w.table.pk, w.deal.pk))
)


def _edit_deal(client: Client, w: World) -> HttpResponse:
    data = {**FIRST_GAME, "tricks:Anna": "5", "tricks:Boris": "4", "reason": "misread"}
    return client.post(_url("scoring:deal_edit", w.table.pk, w.deal.pk), data)


def _deal_edited(w: World, response: HttpResponse) -> None:
    w.deal.refresh_from_db()
    assert w.deal.data["tricks"]["Anna"] == 5


action(
    "edit-deal",
    "Edit a deal — `POST /tables/<id>/deals/<deal>/edit/`",
    ok_status=302,
    writes=True,
    done=_deal_edited,
)(_edit_deal)


def _delete_deal(client: Client, w: World) -> HttpResponse:
    url = _url("scoring:deal_delete", w.table.pk, w.deal.pk)
    return client.post(url, {"reason": "entered twice"})


def _deal_struck(w: World, response: HttpResponse) -> None:
    assert w.live_deals() == 0
    assert DealRecord.objects.filter(pk=w.deal.pk).exists()  # struck, kept in the history


action(
    "delete-deal",
    "Delete a deal — `POST /tables/<id>/deals/<deal>/delete/`",
    ok_status=302,
    writes=True,
    done=_deal_struck,
)(_delete_deal)
action(
    "undo",
    "Undo the last deal — `POST /tables/<id>/undo/`",
    ok_status=302,
    writes=True,
    done=_deal_struck,
)(lambda client, w: client.post(_url("scoring:deal_undo", w.table.pk)))


# finishing


def _complete_pulka(w: World) -> None:
    """Every pool at the target: the pulka is complete."""
    w.table = factories.pulka([w.anna, w.boris, w.vera], pool_target=1)
    pools = {"Anna": 1, "Boris": 1, "Vera": 1}
    services.deal_create(w.table, {"kind": "adjust", "reason": "pools", "pool": pools}, by=w.anna)


def _finish(client: Client, w: World) -> HttpResponse:
    return client.post(_url("scoring:table_finish", w.table.pk))


def _finished(w: World, response: HttpResponse) -> None:
    w.refresh()
    assert w.table.status == Table.FINISHED


def _open_still(w: World) -> None:
    w.refresh()
    assert w.table.is_open


action(
    "finish-complete",
    "Finish a complete pulka — `POST /tables/<id>/finish/`",
    prepare=_complete_pulka,
    ok_status=302,
    writes=True,
    done=_finished,
)(_finish)
action(
    "close-early",
    "Close a pulka early (pools still open) — `POST /tables/<id>/finish/`",
    ok_status=302,
    writes=True,
    done=_finished,
    refusal="only an organiser can close the pulka early",
)(_finish)


def _boston(w: World) -> None:
    gleb = factories.member("Gleb", username="gleb")
    w.table = factories.boston_table([w.anna, w.boris, w.vera, gleb])


action(
    "sheet-png-boston",
    "A Boston table's sheet as a picture (it has no drawing) — `GET /tables/<id>/sheet.png`",
    prepare=_boston,
)(_get("scoring:table_sheet_png", "table"))
action(
    "finish-boston",
    "Finish a Boston table — `POST /tables/<id>/finish/`",
    prepare=_boston,
    ok_status=302,
    writes=True,
    done=_finished,
)(_finish)


def _finish_first(w: World) -> None:
    services.table_finish(w.table, by=w.anna)
    w.refresh()


def _reopened(w: World, response: HttpResponse) -> None:
    w.refresh()
    assert w.table.is_open


action(
    "reopen",
    "Reopen a finished table — `POST /tables/<id>/reopen/`",
    prepare=_finish_first,
    ok_status=302,
    writes=True,
    done=_reopened,
)(lambda client, w: client.post(_url("scoring:table_reopen", w.table.pk), {"reason": "a deal"}))

FINISHED = "the table is finished"
action(
    "enter-deal-finished",
    "Enter a deal at a finished table (htmx) — `POST /tables/<id>/deals/`",
    prepare=_finish_first,
    refusal=FINISHED,
)(lambda client, w: _post_deal(client, w, PASSOUT, **HTMX))
action(
    "edit-deal-finished",
    "Edit a deal of a finished table — `GET /tables/<id>/deals/<deal>/edit/`",
    prepare=_finish_first,
)(lambda client, w: client.get(_url("scoring:deal_edit", w.table.pk, w.deal.pk)))
action(
    "delete-deal-finished",
    "Delete a deal of a finished table — `POST /tables/<id>/deals/<deal>/delete/`",
    prepare=_finish_first,
    refusal=FINISHED,
)(_delete_deal)
action(
    "undo-finished",
    "Undo at a finished table — `POST /tables/<id>/undo/`",
    prepare=_finish_first,
    refusal=FINISHED,
)(lambda client, w: client.post(_url("scoring:deal_undo", w.table.pk)))


def _other_table(w: World) -> None:
    other = factories.pulka()  # three other members
    names = [seat.name for seat in other.seats.order_by("position")]
    deal = {"kind": "passout", "tricks": dict(zip(names, (4, 3, 3), strict=True))}
    w.extra["other_deal"] = services.deal_create(other, deal, by=None).record


action(
    "edit-other-tables-deal",
    "Edit another table's deal through this table's URL — "
    "`GET /tables/<id>/deals/<other table's deal>/edit/`",
    prepare=_other_table,
)(lambda client, w: client.get(_url("scoring:deal_edit", w.table.pk, w.extra["other_deal"].pk)))
action(
    "delete-other-tables-deal",
    "Delete another table's deal through this table's URL — "
    "`POST /tables/<id>/deals/<other table's deal>/delete/`",
    prepare=_other_table,
)(
    lambda client, w: client.post(
        _url("scoring:deal_delete", w.table.pk, w.extra["other_deal"].pk), {"reason": "x"}
    )
)


# import

action("import-form", "Import a game record, the form — `GET /tables/import/`")(
    _get("scoring:table_import")
)


def _import(client: Client, w: World) -> HttpResponse:
    """The world's table exported, and brought back as a finished table."""
    w.extra["tables"] = Table.objects.count()
    record = json.dumps(services.table_export(w.table)).encode()
    upload = SimpleUploadedFile("game.json", record, "application/json")
    return client.post(_url("scoring:table_import"), {"record": upload, "game": "preferans"})


def _imported(w: World, response: HttpResponse) -> None:
    assert Table.objects.count() == w.extra["tables"] + 1
    table = Table.objects.order_by("pk").last()
    assert table.status == Table.FINISHED
    assert response["Location"] == _url("scoring:table_detail", table.pk)


action(
    "import",
    "Import a game record — `POST /tables/import/` (a seated member played in it; the "
    "others did not)",
    ok_status=302,
    writes=True,
    done=_imported,
    refusal="import a game you played in",
)(_import)


# standings


def _season(w: World) -> None:
    today = timezone.localdate()
    w.extra["season"] = Season.objects.create(
        name="Now",
        starts_on=today - datetime.timedelta(days=30),
        ends_on=today + datetime.timedelta(days=30),
    )


STANDINGS = {
    "seasons": ("Season list — `GET /seasons/`", lambda w: _url("scoring:season_list")),
    "season-board": (
        "Season leaderboard — `GET /seasons/<id>/<game>/`",
        lambda w: _url("scoring:season_standings", w.extra["season"].pk, "preferans"),
    ),
    "season-csv": (
        "Season leaderboard CSV — `GET /seasons/<id>/<game>.csv`",
        lambda w: _url("scoring:season_standings_csv", w.extra["season"].pk, "boston"),
    ),
    "board": (
        "All-time leaderboard — `GET /standings/<game>/`",
        lambda w: _url("scoring:standings", "preferans"),
    ),
    "board-csv": (
        "All-time leaderboard CSV — `GET /standings/<game>.csv`",
        lambda w: _url("scoring:standings_csv", "boston"),
    ),
}
for _name, (_label, _where) in STANDINGS.items():
    for _public in (True, False):
        action(
            _name if _public else f"{_name}-private",
            _label + ("" if _public else ", with `STANDINGS_PUBLIC = False`"),
            prepare=_season,
            public_standings=_public,
        )(lambda client, w, where=_where: client.get(where(w)))


# members

action("member-page", "A member's page — `GET /members/<username>/`")(
    lambda client, w: client.get(_url("members:detail", "boris"))
)


def _own_name(client: Client, w: World) -> HttpResponse:
    username = w.actor.username if w.actor else "anna"
    return client.post(_url("members:detail", username), {"display_name": "Новое имя"})


def _renamed(w: World, response: HttpResponse) -> None:
    assert w.actor is not None
    w.actor.refresh_from_db()
    assert w.actor.display_name == "Новое имя"


action(
    "own-display-name",
    "Change one's own display name — `POST /members/<own username>/` (anonymous: anyone's)",
    ok_status=302,
    writes=True,
    done=_renamed,
)(_own_name)
action(
    "other-display-name",
    "Change another member's display name — `POST /members/<username>/`",
    writes=True,
)(lambda client, w: client.post(_url("members:detail", "boris"), {"display_name": "Bob"}))
action("sign-in-form", "Sign-in page — `GET /members/sign-in/`")(_get("members:login"))


def _sign_in(client: Client, w: World) -> HttpResponse:
    username = w.actor.username if w.actor else "anna"
    return client.post(_url("members:login"), {"username": username, "password": "pw"})


def _signed_in(w: World, response: HttpResponse) -> None:
    assert response["Location"] == _url("scoring:home")


action(
    "sign-in",
    "Sign in — `POST /members/sign-in/` (with one's own password; anonymous: Anna's)",
    ok_status=302,
    done=_signed_in,
)(_sign_in)


def _signed_out(w: World, response: HttpResponse) -> None:
    assert response["Location"] == _url("scoring:home")


action("sign-out", "Sign out — `POST /members/sign-out/`", ok_status=302, done=_signed_out)(
    lambda client, w: client.post(_url("members:logout"))
)


# the admin


def _admin(name: str, *args: Any) -> str:
    return reverse(f"admin:{name}", args=args)


def _sochi() -> PreferansTariff:
    return PreferansTariff.objects.get(name="Сочи (Sochi)")


action("admin-index", "Admin index — `GET /admin/`")(lambda client, w: client.get(_admin("index")))
action("tariff-admin-list", "Tariff admin, list — `GET /admin/scoring/preferanstariff/`")(
    lambda client, w: client.get(_admin("scoring_preferanstariff_changelist"))
)
action("tariff-admin-page", "Tariff admin, a tariff — `GET …/preferanstariff/<id>/change/`")(
    lambda client, w: client.get(_admin("scoring_preferanstariff_change", _sochi().pk))
)


def _read_tariff_form(w: World) -> None:
    url = _admin("scoring_preferanstariff_change", _sochi().pk)
    html = _superuser_client().get(url).content.decode()
    w.extra["form"] = form_fields(html, "preferanstariff_form")


def _edit_tariff(client: Client, w: World) -> HttpResponse:
    data = {**w.extra["form"], "description": "house rule", "_save": "Save"}
    return client.post(_admin("scoring_preferanstariff_change", _sochi().pk), data)


def _tariff_edited(w: World, response: HttpResponse) -> None:
    assert _sochi().description == "house rule"


action(
    "tariff-admin-edit",
    "Tariff admin, save an edit — `POST …/preferanstariff/<id>/change/`",
    prepare=_read_tariff_form,
    ok_status=302,
    writes=True,
    done=_tariff_edited,
)(_edit_tariff)
action("tariff-admin-add-form", "Tariff admin, new tariff form — `GET …/preferanstariff/add/`")(
    lambda client, w: client.get(_admin("scoring_preferanstariff_add"))
)


def _read_add_form(w: World) -> None:
    html = _superuser_client().get(_admin("scoring_preferanstariff_add")).content.decode()
    w.extra["form"] = form_fields(html, "preferanstariff_form")


def _add_tariff(client: Client, w: World) -> HttpResponse:
    data = {**w.extra["form"], "name": "Домашний", "_save": "Save"}
    return client.post(_admin("scoring_preferanstariff_add"), data)


def _named_tariff(name: str) -> Callable[[World, HttpResponse], None]:
    def check(w: World, response: HttpResponse) -> None:
        assert PreferansTariff.objects.filter(name=name).exists()

    return check


action(
    "tariff-admin-add",
    "Tariff admin, add a tariff — `POST …/preferanstariff/add/`",
    prepare=_read_add_form,
    ok_status=302,
    writes=True,
    done=_named_tariff("Домашний"),
)(_add_tariff)


def _tariff_action(name: str) -> Send:
    def send(client: Client, w: World) -> HttpResponse:
        data = {"action": name, "_selected_action": [_sochi().pk], "index": "0"}
        return client.post(_admin("scoring_preferanstariff_changelist"), data)

    return send


action(
    "tariff-admin-copy",
    "Tariff admin, “Copy as new tariff” — `POST …/preferanstariff/` (action)",
    ok_status=302,
    writes=True,
    done=_named_tariff("Сочи (Sochi) (copy)"),
)(_tariff_action("copy_tariff"))


def _exported(w: World, response: HttpResponse) -> None:
    assert json.loads(response.content)["name"] == "Сочи (Sochi)"


action(
    "tariff-admin-export",
    "Tariff admin, “Export as JSON” — `POST …/preferanstariff/` (action)",
    done=_exported,
)(_tariff_action("export_json"))
action("tariff-admin-import-form", "Tariff admin, import form — `GET …/preferanstariff/import/`")(
    lambda client, w: client.get(_admin("scoring_preferanstariff_import"))
)


def _import_tariff(client: Client, w: World) -> HttpResponse:
    document = services.tariff_export(_sochi()) | {"name": "Импорт"}
    upload = SimpleUploadedFile("t.json", json.dumps(document).encode(), "application/json")
    return client.post(_admin("scoring_preferanstariff_import"), {"file": upload, "name": ""})


action(
    "tariff-admin-import",
    "Tariff admin, import — `POST …/preferanstariff/import/`",
    ok_status=302,
    writes=True,
    done=_named_tariff("Импорт"),
)(_import_tariff)
action(
    "tariff-versions",
    "Tariff versions (read-only) — `GET /admin/scoring/preferanstariffversion/`",
)(lambda client, w: client.get(_admin("scoring_preferanstariffversion_changelist")))


def _edit_version(client: Client, w: World) -> HttpResponse:
    version = factories.preferans_version()
    url = _admin("scoring_preferanstariffversion_change", version.pk)
    return client.post(url, {"number": "7", "_save": "Save"})


action(
    "tariff-version-edit",
    "Tariff versions, save an edit — `POST …/preferanstariffversion/<id>/change/`",
    writes=True,
)(_edit_version)
action("season-admin-list", "Season admin, list — `GET /admin/scoring/season/`")(
    lambda client, w: client.get(_admin("scoring_season_changelist"))
)

SEASON_FORM = {
    "name": "Next",
    "starts_on": "2030-01-01",
    "ends_on": "2030-03-31",
    "preferans_tariff": "",
    "boston_tariff": "",
    "min_games": "3",
    "ranking": "wins, money",
    "_save": "Save",
}


def _season_named(name: str) -> Callable[[World, HttpResponse], None]:
    def check(w: World, response: HttpResponse) -> None:
        assert Season.objects.filter(name=name).exists()

    return check


action(
    "season-admin-add",
    "Season admin, add — `POST /admin/scoring/season/add/`",
    ok_status=302,
    writes=True,
    done=_season_named("Next"),
)(lambda client, w: client.post(_admin("scoring_season_add"), SEASON_FORM))


def _edit_season(client: Client, w: World) -> HttpResponse:
    season = w.extra["season"]
    data = {
        **SEASON_FORM,
        "name": "Renamed",
        "starts_on": season.starts_on.isoformat(),
        "ends_on": season.ends_on.isoformat(),
    }
    return client.post(_admin("scoring_season_change", season.pk), data)


action(
    "season-admin-edit",
    "Season admin, edit a current season — `POST …/season/<id>/change/`",
    prepare=_season,
    ok_status=302,
    writes=True,
    done=_season_named("Renamed"),
)(_edit_season)


def _past_season(w: World) -> None:
    w.extra["season"] = Season.objects.create(
        name="2020", starts_on=datetime.date(2020, 1, 1), ends_on=datetime.date(2020, 6, 30)
    )


action(
    "season-admin-edit-past",
    "Season admin, edit a finished season — `POST …/season/<id>/change/`",
    prepare=_past_season,
    writes=True,
)(_edit_season)
action("member-admin", "Member admin — `GET /admin/members/member/`")(
    lambda client, w: client.get(_admin("members_member_changelist"))
)


# -- the test --------------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def _quiet_refusals() -> Iterator[None]:
    """Keep the log of the hundreds of 403s and 404s this table provokes off the console
    (an exception in a view still fails its case: the test client raises it)."""
    requests = logging.getLogger("django.request")
    level = requests.level
    requests.setLevel(logging.CRITICAL)
    yield
    requests.setLevel(level)


def _follow_message(client: Client, response: HttpResponse) -> str:
    """The page a refusal's redirect leads to (its message is shown there)."""
    return client.get(response["Location"]).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "role", "expected"),
    CASES,
    ids=[f"{name}[{role}]" for name, role, _expected in CASES],
)
def test_permission(client: Client, settings: Any, name: str, role: str, expected: str) -> None:
    spec = ACTIONS[name]
    settings.STANDINGS_PUBLIC = spec.public_standings
    world = World.build(role)
    spec.prepare(world)
    if world.actor is not None:
        client.force_login(world.actor)
    before = db_snapshot()

    response = spec.send(client, world)

    if expected == "ok":
        assert response.status_code == spec.ok_status, response.content[:500]
        assert (db_snapshot() != before) == spec.writes  # and a read writes nothing
        if spec.done is not None:
            spec.done(world, response)
        return
    assert db_snapshot() == before
    if expected == "403":
        assert response.status_code == 403
    elif expected == "404":
        assert response.status_code == 404
    elif expected == "login":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("members:login") + "?next=")
    elif expected == "admin":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login") + "?next=")
    else:
        assert expected == "refused"
        assert spec.refusal, f"{name}: say what the refusal reads"
        assert response.status_code in (200, 302)
        page = (
            _follow_message(client, response)
            if response.status_code == 302
            else response.content.decode()
        )
        assert spec.refusal in page


def test_every_action_is_in_the_matrix_once() -> None:
    names = [name for name, _cells in MATRIX]
    assert len(names) == len(set(names))
    assert set(names) == set(ACTIONS)
    assert all(len(cells.split()) == len(ROLES) for _name, cells in MATRIX)
    assert {cell for _n, cells in MATRIX for cell in cells.split()} <= set(CELL_WORDS)


def test_every_site_url_is_covered() -> None:
    """Each URL name of the site's own pages appears in some action (a new page needs a
    row)."""
    from members import urls as members_urls
    from scoring import urls as scoring_urls

    source = Path(__file__).read_text(encoding="utf-8")
    for module in (scoring_urls, members_urls):
        for pattern in module.urlpatterns:
            assert f'"{module.app_name}:{pattern.name}"' in source, pattern.name


# -- the document ------------------------------------------------------------------------------

DOC = Path(__file__).resolve().parents[2] / "docs" / "permissions.md"


def markdown_table() -> str:
    """The matrix as the Markdown table ``docs/permissions.md`` prints."""
    head = ["Action", *(ROLE_TITLES[r] for r in ROLES)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, cells in MATRIX:
        words = [CELL_WORDS[c] for c in cells.split()]
        lines.append(f"| {ACTIONS[name].label} <br>`{name}` | " + " | ".join(words) + " |")
    return "\n".join(lines) + "\n"


def test_the_doc_prints_the_matrix() -> None:
    table = markdown_table()
    text = DOC.read_text(encoding="utf-8")
    assert table in text, "docs/permissions.md is out of date; its table should be:\n\n" + table
