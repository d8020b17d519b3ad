"""A judge's decisions at a table (scoring/services/judging.py): two seats swapped for the
whole record and the table replayed.

The numbers, worked by hand. The tariff is Sochi with the settlement divided by the
players less one (``settlement_divisor = players_minus_one``: the pool and mountain terms
are multiplied by 3 / 2 at a table of three), pool 2. The one deal: Vera, in seat 2,
declares 7♠ and both defenders pass; it is worth 4, she writes 2 and 2 overflow. Both
other pools are open and equal (0), so the help goes to the first open pool clockwise
from her: seat 0. That player's pool becomes 2 and Vera writes 2 × 10 = 20 whists on him.
Pools 2, 0, 2 (average 4/3), no mountain; balances:

* the player in seat 0: 3/2 × 10 × (2 − 4/3) − 20 = 10 − 20 = −10;
* the player in seat 1: 3/2 × 10 × (0 − 4/3) = −20;
* Vera: 3/2 × 10 × (2 − 4/3) + 20 = 30.

Seated Anna, Boris, Vera, Anna is helped (−10) and Boris is not (−20). Swap Anna and Boris
and the help goes to Boris, in seat 0 now: Boris −10, Anna −20, Vera still 30.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from members.models import Member
from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.engine.preferans.pulka import Pulka
from scoring.models import (
    AuditEntry,
    DealRecord,
    Seat,
    SeatChange,
    StandingsTotal,
    Table,
    TourSeat,
)
from scoring.models.tournaments import tournament_format
from scoring.services import guests, judging
from scoring.services import tournaments as tournament_services
from scoring.services.confirmations import table_confirm
from scoring.services.standings import standings_rebuild
from tests import factories
from tests.fuzz_strategies import db_fingerprint

pytestmark = pytest.mark.django_db

VERA_SEVEN = {
    "kind": "game",
    "declarer": "Vera",
    "contract": "7S",
    "answers": {"Anna": "pass", "Boris": "pass"},
}


def _divided_by_two() -> str:
    return factories.preferans_tariff(  # type: ignore[no-any-return]
        "Делим на двоих", settlement_divisor="players_minus_one"
    ).name


def _results(table: Table) -> dict[str, tuple[int, Decimal | None]]:
    return {s.name: (s.position, s.result) for s in Seat.objects.filter(table=table)}


def test_a_swap_moves_the_help_and_the_balances_of_a_finished_table() -> None:
    judge = factories.member("Judge", organiser=True)
    table = factories.pulka(
        tariff=_divided_by_two(), pool_target=2, deals=[VERA_SEVEN], finished=True
    )
    assert _results(table) == {
        "Anna": (0, Decimal("-10.00")),
        "Boris": (1, Decimal("-20.00")),
        "Vera": (2, Decimal("30.00")),
    }
    revision = Table.objects.get(pk=table.pk).revision
    digest = Table.objects.get(pk=table.pk).record_digest

    judging.table_seats_swap(table=table, first=0, second=1, by=judge, reason="сели наоборот")

    assert _results(table) == {
        "Boris": (0, Decimal("-10.00")),
        "Anna": (1, Decimal("-20.00")),
        "Vera": (2, Decimal("30.00")),
    }
    table.refresh_from_db()
    assert table.revision == revision + 1
    assert table.record_digest != digest
    assert table.result is not None
    assert table.result["players"]["Boris"]["balance"] == "-10.00"
    entry = AuditEntry.objects.get(table=table, action=AuditEntry.SWAP)
    assert (entry.actor, entry.reason) == (judge, "сели наоборот")
    assert entry.before == {"seats": ["Anna", "Boris", "Vera"]}
    assert entry.after == {"seats": ["Boris", "Anna", "Vera"], "swapped": ["Anna", "Boris"]}


def test_the_standings_totals_follow_the_swap() -> None:
    judge = factories.member("Judge", organiser=True)
    table = factories.pulka(
        tariff=_divided_by_two(), pool_target=2, deals=[VERA_SEVEN], finished=True
    )
    anna, boris = (Seat.objects.get(table=table, name=n).member for n in ("Anna", "Boris"))

    judging.table_seats_swap(table=table, first=0, second=1, by=judge, reason="сели наоборот")

    def balance(member: Member | None) -> Any:
        return (
            StandingsTotal.objects.filter(member=member, game=Table.PREFERANS, season=None)
            .values_list("total", flat=True)
            .first()
        )

    assert (balance(anna), balance(boris)) == (Decimal("-20.00"), Decimal("-10.00"))


def test_a_table_in_play_plays_on_in_the_new_seats() -> None:
    table = factories.pulka(tariff=_divided_by_two(), pool_target=2)

    judging.table_seats_swap(table=table, first=0, second=1, by=None, reason="сели наоборот")
    factories.played(table, [VERA_SEVEN])

    from scoring import selectors

    result = selectors.replay(Table.objects.get(pk=table.pk)).result
    assert result.setup.players == ("Boris", "Anna", "Vera")
    assert [str(b) for b in result.balances] == ["-10", "-20", "30"]
    assert Seat.objects.get(table=table, name="Boris").result is None  # still in play


def test_a_deal_that_no_longer_replays_refuses_the_swap_and_changes_nothing() -> None:
    # Four players, Anna deals first and sits out; Boris declares. Seated first, Boris
    # would deal deal 1 and sit it out, so the record cannot name him as its declarer.
    players = [factories.member(n) for n in ("Anna", "Boris", "Vera", "Gleb")]
    boris_six = {
        "kind": "game",
        "declarer": "Boris",
        "contract": "6S",
        "answers": {"Vera": "pass", "Gleb": "pass"},
    }
    table = factories.pulka(players, deals=[boris_six])
    before = db_fingerprint()

    with pytest.raises(RuleError) as refused:
        judging.table_seats_swap(table=table, first=0, second=1, by=None, reason="сели наоборот")

    assert refused.value.field == "declarer"
    assert db_fingerprint() == before


@pytest.mark.parametrize(
    ("first", "second", "reason", "field"),
    [
        (0, 0, "сели наоборот", "seats"),
        (0, 3, "сели наоборот", "seats"),
        (-1, 1, "сели наоборот", "seats"),
        (0, 1, "   ", "reason"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    first: int, second: int, reason: str, field: str
) -> None:
    table = factories.pulka(deals=[VERA_SEVEN])
    before = db_fingerprint()
    with pytest.raises(RuleError) as refused:
        judging.table_seats_swap(table=table, first=first, second=second, by=None, reason=reason)
    assert refused.value.field == field
    assert db_fingerprint() == before


def test_a_closed_tours_points_follow_the_swap() -> None:
    judge = factories.member("Judge", organiser=True)
    tariff = factories.preferans_tariff("Делим на двоих", settlement_divisor="players_minus_one")
    tournament = factories.tournament(3, preferans_tariff=tariff, pool_target=2, tours=1)
    tournament_services.tournament_start(tournament=tournament, seed=7)
    tour = tournament_services.tour_seat(tournament=tournament, by=judge)
    table = tour.tables.get().table
    names = list(table.seats.order_by("position").values_list("name", flat=True))
    factories.played(
        table,
        [
            {
                "kind": "game",
                "declarer": names[2],
                "contract": "7S",
                "answers": dict.fromkeys(names[:2], "pass"),
            }
        ],
        by=judge,
        finished=True,
    )
    table_confirm(table=table, by=judge)  # a tour closes on final results only
    tournament_services.tour_close(tour=tour)

    def points() -> dict[str, tuple[int | None, Decimal | None]]:
        rows = TourSeat.objects.filter(tour=tour).select_related("entry__member")
        return {row.entry.name: (row.position, row.points) for row in rows}

    assert points() == {
        names[0]: (0, Decimal("-10.00")),
        names[1]: (1, Decimal("-20.00")),
        names[2]: (2, Decimal("30.00")),
    }

    judging.table_seats_swap(table=table, first=0, second=1, by=judge, reason="сели наоборот")

    assert points() == {
        names[0]: (1, Decimal("-20.00")),
        names[1]: (0, Decimal("-10.00")),
        names[2]: (2, Decimal("30.00")),
    }


def test_a_boston_table_swaps_too() -> None:
    # A passed deal names nobody: Anna and Vera simply change places, sheet and all.
    table = factories.boston_table(deals=[{"kind": "pass"}])

    judging.table_seats_swap(table=table, first=0, second=2, by=None, reason="сели наоборот")

    order = list(Seat.objects.filter(table=table).order_by("position").values_list("name"))
    assert order == [("Vera",), ("Boris",), ("Anna",), ("Gleb",)]


# -- a substitute mid-pulka ---------------------------------------------------------------
#
# Worked by hand. Sochi, four players (the dealer sits out), the settlement over the
# number of players (4), pool and mountain weighing 10. Anna deals first.
#   deal 1 (Anna deals): Boris plays 6♠, both pass: Boris's pool 2;
#   deal 2 (Boris deals): Vera plays 6♠, both pass: Vera's pool 2.
# Pools 0, 2, 2, 0; no mountain, no whists. Gleb (seat 3) leaves before deal 3 and settles
# pair by pair: with Anna 10 × (0 − 0) / 4 = 0; with Boris 10 × (0 − 2) / 4 = −5, so he
# pays Boris 5, and Vera 5: he leaves at −10. Dima takes the seat with the others' average
# pool, (0 + 2 + 2) / 3 = 1.33, rounded down (against him): 1; their mountains are 0: 0.
#   deal 3 (Vera deals): Dima plays 6♠, both pass: his pool 1 + 2 = 3.
# The end: pools 0, 2, 2, 3 (sum 7); each balance is 10 / 4 × (4 × pool − 7) = 10 × pool
# − 17.5: Anna −17.5, Boris 2.5, Vera 2.5, Dima 12.5. With what Gleb paid: Anna −17.50,
# Boris 7.50, Vera 7.50, Dima 12.50, and Gleb −10.00: zero in all.


def _six(declarer: str, *passing: str) -> dict[str, Any]:
    return {
        "kind": "game",
        "declarer": declarer,
        "contract": "6S",
        "answers": dict.fromkeys(passing, "pass"),
    }


BORIS_SIX = _six("Boris", "Vera", "Gleb")
VERA_SIX = _six("Vera", "Anna", "Gleb")
DIMA_SIX = _six("Dima", "Anna", "Boris")


def _four() -> Table:
    players = [factories.member(name) for name in ("Anna", "Boris", "Vera", "Gleb")]
    return factories.pulka(players, deals=[BORIS_SIX, VERA_SIX])


def test_a_substitute_settles_the_leaver_and_enters_rounded_against_him() -> None:
    judge = factories.member("Judge", organiser=True)
    table = _four()

    change = judging.table_seat_substitute(
        table=table, position=3, newcomer="Dima", by=judge, reason="Глеб ушёл на поезд"
    )

    assert (change.name, change.from_deal, change.result) == ("Gleb", 3, Decimal("-10.00"))
    assert change.member is not None and change.guest is None
    seat = Seat.objects.get(table=table, position=3)
    assert (seat.name, seat.member, seat.guest is not None) == ("Dima", None, True)
    table.refresh_from_db()
    assert table.has_seat_changes
    game = selectors.replay(Table.objects.get(pk=table.pk)).game
    assert isinstance(game, Pulka)
    assert (list(game.pool), list(game.mountain)) == ([0, 2, 2, 1], [0, 0, 0, 0])
    entry = AuditEntry.objects.get(table=table, action=AuditEntry.SUBSTITUTE)
    assert entry.actor == judge
    assert entry.reason == "Глеб ушёл на поезд"
    assert entry.after is not None
    assert (entry.after["left"], entry.after["player"], entry.after["from_deal"]) == (
        "Gleb",
        "Dima",
        3,
    )
    assert (entry.after["pool"], entry.after["mountain"]) == (1, "0")


def test_the_newcomer_plays_on_and_the_finish_adds_up_to_zero() -> None:
    table = _four()
    judging.table_seat_substitute(table=table, position=3, newcomer="Dima", by=None, reason="ушёл")
    table.refresh_from_db()
    factories.played(table, [DIMA_SIX], by=None, finished=True)

    assert _results(table) == {
        "Anna": (0, Decimal("-17.50")),
        "Boris": (1, Decimal("7.50")),
        "Vera": (2, Decimal("7.50")),
        "Dima": (3, Decimal("12.50")),
    }
    change = SeatChange.objects.get(table=table)
    assert (change.result, change.money) == (Decimal("-10.00"), Decimal("-10.00"))
    money = [seat.money for seat in Seat.objects.filter(table=table)]
    assert money == [Decimal("-17.50"), Decimal("7.50"), Decimal("7.50"), Decimal("12.50")]
    assert sum(m for m in money if m is not None) + change.money == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"position": 3, "newcomer": "Dima", "from_deal": 2}, "from the next deal, 3"),
        ({"position": 7, "newcomer": "Dima"}, "choose a seat of this table"),
        ({"position": 3, "newcomer": "Vera"}, "Vera is a member's name"),
        ({"position": 3, "newcomer": "   "}, "letters one can see"),
        ({"position": 3, "newcomer": "Dima", "reason": " "}, "say why"),
    ],
)
def test_a_substitute_refused_changes_nothing(kwargs: dict[str, Any], message: str) -> None:
    table = _four()
    before = db_fingerprint()

    with pytest.raises(RuleError, match=message):
        judging.table_seat_substitute(table=table, by=None, **{"reason": "ушёл", **kwargs})

    assert db_fingerprint() == before


def test_a_member_at_the_table_or_who_left_it_is_no_substitute() -> None:
    table = _four()
    vera = Member.objects.get(seats__table=table, seats__name="Vera")
    gleb = Member.objects.get(seats__table=table, seats__name="Gleb")
    with pytest.raises(RuleError, match="Vera sits at this table"):
        judging.table_seat_substitute(table=table, position=3, newcomer=vera, by=None, reason="x")
    judging.table_seat_substitute(table=table, position=3, newcomer="Dima", by=None, reason="x")
    table.refresh_from_db()
    factories.played(table, [DIMA_SIX])
    with pytest.raises(RuleError, match="Gleb played at this table already"):
        judging.table_seat_substitute(table=table, position=0, newcomer=gleb, by=None, reason="x")


def test_a_finished_or_empty_or_boston_table_takes_no_substitute() -> None:
    finished = factories.pulka(deals=[VERA_SEVEN], finished=True)
    with pytest.raises(RuleError, match="a finished table takes no substitute"):
        judging.table_seat_substitute(table=finished, position=0, newcomer="D", by=None, reason="x")
    empty = factories.pulka([factories.member(n) for n in ("A", "B", "C")])
    with pytest.raises(RuleError, match="no deal has been played yet"):
        judging.table_seat_substitute(table=empty, position=0, newcomer="D", by=None, reason="x")
    boston = factories.boston_table(
        [factories.member(n) for n in ("E", "F", "G", "H")], deals=[{"kind": "pass"}]
    )
    with pytest.raises(RuleError, match="Preferans rule"):
        judging.table_seat_substitute(table=boston, position=0, newcomer="D", by=None, reason="x")


def _totals() -> dict[str, tuple[int, Decimal]]:
    return {
        row.member.name: (row.tables, row.total)
        for row in StandingsTotal.objects.filter(season=None).select_related("member")
    }


def test_the_leaver_counts_in_the_standings_with_what_he_settled() -> None:
    table = _four()
    dima = factories.member("Dima")
    judging.table_seat_substitute(table=table, position=3, newcomer=dima, by=None, reason="ушёл")
    table.refresh_from_db()
    factories.played(table, [DIMA_SIX], finished=True)

    expected = {
        "Anna": (1, Decimal("-17.50")),
        "Boris": (1, Decimal("7.50")),
        "Vera": (1, Decimal("7.50")),
        "Gleb": (1, Decimal("-10.00")),
        "Dima": (1, Decimal("12.50")),
    }
    assert _totals() == expected
    standings_rebuild()
    assert _totals() == expected
    services.table_reopen(Table.objects.get(pk=table.pk), by=None, reason="ошибка")
    assert {name: total for name, (tables, total) in _totals().items() if tables} == {}


def test_a_deal_struck_before_the_change_leaves_the_newcomers_deals_his() -> None:
    # Vera's 6♠ (deal 2) struck after Dima came: Gleb now leaves with pools 0, 2, 0 on the
    # sheet and pays Boris 10 × 2 / 4 = 5 (−5); Dima enters with (0 + 2 + 0) / 3 = 0.67,
    # rounded down: 0. Dima's 6♠ is deal 2 now (Boris deals and sits out): pool 2. At the
    # end pools 0, 2, 0, 2 (sum 4), each 10 × pool − 10: Anna −10, Boris 10 + 5 = 15,
    # Vera −10, Dima 10, Gleb −5; zero in all.
    table = _four()
    judging.table_seat_substitute(table=table, position=3, newcomer="Dima", by=None, reason="x")
    vera_six = DealRecord.objects.get(table=table, sequence=2)
    services.deal_delete(vera_six, by=None, reason="не было")
    table.refresh_from_db()
    factories.played(table, [_six("Dima", "Anna", "Vera")], finished=True)

    assert _results(table) == {
        "Anna": (0, Decimal("-10.00")),
        "Boris": (1, Decimal("15.00")),
        "Vera": (2, Decimal("-10.00")),
        "Dima": (3, Decimal("10.00")),
    }
    assert SeatChange.objects.get(table=table).result == Decimal("-5.00")


def test_a_swap_after_a_substitute_moves_the_leaver_too() -> None:
    # Three players: Vera's 6♠ (pool 2); Boris (seat Б) leaves: he pays Vera
    # 10 × 2 / 3 = 6.67 and Dima enters with pool (0 + 2) / 2 = 1. Anna and Dima swap:
    # the deal before the change named Boris, who now held seat А then.
    table = factories.pulka(deals=[_six("Vera", "Anna", "Boris")])
    change = judging.table_seat_substitute(
        table=table, position=1, newcomer="Dima", by=None, reason="ушёл"
    )
    assert change.result == Decimal("-6.67")

    judging.table_seats_swap(table=table, first=0, second=1, by=None, reason="сели наоборот")

    assert SeatChange.objects.get(pk=change.pk).position == 0
    game = selectors.replay(Table.objects.get(pk=table.pk)).game
    assert isinstance(game, Pulka)
    assert list(game.pool) == [1, 0, 2]


def test_a_guest_who_left_a_seat_merges_into_a_member() -> None:
    organiser = factories.member("Olga", organiser=True)
    table = _four()
    judging.table_seat_substitute(table=table, position=3, newcomer="Dima", by=None, reason="x")
    table.refresh_from_db()
    factories.played(table, [DIMA_SIX])
    judging.table_seat_substitute(
        table=table, position=3, newcomer=factories.member("Zoe"), by=None, reason="x"
    )
    dima = SeatChange.objects.get(table=table, name="Dima").guest
    assert dima is not None
    left = Member.objects.get(seats_left__table=table)  # Gleb, who left first

    with pytest.raises(RuleError, match="is seated at table"):
        guests.guest_merge(guest=dima, member=left, by=organiser)

    dmitry = factories.member("Dmitry")
    assert guests.guest_merge(guest=dima, member=dmitry, by=organiser) == [table]
    assert SeatChange.objects.get(table=table, name="Dima").member == dmitry


def test_a_tour_seat_left_to_a_substitute_stays_its_entry_s_and_sums_to_zero() -> None:
    judge = factories.member("Judge", organiser=True)
    tournament = factories.tournament()
    tournament.judges.add(judge)
    tournament_services.tournament_start(tournament=tournament, seed=7)
    tour = tournament_services.tour_seat(tournament=tournament, by=judge)
    link = tour.tables.select_related("table").order_by("number").first()
    table = link.table
    names = list(table.seats.order_by("position").values_list("name", flat=True))
    services.deal_create(table, _six(names[0], names[1], names[2]), by=judge)
    leaver = tour.seats.get(table=link, position=2).entry
    change = judging.table_seat_substitute(
        table=table, position=2, newcomer="Dima", by=judge, reason="ушёл"
    )
    factories.tour_played(tour, judge)  # each table: one more deal, finished, confirmed

    scores = {
        row.entry_id: row
        for row in tournament_services.tour_scores(tour, tournament_format(tournament))
    }
    at_table = [row for row in scores.values() if row.table_id == link.pk]
    newcomer = Seat.objects.get(table=table, position=2)
    assert change.result != 0 and newcomer.result != 0
    assert scores[leaver.pk].result == change.result + newcomer.result
    assert sum(row.result for row in at_table) == 0
