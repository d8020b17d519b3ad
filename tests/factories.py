"""Factories for the models the tests need (plain functions, no extra library)."""

from __future__ import annotations

from decimal import Decimal
from itertools import count
from typing import Any

from django.contrib.auth.models import Group

from members.models import ORGANISERS, Member
from scoring import services
from scoring.models import BostonTariff, PreferansTariff, Table

_numbers = count(1)


def member(name: str | None = None, *, organiser: bool = False, **fields: Any) -> Member:
    """A club member called ``name`` (password "pw")."""
    n = next(_numbers)
    user = Member.objects.create_user(
        username=fields.pop("username", f"member{n}"),
        password="pw",  # noqa: S106 - test password
        display_name=name or f"Player {n}",
        **fields,
    )
    if organiser:
        group, _ = Group.objects.get_or_create(name=ORGANISERS)
        user.groups.add(group)
    return user


def preferans_version(name: str = "Сочи (Sochi)") -> Any:
    return PreferansTariff.objects.get(name=name).current_version


def boston_version(system: str = "payment-tariff") -> Any:
    return BostonTariff.objects.get(system=system).current_version


def pulka(
    members: list[Member] | None = None, *, tariff: str = "Сочи (Sochi)", **options: Any
) -> Table:
    """An open pulka (3 new members unless given), opened by its first player."""
    members = members or [member("Anna"), member("Boris"), member("Vera")]
    return services.table_open(
        game=Table.PREFERANS,
        version=preferans_version(tariff),
        members=members,
        by=members[0],
        **options,
    )


def boston_table(
    members: list[Member] | None = None,
    *,
    system: str = "payment-tariff",
    price: Decimal = Decimal(1),
) -> Table:
    members = members or [member("Anna"), member("Boris"), member("Vera"), member("Gleb")]
    return services.table_open(
        game=Table.BOSTON,
        version=boston_version(system),
        members=members,
        by=members[0],
        price=price,
    )
