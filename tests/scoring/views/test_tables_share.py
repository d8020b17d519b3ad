"""Sharing a table through real HTTP (issue 14 item 7): the link, its QR code and the share
button on the table page, and the sheet as a PNG picture at ``/tables/<id>/sheet.png``,
drawn once per revision."""

from __future__ import annotations

import html
import logging
import re

import pytest
from django.urls import reverse

from scoring.models import Epoch
from scoring.pages import share
from tests import factories
from tests.factories import FIRST_GAME, HTMX, post_deal
from tests.scoring.pages.test_share import drawn_modules, png_size, segno_modules

pytestmark = pytest.mark.django_db

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def page_url(table) -> str:
    """The table page's public address, as the test client's requests name the host."""
    return f"http://testserver/tables/{table.pk}/"


def picture_url(table) -> str:
    return reverse("scoring:table_sheet_png", args=[table.pk])


def made(caplog, kind: str) -> list[str]:
    """The fragments of ``kind`` made so far (live.fragments logs each one it makes, as the
    load run counts the sheets)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "scoring.live.fragments" and r.getMessage().startswith(f"made {kind}:")
    ]


@pytest.fixture
def fragments_log(caplog):
    caplog.set_level(logging.DEBUG, logger="scoring.live.fragments")
    return caplog


def embedded(pattern: str, page: str) -> str:
    (found,) = re.findall(pattern, page, flags=re.DOTALL)
    return found


# -- the picture -------------------------------------------------------------------------------


def test_the_sheet_as_a_png_1200_pixels_wide(client, table):
    """A new pulka of three: its sheet is 600 × 660 user units, drawn twice as large."""
    response = client.get(picture_url(table))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response.content.startswith(PNG_SIGNATURE)
    assert png_size(response.content) == (1200, 1320)
    assert response["Cache-Control"] == "public, no-cache"
    # The version is the database's epoch, the table's revision and the language.
    assert response["ETag"] == f'"{table.pk}-{Epoch.current()}.{table.revision}-en-png"'
    assert response["Content-Disposition"] == f'inline; filename="table-{table.pk}.png"'


def test_the_picture_is_the_pages_own_svg(client, table, anna):
    """The same drawing the page shows, not another one: the page's SVG, rendered the
    picture's way, gives the picture's very bytes."""
    post_deal(client, table, FIRST_GAME)
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    svg = embedded(
        r'(<svg xmlns="http://www.w3.org/2000/svg"[^>]*class="pulka-sheet.*?</svg>)', page
    )
    assert client.get(picture_url(table)).content == share.sheet_png(svg)


def test_the_picture_is_drawn_once_per_revision(client, table, anna, fragments_log):
    first = client.get(picture_url(table))
    assert len(made(fragments_log, "sheet-png")) == 1
    again = client.get(picture_url(table))  # a crawler that keeps no ETag
    assert again.content == first.content
    assert len(made(fragments_log, "sheet-png")) == 1
    assert len(made(fragments_log, "pulka-svg")) == 1

    post_deal(client, table, FIRST_GAME)
    after = client.get(picture_url(table))
    assert after.content != first.content
    assert after["ETag"] != first["ETag"]
    assert len(made(fragments_log, "sheet-png")) == 2
    client.get(picture_url(table))
    assert len(made(fragments_log, "sheet-png")) == 2


def test_each_language_has_its_own_picture_of_the_pages_own_svg(client, table, fragments_log):
    """The sheet's words are in the page's language, so is the picture: the Russian one is
    the Russian page's SVG drawn, under its own key and ETag, and a Russian ETag sent on an
    English request is not a match."""
    english = client.get(picture_url(table))
    russian = client.get(picture_url(table), HTTP_ACCEPT_LANGUAGE="ru")
    assert russian["ETag"] == f'"{table.pk}-{Epoch.current()}.{table.revision}-ru-png"'
    assert russian.content != english.content
    assert len(made(fragments_log, "sheet-png")) == 2
    page = client.get(
        reverse("scoring:table_detail", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="ru"
    ).content.decode()
    svg = embedded(
        r'(<svg xmlns="http://www.w3.org/2000/svg"[^>]*class="pulka-sheet.*?</svg>)', page
    )
    assert 'aria-label="Пулька: ' in svg
    assert russian.content == share.sheet_png(svg)
    stale = client.get(picture_url(table), HTTP_IF_NONE_MATCH=russian["ETag"])
    assert stale.status_code == 200
    assert stale.content == english.content


def test_a_crawler_that_sends_the_etag_back_costs_one_query(
    client, table, django_assert_num_queries
):
    etag = client.get(picture_url(table))["ETag"]
    # The table's version alone (from Redis, where one is shared: live.revisions).
    with django_assert_num_queries(1):
        response = client.get(picture_url(table), HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert response.content == b""


def test_the_page_and_the_picture_share_the_drawing(client, table, fragments_log):
    """The picture draws the sheet from the SVG the page has cached for this revision."""
    client.get(reverse("scoring:table_detail", args=[table.pk]))
    assert len(made(fragments_log, "pulka-svg")) == 1
    client.get(picture_url(table))
    assert len(made(fragments_log, "pulka-svg")) == 1
    assert len(made(fragments_log, "sheet-png")) == 1


def test_no_picture_of_a_table_that_is_not_there(client, table):
    missing = reverse("scoring:table_sheet_png", args=[table.pk + 1])
    response = client.get(missing)
    assert response.status_code == 404
    assert "There is no such page here" in response.content.decode()


def test_a_boston_table_has_no_picture_and_the_page_says_why(client):
    boston = factories.boston_table()
    response = client.get(picture_url(boston))
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    text = html.unescape(response.content.decode())
    assert "This table's sheet has no drawing, so it has no picture: share its page." in text
    assert f'href="/tables/{boston.pk}/"' in text


def test_a_finished_table_has_its_picture(client):
    finished = factories.pulka(finished=True)
    response = client.get(picture_url(finished))
    assert response.status_code == 200
    assert response.content.startswith(PNG_SIGNATURE)


# -- the table page ----------------------------------------------------------------------------


def test_the_page_shows_the_link_its_qr_code_and_the_picture(client, table):
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    url = page_url(table)
    assert f'<a class="share-link" href="{url}">{url}</a>' in page
    qr = embedded(r'(<svg viewBox="[^"]*" class="qr">.*?</svg>)', page)
    assert drawn_modules(qr) == segno_modules(url)
    picture = f"http://testserver/tables/{table.pk}/sheet.png"
    assert f'<a href="{picture}">The sheet as a picture (PNG)</a>' in page
    assert f'<meta property="og:image" content="{picture}">' in page
    assert f'<meta property="og:url" content="{url}">' in page


def test_the_share_button_waits_for_its_script(client, table):
    """Without JavaScript the button does nothing, so it is hidden; the link is there."""
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    button = embedded(r'(<button type="button" class="share-button[^>]*>)', page)
    assert " hidden" in button
    assert f'data-share-url="{page_url(table)}"' in button
    assert 'data-copied="Link copied"' in button
    assert re.search(r'<script src="/static/js/share\.js" defer></script>', page)


def test_the_share_texts_in_russian(client, table):
    page = client.get(
        reverse("scoring:table_detail", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="ru"
    ).content.decode()
    assert 'data-copied="Ссылка скопирована"' in page
    assert ">Поделиться</button>" in page
    assert "<summary>Ссылка и QR-код</summary>" in page


def test_the_qr_code_is_made_once_per_address(client, table, fragments_log):
    url = reverse("scoring:table_detail", args=[table.pk])
    client.get(url)
    client.get(url)
    assert made(fragments_log, "qr-svg") == [f"made qr-svg:{page_url(table)}"]
    client.get(url, HTTP_HOST="localhost")  # another name of the site: its own QR code
    assert len(made(fragments_log, "qr-svg")) == 2


def test_a_boston_page_shares_its_link_but_offers_no_picture(client):
    boston = factories.boston_table()
    page = client.get(reverse("scoring:table_detail", args=[boston.pk])).content.decode()
    assert f'<a class="share-link" href="{page_url(boston)}">' in page
    assert 'class="qr"' in page
    assert "sheet.png" not in page
    assert "og:image" not in page


def test_the_table_body_redrawn_by_htmx_keeps_the_share_block(client, table, anna):
    post_deal(client, table, FIRST_GAME)
    undo = reverse("scoring:deal_undo", args=[table.pk])
    response = client.post(undo, factories.drawn(table), **HTMX)
    body = response.content.decode()
    assert 'class="share-button' in body
    assert f'<a class="share-link" href="{page_url(table)}">' in body
