"""Every write at a table carries the revision its page showed and a key: reading them,
and answering the write. Each write form at a table carries the table's revision as the
page drew it and a fresh idempotency key (``scoring/_write_fields.html``). The service
checks both under the table's row lock: a key stored already answers as the success it
was, whatever revision it came with (``AlreadyStored``); a key of another kind of write,
deal or table is refused (``KeyReused``, HTTP 400); a revision that is not the table's
any more is refused with what changed meanwhile (``StaleWrite``, HTTP 409). Every write
that succeeds answers with the table's new revision in ``X-Table-Revision`` (a write sent
again: the revision it made the first time). docs/architecture.md tells the whole flow.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from clubsite.http import HtmxHttpRequest, page_or_partial, partial_or_redirect
from clubsite.writes import REFUSED_HEADER, came_from, write_refused
from members.models import Member
from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.models import Table
from scoring.pages.labels import rule_error_text
from scoring.pages.tables import stale_message, table_context, table_for_page

REVISION_HEADER = "X-Table-Revision"


class SignedOut(Exception):
    """A write sent by somebody who is not signed in (any more)."""


def require_write(request: HtmxHttpRequest, allowed: bool) -> None:
    """``PermissionDenied`` unless ``allowed``; a write from a visitor who is not signed in
    (his session expired) is told so instead, keeping what he typed."""
    if allowed:
        return
    if request.method == "POST" and not request.user.is_authenticated:
        raise SignedOut
    raise PermissionDenied


def table_write(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view that writes at table ``pk``: a write from a member whose session expired gets
    the message, a way to sign in again and what he typed (``clubsite.writes``)."""

    @wraps(view)
    def write(request: HtmxHttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, pk, *args, **kwargs)
        except SignedOut:
            problem = _(
                "You are not signed in (perhaps your session has expired), so nothing was "
                "saved. What you typed is kept: sign in again and come back to the table."
            )
            back = came_from(request, reverse("scoring:table_detail", args=[pk]))
            return write_refused(request, problem, come_back=back)

    return write


def revision_and_key(request: HtmxHttpRequest) -> services.Drawn:
    """The revision and key a write carries; ``RuleError`` when it has no revision (a page
    from before the site asked for one, a hand-made request) or a key that is no UUID."""
    revision = int_or_none(request.POST.get("revision"))
    if revision is None or revision < 0:
        raise RuleError(
            _(
                "Nothing was saved: the form does not say which state of the table it was "
                "filled in for. Open the table again and repeat."
            ),
            field="revision",
        )
    raw = request.POST.get("write_key") or ""
    try:
        key = uuid.UUID(raw) if raw else None
    except ValueError:
        raise RuleError(
            _("Nothing was saved: the form's key is damaged. Open the table again and repeat."),
            field="write_key",
        ) from None
    return services.Drawn(revision, key)


def kept_write(request: HtmxHttpRequest, prefix: str) -> dict[str, Any]:
    """The revision and key a form was posted with, for the same form drawn again (a
    redraw, errors, a preview): it stays the write the scorer began on the page he saw."""
    return {
        f"{prefix}_revision": request.POST.get("revision", ""),
        f"{prefix}_key": request.POST.get("write_key", ""),
    }


def refusal(response: HttpResponse, status: int) -> HttpResponse:
    """``response`` as the answer to a write that stored nothing: ``status`` (htmx swaps it
    by base.html's ``responseHandling``), and marked so that the middleware lets it be
    swapped (``clubsite.middleware.HtmxErrorPageMiddleware``)."""
    response.status_code = status
    response[REFUSED_HEADER] = "1"
    return response


def stale_answer(
    request: HtmxHttpRequest,
    table: Table,
    stale: services.StaleWrite,
    page: Callable[[str], HttpResponse] | None = None,
) -> HttpResponse:
    """A stale write refused (409): htmx gets the table afresh with the message; a plain
    POST its ``page`` again with the message (by default the table page)."""
    message = stale_message(table, stale.seen)
    if page is None or request.htmx:
        return refusal(table_page(request, table, refused=message), 409)
    return refusal(page(message), 409)


def with_revision(response: HttpResponse, pk: int, revision: int | None = None) -> HttpResponse:
    """A successful write's answer, with the table's new revision."""
    if revision is None:
        revision = Table.objects.values_list("revision", flat=True).get(pk=pk)
    response[REVISION_HEADER] = str(revision)
    return response


def after_write(
    request: HtmxHttpRequest,
    table: Table,
    message: str,
    state: selectors.TableState | None = None,
    revision: int | None = None,
) -> HttpResponse:
    """htmx: the fresh sheet and an empty form (drawn from ``state`` when the write
    advanced it); others: back to the table page. Either way with the new revision (or
    ``revision``, the one a write sent again made the first time)."""
    response = partial_or_redirect(
        request,
        lambda: table_page(request, table, state, saved=message),
        reverse("scoring:table_detail", args=[table.pk]),
        message=message,
    )
    return with_revision(response, table.pk, revision)


def write_answer(
    request: HtmxHttpRequest,
    table: Table,
    done: str,
    write: Callable[[], object],
    stale_page: Callable[[str], HttpResponse] | None = None,
) -> HttpResponse:
    """Make a table ``write`` and answer it: ``done`` (also when it was stored already: sent
    twice, the first one is the table now), refused as stale (409, ``stale_page`` again
    for a plain POST) or by the rules."""
    try:
        write()
    except services.AlreadyStored as stored:
        return after_write(request, table, done, revision=stored.revision)
    except services.StaleWrite as stale:
        return stale_answer(request, table, stale, stale_page)
    except RuleError as error:
        return refuse(request, table, error)
    return after_write(request, table, done)


def table_page(
    request: HtmxHttpRequest,
    table: Table,
    state: selectors.TableState | None = None,
    **extra: Any,
) -> HttpResponse:
    """The table page again (read afresh unless ``state`` is current); for htmx its whole
    body, wherever the write's form aimed."""
    return page_or_partial(
        request,
        "scoring/table_detail.html#table-body",
        lambda: table_context(
            request, table_for_page(table.pk) if state is None else state.table, state, **extra
        ),
        retarget_to="#table-body",
    )


def member_of(request: HtmxHttpRequest) -> Member:
    user = request.user
    assert isinstance(user, Member)  # noqa: S101 - callers check can_score first
    return user


def int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def refuse(request: HtmxHttpRequest, table: Table, error: RuleError) -> HttpResponse:
    # A correction refused for a later deal names that deal (and its field).
    refused = rule_error_text(error, located=error.deal is not None)
    if error.field in ("revision", "write_key"):  # a request without its revision, say
        return refusal(table_page(request, table, refused=refused), 400)
    return partial_or_redirect(
        request,
        lambda: table_page(request, table, refused=refused),
        reverse("scoring:table_detail", args=[table.pk]),
        message=refused,
        level=messages.ERROR,
    )


def finished_refusal() -> RuleError:
    return RuleError(_("the table is finished; an organiser can reopen it"), field="table")
