"""The sheet's picture within a budget (issue #35 item 3): the biggest sheet the site can
hold (an imported record of the most deals) is drawn in pages of at most
``share.PNG_MAX_HEIGHT`` pixels, once per revision and page, and a request that finds
every render slot taken is answered 503 with ``Retry-After``."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import cache
from django.urls import reverse

from bench.engine import thousand_deal_record
from scoring import selectors, services
from scoring.engine.record import MAX_DEALS
from scoring.live import keys
from scoring.live.fragments import RevisionCache
from scoring.pages import games as game_pages
from scoring.pages import share
from scoring.services.imports import version_for
from tests import factories
from tests.scoring.pages.test_share import png_size

pytestmark = pytest.mark.django_db


@pytest.fixture
def biggest(db):
    """A table of the most deals a record may hold (``MAX_DEALS``), as any member may
    import it."""
    players = [factories.member(name) for name in ("Anna", "Boris", "Vera", "Gleb")]
    record = thousand_deal_record(deals=MAX_DEALS)
    version = version_for(record)
    return services.table_import(record, version=version, members=players, by=players[0])


def picture(table, page: int | None = None) -> str:
    url = reverse("scoring:table_sheet_png", args=[table.pk])
    return url if page is None else f"{url}?page={page}"


def test_the_biggest_sheets_picture_comes_in_pages_of_bounded_size(client, biggest, caplog):
    caplog.set_level(logging.DEBUG, logger="scoring.live.fragments")
    game = game_pages.of_table(biggest)
    svg = game.sheet_svg(biggest, selectors.current(biggest, latest=0).game, RevisionCache(biggest))
    pages = share.picture_pages(svg)
    assert pages > 1  # drawn whole it would be 1200 × 16,000 px or more

    first = client.get(picture(biggest))
    assert first.status_code == 200
    assert png_size(first.content) == (share.PNG_WIDTH, share.PNG_MAX_HEIGHT)
    assert len(first.content) < 1_000_000
    assert first.content == client.get(picture(biggest, 1)).content
    last = client.get(picture(biggest, pages))
    width, height = png_size(last.content)
    assert width == share.PNG_WIDTH
    assert 0 < height <= share.PNG_MAX_HEIGHT
    assert last["ETag"] != first["ETag"]
    made = [r.getMessage() for r in caplog.records if "sheet-png" in r.getMessage()]
    assert len(made) == 2  # page 1 once, whichever way it was asked for; the last page

    assert client.get(picture(biggest, pages + 1)).status_code == 404
    for nonsense in ("0", "-1", "x", "99999"):
        assert client.get(f"{picture(biggest)}?page={nonsense}").status_code == 404


def test_a_short_sheet_is_one_page_drawn_whole(client, table):
    assert png_size(client.get(picture(table)).content) == (1200, 1320)
    assert client.get(picture(table, 2)).status_code == 404


def test_every_render_slot_taken_answers_503_then_the_picture(client, table, settings):
    settings.CLUB_PICTURE_RENDERS = 1
    cache.add(keys.render_slot_key(0), 1, 10)  # another request's render
    busy = client.get(picture(table))
    assert busy.status_code == 503
    assert busy["Retry-After"] == "2"
    assert busy["Cache-Control"] == "no-store"
    cache.delete(keys.render_slot_key(0))
    drawn = client.get(picture(table))
    assert drawn.status_code == 200
    assert png_size(drawn.content) == (1200, 1320)
