"""The demo club: its name, members, a year of paper history brought in from its
notebook, finished pulkas and Boston tables, and one pulka in play.

``manage.py load_demo`` (run by ``make run``) fills an empty club so a newcomer sees
every page with something on it. Every deal goes through ``services.deal_create``, so the
engine checks it exactly as it checks a deal typed into the web form.

The Preferans deals are drawn by a seeded ``random.Random``: each table has a short script
of what happens (a game, a misère, a pass-out, a dark pass-out, a bomb …) and the drawer
fills in who declared what and who took which tricks, proposing only deals the engine
accepts. The same seed and the same engine always give the same club. The Boston deals
are written out by hand; most of the payment-tariff table's are entered by their trump, as
the deal form asks for them, and come to the very chips their suit class gave before the
site knew the preference suit (``test_demo`` pins them).
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from members.models import ORGANISERS, Member
from scoring import games, selectors, services
from scoring.engine.errors import RuleError
from scoring.engine.preferans import Pulka
from scoring.engine.preferans.rules import LEVELS
from scoring.models import (
    AccountEntry,
    BostonTariff,
    Club,
    Entry,
    Evening,
    EveningTable,
    Guest,
    PreferansTariff,
    Season,
    Table,
    Tournament,
)
from scoring.selectors import evenings as evening_selectors
from scoring.services import accounts as account_services
from scoring.services import calendar as calendar_services
from scoring.services import confirmations, notifications
from scoring.services import evenings as evening_services
from scoring.services import tournaments as tournament_services
from scoring.services.history import history_import
from scoring.services.seasons import season_save

SEED = 2026
ATTEMPTS = 200  # proposals per deal before giving up (the drawer is almost always right)
MAX_DEALS = 30  # a pulka played "until complete" stops here if it has not closed

SOCHI = "Сочи (Sochi)"
LENINGRAD = "Ленинград (Leningrad)"
ROSTOV = "Ростов (Rostov)"
CLASSIC = "Классика (Classic)"
BOSTON_TARIFF = "Бостон: тариф платежей (payment tariff)"
BOSTON_CARD = "Бостон: таблица стоимости (value card)"

DEMO_CLUB = {
    "name": "Клуб «Семь пик» (демо)",
    "name_en": "Seven of Spades club (demo)",
    "intro": (
        "Демонстрационный клуб: участники, пульки и партии в бостон здесь придуманы, чтобы "
        "на каждой странице сайта было что посмотреть.\n\n"
        "Название и это приветствие клуб меняет сам: в админке, раздел «Клуб»."
    ),
    "intro_en": (
        "A demonstration club: its members, pulkas and Boston tables are made up so that "
        "every page of the site has something on it.\n\n"
        "A club changes its name and this welcome itself: in the admin, under “Club”."
    ),
    # Who accepts an imported record for the standings: the club's default, said outright.
    "import_acceptance": "organiser",
}
"""The demo club's own name and welcome, so a newcomer sees where they come from."""

ALREADY_LOADED = (
    "The club has members already (demo club already loaded): nothing changed.\n"
    "Demo passwords are shown only once, when the demo club is created; to set a new one "
    "run: python manage.py changepassword <username>"
)


class Writer(Protocol):
    def write(self, text: str, /) -> Any: ...


@dataclass(frozen=True)
class Person:
    username: str
    display_name: str
    role: str


ADMIN = Person("admin", "Администратор", "superuser (admin site)")
ORGANISER = Person("olga", "Ольга", "organiser")
MEMBERS = (
    Person("anna", "Анна", "member"),
    Person("boris", "Борис", "member"),
    Person("vera", "Вера", "member"),
    Person("gleb", "Глеб", "member"),
    Person("dina", "Дина", "member"),
    Person("egor", "Егор", "member"),
)
PEOPLE = (ADMIN, ORGANISER, *MEMBERS)


@dataclass(frozen=True)
class PulkaPlan:
    """One demo pulka. ``script`` letters, one deal each:

    ``g`` a game (usually made), ``r`` a game with a remise, ``t`` two whisters,
    ``h`` no play (both pass or half-whist), ``m`` a made misère, ``f`` a failed misère,
    ``p`` a pass-out, ``w`` a pass-out where the 4-player dealer takes widow tricks,
    ``d`` a dark pass-out, ``l`` a dark pass-out where someone looked first,
    ``k`` a dark game, ``b`` a game declared by a player holding a bomb.

    With ``until_complete`` made games follow the script until every pool is closed.
    """

    tariff: str
    players: tuple[str, ...]
    days_ago: int
    script: str
    pool_target: int = 20
    price: Decimal = Decimal("0.50")
    first_dealer: int = 0
    until_complete: bool = False
    finish: bool = True


PULKAS = (
    PulkaPlan(SOCHI, ("anna", "boris", "vera"), 33, "gpgmrhgtgpg", until_complete=True),
    PulkaPlan(LENINGRAD, ("gleb", "dina", "egor"), 29, "ggrppgmghtgfgpg", price=Decimal("0.20")),
    PulkaPlan(ROSTOV, ("anna", "gleb", "vera", "olga"), 23, "gpgppgrgmtghgpg", first_dealer=1),
    PulkaPlan(
        CLASSIC, ("boris", "dina", "egor"), 19, "gpmgddbbgkrlbgtg", pool_target=30, price=Decimal(1)
    ),
    PulkaPlan(
        SOCHI,
        ("anna", "boris", "gleb", "dina"),
        12,
        "gpgmgrgt",
        pool_target=10,
        first_dealer=2,
        until_complete=True,
    ),
    PulkaPlan(
        CLASSIC,
        ("vera", "egor", "olga", "anna"),
        8,
        "gwpgdbgmgrg",
        pool_target=20,
        price=Decimal(1),
        first_dealer=3,
    ),
    # The pulka still in play tonight.
    PulkaPlan(SOCHI, ("anna", "boris", "gleb"), 0, "gpgmgrgg", finish=False),
)


@dataclass(frozen=True)
class BostonPlan:
    tariff: str
    players: tuple[str, ...]
    days_ago: int
    deals: tuple[dict[str, Any], ...]
    preference_suit: str
    price: Decimal = Decimal("0.10")


# Boston deals name players by username; the loader puts in their seat names. Hearts is
# the payment-tariff table's preference suit: a trump of hearts is major, any other minor;
# the first deal gives its class directly, as a scorer may when the trump is not known.
BOSTON_TABLES = (
    BostonPlan(
        BOSTON_TARIFF,
        ("anna", "boris", "vera", "gleb"),
        26,
        (
            {"kind": "ask", "declarer": "anna", "partner": "vera", "suit": "minor", "tricks": 9},
            {"kind": "ask", "declarer": "boris", "trump": "clubs", "tricks": 6},
            {"kind": "pass"},
            {"kind": "ask", "declarer": "gleb", "partner": "boris", "trump": "hearts", "tricks": 7},
            {"kind": "independence", "declarer": "vera", "trump": "diamonds", "tricks": 8},
            {"kind": "ask", "declarer": "anna", "trump": "hearts", "tricks": 4},
            {"kind": "independence", "declarer": "gleb", "trump": "hearts", "tricks": 7},
            {
                "kind": "ask",
                "declarer": "boris",
                "partner": "anna",
                "trump": "spades",
                "tour": "double",
                "tricks": 10,
            },
            {"kind": "ask", "declarer": "vera", "partner": "gleb", "trump": "hearts", "tricks": 13},
            {"kind": "independence", "declarer": "anna", "trump": "clubs", "tricks": 9},
        ),
        preference_suit="hearts",
    ),
    BostonPlan(
        BOSTON_CARD,
        ("dina", "egor", "olga", "boris"),
        5,
        (
            {"kind": "card", "declarer": "dina", "contract": "5", "column": "spades", "tricks": 6},
            {
                "kind": "card",
                "declarer": "egor",
                "partner": "boris",
                "contract": "5",
                "column": "clubs",
                "tricks": 8,
                "honours": 3,
            },
            {
                "kind": "card",
                "declarer": "olga",
                "contract": "7",
                "column": "hearts",
                "tricks": 8,
                "honours": 4,
            },
            {"kind": "pass"},
            {
                "kind": "card",
                "declarer": "boris",
                "contract": "9",
                "column": "diamonds",
                "tricks": 7,
            },
            {
                "kind": "card",
                "declarer": "dina",
                "contract": "small-misere",
                "column": "spades",
                "tricks": 0,
            },
            {
                "kind": "card",
                "declarer": "egor",
                "contract": "6",
                "column": "diamonds",
                "tricks": 6,
                "honours": 3,
            },
            {
                "kind": "card",
                "declarer": "olga",
                "contract": "grand-misere",
                "column": "clubs",
                "tricks": 1,
            },
            {
                "kind": "card",
                "declarer": "boris",
                "contract": "piccolissimo",
                "column": "hearts",
                "tricks": 1,
            },
            {
                "kind": "card",
                "declarer": "dina",
                "partner": "olga",
                "contract": "slam-by-two",
                "column": "spades",
                "tricks": 13,
            },
            {
                "kind": "card",
                "declarer": "egor",
                "contract": "8",
                "column": "hearts",
                "tricks": 10,
                "honours": 4,
            },
        ),
        # The card prices by its column; the suit turned is written down all the same.
        preference_suit="diamonds",
    ),
)


def load_demo(*, stdout: Writer) -> dict[str, str]:
    """Create the demo club on an empty club and print its passwords once.

    Returns ``{username: password}`` for the accounts it created, or ``{}`` (changing
    nothing) when the club has members already.
    """
    if Member.objects.exists():
        stdout.write(ALREADY_LOADED + "\n")
        return {}
    with transaction.atomic():
        Club.objects.update_or_create(
            pk=Club.ONLY_PK, defaults=DEMO_CLUB | {"account_table_money": DEMO_TABLE_MONEY}
        )
        passwords, members = _create_people()
        organiser = members[ORGANISER.username]
        # The year before the club came to the site, from its notebook (issue 34).
        paper = history_import(
            content=PAPER_HISTORY.read_bytes(), file_name=PAPER_HISTORY.name, by=organiser
        )
        _top_ups(members, organiser)
        rng = random.Random(SEED)  # noqa: S311 - reproducible demo deals, not a secret
        today = timezone.localdate()
        tables = []
        played: dict[PulkaPlan, Table] = {}
        for plan in PULKAS:
            if version := _tariff_version(PreferansTariff, plan.tariff, stdout):
                played[plan] = _play_pulka(plan, version, members, organiser, rng, today)
                tables.append(played[plan])
        for boston_plan in BOSTON_TABLES:
            if version := _tariff_version(BostonTariff, boston_plan.tariff, stdout):
                tables.append(_play_boston(boston_plan, version, members, organiser, today))
        if LAST_EVENING in played and TONIGHT in played:
            _finished_evening(played[LAST_EVENING], members, organiser)
            tables += _tonight(played[TONIGHT], members, organiser, rng)
        sochi = PreferansTariff.objects.filter(name=SOCHI).first()
        if sochi is not None and sochi.current_version is not None:
            tables += _tournaments(sochi, members, organiser, rng, today)
        _fridays(members, organiser, today)
        _season(today)
        account_services.account_record(
            member=members[DEMO_REFUND[0]],
            kind=AccountEntry.REFUND,
            amount=DEMO_REFUND[1],
            by=organiser,
        )
    _report(stdout, passwords, tables)
    stdout.write(
        f"\nAnd {paper.tables} tables of paper history, {paper.guests} guests among them.\n"
    )
    return passwords


PAPER_HISTORY = Path(__file__).with_name("demo_history.csv")
"""The demo club's paper year (September 2025 to August 2026, Fridays, some missed in the
summer): 66 tables in the organiser's notebook, written as an organiser writes them, by
shown names; two players who never joined, «Семён Маркович» and «Лидия», come in as
guests. Drawn once by a seeded script and kept as the file, so the demo imports it through
the same service an organiser uses (``services.history``)."""

DEMO_DOMAIN = "demo.example.org"
"""The demo members' e-mail domain (example.org: reserved, never delivers anywhere)."""

LAST_EVENING = PULKAS[4]
"""The pulka of the finished demo evening (Anna, Boris, Gleb, Dina, 12 days ago)."""
TONIGHT = PULKAS[-1]
"""The pulka in play tonight (Anna, Boris, Gleb), opened by hand: round 1 of tonight."""
TONIGHT_ARRIVALS = ("vera", "dina", "egor")
GUEST = "Пётр"
"""Tonight's guest: drawn with Vera, Dina and Egor for round 2."""
TONIGHT_SEED = 2026
TONIGHT_SCRIPT = "gpgmgrgg"


SEASON = "Клубный сезон"
"""The season in progress: it began before the demo's first table (``SEASON_BEGAN_DAYS_AGO``)
and ends in seven weeks, so «Сезоны» and its leaderboard have every finished demo table
on them. ``SEASON_MIN_GAMES`` finished tables rank a member (the demo's play four or five)."""
SEASON_BEGAN_DAYS_AGO = 40
SEASON_DAYS_LEFT = 50
SEASON_MIN_GAMES = 2
SEASON_LEAGUE = {
    "league_rule": Season.PLACES,
    "place_points": [3, 2, 0],
    "sole_positive": Decimal(4),
    "second_negative": Decimal(1),
    "best_of": 8,
}
"""The season ranks as a league (docs/tournaments.md, "Seasons as leagues"): the Serbian
league's place points, the best 8 nights of each member counted."""


def _season(today: Any) -> None:
    """The season in progress (``SEASON``), its totals summed by the service as an
    organiser's would be, with the club's usual tariffs as its defaults, ranked as a
    league (``SEASON_LEAGUE``)."""
    season = Season(
        name=SEASON,
        min_games=SEASON_MIN_GAMES,
        **SEASON_LEAGUE,
        starts_on=today - timedelta(days=SEASON_BEGAN_DAYS_AGO),
        ends_on=today + timedelta(days=SEASON_DAYS_LEFT),
        preferans_tariff=PreferansTariff.objects.filter(name=SOCHI).first(),
        boston_tariff=BostonTariff.objects.filter(name=BOSTON_TARIFF).first(),
    )
    season.full_clean()
    season_save(season=season)


DEMO_TABLE_MONEY = Decimal(150)
"""The club's table money, drawn from each member's account when an evening is closed:
the finished demo evening's four members paid it so."""
DEMO_TOP_UPS = (
    ("anna", Decimal(1000)),
    ("boris", Decimal(500)),
    ("gleb", Decimal(300)),
    ("vera", Decimal(500)),
    ("dina", Decimal("200.50")),
)
"""What the members put on their accounts, in cash, before the finished evening (no
reason typed: the demo's pages are read in both languages)."""
DEMO_REFUND = ("vera", Decimal(100))
"""Given back after it: so a member's page shows a top-up, a charge and a refund."""


def _top_ups(members: dict[str, Member], organiser: Member) -> None:
    for username, amount in DEMO_TOP_UPS:
        account_services.account_record(
            member=members[username],
            kind=AccountEntry.TOP_UP,
            amount=amount,
            by=organiser,
        )


def _finished_evening(table: Table, members: dict[str, Member], organiser: Member) -> None:
    """The evening 12 days ago: its pulka, the four who came, the ledger with its first
    payment settled (the others still owed), closed by the organiser that night (which
    drew the club's table money from the four's accounts)."""
    evening = Evening.objects.create(
        organiser=organiser, played_on=table.played_on, place="Клуб, малый зал"
    )
    for member in Member.objects.filter(seats__table=table).order_by("seats__position"):
        evening_services.evening_check_in(evening=evening, member=member, by=organiser)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    first = evening_selectors.ledger(evening).lines[0]
    evening_services.settlement_mark(
        evening=evening, payer=first.payer, payee=first.payee, amount=first.amount, by=organiser
    )
    notifications.evening_close(evening=evening, by=organiser)  # load_demo sends nothing
    that_night = datetime.combine(table.played_on, time(23, 30), timezone.get_current_timezone())
    Evening.objects.filter(pk=evening.pk).update(closed_at=that_night)


FRIDAY_WEEKS = 8
"""The weekly series of Fridays announced ahead, from next Friday on."""
FRIDAY_SEATS = 4
"""One table in the small hall: the fifth «приду» waits for a seat."""
FRIDAY_ANSWERS = (
    ("anna", "yes"),
    ("boris", "yes"),
    ("vera", "yes"),
    ("gleb", "yes"),
    ("egor", "yes"),
    ("dina", "maybe"),
)
"""Next Friday's answers, in the order given: Egor is first on the waiting list."""


def next_friday(today: date) -> date:
    """The Friday after ``today`` (a week on, when today is a Friday)."""
    return today + timedelta(days=(4 - today.weekday()) % 7 or 7)


def _fridays(members: dict[str, Member], organiser: Member, today: date) -> None:
    """A weekly series of Fridays from next Friday on, and next Friday's answers."""
    first = next_friday(today)
    evenings = calendar_services.evening_schedule(
        organiser=organiser,
        played_on=first,
        starts_at=time(19, 0),
        place="Клуб, малый зал",
        game=Table.PREFERANS,
        table_size=4,
        seats=FRIDAY_SEATS,
        until=first + timedelta(weeks=FRIDAY_WEEKS - 1),
    )
    for username, answer in FRIDAY_ANSWERS:
        calendar_services.evening_answer(
            evening=evenings[0], member=members[username], answer=answer
        )


def _tonight(
    table: Table, members: dict[str, Member], organiser: Member, rng: random.Random
) -> list[Table]:
    """Tonight: the pulka in play is round 1; Vera, Dina, Egor and a guest arrive later,
    and are drawn (seed ``TONIGHT_SEED``) and seated at round 2, which has a few deals."""
    evening = Evening.objects.create(
        organiser=organiser, played_on=table.played_on, place="Клуб, большой зал"
    )
    for member in Member.objects.filter(seats__table=table).order_by("seats__position"):
        evening_services.evening_check_in(evening=evening, member=member, by=organiser)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    for username in TONIGHT_ARRIVALS:
        evening_services.evening_check_in(evening=evening, member=members[username], by=organiser)
    evening_services.evening_check_in_guest(evening=evening, name=GUEST, by=organiser)
    evening_services.evening_draw(evening=evening, seed=TONIGHT_SEED)
    drawn = evening_services.evening_open_tables(evening=evening, by=organiser)
    for opened in drawn:
        scorer = next(s.member for s in opened.seats.order_by("position") if s.member)
        _play_script(opened, TONIGHT_SCRIPT, scorer, rng)
    return drawn


CUP = "Кубок «Семь пик»"
"""The finished demo tournament: 12 players (the six members and six guests), three Swiss
tours, then the best three play a final of eight deals."""
LEAGUE = "Осенняя лига"
"""The demo tournament in progress: the six guests, tour 1 closed, tour 2 in play."""
CUP_GUESTS = ("Иван", "Мария", "Сергей", "Наталья", "Кирилл", "Лев")
CUP_DAYS_AGO = 20
TOURNAMENT_SCRIPT = "gpgmgrgtgh"
"""Each tournament table's deals (``PulkaPlan``'s letters), to a pool of 30: ten deals."""


def _tournaments(
    tariff: PreferansTariff,
    members: dict[str, Member],
    organiser: Member,
    rng: random.Random,
    today: Any,
) -> list[Table]:
    """The finished cup (every tour closed) and the league in progress (tour 2 in play),
    both on Sochi, judged by the organiser; returns their tables."""
    common = {
        "preferans_tariff": tariff,
        "table_size": 3,
        "length": Tournament.POOL,
        "pool_target": 30,
        "points": Tournament.RAW,
        "seating": Tournament.SWISS,
        "organiser": organiser,
        "place": "Клуб, большой зал",
    }
    cup = Tournament.objects.create(
        name=CUP,
        played_on=today - timedelta(days=CUP_DAYS_AGO),
        tours=4,
        cut_after=3,
        cut_to=3,
        final_deals=8,
        **common,
    )
    players: list[Member | Guest] = [members[p.username] for p in MEMBERS]
    players += [Guest.objects.create(name=name) for name in CUP_GUESTS]
    tables = _run(cup, players, organiser, rng, closed=4)
    league = Tournament.objects.create(name=LEAGUE, played_on=today, tours=3, **common)
    tables += _run(league, players[len(MEMBERS) :], organiser, rng, closed=1, in_play=True)
    return tables


def _run(
    tournament: Tournament,
    players: list[Member | Guest],
    judge: Member,
    rng: random.Random,
    *,
    closed: int,
    in_play: bool = False,
) -> list[Table]:
    """Enter ``players``, start ``tournament``, play and close ``closed`` tours (and seat
    and play one more, left open, when ``in_play``); the tables are dated the
    tournament's day."""
    tournament.judges.add(judge)
    for player in players:
        entry = Entry.objects.create(
            tournament=tournament,
            member=player if isinstance(player, Member) else None,
            guest=player if isinstance(player, Guest) else None,
        )
        tournament_services.entry_check_in(entry=entry)
    tournament_services.tournament_start(tournament=tournament, seed=TONIGHT_SEED)
    tables: list[Table] = []
    for number in range(closed + in_play):
        tour = tournament_services.tour_seat(tournament=tournament, by=judge)
        opened = [link.table for link in tour.tables.select_related("table")]
        Table.objects.filter(pk__in=[t.pk for t in opened]).update(played_on=tournament.played_on)
        for table in opened:
            table.refresh_from_db()
            seats = table.seats.order_by("position")
            scorer = next((s.member for s in seats if s.member is not None), judge)
            _play_script(table, TOURNAMENT_SCRIPT, scorer, rng)
            if number < closed:
                table = services.table_finish(table, by=judge)
                _confirmed(table, judge)
            tables.append(table)
        if number < closed:
            tournament_services.tour_close(tour=tour)
    return tables


def _confirmed(table: Table, judge: Member) -> None:
    """Each member seated at a finished tournament table confirms its result, as on his
    phone (a guest has no account: the members' taps make it final); a table of guests
    only is confirmed for them by the judge."""
    members = [s.member for s in table.seats.order_by("position").select_related("member")]
    for member in members:
        if member is not None:
            confirmations.table_confirm(table=table, by=member)
    if all(member is None for member in members):
        confirmations.table_confirm(table=table, by=judge)


def _create_people() -> tuple[dict[str, str], dict[str, Member]]:
    organisers, _ = Group.objects.get_or_create(name=ORGANISERS)
    passwords: dict[str, str] = {}
    members: dict[str, Member] = {}
    for person in PEOPLE:
        password = secrets.token_urlsafe(8)
        member = Member(
            username=person.username,
            display_name=person.display_name,
            email=f"{person.username}@{DEMO_DOMAIN}",
        )
        member.is_staff = person in (ADMIN, ORGANISER)
        member.is_superuser = person == ADMIN
        member.set_password(password)
        member.save()
        if person == ORGANISER:
            member.groups.add(organisers)
        passwords[person.username] = password
        members[person.username] = member
    return passwords, members


def _tariff_version(model: Any, name: str, stdout: Writer) -> Any:
    tariff = model.objects.filter(name=name).first()
    version = tariff.current_version if tariff is not None else None
    if version is None:
        stdout.write(f"Skipped the demo tables of tariff {name!r}: it is missing.\n")
    return version


def _play_pulka(
    plan: PulkaPlan,
    version: Any,
    members: dict[str, Member],
    organiser: Member,
    rng: random.Random,
    today: Any,
) -> Table:
    seated = [members[username] for username in plan.players]
    table = services.table_open(
        game=games.PREFERANS.code,
        version=version,
        members=seated,
        by=organiser,
        first_dealer=plan.first_dealer,
        pool_target=plan.pool_target,
        price=plan.price,
        played_on=today - timedelta(days=plan.days_ago),
    )
    script = plan.script + ("g" * MAX_DEALS if plan.until_complete else "")
    _play_script(table, script, seated[0], rng)
    if plan.finish:
        table = services.table_finish(table, by=organiser)
    return table


def _play_script(table: Table, script: str, scorer: Member, rng: random.Random) -> None:
    """Play ``script``'s deals (``PulkaPlan``'s letters) at ``table``, as ``scorer``."""
    names = selectors.seat_names(table)
    pulka = Pulka(games.PREFERANS.setup(table, names))  # the demo's own copy, to draw deals
    for letter in script[:MAX_DEALS]:
        if pulka.complete or (table.deal_cap is not None and pulka.played >= table.deal_cap):
            break  # a tour's table stops at its deals (the final's 8), as the site refuses more
        data = _draw(pulka, names, letter, rng)
        services.deal_create(table, data, by=scorer)


def _draw(pulka: Pulka, names: tuple[str, ...], letter: str, rng: random.Random) -> dict[str, Any]:
    """A deal of kind ``letter`` that the engine accepts now; it is played on ``pulka``."""
    n = len(pulka.deals) + 1
    for _ in range(ATTEMPTS):
        data = _propose(pulka, names, letter, rng)
        try:
            pulka.play(games.PREFERANS.parse_deal(data, names, n))
        except RuleError:
            continue
        return data
    raise RuleError(f"the demo could not draw a legal deal {letter!r}", deal=n)


def _propose(
    pulka: Pulka, names: tuple[str, ...], letter: str, rng: random.Random
) -> dict[str, Any]:
    active = pulka.active_seats()
    if letter in "pwdl":
        return _passout(pulka, names, letter, rng)
    if letter in "mf":
        declarer = rng.choice(active)
        taken = 0 if letter == "m" else rng.choice((1, 1, 2))
        return {"kind": "misere", "declarer": names[declarer], "tricks": {names[declarer]: taken}}
    if letter == "b":
        bombed = [seat for seat in active if pulka.bomb(seat) > 1]
        declarer = rng.choice(bombed or list(active))
    else:
        declarer = rng.choice(active)
    low = pulka.lowest_contract()
    levels = [level for level in LEVELS if level >= low]
    level = rng.choices(levels, weights=[(12, 8, 4, 2, 1)[lv - 6] for lv in levels])[0]
    suit = rng.choice("SCDHN")
    defenders = pulka.defenders(declarer)
    if letter == "h":
        answers = rng.choice((("pass", "pass"), ("pass", "half")))
    elif letter == "t":
        answers = ("whist", "whist")
    else:
        answers = rng.choice((("whist", "pass"), ("pass", "whist"), ("whist", "whist")))
    deal: dict[str, Any] = {
        "kind": "game",
        "declarer": names[declarer],
        "contract": f"{level}{suit}",
        "answers": {names[s]: a for s, a in zip(defenders, answers, strict=True)},
    }
    if "whist" in answers:
        if letter == "r":
            taken = level - rng.choice((1, 1, 2))
        else:
            taken = min(10, level + rng.choice((0, 0, 0, 1)))
        rest = 10 - taken
        first = rng.randint(0, rest)
        deal["tricks"] = {
            names[declarer]: taken,
            names[defenders[0]]: first,
            names[defenders[1]]: rest - first,
        }
    if letter == "k":
        deal["dark"] = True
    return deal


def _passout(
    pulka: Pulka, names: tuple[str, ...], letter: str, rng: random.Random
) -> dict[str, Any]:
    active = pulka.active_seats()
    widow = rng.choice((1, 2)) if letter == "w" else 0
    cuts = sorted(rng.randint(0, 10 - widow) for _ in range(len(active) - 1))
    bounds = [0, *cuts, 10 - widow]
    tricks = {names[s]: bounds[i + 1] - bounds[i] for i, s in enumerate(active)}
    deal: dict[str, Any] = {"kind": "passout", "tricks": tricks}
    if letter == "w":
        deal["dealer_tricks"] = widow
    if letter in "dl":
        deal["dark"] = True
    if letter == "l":
        deal["looked"] = [names[rng.choice(active)]]
    return deal


def _play_boston(
    plan: BostonPlan, version: Any, members: dict[str, Member], organiser: Member, today: Any
) -> Table:
    seated = [members[username] for username in plan.players]
    table = services.table_open(
        game=games.BOSTON.code,
        version=version,
        members=seated,
        by=organiser,
        price=plan.price,
        preference_suit=plan.preference_suit,
        played_on=today - timedelta(days=plan.days_ago),
    )
    names = dict(zip(plan.players, selectors.seat_names(table), strict=True))
    for deal in plan.deals:
        data = dict(deal)
        for key in ("declarer", "partner"):
            if data.get(key) is not None:
                data[key] = names[data[key]]
        services.deal_create(table, data, by=seated[0])
    return services.table_finish(table, by=organiser)


def _report(stdout: Writer, passwords: dict[str, str], tables: list[Table]) -> None:
    finished = sum(1 for table in tables if not table.is_open)
    stdout.write(
        f"Demo club loaded: {len(passwords)} accounts, {finished} finished tables and "
        f"{len(tables) - finished} in play.\n"
        "Passwords are shown this once only (to set a new one: "
        "python manage.py changepassword <username>).\n\n"
    )
    roles = {person.username: person.role for person in PEOPLE}
    rows = [("username", "password", "role")]
    rows += [(username, password, roles[username]) for username, password in passwords.items()]
    width = max(len(username) for username, _, _ in rows)
    for username, password, role in rows:
        stdout.write(f"  {username:<{width}}  {password:<12}  {role}\n")
