"""Factories for the models the tests need (plain functions, no extra library)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from itertools import count
from typing import Any

from django.contrib.auth.models import Group
from django.urls import reverse

from members.models import ORGANISERS, Member
from scoring import services
from scoring.models import BostonTariff, PreferansTariff, Table

_numbers = count(1)

# Deals as the deal form posts them, for the Anna/Boris/Vera pulka of ``pulka()``.
HTMX = {"HTTP_HX_REQUEST": "true"}
FIRST_GAME = {  # sochi-short-pulka.json, deal 1: A 6♠, B whists, C passes; 6/3/1
    "kind": "game",
    "declarer": "Anna",
    "level": "6",
    "suit": "S",
    "answer:Boris": "whist",
    "answer:Vera": "pass",
    "tricks:Anna": "6",
    "tricks:Boris": "3",
    "tricks:Vera": "1",
}
PASSOUT = {"kind": "passout", "tricks:Anna": "5", "tricks:Boris": "5", "tricks:Vera": "0"}
MISERE = {"kind": "misere", "declarer": "Boris", "tricks:Boris": "0"}
# Deals in the game record's form (game-format.md), as the services take them.
GAME_RECORD = {  # FIRST_GAME
    "kind": "game",
    "declarer": "Anna",
    "contract": "6S",
    "answers": {"Boris": "whist", "Vera": "pass"},
    "tricks": {"Anna": 6, "Boris": 3, "Vera": 1},
}
PASSOUT_RECORD = {"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "Vera": 0}}  # PASSOUT


def drawn(table: Table) -> dict[str, int]:
    """What a write form drawn now carries of the table: its revision (every write at a
    table sends the revision its page showed; docs/architecture.md)."""
    return {"revision": Table.objects.values_list("revision", flat=True).get(pk=table.pk)}


def post_deal(client: Any, table: Table, data: dict[str, str], **headers: Any) -> Any:
    """Post ``data`` to the table's deal form as drawn now (with the table's revision)."""
    return client.post(
        reverse("scoring:deal_create", args=[table.pk]), {**data, **drawn(table)}, **headers
    )


PASSWORD = "pw"  # noqa: S105 - every test member's password


def member(
    name: str | None = None, *, organiser: bool = False, password: str = PASSWORD, **fields: Any
) -> Member:
    """A club member called ``name`` (password ``PASSWORD``), in the organisers' group if
    ``organiser``."""
    n = next(_numbers)
    user = Member.objects.create_user(
        username=fields.pop("username", f"member{n}"),
        password=password,
        display_name=name if name is not None else f"Player {n}",
        **fields,
    )
    if organiser:
        group, _ = Group.objects.get_or_create(name=ORGANISERS)
        user.groups.add(group)
    return user


def club_members() -> dict[str, Member]:
    """The ``club`` fixture's five members by display name (tests/conftest.py), for a
    fixture that builds them once for many tests (tests/built_once.py)."""
    return {
        name: member(name, username=name.lower())
        for name in ("Anna", "Boris", "Vera", "Gleb", "Dina")
    }


def preferans_version(name: str = "Сочи (Sochi)") -> Any:
    return PreferansTariff.objects.get(name=name).current_version


def preferans_tariff(name: str, *, like: str = "Сочи (Sochi)", **settings: Any) -> Any:
    """A new house tariff called ``name``: a copy of ``like`` with ``settings`` changed,
    published (its current version is what a table opened under it gets)."""
    tariff = services.tariff_copy(PreferansTariff.objects.get(name=like), name=name, by=None)
    for setting, value in settings.items():
        setattr(tariff, setting, value)
    services.tariff_publish(tariff, by=None)
    return tariff


def boston_version(system: str = "payment-tariff") -> Any:
    return BostonTariff.objects.get(system=system).current_version


def pulka(
    members: list[Member] | None = None,
    *,
    tariff: str = "Сочи (Sochi)",
    deals: Sequence[dict[str, Any]] = (),
    finished: bool = False,
    **options: Any,
) -> Table:
    """A pulka (3 new members unless given) opened by its first player, who then enters
    ``deals`` and, if ``finished``, finishes it; ``options`` go to ``table_open``."""
    members = members or [member("Anna"), member("Boris"), member("Vera")]
    table = services.table_open(
        game=Table.PREFERANS,
        version=preferans_version(tariff),
        members=members,
        by=members[0],
        **options,
    )
    return played(table, deals, by=members[0], finished=finished)


def boston_table(
    members: list[Member] | None = None,
    *,
    system: str = "payment-tariff",
    price: Decimal = Decimal(1),
    deals: Sequence[dict[str, Any]] = (),
    finished: bool = False,
    **options: Any,
) -> Table:
    """A Boston table (4 new members unless given), like ``pulka``."""
    members = members or [member("Anna"), member("Boris"), member("Vera"), member("Gleb")]
    table = services.table_open(
        game=Table.BOSTON,
        version=boston_version(system),
        members=members,
        by=members[0],
        price=price,
        **options,
    )
    return played(table, deals, by=members[0], finished=finished)


def played(
    table: Table,
    deals: Sequence[dict[str, Any]],
    *,
    by: Member | None = None,
    finished: bool = False,
) -> Table:
    """``table`` after ``deals``, each entered by ``by``; finished by ``by`` if ``finished``."""
    for deal in deals:
        services.deal_create(table, deal, by=by)
    return services.table_finish(table, by=by) if finished else table


def finished_pulka(
    members: list[Member], winner: Member, day: Any, *, tariff: str = "Сочи (Sochi)"
) -> Table:
    """A short finished pulka that ``winner`` wins with an unplayed 10 (both defenders
    pass): with a pool of 10 his balance is 66.67 whists, the others' −33.33. With four
    players a pass-out first moves the deal on if the winner is dealing."""
    from scoring import selectors

    table = pulka(members, tariff=tariff, pool_target=10, played_on=day)
    names = [m.name for m in members]
    seat = members.index(winner)
    game = selectors.replay(table).game
    if seat not in game.active_seats():
        tricks = dict(zip([names[s] for s in game.active_seats()], (4, 3, 3), strict=True))
        services.deal_create(table, {"kind": "passout", "tricks": tricks}, by=members[0])
        game = selectors.replay(table).game
    defenders = [names[s] for s in game.defenders(seat)]
    services.deal_create(
        table,
        {
            "kind": "game",
            "declarer": names[seat],
            "contract": "10N",
            "answers": dict.fromkeys(defenders, "pass"),
        },
        by=members[0],
    )
    return services.table_finish(table, by=members[0])


def tournament(players: int = 6, **fields: Any) -> Any:
    """A draft tournament on Sochi, three to a table, two Swiss tours to a pool of 10,
    with ``players`` new members (P0, P1, …) entered and checked in; ``fields`` change
    any column."""
    from scoring.models import Tournament
    from scoring.services import tournaments as services

    values: dict[str, Any] = {
        "name": "Cup",
        "preferans_tariff": PreferansTariff.objects.get(name="Сочи (Sochi)"),
        "tours": 2,
        "seating": Tournament.SWISS,
        "table_size": 3,
        "length": Tournament.POOL,
        "pool_target": 10,
        "points": Tournament.RAW,
    }
    made = Tournament.objects.create(**(values | fields))
    for i in range(players):
        entry = services.entry_add(tournament=made, member=member(f"P{i}"))
        services.entry_check_in(entry=entry)
    return made


def tour_played(tour: Any, by: Member, *, confirm: bool = True) -> Any:
    """Finish each table of ``tour`` with the hand-worked short deal: its first player in
    the deal (seat 1 at a table of 3; the dealer sits out at a table of 4) declares an
    unplayed 10NT and both others pass: +66.67 whists for him, −33.33 for each other
    player (Sochi, pool 10). With ``confirm``, ``by`` (a judge) then confirms each
    table's result for its players, so the tour may be closed. Returns the tour."""
    from scoring import selectors
    from scoring.services.confirmations import table_confirm

    for link in tour.tables.select_related("table"):
        table = link.table
        names = list(table.seats.order_by("position").values_list("name", flat=True))
        game = selectors.replay(table).game
        declarer = game.active_seats()[0]
        services.deal_create(
            table,
            {
                "kind": "game",
                "declarer": names[declarer],
                "contract": "10N",
                "answers": dict.fromkeys([names[s] for s in game.defenders(declarer)], "pass"),
            },
            by=by,
        )
        services.table_finish(table, by=by)
        if confirm:
            table_confirm(table=table, by=by)
    return tour
