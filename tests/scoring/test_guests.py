"""Guests (issue 17 item 3): a seat with a name and no account, at a table opened by hand
and by the evening's draw; on the sheet, the export and the ledger; out of leaderboards,
ratings and profiles; merged into a member by an organiser."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.models import (
    AuditEntry,
    Evening,
    EveningTable,
    Guest,
    Rating,
    RatingHistory,
    Seat,
    Table,
)
from scoring.pages import profiles
from scoring.selectors import evenings as evening_selectors
from scoring.services import evenings as evening_services
from scoring.services.guests import guest_merge
from scoring.services.imports import members_of
from tests import factories

pytestmark = pytest.mark.django_db
DAY = datetime.date(2026, 11, 20)


def _pulka_with_pyotr() -> tuple[Table, Member, Member, Guest]:
    """A finished pulka of Anna, Boris and Pyotr (a guest) that Anna wins: +66.67 whists;
    Boris −33.33 and Pyotr −33.34 (the spare cent to the earlier seat's partner: see
    factories.finished_pulka) — in money at a price of 1."""
    anna, boris = factories.member("Anna", username="anna"), factories.member("Boris")
    pyotr = Guest(name="Pyotr")
    table = factories.finished_pulka([anna, boris, pyotr], anna, DAY)
    return table, anna, boris, pyotr


def test_a_member_opens_a_pulka_with_a_guest_by_name(client: Client) -> None:
    anna, boris = factories.member("Anna"), factories.member("Boris")
    client.force_login(anna)
    version = factories.preferans_version()
    response = client.post(
        reverse("scoring:table_open", args=["preferans"]),
        {
            "version": version.pk,
            "first_dealer": 0,
            "pool_target": 20,
            "price": "1",
            "player_0": anna.pk,
            "player_1": boris.pk,
            "guest_2": "  Pyotr   Ivanov ",
        },
    )
    table = Table.objects.get()
    assert response.status_code == 302
    seats = list(table.seats.order_by("position"))
    assert [s.name for s in seats] == ["Anna", "Boris", "Pyotr Ivanov"]
    assert seats[2].member is None
    assert seats[2].guest == Guest.objects.get(name="Pyotr Ivanov")


def test_a_seat_is_a_member_or_a_guest_and_needs_one(client: Client) -> None:
    anna, boris = factories.member("Anna"), factories.member("Boris")
    client.force_login(anna)
    data = {
        "version": factories.preferans_version().pk,
        "first_dealer": 0,
        "pool_target": 20,
        "price": "1",
        "player_0": anna.pk,
        "player_1": boris.pk,
        "guest_1": "Pyotr",
    }
    page = client.post(reverse("scoring:table_open", args=["preferans"]), data)
    assert "A seat is a member or a guest, not both." in page.content.decode()
    del data["guest_1"]
    page = client.post(reverse("scoring:table_open", args=["preferans"]), data)
    assert "Choose a member or type a guest&#x27;s name." in page.content.decode()
    assert not Table.objects.exists()
    assert not Guest.objects.exists()


def test_two_guests_of_one_name_are_refused_and_nothing_is_written() -> None:
    anna = factories.member("Anna")
    with pytest.raises(RuleError, match="two guests by one name"):
        services.table_open(
            game=Table.PREFERANS,
            version=factories.preferans_version(),
            members=[anna, Guest(name="Pyotr"), Guest(name="Pyotr")],
            by=anna,
        )
    assert not Guest.objects.exists()


def test_a_new_guest_named_like_a_member_is_refused() -> None:
    """Issue 35: a guest «Анна» beside the member Анна read as her on every sheet."""
    anna = factories.member("Anna", username="anna")
    boris = factories.member("Boris")
    with pytest.raises(RuleError, match="Anna is a member's name"):
        factories.pulka([anna, boris, Guest(name="Anna")])
    assert not Table.objects.exists() and not Guest.objects.exists()


def test_a_guest_kept_from_before_named_like_a_member_keeps_his_name() -> None:
    """A guest stored before the rule (or restored from a backup) is seated as he is: the
    member sharing his name gets her username beside it."""
    anna = factories.member("Anna", username="anna")
    boris = factories.member("Boris")
    table = factories.pulka([anna, boris, Guest.objects.create(name="Anna")])
    assert selectors.seat_names(table) == ("Anna (anna)", "Boris", "Anna")


def test_the_draw_seats_a_checked_in_guest_and_opens_his_seat() -> None:
    olga = factories.member("Olga", organiser=True)
    evening = evening_services.evening_create(
        organiser=olga, played_on=DAY, place="", game=Table.PREFERANS, table_size=4
    )
    for name in ("Anna", "Boris", "Vera"):
        evening_services.evening_check_in(evening=evening, member=factories.member(name), by=olga)
    here = evening_services.evening_check_in_guest(evening=evening, name="Pyotr", by=olga)
    with pytest.raises(RuleError, match="a guest called pyotr is here already"):
        evening_services.evening_check_in_guest(evening=evening, name="pyotr", by=olga)
    drawn = evening_services.evening_draw(evening=evening, seed=4)
    (table_drawn,) = drawn.draft
    assert here.party in table_drawn["players"]
    (table,) = evening_services.evening_open_tables(evening=drawn, by=olga)
    seat = table.seats.get(guest=here.guest)
    assert seat.name == "Pyotr"
    assert table.seats.count() == 4


def test_a_guest_is_in_the_ledger_and_it_settles_exactly() -> None:
    table, _anna, _boris, _pyotr = _pulka_with_pyotr()
    olga = factories.member("Olga", organiser=True)
    evening = Evening.objects.create(organiser=olga, played_on=DAY)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    lines = evening_selectors.ledger(evening).lines
    paid = {(x.payer_name, x.payee_name): x.amount for x in lines}
    assert paid == {("Pyotr", "Anna"): Decimal("33.34"), ("Boris", "Anna"): Decimal("33.33")}
    assert sum(x.amount for x in lines) == Decimal("66.67")  # Anna's winnings, to the cent


def test_a_guest_is_in_no_leaderboard_rating_or_rival_list() -> None:
    _table, anna, _boris, _pyotr = _pulka_with_pyotr()
    ranked, below = selectors.standings(Table.PREFERANS)
    assert sorted(s.name for s in [*ranked, *below]) == ["Anna", "Boris"]
    assert set(Rating.objects.values_list("member__display_name", flat=True)) == {"Anna", "Boris"}
    assert RatingHistory.objects.count() == 2
    assert [r.name for r in profiles.rivals(anna)] == ["Boris"]


def test_a_table_of_one_member_and_two_guests_rates_nobody() -> None:
    anna = factories.member("Anna")
    factories.finished_pulka([anna, Guest(name="Pyotr"), Guest(name="Ivan")], anna, DAY)
    services.ratings_update(Table.PREFERANS)
    assert not Rating.objects.exists()
    assert not RatingHistory.objects.exists()


def test_an_export_names_a_guest_by_null_and_imports_him_back_as_a_guest() -> None:
    table, anna, boris, _pyotr = _pulka_with_pyotr()
    record = services.table_export(table)
    assert record["members"] == ["anna", boris.username, None]
    assert record["players"] == ["Anna", "Boris", "Pyotr"]
    version = table.preferans_version
    with pytest.raises(services.AlreadyImported):
        services.table_import(record, version=version, members=members_of(record), by=anna)
    table.delete()
    imported = services.table_import(record, version=version, members=members_of(record), by=anna)
    seats: Any = imported.seats.order_by("position")
    assert [s.member for s in seats] == [anna, boris, None]
    assert seats[2].guest.name == "Pyotr"
    assert [s.money for s in seats] == [Decimal("66.67"), Decimal("-33.33"), Decimal("-33.34")]


def test_a_merge_gives_the_guests_seats_to_the_member_with_an_audit_entry() -> None:
    table, _anna, _boris, pyotr = _pulka_with_pyotr()
    gleb = factories.member("Gleb", username="gleb")
    olga = factories.member("Olga", organiser=True)
    revision = Table.objects.get(pk=table.pk).revision
    assert guest_merge(guest=pyotr, member=gleb, by=olga) == [table]
    seat = Seat.objects.get(table=table, position=2)
    assert (seat.member, seat.guest, seat.name) == (gleb, None, "Pyotr")  # the log's name
    entry = table.audit.get(action=AuditEntry.MERGE)
    assert (entry.actor, entry.before, entry.after) == (
        olga,
        {"guest": "Pyotr"},
        {"member": "gleb"},
    )
    assert not Guest.objects.exists()
    table.refresh_from_db()
    assert table.revision == revision + 1
    assert table.record_digest == services.table_digest(table, selectors.replay(table))
    ranked, below = selectors.standings(Table.PREFERANS)
    assert sorted(s.name for s in [*ranked, *below]) == ["Anna", "Boris", "Gleb"]
    assert RatingHistory.objects.filter(table=table).count() == 3


def test_a_merge_into_a_member_at_the_guests_table_is_refused_and_changes_nothing() -> None:
    table, anna, boris, pyotr = _pulka_with_pyotr()
    with pytest.raises(RuleError, match="Boris is seated at table"):
        guest_merge(guest=pyotr, member=boris, by=anna)
    assert Seat.objects.get(table=table, position=2).guest == pyotr
    assert not AuditEntry.objects.filter(action=AuditEntry.MERGE).exists()


def test_a_boston_table_seats_a_guest() -> None:
    players = [factories.member(n) for n in ("Anna", "Boris", "Vera")]
    table = services.table_open(
        game=Table.BOSTON,
        version=factories.boston_version(),
        members=[*players, Guest(name="Pyotr")],
        by=players[0],
        preference_suit="hearts",
    )
    assert selectors.seat_names(table) == ("Anna", "Boris", "Vera", "Pyotr")
    assert table.seats.get(position=3).guest.name == "Pyotr"


def test_a_guests_table_shows_him_on_its_page_print_and_export(client: Client) -> None:
    table, _anna, _boris, _pyotr = _pulka_with_pyotr()
    for name in ("table_detail", "table_print", "table_export"):
        response = client.get(reverse(f"scoring:{name}", args=[table.pk]))
        assert response.status_code == 200, name
        assert "Pyotr" in response.content.decode(), name


def test_an_organiser_checks_a_guest_in_and_again_at_the_next_evening(
    client: Client, organiser: Member
) -> None:
    first = Evening.objects.create(organiser=organiser, played_on=DAY)
    url = reverse("scoring:evening_check_in_guest", args=[first.pk])
    assert client.post(url, {"name": "Pyotr"}).status_code == 302
    page = client.get(reverse("scoring:evening_detail", args=[first.pk])).content.decode()
    assert 'Pyotr <span class="badge badge--guest">guest</span>' in page
    pyotr = Guest.objects.get()
    assert pyotr.evening == first
    second = Evening.objects.create(organiser=organiser, played_on=DAY)
    page = client.get(reverse("scoring:evening_detail", args=[second.pk])).content.decode()
    assert f'name="guest" value="{pyotr.pk}"' in page  # the tap list of guests who came before
    client.post(reverse("scoring:evening_check_in_guest", args=[second.pk]), {"guest": pyotr.pk})
    assert second.attendances.get().guest == pyotr  # the same guest: one history
    assert Guest.objects.count() == 1


def test_a_guest_cannot_be_checked_in_as_a_member(client: Client, organiser: Member) -> None:
    evening = Evening.objects.create(organiser=organiser, played_on=DAY)
    pyotr = Guest.objects.create(name="Pyotr")
    url = reverse("scoring:evening_check_in", args=[evening.pk])
    assert client.post(url, {"guest": pyotr.pk}).status_code == 403
    assert not evening.attendances.exists()


def test_the_guests_page_costs_a_fixed_number_of_queries(
    client: Client, organiser: Member, django_assert_num_queries: Any
) -> None:
    """Session, user with whether he is an organiser, the club's name, the guests with
    their table counts and the members to merge into: 5, whatever the number of guests."""
    for name in ("Pyotr", "Ivan", "Fyodor"):
        factories.pulka([factories.member(f"{name}'s host"), organiser, Guest(name=name)])
    url = reverse("scoring:guest_list")
    with django_assert_num_queries(5):
        page = client.get(url).content.decode()
    for name in ("Pyotr", "Ivan", "Fyodor"):
        assert f"{name} · 1 table" in page
