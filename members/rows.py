"""The signed-in member's row kept in the shared cache between his requests.

Every request of a signed-in member loads him (``MemberBackend.get_user``): a query that
took more of his request than anything but the page itself. Under gunicorn his bare
request answered 36–38% as many requests a second as a visitor's; with the row kept,
57–58% (docs/performance.md). The row is kept only in a cache every process shares (Redis,
``clubsite.cache.shared``): what one process changes, every other must see on the next
request, or a member made inactive, or whose password changed (which signs his other
sessions out), would stay signed in wherever the old row was kept.

What is kept:

- every column but the password, whose hash never leaves the database: in its place the
  session's check of it (``get_session_auth_hash``, the HMAC of the hash that Django
  compares with the one in the session, and that each session holds already). A page that
  asks for the password itself (whether he has one) loads it then;
- whether he is an organiser (``in_organisers``).

The key carries a digest of the columns and the site's secret: a deploy that adds a column
reads none of the rows kept before it, and a new ``SECRET_KEY`` (which signs every session
out) none of the checks made with the old one.

A kept row is dropped whenever what it holds changes: the member saved or deleted, his
groups changed, a group he is in renamed or deleted (the signals below; code that changes
members in bulk saves them one by one instead, as ``services.notices`` does). Dropped
means replaced by a marker for ``MARKER_SECONDS``, now and again when the transaction
commits: a request that read the row just before the change cannot keep it again
meanwhile (it only ``add``s); his requests read the database until the marker goes. What
no signal tells (``flush``, a dump restored beneath a running Redis) lasts
``KEEP_SECONDS`` at most. Apart from that, a kept row is the database's row: a view that
saves the member of the request (his settings, his new password) writes back the columns
it read, as it did when they came from the database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache as memoized
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete
from django.dispatch import receiver
from django.utils.crypto import salted_hmac

from clubsite.cache import shared
from members.models import Member

KEEP_SECONDS = 60
"""How long a row is kept: the longest a change goes unseen when it could not drop the row
(made without a signal, as ``flush`` or a restored dump; made while Redis did not answer,
``clubsite.cache``). A member's row is then read once a minute, not once a request."""

MARKER_SECONDS = 10
"""How long a dropped row may not be kept again: longer than a request takes between
reading the row and keeping it."""

_DROPPED = "dropped"

_FIELDS = tuple(f.attname for f in Member._meta.concrete_fields if f.attname != "password")


@memoized
def _tag(secret: str) -> str:
    joined = ",".join(_FIELDS)
    return salted_hmac("members.rows", joined, secret=secret, algorithm="sha256").hexdigest()[:16]


def _key(pk: Any) -> str:
    return f"member-row:{_tag(settings.SECRET_KEY)}:{int(pk)}"


def recall(pk: Any, load: Callable[[], Member | None]) -> Member | None:
    """Member ``pk`` as the shared cache keeps him, else ``load()``ed and kept."""
    if not shared():
        return load()
    key = _key(pk)
    kept = cache.get(key)
    if isinstance(kept, tuple):
        return _member(kept)
    member = load()
    if member is not None and kept is None:  # not while the row is marked dropped
        cache.add(key, _row(member), KEEP_SECONDS)
    return member


def forget(pks: Iterable[Any]) -> None:
    """Drop the kept rows of members ``pks``, now and when the transaction commits."""
    if not shared():
        return
    markers = {_key(pk): _DROPPED for pk in pks}
    if markers:
        cache.set_many(markers, MARKER_SECONDS)
        transaction.on_commit(lambda: cache.set_many(markers, MARKER_SECONDS))


def _row(member: Member) -> tuple[Any, ...]:
    values = tuple(getattr(member, name) for name in _FIELDS)
    organiser = getattr(member, "in_organisers", None)
    return (values, organiser, member.get_session_auth_hash())


def _member(row: tuple[Any, ...]) -> Member:
    values, organiser, session_hash = row
    member = Member.from_db(DEFAULT_DB_ALIAS, _FIELDS, values)  # the password deferred
    member.in_organisers = organiser  # type: ignore[attr-defined]  # the backend's annotation
    member.kept_session_hash = session_hash
    return member


@receiver(post_save, sender=Member)
@receiver(post_delete, sender=Member)
def _member_changed(sender: Any, instance: Member, **kwargs: Any) -> None:
    forget([instance.pk])


@receiver(m2m_changed, sender=Member.groups.through)
def _groups_changed(
    sender: Any, instance: Any, action: str, reverse: bool, pk_set: set[Any] | None, **kwargs: Any
) -> None:
    if action not in ("post_add", "post_remove", "pre_clear"):
        return
    if not reverse:  # member.groups.add(…): his own row
        forget([instance.pk])
    elif pk_set is not None:  # group.user_set.add(…): these members'
        forget(pk_set)
    else:  # group.user_set.clear(), before: whoever is in it
        forget(instance.user_set.values_list("pk", flat=True))


@receiver(post_save, sender=Group)
@receiver(pre_delete, sender=Group)
def _group_changed(sender: Any, instance: Group, **kwargs: Any) -> None:
    # Renamed to or from Organisers, or deleted: whether its members are organisers.
    if instance.pk is not None:
        forget(instance.user_set.values_list("pk", flat=True))
