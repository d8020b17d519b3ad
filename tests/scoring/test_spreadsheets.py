"""scoring/spreadsheets.py: CSV cells no spreadsheet runs as a formula."""

from __future__ import annotations

import csv
import io

import pytest

from scoring import spreadsheets
from scoring.spreadsheets import safe_cell

CELLS = [
    # (written, as the CSV holds it)
    ("Anna", "Anna"),
    ("", ""),
    (None, ""),
    (12, "12"),
    ("0.00", "0.00"),
    ("-185.54", "-185.54"),
    ("+66.67", "+66.67"),
    ("-4", "-4"),
    ("-.5", "-.5"),
    ("-1E+2", "-1E+2"),
    ("Anna-Maria", "Anna-Maria"),
    ("a=b", "a=b"),
    ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
    ("=1+1", "'=1+1"),
    ("+1)", "'+1)"),
    ("-1+2", "'-1+2"),
    ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
    ("-", "'-"),
    ("+", "'+"),
    ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
    ("\t=1+1", "'\t=1+1"),
    ("\r=1+1", "'\r=1+1"),
    ("\n=1+1", "'\n=1+1"),
    ("  =1+1", "'  =1+1"),  # programs that trim blanks on import would see =1+1
    (" -5", "' -5"),
    ("＝1+1", "'＝1+1"),  # full-width equals sign
    ("-٣", "'-٣"),  # Arabic-Indic digit: not a plain number
    ("−33.33", "−33.33"),  # the typographic minus starts no formula
]


@pytest.mark.parametrize(("value", "expected"), CELLS)
def test_safe_cell(value: object, expected: str) -> None:
    assert safe_cell(value) == expected


def test_the_writer_neutralises_every_cell_and_stays_readable() -> None:
    out = io.StringIO()
    writer = spreadsheets.writer(out, lineterminator="\r\n")

    writer.writerow(["Member", "Money"])
    writer.writerows([["=cmd", "-185.54"], ["Anna, Vera", "+1"]])

    assert out.getvalue() == 'Member,Money\r\n\'=cmd,-185.54\r\n"Anna, Vera",+1\r\n'
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [
        ["Member", "Money"],
        ["'=cmd", "-185.54"],
        ["Anna, Vera", "+1"],
    ]


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_cell_holding_another_separator_is_one_quoted_cell(separator: str) -> None:
    """A Russian spreadsheet splits on ``;`` by default (some programs on tabs): unquoted,
    ``x;=1+1;`` were three cells there, the second a formula."""
    out = io.StringIO()
    writer = spreadsheets.writer(out)

    writer.writerow([f"x{separator}=1+1{separator}", "-4", 'say "hi"'])

    line = out.getvalue()
    assert line == f'"x{separator}=1+1{separator}",-4,"say ""hi"""\r\n'
    assert next(csv.reader(io.StringIO(line))) == [f"x{separator}=1+1{separator}", "-4", 'say "hi"']
    split = next(csv.reader(io.StringIO(line), delimiter=separator))
    assert not any(cell.startswith("=") for cell in split), split
