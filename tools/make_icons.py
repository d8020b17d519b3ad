"""Draws the app's icons (static/img/icon-*.png) for the web app manifest
(scoring/views/app.py): a white spade on the site's accent colour, 192 and 512 px, and a
maskable 512 px one whose spade keeps inside the safe zone (the middle 80 %) and whose
colour fills the square, so a launcher may cut it to any shape.

Run from the repository's root after changing the design: ``.venv/bin/python
tools/make_icons.py``. The PNGs are committed; nothing runs this at deploy time.
"""

from __future__ import annotations

from pathlib import Path

import resvg_py

ACCENT = "#1f5f8b"  # site.css --accent, the manifest's theme colour
FONTS = Path("/usr/share/fonts/truetype/dejavu")  # Debian's fonts-dejavu-core
OUT = Path("static/img")


def icon_svg(*, maskable: bool) -> str:
    corner = 0 if maskable else 96
    size = 300 if maskable else 400
    baseline = 256 + size * 0.36  # the glyph's middle at the square's
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">'
        f'<rect width="512" height="512" rx="{corner}" fill="{ACCENT}"/>'
        f'<text x="256" y="{baseline:.0f}" font-size="{size}" text-anchor="middle" '
        'fill="#ffffff" font-family="DejaVu Sans">♠</text></svg>'
    )


def main() -> None:
    for name, maskable, width in (
        ("icon-192.png", False, 192),
        ("icon-512.png", False, 512),
        ("icon-maskable-512.png", True, 512),
    ):
        png = resvg_py.svg_to_bytes(
            svg_string=icon_svg(maskable=maskable),
            width=width,
            font_files=[str(FONTS / "DejaVuSans.ttf")],
            skip_system_fonts=True,
        )
        (OUT / name).write_bytes(bytes(png))


if __name__ == "__main__":
    main()
