"""The club's paper history as a CSV of past results (issue 34): each row one player's
result at one table, the rows of one table grouped by its label.

Pure and whole-file: ``parse_history`` reads every row and returns the tables it makes
and every row it refuses (its line and the reason), so the organiser sees all that is
wrong at once and the site writes nothing while anything is. Who the players are
(members or guests), the dates the club accepts and files brought in before are the
site's questions (``scoring.services.history``).

The columns (in any order, names in any case): ``table`` (a label grouping the rows of
one game), ``date`` (YYYY-MM-DD), ``game`` (``preferans`` or ``boston``), ``player``,
``result`` (whists or chips, summing to 0 over the table) and an optional ``money``
(summing to 0 too, given for every player of a table or for none). Commas or semicolons
separate the columns (a spreadsheet in Russian saves with semicolons); a number may have
a decimal comma and a minus sign «−».
"""

from __future__ import annotations

import csv
import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from scoring.engine.errors import N_, Grouped, RuleError
from scoring.engine.standings import table_places

COLUMNS = ("table", "date", "game", "player", "result")
"""The columns every file has, in the template's order."""
MONEY = "money"
"""The optional column: each player's money at the table."""

MAX_HISTORY_BYTES = 1_000_000
"""The largest file taken in: some 25,000 rows, where a club of 40 playing twice a week
writes about 2,500 a year (the dry run carries the file back, base64, under Django's
2.5 MB limit of a request's body)."""
MAX_ROWS = 25_000

PLAYERS = {"preferans": (3, 4), "boston": (4, 4)}
"""How many players each game's table seats: the fewest and the most."""

LARGEST = Decimal(10) ** 11
"""A result or money beyond this is a typo, not a game (the seats keep 14 digits)."""

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)")
_MINUS = str.maketrans({"\u2212": "-", "\u2013": "-", "\u00a0": "", " ": ""})


@dataclass(frozen=True, slots=True)
class Refusal:
    """A row refused: its line in the file (1: the header) and why."""

    line: int
    error: RuleError


@dataclass(frozen=True, slots=True)
class HistoryTable:
    """A table of the file: its label, the lines of its rows, its date and game, and each
    player's name, result and money (``None``: the file gives none) in the file's order."""

    label: str
    lines: tuple[int, ...]
    played_on: datetime.date
    game: str
    players: tuple[str, ...]
    results: tuple[Decimal, ...]
    money: tuple[Decimal, ...] | None

    @property
    def places(self) -> tuple[int, ...]:
        return table_places(self.results)


@dataclass(frozen=True, slots=True)
class HistoryFile:
    """What a file makes: its tables (those whose rows are all sound) and its refusals."""

    tables: tuple[HistoryTable, ...]
    refused: tuple[Refusal, ...]


@dataclass(frozen=True, slots=True)
class _Row:
    line: int
    label: str
    played_on: datetime.date
    game: str
    player: str
    result: Decimal
    money: Decimal | None


def check_size(size: int) -> None:
    """``RuleError`` for a file over ``MAX_HISTORY_BYTES``, before a byte of it is read."""
    if size > MAX_HISTORY_BYTES:
        raise RuleError(
            N_("the file is larger than %(megabytes)s MB, the limit for a file of past results"),
            field="file",
            megabytes=MAX_HISTORY_BYTES // 1_000_000,
        )


def name_key(name: str) -> str:
    """What two players' names in one table are compared by: case and spaces aside."""
    return " ".join(name.casefold().split())


def parse_history(text: str) -> HistoryFile:
    """The tables of a CSV of past results (``text``, decoded) and every row refused."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        return _whole(RuleError(N_("the file is empty: it needs a header and rows"), field="file"))
    header = lines[0]
    delimiter = ";" if header.count(";") > header.count(",") else ","
    reader = csv.reader(lines, delimiter=delimiter)
    columns = [name.strip().casefold() for name in next(reader)]
    refusal = _check_header(columns)
    if refusal is not None:
        return _whole(refusal)
    refused: list[Refusal] = []
    refused_labels: set[str] = set()
    rows: list[_Row] = []
    for cells in reader:
        if not any(cell.strip() for cell in cells):
            continue  # a blank line
        if len(rows) + len(refused) >= MAX_ROWS:
            return _whole(
                RuleError(
                    N_("the file has more than %(limit)s rows; split it in parts"),
                    field="file",
                    limit=Grouped(MAX_ROWS),
                )
            )
        line = reader.line_num
        errors: list[RuleError] = []
        named = dict(zip(columns, cells, strict=False))
        row = _row(line, named, len(cells), len(columns), errors)
        refused += (Refusal(line, error) for error in errors)
        if row is None:
            refused_labels.add(named.get("table", "").strip())
        else:
            rows.append(row)
    tables = []
    for label, group in _grouped(rows).items():
        if label in refused_labels:
            # A table with a row refused is refused with it: its sums cannot be right.
            refused.append(
                Refusal(
                    group[0].line,
                    RuleError(
                        N_("table %(table)s is left out: one of its rows is refused"),
                        field="table",
                        table=label,
                    ),
                )
            )
            continue
        table, errors_at = _table(label, group)
        refused += errors_at
        if table is not None:
            tables.append(table)
    if not rows and not refused:
        return _whole(RuleError(N_("the file is empty: it needs a header and rows"), field="file"))
    return HistoryFile(tuple(tables), tuple(sorted(refused, key=lambda r: r.line)))


def _whole(error: RuleError) -> HistoryFile:
    return HistoryFile((), (Refusal(1, error),))


def _check_header(columns: Sequence[str]) -> RuleError | None:
    missing = [name for name in COLUMNS if name not in columns]
    if missing:
        return RuleError(
            N_("the header must name the columns %(columns)s; missing: %(missing)s"),
            field="file",
            columns=", ".join(COLUMNS),
            missing=", ".join(missing),
        )
    unknown = [name for name in columns if name not in (*COLUMNS, MONEY)]
    if unknown:
        return RuleError(
            N_("unknown column %(column_name)s: the columns are %(columns)s and %(money)s"),
            field="file",
            column_name=unknown[0] or '""',
            columns=", ".join(COLUMNS),
            money=MONEY,
        )
    twice = sorted({name for name in columns if columns.count(name) > 1})
    if twice:
        return RuleError(
            N_("the column %(column_name)s is named twice"), field="file", column_name=twice[0]
        )
    return None


def _row(
    line: int, cells: dict[str, str], count: int, expected: int, errors: list[RuleError]
) -> _Row | None:
    """One row read, or ``None`` with its reasons added to ``errors``."""
    if count != expected:
        errors.append(
            RuleError(
                N_("the row has %(count)s cells; the header names %(expected)s"),
                field="row",
                count=count,
                expected=expected,
            )
        )
        return None
    label = cells["table"].strip()
    if not label:
        errors.append(RuleError(N_("the table's label is empty"), field="table"))
    played_on = _date(cells["date"].strip(), errors)
    game = cells["game"].strip().casefold()
    if game not in PLAYERS:
        errors.append(
            RuleError(
                N_("unknown game %(game)s: write preferans or boston"),
                field="game",
                game=cells["game"].strip() or '""',
            )
        )
    player = " ".join(cells["player"].split())
    if not player:
        errors.append(RuleError(N_("the player's name is empty"), field="player"))
    result = _number(cells["result"], "result", errors)
    money = None
    if cells.get(MONEY, "").strip():
        money = _number(cells[MONEY], MONEY, errors)
    if errors or played_on is None or result is None:
        return None
    return _Row(line, label, played_on, game, player, result, money)


def _date(raw: str, errors: list[RuleError]) -> datetime.date | None:
    try:
        if _DATE.fullmatch(raw):
            return datetime.date.fromisoformat(raw)
    except ValueError:
        pass
    errors.append(
        RuleError(
            N_("the date %(date)s is not a date written YYYY-MM-DD"),
            field="date",
            date=raw or '""',
        )
    )
    return None


def _number(raw: str, field: str, errors: list[RuleError]) -> Decimal | None:
    """A result or money: a number with at most two decimals (a comma or a point)."""
    cleaned = raw.strip().translate(_MINUS).replace(",", ".")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or not _NUMBER.fullmatch(cleaned):
        errors.append(
            RuleError(
                N_("%(value)s is not a number (whists or chips, like -12 or 13.33)"),
                field=field,
                value=raw.strip() or '""',
            )
        )
        return None
    if value != value.quantize(Decimal("0.01")) or abs(value) >= LARGEST:
        errors.append(
            RuleError(
                N_("%(value)s: a result has at most two decimals and 11 digits"),
                field=field,
                value=raw.strip(),
            )
        )
        return None
    return value.quantize(Decimal("0.01"))


def _grouped(rows: Sequence[_Row]) -> dict[str, list[_Row]]:
    groups: dict[str, list[_Row]] = {}
    for row in rows:
        groups.setdefault(row.label, []).append(row)
    return groups


def _table(label: str, rows: list[_Row]) -> tuple[HistoryTable | None, list[Refusal]]:
    """A table from its rows, or the refusals that keep it out."""
    first = rows[0]
    refused = []
    for row in rows[1:]:
        if row.played_on != first.played_on:
            refused.append(
                Refusal(
                    row.line,
                    RuleError(
                        N_("table %(table)s: the date differs from its first row's, %(date)s"),
                        field="date",
                        table=label,
                        date=first.played_on.isoformat(),
                    ),
                )
            )
        if row.game != first.game:
            refused.append(
                Refusal(
                    row.line,
                    RuleError(
                        N_("table %(table)s: the game differs from its first row's, %(game)s"),
                        field="game",
                        table=label,
                        game=first.game,
                    ),
                )
            )
    seen: set[str] = set()
    for row in rows:
        key = name_key(row.player)
        if key in seen:
            refused.append(
                Refusal(
                    row.line,
                    RuleError(
                        N_("table %(table)s: %(name)s is in it twice"),
                        field="player",
                        table=label,
                        name=row.player,
                    ),
                )
            )
        seen.add(key)
    fewest, most = PLAYERS[first.game]
    if not fewest <= len(rows) <= most:
        seats = (
            N_("table %(table)s has %(count)s players; Preferans is played by 3 or 4")
            if first.game == "preferans"
            else N_("table %(table)s has %(count)s players; Boston is played by 4")
        )
        refused.append(
            Refusal(
                first.line,
                RuleError(
                    seats,
                    field="player",
                    table=label,
                    count=len(rows),
                ),
            )
        )
    total = sum((row.result for row in rows), Decimal(0))
    if total:
        refused.append(
            Refusal(
                first.line,
                RuleError(
                    N_("table %(table)s: the results add up to %(total)s, not 0"),
                    field="result",
                    table=label,
                    total=total,
                ),
            )
        )
    money = [row.money for row in rows]
    if any(m is not None for m in money) and any(m is None for m in money):
        refused.append(
            Refusal(
                first.line,
                RuleError(
                    N_("table %(table)s: money is given for some players and not others"),
                    field=MONEY,
                    table=label,
                ),
            )
        )
    elif money[0] is not None and sum(m or Decimal(0) for m in money) != 0:
        refused.append(
            Refusal(
                first.line,
                RuleError(
                    N_("table %(table)s: the money adds up to %(total)s, not 0"),
                    field=MONEY,
                    table=label,
                    total=sum(m or Decimal(0) for m in money),
                ),
            )
        )
    if refused:
        return None, refused
    return (
        HistoryTable(
            label=label,
            lines=tuple(row.line for row in rows),
            played_on=first.played_on,
            game=first.game,
            players=tuple(row.player for row in rows),
            results=tuple(row.result for row in rows),
            money=None if money[0] is None else tuple(m or Decimal(0) for m in money),
        ),
        [],
    )


TEMPLATE = (
    "table,date,game,player,result,money\n"
    "1,2024-09-06,preferans,anna,40,20.00\n"
    "1,2024-09-06,preferans,boris,-13.33,-6.67\n"
    "1,2024-09-06,preferans,Вера,-26.67,-13.33\n"
    "2,2024-09-06,boston,anna,120,\n"
    "2,2024-09-06,boston,boris,-60,\n"
    "2,2024-09-06,boston,Вера,-100,\n"
    "2,2024-09-06,boston,Григорий Петров,40,\n"
)
"""The template CSV an organiser downloads: two tables, every column, one guest."""
