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
from pathlib import Path

import resvg_py
import segno
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core import checks
from django.utils.safestring import SafeString, mark_safe

PNG_WIDTH = 1200
"""The picture's width in pixels (twice the sheet's 600 user units): sharp on a phone and
what messengers' link previews expect; a long pulka's picture is taller, never wider."""

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


def sheet_png(svg: str) -> bytes:
    """The sheet's SVG (``scoring.pages.sheet.pulka_svg``) as a PNG ``PNG_WIDTH`` pixels wide,
    drawn as the page draws it: with the sheet's style sheet and its fonts."""
    return resvg_py.svg_to_bytes(
        svg_string=svg,
        width=PNG_WIDTH,
        style_sheet=_sheet_css(),
        font_files=[str(path) for path in font_paths()],
        # Only the fonts named: the picture is the same on every server, and resvg does
        # not scan the system's fonts for every picture.
        skip_system_fonts=True,
    )


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
