"""CSV that spreadsheets open safely: every CSV the site writes goes through ``writer``.

A spreadsheet program reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a
formula, so a member whose display name is ``=HYPERLINK("http://x","y")`` would put a live
link (or worse) into every leaderboard an organiser opens. OWASP's advice ("CSV
Injection") is followed: such a cell, and one that starts with a tab or a carriage return,
is written with a leading apostrophe, which spreadsheets take as "this is text" and do not
show. Numbers are left as they are (a balance of ``-185.54`` stays a number that any
program can read); they are recognised strictly, so ``-1+2`` or ``+1)`` are not numbers.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, Protocol

FORMULA_STARTS = frozenset("=+-@\t\r\n") | frozenset("＝＋－＠")
"""First characters that make a spreadsheet read a cell as a formula: OWASP's list, the
line feed, and the full-width forms that some spreadsheets read as the ASCII ones."""

NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A plain decimal number, as the site writes figures (ASCII digits only)."""


def safe_cell(value: object) -> str:
    """``value`` as a CSV cell no spreadsheet runs as a formula: a cell that starts (after
    any blanks, which some programs trim on import) with a formula character gets a
    leading ``'``; numbers stay as they are."""
    text = "" if value is None else str(value)
    start = text[:1]
    if start not in FORMULA_STARTS:
        stripped = text.lstrip()
        if stripped[:1] not in FORMULA_STARTS:
            return text
        start = stripped[:1]
    if start in "+-" and NUMBER.fullmatch(text):
        return text
    return "'" + text


class _Writable(Protocol):
    def write(self, text: str, /) -> Any: ...


class SafeWriter:
    """A ``csv.writer`` whose every cell goes through ``safe_cell``."""

    def __init__(self, file: _Writable, **options: Any) -> None:
        self._writer = csv.writer(file, **options)

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([safe_cell(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(file: _Writable, **options: Any) -> SafeWriter:
    """Like ``csv.writer(file, **options)``, with formulas neutralised (``safe_cell``)."""
    return SafeWriter(file, **options)
