"""Pushed updates: when a table's revision moves, its viewers are told at once.

After the write commits (``revisions.table_moved``), one event is published to Pushpin
(django-eventstream over GRIP: ``GRIP_URL``) on the table's channel, on the channel of the
tables in play (the home page's cards) and on its evening's, if it has one. An event says
only which revision the table is at: each page then fetches its changed regions as its
poll does (static/js/live.js), so the sheets are rendered once per revision whoever asks
(``live.fragments``), and nothing a viewer may not see travels on a channel. The channels
are named as clubsite/urls.py subscribes to them."""

from __future__ import annotations

import logging

from django.conf import settings
from django_eventstream import send_event

from scoring.models import EveningTable

EVENT = "revision"
"""The event's type, as static/js/live.js listens for it."""

logger = logging.getLogger(__name__)


def table_channel(pk: int) -> str:
    return f"table-{pk}"


IN_PLAY_CHANNEL = "in-play"


def evening_channel(pk: int) -> str:
    return f"evening-{pk}"


def announce(pk: int, revision: int) -> None:
    """Tell the pages of table ``pk``, the tables in play and its evening that the table is
    at ``revision`` (nothing without a push server: the pages poll)."""
    if not settings.GRIP_URL:
        return
    data = {"table": pk, "revision": revision}
    channels = [table_channel(pk), IN_PLAY_CHANNEL]
    evening = EveningTable.objects.filter(table_id=pk).values_list("evening_id", flat=True).first()
    if evening is not None:
        channels.append(evening_channel(evening))
    for channel in channels:
        # Published from a thread of django-grip's: the answer to the write does not wait.
        send_event(channel, EVENT, data)
    logger.debug("announced table %s at revision %s", pk, revision)
