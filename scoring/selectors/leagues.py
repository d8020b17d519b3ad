"""A season scored as a league: its league nights' finished tables read in one query and
ranked by the engine (``scoring/engine/league.py``) under the season's rule.

A league board reads the season's seats, not the kept totals: a night's points depend on
everyone at its table, guests included, which no per-member total holds. The season's
seats are a few thousand at most, read once per change of the standings: the page is kept
under the standings stamp (``selectors.standings_cached``), which every finish, reopen and
season edit moves (``services/standings.py``, ``services/seasons.py``).

The nights (``Season.league_nights``):

* the club's evenings — each evening's tables are one night; a table opened outside an
  evening makes a night of its date; a tournament's tables are not evenings';
* tournaments of one tour played within the season's dates, one night each.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from members.models import name_fields, shown_name
from scoring.engine.errors import N_, RuleError
from scoring.engine.league import LeagueLine, NightTable, check_league, league_standings
from scoring.models import Season, Seat, Table


@dataclass(frozen=True)
class Night:
    """A league night: its date, and the tournament's name (empty for an evening)."""

    played_on: datetime.date
    tournament: str = ""


@dataclass(frozen=True)
class League:
    """A season's league standings in one game: the ``nights`` (by index), the ranked
    members and those below the minimum, and each key's shown name and member id."""

    nights: tuple[Night, ...]
    ranked: list[LeagueLine]
    below: list[LeagueLine]
    names: dict[str, str]
    members: dict[str, int]
    problem: RuleError | None = None
    """Why the season's rule cannot rank anyone (stored without the admin's checks: a
    shell, an old backup); the board then says so instead of ranking."""


def member_key(pk: int) -> str:
    """A member's key for the engine, in nine digits: members equal on every tie-break are
    listed by it, so as they joined the club (``m10`` would come before ``m9``)."""
    return f"m{pk:09d}"


def league(game: str, season: Season) -> League:
    """The league standings of ``game`` in ``season`` (a league: ``season.is_league``).
    One query: the counted finished tables' seats of its nights, with the members' names;
    none when the season's rule cannot work (``League.problem``)."""
    try:
        rule = season.league()
        check_league(rule)
    except RuleError as error:
        return League((), [], [], {}, {}, problem=error)
    except (TypeError, ValueError, ArithmeticError):
        problem = RuleError(N_("the season's place points or bands are not numbers"))
        return League((), [], [], {}, {}, problem=problem)
    seats = Seat.objects.filter(
        table__game=game,
        table__status=Table.FINISHED,
        table__standing=Table.COUNTED,
        result__isnull=False,
    )
    if season.league_nights == Season.TOURNAMENTS:
        seats = seats.filter(
            table__tour_link__tour__tournament__tours=1,
            table__tour_link__tour__tournament__played_on__range=(
                season.starts_on,
                season.ends_on,
            ),
        )
        night_columns = (
            "table__tour_link__tour__tournament_id",
            "table__tour_link__tour__tournament__played_on",
            "table__tour_link__tour__tournament__name",
        )
    else:
        seats = seats.filter(
            table__played_on__range=(season.starts_on, season.ends_on),
            table__tour_link__isnull=True,
        )
        night_columns = ("table__evening_link__evening_id", "table__played_on", "table__game")
    rows = seats.order_by("table_id", "position").values_list(
        "table_id", "member_id", "guest_id", "result", *night_columns, *name_fields("member__")
    )
    by_table: dict[int, dict[str, object]] = {}
    night_of: dict[int, tuple[datetime.date, str, object]] = {}
    names: dict[str, str] = {}
    members: dict[str, int] = {}
    for table, member, guest, result, night, played_on, label, *name in rows:
        key = member_key(member) if member is not None else f"g{guest:09d}"
        if member is not None:
            names[key] = shown_name(*name)
            members[key] = member
        by_table.setdefault(table, {})[key] = result
        tournament = label if season.league_nights == Season.TOURNAMENTS else ""
        night_of[table] = (played_on, tournament, night if night is not None else played_on)
    order = sorted({(d, str(n), t, n) for d, t, n in night_of.values()}, key=lambda n: n[:3])
    index = {(d, n): i for i, (d, _s, _t, n) in enumerate(order)}
    tables = [
        NightTable(
            index[(night_of[table][0], night_of[table][2])],
            str(table),
            results,  # type: ignore[arg-type]
        )
        for table, results in by_table.items()
        # A table places 3 or 4 players; one with fewer results kept (a paper record
        # missing a seat's) cannot place anyone, so it is no league table.
        if len(results) in (3, 4)
    ]
    tables.sort(key=lambda t: (t.night, int(t.table)))
    players = sorted(members, key=lambda k: (names[k].casefold(), members[k]))
    ranked, below = league_standings(tables, rule, players=players, min_tables=season.min_games)
    return League(
        nights=tuple(Night(d, t) for d, _s, t, _n in order),
        ranked=ranked,
        below=below,
        names=names,
        members=members,
    )
