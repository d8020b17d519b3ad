"""Evening writes and reads (scoring/services/evenings.py, scoring/selectors/evenings.py):
check-in, the draw with its requests, opening its tables, further rounds, the ledger."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.models import Attendance, Evening, EveningTable, Season, Settlement, Table
from scoring.models.evenings import party_key
from scoring.selectors import evenings as selectors
from scoring.services import evenings as services
from tests import factories

pytestmark = pytest.mark.django_db
DAY = datetime.date(2026, 11, 20)


def _evening(players: int, *, game: str = Table.PREFERANS, size: int = 4) -> Evening:
    olga = factories.member("Olga", organiser=True)
    evening = services.evening_create(
        organiser=olga, played_on=DAY, place="Club room", game=game, table_size=size
    )
    for i in range(players):
        services.evening_check_in(evening=evening, member=factories.member(f"P{i}"), by=olga)
    return evening


def _seated(evening: Evening) -> list[str]:
    """The draw's players, by party key (``m<member id>``, ``g<guest id>``)."""
    return sorted(key for t in evening.draft or [] for key in t["players"])


def _keys(ids: object) -> set[str]:
    return {party_key(pk) for pk in ids}  # type: ignore[attr-defined]


def test_a_member_is_checked_in_once() -> None:
    evening = _evening(0)
    vera = factories.member("Vera")
    services.evening_check_in(evening=evening, member=vera, by=vera)
    with pytest.raises(RuleError, match="checked in already"):
        services.evening_check_in(evening=evening, member=vera, by=vera)
    assert Attendance.objects.filter(evening=evening).count() == 1


def test_the_draw_seats_everyone_once_at_valid_tables() -> None:
    evening = services.evening_draw(evening=_evening(7), seed=11)
    here = sorted(_keys(evening.attendances.values_list("member_id", flat=True)))
    assert _seated(evening) == here
    assert sorted(len(t["players"]) for t in evening.draft) == [3, 4]
    assert evening.seed == 11
    again = services.evening_draw(evening=evening, seed=11)
    assert again.draft == evening.draft  # the seed shown reproduces the draw


def test_sitting_out_and_apart_requests_reach_the_draw() -> None:
    evening = _evening(8)
    a, b, c = (x.member for x in selectors.attendances(evening)[:3])
    services.evening_sits_out(evening=evening, member=c, sits_out=True)
    services.evening_apart(evening=evening, first=b, second=a)
    drawn = services.evening_draw(evening=evening, seed=5)
    assert party_key(c.pk) not in _seated(drawn)
    assert sorted(len(t["players"]) for t in drawn.draft) == [3, 4]
    for t in drawn.draft:
        assert not {party_key(a.pk), party_key(b.pk)} <= set(t["players"])


def test_a_count_that_cannot_be_seated_is_refused_and_nothing_changes() -> None:
    evening = _evening(5)
    with pytest.raises(RuleError, match="5 players cannot be seated"):
        services.evening_draw(evening=evening, seed=1)
    evening.refresh_from_db()
    assert evening.draft is None
    assert evening.seed is None


def test_swap_then_open_all_tables_under_the_house_tariff() -> None:
    evening = services.evening_draw(evening=_evening(7), seed=3)
    four = next(t for t in evening.draft if len(t["players"]) == 4)
    three = next(t for t in evening.draft if len(t["players"]) == 3)
    x, y = four["players"][0], three["players"][0]
    evening = services.evening_swap(evening=evening, first=x, second=y)
    assert y in next(t for t in evening.draft if len(t["players"]) == 4)["players"]
    tables = services.evening_open_tables(evening=evening, by=evening.organiser)
    assert len(tables) == 2
    assert all(t.is_open and t.game == Table.PREFERANS for t in tables)
    assert {t.preferans_version for t in tables} == {factories.preferans_version()}
    by_size = {t.seats.count(): t for t in tables}
    assert y in _keys(by_size[4].seats.values_list("member_id", flat=True))
    assert x in _keys(by_size[3].seats.values_list("member_id", flat=True))
    assert set(EveningTable.objects.values_list("round", flat=True)) == {1}
    evening.refresh_from_db()
    assert evening.draft is None


def test_a_swap_outside_the_draw_is_refused() -> None:
    evening = services.evening_draw(evening=_evening(4), seed=3)
    with pytest.raises(RuleError, match="two members of the draw"):
        services.evening_swap(evening=evening, first=evening.draft[0]["players"][0], second="m0")


def test_a_further_round_draws_only_those_not_in_play_and_avoids_repeats() -> None:
    """Round 1: 8 players at two tables of 4; one table finishes early. Its 4 players and
    4 late arrivals are drawn again: the draw keeps the table's 4 apart (2 + 2 at each new
    table: one repeat pair each, 2 in all; three together would be 3 repeats)."""
    evening = _evening(8)
    services.evening_draw(evening=evening, seed=1)
    first, second = services.evening_open_tables(evening=evening, by=evening.organiser)
    Table.objects.filter(pk=first.pk).update(status=Table.FINISHED)
    olga = evening.organiser
    for i in range(4):
        services.evening_check_in(evening=evening, member=factories.member(f"L{i}"), by=olga)
    drawn = services.evening_draw(evening=evening, seed=2)
    busy = _keys(second.seats.values_list("member_id", flat=True))
    done = _keys(first.seats.values_list("member_id", flat=True))
    assert not busy & set(_seated(drawn))
    assert len(_seated(drawn)) == 8
    for t in drawn.draft:
        assert len(done & set(t["players"])) == 2
    tables = services.evening_open_tables(evening=drawn, by=olga)
    assert {t.evening_link.round for t in tables} == {2}


def test_a_boston_evening_needs_a_multiple_of_four() -> None:
    evening = _evening(6, game=Table.BOSTON)
    with pytest.raises(RuleError, match="Boston is played four to a table"):
        services.evening_draw(evening=evening, seed=1)


def _link(evening: Evening, table: Table) -> None:
    EveningTable.objects.create(evening=evening, table=table, round=1)


def _two_pulkas() -> tuple[Evening, dict[str, Member]]:
    """Two finished pulkas of one evening: Anna wins the first against Boris and Vera,
    Boris the second against Vera and Gleb; each winner +66.67, the others −33.33 and
    −33.34 (to_cents: the exact ±33.333… rounded so the column sums to 0, the spare cent
    to the first seat in seat order)."""
    people = {n: factories.member(n) for n in ("Anna", "Boris", "Vera", "Gleb")}
    evening = services.evening_create(
        organiser=people["Anna"], played_on=DAY, place="", game="preferans", table_size=3
    )
    a, b, v, g = people.values()
    _link(evening, factories.finished_pulka([a, b, v], a, DAY))
    _link(evening, factories.finished_pulka([b, v, g], b, DAY))
    return evening, people


def _money(member: Member) -> list[Decimal]:
    return sorted(s.money for s in member.seats.all())


def test_the_ledger_nets_the_evenings_tables() -> None:
    evening, p = _two_pulkas()
    assert _money(p["Anna"]) == [Decimal("66.67")]
    assert _money(p["Vera"]) == [Decimal("-33.34"), Decimal("-33.33")]
    assert _money(p["Gleb"]) == [Decimal("-33.34")]
    # Anna +66.67, Boris +66.67 − 33.33 = +33.34, Vera −66.67, Gleb −33.34.
    lines = [(x.payer_name, x.payee_name, x.amount) for x in selectors.ledger(evening).lines]
    assert lines == [("Vera", "Anna", Decimal("66.67")), ("Gleb", "Boris", Decimal("33.34"))]


def test_the_ledger_charges_the_seasons_table_money() -> None:
    Season.objects.create(name="Autumn", starts_on=DAY, ends_on=DAY, table_money=Decimal("1.00"))
    evening, _ = _two_pulkas()
    lines = [(x.payer_name, x.payee_name, x.amount) for x in selectors.ledger(evening).lines]
    # Anna 65.67, Boris 32.34, Vera −67.67, Gleb −34.34, the club 4.00.
    assert lines[:2] == [("Vera", "Anna", Decimal("65.67")), ("Gleb", "Boris", Decimal("32.34"))]
    assert sorted(lines[2:]) == [
        ("Gleb", "the club", Decimal("2.00")),
        ("Vera", "the club", Decimal("2.00")),
    ]


def test_settled_payments_leave_the_members_balance() -> None:
    evening, p = _two_pulkas()
    assert selectors.club_balance(p["Vera"]) == Decimal(0)  # not checked in: no evening
    for m in p.values():
        Attendance.objects.create(evening=evening, member=m)
    assert selectors.club_balance(p["Vera"]) == Decimal("-66.67")
    assert selectors.club_balance(p["Anna"]) == Decimal("66.67")
    services.settlement_mark(
        evening=evening,
        payer=party_key(p["Vera"].pk),
        payee=party_key(p["Anna"].pk),
        amount=Decimal("66.67"),
        by=p["Anna"],
    )
    assert selectors.club_balance(p["Vera"]) == Decimal(0)
    assert selectors.club_balance(p["Gleb"]) == Decimal("-33.34")
    with pytest.raises(RuleError, match="not in the evening's ledger"):
        services.settlement_mark(
            evening=evening,
            payer=party_key(p["Gleb"].pk),
            payee=party_key(p["Boris"].pk),
            amount=Decimal("33.33"),
            by=p["Anna"],
        )
    assert Settlement.objects.count() == 1
