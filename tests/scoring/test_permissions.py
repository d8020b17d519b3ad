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

import base64
import copy
import datetime
import html
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import Permission
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from members.models import Member, PushSubscription
from scoring import services
from scoring.models import (
    AccountEntry,
    Attendance,
    AuditEntry,
    Club,
    DealRecord,
    Evening,
    EveningAnswer,
    EveningTable,
    Guest,
    HistoryImport,
    Penalty,
    PreferansTariff,
    Season,
    SeatChange,
    Table,
    Tournament,
)
from scoring.services import calendar as services_calendar
from scoring.services import evenings as services_evenings
from scoring.services import notices as services_notices
from scoring.services import tournaments as services_tournaments
from tests import factories
from tests.built_once import built_once
from tests.factories import FIRST_GAME, HTMX, PASSOUT
from tests.fuzz_strategies import db_fingerprint, db_snapshot
from tests.html_forms import form_data as form_fields
from tests.mailbox import NEW_PASSWORD, committed, only_mail

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
    ("app-manifest",         "ok      ok      ok      ok      ok      ok      ok"),
    ("service-worker",       "ok      ok      ok      ok      ok      ok      ok"),
    ("offline-page",         "ok      ok      ok      ok      ok      ok      ok"),
    ("tables",               "ok      ok      ok      ok      ok      ok      ok"),
    ("table",                "ok      ok      ok      ok      ok      ok      ok"),
    ("live-sheet",           "ok      ok      ok      ok      ok      ok      ok"),
    ("live-events",          "ok      ok      ok      ok      ok      ok      ok"),
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
    ("undo-form",            "403     403     ok      ok      ok      403     ok"),
    ("undo",                 "403     403     ok      ok      ok      403     ok"),
    ("finish-complete",      "403     403     ok      ok      ok      403     ok"),
    ("close-early-form",     "403     403     refused ok      ok      403     ok"),
    ("close-early",          "403     403     refused ok      ok      403     ok"),
    ("close-early-no-reason", "403    403     refused refused refused 403     refused"),
    ("close-early-no-count", "403     403     refused refused refused 403     refused"),
    ("finish-boston",        "403     403     ok      ok      ok      403     ok"),
    ("reopen",               "403     403     403     ok      ok      403     ok"),
    ("judge-page",           "login   403     403     ok      ok      403     ok"),
    ("swap-seats",           "403     403     403     ok      ok      403     ok"),
    ("swap-seats-no-reason", "403     403     403     refused refused 403     refused"),
    ("substitute",           "403     403     403     ok      ok      403     ok"),
    ("substitute-no-reason", "403     403     403     refused refused 403     refused"),
    ("mark-control-time-form", "403   403     ok      ok      ok      403     ok"),
    ("mark-control-time",    "403     403     ok      ok      ok      403     ok"),
    ("mark-control-time-again", "403  403     refused refused refused 403     refused"),
    ("mark-control-time-boston", "403 403     404     404     404     403     404"),
    ("clear-control-time",   "403     403     403     ok      ok      403     ok"),
    ("clear-control-time-no-reason", "403 403 403     refused refused 403     refused"),
    ("enter-deal-finished",  "403     403     refused refused refused 403     refused"),
    ("edit-deal-finished",   "403     403     403     403     403     403     403"),
    ("delete-deal-finished", "403     403     refused refused refused 403     refused"),
    ("undo-finished",        "403     403     refused refused refused 403     refused"),
    ("edit-other-tables-deal",   "403 403     404     404     404     403     404"),
    ("delete-other-tables-deal", "403 403     404     404     404     403     404"),
    ("import-form",          "login   ok      ok      ok      ok      ok      ok"),
    ("import",               "login   refused ok      ok      ok      refused ok"),
    ("accept-import",        "403     403     403     ok      ok      403     ok"),
    ("reject-import",        "403     403     403     ok      ok      403     ok"),
    ("accept-import-players", "403    403     ok      ok      ok      403     ok"),
    ("reject-import-players", "403    403     ok      ok      ok      403     ok"),
    ("confirm-table",        "403     403     ok      ok      ok      403     ok"),
    ("confirm-table-final",  "403     403     refused 403     403     403     403"),
    ("reopen-provisional",   "403     403     ok      ok      ok      403     ok"),
    ("reopen-confirmed",     "403     403     403     ok      ok      403     ok"),
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
    ("member-page-account",  "ok      ok      ok      ok      ok      ok      ok"),
    ("settings-form",        "login   ok      ok      ok      ok      ok      ok"),
    ("own-settings",         "login   ok      ok      ok      ok      ok      ok"),
    ("sign-in-form",         "ok      ok      ok      ok      ok      ok      ok"),
    ("sign-in",              "ok      ok      ok      ok      ok      ok      ok"),
    ("sign-out",             "ok      ok      ok      ok      ok      ok      ok"),
    # -- passwords: one's own, and the reset by e-mail
    ("password-change-form", "login   ok      ok      ok      ok      ok      ok"),
    ("password-change",      "login   ok      ok      ok      ok      ok      ok"),
    ("password-change-done", "login   ok      ok      ok      ok      ok      ok"),
    ("password-reset-form",  "ok      ok      ok      ok      ok      ok      ok"),
    ("password-reset",       "ok      ok      ok      ok      ok      ok      ok"),
    ("password-reset-sent",  "ok      ok      ok      ok      ok      ok      ok"),
    ("password-link",        "ok      ok      ok      ok      ok      ok      ok"),
    ("password-link-wrong",  "refused refused refused refused refused refused refused"),
    ("password-reset-complete", "ok   ok      ok      ok      ok      ok      ok"),
    # -- the organisers' members page
    ("members-page",         "login   403     403     ok      ok      403     ok"),
    ("invite",               "login   403     403     ok      ok      403     ok"),
    ("send-link",            "login   403     403     ok      ok      403     ok"),
    ("deactivate",           "login   403     403     ok      ok      403     ok"),
    ("deactivate-administrator", "login 403   403     refused refused 403     ok"),
    ("deactivate-oneself",   "login   403     403     refused refused 403     refused"),
    ("reactivate",           "login   403     403     ok      ok      403     ok"),
    ("clear-lockout",        "login   403     403     ok      ok      403     ok"),
    # -- the members' accounts: the organisers' cash book
    ("cash-book",            "login   403     403     ok      ok      403     ok"),
    ("top-up",               "login   403     403     ok      ok      403     ok"),
    ("refund",               "login   403     403     ok      ok      403     ok"),
    ("refund-past-balance",  "login   403     403     refused refused 403     refused"),
    ("correction",           "login   403     403     ok      ok      403     ok"),
    ("correction-no-reason", "login   403     403     refused refused 403     refused"),
    ("top-up-negative",      "login   403     403     refused refused 403     refused"),
    ("account-csv",          "login   403     403     ok      ok      403     ok"),
    ("settle-by-account",    "login   403     403     ok      ok      403     ok"),
    ("settle-by-account-short", "login 403    403     refused refused 403     refused"),
    ("shared-expense-form",  "login   403     403     ok      ok      403     ok"),
    ("shared-expense",       "login   403     403     ok      ok      403     ok"),
    ("shared-expense-stranger", "login 403    403     refused refused 403     refused"),
    ("guest-paid",           "login   403     403     ok      ok      403     ok"),
    ("guest-paid-twice",     "login   403     403     refused refused 403     refused"),
    ("guest-paid-no-table-money", "login 403  403     refused refused 403     refused"),
    # -- club evenings ("seated": checked in at the evening)
    ("evenings",             "ok      ok      ok      ok      ok      ok      ok"),
    ("evening",              "ok      ok      ok      ok      ok      ok      ok"),
    ("evening-create",       "login   403     403     ok      ok      403     ok"),
    ("check-in-self",        "login   ok      refused ok      ok      ok      ok"),
    ("check-in-other",       "login   403     403     ok      ok      403     ok"),
    ("check-out",            "login   403     ok      ok      ok      403     ok"),
    ("sits-out",             "login   403     ok      ok      ok      403     ok"),
    ("not-together",         "login   403     403     ok      ok      403     ok"),
    ("draw",                 "login   403     403     ok      ok      403     ok"),
    ("draw-five",            "login   403     403     refused refused 403     refused"),
    ("swap",                 "login   403     403     ok      ok      403     ok"),
    ("open-tables",          "login   403     403     ok      ok      403     ok"),
    ("open-tables-undrawn",  "login   403     403     refused refused 403     refused"),
    ("ledger",               "ok      ok      ok      ok      ok      ok      ok"),
    ("ledger-csv",           "ok      ok      ok      ok      ok      ok      ok"),
    ("mark-paid",            "login   403     ok      ok      ok      403     ok"),
    ("close-evening-form",   "login   403     403     ok      ok      403     ok"),
    ("close-evening",        "login   403     403     ok      ok      403     ok"),
    ("close-evening-in-play", "login  403     403     refused refused 403     refused"),
    ("check-in-guest",       "login   403     403     ok      ok      403     ok"),
    # -- evenings announced ahead: the calendar, answers, the iCal feeds
    ("calendar",             "ok      ok      ok      ok      ok      ok      ok"),
    ("calendar-private",     "login   ok      ok      ok      ok      ok      ok"),
    ("calendar-feed",        "ok      ok      ok      ok      ok      ok      ok"),
    ("calendar-feed-private", "403    ok      ok      ok      ok      ok      ok"),
    ("my-calendar-feed",     "ok      ok      ok      ok      ok      ok      ok"),
    ("my-calendar-feed-wrong", "404   404     404     404     404     404     404"),
    ("calendar-link",        "login   ok      ok      ok      ok      ok      ok"),
    ("evening-schedule",     "login   403     403     ok      ok      403     ok"),
    ("evening-schedule-one", "login   403     403     ok      ok      403     ok"),
    ("evening-schedule-past", "login  403     403     refused refused 403     refused"),
    ("answer",               "login   ok      ok      ok      ok      ok      ok"),
    ("answer-for-another",   "login   ok      ok      ok      ok      ok      ok"),
    ("answer-over",          "login   403     403     403     403     403     403"),
    ("check-in-answered",    "login   403     403     ok      ok      403     ok"),
    ("evening-cancel",       "login   403     403     ok      ok      403     ok"),
    ("evening-cancel-begun", "login   403     403     refused refused 403     refused"),
    # -- a member's own messages: his Telegram, his devices; a reminder's answer link
    ("telegram-link",        "login   ok      ok      ok      ok      ok      ok"),
    ("telegram-unlink",      "login   ok      ok      ok      ok      ok      ok"),
    ("telegram-webhook",     "ok      ok      ok      ok      ok      ok      ok"),
    ("telegram-webhook-wrong", "403   403     403     403     403     403     403"),
    ("push-subscribe",       "login   ok      ok      ok      ok      ok      ok"),
    ("push-unsubscribe",     "login   ok      ok      ok      ok      ok      ok"),
    ("answer-link",          "ok      ok      ok      ok      ok      ok      ok"),
    ("answer-link-over",     "403     403     403     403     403     403     403"),
    # -- guests: organisers merge a guest's history into a member
    ("guests",               "login   403     403     ok      ok      403     ok"),
    ("guest-merge",          "login   403     403     ok      ok      403     ok"),
    ("guest-merge-seated",   "login   403     403     refused refused 403     refused"),
    # -- tournaments ("seated": Anna, a judge of the tournament)
    ("tournaments",          "ok      ok      ok      ok      ok      ok      ok"),
    ("tournament",           "ok      ok      ok      ok      ok      ok      ok"),
    ("tournament-screen",    "ok      ok      ok      ok      ok      ok      ok"),
    ("tour-seating",         "ok      ok      ok      ok      ok      ok      ok"),
    ("tour-cards",           "ok      ok      ok      ok      ok      ok      ok"),
    ("tournament-csv",       "ok      ok      ok      ok      ok      ok      ok"),
    ("tour-protocol",        "ok      ok      ok      ok      ok      ok      ok"),
    ("tournament-protocol",  "ok      ok      ok      ok      ok      ok      ok"),
    ("tournament-enter",     "login   403     403     ok      ok      403     ok"),
    ("tournament-check-in",  "login   403     ok      ok      ok      403     ok"),
    ("tournament-check-in-self", "login ok    ok      ok      ok      ok      ok"),
    ("tournament-start",     "login   403     403     ok      ok      403     ok"),
    ("tournament-start-small", "login 403     403     refused refused 403     refused"),
    ("tour-seat",            "login   403     ok      ok      ok      403     ok"),
    ("tour-close",           "login   403     ok      ok      ok      403     ok"),
    ("tour-close-in-play",   "login   403     refused refused refused 403     refused"),
    ("tour-extra-time",      "login   403     ok      ok      ok      403     ok"),
    ("tour-close-provisional", "login 403     refused refused refused 403     refused"),
    ("tour-table-confirm",   "login   403     ok      ok      ok      403     ok"),
    ("tour-table-reopen-provisional", "403 403  ok      ok      ok      403     ok"),
    ("tour-table-reopen-closed", "403 403     refused refused refused 403     refused"),
    ("penalty-add",          "login   403     ok      ok      ok      403     ok"),
    ("penalty-add-no-reason", "login  403     refused refused refused 403     refused"),
    ("penalty-reverse",      "login   403     ok      ok      ok      403     ok"),
    ("cut-decide",           "login   403     ok      ok      ok      403     ok"),
    ("cut-decide-wrong-count", "login 403     refused refused refused 403     refused"),
    ("cut-decision-reverse", "login   403     ok      ok      ok      403     ok"),
    ("cup-judge-page",       "login   403     ok      ok      ok      403     ok"),
    ("cup-swap-seats",       "403     403     ok      ok      ok      403     ok"),
    ("tournament-admin-list", "admin  admin   admin   admin   ok      403     ok"),
    ("tournament-admin-page", "admin  admin   admin   admin   ok      403     ok"),
    # -- the paper history: organisers bring past results in from a CSV
    ("history-upload-form",  "login   403     403     ok      ok      403     ok"),
    ("history-dry-run",      "login   403     403     ok      ok      403     ok"),
    ("history-dry-run-refused", "login 403    403     refused refused 403     refused"),
    ("history-confirm",      "login   403     403     ok      ok      403     ok"),
    ("history-confirm-twice", "login  403     403     refused refused 403     refused"),
    ("history-template",     "login   403     403     ok      ok      403     ok"),
    ("history-members-dry-run", "login 403    403     ok      ok      403     ok"),
    ("history-members-refused", "login 403    403     refused refused 403     refused"),
    ("history-members-confirm", "login 403    403     ok      ok      403     ok"),
    ("history-table",        "ok      ok      ok      ok      ok      ok      ok"),
    ("history-table-reopen", "403     403     403     403     403     403     403"),
    ("history-table-export", "404     404     404     404     404     404     404"),
    ("history-import-admin-list", "admin admin admin admin  ok      403     ok"),
    ("history-import-admin-page", "admin admin admin admin  ok      403     ok"),
    ("history-import-admin-delete", "admin admin admin admin 403    403     403"),
    # -- the admin: tariffs, seasons, members, the club's name
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
    ("club-admin-page",      "admin   admin   admin   admin   ok      403     ok"),
    ("club-admin-edit",      "admin   admin   admin   admin   ok      403     ok"),
    ("table-admin-list",     "admin   admin   admin   admin   ok      403     ok"),
    ("table-admin-page",     "admin   admin   admin   admin   ok      403     ok"),
    ("table-admin-edit",     "admin   admin   admin   admin   403     403     403"),
]
# fmt: on


@dataclass(frozen=True)
class Cell:
    """One cell of the matrix: one test case. No two are equal (pytest would run the first
    in the other's place: ``test_permission``)."""

    role: str
    name: str
    expected: str


CELLS = [
    Cell(role, action, expected)
    for action, cells in MATRIX
    for role, expected in zip(ROLES, cells.split(), strict=True)
]
"""The matrix as cells, row by row."""
CELLS_BY_ROLE = sorted(CELLS, key=lambda cell: ROLES.index(cell.role))
"""The same cells, role by role (each role's in the matrix's order): the order they run in,
so that each role's world is built once (``base_world``)."""


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
    refusal_for: dict[str, str] = field(default_factory=dict)
    """A role's own refusal message, where it differs from ``refusal``."""
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
action("app-manifest", "The app's manifest — `GET /manifest.webmanifest`")(_get("scoring:manifest"))
action("service-worker", "The service worker — `GET /sw.js`")(_get("scoring:service_worker"))


def _offline_page(client: Client, w: World) -> HttpResponse:
    return client.get(_url("scoring:offline", "ru"))


action("offline-page", "The offline page — `GET /offline/<language>/`")(_offline_page)
action("tables", "Tables list — `GET /tables/`")(_get("scoring:table_list"))
action("table", "Table page — `GET /tables/<id>/`")(_get("scoring:table_detail", "table"))
action("live-sheet", "Live sheet — `GET /tables/<id>/live/`")(_get("scoring:table_live", "table"))
# Held by Pushpin for anyone who may see the table (its events say only its revision);
# asked of an app server directly, as here, it answers 204 (clubsite.events).
action("live-events", "A table's live events — `GET /events/tables/<id>/`", ok_status=204)(
    _get("events_table", "table")
)
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
    return client.post(url, {**data, **factories.drawn(w.table)}, **headers)


def _deal_added(w: World, response: HttpResponse) -> None:
    assert w.live_deals() == 2
    assert response["Location"] == _url("scoring:table_detail", w.table.pk) + "#deal-form"


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
    return client.post(
        _url("scoring:deal_edit", w.table.pk, w.deal.pk), {**data, **factories.drawn(w.table)}
    )


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
    return client.post(url, {"reason": "entered twice", **factories.drawn(w.table)})


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
    "undo-form",
    "Undo the last deal, the confirmation that names it — `GET /tables/<id>/undo/`",
)(lambda client, w: client.get(_url("scoring:deal_undo", w.table.pk)))
action(
    "undo",
    "Undo the last deal — `POST /tables/<id>/undo/`",
    ok_status=302,
    writes=True,
    done=_deal_struck,
)(lambda client, w: client.post(_url("scoring:deal_undo", w.table.pk), factories.drawn(w.table)))


# finishing


def _complete_pulka(w: World) -> None:
    """Every pool at the target: the pulka is complete."""
    w.table = factories.pulka([w.anna, w.boris, w.vera], pool_target=1)
    pools = {"Anna": 1, "Boris": 1, "Vera": 1}
    services.deal_create(w.table, {"kind": "adjust", "reason": "pools", "pool": pools}, by=w.anna)


def _finish(client: Client, w: World) -> HttpResponse:
    return client.post(_url("scoring:table_finish", w.table.pk), factories.drawn(w.table))


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
EARLY = "only an organiser can close the pulka early"
action(
    "close-early-form",
    "Close a pulka early, the confirmation page (pools still open) — `GET /tables/<id>/finish/`",
    refusal=EARLY,
)(lambda client, w: client.get(_url("scoring:table_finish", w.table.pk)))


def _closed_early(w: World, response: HttpResponse) -> None:
    _finished(w, response)
    assert w.table.audit.get(action=AuditEntry.CLOSE).reason == "the club closes"


action(
    "close-early",
    "Close a pulka early (pools still open), with a reason — `POST /tables/<id>/finish/`",
    ok_status=302,
    writes=True,
    done=_closed_early,
    refusal=EARLY,
)(
    lambda client, w: client.post(
        _url("scoring:table_finish", w.table.pk),
        {"reason": "the club closes", "counts": "yes", **factories.drawn(w.table)},
    )
)
action(
    "close-early-no-count",
    "Close a pulka early without saying whether it counts — `POST /tables/<id>/finish/`",
    refusal="Say whether the table counts in the standings",
    refusal_for={"seated": EARLY},
)(
    lambda client, w: client.post(
        _url("scoring:table_finish", w.table.pk),
        {"reason": "the club closes", **factories.drawn(w.table)},
    )
)
action(
    "close-early-no-reason",
    "Close a pulka early without a reason — `POST /tables/<id>/finish/`",
    refusal="Say why the table is closed early",
    refusal_for={"seated": EARLY},
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
)(
    lambda client, w: client.post(
        _url("scoring:table_reopen", w.table.pk), {"reason": "a deal", **factories.drawn(w.table)}
    )
)

# provisional, then final: the club's setting on, Anna's table finished (issue 32, item 6)


def _confirming(w: World) -> None:
    Club.objects.update_or_create(
        pk=Club.ONLY_PK, defaults={"confirm_tables": True, "confirm_minutes": 30}
    )
    _finish_first(w)


def _confirmed_by(count: int) -> Callable[[World, HttpResponse], None]:
    def done(w: World, response: HttpResponse) -> None:
        assert w.table.audit.filter(action=AuditEntry.CONFIRM).count() == count

    return done


def _window_passed(w: World) -> None:
    _confirming(w)
    Table.objects.filter(pk=w.table.pk).update(
        finished_at=timezone.now() - datetime.timedelta(minutes=31)
    )
    w.refresh()


def _post_at_table(name: str, data: dict[str, str] | None = None) -> Send:
    return lambda client, w: client.post(
        _url(name, w.table.pk), {**(data or {}), **factories.drawn(w.table)}
    )


action(
    "confirm-table",
    "Confirm a finished table's result (the club's setting on) — `POST /tables/<id>/confirm/`",
    prepare=_confirming,
    ok_status=302,
    writes=True,
    done=_confirmed_by(1),
)(_post_at_table("scoring:table_confirm"))
action(
    "confirm-table-final",
    "Confirm a table whose correction window has passed — `POST /tables/<id>/confirm/`",
    prepare=_window_passed,
    refusal="this table's result is final already",
)(_post_at_table("scoring:table_confirm"))
action(
    "reopen-provisional",
    "Reopen a provisional table, with a reason (the club's setting on) — "
    "`POST /tables/<id>/reopen/`",
    prepare=_confirming,
    ok_status=302,
    writes=True,
    done=_reopened,
)(_post_at_table("scoring:table_reopen", {"reason": "a deal"}))
action(
    "reopen-confirmed",
    "Reopen a table its correction window made final — `POST /tables/<id>/reopen/`",
    prepare=_window_passed,
    ok_status=302,
    writes=True,
    done=_reopened,
)(_post_at_table("scoring:table_reopen", {"reason": "a deal"}))

# the control time (preferans.md §13.12)


def _control_time_url(w: World) -> str:
    return _url("scoring:control_time_mark", w.table.pk)


def _marked(w: World, response: HttpResponse) -> None:
    w.refresh()
    assert w.table.control_time_deal == 1  # the one deal on the sheet
    assert w.table.audit.filter(action=AuditEntry.MARK).count() == 1


def _mark_first(w: World) -> None:
    services.control_time_mark(w.table, by=w.anna)
    w.refresh()


action(
    "mark-control-time-form",
    "Mark the control time (the last round), the confirmation page — "
    "`GET /tables/<id>/control-time/`",
)(lambda client, w: client.get(_control_time_url(w)))
action(
    "mark-control-time",
    "Mark the control time (the last round) — `POST /tables/<id>/control-time/`",
    ok_status=302,
    writes=True,
    done=_marked,
)(lambda client, w: client.post(_control_time_url(w), factories.drawn(w.table)))
action(
    "mark-control-time-again",
    "Mark the control time when it is marked already — `POST /tables/<id>/control-time/`",
    prepare=_mark_first,
    refusal="The control time is marked already",
)(lambda client, w: client.post(_control_time_url(w), factories.drawn(w.table)))
action(
    "mark-control-time-boston",
    "Mark the control time at a Boston table (it has none) — `GET /tables/<id>/control-time/`",
    prepare=_boston,
)(lambda client, w: client.get(_control_time_url(w)))


def _clear_control_time(client: Client, w: World, reason: str) -> HttpResponse:
    return client.post(
        _url("scoring:control_time_clear", w.table.pk),
        {"reason": reason, **factories.drawn(w.table)},
    )


def _cleared(w: World, response: HttpResponse) -> None:
    w.refresh()
    assert w.table.control_time_deal is None
    assert w.table.audit.get(action=AuditEntry.UNMARK).reason == "pressed by mistake"


action(
    "clear-control-time",
    "Clear the control-time mark, with a reason — `POST /tables/<id>/control-time/clear/`",
    prepare=_mark_first,
    ok_status=302,
    writes=True,
    done=_cleared,
)(lambda client, w: _clear_control_time(client, w, "pressed by mistake"))
action(
    "clear-control-time-no-reason",
    "Clear the control-time mark without a reason — `POST /tables/<id>/control-time/clear/`",
    prepare=_mark_first,
    refusal="Say why the control-time mark is cleared",
)(lambda client, w: _clear_control_time(client, w, " "))


def _swap_seats(client: Client, w: World, reason: str, table: Table | None = None) -> HttpResponse:
    table = table or w.table
    return client.post(
        _url("scoring:table_seats_swap", table.pk),
        {"first": "0", "second": "1", "reason": reason, **factories.drawn(table)},
    )


def _swapped(w: World, response: HttpResponse, table: Table | None = None) -> None:
    table = table or w.table
    assert response["Location"] == _url("scoring:table_detail", table.pk)
    assert AuditEntry.objects.filter(table=table, action=AuditEntry.SWAP).count() == 1


action("judge-page", "The judge's page of a table — `GET /tables/<id>/judge/`")(
    _get("scoring:table_judge", "table")
)
action(
    "swap-seats",
    "Swap two seats and replay the record — `POST /tables/<id>/judge/swap/`",
    ok_status=302,
    writes=True,
    done=_swapped,
)(lambda client, w: _swap_seats(client, w, "they sat the other way round"))
action(
    "swap-seats-no-reason",
    "Swap two seats without a reason — `POST /tables/<id>/judge/swap/`",
    refusal="say why (the history keeps it)",
)(lambda client, w: _swap_seats(client, w, " "))


def _substitute(client: Client, w: World, reason: str) -> HttpResponse:
    return client.post(
        _url("scoring:table_seat_substitute", w.table.pk),
        {"position": "0", "guest": "Dima", "reason": reason, **factories.drawn(w.table)},
    )


def _substituted(w: World, response: HttpResponse) -> None:
    assert response["Location"] == _url("scoring:table_detail", w.table.pk)
    assert SeatChange.objects.filter(table=w.table, position=0).count() == 1


action(
    "substitute",
    "Seat a substitute from the next deal — `POST /tables/<id>/judge/substitute/`",
    ok_status=302,
    writes=True,
    done=_substituted,
)(lambda client, w: _substitute(client, w, "he left for his train"))
action(
    "substitute-no-reason",
    "Seat a substitute without a reason — `POST /tables/<id>/judge/substitute/`",
    refusal="say why (the history keeps it)",
)(lambda client, w: _substitute(client, w, " "))

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
)(lambda client, w: client.post(_url("scoring:deal_undo", w.table.pk), factories.drawn(w.table)))


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
        _url("scoring:deal_delete", w.table.pk, w.extra["other_deal"].pk),
        {"reason": "x", **factories.drawn(w.table)},
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


def _imported_table(w: World, *, players: bool = False) -> None:
    """The world's table finished, and a record of the same game with Boris and Vera
    swapped imported by Anna: a finished table awaiting acceptance (``players``: where
    the club lets the members seated at it accept it)."""
    if players:
        club = Club.load()
        club.import_acceptance = Club.PLAYERS
        club.save()
    services.table_finish(w.table, by=w.anna)
    record = services.table_export(w.table)
    record["players"] = ["Anna", "Vera", "Boris"]
    record["members"] = ["anna", "vera", "boris"]
    w.table = services.table_import(
        record, version=w.table.version, members=[w.anna, w.vera, w.boris], by=w.anna
    )


def _decide(decision: str) -> Send:
    def send(client: Client, w: World) -> HttpResponse:
        return client.post(
            _url("scoring:table_decide", w.table.pk),
            {"decision": decision, **factories.drawn(w.table)},
        )

    return send


def _standing_is(standing: str) -> Callable[[World, HttpResponse], None]:
    def done(w: World, response: HttpResponse) -> None:
        w.refresh()
        assert w.table.standing == standing
        assert response["Location"] == _url("scoring:table_detail", w.table.pk)

    return done


action(
    "accept-import",
    "Accept an imported record for the standings (the club's setting: an organiser) — "
    "`POST /tables/<id>/decide/`",
    prepare=_imported_table,
    ok_status=302,
    writes=True,
    done=_standing_is(Table.COUNTED),
)(_decide("accept"))
action(
    "reject-import",
    "Reject an imported record (the club's setting: an organiser) — `POST /tables/<id>/decide/`",
    prepare=_imported_table,
    ok_status=302,
    writes=True,
    done=_standing_is(Table.REJECTED),
)(_decide("reject"))
action(
    "accept-import-players",
    "Accept an imported record (the club's setting: every member seated at it; a seated "
    "member's acceptance is one of three) — `POST /tables/<id>/decide/`",
    prepare=lambda w: _imported_table(w, players=True),
    ok_status=302,
    writes=True,
)(_decide("accept"))
action(
    "reject-import-players",
    "Reject an imported record (the club's setting: every member seated at it) — "
    "`POST /tables/<id>/decide/`",
    prepare=lambda w: _imported_table(w, players=True),
    ok_status=302,
    writes=True,
    done=_standing_is(Table.REJECTED),
)(_decide("reject"))


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


def _anna_has_an_entry(w: World) -> None:
    AccountEntry.objects.create(
        member=w.anna, kind="top_up", amount=Decimal("12.50"), recorded_by=w.boris
    )


def _account_only_for_anna_and_organisers(w: World, response: HttpResponse) -> None:
    html = response.content.decode()
    sees = w.role in ("seated", "organiser", "org-staff", "admin")  # Anna herself is "seated"
    assert ("Account with the club" in html) == sees
    assert ("12.50" in html) == sees


action(
    "member-page-account",
    "Anna's page, her account with the club on it for herself and the organisers only — "
    "`GET /members/<username>/`",
    prepare=_anna_has_an_entry,
    done=_account_only_for_anna_and_organisers,
)(lambda client, w: client.get(_url("members:detail", "anna")))


action("settings-form", "Own settings, the form — `GET /members/settings/`")(
    _get("members:settings")
)


def _own_settings(client: Client, w: World) -> HttpResponse:
    data = {"display_name": "Новое имя", "email_table_finished": "on"}
    return client.post(_url("members:settings"), data)


def _renamed(w: World, response: HttpResponse) -> None:
    assert w.actor is not None
    w.actor.refresh_from_db()
    assert (w.actor.display_name, w.actor.email_evening_summary) == ("Новое имя", False)
    assert response["Location"] == _url("members:settings")


action(
    "own-settings",
    "Change one's own display name, e-mail and e-mail choices — `POST /members/settings/` "
    "(no username in the URL: only the signed-in member's)",
    ok_status=302,
    writes=True,
    done=_renamed,
)(_own_settings)
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


# passwords

action("password-change-form", "Change one's password, the form — `GET /members/password/`")(
    _get("members:password_change")
)


def _change_password(client: Client, w: World) -> HttpResponse:
    data = {"old_password": "pw", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    return client.post(_url("members:password_change"), data)


def _password_changed(w: World, response: HttpResponse) -> None:
    assert w.actor is not None
    w.actor.refresh_from_db()
    assert w.actor.check_password(NEW_PASSWORD)
    assert response["Location"] == _url("members:password_change_done")


action(
    "password-change",
    "Change one's password — `POST /members/password/`",
    ok_status=302,
    writes=True,
    done=_password_changed,
)(_change_password)
action("password-change-done", "Password changed — `GET /members/password/done/`")(
    _get("members:password_change_done")
)
action("password-reset-form", "Reset a password, the form — `GET /members/password-reset/`")(
    _get("members:password_reset")
)


def _boris_has_an_address(w: World) -> None:
    w.boris.email = "boris@club.example"
    w.boris.save()


def _ask_for_a_link(client: Client, w: World) -> HttpResponse:
    with committed():
        return client.post(_url("members:password_reset"), {"email": "boris@club.example"})


def _link_mailed(w: World, response: HttpResponse) -> None:
    assert response["Location"] == _url("members:password_reset_done")
    assert only_mail().to == ["boris@club.example"]


action(
    "password-reset",
    "Reset a password — `POST /members/password-reset/` (Boris's address: a link is "
    "mailed to him, whoever asks)",
    prepare=_boris_has_an_address,
    ok_status=302,
    done=_link_mailed,
)(_ask_for_a_link)
action("password-reset-sent", "Reset asked for — `GET /members/password-reset/sent/`")(
    _get("members:password_reset_done")
)


def _borises_link(w: World, token: str | None = None) -> str:
    uid = urlsafe_base64_encode(force_bytes(w.boris.pk))
    token = token or default_token_generator.make_token(w.boris)
    return _url("members:password_reset_confirm", uid, token)


def _use_the_link(client: Client, w: World) -> HttpResponse:
    opened = client.get(_borises_link(w))
    assert opened.status_code == 302
    data = {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    return client.post(opened["Location"], data)


def _borises_password_set(w: World, response: HttpResponse) -> None:
    w.boris.refresh_from_db()
    assert w.boris.check_password(NEW_PASSWORD)
    assert response["Location"] == _url("members:password_reset_complete")


action(
    "password-link",
    "Set a password through the e-mailed link — `GET`, then `POST "
    "/members/password-reset/<uid>/<token>/` (Boris's link, whoever holds it)",
    ok_status=302,
    writes=True,
    done=_borises_password_set,
)(_use_the_link)
action(
    "password-link-wrong",
    "The same with a wrong or spent token — `GET /members/password-reset/<uid>/<token>/`",
    refusal="The link no longer works",
)(lambda client, w: client.get(_borises_link(w, "spent-token"), follow=True))
action("password-reset-complete", "Password set — `GET /members/password-reset/done/`")(
    _get("members:password_reset_complete")
)


# the organisers' members page

action("members-page", "The club's members — `GET /members/manage/`")(_get("members:manage"))


def _invite(client: Client, w: World) -> HttpResponse:
    data = {"username": "mila", "display_name": "Мила", "email": "mila@club.example"}
    with committed():
        return client.post(_url("members:invite"), data)


def _invited(w: World, response: HttpResponse) -> None:
    mila = Member.objects.get(username="mila")
    assert not mila.has_usable_password()
    assert only_mail().to == ["mila@club.example"]


action(
    "invite",
    "Invite a member — `POST /members/manage/invite/`",
    ok_status=302,
    writes=True,
    done=_invited,
)(_invite)


def _boris_invited(w: World) -> None:
    _boris_has_an_address(w)
    w.boris.set_unusable_password()
    w.boris.save()


def _send_link(client: Client, w: World) -> HttpResponse:
    with committed():
        return client.post(_url("members:send_link", "boris"))


def _link_sent(w: World, response: HttpResponse) -> None:
    assert only_mail().to == ["boris@club.example"]


action(
    "send-link",
    "Send the invitation's link again — `POST /members/manage/<username>/send-link/` "
    "(Boris has no password yet)",
    prepare=_boris_invited,
    ok_status=302,
    done=_link_sent,
)(_send_link)


def _activity(username: str, *, active: bool) -> Callable[[World, HttpResponse], None]:
    def check(w: World, response: HttpResponse) -> None:
        assert Member.objects.get(username=username).is_active is active

    return check


action(
    "deactivate",
    "Deactivate a member — `POST /members/manage/<username>/deactivate/` (Boris)",
    ok_status=302,
    writes=True,
    done=_activity("boris", active=False),
)(lambda client, w: client.post(_url("members:deactivate", "boris")))


def _another_administrator(w: World) -> None:
    factories.member("Root", is_staff=True, is_superuser=True, username="root")


action(
    "deactivate-administrator",
    "Deactivate an administrator — `POST /members/manage/<username>/deactivate/` (another "
    "superuser)",
    prepare=_another_administrator,
    ok_status=302,
    writes=True,
    done=_activity("root", active=False),
    refusal="Only an administrator can deactivate or reactivate an administrator.",
)(lambda client, w: client.post(_url("members:deactivate", "root")))
action(
    "deactivate-oneself",
    "Deactivate oneself — `POST /members/manage/<own username>/deactivate/` (anonymous: Anna's)",
    writes=True,
    refusal="You cannot deactivate or reactivate yourself.",
)(
    lambda client, w: client.post(
        _url("members:deactivate", w.actor.username if w.actor else "anna")
    )
)


def _boris_deactivated(w: World) -> None:
    Member.objects.filter(pk=w.boris.pk).update(is_active=False)


action(
    "reactivate",
    "Reactivate a member — `POST /members/manage/<username>/reactivate/` (Boris)",
    prepare=_boris_deactivated,
    ok_status=302,
    writes=True,
    done=_activity("boris", active=True),
)(lambda client, w: client.post(_url("members:reactivate", "boris")))


def _boris_locked_out(w: World) -> None:
    """Five wrong passwords for Boris from another address (AXES_FAILURE_LIMIT)."""
    elsewhere = Client(REMOTE_ADDR="10.0.0.9")
    for _ in range(5):
        elsewhere.post(_url("members:login"), {"username": "boris", "password": "wrong"})
    assert AccessAttempt.objects.filter(username="boris").exists()


def _lockout_cleared(w: World, response: HttpResponse) -> None:
    assert not AccessAttempt.objects.filter(username="boris").exists()


action(
    "clear-lockout",
    "Clear a sign-in lockout — `POST /members/manage/<username>/unlock/` (Boris)",
    prepare=_boris_locked_out,
    ok_status=302,
    writes=True,
    done=_lockout_cleared,
)(lambda client, w: client.post(_url("members:unlock", "boris")))


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
    "table_money": "0.00",
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
action(
    "club-admin-page", "Club admin, the name and introduction — `GET /admin/scoring/club/1/change/`"
)(lambda client, w: client.get(_admin("scoring_club_change", 1)))


action(
    "table-admin-list",
    "Table admin, the list (read-only: which tables count) — `GET /admin/scoring/table/`",
)(lambda client, w: client.get(_admin("scoring_table_changelist") + "?standing__exact=pending"))
action("table-admin-page", "Table admin, a table — `GET …/table/<id>/change/`")(
    lambda client, w: client.get(_admin("scoring_table_change", w.table.pk))
)
action(
    "table-admin-edit",
    "Table admin, save an edit (none: the site writes tables) — `POST …/table/<id>/change/`",
)(
    lambda client, w: client.post(
        _admin("scoring_table_change", w.table.pk), {"status": "finished", "standing": "counted"}
    )
)


def _read_club_form(w: World) -> None:
    html = _superuser_client().get(_admin("scoring_club_change", 1)).content.decode()
    w.extra["form"] = form_fields(html, "club_form")


def _rename_club(client: Client, w: World) -> HttpResponse:
    data = {**w.extra["form"], "name": "Клуб «Семь пик»", "_save": "Save"}
    return client.post(_admin("scoring_club_change", 1), data)


def _club_renamed(w: World, response: HttpResponse) -> None:
    assert Club.objects.get().name == "Клуб «Семь пик»"


action(
    "club-admin-edit",
    "Club admin, rename the club — `POST …/club/1/change/`",
    prepare=_read_club_form,
    ok_status=302,
    writes=True,
    done=_club_renamed,
)(_rename_club)


# club evenings


def _evening(w: World) -> None:
    """An evening run by Irina, an organiser, with Anna, Boris and Vera checked in."""
    irina = factories.member("Irina", organiser=True, username="irina")
    evening = Evening.objects.create(organiser=irina, played_on=w.table.played_on)
    for m in (w.anna, w.boris, w.vera):
        Attendance.objects.create(evening=evening, member=m)
    w.extra["evening"] = evening


def _evening_url(name: str) -> Callable[[World], str]:
    return lambda w: _url(name, w.extra["evening"].pk)


def _evening_post(name: str, data: Callable[[World], dict[str, Any]]) -> Send:
    return lambda client, w: client.post(_evening_url(name)(w), data(w))


def _evening_get(name: str) -> Send:
    return lambda client, w: client.get(_evening_url(name)(w))


def _evenings_created(w: World, response: HttpResponse) -> None:
    evening = Evening.objects.get()
    assert response["Location"] == _url("scoring:evening_detail", evening.pk)
    assert evening.organiser == w.actor


def _here(*names: str) -> Callable[[World, HttpResponse], None]:
    def done(w: World, response: HttpResponse) -> None:
        here = w.extra["evening"].attendances.values_list("member__display_name", flat=True)
        assert sorted(here) == sorted(names)

    return done


def _gleb(w: World) -> None:
    _evening(w)
    w.extra["gleb"] = factories.member("Gleb", username="gleb")


def _self(w: World) -> dict[str, Any]:
    return {"member": w.actor.pk if w.actor else w.anna.pk}


def _checked_in_self(w: World, response: HttpResponse) -> None:
    assert w.extra["evening"].attendances.filter(member=w.actor).exists()


def _drawn(w: World) -> None:
    _evening(w)
    w.extra["draft"] = services_evenings.evening_draw(evening=w.extra["evening"], seed=7).draft


def _five(w: World) -> None:
    _evening(w)
    for name in ("Gleb", "Dina"):
        Attendance.objects.create(evening=w.extra["evening"], member=factories.member(name))


def _draft_of(w: World) -> list[Any]:
    return Evening.objects.get(pk=w.extra["evening"].pk).draft or []


def _draft_made(w: World, response: HttpResponse) -> None:
    assert len(_draft_of(w)) == 1
    assert Evening.objects.get(pk=w.extra["evening"].pk).seed == 7


def _draft_swapped(w: World, response: HttpResponse) -> None:
    (table,) = w.extra["draft"]
    players = list(table["players"])
    i, j = players.index(f"m{w.anna.pk}"), players.index(f"m{w.boris.pk}")
    players[i], players[j] = players[j], players[i]
    assert _draft_of(w) == [{"players": players, "first_dealer": table["first_dealer"]}]


def _opened(w: World, response: HttpResponse) -> None:
    table = EveningTable.objects.get(evening=w.extra["evening"]).table
    assert set(table.seats.values_list("member", flat=True)) == {w.anna.pk, w.boris.pk, w.vera.pk}
    assert table.opened_by == w.actor


def _ledger_evening(w: World) -> None:
    """Anna wins a short pulka of the evening: Vera pays her 33.34, Boris 33.33."""
    _evening(w)
    table = factories.finished_pulka([w.anna, w.boris, w.vera], w.anna, w.table.played_on)
    EveningTable.objects.create(evening=w.extra["evening"], table=table, round=1)


def _paid(w: World, response: HttpResponse) -> None:
    settled = w.extra["evening"].settlements.get()
    assert (settled.payer, settled.amount, settled.settled_by) == (
        f"m{w.vera.pk}",
        Decimal("33.34"),
        w.actor,
    )


def _csv(w: World, response: HttpResponse) -> None:
    assert b"payer,payee,amount" in response.content


action("evenings", "Club evenings — `GET /evenings/`")(_get("scoring:evening_list"))
action("evening", "An evening — `GET /evenings/<id>/`", prepare=_evening)(
    _evening_get("scoring:evening_detail")
)
action(
    "evening-create",
    "Create an evening — `POST /evenings/new/`",
    ok_status=302,
    writes=True,
    done=_evenings_created,
)(
    lambda client, w: client.post(
        _url("scoring:evening_create"),
        {"played_on": "2026-11-20", "place": "Hall", "game": "preferans", "table_size": "4"},
    )
)
action(
    "check-in-self",
    "Check oneself in — `POST /evenings/<id>/check-in/`",
    prepare=_evening,
    ok_status=302,
    writes=True,
    done=_checked_in_self,
    refusal="this member is checked in already",
)(_evening_post("scoring:evening_check_in", _self))
action(
    "check-in-other",
    "Check another member in — `POST /evenings/<id>/check-in/`",
    prepare=_gleb,
    ok_status=302,
    writes=True,
    done=_here("Anna", "Boris", "Vera", "Gleb"),
)(_evening_post("scoring:evening_check_in", lambda w: {"member": w.extra["gleb"].pk}))
action(
    "check-out",
    "Undo Anna's check-in — `POST /evenings/<id>/check-out/`",
    prepare=_evening,
    ok_status=302,
    writes=True,
    done=_here("Boris", "Vera"),
)(_evening_post("scoring:evening_check_out", lambda w: {"member": w.anna.pk}))
action(
    "sits-out",
    "Mark Anna as sitting out — `POST /evenings/<id>/sits-out/`",
    prepare=_evening,
    ok_status=302,
    writes=True,
    done=lambda w, r: assert_sits_out(w),
)(_evening_post("scoring:evening_sits_out", lambda w: {"member": w.anna.pk, "sits_out": "1"}))
action(
    "not-together",
    "Keep Boris and Vera apart — `POST /evenings/<id>/apart/`",
    prepare=_evening,
    ok_status=302,
    writes=True,
    done=lambda w, r: assert_apart(w),
)(
    _evening_post(
        "scoring:evening_apart", lambda w: {"first": f"m{w.boris.pk}", "second": f"m{w.vera.pk}"}
    )
)
action(
    "draw",
    "Draw the tables — `POST /evenings/<id>/draw/`",
    prepare=_evening,
    ok_status=302,
    writes=True,
    done=_draft_made,
)(_evening_post("scoring:evening_draw", lambda w: {"seed": "7"}))
action(
    "draw-five",
    "Draw with five players checked in (no seating) — `POST /evenings/<id>/draw/`",
    prepare=_five,
    refusal="5 players cannot be seated",
)(_evening_post("scoring:evening_draw", lambda w: {"seed": "7"}))
action(
    "swap",
    "Swap Anna and Boris in the draw — `POST /evenings/<id>/swap/`",
    prepare=_drawn,
    ok_status=302,
    writes=True,
    done=_draft_swapped,
)(
    _evening_post(
        "scoring:evening_swap",
        lambda w: {"swap-first": f"m{w.anna.pk}", "swap-second": f"m{w.boris.pk}"},
    )
)
action(
    "open-tables",
    "Open the drawn tables — `POST /evenings/<id>/open/`",
    prepare=_drawn,
    ok_status=302,
    writes=True,
    done=_opened,
)(_evening_post("scoring:evening_open", lambda w: {}))
action(
    "open-tables-undrawn",
    "Open the tables before a draw — `POST /evenings/<id>/open/`",
    prepare=_evening,
    refusal="draw the tables first",
)(_evening_post("scoring:evening_open", lambda w: {}))
action("ledger", "The evening's ledger — `GET /evenings/<id>/ledger/`", prepare=_ledger_evening)(
    _evening_get("scoring:evening_ledger")
)
action(
    "ledger-csv",
    "The ledger as CSV — `GET /evenings/<id>/ledger.csv`",
    prepare=_ledger_evening,
    done=_csv,
)(_evening_get("scoring:evening_ledger_csv"))
action(
    "mark-paid",
    "Mark Vera's payment to Anna as paid — `POST /evenings/<id>/settle/` (Anna is paid)",
    prepare=_ledger_evening,
    ok_status=302,
    writes=True,
    done=_paid,
)(
    _evening_post(
        "scoring:settlement_mark",
        lambda w: {"payer": f"m{w.vera.pk}", "payee": f"m{w.anna.pk}", "amount": "33.34"},
    )
)


# the members' accounts


def _record(data: Callable[[World], dict[str, str]]) -> Send:
    def send(client: Client, w: World) -> HttpResponse:
        return client.post(_url("scoring:account_book"), data(w))

    return send


def _topped_up(w: World, response: HttpResponse) -> None:
    entry = AccountEntry.objects.get()
    assert (entry.member, entry.kind, entry.amount) == (w.boris, "top_up", Decimal("500.00"))
    assert entry.recorded_by == w.actor


def _entry_is(kind: str, amount: str, reason: str) -> Callable[[World, HttpResponse], None]:
    """The write made one entry of Boris's, recorded by the actor."""

    def done(w: World, response: HttpResponse) -> None:
        entry = AccountEntry.objects.exclude(recorded_by=w.anna).get()
        assert (entry.member, entry.kind, entry.amount, entry.reason) == (
            w.boris,
            kind,
            Decimal(amount),
            reason,
        )
        assert entry.recorded_by == w.actor

    return done


def _boris_has_100(w: World) -> None:
    AccountEntry.objects.create(
        member=w.boris, kind="top_up", amount=Decimal(100), recorded_by=w.anna
    )


def _entries_csv(w: World, response: HttpResponse) -> None:
    assert response.content.decode().splitlines()[1].split(",")[1:5] == [
        "boris",
        "Boris",
        "top_up",
        "100.00",
    ]


action("cash-book", "The cash book: balances and entries — `GET /accounts/`")(
    _get("scoring:account_book")
)
action(
    "top-up",
    "Record Boris's top-up of 500 — `POST /accounts/`",
    ok_status=302,
    writes=True,
    done=_topped_up,
)(_record(lambda w: {"member": str(w.boris.pk), "kind": "top_up", "amount": "500"}))
action(
    "refund-past-balance",
    "Refund Boris 100.01 with 100 on his account — `POST /accounts/`",
    prepare=_boris_has_100,
    refusal="a refund is at most the balance, 100.00",
)(_record(lambda w: {"member": str(w.boris.pk), "kind": "refund", "amount": "100.01"}))
action(
    "refund",
    "Refund Boris 40 of his 100 — `POST /accounts/`",
    prepare=_boris_has_100,
    ok_status=302,
    writes=True,
    done=_entry_is("refund", "-40.00", ""),
)(_record(lambda w: {"member": str(w.boris.pk), "kind": "refund", "amount": "40"}))
action(
    "correction",
    "Correct Boris's account by −20, saying why — `POST /accounts/`",
    prepare=_boris_has_100,
    ok_status=302,
    writes=True,
    done=_entry_is("correction", "-20.00", "typed 100 for 80"),
)(
    _record(
        lambda w: {
            "member": str(w.boris.pk),
            "kind": "correction",
            "amount": "-20",
            "reason": "typed 100 for 80",
        }
    )
)
action(
    "correction-no-reason",
    "Correct Boris's account without saying why — `POST /accounts/`",
    prepare=_boris_has_100,
    refusal="say why the correction is made",
)(_record(lambda w: {"member": str(w.boris.pk), "kind": "correction", "amount": "-20"}))
action(
    "top-up-negative",
    "Record a top-up of −500 for Boris — `POST /accounts/`",
    refusal="type the amount without a sign",
)(_record(lambda w: {"member": str(w.boris.pk), "kind": "top_up", "amount": "-500"}))
action(
    "account-csv",
    "Every account entry as CSV — `GET /accounts/entries.csv`",
    prepare=_boris_has_100,
    done=_entries_csv,
)(_get("scoring:account_csv"))


def _vera_has_50(w: World) -> None:
    """The ledger's evening; Vera has 50 on her account, Boris nothing."""
    _ledger_evening(w)
    AccountEntry.objects.create(
        member=w.vera, kind="top_up", amount=Decimal(50), recorded_by=w.anna
    )


def _paid_by_account(w: World, response: HttpResponse) -> None:
    _paid(w, response)
    entries = AccountEntry.objects.filter(kind="settlement")
    assert sorted((e.member.username, e.amount) for e in entries) == [
        ("anna", Decimal("33.34")),
        ("vera", Decimal("-33.34")),
    ]


action(
    "settle-by-account",
    "Settle Vera's 33.34 to Anna through the accounts — `POST /evenings/<id>/settle-by-account/`",
    prepare=_vera_has_50,
    ok_status=302,
    writes=True,
    done=_paid_by_account,
)(
    _evening_post(
        "scoring:settlement_by_account",
        lambda w: {"payer": f"m{w.vera.pk}", "payee": f"m{w.anna.pk}", "amount": "33.34"},
    )
)
action(
    "settle-by-account-short",
    "Settle Boris's 33.33 through the accounts with nothing on his — "
    "`POST /evenings/<id>/settle-by-account/`",
    prepare=_vera_has_50,
    refusal="Boris has 0.00 on the account: not enough, settle in cash",
)(
    _evening_post(
        "scoring:settlement_by_account",
        lambda w: {"payer": f"m{w.boris.pk}", "payee": f"m{w.anna.pk}", "amount": "33.33"},
    )
)


def _pizza_shared(w: World, response: HttpResponse) -> None:
    entries = AccountEntry.objects.filter(kind="shared_expense")
    assert sorted((e.member.username, e.amount) for e in entries) == [
        ("anna", Decimal("-3.34")),
        ("boris", Decimal("-3.33")),
        ("vera", Decimal("-3.33")),
    ]


action(
    "shared-expense-form",
    "An evening's shared expense, the form — `GET /evenings/<id>/expense/`",
    prepare=_ledger_evening,
)(_evening_get("scoring:shared_expense"))
action(
    "shared-expense",
    "Split a pizza of 10.00 among Anna, Boris and Vera — `POST /evenings/<id>/expense/`",
    prepare=_vera_has_50,
    ok_status=302,
    writes=True,
    done=_pizza_shared,
)(
    _evening_post(
        "scoring:shared_expense",
        lambda w: {
            "reason": "pizza",
            "total": "10.00",
            "members": [w.anna.pk, w.boris.pk, w.vera.pk],
        },
    )
)


def _gleb_came_not(w: World) -> None:
    """The ledger's evening; Gleb, a member, is not checked in at it."""
    _vera_has_50(w)
    w.extra["gleb"] = factories.member("Gleb", username="gleb")


action(
    "shared-expense-stranger",
    "Split a pizza with Gleb, who is not checked in — `POST /evenings/<id>/expense/`",
    prepare=_gleb_came_not,
    refusal="Select a valid choice.",
)(
    _evening_post(
        "scoring:shared_expense",
        lambda w: {
            "reason": "pizza",
            "total": "10.00",
            "members": [w.anna.pk, w.extra["gleb"].pk],
        },
    )
)


def _guest_here(w: World) -> None:
    """The evening, the club drawing 120 of table money from the accounts; guest Petr came."""
    _evening(w)
    Club.objects.update_or_create(pk=Club.ONLY_PK, defaults={"account_table_money": Decimal(120)})
    guest = Guest.objects.create(name="Petr")
    Attendance.objects.create(evening=w.extra["evening"], guest=guest)
    w.extra["guest"] = guest


def _boris_paid_for_petr(w: World) -> None:
    _guest_here(w)
    AccountEntry.objects.create(
        member=w.boris,
        kind="guest",
        amount=Decimal(-120),
        evening=w.extra["evening"],
        guest=w.extra["guest"],
        recorded_by=w.anna,
        reason="Petr",
    )


def _vera_paid_for_petr(w: World, response: HttpResponse) -> None:
    entry = AccountEntry.objects.get()
    assert (entry.member, entry.kind, entry.amount, entry.guest, entry.recorded_by) == (
        w.vera,
        "guest",
        Decimal("-120.00"),
        w.extra["guest"],
        w.actor,
    )


def _pay_for_petr(client: Client, w: World) -> HttpResponse:
    return client.post(
        _url("scoring:guest_paid", w.extra["evening"].pk),
        {"guest": w.extra["guest"].pk, "member": w.vera.pk},
    )


action(
    "guest-paid",
    "Vera pays guest Petr's table money of 120 — `POST /evenings/<id>/guest-paid/`",
    prepare=_guest_here,
    ok_status=302,
    writes=True,
    done=_vera_paid_for_petr,
)(_pay_for_petr)


def _no_table_money(w: World) -> None:
    _guest_here(w)
    Club.objects.filter(pk=Club.ONLY_PK).update(account_table_money=Decimal(0))


action(
    "guest-paid-no-table-money",
    "Vera pays for guest Petr when the club draws no table money from the accounts — "
    "`POST /evenings/<id>/guest-paid/`",
    prepare=_no_table_money,
    refusal="the club draws no table money from the accounts: the guest pays at the door",
)(_pay_for_petr)
action(
    "guest-paid-twice",
    "Vera pays for Petr, whom Boris has paid for — `POST /evenings/<id>/guest-paid/`",
    prepare=_boris_paid_for_petr,
    refusal="Boris has paid for Petr tonight already",
)(_pay_for_petr)


def _evening_to_close(w: World) -> None:
    """The ledger's evening, its three players with e-mail addresses."""
    _ledger_evening(w)
    for member in (w.anna, w.boris, w.vera):
        Member.objects.filter(pk=member.pk).update(email=f"{member.username}@club.example")


def _evening_in_play(w: World) -> None:
    """The same, with a second table still in play."""
    _evening_to_close(w)
    table = factories.pulka([w.anna, w.boris, w.vera], played_on=w.table.played_on)
    EveningTable.objects.create(evening=w.extra["evening"], table=table, round=2)


def _close_evening(client: Client, w: World) -> HttpResponse:
    with committed():  # the summary is enqueued once the request's transaction commits
        return client.post(_evening_url("scoring:evening_close")(w))


def _summary_sent(w: World, response: HttpResponse) -> None:
    assert response["Location"] == _url("scoring:evening_detail", w.extra["evening"].pk)
    assert sorted(m.to[0] for m in mail.outbox) == [
        "anna@club.example",
        "boris@club.example",
        "vera@club.example",
    ]
    assert all("Vera → Anna: 33,34" in m.body for m in mail.outbox)


action(
    "close-evening-form",
    "Close the evening, the confirmation page (its summary, who gets it) — "
    "`GET /evenings/<id>/close/`",
    prepare=_evening_to_close,
)(_evening_get("scoring:evening_close"))
action(
    "close-evening",
    "Close the evening: its summary e-mailed to the members checked in (and posted to the "
    "club's chat) — `POST /evenings/<id>/close/`",
    prepare=_evening_to_close,
    ok_status=302,
    done=_summary_sent,
)(_close_evening)
action(
    "close-evening-in-play",
    "Close the evening while a table is still in play — `POST /evenings/<id>/close/`",
    prepare=_evening_in_play,
    refusal="1 table is still in play: finish it first",
)(_close_evening)
action(
    "check-in-guest",
    "Check a guest in by name — `POST /evenings/<id>/check-in-guest/`",
    prepare=_evening,
    ok_status=302,
    writes=True,
    done=lambda w, r: assert_guest_here(w),
)(_evening_post("scoring:evening_check_in_guest", lambda w: {"name": "Pyotr"}))


# evenings announced ahead (scoring/views/calendar.py)


def _announced(w: World) -> None:
    """Irina announces an evening in five days with 3 seats; Boris and Vera said «приду»,
    Anna has a private calendar link."""
    irina = factories.member("Irina", organiser=True, username="irina")
    (evening,) = services_calendar.evening_schedule(
        organiser=irina,
        played_on=timezone.localdate() + datetime.timedelta(days=5),
        starts_at=datetime.time(19, 0),
        place="Hall",
        game="preferans",
        table_size=4,
        seats=3,
    )
    for m in (w.boris, w.vera):
        services_calendar.evening_answer(evening=evening, member=m, answer="yes")
    w.extra["evening"] = evening
    w.extra["token"] = services_calendar.calendar_link_reset(member=w.anna)


def _over(w: World) -> None:
    _announced(w)
    Evening.objects.filter(pk=w.extra["evening"].pk).update(
        played_on=timezone.localdate() - datetime.timedelta(days=1)
    )


def _feed(response: HttpResponse) -> None:
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert b"BEGIN:VEVENT" in response.content


def _scheduled(w: World, response: HttpResponse) -> None:
    assert Evening.objects.filter(organiser=w.actor, seats=12).count() == 2


def _schedule(days: int, *, weeks: int | None = 1) -> Send:
    """Announce an evening ``days`` from today; with ``weeks``, every week until then."""

    def send(client: Client, w: World) -> HttpResponse:
        first = timezone.localdate() + datetime.timedelta(days=days)
        until = "" if weeks is None else (first + datetime.timedelta(weeks=weeks)).isoformat()
        return client.post(
            _url("scoring:evening_schedule"),
            {
                "played_on": first.isoformat(),
                "starts_at": "19:00",
                "place": "Hall",
                "game": "preferans",
                "table_size": "4",
                "seats": "12",
                "until": until,
            },
        )

    return send


def _scheduled_one(w: World, response: HttpResponse) -> None:
    (evening,) = Evening.objects.filter(organiser=w.actor)
    assert (evening.played_on, evening.seats) == (
        timezone.localdate() + datetime.timedelta(days=3),
        12,
    )


def _answered(w: World, response: HttpResponse) -> None:
    answer = w.extra["evening"].answers.get(member=w.actor)
    assert answer.answer == "maybe"


def _link_made(w: World, response: HttpResponse) -> None:
    assert w.actor is not None
    w.actor.refresh_from_db()
    assert w.actor.calendar_token and w.actor.calendar_token != w.extra["token"]


action(
    "calendar",
    "The calendar of evenings announced ahead, with one's answers — `GET /evenings/calendar/`",
    prepare=_announced,
)(lambda client, w: client.get(_url("scoring:evening_calendar")))
action(
    "calendar-private",
    "The calendar with `STANDINGS_PUBLIC = False` — `GET /evenings/calendar/`",
    prepare=_announced,
    public_standings=False,
)(lambda client, w: client.get(_url("scoring:evening_calendar")))
action(
    "calendar-feed",
    "The club's iCal feed — `GET /evenings/calendar.ics`",
    prepare=_announced,
    done=lambda w, r: _feed(r),
)(lambda client, w: client.get(_url("scoring:calendar_feed")))
action(
    "calendar-feed-private",
    "The club's iCal feed with `STANDINGS_PUBLIC = False` — `GET /evenings/calendar.ics`",
    prepare=_announced,
    public_standings=False,
    done=lambda w, r: _feed(r),
)(lambda client, w: client.get(_url("scoring:calendar_feed")))
action(
    "my-calendar-feed",
    "Anna's own iCal feed by her private link (a calendar app has no session) — "
    "`GET /evenings/calendar/<token>.ics`",
    prepare=_announced,
)(lambda client, w: client.get(_url("scoring:member_calendar_feed", w.extra["token"])))
action(
    "my-calendar-feed-wrong",
    "An iCal feed by a link that is nobody's — `GET /evenings/calendar/<token>.ics`",
    prepare=_announced,
)(lambda client, w: client.get(_url("scoring:member_calendar_feed", "x" + w.extra["token"])))
action(
    "calendar-link",
    "Make one's private calendar link anew — `POST /evenings/calendar/link/`",
    prepare=_announced,
    ok_status=302,
    writes=True,
    done=_link_made,
)(lambda client, w: client.post(_url("scoring:calendar_link_reset")))
action(
    "evening-schedule",
    "Announce a weekly series of two evenings — `POST /evenings/schedule/`",
    ok_status=302,
    writes=True,
    done=_scheduled,
)(_schedule(3))
action(
    "evening-schedule-one",
    "Announce one evening, not a series — `POST /evenings/schedule/`",
    ok_status=302,
    writes=True,
    done=_scheduled_one,
)(_schedule(3, weeks=None))
action(
    "evening-schedule-past",
    "Announce an evening for yesterday — `POST /evenings/schedule/`",
    refusal="an evening is scheduled for today or a later day",
)(_schedule(-1))
action(
    "answer",
    "Answer an evening «может быть» for oneself — `POST /evenings/<id>/answer/`",
    prepare=_announced,
    ok_status=302,
    writes=True,
    done=_answered,
)(_evening_post("scoring:evening_answer", lambda w: {"answer": "maybe"}))


def _answered_for_oneself_only(w: World, response: HttpResponse) -> None:
    answers = dict(w.extra["evening"].answers.values_list("member__username", "answer"))
    assert w.actor is not None
    assert answers[w.actor.username] == "no"
    assert answers["boris"] == "yes"  # as he answered: the form names nobody else


action(
    "answer-for-another",
    "Answer «не приду» naming Boris in the form (the answer is one's own: no field names "
    "another member) — `POST /evenings/<id>/answer/`",
    prepare=_announced,
    ok_status=302,
    writes=True,
    done=_answered_for_oneself_only,
)(_evening_post("scoring:evening_answer", lambda w: {"answer": "no", "member": w.boris.pk}))
action(
    "answer-over",
    "Answer an evening that is over — `POST /evenings/<id>/answer/`",
    prepare=_over,
)(_evening_post("scoring:evening_answer", lambda w: {"answer": "yes"}))
action(
    "check-in-answered",
    "Check in everyone who has a seat by his «приду» — `POST /evenings/<id>/check-in-answered/`",
    prepare=_announced,
    ok_status=302,
    writes=True,
    done=lambda w, r: _here("Boris", "Vera")(w, r),
)(_evening_post("scoring:evening_check_in_answered", lambda w: {}))


def _begun(w: World) -> None:
    _announced(w)
    Attendance.objects.create(evening=w.extra["evening"], member=w.boris)


def _called_off(w: World, response: HttpResponse) -> None:
    assert not Evening.objects.filter(pk=w.extra["evening"].pk).exists()


action(
    "evening-cancel",
    "Call off an evening announced ahead, its answers with it — `POST /evenings/<id>/cancel/`",
    prepare=_announced,
    ok_status=302,
    writes=True,
    done=_called_off,
)(_evening_post("scoring:evening_cancel", lambda w: {}))
action(
    "evening-cancel-begun",
    "Call off an evening someone is checked in at — `POST /evenings/<id>/cancel/`",
    prepare=_begun,
    refusal="this evening has begun (check-ins or tables): it cannot be called off",
)(_evening_post("scoring:evening_cancel", lambda w: {}))


# a member's own messages (scoring/views/notices.py)

BOT = {
    "TELEGRAM_BOT_TOKEN": "1:test",
    "TELEGRAM_BOT_USERNAME": "club_bot",
    "TELEGRAM_WEBHOOK_SECRET": "hook-secret",
    "TELEGRAM_API_URL": "http://127.0.0.1:9",  # never reached: the reply waits for a commit
}
VAPID = {
    "VAPID_PUBLIC_KEY": "B" * 87,
    "VAPID_PRIVATE_KEY": "p" * 43,
    "VAPID_SUBJECT": "mailto:club@club.example",
}


def _with(overrides: dict[str, str], send: Send) -> Send:
    def sent(client: Client, w: World) -> HttpResponse:
        with override_settings(**overrides):
            return send(client, w)

    return sent


def _linked(w: World) -> None:
    """Every member has a Telegram chat linked and a device subscribed to web push."""
    for n, member in enumerate(Member.objects.order_by("pk"), start=1):
        Member.objects.filter(pk=member.pk).update(telegram_chat_id=1000 + n)
        PushSubscription.objects.create(
            member=member, endpoint=f"https://push.example/{n}", p256dh="B" * 87, auth="A" * 22
        )
    if w.actor is not None:
        w.extra["endpoint"] = w.actor.push_subscriptions.get().endpoint


def _telegram_link_made(w: World, response: HttpResponse) -> None:
    assert w.actor is not None
    w.actor.refresh_from_db()
    assert response["Location"] == f"https://t.me/club_bot?start={w.actor.telegram_token}"


def _telegram_unlinked(w: World, response: HttpResponse) -> None:
    assert w.actor is not None
    w.actor.refresh_from_db()
    assert w.actor.telegram_chat_id is None


def _anna_asked_to_link(w: World) -> None:
    Member.objects.filter(pk=w.anna.pk).update(telegram_token="anna-token")  # noqa: S106


def _anna_linked(w: World, response: HttpResponse) -> None:
    w.anna.refresh_from_db()
    assert (w.anna.telegram_chat_id, w.anna.telegram_token) == (4242, None)


def _webhook(secret: str) -> Send:
    def send(client: Client, w: World) -> HttpResponse:
        update = {"message": {"chat": {"id": 4242, "type": "private"}, "text": "/start anna-token"}}
        return client.post(
            _url("scoring:telegram_webhook"),
            json.dumps(update),
            content_type="application/json",
            HTTP_X_TELEGRAM_BOT_API_SECRET_TOKEN=secret,
        )

    return _with(BOT, send)


def _subscribed(w: World, response: HttpResponse) -> None:
    assert w.actor is not None
    assert w.actor.push_subscriptions.filter(endpoint="https://push.example/new").exists()


def _unsubscribed(w: World, response: HttpResponse) -> None:
    assert not PushSubscription.objects.filter(endpoint=w.extra["endpoint"]).exists()


def _answer_by_link(client: Client, w: World) -> HttpResponse:
    """Boris's one-tap link, whoever opens it (it answers for Boris)."""
    evening = w.extra["evening"]
    token = services_notices.answer_token(evening, w.boris)
    return client.post(_url("scoring:evening_answer_link", evening.pk, token), {"answer": "no"})


def _boris_not_coming(w: World, response: HttpResponse) -> None:
    assert EveningAnswer.objects.get(evening=w.extra["evening"], member=w.boris).answer == "no"


action(
    "telegram-link",
    "Link one's own Telegram: a one-time link to the club's bot — `POST /messages/telegram/link/`",
    ok_status=302,
    writes=True,
    done=_telegram_link_made,
)(_with(BOT, lambda client, w: client.post(_url("scoring:telegram_link"))))
action(
    "telegram-unlink",
    "Unlink one's own Telegram — `POST /messages/telegram/unlink/`",
    prepare=_linked,
    ok_status=302,
    writes=True,
    done=_telegram_unlinked,
)(lambda client, w: client.post(_url("scoring:telegram_unlink")))
action(
    "telegram-webhook",
    "The Bot API's update with the webhook's secret: Anna's `/start <token>` links her chat "
    "— `POST /telegram/webhook/`",
    prepare=_anna_asked_to_link,
    writes=True,
    done=_anna_linked,
)(_webhook("hook-secret"))
action(
    "telegram-webhook-wrong",
    "An update without the webhook's secret — `POST /telegram/webhook/`",
    prepare=_anna_asked_to_link,
)(_webhook("guessed"))
action(
    "push-subscribe",
    "Subscribe one's own device to web push — `POST /messages/push/subscribe/`",
    writes=True,
    done=_subscribed,
)(
    _with(
        VAPID,
        lambda client, w: client.post(
            _url("scoring:push_subscribe"),
            json.dumps(
                {
                    "endpoint": "https://push.example/new",
                    "keys": {"p256dh": "B" * 87, "auth": "A" * 22},
                }
            ),
            content_type="application/json",
        ),
    )
)
action(
    "push-unsubscribe",
    "Unsubscribe one's own device — `POST /messages/push/unsubscribe/`",
    prepare=_linked,
    writes=True,
    done=_unsubscribed,
)(
    lambda client, w: client.post(
        _url("scoring:push_unsubscribe"),
        json.dumps({"endpoint": w.extra.get("endpoint", "https://push.example/1")}),
        content_type="application/json",
    )
)
action(
    "answer-link",
    "A reminder's one-tap link answers for the member it was made for, signed in or not "
    "— `POST /evenings/<id>/answer/<token>/`",
    prepare=_announced,
    writes=True,
    done=_boris_not_coming,
)(_answer_by_link)
action(
    "answer-link-over",
    "A one-tap answer link of an evening that is over — `POST /evenings/<id>/answer/<token>/`",
    prepare=_over,
)(_answer_by_link)


def assert_guest_here(w: World) -> None:
    (guest,) = w.extra["evening"].attendances.filter(guest__isnull=False)
    assert guest.guest.name == "Pyotr"


def _guest_table(w: World) -> None:
    """A finished pulka of Boris, Vera and Pyotr, a guest; Gleb is a member who never sat."""
    w.extra["pyotr"] = Guest(name="Pyotr")
    w.extra["pulka"] = factories.finished_pulka(
        [w.boris, w.vera, w.extra["pyotr"]], w.boris, w.table.played_on
    )
    w.extra["gleb"] = factories.member("Gleb", username="gleb")


def _merged(w: World, response: HttpResponse) -> None:
    seats = w.extra["pulka"].seats.order_by("position")
    assert [s.member for s in seats] == [w.boris, w.vera, w.extra["gleb"]]
    assert not Guest.objects.exists()
    assert w.extra["pulka"].audit.filter(action=AuditEntry.MERGE).count() == 1


action(
    "guests",
    "The guests, to merge one into a member — `GET /guests/`",
    prepare=_guest_table,
)(lambda client, w: client.get(_url("scoring:guest_list")))
action(
    "guest-merge",
    "Merge Pyotr, a guest, into Gleb — `POST /guests/<id>/merge/`",
    prepare=_guest_table,
    ok_status=302,
    writes=True,
    done=_merged,
)(
    lambda client, w: client.post(
        _url("scoring:guest_merge", w.extra["pyotr"].pk), {"member": w.extra["gleb"].pk}
    )
)
action(
    "guest-merge-seated",
    "Merge Pyotr into Vera, who sat at his table — `POST /guests/<id>/merge/`",
    prepare=_guest_table,
    refusal="Vera is seated at table",
)(
    lambda client, w: client.post(
        _url("scoring:guest_merge", w.extra["pyotr"].pk), {"member": w.vera.pk}
    )
)


# tournaments ("seated": Anna judges them)


def _cup(w: World, *, players: int = 3, start: bool = True, seat: bool = True) -> None:
    """A tournament on Sochi judged by Anna: Boris, Vera and ``players`` − 2 more members
    entered and checked in, three to a table, tours of two hours to a pool of 10; started
    and tour 1 seated unless told."""
    cup = Tournament.objects.create(
        name="Cup",
        preferans_tariff=PreferansTariff.objects.get(name="Сочи (Sochi)"),
        tours=2,
        table_size=3,
        length=Tournament.TIME,
        pool_target=10,
        minutes=120,
    )
    cup.judges.add(w.anna)
    others = [factories.member(f"Extra {i}") for i in range(players - 2)]
    for member in [w.boris, w.vera, *others]:
        entry = services_tournaments.entry_add(tournament=cup, member=member)
        services_tournaments.entry_check_in(entry=entry)
    w.extra["cup"] = cup
    if start:
        services_tournaments.tournament_start(tournament=cup, seed=7)
    if start and seat:
        w.extra["tour"] = services_tournaments.tour_seat(tournament=cup, by=w.anna)


def _cup_draft(w: World) -> None:
    _cup(w, start=False)


def _cup_started(w: World) -> None:
    _cup(w, seat=False)


def _cup_played(w: World) -> None:
    _cup(w)
    factories.tour_played(w.extra["tour"], w.anna)


def _cup_closed(w: World) -> None:
    _cup_played(w)
    services_tournaments.tour_close(tour=w.extra["tour"])


def _cup_penalty(w: World) -> None:
    _cup(w)
    w.extra["penalty"] = services_tournaments.penalty_add(
        tournament=w.extra["cup"],
        entry=w.extra["cup"].entries.order_by("pk")[0],
        category=Penalty.POINTS,
        reason="late",
        points=Decimal(5),
        by=w.anna,
    )


def _cup_tied(w: World) -> None:
    """Six players, a cut to 3 after tour 1, tour 1 played and closed: two winners, and
    four players equal on every tie-break for places 3–6, one of whom goes on."""
    _cup(w, players=6, start=False)
    cup = w.extra["cup"]
    Tournament.objects.filter(pk=cup.pk).update(cut_after=1, cut_to=3, final_deals=4)
    cup.refresh_from_db()
    services_tournaments.tournament_start(tournament=cup, seed=7)
    tour = w.extra["tour"] = services_tournaments.tour_seat(tournament=cup, by=w.anna)
    factories.tour_played(tour, w.anna)
    services_tournaments.tour_close(tour=tour)
    w.extra["tied"] = [s.entry for s in tour.seats.exclude(position=0).order_by("entry_id")]


def _cup_decided(w: World) -> None:
    _cup_tied(w)
    services_tournaments.cut_decide(
        tournament=w.extra["cup"], chosen=w.extra["tied"][:1], reason="жребий", by=w.anna
    )


def _cut_decided(w: World, response: HttpResponse) -> None:
    row = Penalty.objects.get()
    assert (row.entry, row.category, row.by, row.reason) == (
        w.extra["tied"][1],
        Penalty.CUT,
        w.actor,
        "жребий",
    )


def _cut_reversed(w: World, response: HttpResponse) -> None:
    row = Penalty.objects.get()
    assert (row.reversed_by, row.reversal_reason) == (w.actor, "ошибка")


def _cup_url(name: str, *more: Any) -> Callable[[World], str]:
    return lambda w: _url(name, w.extra["cup"].pk, *more)


def _cup_get(name: str, *more: Any) -> Send:
    return lambda client, w: client.get(_cup_url(name, *more)(w))


def _cup_post(name: str, data: Callable[[World], dict[str, Any]], *more: Any) -> Send:
    return lambda client, w: client.post(_cup_url(name, *more)(w), data(w))


def _entry_of(w: World, member: Member) -> Any:
    return w.extra["cup"].entries.get(member=member)


def _cup_status(status: str) -> Callable[[World, HttpResponse], None]:
    def done(w: World, response: HttpResponse) -> None:
        assert Tournament.objects.get(pk=w.extra["cup"].pk).status == status

    return done


def _tours(count: int) -> Callable[[World, HttpResponse], None]:
    def done(w: World, response: HttpResponse) -> None:
        assert w.extra["cup"].tour_set.count() == count

    return done


def _tour_closed(w: World, response: HttpResponse) -> None:
    tour = w.extra["cup"].tour_set.get(number=1)
    assert tour.is_closed and tour.seats.filter(points__isnull=True).count() == 0


def _extra_time(w: World, response: HttpResponse) -> None:
    assert w.extra["tour"].tables.get(number=1).extra_minutes == 10


def _penalised(w: World, response: HttpResponse) -> None:
    penalty = Penalty.objects.get()
    assert (penalty.by, penalty.points, penalty.reason) == (w.actor, Decimal(3), "slow play")


def _reversed(w: World, response: HttpResponse) -> None:
    penalty = Penalty.objects.get()
    assert (penalty.reversed_by, penalty.reversal_reason) == (w.actor, "a mistake")


def _cup_csv(w: World, response: HttpResponse) -> None:
    assert response.content.startswith(b"tour,player,table,result,place,points,total")


action("tournaments", "Tournaments — `GET /tournaments/`", prepare=_cup_closed)(
    _get("scoring:tournament_list")
)
action("tournament", "A tournament — `GET /tournaments/<id>/`", prepare=_cup_closed)(
    _cup_get("scoring:tournament_detail")
)
action(
    "tournament-screen",
    "The tournament's big screen — `GET /tournaments/<id>/screen/`",
    prepare=_cup_closed,
)(_cup_get("scoring:tournament_screen"))
action(
    "tour-seating",
    "A tour's seating — `GET /tournaments/<id>/tours/<n>/`",
    prepare=_cup_closed,
)(_cup_get("scoring:tour_seating", 1))
action(
    "tour-cards",
    "A tour's table cards, printable — `GET /tournaments/<id>/tours/<n>/cards/`",
    prepare=_cup_closed,
)(_cup_get("scoring:tour_cards", 1))
action(
    "tour-protocol",
    "A tour's results protocol, printable — `GET /tournaments/<id>/tours/<n>/protocol/`",
    prepare=_cup_closed,
)(_cup_get("scoring:tour_protocol", 1))
action(
    "tournament-protocol",
    "The standings protocol, printable — `GET /tournaments/<id>/protocol/`",
    prepare=_cup_closed,
)(_cup_get("scoring:tournament_protocol"))
action(
    "tournament-csv",
    "The tournament's standings as CSV — `GET /tournaments/<id>/standings.csv`",
    prepare=_cup_closed,
    done=_cup_csv,
)(_cup_get("scoring:tournament_csv"))
action(
    "tournament-enter",
    "Enter a guest in a draft tournament — `POST /tournaments/<id>/enter/`",
    prepare=_cup_draft,
    ok_status=302,
    writes=True,
    done=lambda w, r: assert_entered(w, "Pyotr"),
)(_cup_post("scoring:tournament_entry_add", lambda w: {"guest_name": "Pyotr"}))
action(
    "tournament-check-in",
    "Undo Boris's check-in at a draft tournament — `POST /tournaments/<id>/check-in/`",
    prepare=_cup_draft,
    ok_status=302,
    writes=True,
    done=lambda w, r: assert_checked_in(w, w.boris, False),
)(
    _cup_post(
        "scoring:tournament_check_in",
        lambda w: {"entry": _entry_of(w, w.boris).pk, "checked_in": "0"},
    )
)


def _own_entry(w: World) -> None:
    """A draft with the actor entered (not yet checked in)."""
    _cup_draft(w)
    if w.actor is not None:
        services_tournaments.entry_add(tournament=w.extra["cup"], member=w.actor)


def _own_entry_data(w: World) -> dict[str, Any]:
    entry = w.extra["cup"].entries.filter(member=w.actor).first()
    return {"entry": entry.pk if entry else 0, "checked_in": "1"}


action(
    "tournament-check-in-self",
    "Check oneself in at a tournament one entered — `POST /tournaments/<id>/check-in/`",
    prepare=_own_entry,
    ok_status=302,
    writes=True,
    done=lambda w, r: assert_checked_in(w, w.actor, True),
)(_cup_post("scoring:tournament_check_in", _own_entry_data))
action(
    "tournament-start",
    "Start a tournament (the tariff version frozen) — `POST /tournaments/<id>/start/`",
    prepare=_cup_draft,
    ok_status=302,
    writes=True,
    done=_cup_status(Tournament.RUNNING),
)(_cup_post("scoring:tournament_start", lambda w: {}))


def _cup_too_small(w: World) -> None:
    _cup_draft(w)
    _entry_of(w, w.vera).delete()


action(
    "tournament-start-small",
    "Start a tournament of two players — `POST /tournaments/<id>/start/`",
    prepare=_cup_too_small,
    refusal="players cannot make a table",
)(_cup_post("scoring:tournament_start", lambda w: {}))
action(
    "tour-seat",
    "Seat the next tour and open its tables — `POST /tournaments/<id>/seat/`",
    prepare=_cup_started,
    ok_status=302,
    writes=True,
    done=_tours(1),
)(_cup_post("scoring:tour_seat", lambda w: {}))
action(
    "tour-close",
    "Close a tour whose tables have finished — `POST /tournaments/<id>/tours/<n>/close/`",
    prepare=_cup_played,
    ok_status=302,
    writes=True,
    done=_tour_closed,
)(_cup_post("scoring:tour_close", lambda w: {}, 1))
action(
    "tour-close-in-play",
    "Close a tour with a table in play — `POST /tournaments/<id>/tours/<n>/close/`",
    prepare=_cup,
    refusal="tables still in play: 1",
)(_cup_post("scoring:tour_close", lambda w: {}, 1))


def _cup_played_unconfirmed(w: World) -> None:
    _cup(w)
    factories.tour_played(w.extra["tour"], w.anna, confirm=False)


def _cup_table(w: World) -> Table:
    return w.extra["tour"].tables.get(number=1).table  # type: ignore[no-any-return]


def _cup_table_confirmed(w: World, response: HttpResponse) -> None:
    assert _cup_table(w).audit.filter(action=AuditEntry.CONFIRM).count() == 1


def _cup_table_reopened(w: World, response: HttpResponse) -> None:
    assert _cup_table(w).is_open


def _cup_table_post(name: str, data: dict[str, str] | None = None) -> Send:
    return lambda client, w: client.post(
        _url(name, _cup_table(w).pk), {**(data or {}), **factories.drawn(_cup_table(w))}
    )


action(
    "tour-close-provisional",
    "Close a tour whose table is not confirmed yet — `POST /tournaments/<id>/tours/<n>/close/`",
    prepare=_cup_played_unconfirmed,
    refusal="results not final yet: table 1 (waiting for ",
)(_cup_post("scoring:tour_close", lambda w: {}, 1))
action(
    "tour-table-confirm",
    "Confirm a tour's table for its players, from the tournament's page — "
    "`POST /tournaments/<id>/tours/<n>/tables/<n>/confirm/`",
    prepare=_cup_played_unconfirmed,
    ok_status=302,
    writes=True,
    done=_cup_table_confirmed,
)(
    lambda client, w: client.post(
        _cup_url("scoring:tour_table_confirm", 1, 1)(w), factories.drawn(_cup_table(w))
    )
)
action(
    "tour-table-reopen-provisional",
    "Reopen a provisional table of a tour in play, with a reason — `POST /tables/<id>/reopen/`",
    prepare=_cup_played_unconfirmed,
    ok_status=302,
    writes=True,
    done=_cup_table_reopened,
)(_cup_table_post("scoring:table_reopen", {"reason": "a deal"}))
action(
    "tour-table-reopen-closed",
    "Reopen a table of a closed tour — `POST /tables/<id>/reopen/`",
    prepare=_cup_closed,
    refusal="tour 1 is closed: its points are stored",
)(_cup_table_post("scoring:table_reopen", {"reason": "a deal"}))
action(
    "tour-extra-time",
    "Give a table extra time — `POST /tournaments/<id>/tours/<n>/tables/<n>/extra-time/`",
    prepare=_cup,
    ok_status=302,
    writes=True,
    done=_extra_time,
)(_cup_post("scoring:tour_table_extra_time", lambda w: {"minutes": "10"}, 1, 1))
action(
    "penalty-add",
    "Give a penalty — `POST /tournaments/<id>/penalties/`",
    prepare=_cup,
    ok_status=302,
    writes=True,
    done=_penalised,
)(
    _cup_post(
        "scoring:penalty_add",
        lambda w: {
            "entry": _entry_of(w, w.boris).pk,
            "category": "points",
            "points": "3",
            "reason": "slow play",
        },
    )
)
action(
    "penalty-add-no-reason",
    "Give a penalty without a reason — `POST /tournaments/<id>/penalties/`",
    prepare=_cup,
    refusal="say why: the reason is shown with the penalty",
)(
    _cup_post(
        "scoring:penalty_add",
        lambda w: {"entry": _entry_of(w, w.boris).pk, "category": "warning", "reason": " "},
    )
)
action(
    "penalty-reverse",
    "Reverse a penalty, with a reason — `POST /tournaments/<id>/penalties/<id>/reverse/`",
    prepare=_cup_penalty,
    ok_status=302,
    writes=True,
    done=_reversed,
)(
    lambda client, w: client.post(
        _url("scoring:penalty_reverse", w.extra["cup"].pk, w.extra["penalty"].pk),
        {"reason": "a mistake"},
    )
)


def _cup_table(w: World) -> Table:
    return w.extra["tour"].tables.get(number=1).table  # type: ignore[no-any-return]


action(
    "cut-decide",
    "Decide who goes on from a tie at the cut — `POST /tournaments/<id>/cut/`",
    prepare=_cup_tied,
    ok_status=302,
    writes=True,
    done=_cut_decided,
)(
    _cup_post(
        "scoring:cut_decide",
        lambda w: {"entry": [w.extra["tied"][1].pk], "reason": "жребий"},
    )
)
action(
    "cut-decide-wrong-count",
    "Choose two for one place at the cut — `POST /tournaments/<id>/cut/`",
    prepare=_cup_tied,
    refusal="choose 1 of the players tied for places 3–6",
)(
    _cup_post(
        "scoring:cut_decide",
        lambda w: {"entry": [e.pk for e in w.extra["tied"][:2]], "reason": "жребий"},
    )
)
action(
    "cut-decision-reverse",
    "Reverse the judges' decision at the cut, with a reason — "
    "`POST /tournaments/<id>/cut/reverse/`",
    prepare=_cup_decided,
    ok_status=302,
    writes=True,
    done=_cut_reversed,
)(_cup_post("scoring:cut_decision_reverse", lambda w: {"reason": "ошибка"}))


action(
    "cup-judge-page",
    "The judge's page of a tournament's table — `GET /tables/<id>/judge/`",
    prepare=_cup,
)(lambda client, w: client.get(_url("scoring:table_judge", _cup_table(w).pk)))
action(
    "cup-swap-seats",
    "Swap two seats of a tournament's table and replay — `POST /tables/<id>/judge/swap/`",
    prepare=_cup,
    ok_status=302,
    writes=True,
    done=lambda w, response: _swapped(w, response, _cup_table(w)),
)(lambda client, w: _swap_seats(client, w, "they sat the other way round", _cup_table(w)))
action(
    "tournament-admin-list",
    "Tournament admin, the list — `GET /admin/scoring/tournament/`",
    prepare=_cup_closed,
)(lambda client, w: client.get(_admin("scoring_tournament_changelist")))
action(
    "tournament-admin-page",
    "Tournament admin, a started one (format read-only) — `GET …/tournament/<id>/change/`",
    prepare=_cup_closed,
)(lambda client, w: client.get(_admin("scoring_tournament_change", w.extra["cup"].pk)))


def assert_entered(w: World, name: str) -> None:
    assert w.extra["cup"].entries.filter(guest__name=name).exists()


def assert_checked_in(w: World, member: Member | None, here: bool) -> None:
    assert _entry_of(w, member).checked_in is here


def _history_csv(w: World, result: str = "-6") -> bytes:
    """Anna, Boris and Pyotr (a guest: nobody's name) at a pulka on the world's date."""
    day = w.table.played_on.isoformat()
    return (
        "table,date,game,player,result\n"
        f"1,{day},preferans,anna,10\n1,{day},preferans,boris,-4\n1,{day},preferans,Pyotr,{result}\n"
    ).encode()


def _history_upload(result: str = "-6") -> Send:
    def send(client: Client, w: World) -> HttpResponse:
        upload = SimpleUploadedFile("notebook.csv", _history_csv(w, result), "text/csv")
        return client.post(_url("scoring:history_upload"), {"file": upload})

    return send


def _history_confirm(client: Client, w: World) -> HttpResponse:
    content = base64.b64encode(_history_csv(w)).decode()
    return client.post(
        _url("scoring:history_confirm"), {"content": content, "file_name": "notebook.csv"}
    )


def _history_imported(w: World) -> None:
    services.history_import(content=_history_csv(w), file_name="notebook.csv", by=None)
    w.extra["history"] = Table.objects.get(totals_only=True)


def _history_written(w: World, response: HttpResponse) -> None:
    table = Table.objects.get(totals_only=True)
    assert [s.result for s in table.seats.order_by("position")] == [10, -4, -6]
    assert table.seats.get(position=2).guest.name == "Pyotr"


action(
    "history-upload-form",
    "Paper history, the upload form — `GET /club/history/`",
)(lambda client, w: client.get(_url("scoring:history_upload")))
action(
    "history-dry-run",
    "Paper history, the dry run of a CSV of past results — `POST /club/history/`",
)(_history_upload())
action(
    "history-dry-run-refused",
    "Paper history, the dry run of a file whose results do not add up to 0 — `POST /club/history/`",
    refusal="table 1: the results add up to 1.00, not 0",
)(_history_upload("-5"))
action(
    "history-confirm",
    "Paper history, the import confirmed — `POST /club/history/confirm/`",
    ok_status=302,
    writes=True,
    done=_history_written,
)(_history_confirm)
action(
    "history-confirm-twice",
    "Paper history, a file imported before confirmed again — `POST /club/history/confirm/`",
    prepare=_history_imported,
    refusal="this file was imported already",
)(_history_confirm)
action(
    "history-template",
    "Paper history, the template CSV — `GET /club/history/template.csv`",
)(lambda client, w: client.get(_url("scoring:history_template")))


MEMBERS_CSV = b"username,name,email\nmila,Mila,mila@club.example\n"


def _members_upload(content: bytes) -> Send:
    def send(client: Client, w: World) -> HttpResponse:
        upload = SimpleUploadedFile("members.csv", content, "text/csv")
        return client.post(_url("scoring:history_members"), {"members-file": upload})

    return send


def _mila_invited(w: World, response: HttpResponse) -> None:
    mila = Member.objects.get(username="mila")
    assert (mila.display_name, mila.email, mila.has_usable_password()) == (
        "Mila",
        "mila@club.example",
        False,
    )


action(
    "history-members-dry-run",
    "Paper history, the dry run of a CSV of members — `POST /club/history/members/`",
)(_members_upload(MEMBERS_CSV))
action(
    "history-members-refused",
    "Paper history, a CSV of members naming a member — `POST /club/history/members/`",
    refusal="anna is a member's username already",
)(_members_upload(MEMBERS_CSV + b"anna,Anna Two,\n"))
action(
    "history-members-confirm",
    "Paper history, the members invited — `POST /club/history/members/confirm/`",
    ok_status=302,
    writes=True,
    done=_mila_invited,
)(
    lambda client, w: client.post(
        _url("scoring:history_members_confirm"),
        {"content": base64.b64encode(MEMBERS_CSV).decode(), "file_name": "members.csv"},
    )
)
action(
    "history-table",
    "A table of paper history (its totals, no sheet) — `GET /tables/<id>/`",
    prepare=_history_imported,
)(lambda client, w: client.get(_url("scoring:table_detail", w.extra["history"].pk)))
action(
    "history-table-reopen",
    "Reopen a table of paper history (it has no deals) — `POST /tables/<id>/reopen/`",
    prepare=_history_imported,
)(
    lambda client, w: client.post(
        _url("scoring:table_reopen", w.extra["history"].pk),
        {"reason": "a typo", **factories.drawn(w.extra["history"])},
    )
)
action(
    "history-table-export",
    "Export a table of paper history (it has no record) — `GET /tables/<id>/export/`",
    prepare=_history_imported,
)(lambda client, w: client.get(_url("scoring:table_export", w.extra["history"].pk)))


def _history_import_admin(name: str) -> Send:
    return lambda client, w: client.get(
        _admin(f"scoring_historyimport_{name}", HistoryImport.objects.get().pk)
    )


action(
    "history-import-admin-list",
    "Paper history's imports in the admin, the record book (read-only) — "
    "`GET /admin/scoring/historyimport/`",
    prepare=_history_imported,
)(lambda client, w: client.get(_admin("scoring_historyimport_changelist")))
action(
    "history-import-admin-page",
    "An import in the admin: who, when, the file, its rows and tables — "
    "`GET …/historyimport/<id>/change/`",
    prepare=_history_imported,
)(_history_import_admin("change"))
action(
    "history-import-admin-delete",
    "Delete an import in the admin (nobody: its tables count) — "
    "`POST …/historyimport/<id>/delete/`",
    prepare=_history_imported,
)(
    lambda client, w: client.post(
        _admin("scoring_historyimport_delete", HistoryImport.objects.get().pk), {"post": "yes"}
    )
)


def assert_sits_out(w: World) -> None:
    assert w.extra["evening"].attendances.get(member=w.anna).sits_out


def assert_apart(w: World) -> None:
    low, high = sorted((w.boris.pk, w.vera.pk))
    assert w.extra["evening"].apart.filter(first=low, second=high).exists()


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


def snapshot() -> dict[str, Any]:
    """``db_fingerprint()`` (``db_snapshot()``'s tables and columns, one md5 each on
    PostgreSQL) and django-axes' failed sign-ins, which clearing a lockout removes (the
    shared snapshot leaves them out: the sign-in fuzz test records some)."""
    failures = AccessAttempt.objects.order_by("pk").values_list("username", "failures_since_start")
    return db_fingerprint() | {"sign-in failures": list(failures)}


def _follow_message(client: Client, response: HttpResponse) -> str:
    """The page a refusal's redirect leads to (its message is shown there)."""
    return client.get(response["Location"]).content.decode()


@pytest.fixture(scope="module")
def base_world(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[World]:
    """The world of the cell's role (``request.param``), built once for all that role's cells:
    the cells are listed role by role, and pytest keeps a module-scoped parameter's fixture
    while the next test's parameter is equal (the parametrization is module-scoped for this:
    a function-scoped one would narrow the fixture to each test). Each cell runs in a
    savepoint on top of it and is rolled back to it, as pytest-django does for any test, and
    the world itself is rolled back when the next role's cells start. Building it for every
    cell took a third of the module's time (three members, a pulka, a deal and the actor,
    once a cell)."""
    with built_once(django_db_blocker):
        yield World.build(request.param)


@pytest.mark.slow  # every page and every write of the site, for each role
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cell", "base_world"),
    [(cell, cell.role) for cell in CELLS_BY_ROLE],
    ids=[f"{cell.name}[{cell.role}]" for cell in CELLS_BY_ROLE],
    indirect=["base_world"],
    scope="module",
)
def test_permission(
    request: pytest.FixtureRequest, client: Client, settings: Any, cell: Cell, base_world: World
) -> None:
    name, role, expected = cell.name, cell.role, cell.expected
    # Each cell is its own case. A module-scoped parameter is kept while the next one is
    # equal: when the cells of a role compared equal, every cell ran the role's first action.
    assert request.node.name == f"test_permission[{name}[{role}]]"
    assert base_world.role == role
    spec = ACTIONS[name]
    settings.STANDINGS_PUBLIC = spec.public_standings
    world = copy.deepcopy(base_world)  # the objects as built, whatever the last case did to its
    spec.prepare(world)
    if world.actor is not None:
        client.force_login(world.actor)
    before = snapshot()

    response = spec.send(client, world)

    if expected == "ok":
        assert response.status_code == spec.ok_status, response.content[:500]
        assert (snapshot() != before) == spec.writes  # and a read writes nothing
        if spec.done is not None:
            spec.done(world, response)
        return
    assert snapshot() == before
    assert mail.outbox == []
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
        refusal = spec.refusal_for.get(role, spec.refusal)
        assert refusal, f"{name}: say what the refusal reads"
        assert response.status_code in (200, 302)
        page = (
            _follow_message(client, response)
            if response.status_code == 302
            else response.content.decode()
        )
        assert refusal in html.unescape(page)


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


@pytest.mark.django_db
def test_the_fingerprint_changes_where_the_snapshot_does() -> None:
    """``snapshot()`` compares fingerprints: one table's fingerprint changes with a column
    the snapshot reads, and none with a column it leaves out (sign-ins set ``last_login``)."""
    fedor = factories.member("Fedor", username="fedor")  # beside the last role's world, if any
    before, rows = db_fingerprint(), db_snapshot()
    assert before.keys() == rows.keys()

    Member.objects.filter(pk=fedor.pk).update(last_login=timezone.now())
    assert db_fingerprint() == before
    Member.objects.filter(pk=fedor.pk).update(display_name="Фёдор")
    after = db_fingerprint()

    assert {key for key in before if after[key] != before[key]} == {"members"}
