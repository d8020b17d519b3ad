"""Sharing a table: the QR code of its public page, and its drawn sheet as a PNG picture for
messengers (their link previews show a page's ``og:image``, and a picture can be forwarded
where an SVG cannot).

Presentation, not rules: both are made from what the page shows already (its URL, the SVG
of ``scoring.pages.sheet``); the views cache them (``scoring.live``).

The QR code is an inline SVG whose look is all presentation attributes and classes, with no
``style`` attribute or element: the site's Content Security Policy (``style-src 'self'``)
would block those. The PNG is the page's very SVG rendered by resvg, with the page's own
``static/css/sheet.css`` as its style sheet and the DejaVu fonts loaded from
``settings.SHEET_FONT_DIR``: resvg draws no text without a font, and DejaVu has Cyrillic.
"""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path

import segno
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core import checks
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from scoring.pages import raster

PNG_WIDTH = 1200
"""The picture's width in pixels (twice the sheet's 600 user units): sharp on a phone and
what messengers' link previews expect; a long pulka's picture is taller, never wider."""

PNG_MAX_HEIGHT = 2400
"""The tallest picture in pixels: a sheet taller than this is drawn in pages of it
(``sheet_png``'s ``page``). Rendering costs time and memory in proportion to the pixels: a
1,000-deal sheet drawn whole was 1200 × 16,000–44,000 px, 2.3–3.7 MB and 10–18 s and
150–500 MB per render, and four such renders at once took every worker down; a page is at
most 2.9 megapixels (about 0.5 s of one core, 20 MB). 2400 px holds a new sheet of three
(1320 px) and of four whole, and every sheet up to about 100 deals."""

FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf")
"""The faces the sheet is written in (``scoring.pages.sheet.SANS`` and ``MONO``), all in Debian's
``fonts-dejavu-core``. Its italic labels come out upright: the oblique faces are in
``fonts-dejavu-extra``, and resvg falls back to the nearest face it has."""

SHEET_CSS = "css/sheet.css"

QR_SCALE = 4
"""User units per module of the QR code; the page's CSS sets its displayed size."""


def qr_svg(url: str) -> SafeString:
    """The QR code of ``url`` as an inline ``<svg class="qr">`` (dark modules on a white
    ground, the quiet zone included), titled with the URL for assistive technology.

    segno escapes the title and writes only ``viewBox``, ``class``, ``fill``, ``stroke``,
    ``transform`` and ``d``: nothing the Content Security Policy blocks."""
    code = segno.make(url, micro=False)
    svg = code.svg_inline(
        scale=QR_SCALE, svgclass="qr", lineclass="qr-dark", omitsize=True, light="#fff", title=url
    )
    return mark_safe(svg)  # noqa: S308 - segno's own markup, with the title escaped


_VIEW_BOX = re.compile(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"')
"""The sheet's own view box (``scoring.pages.sheet.draw_pulka`` writes it first)."""


def _view_box(svg: str) -> tuple[float, float]:
    found = _VIEW_BOX.search(svg)
    assert found is not None  # noqa: S101 - the sheet's own drawing
    return float(found[1]), float(found[2])


def _page_height(width: float) -> float:
    """A page's height in the sheet's user units: ``PNG_MAX_HEIGHT`` pixels."""
    return width * PNG_MAX_HEIGHT / PNG_WIDTH


def picture_pages(svg: str) -> int:
    """How many pages the sheet's picture has: 1 unless the sheet is drawn taller than
    ``PNG_MAX_HEIGHT`` pixels."""
    width, height = _view_box(svg)
    return max(1, math.ceil(round(height / _page_height(width), 6)))


def sheet_png(svg: str, page: int = 1) -> bytes:
    """The sheet's SVG (``scoring.pages.sheet.pulka_svg``) as a PNG ``PNG_WIDTH`` pixels wide,
    drawn as the page draws it: with the sheet's style sheet and its fonts.

    A sheet taller than ``PNG_MAX_HEIGHT`` pixels is drawn one ``page`` (1 is the top) of
    at most that height at a time, each labelled with its number and where the whole sheet
    is; ``ValueError`` for a page the sheet does not have."""
    pages = picture_pages(svg)
    if not 1 <= page <= pages:
        raise ValueError(f"the sheet's picture has {pages} pages, not a page {page}")
    if pages > 1:
        svg = _page_of(svg, page, pages)
    return raster.svg_to_png(
        svg,
        width=PNG_WIDTH,
        style_sheet=_sheet_css(),
        font_files=[str(path) for path in font_paths()],
    )


def _page_of(svg: str, page: int, pages: int) -> str:
    """The sheet's SVG seen through a window a page high (only what the window shows is
    rasterised), with the page's label at its foot."""
    width, height = _view_box(svg)
    top = (page - 1) * _page_height(width)
    tall = min(_page_height(width), height - top)
    box = f'viewBox="0 {top:g} {width:g} {tall:g}"'
    label = gettext("Page %(page)s of %(pages)s of the sheet; the whole sheet: the table's page")
    label %= {"page": page, "pages": pages}
    foot = top + tall
    band = (
        f'<rect x="0" y="{foot - 18:g}" width="{width:g}" height="18" fill="#fff" '
        f'fill-opacity="0.9"/><text x="{width - 6:g}" y="{foot - 5:g}" font-size="11" '
        f'text-anchor="end" fill="#444">{_xml(label)}</text>'
    )
    head, _, tail = svg.rpartition("</svg>")
    return _VIEW_BOX.sub(box, head, count=1) + band + "</svg>" + tail


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def font_paths() -> list[Path]:
    """The font files ``sheet_png`` loads."""
    return [Path(settings.SHEET_FONT_DIR) / name for name in FONT_FILES]


@functools.cache
def _sheet_css() -> str:
    found = finders.find(SHEET_CSS)
    assert isinstance(found, str)  # noqa: S101 - a file of this repository
    return Path(found).read_text(encoding="utf-8")


def check_fonts(**kwargs: object) -> list[checks.CheckMessage]:
    """A system check: without its fonts resvg would draw the sheet's picture with no
    text at all, silently."""
    missing = [path for path in font_paths() if not path.is_file()]
    if not missing:
        return []
    return [
        checks.Warning(
            f"the sheet's picture (/tables/<id>/sheet.png) needs the DejaVu fonts: "
            f"{', '.join(map(str, missing))} missing",
            hint="apt-get install fonts-dejavu-core, or point DJANGO_SHEET_FONT_DIR at a "
            "folder holding " + ", ".join(FONT_FILES),
            id="scoring.W001",
        )
    ]
