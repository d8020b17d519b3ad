"""Sharing a table (scoring/pages/share.py): the QR code as CSP-clean inline SVG that draws the
URL's own QR matrix, and the sheet's picture drawn with the fonts it names.

No database: the URL and the SVGs are made here. The SVGs are our own or segno's output,
so parsing them with ElementTree is safe (hence the ``noqa: S314``).
"""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET

import resvg_py
import segno
from django.core import checks

from scoring.engine.preferans import Pulka, PulkaSetup
from scoring.engine.preferans.rules import PreferansRules
from scoring.pages import share
from scoring.pages.sheet import SANS, pulka_svg

URL = "https://club.example/tables/12/"
BORDER = 4
"""segno's quiet zone, in modules."""


def drawn_modules(svg: str) -> set[tuple[int, int]]:
    """The dark modules (column, row) that the QR code's path draws.

    segno draws each run of dark modules in a row as a horizontal stroke one module wide:
    ``M x y`` starts at (x, y), ``m dx dy`` moves by (dx, dy), ``h n`` strokes n modules to
    the right; y is the middle of the row, and the quiet zone comes first."""
    root = ET.fromstring(svg)  # noqa: S314 - our own markup
    (path,) = [p for p in root.iter("path") if p.get("class") == "qr-dark"]
    x = y = 0.0
    dark = set()
    for command, args in re.findall(r"([Mmh])([^Mmh]*)", path.get("d", "")):
        numbers = [float(n) for n in args.split()]
        if command == "M":
            x, y = numbers
        elif command == "m":
            x, y = x + numbers[0], y + numbers[1]
        else:
            row = int(y - 0.5) - BORDER
            dark |= {(int(x) + i - BORDER, row) for i in range(int(numbers[0]))}
            x += numbers[0]
    return dark


def segno_modules(url: str) -> set[tuple[int, int]]:
    """The dark modules of ``url``'s QR code, as segno encodes it."""
    matrix = segno.make(url, micro=False).matrix
    return {(col, row) for row, line in enumerate(matrix) for col, bit in enumerate(line) if bit}


def test_the_qr_code_draws_the_urls_own_matrix():
    drawn = drawn_modules(share.qr_svg(URL))
    assert drawn == segno_modules(URL)
    assert drawn != segno_modules(URL.replace("12", "13"))  # a different table, other modules


def test_the_qr_code_is_clean_under_the_content_security_policy():
    """``style-src 'self'`` blocks style attributes and elements: the QR code has neither,
    nor any script; its colours are presentation attributes."""
    svg = share.qr_svg(URL)
    root = ET.fromstring(svg)  # noqa: S314 - our own markup
    assert root.get("class") == "qr"
    elements = list(root.iter())
    assert {e.tag for e in elements} == {"svg", "title", "g", "path"}
    assert not [e for e in elements if "style" in e.attrib or e.tag in {"style", "script"}]
    assert root.findtext("title") == URL
    assert {p.get("stroke") or p.get("fill") for p in root.iter("path")} == {"#000", "#fff"}


def test_the_qr_codes_title_is_escaped():
    svg = share.qr_svg("https://club.example/?a=1&b=<2>")
    assert "<title>https://club.example/?a=1&amp;b=&lt;2&gt;</title>" in svg


# -- the picture -------------------------------------------------------------------------------


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (its first chunk, IHDR)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def written(text: str) -> str:
    """A white 600 × 100 sheet with ``text`` written on it in the sheet's sans face."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 100">'
        '<rect width="600" height="100" fill="#fff"/>'
        f'<text x="10" y="60" font-family="{SANS}" font-size="40">{text}</text></svg>'
    )


def test_a_sheet_is_drawn_1200_pixels_wide_keeping_its_proportions():
    """A new pulka of three is 600 × 660 user units (sheet.WIDTH, HEIGHT[3]); four, 600 × 640."""
    three = Pulka(PulkaSetup(players=("Анна", "Борис", "Вера"), rules=PreferansRules()))
    four = Pulka(PulkaSetup(players=("Анна", "Борис", "Вера", "Глеб"), rules=PreferansRules()))
    assert png_size(share.sheet_png(pulka_svg(three))) == (1200, 1320)
    assert png_size(share.sheet_png(pulka_svg(four))) == (1200, 1280)


def test_cyrillic_text_is_drawn_with_the_dejavu_fonts():
    blank = share.sheet_png(written(""))
    assert (share.sheet_png(written("Пуля, гора, висты"))) != blank


def test_without_its_fonts_the_picture_has_no_text_and_the_check_says_so(settings, tmp_path):
    """What the system check guards against: resvg draws no text at all without a font,
    and says nothing."""
    assert share.check_fonts() == []
    settings.SHEET_FONT_DIR = tmp_path
    blank = share.sheet_png(written(""))
    assert (share.sheet_png(written("Пуля"))) == blank
    (warning,) = share.check_fonts()
    assert isinstance(warning, checks.Warning)
    assert warning.id == "scoring.W001"
    assert str(tmp_path / "DejaVuSans.ttf") in warning.msg
    assert "fonts-dejavu-core" in (warning.hint or "")


def test_the_check_is_registered():
    """``manage.py check`` (and ``check --deploy`` before a release) runs it."""
    assert share.check_fonts in checks.registry.registry.get_checks()


def test_the_picture_is_styled_by_the_sheets_style_sheet():
    """The look of the page's sheet (the dealer's tinted sector, the grey labels) is in
    static/css/sheet.css, which the SVG only names by class: the picture is drawn with it."""
    pulka = Pulka(PulkaSetup(players=("Anna", "Boris", "Vera"), rules=PreferansRules()))
    svg = pulka_svg(pulka)
    unstyled = resvg_py.svg_to_bytes(
        svg_string=svg,
        width=share.PNG_WIDTH,
        font_files=[str(path) for path in share.font_paths()],
        skip_system_fonts=True,
    )
    assert share.sheet_png(svg) != unstyled
