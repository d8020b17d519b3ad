"""The home page as the club's dashboard: tonight's evening (who is here), the tables in
play each with a mini sheet, the leaders of the season, the next evening announced, the
latest finished tables and, for a signed-in member, his own last results. Writes nothing.

The page is kept for everyone under its version (``selectors.home.home_version``, with
``clubsite.pages``): ``home_context`` is what every viewer sees, made once per version;
``home_own`` the parts that are the viewer's own (``{% own %}`` in the template: his
check-in and the organiser's buttons, his last results, the leaders where only members see
the standings), filled in for each request.

Making it costs a constant number of queries whatever the club holds: each list is one query
(its seats one more), and each table's mini sheet is rendered once per revision and
language and kept (``scoring.live``), so a table in play costs its replay only when a deal
changed it (``tests/scoring/views/test_home.py`` pins the counts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, QuerySet, prefetch_related_objects
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import get_language

from scoring import selectors
from scoring.live.fragments import cached
from scoring.live.keys import home_key, mini_sheet_key, with_epoch
from scoring.models import Attendance, Evening, EveningTable, Season, Seat, Table
from scoring.pages import games as game_pages
from scoring.pages import standings
from scoring.pages.tables import TABLE_FIELDS, VERSION_FIELDS, VERSIONS, listed_tables
from scoring.permissions import can_check_in, can_run_evening, standings_are_public
from scoring.selectors import evenings as evening_reads
from scoring.selectors import profiles as profile_reads
from scoring.selectors.home import HomeVersion

LEADERS = 5
"""How many of each game's board the home page shows."""
LATEST_FINISHED = 5
"""How many of the latest finished tables it lists."""
OWN_RESULTS = 5
"""How many of a member's own last finished tables it shows him."""


@dataclass(frozen=True)
class TableCard:
    """A table in play as its card shows it: the table (its seats prefetched), the round of
    tonight's draw that seated it (None: not an evening's table) and its mini sheet."""

    table: Table
    round: int | None
    sheet: str


@dataclass(frozen=True)
class OwnResult:
    """One of a member's last finished tables: his seat, and the table's name as every
    list of tables writes it («Преферанс #12»)."""

    seat: profile_reads.MemberSeat
    title: str


@dataclass(frozen=True)
class Tonight:
    """Tonight's evening: who is here (in order of arrival) and its tables in play."""

    evening: Evening
    here: list[Attendance]
    tables: int


def tables_in_play() -> QuerySet[Table]:
    """The tables in play as their cards read them (with the epoch, for the mini sheets'
    keys; the tariff's name and rules, for the replay; the evening's round): one query
    (their seats: ``_with_seats``)."""
    return (
        with_epoch(Table.objects.filter(status=Table.OPEN))
        .select_related(*VERSIONS, "evening_link")
        .only(*TABLE_FIELDS, *VERSION_FIELDS, "evening_link__evening_id", "evening_link__round")
        .order_by("-played_on", "-pk")
    )


def _with_seats(*tables: Table) -> None:
    """The seats of every table shown, in their order at each: one query."""
    prefetch_related_objects(
        list(tables), Prefetch("seats", queryset=Seat.objects.order_by("position"))
    )


def mini_sheet(request: HttpRequest, table: Table) -> str:
    """The card's sheet: each player's totals (the game's result columns) and the number
    of deals, rendered once per revision and language."""

    def render() -> str:
        state = selectors.current(table, latest=0)
        game = game_pages.of_table(table)
        document = state.document(with_deals=False)
        guests = {seat.name for seat in table.seats.all() if seat.guest_id is not None}
        rows = [
            (name, name in guests, [row[column.key] for column in game.result_columns])
            for name, row in document["players"].items()
        ]
        context = {"table": table, "game": game, "rows": rows, "deals": state.count}
        return render_to_string("scoring/home.html#mini-sheet", context, request)

    return cached(mini_sheet_key(table, get_language() or ""), render)


def _link(table: Table) -> EveningTable | None:
    """The evening's link of ``table`` (read with it), if an evening opened it."""
    try:
        return table.evening_link
    except EveningTable.DoesNotExist:
        return None


def _tonight(cards: list[TableCard]) -> Tonight | None:
    evening = evening_reads.evening_on(timezone.localdate())
    if evening is None:
        return None
    links = [_link(card.table) for card in cards]
    return Tonight(
        evening=evening,
        here=evening_reads.attendances(evening),
        tables=sum(1 for link in links if link is not None and link.evening_id == evening.pk),
    )


def _cards(request: HttpRequest, tables: list[Table]) -> list[TableCard]:
    return [
        TableCard(table, getattr(_link(table), "round", None), mini_sheet(request, table))
        for table in tables
    ]


def in_play_context(request: HttpRequest) -> dict[str, Any]:
    """The region of the tables in play alone, as its poll redraws it: two queries, and a
    replay for each table a deal changed since."""
    in_play = list(tables_in_play())
    _with_seats(*in_play)
    return {"cards": _cards(request, in_play), "in_play": in_play}


def _leaders_section() -> str:
    return standings.leaders_section(Season.of_date(timezone.localdate()), top=LEADERS)


def home_context(request: HttpRequest) -> dict[str, Any]:
    """What the home page shows everyone: the club's parts, and the leaders where the
    standings are public (the viewer's own parts: ``home_own``)."""
    in_play = list(tables_in_play())
    latest = list(listed_tables().filter(status=Table.FINISHED)[:LATEST_FINISHED])
    _with_seats(*in_play, *latest)
    cards = _cards(request, in_play)
    public = standings_are_public()
    context: dict[str, Any] = {
        "cards": cards,
        "in_play": [card.table for card in cards],
        "latest": latest,
        "tonight": _tonight(cards),
        "next_evening": evening_reads.next_evening(timezone.localdate()),
        "standings_public": public,
    }
    if public:
        context["leaders_section"] = _leaders_section()
    return context


def _own_results(member: Any) -> str:
    games = dict(Table.GAMES)
    results = [
        OwnResult(seat, f"{games[seat.game]} #{seat.table_id}")
        for seat in profile_reads.last_results(member, latest=OWN_RESULTS)
    ]
    context = {"own_results": results, "username": member.get_username()}
    return render_to_string("scoring/home.html#own-results-section", context)


def _here(evening: int) -> str:
    """The members checked in at ``evening``, their ids separated by commas: one query."""
    return ",".join(map(str, evening_reads.members_here(evening)))


def home_own(request: HttpRequest, version: HomeVersion | None) -> dict[str, Any]:
    """What of the home page is ``request``'s user's own: whether he is checked in tonight
    and may check himself in, an organiser's "Run the evening" and "Announce an evening",
    his last results, and the leaders where only members see the standings. Nothing for a
    visitor who is not signed in.

    Under the page's ``version`` (``selectors.home``: read anyway), who is here tonight
    and his last results are kept in the cache under its stamps, which every check-in and
    every table finished or reopened moves: no query once they are kept. Without one (a
    database without the home stamp), two queries."""
    user = request.user
    if not user.is_authenticated:
        return {}
    language = get_language() or ""
    if version is None:
        found = evening_reads.tonight_for(user, timezone.localdate())
        tonight, me_here = found if found is not None else (None, False)
        results = _own_results(user)
    else:
        tonight = version.tonight
        here = (
            cached(home_key(version.stamps, "here", tonight), lambda: _here(tonight))
            if tonight is not None
            else ""
        )
        me_here = str(user.pk) in here.split(",")
        results = cached(
            home_key(version.stamps, "results", user.pk, language), lambda: _own_results(user)
        )
    context: dict[str, Any] = {
        "tonight_pk": tonight,
        "me_here": me_here,
        "can_check_in_self": tonight is not None and not me_here and can_check_in(user, user),
        "runs_evenings": can_run_evening(user),
        "own_results_section": results,
    }
    if not standings_are_public():
        context["leaders_section"] = _leaders_section()
    return context
