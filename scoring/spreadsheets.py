"""CSV that spreadsheets open safely: every CSV the site writes goes through ``writer``.

A spreadsheet program reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a
formula, so a member whose display name is ``=HYPERLINK("http://x","y")`` would put a live
link (or worse) into every leaderboard an organiser opens. OWASP's advice ("CSV
Injection") is followed: such a cell, and one that starts with a tab or a carriage return,
is written with a leading apostrophe, which spreadsheets take as "this is text" and do not
show. Numbers are left as they are (a balance of ``-185.54`` stays a number that any
program can read); they are recognised strictly, so ``-1+2`` or ``+1)`` are not numbers.

A cell is quoted when it holds any separator a spreadsheet may split on, not only the
comma: a Russian spreadsheet splits on ``;`` by default and some on tabs, and
``x;=1+1;`` left unquoted is read there as three cells, the second a formula. Quoted, it
is one cell of text whatever the separator.
"""

from __future__ import annotations

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


SEPARATORS = frozenset(',;\t"\r\n')
"""Characters that make a cell quoted: the separators spreadsheets split on (the comma,
the semicolon of Russian locales, the tab), the quote itself and line breaks."""


def quoted(cell: str, delimiter: str = ",") -> str:
    """``cell`` as the CSV line holds it: in double quotes (doubled inside) when it holds
    a separator, as ``csv.QUOTE_MINIMAL`` does for the comma alone."""
    if delimiter in cell or not SEPARATORS.isdisjoint(cell):
        return '"' + cell.replace('"', '""') + '"'
    return cell


class SafeWriter:
    """A CSV writer (the interface of ``csv.writer``: the ``delimiter`` and the
    ``lineterminator``) whose every cell goes through ``safe_cell`` and is quoted when it
    holds any separator (``quoted``)."""

    def __init__(
        self, file: _Writable, *, delimiter: str = ",", lineterminator: str = "\r\n"
    ) -> None:
        self._file = file
        self._delimiter = delimiter
        self._lineterminator = lineterminator

    def writerow(self, row: Iterable[object]) -> None:
        cells = (quoted(safe_cell(cell), self._delimiter) for cell in row)
        self._file.write(self._delimiter.join(cells) + self._lineterminator)

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(file: _Writable, *, delimiter: str = ",", lineterminator: str = "\r\n") -> SafeWriter:
    """Like ``csv.writer(file, ...)``, with formulas neutralised (``safe_cell``) and every
    cell holding a separator quoted (``quoted``)."""
    return SafeWriter(file, delimiter=delimiter, lineterminator=lineterminator)
