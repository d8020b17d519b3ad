"""The CSV of past results (scoring/engine/history.py): the tables it makes and every row
it refuses, with its line and reason. Pure: no database."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.history import (
    MAX_HISTORY_BYTES,
    MAX_ROWS,
    TEMPLATE,
    check_size,
    parse_history,
)

HEADER = "table,date,game,player,result,money\n"
PULKA = (
    "1,2024-09-06,preferans,Anna,40,20\n"
    "1,2024-09-06,preferans,Boris,-13.33,-6.67\n"
    "1,2024-09-06,preferans,Vera,-26.67,-13.33\n"
)


def refusals(text: str) -> list[tuple[int, str]]:
    return [(r.line, r.error.message) for r in parse_history(text).refused]


def test_the_template_makes_two_tables_with_their_places():
    parsed = parse_history(TEMPLATE)
    assert parsed.refused == ()
    pulka, boston = parsed.tables
    assert (pulka.label, pulka.game, pulka.played_on) == (
        "1",
        "preferans",
        datetime.date(2024, 9, 6),
    )
    assert pulka.players == ("anna", "boris", "Вера")
    assert pulka.results == (Decimal("40.00"), Decimal("-13.33"), Decimal("-26.67"))
    assert pulka.money == (Decimal("20.00"), Decimal("-6.67"), Decimal("-13.33"))
    assert pulka.places == (1, 2, 3)
    assert pulka.lines == (2, 3, 4)
    assert boston.game == "boston"
    assert boston.money is None  # the money cells are empty: none given
    assert boston.results == (Decimal(120), Decimal(-60), Decimal(-100), Decimal(40))
    assert boston.places == (1, 3, 4, 2)


def test_semicolons_a_decimal_comma_a_unicode_minus_and_a_bom_are_read():
    text = (
        "\ufeffTable;Date;Game;Player;Result\n"
        "A;2024-01-05;Preferans;Anna;12,5\n"
        "A;2024-01-05;preferans;Boris;\u221212,5\n"
        "\n"
        "A;2024-01-05;preferans; Vera ;0\n"
    )
    (table,) = parse_history(text).tables
    assert table.results == (Decimal("12.50"), Decimal("-12.50"), Decimal(0))
    assert table.players == ("Anna", "Boris", "Vera")
    assert table.lines == (2, 3, 5)  # the blank line 4 is skipped, still counted


def test_equal_results_share_a_place():
    text = (
        HEADER
        + "t,2024-01-05,preferans,A,10,\n"
        + "t,2024-01-05,preferans,B,10,\n"
        + "t,2024-01-05,preferans,C,-20,\n"
    )
    (table,) = parse_history(text).tables
    assert table.places == (1, 1, 3)


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (
            "1,2024-02-30,preferans,Anna,40,\n",
            [(2, "the date 2024-02-30 is not a date written YYYY-MM-DD")],
        ),
        (
            "1,06.09.2024,preferans,Anna,40,\n",
            [(2, "the date 06.09.2024 is not a date written YYYY-MM-DD")],
        ),
        ("1,2024-09-06,poker,Anna,40,\n", [(2, "unknown game poker: write preferans or boston")]),
        (
            "1,2024-09-06,preferans,Anna,forty,\n",
            [(2, "forty is not a number (whists or chips, like -12 or 13.33)")],
        ),
        (
            "1,2024-09-06,preferans,Anna,1e3,\n",
            [(2, "1e3 is not a number (whists or chips, like -12 or 13.33)")],
        ),
        (
            "1,2024-09-06,preferans,Anna,1.333,\n",
            [(2, "1.333: a result has at most two decimals and 11 digits")],
        ),
        ("1,2024-09-06,preferans,,40,\n", [(2, "the player's name is empty")]),
        (",2024-09-06,preferans,Anna,40,\n", [(2, "the table's label is empty")]),
        ("1,2024-09-06,preferans,Anna\n", [(2, "the row has 4 cells; the header names 6")]),
    ],
)
def test_a_bad_row_is_refused_with_its_line_and_reason(rows: str, expected: list[tuple[int, str]]):
    assert refusals(HEADER + rows) == expected


def test_one_refused_row_keeps_its_whole_table_out_and_the_others_in():
    text = (
        HEADER
        + PULKA
        + "2,2024-09-06,preferans,Anna,10,\n"
        + "2,2024-09-06,preferans,Boris,ten,\n"
        + "2,2024-09-06,preferans,Vera,-10,\n"
    )
    parsed = parse_history(text)
    assert [t.label for t in parsed.tables] == ["1"]
    assert refusals(text) == [
        (5, "table 2 is left out: one of its rows is refused"),
        (6, "ten is not a number (whists or chips, like -12 or 13.33)"),
    ]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (  # sums not zero: 40 - 13.33 - 26 = 0.67
            "1,2024-09-06,preferans,Anna,40,\n1,2024-09-06,preferans,Boris,-13.33,\n"
            "1,2024-09-06,preferans,Vera,-26,\n",
            [(2, "table 1: the results add up to 0.67, not 0")],
        ),
        (
            "1,2024-09-06,preferans,Anna,10,\n1,2024-09-06,preferans,Boris,-10,\n",
            [(2, "table 1 has 2 players; Preferans is played by 3 or 4")],
        ),
        (
            "b,2024-09-06,boston,Anna,10,\nb,2024-09-06,boston,Boris,-5,\n"
            "b,2024-09-06,boston,Vera,-5,\n",
            [(2, "table b has 3 players; Boston is played by 4")],
        ),
        (
            "1,2024-09-06,preferans,A,10,\n1,2024-09-06,preferans,B,10,\n"
            "1,2024-09-06,preferans,C,10,\n1,2024-09-06,preferans,D,10,\n"
            "1,2024-09-06,preferans,E,-40,\n",
            [(2, "table 1 has 5 players; Preferans is played by 3 or 4")],
        ),
        (
            "1,2024-09-06,preferans,Anna,10,\n1,2024-09-06,preferans,anna ,-5,\n"
            "1,2024-09-06,preferans,Vera,-5,\n",
            [(3, "table 1: anna is in it twice")],
        ),
        (
            "1,2024-09-06,preferans,Anna,10,\n1,2024-09-07,preferans,Boris,-5,\n"
            "1,2024-09-06,boston,Vera,-5,\n",
            [
                (3, "table 1: the date differs from its first row's, 2024-09-06"),
                (4, "table 1: the game differs from its first row's, preferans"),
            ],
        ),
        (
            "1,2024-09-06,preferans,Anna,10,5\n1,2024-09-06,preferans,Boris,-5,\n"
            "1,2024-09-06,preferans,Vera,-5,-5\n",
            [(2, "table 1: money is given for some players and not others")],
        ),
        (
            "1,2024-09-06,preferans,Anna,10,5\n1,2024-09-06,preferans,Boris,-5,-2\n"
            "1,2024-09-06,preferans,Vera,-5,-2\n",
            [(2, "table 1: the money adds up to 1.00, not 0")],
        ),
    ],
)
def test_a_table_that_does_not_hold_together_is_refused(rows: str, expected: list[tuple[int, str]]):
    parsed = parse_history(HEADER + rows)
    assert parsed.tables == ()
    assert refusals(HEADER + rows) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "the file is empty: it needs a header and rows"),
        ("table,date,game,player,result\n", "the file is empty: it needs a header and rows"),
        (
            "table,date,player,result\n",
            "the header must name the columns table, date, game, player, result; missing: game",
        ),
        (
            "table,date,game,player,result,notes\n",
            "unknown column notes: the columns are table, date, game, player, result and money",
        ),
        ("table,date,game,player,result,result\n", "the column result is named twice"),
    ],
)
def test_a_file_without_its_header_or_rows_is_refused_at_line_1(text: str, expected: str):
    assert refusals(text) == [(1, expected)]


def test_too_many_rows_are_refused_whole():
    rows = "".join(f"{n},2024-09-06,preferans,A,0,\n" for n in range(MAX_ROWS + 1))
    parsed = parse_history(HEADER + rows)
    assert parsed.tables == ()
    assert [r.error.message for r in parsed.refused] == [
        "the file has more than 25,000 rows; split it in parts"
    ]


def test_a_file_over_the_limit_is_refused_by_its_size():
    check_size(MAX_HISTORY_BYTES)
    with pytest.raises(RuleError, match="larger than 1 MB"):
        check_size(MAX_HISTORY_BYTES + 1)
