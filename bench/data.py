"""Build a big club for the benchmarks: members, finished tables, one live pulka.

Finished tables are made from a few dozen legal deal sequences scored once by the engine
and dealt out to random members, then written with ``bulk_create`` — the same rows the
site writes when a table finishes (seat results, stats, result document), just faster.
"""

from __future__ import annotations

import dataclasses
import datetime
import random
from collections.abc import Callable
from typing import Any

from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from django.utils import timezone

from bench.engine import random_deal
from members.models import Member
from scoring import services
from scoring.engine import boston, preferans
from scoring.engine.boston import Ask, BostonSetup, BostonTable, Independence, Pass
from scoring.engine.errors import RuleError
from scoring.engine.money import two_decimals
from scoring.engine.preferans import Pulka, PulkaSetup
from scoring.engine.standings import table_places
from scoring.engine.stats import boston_stats, preferans_stats
from scoring.models import (
    BostonTariff,
    DealRecord,
    PreferansTariff,
    Season,
    Seat,
    Table,
)

PASSWORD = "bench"  # noqa: S105 - a throwaway club on a local benchmark database
TEMPLATES = 40


@dataclasses.dataclass
class Template:
    """A scored table with placeholder names, reused for many finished tables."""

    deals: list[Any]
    result: Any
    balances: list[Any]
    stats: list[dict[str, int]]


def build(
    *, members: int, tables: int, live_deals: int, seed: int = 8, log: Callable[[str], None]
) -> dict[str, Any]:
    """A fresh club of ``members`` members and ``tables`` finished tables (70% pulkas,
    30% Boston) over the last year, seasons, ratings, and a live pulka of ``live_deals``."""
    rng = random.Random(seed)
    with transaction.atomic():
        club = _members(members)
        log(f"{len(club)} members")
        sochi = PreferansTariff.objects.get(name="Сочи (Sochi)").current_version
        payment = BostonTariff.objects.get(system="payment-tariff").current_version
        makings = _Makings(
            rng,
            club,
            sochi,
            payment,
            pulkas=[_pulka_template(rng) for _ in range(TEMPLATES)],
            bostons=[_boston_template(rng) for _ in range(TEMPLATES)],
        )
        _seasons(sochi.tariff, payment.tariff)
        count = _finished_tables(makings, tables)
        log(f"{count} finished tables")
    for game, _ in Table.GAMES:
        services.ratings_rebuild(game)
    log("ratings rebuilt")
    services.standings_rebuild()  # the tables were written in bulk, not finished one by one
    log("standings totals rebuilt")
    # Fresh planner statistics and the visibility map after the bulk load, as autovacuum
    # would leave them in a while: else it runs during the measurements (at 100,000 tables
    # it slowed every endpoint by a third, the bare view too).
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    live = _live_pulka(rng, club, sochi, live_deals)
    log(f"live pulka #{live.pk} with {live_deals} deals")
    return {"live": live, "members": club}


def _members(count: int) -> list[Member]:
    password = make_password(PASSWORD)
    Member.objects.bulk_create(
        Member(username=f"m{i:03}", display_name=f"Игрок {i:03}", password=password)
        for i in range(count)
    )
    return list(Member.objects.filter(username__startswith="m").order_by("username"))


def _seasons(preferans_tariff: Any, boston_tariff: Any) -> None:
    today = datetime.date.today()
    for quarter in range(4):
        ends = today - datetime.timedelta(days=91 * quarter)
        Season.objects.create(
            name=f"Bench season {4 - quarter}",
            starts_on=ends - datetime.timedelta(days=90),
            ends_on=ends if quarter else ends + datetime.timedelta(days=30),
            preferans_tariff=preferans_tariff,
            boston_tariff=boston_tariff,
            min_games=10,
        )


def _pulka_template(rng: random.Random) -> Template:
    setup = PulkaSetup(players=("A", "B", "C"), pool_target=20)
    pulka = Pulka(setup)
    deals = []
    while not pulka.complete and len(deals) < 60:
        deal = random_deal(rng, pulka)
        try:
            pulka.play(deal)
        except RuleError:
            continue
        deals.append(deal)
    result = pulka.result()
    balances = [two_decimals(b) for b in result.balances]
    return Template(deals, result, balances, preferans_stats(setup, deals, result.deals))


def _boston_template(rng: random.Random) -> Template:
    setup = BostonSetup(players=("A", "B", "C", "D"))
    table = BostonTable(setup)
    deals: list[Any] = []
    for _ in range(rng.randint(8, 16)):
        declarer = rng.randrange(4)
        roll = rng.random()
        if roll < 0.1:
            deal: Any = Pass()
        elif roll < 0.3:
            deal = Independence(
                declarer=declarer, suit=rng.choice(["minor", "major"]), tricks=rng.randint(5, 13)
            )
        else:
            partner = rng.choice([None, (declarer + 2) % 4])
            deal = Ask(
                declarer=declarer,
                partner=partner,
                suit=rng.choice(["minor", "major"]),
                tricks=rng.randint(3, 13),
            )
        table.play(deal)
        deals.append(deal)
    result = table.result()
    return Template(
        deals, result, [str(c) for c in result.chips], boston_stats(deals, result.deals)
    )


DEAL_LOGS_UP_TO = 20_000
"""Clubs up to this size store every finished table's deal log; bigger ones store none: no
measured page reads a finished table's deals (standings and profiles read the seats), and
at 100,000 tables the logs would be three million rows."""

CHUNK = 10_000  # tables written at a time, so that a big club never sits in memory whole


@dataclasses.dataclass
class _Makings:
    """What the finished tables are made of: the members, the tariffs and the templates."""

    rng: random.Random
    club: list[Member]
    sochi: Any
    payment: Any
    pulkas: list[Template]
    bostons: list[Template]


def _finished_tables(makings: _Makings, count: int) -> int:
    written = 0
    while written < count:
        chunk = min(CHUNK, count - written)
        written += _finished_chunk(makings, chunk, deals=count <= DEAL_LOGS_UP_TO)
    return written


def _finished_chunk(makings: _Makings, count: int, *, deals: bool) -> int:
    rng = makings.rng
    today = datetime.date.today()
    now = timezone.now()
    plans = []
    for _ in range(count):
        game = Table.PREFERANS if rng.random() < 0.7 else Table.BOSTON
        template = rng.choice(makings.pulkas if game == Table.PREFERANS else makings.bostons)
        seated = rng.sample(makings.club, 3 if game == Table.PREFERANS else 4)
        plans.append((game, template, seated))
    tables = Table.objects.bulk_create(
        (
            Table(
                game=game,
                preferans_version=makings.sochi if game == Table.PREFERANS else None,
                boston_version=makings.payment if game == Table.BOSTON else None,
                played_on=today - datetime.timedelta(days=rng.randrange(365)),
                status=Table.FINISHED,
                finished_at=now,
                result=_document(game, template, tuple(m.name for m in seated)),
            )
            for game, template, seated in plans
        ),
        batch_size=2000,
    )
    seats, records = [], []
    for table, (game, template, seated) in zip(tables, plans, strict=True):
        names = tuple(m.name for m in seated)
        places = table_places([float(b) for b in template.balances])
        for i, member in enumerate(seated):
            seats.append(
                Seat(
                    table=table,
                    position=i,
                    member=member,
                    name=names[i],
                    result=template.balances[i],
                    money=template.result.money[i],
                    place=places[i],
                    won=places[i] == 1,
                    stats=template.stats[i],
                )
            )
        if deals:
            module = preferans.record if game == Table.PREFERANS else boston.record
            records += [
                DealRecord(table=table, sequence=n, data=module.deal_record(deal, names))
                for n, deal in enumerate(template.deals, start=1)
            ]
    Seat.objects.bulk_create(seats, batch_size=2000)
    DealRecord.objects.bulk_create(records, batch_size=5000)
    return len(tables)


def _document(game: str, template: Template, names: tuple[str, ...]) -> dict[str, Any]:
    result = template.result
    if game == Table.PREFERANS:
        setup = dataclasses.replace(result.setup, players=names)
        return preferans.record.result_document(dataclasses.replace(result, setup=setup))
    return boston.record.result_document(dataclasses.replace(result, players=names))


def _live_pulka(rng: random.Random, club: list[Member], version: Any, deals: int) -> Table:
    seated = club[:3]
    table = services.table_open(
        game=Table.PREFERANS, version=version, members=seated, by=seated[0], pool_target=10_000
    )
    names = tuple(m.name for m in seated)
    pulka = Pulka(PulkaSetup(players=names, pool_target=10_000))
    records = []
    while len(records) < deals:
        deal = random_deal(rng, pulka)
        pulka.play(deal)
        records.append(
            DealRecord(
                table=table,
                sequence=len(records) + 1,
                data=preferans.record.deal_record(deal, names),
            )
        )
    DealRecord.objects.bulk_create(records)
    return table
