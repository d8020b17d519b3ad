"""Notifications: a finished table and an evening's summary, e-mailed to the members who
asked for them (``Member.wants_email``) and posted to the club's Telegram chat when the
club has one (``scoring.telegram``). All of it is background work
(docs/architecture.md, "Background work"; docs/evenings.md, "Notifications").

Two steps, both tasks:

1. The event enqueues one task naming what happened (``table_finished_task``,
   ``evening_summary_task``), **once the transaction commits** (``on_commit``), not inside
   it as the ratings do: what it sets off leaves the site (an e-mail, a chat post) and
   cannot be taken back, so it must not go out for a finish that then rolls back; under
   the immediate backend it would also hold the table's row lock through an SMTP or HTTP
   conversation. The price, under the database backend, is a notice lost if the process
   dies between the commit and the enqueue: a notice missing, never a wrong one.
2. That task reads the table or evening as committed, draws the sheet once, and enqueues
   one sending task per message: ``members.tasks.send_email`` per member and
   ``telegram_post`` per chat post. Each is retried on its own (``again_later``), so one
   mailbox or the chat being down never sends the others' messages twice.

The texts are the site's language (``LANGUAGE_CODE``): a worker has no request to take one
from.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.tasks import task
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from members.models import Member
from members.tasks import Attachment, again_later, attachment, enqueue_logged, send_email
from scoring import selectors, telegram
from scoring.engine.errors import RuleError
from scoring.live.fragments import RevisionCache, cached
from scoring.live.keys import sheet_picture_key
from scoring.models import AuditEntry, Club, Evening, Table, Tour
from scoring.pages import games as game_pages
from scoring.pages import share
from scoring.pages import tournaments as tournament_pages
from scoring.selectors import evenings as evening_selectors
from scoring.selectors import tournaments as tournament_selectors
from scoring.services import locking, notices
from scoring.services.accounts import evening_table_money_draw

logger = logging.getLogger(__name__)

_paused: ContextVar[bool] = ContextVar("notifications_paused", default=False)


@contextmanager
def paused() -> Iterator[None]:
    """Announce nothing set off inside the block: the demo club's tables, say, which
    nobody played tonight."""
    token = _paused.set(True)
    try:
        yield
    finally:
        _paused.reset(token)


def after_table_finish(table: Table) -> None:
    """Called by ``table_finish`` inside its transaction: once it commits, announce the
    finished table (this revision of it)."""
    if not _paused.get():
        transaction.on_commit(
            partial(enqueue_logged, table_finished_task, table_id=table.pk, revision=table.revision)
        )


def after_seating(evening: Evening, member_ids: set[int]) -> None:
    """Called by ``evening_answer`` inside its transaction when an answer gives a seat to
    members who were waiting: once it commits, tell them (``notices.seated_task``)."""
    if member_ids and not _paused.get():
        transaction.on_commit(
            partial(
                enqueue_logged,
                notices.seated_task,
                evening_id=evening.pk,
                member_ids=sorted(member_ids),
            )
        )


@task
def table_finished_task(*, table_id: int, revision: int, attempt: int = 1) -> str:
    """E-mail each seated member who wants it the result and the sheet, and post both to
    the club's chat. Nothing if the table has moved on since (reopened: its next finish
    announces it) or was imported (a game played before, not tonight's table). A try that
    fails (the database, the drawing) enqueues nothing and is tried again later."""
    try:
        return _announce_table(table_id, revision)
    except Exception as error:
        return again_later(
            table_finished_task,
            error,
            attempt=attempt,
            what=f"the notices of the finish of table {table_id}",
            table_id=table_id,
            revision=revision,
        )


def _mark_announced(table_id: int, revision: int) -> bool:
    """Whether this finish was not announced yet (and is now, once the caller commits); the
    row is locked by the update until then, so two tries cannot both announce it."""
    unannounced = Table.objects.filter(pk=table_id, revision=revision).exclude(
        announced_revision=revision
    )
    return unannounced.update(announced_revision=revision) == 1


def _announce_table(table_id: int, revision: int) -> str:
    table = Table.objects.filter(pk=table_id, revision=revision, status=Table.FINISHED).first()
    if table is None:
        return "the table has moved on"
    if table.audit.filter(action=AuditEntry.IMPORT).exists():
        return "imported: not announced"
    with translation.override(settings.LANGUAGE_CODE):
        context = _table_context(table)
        context["club"] = Club.shown(settings.LANGUAGE_CODE).name
        picture = sheet_picture(table)
        context["picture"] = picture is not None
        files = [attachment(f"table-{table.pk}.png", picture, "image/png")] if picture else []
        subject = render_to_string("scoring/email/table_finished_subject.txt", context)
        lines = notices.table_lines(table)

        def body(member: Member) -> str:
            mine = {"mine": lines.get(member.pk, "")}
            return render_to_string("scoring/email/table_finished.txt", context | mine)

        caption = render_to_string("scoring/telegram/table_finished.txt", context).strip()
        to = [seat.member for seat in context["seats"] if seat.member_id is not None]
        # Under the database backend the messages' tasks commit together or not at all, with
        # the finish marked announced: a try that fails half-way leaves nothing to send
        # twice when it is tried again, and a try run again after its worker died once
        # they were queued (manage.py task_worker) finds them queued and queues nothing.
        with transaction.atomic():
            if not _mark_announced(table_id, revision):
                return "announced already"
            sent = _email(to, "email_table_finished", subject, body, files)
            posted = _post([caption[: telegram.CAPTION_LIMIT]], picture)
            own = notices.table_notices(
                table, revision=revision, url=context["url"], subject=" ".join(subject.split())
            )
    return f"{sent} e-mail(s), {posted} post(s)" + (f", {own} own message(s)" if own else "")


def _table_context(table: Table) -> dict[str, Any]:
    seats = list(table.seats.select_related("member").order_by("position"))
    return {
        "table": table,
        "seats": seats,
        "url": site_url(reverse("scoring:table_detail", args=[table.pk])),
    }


def sheet_picture(table: Table) -> bytes | None:
    """The table's drawn sheet as a PNG (``share.sheet_png``; its first page, for a sheet
    taller than a picture's), kept under its revision as the page's picture is
    (``/tables/<id>/sheet.png``) and drawn in one of the same render slots; ``None`` for a
    game without a drawing (Boston)."""
    game = game_pages.of_table(table)
    if not game.draws_sheet:
        return None

    def draw() -> bytes:
        engine = selectors.current(table, latest=0).game
        return share.sheet_png(game.sheet_svg(table, engine, RevisionCache(table)))

    return cached(sheet_picture_key(table), draw, slots=settings.CLUB_PICTURE_RENDERS)


def site_url(path: str) -> str:
    """``path`` on the site, as a member opens it (``SITE_URL``)."""
    return f"{settings.SITE_URL}{path}"


def _email(
    members: list[Member],
    choice: str,
    subject: str,
    body: str | Callable[[Member], str],
    files: list[Attachment],
) -> int:
    """Enqueue the message to each of ``members`` who wants e-mail about ``choice``
    (``body``: the same for all, or each one's own)."""
    wanted = [member for member in members if member.wants_email(choice)]
    one_line = " ".join(subject.split())
    club = Club.shown(settings.LANGUAGE_CODE).name  # the sender's name, as the pages show it
    for member in wanted:
        send_email.enqueue(
            subject=one_line,
            body=body if isinstance(body, str) else body(member),
            to=[member.email],
            attachments=files or None,
            sender=club,
        )
    return len(wanted)


def _post(texts: list[str], picture: bytes | None = None) -> int:
    """Enqueue the chat posts (the picture with the first text as its caption), if the
    club has a chat."""
    if not telegram.configured():
        return 0
    for n, text in enumerate(texts):
        if n == 0 and picture is not None:
            photo = base64.b64encode(picture).decode("ascii")
            telegram_post.enqueue(text=text, photo=photo)
        else:
            telegram_post.enqueue(text=text)
    return len(texts)


@task
def telegram_post(*, text: str, photo: str | None = None, attempt: int = 1) -> str:
    """Post ``text`` (with ``photo``, a base64 PNG, as its caption) to the club's chat. A
    failure that may pass (the API or the network down, "too many requests") is tried
    again later; one that will not (a wrong token or chat) fails the task at once."""
    try:
        if photo is None:
            telegram.send_message(text)
        else:
            telegram.send_photo(base64.b64decode(photo), text)
    except telegram.TelegramError as error:
        if not error.retry:
            raise
        return again_later(
            telegram_post,
            error,
            attempt=attempt,
            what="a Telegram post",
            text=text,
            **({"photo": photo} if photo is not None else {}),
        )
    return "posted"


def evening_close(*, evening: Evening, by: Member) -> int:
    """Close the evening: send its summary (who played where, the results, who pays whom)
    to each member checked in who wants it, and to the club's chat, once: the evening is
    marked closed (who, when) in the same transaction, and a second close is refused. The
    club's table money is drawn from the checked-in members' accounts in that transaction.
    Refused too while a table is in play or before any has finished. The number of
    e-mails to be sent."""
    with transaction.atomic():
        evening = locking.lock_row(evening)
        if evening.closed_at is not None:
            raise RuleError(_("the evening is closed already"), field="evening")
        sent = _close(evening, by)
        evening_table_money_draw(evening=evening, by=by)
        Evening.objects.filter(pk=evening.pk).update(closed_at=timezone.now(), closed_by=by)
    return sent


def _close(evening: Evening, by: Member) -> int:
    tables = evening_selectors.evening_tables(evening)
    in_play = sum(table.is_open for table in tables)
    if in_play:
        raise RuleError(
            ngettext(
                "%(n)s table is still in play: finish it first",
                "%(n)s tables are still in play: finish them first",
                in_play,
            )
            % {"n": in_play},
            field="evening",
        )
    if not tables:
        raise RuleError(_("no table of this evening has been played"), field="evening")
    recipients = summary_recipients(evening)
    if not _paused.get():
        transaction.on_commit(partial(enqueue_logged, evening_summary_task, evening_id=evening.pk))
    logger.info("%s closed the evening %s", by.username, evening.pk)
    return len(recipients)


def summary_recipients(evening: Evening) -> list[Member]:
    """The members checked in at the evening who want its summary e-mailed."""
    attended = Member.objects.filter(attendances__evening=evening).order_by("pk")
    return [member for member in attended if member.wants_email("email_evening_summary")]


def summary_context(evening: Evening) -> dict[str, Any]:
    """What the summary says: the evening's tables with each seat's money, and the
    ledger."""
    return {
        "evening": evening,
        "tables": evening_selectors.evening_tables(evening),
        "ledger": evening_selectors.ledger(evening),
        "url": site_url(reverse("scoring:evening_ledger", args=[evening.pk])),
    }


def summary_text(context: dict[str, Any], language: str | None = None) -> str:
    """The summary as the chat gets it (and the e-mail, above its footer), in the club's
    language (``LANGUAGE_CODE``) unless ``language`` is given.

    What is sent stays in the club's language: the chat is one post read by every member,
    whatever language each chose, and the worker that sends has no request to take a
    language from. The closing page previews it in the organiser's own language
    (``language``), so that the page speaks one language; it says that what goes out is
    in the club's."""
    with translation.override(language or settings.LANGUAGE_CODE):
        return render_to_string("scoring/telegram/evening_summary.txt", context).strip()


@task
def evening_summary_task(*, evening_id: int, attempt: int = 1) -> str:
    """E-mail the evening's summary to each member checked in who wants it, and post it
    to the club's chat (in parts, if it is longer than one message may be). A try that
    fails enqueues nothing and is tried again later."""
    try:
        return _announce_evening(evening_id)
    except Exception as error:
        return again_later(
            evening_summary_task,
            error,
            attempt=attempt,
            what=f"the summary of evening {evening_id}",
            evening_id=evening_id,
        )


def _announce_evening(evening_id: int) -> str:
    evening = Evening.objects.filter(pk=evening_id).first()
    if evening is None:
        return "the evening is gone"
    with translation.override(settings.LANGUAGE_CODE):
        context = summary_context(evening)
        context["club"] = Club.shown(settings.LANGUAGE_CODE).name
        subject = render_to_string("scoring/email/evening_summary_subject.txt", context)
        body = render_to_string("scoring/email/evening_summary.txt", context)
        text = summary_text(context)
        with transaction.atomic():  # every message's task or none (as for a table)
            sent = _email(summary_recipients(evening), "email_evening_summary", subject, body, [])
            posted = _post(split_text(text, telegram.TEXT_LIMIT))
            attended = Member.objects.filter(attendances__evening=evening).order_by("pk")
            own = notices.summary_notices(
                evening,
                attended.prefetch_related("push_subscriptions"),
                split_text(text, telegram.TEXT_LIMIT - 200)[0],
                context["url"],
            )
    return f"{sent} e-mail(s), {posted} post(s)" + (f", {own} own message(s)" if own else "")


def split_text(text: str, limit: int) -> list[str]:
    """``text`` in parts of at most ``limit`` characters, cut between lines where it can
    be (a line longer than ``limit`` is cut within); blank lines where it is cut are
    dropped (a message neither starts nor ends with one)."""
    parts: list[str] = []
    current = ""
    for line in text.splitlines():
        for piece in [line[i : i + limit] for i in range(0, len(line), limit)] or [""]:
            candidate = f"{current}\n{piece}" if current else piece
            if len(candidate) > limit:
                parts.append(current)
                candidate = piece
            current = candidate
    parts.append(current)
    return [part.strip("\n") for part in parts if part.strip("\n")]


# -- a tour closed (issue 32: the tournament's post after each tour) ------------------------

TOUR_STANDINGS_SHOWN = 12
"""The standings lines a tour's post lists; the rest are «… and N more» (the link has all)."""


def after_tour_close(tour: Tour) -> None:
    """Post the tour's results and the standings after it to the club's chat, once the
    transaction that closed it commits (nothing while notifications are paused)."""
    if _paused.get():
        return
    transaction.on_commit(partial(enqueue_logged, tour_closed_task, tour_id=tour.pk))


def tour_context(tour: Tour) -> dict[str, Any]:
    """What the tour's post says: each table's players with their result and tour points,
    the byes, the standings after the tour (the first ``TOUR_STANDINGS_SHOWN`` lines) and
    the tournament's address."""
    tournament = tour.tournament
    played = tournament_selectors.tours(tournament)
    view = next(v for v in tournament_pages.tour_views(played) if v.tour.pk == tour.pk)
    standings = tournament_pages.standings_view(
        tournament_selectors.standings(tournament, played=played, upto=tour.number)
    )
    lines = standings.lines
    return {
        "tournament": tournament,
        "tour": tour,
        "view": view,
        "lines": lines[:TOUR_STANDINGS_SHOWN],
        "more": max(len(lines) - TOUR_STANDINGS_SHOWN, 0),
        "url": site_url(reverse("scoring:tournament_detail", args=[tournament.pk])),
    }


def tour_text(context: dict[str, Any]) -> str:
    """The tour's post, in the club's language (as the evening's summary)."""
    with translation.override(settings.LANGUAGE_CODE):
        return render_to_string("scoring/telegram/tour_closed.txt", context).strip()


@task
def tour_closed_task(*, tour_id: int, attempt: int = 1) -> str:
    """Post a closed tour's results and standings to the club's chat (in parts, if longer
    than one message may be). A try that fails enqueues nothing and is tried again."""
    try:
        return _announce_tour(tour_id)
    except Exception as error:
        return again_later(
            tour_closed_task,
            error,
            attempt=attempt,
            what=f"the post of tour {tour_id}",
            tour_id=tour_id,
        )


def _announce_tour(tour_id: int) -> str:
    tour = Tour.objects.select_related("tournament").filter(pk=tour_id).first()
    if tour is None or not tour.is_closed:
        return "the tour is gone or open again"
    with translation.override(settings.LANGUAGE_CODE):
        text = tour_text(tour_context(tour))
        with transaction.atomic():  # every part's task or none
            posted = _post(split_text(text, telegram.TEXT_LIMIT))
    return f"{posted} post(s)"
