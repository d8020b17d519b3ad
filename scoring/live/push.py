"""Pushed updates: when a table's revision moves, its viewers are told at once.

After the write commits (``revisions.table_moved``), one event is published to Pushpin
(django-eventstream over GRIP: ``GRIP_URL``) on the table's channel, on the channel of the
tables in play (the home page's cards), on its evening's, if it has one, and on its
tournament's, if it is a table of a tour. A tournament's channel also hears of a tour
seated or closed and of a penalty given or reversed (``tournament_changed``, from
``services.tournaments`` once the write commits). The channel of
the tables in play, which every open home page hears, is told at most about once a second
(``announce_in_play``). An event says
only which revision the table is at: each page then fetches its changed regions as its
poll does (static/js/live.js), so the sheets are rendered once per revision whoever asks
(``live.fragments``), and nothing a viewer may not see travels on a channel. The channels
are named as clubsite/urls.py subscribes to them."""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django_eventstream import send_event

from scoring.live.keys import in_play_announced_key, in_play_held_key
from scoring.models import Table

EVENT = "revision"
"""The event's type, as static/js/live.js listens for it."""

logger = logging.getLogger(__name__)


def table_channel(pk: int) -> str:
    return f"table-{pk}"


IN_PLAY_CHANNEL = "in-play"

IN_PLAY_SECONDS = 1
"""The least time between two announcements to the tables in play. Every open home page
hears that channel and fetches its cards at most every 2 s whatever it hears
(static/js/live.js), so more events would only cost Pushpin and the phones: at 5,000 tables
in play, a deal a minute at each, one event per save would be 83 a second to every home
page open (docs/performance.md)."""


def evening_channel(pk: int) -> str:
    return f"evening-{pk}"


def tournament_channel(pk: int) -> str:
    return f"tournament-{pk}"


def announce(pk: int, revision: int) -> None:
    """Tell the pages of table ``pk``, the tables in play, its evening and its tournament
    that the table is at ``revision`` (nothing without a push server: the pages poll)."""
    if not settings.GRIP_URL:
        return
    data = {"table": pk, "revision": revision}
    # Published from a thread of django-grip's: the answer to the write does not wait.
    send_event(table_channel(pk), EVENT, data)
    announce_in_play(data)
    channels = []
    # One query for both: a table is at most one evening's and one tour's.
    evening, tournament = (
        Table.objects.filter(pk=pk)
        .values_list("evening_link__evening", "tour_link__tour__tournament")
        .first()
    ) or (None, None)
    if evening is not None:
        channels.append(evening_channel(evening))
    if tournament is not None:
        channels.append(tournament_channel(tournament))
    for channel in channels:
        send_event(channel, EVENT, data)
    logger.debug("announced table %s at revision %s", pk, revision)


def announce_in_play(data: dict[str, Any]) -> None:
    """Tell the tables in play's channel ``data``, unless it was told less than
    ``IN_PLAY_SECONDS`` ago (by any app server sharing the cache: the claim is ``cache.add``,
    atomic in Redis): then the latest such news is held and sent when that second is over,
    so the last change is never left untold."""
    if cache.add(in_play_announced_key(), 1, IN_PLAY_SECONDS):
        send_event(IN_PLAY_CHANNEL, EVENT, data)
        return
    first_held = cache.add(in_play_held_key(), data, 10 * IN_PLAY_SECONDS)
    if not first_held:
        cache.set(in_play_held_key(), data, 10 * IN_PLAY_SECONDS)  # the latest is told
        return
    timer = threading.Timer(IN_PLAY_SECONDS, _announce_held)
    timer.daemon = True
    timer.start()


def _announce_held() -> None:
    data = cache.get(in_play_held_key())
    if data is None or not cache.delete(in_play_held_key()):
        return  # another process's timer told it
    cache.set(in_play_announced_key(), 1, IN_PLAY_SECONDS)
    send_event(IN_PLAY_CHANNEL, EVENT, data)


def tournament_changed(pk: int) -> None:
    """Tell tournament ``pk``'s pages that its standings or tours changed (a tour seated or
    closed, a penalty given or reversed). The event carries no revision: each region
    listening is fetched again (static/js/live.js)."""
    if not settings.GRIP_URL:
        return
    send_event(tournament_channel(pk), EVENT, {"tournament": pk})
    logger.debug("announced tournament %s", pk)
