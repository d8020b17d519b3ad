"""No 500 from any URL (issue 19, item 4): every URL pattern of the site, found by walking
``django.urls.get_resolver()`` (the members' pages, the tables, standings, tariffs, the
admin with every model it registers, the language switch), requested by an anonymous
visitor, a member who plays, an organiser and a superuser, with

* path segments the patterns expect (ids of real rows, usernames, games) or hostile ones:
  NUL (``%00``), a lone surrogate as UTF-8 spells it, overlong and broken escapes, numbers
  of 30 and 400 digits, Arabic-Indic digits, emoji;
* query strings the pages read (``sort``, ``log``, ``season``, ``next`` …) and the admin
  change lists' (``?q=``, ``?o=``, ``?p=``, every model field with ``__year``, ``__gte``,
  ``__in`` …: ``?starts_on__year=99999``) holding hostile values;
* any method (a GET, HEAD, POST with hostile fields, OPTIONS, PUT, DELETE) and headers
  (htmx, ``If-None-Match``, ``If-Modified-Since``, a language).

Every answer must be below 500. The client does not re-raise a view's exception: the
site's own 500 (or 503) page comes back, is counted (``fuzz: … answered 5xx``, see
tests/fuzz_harness.py) and then fails the example with the view's traceback. Anything but
a POST must also write nothing.

``test_every_url_pattern_answers_every_role`` first requests each pattern once with real
ids for each role, so that no pattern is left out however few inputs the profile allows;
``test_urls`` then mixes everything. Two targets aim where a random key rarely lands: each
admin change list with its own date hierarchy and fields (``test_admin_change_lists``) and
the admin's autocomplete with each relation it answers for (``test_admin_autocomplete``).
They found django-axes' sign-in logs failing at ``?attempt_time__year=9999`` and the
autocomplete failing on PostgreSQL at ``?term=%00`` (pinned in test_hostile_input.py).

A new URL pattern is picked up by itself; a regular-expression pattern the walker cannot
fill stops this module's collection with the pattern named.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from axes.models import AccessAttempt
from django.contrib import admin
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.resolvers import RegexPattern, RoutePattern
from hypothesis import given
from hypothesis import strategies as st

from members.models import Member
from scoring import services
from scoring.models import (
    BostonTariff,
    BostonTariffVersion,
    DealRecord,
    PreferansTariff,
    PreferansTariffVersion,
    Season,
    Table,
)
from tests import factories
from tests.fuzz_harness import (
    CountingClient,
    fuzz,
    fuzz_input,
    login,
    quiet_request_logs,
    rolled_back,
)
from tests.fuzz_strategies import HOSTILE_TEXT, wire

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.slow,  # a fuzz of the whole site
    # A change list's ``?created_at__gte=0001-01-01`` is read in the club's time zone, with
    # Django's warning that the moment came without one: what a visitor's query may do.
    pytest.mark.filterwarnings("ignore:DateTimeField .* received a naive datetime:RuntimeWarning"),
]


@pytest.fixture(scope="module", autouse=True)
def _quiet_logs() -> Iterator[None]:
    with quiet_request_logs():
        yield


# -- the URL patterns ----------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """A part of a URL pattern that a value fills: ``<int:pk>``, ``(?P<app_label>…)``."""

    name: str
    choices: tuple[str, ...] = ()  # what a regular-expression group accepts, if a list


Piece = str | Param

_ROUTE_PARAM = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
_REGEX_GROUP = re.compile(r"\(\?P<(?P<name>\w+)>(?P<body>[^)]*)\)")
_REGEX_SYNTAX = re.compile(r"[\\^$.*+?()\[\]{}|]")


def _route_pieces(route: str) -> list[Piece]:
    pieces: list[Piece] = []
    for i, part in enumerate(_ROUTE_PARAM.split(route)):
        if i % 3 == 0:
            pieces.append(part)
        elif i % 3 == 2:
            pieces.append(Param(part))
    return pieces


def _regex_pieces(regex: str) -> list[Piece]:
    """The two shapes the admin uses, ``^(?P<app_label>a|b)/$`` and ``(?P<url>.*)$``;
    anything else fails, so that a new shape is noticed rather than skipped."""
    body = regex.removeprefix("^").removesuffix("$")
    pieces: list[Piece] = []
    for i, part in enumerate(_REGEX_GROUP.split(body)):
        if i % 3 == 0:
            assert not _REGEX_SYNTAX.search(part), f"cannot fill {regex!r}"
            pieces.append(part)
        elif i % 3 == 1:
            name = part
        else:
            if part == ".*":
                pieces.append(Param(name))
            else:
                assert re.fullmatch(r"[\w|]+", part), f"cannot fill {regex!r}"
                pieces.append(Param(name, tuple(part.split("|"))))
    return pieces


def url_patterns() -> list[tuple[str, tuple[Piece, ...]]]:
    """Every URL pattern of the site as (its name, its pieces), from the root resolver."""
    found: list[tuple[str, tuple[Piece, ...]]] = []

    def walk(patterns: list[Any], prefix: tuple[Piece, ...], namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern.pattern, RoutePattern):
                pieces = _route_pieces(str(pattern.pattern))
            else:
                assert isinstance(pattern.pattern, RegexPattern)
                pieces = _regex_pieces(str(pattern.pattern))
            here = (*prefix, *pieces)
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                walk(pattern.url_patterns, here, inner)
            else:
                assert isinstance(pattern, URLPattern)
                label = f"{namespace}{pattern.name}" if pattern.name else "/".join(map(str, here))
                found.append((label, here))

    walk(get_resolver().url_patterns, ("/",), "")
    return found


PATTERNS = url_patterns()


def test_the_walk_finds_the_sites_pages_and_the_admins() -> None:
    names = {name for name, _pieces in PATTERNS}
    assert {"scoring:table_detail", "members:detail", "admin:index", "set_language"} <= names
    assert "admin:scoring_season_changelist" in names
    assert "admin:scoring_preferanstariff_import" in names
    assert len(PATTERNS) > 80


# -- the club the URLs point into ------------------------------------------------------------


GAME, PASSOUT = factories.GAME_RECORD, factories.PASSOUT_RECORD


@pytest.fixture
def world() -> SimpleNamespace:
    """An open pulka with three deals (one struck), a finished pulka, a Boston table, a
    season, a failed sign-in (django-axes' admin lists it), and the four visitors."""
    anna, boris, vera, gleb = (
        factories.member(name, username=name.lower()) for name in ("Anna", "Boris", "Vera", "Gleb")
    )
    pulka = factories.pulka([anna, boris, vera], deals=[GAME, PASSOUT])
    services.deal_undo(pulka, by=anna)
    services.deal_create(pulka, PASSOUT, by=anna)
    factories.finished_pulka([boris, vera, gleb], boris, pulka.played_on)
    factories.boston_table([anna, boris, vera, gleb])
    Season.objects.create(
        name="Осень",
        starts_on=pulka.played_on.replace(day=1),
        ends_on=pulka.played_on.replace(month=12, day=31),
        preferans_tariff=PreferansTariff.objects.order_by("pk").first(),
    )
    CountingClient().post("/members/sign-in/", {"username": "anna", "password": "wrong"})
    assert AccessAttempt.objects.exists()
    roles = {
        "anonymous": None,
        "member": anna,
        "organiser": factories.member("Olga", organiser=True, is_staff=True, username="olga"),
        "superuser": factories.member("Root", username="root", is_staff=True, is_superuser=True),
    }
    return SimpleNamespace(roles=roles, values=real_values())


def real_values() -> dict[str, tuple[str, ...]]:
    """What a pattern's parameter may hold so that it finds a row: by parameter name, and
    ``"id"`` for any other (the ids of every kind of row, so that each admin page finds
    one of its own)."""
    models = (
        Table,
        DealRecord,
        Member,
        Group,
        Season,
        PreferansTariff,
        BostonTariff,
        PreferansTariffVersion,
        BostonTariffVersion,
        AccessAttempt,
    )
    ids = sorted({pk for model in models for pk in model.objects.values_list("pk", flat=True)})
    return {
        "id": tuple(map(str, ids)),
        "username": tuple(Member.objects.order_by("pk").values_list("username", flat=True)),
        "game": ("preferans", "boston"),
        "content_type_id": tuple(
            str(pk) for pk in ContentType.objects.order_by("pk").values_list("pk", flat=True)
        ),
    }


def values_for(world: SimpleNamespace, param: Param) -> tuple[str, ...]:
    if param.choices:
        return param.choices
    return world.values.get(param.name, world.values["id"])


# -- hostile parts -------------------------------------------------------------------------

HOSTILE_SEGMENTS = (
    "%00",
    "1%00",
    "%001",
    "0",
    "-1",
    "+1",
    "01",
    "1.0",
    "1e3",
    "%201",
    "9" * 20,
    "9" * 30,
    "9" * 400,
    str(2**31),
    str(2**63),
    "%D9%A3",  # an Arabic-Indic three
    "%EF%BC%96",  # a full-width six
    "%ED%A0%80",  # a lone surrogate, as UTF-8 would spell it
    "%C0%AE",  # an overlong '.'
    "%FF",
    "%zz",
    "%",
    "..",
    "%2e%2e",
    "a%2Fb",
    "%D0%90%D0%BD%D0%BD%D0%B0",  # Анна
    "%F0%9F%91%A9",  # 👩
    "%3Cscript%3E",
    "%27%20OR%201%3D1",
    "anna%00",
    "preferans%00",
    "PREFERANS",
)
DATES = (
    "99999",
    "9999",
    "10000",
    "0",
    "13",
    "32",
    "2026",
    "99999-01-01",
    "2026-02-31",
    "2026-13-01",
    "0000-00-00",
    "9999-12-31",
    "0001-01-01",
    "2026-01-01 25:61",
)
QUERY_VALUES = (
    *HOSTILE_TEXT,
    *DATES,
    "1",
    "-1",
    "1.-2.3",
    "-0",
    "99",
    "1,2",
    "all",
    "rank",
    "money",
    "asc",
    "desc",
    "preferans",
    "True",
    "\ud83d",
    "9" * 30,
)
PAGE_KEYS = (
    "sort",
    "dir",
    "log",
    "history",
    "season",
    "next",
    "game",
    "count",
    "kind",  # a table page draws its deal form from a deal in its address
    "declarer",
    "language",
    "format",
    "page",
)
ADMIN_KEYS = (
    "q",
    "o",
    "p",
    "e",
    "all",
    "_popup",
    "_to_field",
    "_changelist_filters",
    "term",
    "app_label",
    "model_name",
    "field_name",
)
LOOKUPS = ("", "__exact", "__year", "__month", "__day", "__gte", "__lt", "__in", "__isnull")
LOOKUPS += ("__contains", "__date", "__range", "__id__exact", "__pk")
DATE_PARTS = ("9999", "99999", "10000", "0", "-1", "1", "12", "13", "31", "32", "2026", "9" * 30)


def field_keys(model: Any) -> tuple[str, ...]:
    """A model's fields with each lookup: what a change list's filters read."""
    return tuple(f"{f.name}{lookup}" for f in model._meta.concrete_fields for lookup in LOOKUPS)


#: Each change list of the admin, by its URL name, with its model admin.
CHANGE_LISTS = {
    f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist": model_admin
    for model, model_admin in admin.site._registry.items()
}
QUERY_KEYS = tuple(
    dict.fromkeys(
        [*PAGE_KEYS, *ADMIN_KEYS]
        + [key for model in admin.site._registry for key in field_keys(model)]
    )
)


def encoded(text: str) -> str:
    """``text`` percent-encoded as UTF-8 (a lone surrogate as the bytes UTF-8 would give)."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def segment(world: SimpleNamespace, param: Param) -> st.SearchStrategy[str]:
    """A path segment for ``param``: a real value, a hostile one, or any text."""
    return st.one_of(
        st.sampled_from(values_for(world, param)).map(encoded),
        st.sampled_from(HOSTILE_SEGMENTS),
        st.text(max_size=12).map(encoded),
    )


def query(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{encoded(key)}={encoded(value)}" for key, value in pairs)


VALUES = st.one_of(st.sampled_from(QUERY_VALUES), st.text(max_size=12))


def query_string() -> st.SearchStrategy[str]:
    """Any page's query: the keys the site's pages and the admin read, or any text."""
    key = st.one_of(st.sampled_from(QUERY_KEYS), st.sampled_from(QUERY_KEYS), st.text(max_size=8))
    return st.lists(st.tuples(key, VALUES), max_size=4).map(query)


def change_list_query(model_admin: Any) -> st.SearchStrategy[str]:
    """A change list's query, aimed at what it reads: its date hierarchy (``__year``,
    ``__month``, ``__day``), its model's fields with each lookup, and the admin's own
    parameters (search, ordering, page, popup …)."""
    pairs = [
        st.tuples(st.sampled_from(field_keys(model_admin.model)), VALUES),
        st.tuples(st.sampled_from(ADMIN_KEYS), VALUES),
    ]
    if hierarchy := model_admin.date_hierarchy:
        parts = tuple(f"{hierarchy}__{part}" for part in ("year", "month", "day"))
        pairs.append(st.tuples(st.sampled_from(parts), st.sampled_from(DATE_PARTS)))
    return st.lists(st.one_of(pairs), max_size=4).map(query)


def autocomplete_fields() -> tuple[tuple[str, str, str], ...]:
    """(app_label, model_name, field_name) of every relation the admin's autocomplete
    answers for: one whose related model's admin has search fields."""
    found = []
    for model in admin.site._registry:
        for field in model._meta.get_fields():
            remote = getattr(field, "related_model", None)
            remote_admin = admin.site._registry.get(remote)  # type: ignore[arg-type]
            if field.concrete and remote_admin is not None and remote_admin.search_fields:
                found.append((model._meta.app_label, model._meta.model_name, field.name))
    return tuple(found)


AUTOCOMPLETE = autocomplete_fields()


@st.composite
def requests(draw: st.DrawFn, world: SimpleNamespace) -> dict[str, Any]:
    """One request: a URL pattern filled in, perhaps bent, with a query, method, headers."""
    _name, pieces = draw(st.sampled_from(PATTERNS))
    path = "".join(
        piece if isinstance(piece, str) else draw(segment(world, piece)) for piece in pieces
    )
    bend = draw(st.sampled_from(("as is", "as is", "no slash", "extra segment", "doubled")))
    if bend == "no slash":
        path = path.rstrip("/") or "/"
    elif bend == "extra segment":
        path += draw(st.sampled_from(HOSTILE_SEGMENTS)) + "/"
    elif bend == "doubled":
        path = path.replace("/", "//", 2)
    query = draw(query_string())
    method = draw(
        st.sampled_from(("GET", "GET", "GET", "HEAD", "POST", "OPTIONS", "PUT", "DELETE"))
    )
    headers = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "HTTP_HX_REQUEST": st.just("true"),
                "HTTP_IF_NONE_MATCH": st.sampled_from(('"1"', "*", '"9999999999999999999999"'))
                | st.sampled_from(HOSTILE_TEXT).map(wire),
                "HTTP_IF_MODIFIED_SINCE": st.sampled_from(
                    ("Sat, 29 Oct 1994 19:43:31 GMT", "Fri, 31 Dec 9999 23:59:59 GMT")
                )
                | st.sampled_from(HOSTILE_TEXT).map(wire),
                "HTTP_ACCEPT_LANGUAGE": st.sampled_from(("ru", "en", "xx", "*", "ru;q=x")),
            },
        )
    )
    data = draw(st.dictionaries(st.sampled_from(QUERY_KEYS), st.sampled_from(QUERY_VALUES)))
    return {
        "method": method,
        "url": f"{path}?{query}" if query else path,
        "headers": headers,
        "data": {key: wire(value) for key, value in data.items()},
        "role": draw(st.sampled_from(tuple(world.roles))),
    }


#: What a read may write: the session (django's own) and the sign-in log (django-axes).
MAY_WRITE = re.compile(r'^\s*(?:INSERT INTO|UPDATE|DELETE FROM)\s+"?(?:django_session|axes_)')
WRITES = re.compile(r"^\s*(?:INSERT|UPDATE|DELETE)\b", re.IGNORECASE)


def send(client: CountingClient, request: dict[str, Any]) -> Any:
    """Send one request; anything but a POST must write nothing: no INSERT, UPDATE or
    DELETE reaches the database (a statement is cheaper to watch than the rows)."""
    method, url, headers = request["method"], request["url"], request["headers"]
    if method == "POST":
        return client.post(url, request["data"], **headers)
    with CaptureQueriesContext(connection) as queries:
        response = client.generic(method, url, **headers)
    writes = [q["sql"] for q in queries if WRITES.match(q["sql"]) and not MAY_WRITE.match(q["sql"])]
    assert not writes, f"{method} {url} wrote to the database: {writes[0][:300]}"
    return response


# -- the tests -----------------------------------------------------------------------------


def test_every_url_pattern_answers_every_role(world: SimpleNamespace) -> None:
    """Each pattern once per role, filled with a real value (the first of its kind), as a
    GET: below 500 (counted as the ``urls (each pattern)`` target)."""
    client = CountingClient()
    for role, member in world.roles.items():
        login(client, member)
        for _name, pieces in PATTERNS:
            path = "".join(
                piece if isinstance(piece, str) else encoded(values_for(world, piece)[0])
                for piece in pieces
            )
            with fuzz_input("urls (each pattern)"), rolled_back():
                send(client, {"method": "GET", "url": path, "headers": {}, "role": role})


@fuzz(2000)
@given(data=st.data())
def test_urls(world: SimpleNamespace, data: st.DataObject) -> None:
    request = data.draw(requests(world))
    client = CountingClient()
    with fuzz_input("urls"), rolled_back():
        login(client, world.roles[request["role"]])
        send(client, request)


STAFF = ("organiser", "superuser")


@fuzz(1000)
@given(name=st.sampled_from(sorted(CHANGE_LISTS)), role=st.sampled_from(STAFF), data=st.data())
def test_admin_change_lists(
    world: SimpleNamespace, name: str, role: str, data: st.DataObject
) -> None:
    """Each change list the admin registers (django-axes' sign-in logs too), with a query
    aimed at its date hierarchy, its fields' lookups and the admin's own parameters."""
    url = f"{reverse(name)}?{data.draw(change_list_query(CHANGE_LISTS[name]))}"
    client = CountingClient()
    with fuzz_input("admin change lists"), rolled_back():
        login(client, world.roles[role])
        send(client, {"method": "GET", "url": url, "headers": {}})


@fuzz(200)
@given(
    field=st.sampled_from(AUTOCOMPLETE),
    term=VALUES,
    page=st.one_of(st.none(), VALUES),
    role=st.sampled_from(STAFF),
)
def test_admin_autocomplete(
    world: SimpleNamespace, field: tuple[str, str, str], term: str, page: str | None, role: str
) -> None:
    """The admin's search-as-you-type for every relation it can answer, with any term."""
    app_label, model_name, field_name = field
    pairs = [("app_label", app_label), ("model_name", model_name), ("field_name", field_name)]
    pairs += [("term", term)] + ([("page", page)] if page is not None else [])
    client = CountingClient()
    with fuzz_input("admin autocomplete"), rolled_back():
        login(client, world.roles[role])
        send(
            client,
            {
                "method": "GET",
                "url": f"{reverse('admin:autocomplete')}?{query(pairs)}",
                "headers": {},
            },
        )
