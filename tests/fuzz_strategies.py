"""Shared by ``test_permissions.py`` and ``test_fuzz.py``: a snapshot of everything a
request could write, and hypothesis strategies for hostile input (wrong types, huge
numbers, unicode, strangers' names, other tables' ids).

Not a test module (no ``test_`` prefix): pytest does not collect it.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from hypothesis import strategies as st

# -- what the database holds --------------------------------------------------------------


def _snapshot_spec() -> list[tuple[str, Any, tuple[str, ...] | None]]:
    """What ``db_snapshot`` and ``db_fingerprint`` read: (key, model, fields), the fields
    after the primary key, ``None`` for every column, ``()`` for the number of rows only."""
    from members.models import NOTICE_CHOICES, Member, PushSubscription
    from scoring.models import (
        AccountEntry,
        ApartRequest,
        Attendance,
        AuditEntry,
        BostonCardRow,
        BostonPaymentRow,
        BostonTariff,
        BostonTariffVersion,
        Club,
        DealRecord,
        Evening,
        EveningAnswer,
        EveningTable,
        Guest,
        HistoryImport,
        Notice,
        PreferansTariff,
        PreferansTariffVersion,
        Rating,
        RatingHistory,
        Season,
        Seat,
        Settlement,
        Table,
        Tour,
        Tournament,
        TourSeat,
        TourTable,
    )
    from scoring.models import Entry as TournamentEntry
    from scoring.models import Penalty as TournamentPenalty

    return [
        (
            "tables",
            Table,
            ("status", "revision", "result", "price", "double_tour_from", "preference_suit"),
        ),
        (
            "seats",
            Seat,
            ("table_id", "member_id", "guest_id", "name", "result", "money", "place"),
        ),
        ("guests", Guest, ("name", "evening_id")),
        ("history_imports", HistoryImport, ("digest",)),
        ("deals", DealRecord, ("table_id", "sequence", "deleted", "data")),
        ("audit", AuditEntry, ("table_id", "action", "reason")),
        ("preferans_tariffs", PreferansTariff, None),
        ("boston_tariffs", BostonTariff, None),
        ("payment_rows", BostonPaymentRow, None),
        ("card_rows", BostonCardRow, None),
        ("preferans_versions", PreferansTariffVersion, ("number", "rules")),
        ("boston_versions", BostonTariffVersion, ("number", "rules")),
        ("seasons", Season, None),
        (
            "members",
            Member,
            (
                "username",
                "display_name",
                "email",
                "password",
                "is_active",
                "is_staff",
                "is_superuser",
                *NOTICE_CHOICES,
                "telegram_chat_id",
                "telegram_token",
                "calendar_token",
            ),
        ),
        ("ratings", Rating, ("member_id", "game", "tables")),
        ("rating_history", RatingHistory, ()),
        ("club", Club, None),
        ("evenings", Evening, ("played_on", "place", "game", "table_size", "seed", "draft")),
        ("answers", EveningAnswer, ("evening_id", "member_id", "answer", "queued_at")),
        ("attendances", Attendance, ("evening_id", "member_id", "guest_id", "sits_out")),
        ("apart", ApartRequest, ("evening_id", "first_id", "second_id")),
        ("evening_tables", EveningTable, ("evening_id", "table_id", "round")),
        ("settlements", Settlement, ("evening_id", "payer", "payee", "amount")),
        (
            "tournaments",
            Tournament,
            ("name", "status", "seed", "preferans_version_id", "tours", "points", "finished_at"),
        ),
        ("entries", TournamentEntry, ("tournament_id", "member_id", "guest_id", "checked_in")),
        ("tours", Tour, ("tournament_id", "number", "status", "closed_at")),
        ("tour_tables", TourTable, ("tour_id", "table_id", "extra_minutes")),
        ("tour_seats", TourSeat, ("tour_id", "entry_id", "points")),
        ("penalties", TournamentPenalty, ("entry_id", "category", "points", "reversed_at")),
        ("account_entries", AccountEntry, ("member_id", "amount", "kind", "evening_id")),
        ("push_subscriptions", PushSubscription, ("member_id", "endpoint", "p256dh", "auth")),
        ("notices", Notice, ("member_id", "kind", "key", "channel")),
    ]


def db_snapshot() -> dict[str, Any]:
    """Everything a page of the site can write, in a comparable form: two equal snapshots
    around a refused request prove that it wrote nothing (sessions and django-axes' log of
    sign-in attempts are left out: recording those is the point of a sign-in)."""

    def read(model: Any, fields: tuple[str, ...] | None) -> Any:
        rows = model.objects.order_by("pk")
        if fields is None:
            return list(rows.values())
        if not fields:
            return rows.count()
        return list(rows.values_list("pk", *fields))

    return {key: read(model, fields) for key, model, fields in _snapshot_spec()}


def db_fingerprint() -> dict[str, Any]:
    """``db_snapshot()`` where only its equality matters: on PostgreSQL the same rows and
    columns, each table's as one md5 of its rows' text in primary-key order, all in one
    query (the snapshot's 21 queries and their rows in Python were a third of a permission
    cell's time); elsewhere the snapshot itself. Two fingerprints differ exactly where the
    snapshots would, table by table (a value written back unchanged is no change in
    either)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return db_snapshot()
    with connection.cursor() as cursor:
        cursor.execute(_fingerprint_sql())
        return dict(cursor.fetchall())


@functools.cache
def _fingerprint_sql() -> str:
    from django.db import connection

    quote = connection.ops.quote_name
    parts = []  # SQL from the models' own names, quoted: no input reaches it
    for key, model, fields in _snapshot_spec():
        table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
        if fields == ():
            parts.append(f"SELECT '{key}', count(*)::text FROM {table}")  # noqa: S608
            continue
        if fields is None:
            fields = tuple(f.name for f in model._meta.concrete_fields if not f.primary_key)
        row = ", ".join([pk, *(quote(model._meta.get_field(name).column) for name in fields)])
        rows = f"string_agg(ROW({row})::text, E'\\n' ORDER BY {pk})"
        parts.append(f"SELECT '{key}', md5(coalesce({rows}, '')) FROM {table}")  # noqa: S608
    return " UNION ALL ".join(parts)


def counts(snapshot: dict[str, Any]) -> dict[str, int]:
    """How many rows of each kind a snapshot holds."""
    return {key: value if isinstance(value, int) else len(value) for key, value in snapshot.items()}


# -- hostile values ------------------------------------------------------------------------

HUGE = (10**30, -(10**30), 2**31, 2**31 - 1, 2**63, -(2**63) - 1, 2**64)
HOSTILE_TEXT = (
    "",
    " ",
    "0",
    "-1",
    "1e30",
    "1E+999999",
    "NaN",
    "-Infinity",
    "0x10",
    "1_000",
    "٣",  # an Arabic-Indic three: int("٣") == 3
    "６",  # a full-width six
    "½",
    "Ⅻ",
    "\x00",
    "a\x00b",
    "\ud800",  # a lone surrogate
    "<script>alert(1)</script>",
    "'; DROP TABLE scoring_table; --",
    "{{ 7*7 }}",
    "../../etc/passwd",
    "Анна",
    "👩‍👩‍👧",
    "x" * 201,
    "я" * 5000,
    "9" * 5000,  # more digits than int() reads
    "true",
    "null",
    "[]",
    "{}",
)


def hostile_scalar() -> st.SearchStrategy[Any]:
    """One form value as a browser could send it, from plausible to hostile."""
    return st.one_of(
        st.sampled_from(HOSTILE_TEXT),
        st.sampled_from(HUGE),
        st.integers(min_value=-20, max_value=20),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.text(max_size=30),
        st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    )


def form_value(extra: tuple[Any, ...] = ()) -> st.SearchStrategy[Any]:
    """A POSTed field: a hostile scalar, a name from ``extra``, or several of them (a
    repeated field)."""
    one = hostile_scalar() if not extra else st.one_of(st.sampled_from(extra), hostile_scalar())
    return st.one_of(one, st.lists(one, min_size=2, max_size=3))


def wire(value: Any) -> Any:
    """A value as the test client can encode it: text with lone surrogates would not
    survive UTF-8, so they become the replacement character (as a browser sends them)."""
    if isinstance(value, list):
        return [wire(v) for v in value]
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


def mutated_form(
    base: dict[str, Any],
    keys: tuple[str, ...],
    names: tuple[str, ...] = (),
    *,
    max_changes: int = 4,
) -> st.SearchStrategy[dict[str, Any]]:
    """``base`` with a few fields dropped, replaced by hostile values, or added (known
    field names and random ones)."""
    key = st.one_of(st.sampled_from(keys), st.text(min_size=1, max_size=12))
    change = st.tuples(st.sampled_from(("set", "drop")), key, form_value(names))

    def apply(changes: list[tuple[str, str, Any]]) -> dict[str, Any]:
        data = dict(base)
        for how, name, value in changes:
            if how == "drop":
                data.pop(name, None)
            else:
                data[name] = value
        return {k: wire(v) for k, v in data.items()}

    return st.lists(change, max_size=max_changes).map(apply)


# -- hostile JSON ---------------------------------------------------------------------------

#: Text that JSON can spell (``\u0000``, ``\ud800``) but no database column holds.
JSON_ONLY_TEXT = ("a\x00b", "\ud800", "x\udfffy")

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(HUGE),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(HOSTILE_TEXT).map(wire),
    st.sampled_from(JSON_ONLY_TEXT),
    st.text(max_size=20),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=10), children, max_size=4),
    ),
    max_leaves=12,
)


def json_paths(document: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document a value could be replaced (keys and indexes)."""
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found += json_paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += json_paths(value, (*prefix, index))
    return found


def _replace(document: Any, path: tuple[Any, ...], value: Any, drop: bool) -> Any:
    if not path:
        return value
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    if drop:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return document


def mutated_json(
    document: Any, values: st.SearchStrategy[Any] = json_values, *, max_changes: int = 3
) -> st.SearchStrategy[Any]:
    """A valid JSON document with a few values replaced (or dropped): records that look
    right but carry a hostile value somewhere deep inside."""
    paths = json_paths(document)
    step = st.tuples(st.sampled_from(paths), values, st.booleans())

    def apply(changes: list[tuple[tuple[Any, ...], Any, bool]]) -> Any:
        result = copy.deepcopy(document)
        for path, value, drop in changes:
            try:
                result = _replace(result, path, value, drop and bool(path))
            except (KeyError, IndexError, TypeError):
                continue  # an earlier change removed the place
        return result

    return st.lists(step, min_size=1, max_size=max_changes).map(apply)


def spoiled_json(document: Any) -> st.SearchStrategy[Any]:
    """``document`` with a NUL or half of a surrogate pair put into one of its strings or
    keys: what JSON's ``\\u`` escapes smuggle into a file that otherwise reads right."""
    paths = [path for path in json_paths(document) if path]
    texts = [path for path in paths if isinstance(_value_at(document, path), str)]
    keys = [path for path in paths if isinstance(path[-1], str)]
    bad = st.sampled_from(JSON_ONLY_TEXT)

    def apply(in_key: bool, path: tuple[Any, ...], text: str) -> Any:
        result = copy.deepcopy(document)
        parent = _value_at(result, path[:-1])
        if in_key:
            parent[path[-1] + text] = parent.pop(path[-1])
        else:
            value = parent[path[-1]]
            parent[path[-1]] = value[: len(value) // 2] + text + value[len(value) // 2 :]
        return result

    return st.one_of(
        st.tuples(st.just(False), st.sampled_from(texts), bad),
        st.tuples(st.just(True), st.sampled_from(keys), bad),
    ).map(lambda change: apply(*change))


def _value_at(document: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        document = document[step]
    return document


def upload_bytes(document: Any) -> st.SearchStrategy[bytes]:
    """A file's content: random bytes, random JSON, or the document mutated."""
    return st.one_of(
        st.binary(max_size=200),
        json_values.map(lambda v: json.dumps(v).encode()),
        # Escaped (ASCII), as json.dumps writes it: \u0000 and \ud800 arrive as text.
        mutated_json(document).map(lambda v: json.dumps(v).encode()),
        spoiled_json(document).map(lambda v: json.dumps(v).encode()),
        # Unescaped, a lone surrogate is bytes that are not UTF-8: a file no editor writes.
        mutated_json(document).map(
            lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")
        ),
        mutated_json(document).map(lambda v: json.dumps(v).encode()[:-2]),  # cut short
        st.just(b"\xef\xbb\xbf" + json.dumps(document).encode()),  # a byte-order mark
        st.just(b"[" * 5000 + b"]" * 5000),  # nested too deeply
    )
