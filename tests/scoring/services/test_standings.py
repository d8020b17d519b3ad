"""Standings totals (scoring/services/standings.py): kept by finishes and reopens, equal to
a rebuild from scratch, and equal to what the leaderboards and profiles computed from the
whole history before the totals existed (that computation is kept below as the oracle)."""

from __future__ import annotations

import datetime
import random
from collections import Counter
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command
from django.db.models import Count, F, Max, Min, Q, Sum
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from members.models import Member, name_fields, shown_name_of
from scoring import selectors, services
from scoring.engine.standings import Standing, rank_standings
from scoring.games import CENT
from scoring.models import (
    Guest,
    Rating,
    RivalTotal,
    Season,
    Seat,
    StandingsStamp,
    StandingsTotal,
    Table,
)
from scoring.pages import profiles
from scoring.selectors import profiles as profile_reads
from scoring.services.guests import guest_merge
from tests import factories
from tests.factories import finished_pulka

pytestmark = pytest.mark.django_db

SPRING = (datetime.date(2026, 3, 1), datetime.date(2026, 5, 31))
DAY = datetime.date(2026, 3, 10)


# -- the oracle: the leaderboard and the profile as they were computed from every seat -----


def old_standings(game: str, season: Season | None) -> tuple[list[Standing], list[Standing]]:
    # The members' seats: a guest is on no board (docs/evenings.md, Guests), and the demo's
    # paper year and its tournaments have guests at counted tables.
    seats = Seat.objects.members_only().filter(
        table__game=game, table__status=Table.FINISHED, table__standing=Table.COUNTED
    )
    if season is not None:
        seats = seats.filter(table__played_on__range=(season.starts_on, season.ends_on))
    rows = seats.values("member_id", *name_fields("member__")).annotate(
        games=Count("id"),
        total=Sum("result"),
        money=Sum("money"),
        best=Max("result"),
        worst=Min("result"),
        wins=Count("id", filter=Q(won=True)),
    )
    ratings = dict(Rating.objects.filter(game=game).values_list("member_id", "ordinal"))
    lines = [
        Standing(
            member=row["member_id"],
            name=shown_name_of(row, "member__"),
            games=row["games"],
            total=row["total"],
            money=row["money"],
            best=row["best"],
            worst=row["worst"],
            wins=row["wins"],
            rating=Decimal(str(round(ratings.get(row["member_id"], 0.0), 2))),
        )
        for row in rows
    ]
    order = season.order if season is not None else ("money", "average", "wins")
    return rank_standings(lines, order, season.min_games if season is not None else 0)


def old_profile(member: Any) -> dict[str, Any]:
    """The profile's summary, statistics and head-to-head from the member's every seat."""
    seats = list(
        Seat.objects.filter(
            member=member, table__status=Table.FINISHED, table__standing=Table.COUNTED
        ).values_list("table__game", "result", "money", "won", "stats")
    )
    summary, counts = {}, {}
    for game, _label in Table.GAMES:
        played = [s for s in seats if s[0] == game]
        if played:
            results = [s[1] for s in played]
            summary[game] = (
                len(played),
                sum(s[3] for s in played),
                sum(results, Decimal(0)),  # in Python: exact, as the profile summed them
                sum((s[2] or Decimal(0) for s in played), Decimal(0)),
                max(results),
                min(results),
            )
            counter: Counter[str] = Counter()
            for s in played:
                counter.update({k: v for k, v in s[4].items() if isinstance(v, int)})
            counts[game] = +counter  # the counts that are not zero
    rivals = (
        Seat.objects.members_only()
        .filter(
            table__status=Table.FINISHED,
            table__standing=Table.COUNTED,
            table__seats__member=member,
        )
        .exclude(member=member)
        .values("member__username", "table__game")
        .annotate(
            tables=Count("id"),
            theirs=Sum("result"),
            mine=Sum("table__seats__result"),
            above=Count("id", filter=Q(table__seats__place__lt=F("place"))),
        )
        .order_by("table__game", "-tables", "member__display_name", "member__username")
    )
    return {
        "summary": summary,
        "counts": counts,
        "rivals": [
            (
                r["member__username"],
                r["table__game"],
                r["tables"],
                r["mine"].quantize(CENT),  # SQLite sums as floats (see ``cents``)
                r["theirs"].quantize(CENT),
                r["above"],
            )
            for r in rivals
        ],
    }


def new_profile(member: Any) -> dict[str, Any]:
    totals = profile_reads.member_totals(member)
    return {
        "summary": {
            s.game: (s.tables, s.wins, s.total, s.money, s.best, s.worst)
            for s in profiles.summaries(totals, {})
        },
        "counts": {game: Counter(total.stats) for game, total in totals.items()},
        "rivals": [
            (r.username, r.game, r.tables, r.mine, r.theirs, r.above)
            for r in profiles.rivals(member)
        ],
    }


def kept_rows() -> dict[str, Any]:
    """Every total and head-to-head row as plain values."""
    return {
        "totals": {
            (row.season_id, row.game, row.member_id): (
                row.tables,
                row.wins,
                row.total,
                row.money,
                row.best,
                row.worst,
                row.stats,
            )
            for row in StandingsTotal.objects.all()
        },
        "rivals": {
            (row.member_id, row.rival_id, row.game): (row.tables, row.mine, row.theirs, row.above)
            for row in RivalTotal.objects.all()
        },
    }


def cents(board: tuple[list[Standing], list[Standing]]) -> tuple[list[Standing], ...]:
    """A board's sums to the cent: SQLite sums decimals as floats (0.0100000000000051 for
    0.01), which the pages round away; the kept totals are exact decimals."""
    fields = ("total", "money", "best", "worst")
    return tuple(
        [replace(s, **{f: getattr(s, f).quantize(CENT) for f in fields}) for s in part]
        for part in board
    )


def assert_totals_match_the_oracle(members: list[Any]) -> None:
    kept = kept_rows()
    services.standings_rebuild()
    assert kept_rows() == kept  # what the finishes and reopens kept is what a rebuild gives
    for season in [None, *Season.objects.all()]:
        for game, _label in Table.GAMES:
            assert cents(selectors.standings(game, season)) == cents(old_standings(game, season))
    for member in members:
        assert new_profile(member) == old_profile(member)


# -- worked by hand ---------------------------------------------------------------------------


def totals_of(member: Any, season: Season | None = None) -> StandingsTotal:
    return StandingsTotal.objects.get(member=member, season=season, game=Table.PREFERANS)


def test_a_finish_adds_its_seats_and_a_reopen_takes_them_off(club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    spring = Season.objects.create(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1])
    # The winner's unplayed 10 with a pool of 10: he has 66.67 whists, the others −33.33.
    first = finished_pulka([anna, boris, vera], anna, DAY)
    finished_pulka([anna, boris, vera], boris, DAY + datetime.timedelta(days=1))
    finished_pulka([anna, boris, vera], anna, datetime.date(2026, 7, 1))  # after spring

    anna_all = totals_of(anna)
    assert (anna_all.tables, anna_all.wins) == (3, 2)
    assert anna_all.total == Decimal("66.67") - Decimal("33.33") + Decimal("66.67")  # 100.01
    assert (anna_all.best, anna_all.worst) == (Decimal("66.67"), Decimal("-33.33"))
    anna_spring = totals_of(anna, spring)
    assert (anna_spring.tables, anna_spring.wins, anna_spring.total) == (2, 1, Decimal("33.34"))
    assert anna_spring.stats["declared_10"] == 1  # her unplayed 10 of 10 March
    boris_anna = RivalTotal.objects.get(member=boris, rival=anna, game=Table.PREFERANS)
    # Boris −33.33, 66.67, −33.33 against Anna's 66.67, −33.33, 66.67; above her once.
    assert (boris_anna.tables, boris_anna.mine, boris_anna.theirs, boris_anna.above) == (
        3,
        Decimal("0.01"),
        Decimal("100.01"),
        1,
    )

    services.table_reopen(first, by=anna, reason="a wrong deal")

    anna_spring = totals_of(anna, spring)
    # Only Boris's 10 of 11 March is left in spring: her best game there is now −33.33.
    assert (anna_spring.tables, anna_spring.wins, anna_spring.total) == (1, 0, Decimal("-33.33"))
    assert (anna_spring.best, anna_spring.worst) == (Decimal("-33.33"), Decimal("-33.33"))
    assert "declared_10" not in anna_spring.stats  # a count that came to zero leaves
    assert totals_of(anna).tables == 2
    vera_spring = totals_of(vera, spring)
    assert (vera_spring.tables, vera_spring.total) == (1, Decimal("-33.33"))
    boris_anna.refresh_from_db()
    assert (boris_anna.tables, boris_anna.mine, boris_anna.theirs, boris_anna.above) == (
        2,
        Decimal("33.34"),
        Decimal("33.34"),
        1,
    )

    services.table_finish(first, by=anna)  # finished again, as before
    assert totals_of(anna, spring).tables == 2
    assert_totals_match_the_oracle([anna, boris, vera])


def test_a_members_last_table_reopened_leaves_no_row(club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    table = finished_pulka([anna, boris, vera], anna, DAY)

    services.table_reopen(table, by=anna, reason="again")

    assert not StandingsTotal.objects.exists()
    assert not RivalTotal.objects.exists()


def test_a_season_made_or_moved_later_sums_its_tables(club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    finished_pulka([anna, boris, vera], anna, DAY)
    finished_pulka([anna, boris, vera], vera, datetime.date(2026, 7, 1))

    season = services.season_save(
        season=Season(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1])
    )
    assert totals_of(anna, season).total == Decimal("66.67")

    season.ends_on = datetime.date(2026, 8, 31)  # now it holds the July table too
    services.season_save(season=season)
    assert totals_of(anna, season).total == Decimal("33.34")
    assert_totals_match_the_oracle([anna, boris, vera])

    services.season_delete(season=season)
    assert not StandingsTotal.objects.filter(season__isnull=False).exists()


# The season admin refuses a season that has ended: these seasons are around today.


def season_form(name: str, starts_on: datetime.date, ends_on: datetime.date) -> dict[str, str]:
    return {
        "name": name,
        "starts_on": starts_on.isoformat(),
        "ends_on": ends_on.isoformat(),
        "preferans_tariff": "",
        "boston_tariff": "",
        "min_games": "1",
        "ranking": "money, average, wins",
        "table_money": "0",
    }


def test_a_season_added_moved_and_deleted_in_the_admin_keeps_its_totals(
    client: Client, club, organiser
):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    today = timezone.localdate()
    ago = lambda days: today - datetime.timedelta(days=days)  # noqa: E731
    finished_pulka([anna, boris, vera], anna, ago(10))
    finished_pulka([anna, boris, vera], vera, ago(40))
    seasons = reverse("admin:scoring_season_changelist")

    added = client.post(f"{seasons}add/", season_form("Now", ago(20), ago(-20)))
    season = Season.objects.get(name="Now")
    assert added.status_code == 302
    assert totals_of(anna, season).total == Decimal("66.67")

    before = stamp()
    renamed = client.post(f"{seasons}{season.pk}/change/", season_form("Nu", ago(20), ago(-20)))
    assert renamed.status_code == 302
    assert stamp() != before  # its name is on its pages; its totals stay as they were
    assert totals_of(anna, season).total == Decimal("66.67")

    moved = client.post(f"{seasons}{season.pk}/change/", season_form("Nu", ago(50), ago(-20)))
    assert moved.status_code == 302
    assert totals_of(anna, season).total == Decimal("33.34")  # the older table joined
    assert_totals_match_the_oracle([anna, boris, vera])

    before = stamp()
    deleted = client.post(f"{seasons}{season.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302
    assert not Season.objects.exists()
    assert not StandingsTotal.objects.filter(season__isnull=False).exists()
    assert stamp() != before


def test_seasons_deleted_from_the_admin_list_move_the_stamp(client: Client, club, organiser):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    today = timezone.localdate()
    finished_pulka([anna, boris, vera], anna, today)
    for name, first, last in (("Now", -10, 10), ("Next", 11, 40)):
        services.season_save(
            season=Season(
                name=name,
                starts_on=today + datetime.timedelta(days=first),
                ends_on=today + datetime.timedelta(days=last),
            )
        )
    board = reverse(
        "scoring:season_standings", args=[Season.objects.get(name="Now").pk, "preferans"]
    )
    assert ">66.67<" in main(client.get(board))
    before = stamp()

    response = client.post(
        reverse("admin:scoring_season_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": [str(pk) for pk in Season.objects.values_list("pk", flat=True)],
            "post": "yes",
        },
    )

    assert response.status_code == 302
    assert not Season.objects.exists()
    assert not StandingsTotal.objects.filter(season__isnull=False).exists()
    assert stamp() != before
    assert client.get(board).status_code == 404


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_mix_of_finishes_reopens_and_imports_keeps_what_a_rebuild_gives(club, seed: int):
    rng = random.Random(seed)  # noqa: S311 - a reproducible mix, not a secret
    members = list(club.values())
    Season.objects.create(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1], min_games=2)
    Season.objects.create(
        name="Summer",
        starts_on=datetime.date(2026, 6, 1),
        ends_on=datetime.date(2026, 8, 31),
        ranking="total, wins",
    )
    finished: list[Table] = []
    reopened: list[Table] = []
    decisions = random.Random(seed + 100)  # noqa: S311 - its own, so the mix stays the same
    organiser = factories.member("Olga", organiser=True)
    for step in range(16):
        day = datetime.date(2026, 3, 1) + datetime.timedelta(days=rng.randrange(180))
        roll = rng.random()
        if roll < 0.35 or not finished:
            seated = rng.sample(members, 3)
            finished.append(finished_pulka(seated, rng.choice(seated), day))
        elif roll < 0.5:
            seated = rng.sample(members, 4)
            boston = factories.boston_table(seated, played_on=day)
            deal = {"kind": "independence", "declarer": seated[0].name, "suit": "minor"}
            services.deal_create(boston, deal | {"tricks": rng.randint(5, 10)}, by=seated[0])
            finished.append(services.table_finish(boston, by=seated[0]))
        elif roll < 0.72:
            table = finished.pop(rng.randrange(len(finished)))
            services.table_reopen(table, by=members[0], reason=f"step {step}")
            reopened.append(table)
        elif roll < 0.85 and reopened:
            table = reopened.pop()
            finished.append(services.table_finish(table, by=members[0]))
        else:
            # A game from another club's record, seated by other members.
            source = rng.choice([t for t in finished if t.game == Table.PREFERANS] or finished)
            record = services.table_export(source)
            seated = rng.sample(members, len(record["players"]))
            record.pop(services.MEMBERS_FIELD, None)
            version = source.version
            try:
                imported = services.table_import(
                    record, version=version, members=seated, by=seated[0], played_on=day
                )
            except services.AlreadyImported:
                continue
            finished.append(imported)
            # An import awaits acceptance: an organiser accepts most, rejects some, and
            # leaves the rest waiting (a reopen and finish keeps each as it is).
            choice = decisions.random()
            if choice < 0.7:
                services.table_decide(table=imported, by=organiser, accepted=choice < 0.5)
    members[1].display_name = "Борис Петрович"
    services.member_save(member=members[1])

    assert_totals_match_the_oracle(members)


def test_the_command_rebuilds_what_was_lost(club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    finished_pulka([anna, boris, vera], anna, DAY)
    kept = kept_rows()
    StandingsTotal.objects.all().delete()
    RivalTotal.objects.all().delete()

    call_command("rebuild_standings", stdout=open("/dev/null", "w"))  # noqa: SIM115, PTH123

    assert kept_rows() == kept
    assert len(kept["totals"]) == 3 and len(kept["rivals"]) == 6


def test_a_guest_is_in_no_total_and_his_merge_moves_his_tables_to_the_member(club):
    anna, boris, gleb = club["Anna"], club["Boris"], club["Gleb"]
    organiser = factories.member("Olga", organiser=True)
    pyotr = Guest(name="Pyotr")
    # Anna's unplayed 10 with a pool of 10: +66.67 whists, Boris and Pyotr −33.33 each; in
    # money (a price of 1, whole cents adding up to zero) Pyotr pays the spare cent: −33.34.
    finished_pulka([anna, boris, pyotr], anna, DAY)
    assert {row.member_id for row in StandingsTotal.objects.all()} == {anna.pk, boris.pk}
    assert RivalTotal.objects.count() == 2  # Anna–Boris both ways; a guest is no rival

    guest_merge(guest=pyotr, member=gleb, by=organiser)

    gleb_all = totals_of(gleb)
    assert (gleb_all.tables, gleb_all.total, gleb_all.money) == (
        1,
        Decimal("-33.33"),
        Decimal("-33.34"),
    )
    assert RivalTotal.objects.count() == 6
    assert_totals_match_the_oracle([anna, boris, gleb])


# -- the stamp ------------------------------------------------------------------------------


def stamp() -> str:
    return StandingsStamp.objects.get(pk=1).stamp


def test_the_stamp_moves_with_every_change_the_pages_show(
    club, django_capture_on_commit_callbacks: Any
):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    seen = {stamp()}

    table = finished_pulka([anna, boris, vera], anna, DAY)  # a finish (and its rating)
    seen.add(stamp())
    services.table_reopen(table, by=anna, reason="again")
    seen.add(stamp())
    with django_capture_on_commit_callbacks(execute=True):  # once the ratings are committed
        services.ratings_rebuild(Table.PREFERANS)
    seen.add(stamp())
    anna.display_name = "Анна"
    services.member_save(member=anna)
    seen.add(stamp())
    services.season_save(season=Season(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1]))
    seen.add(stamp())
    assert len(seen) == 6

    anna.email_evening_summary = False
    services.member_save(member=anna)  # nor does what he wants e-mailed
    Client().force_login(anna)  # nor signing in
    factories.pulka([anna, boris, vera])  # nor does a table in play
    assert stamp() in seen


# -- the pages ------------------------------------------------------------------------------


def main(response: Any) -> str:
    """The page below the site's header (whose CSRF token is new each time)."""
    assert response.status_code == 200
    return response.content.decode().partition('<main id="main">')[2]


def test_pages_from_kept_totals_equal_pages_from_a_rebuild(client: Client, club):
    anna, boris, vera, gleb = (club[n] for n in ("Anna", "Boris", "Vera", "Gleb"))
    season = Season.objects.create(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1])
    tables = [
        finished_pulka([anna, boris, vera], anna, DAY),
        finished_pulka([anna, boris, gleb], boris, DAY),
        finished_pulka([vera, boris, gleb], gleb, DAY),
    ]
    services.table_reopen(tables[0], by=anna, reason="again")
    services.table_finish(tables[0], by=anna)
    urls = [
        reverse("scoring:home"),
        reverse("scoring:season_standings", args=[season.pk, Table.PREFERANS]),
        reverse("scoring:season_standings", args=[season.pk, Table.PREFERANS]) + "?sort=name",
        reverse("scoring:standings", args=[Table.PREFERANS]),
        reverse("members:detail", args=["anna"]),
        reverse("members:detail", args=["boris"]) + "?season=all",
    ]
    kept = [main(client.get(url)) for url in urls]

    services.standings_rebuild()  # a new stamp: every page is made again

    assert [main(client.get(url)) for url in urls] == kept
    assert "Gleb" in kept[1] and f'href="{reverse("members:detail", args=["gleb"])}"' in kept[1]


def test_a_page_follows_a_finish_at_once(client: Client, club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    url = reverse("scoring:standings", args=[Table.PREFERANS])
    assert "No finished tables yet." in main(client.get(url))

    finished_pulka([anna, boris, vera], anna, DAY)

    assert ">66.67<" in main(client.get(url))


# -- whole-club operations --------------------------------------------------------------------


def boards_by_name() -> dict[Any, Any]:
    """Every board as names and figures (ids change in a restore)."""
    seasons = [None, *Season.objects.order_by("name")]
    return {
        (season.name if season else None, game): [
            (s.rank, s.name, s.games, s.total, s.money, s.best, s.worst, s.wins)
            for part in selectors.standings(game, season)
            for s in part
        ]
        for season in seasons
        for game, _label in Table.GAMES
    }


@pytest.mark.slow  # the whole demo club, backed up and restored
def test_the_demo_club_and_its_restored_backup_have_their_totals():
    from scoring.club.backup import club_export, club_import
    from tests.scoring.club.test_backup import build_club, empty_the_club

    build_club()  # the demo club, a season, a reopened table and more
    assert_totals_match_the_oracle(list(Member.objects.all()))
    before = boards_by_name()
    assert any(before.values())
    document = club_export()
    empty_the_club()
    assert not StandingsTotal.objects.exists()

    club_import(document)

    assert boards_by_name() == before
    assert_totals_match_the_oracle(list(Member.objects.all()))


def test_a_profile_follows_a_new_table_and_a_new_name(client: Client, club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    finished_pulka([anna, boris, vera], anna, DAY)
    url = reverse("members:detail", args=["anna"])
    assert "in play" not in main(client.get(url))

    before = stamp()
    factories.pulka([anna, boris, vera])  # no stamp moves: his latest seat does

    assert stamp() == before
    assert "in play" in main(client.get(url))

    boris_client = Client()
    boris_client.force_login(boris)
    renamed = boris_client.post(
        reverse("members:settings"),
        {"display_name": "Борис Петрович", "email": boris.email, "email_table_finished": "on"},
    )

    assert renamed.status_code == 302
    assert "Борис Петрович" in main(client.get(url))


def test_a_tariff_renamed_in_the_admin_moves_the_stamp(client: Client, club, organiser):
    from tests.scoring.admin.test_tariff_admin import post_change

    tariff = factories.preferans_version().tariff
    before = stamp()

    response = post_change(client, tariff, {"name": "Сочи клубный"})

    assert response.status_code == 302
    tariff.refresh_from_db()
    assert tariff.name == "Сочи клубный"
    assert stamp() != before


def test_a_tariff_new_in_the_admin_leaves_the_stamp(client: Client, club, organiser):
    before = stamp()

    services.tariff_copy(factories.preferans_version().tariff, name="Копия", by=organiser)

    assert stamp() == before  # no page shows a tariff no table or season has


def test_a_seasons_default_tariff_deleted_from_the_admin_list_moves_the_stamp(
    client: Client, club, organiser
):
    sochi = factories.preferans_version().tariff
    spare = services.tariff_copy(sochi, name="Лишний", by=organiser)
    season = services.season_save(
        season=Season(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1], preferans_tariff=spare)
    )
    before = stamp()

    response = client.post(
        reverse("admin:scoring_preferanstariff_changelist"),
        {"action": "delete_selected", "_selected_action": [spare.pk], "post": "yes"},
    )

    assert response.status_code == 302
    season.refresh_from_db()
    assert season.preferans_tariff is None
    assert stamp() != before
