"""A substitute mid-pulka: each player's statistics keep their own deals (Kodeks 3.1.2;
scoring/services/tables.py ``_stats_by_holder``, docs/tournaments.md), and the leaver is
rated by his own result (scoring/services/ratings.py).

Sochi, three players: Anna, Boris and Vera; Vera leaves after deal 3 and Dima takes her
seat. The deals, and what each counts, by hand:

1. Anna 6♠, both pass: Anna declared and made a 6.
2. Vera 6♠, Anna whists, Boris passes; Vera 6 tricks, Anna 4: Vera declared and made a
   6; Anna writes 4 × 2 = 8 whists on Vera.
3. Vera's misère, no trick: Vera declared and made a misère.
   -- Vera leaves; Dima sits in seat 2 --
4. Dima 7♠, both pass: Dima declared and made a 7.
5. A pass-out, tricks Anna 4, Boris 4, Dima 2: each played a pass-out.
6. Boris 6♠, Dima whists, Anna passes; Boris 6 tricks, Dima 4: Boris declared and made
   a 6; Dima writes 8 whists on Boris.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation

from members.models import Member
from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.engine.record import score_record
from scoring.live.fragments import RevisionCache
from scoring.models import (
    DealRecord,
    Rating,
    RatingHistory,
    Seat,
    SeatChange,
    StandingsTotal,
    Table,
)
from scoring.pages import games as game_pages
from scoring.pages.profiles import preferans_stats
from scoring.services import judging
from scoring.services.ratings import RATING_MODEL, ratings_rebuild
from scoring.services.standings import standings_rebuild
from tests import factories
from tests.scoring.services.test_judging import DIMA_SIX, _four

pytestmark = pytest.mark.django_db

BEFORE = [
    {
        "kind": "game",
        "declarer": "Anna",
        "contract": "6S",
        "answers": {"Boris": "pass", "Vera": "pass"},
    },
    {
        "kind": "game",
        "declarer": "Vera",
        "contract": "6S",
        "answers": {"Anna": "whist", "Boris": "pass"},
        "tricks": {"Vera": 6, "Anna": 4, "Boris": 0},
    },
    {"kind": "misere", "declarer": "Vera", "tricks": {"Vera": 0}},
]
AFTER = [
    {
        "kind": "game",
        "declarer": "Dima",
        "contract": "7S",
        "answers": {"Anna": "pass", "Boris": "pass"},
    },
    {"kind": "passout", "tricks": {"Anna": 4, "Boris": 4, "Dima": 2}},
    {
        "kind": "game",
        "declarer": "Boris",
        "contract": "6S",
        "answers": {"Dima": "whist", "Anna": "pass"},
        "tricks": {"Boris": 6, "Dima": 4, "Anna": 0},
    },
]

EXPECTED: dict[str, dict[str, int]] = {
    "Anna": {"declared_6": 1, "made_6": 1, "whists_written": 8, "passouts": 1, "passout_tricks": 4},
    "Boris": {
        "declared_6": 1,
        "made_6": 1,
        "whists_received": 8,
        "passouts": 1,
        "passout_tricks": 4,
    },
    "Vera": {
        "declared_6": 1,
        "made_6": 1,
        "whists_received": 8,
        "misere_declared": 1,
        "misere_made": 1,
    },
    "Dima": {"declared_7": 1, "made_7": 1, "whists_written": 8, "passouts": 1, "passout_tricks": 2},
}


def _finished_with_substitute() -> Table:
    table = factories.pulka(deals=BEFORE)
    dima = factories.member("Dima")
    judging.table_seat_substitute(table=table, position=2, newcomer=dima, by=None, reason="ушла")
    table.refresh_from_db()
    return factories.played(table, AFTER, finished=True)


def _stored(table: Table) -> dict[str, dict[str, Any]]:
    seats = {seat.name: seat.stats for seat in Seat.objects.filter(table=table)}
    return seats | {change.name: change.stats for change in SeatChange.objects.filter(table=table)}


def _totals() -> dict[str, dict[str, int]]:
    rows = StandingsTotal.objects.filter(season=None).select_related("member")
    return {row.member.name: row.stats for row in rows}


def test_each_player_s_statistics_cover_only_the_deals_he_played() -> None:
    table = _finished_with_substitute()

    assert _stored(table) == EXPECTED
    assert _totals() == EXPECTED


def test_the_profile_counts_the_leaver_s_deals_as_his() -> None:
    _finished_with_substitute()
    totals = {
        row.member.name: preferans_stats({Table.PREFERANS: row})
        for row in StandingsTotal.objects.filter(season=None).select_related("member")
    }

    vera, dima = totals["Vera"], totals["Dima"]
    assert vera is not None and dima is not None
    assert (vera.tables, vera.misere.declared, vera.whists_received, vera.passouts) == (1, 1, 8, 0)
    assert [(t.declared, t.made) for t in vera.levels[:2]] == [(1, 1), (0, 0)]
    assert (dima.tables, dima.misere.declared, dima.whists_written, dima.passouts) == (1, 0, 8, 1)
    assert [(t.declared, t.made) for t in dima.levels[:2]] == [(0, 0), (1, 1)]
    standings_rebuild()
    assert _totals() == EXPECTED


def test_a_reopened_table_takes_the_leaver_s_statistics_off_and_back() -> None:
    table = _finished_with_substitute()

    services.table_reopen(Table.objects.get(pk=table.pk), by=None, reason="ошибка")

    assert SeatChange.objects.get(table=table).stats == {}
    assert {name: stats for name, stats in _totals().items() if stats} == {}
    services.table_finish(Table.objects.get(pk=table.pk), by=None)
    assert _stored(table) == EXPECTED
    assert _totals() == EXPECTED


def test_the_leaver_is_rated_by_his_own_result_among_everyone_s() -> None:
    # tests/scoring/services/test_judging.py's table of four, Dima a member: Anna −17.50,
    # Boris 7.50, Vera 7.50, Dima 12.50, and Gleb, who left, −10.00. Ranked by their
    # results: Dima 1, Boris and Vera 2, Gleb 4, Anna 5.
    table = _four()
    dima = factories.member("Dima")
    judging.table_seat_substitute(table=table, position=3, newcomer=dima, by=None, reason="ушёл")
    table.refresh_from_db()
    factories.played(table, [DIMA_SIX], finished=True)

    ratings = {r.member.name: r for r in Rating.objects.select_related("member")}
    assert {name: r.tables for name, r in ratings.items()} == dict.fromkeys(
        ("Anna", "Boris", "Vera", "Gleb", "Dima"), 1
    )
    assert RatingHistory.objects.filter(table=table).count() == 5
    fresh = [[RATING_MODEL.rating()] for _ in range(5)]
    expected = RATING_MODEL.rate(fresh, ranks=[1, 2, 2, 4, 5])
    for name, (new,) in zip(("Dima", "Boris", "Vera", "Gleb", "Anna"), expected, strict=True):
        assert (ratings[name].mu, ratings[name].sigma) == pytest.approx((new.mu, new.sigma))
    # Gleb above Anna: ranked last (after her), as a leaver with no place might be, he
    # would have her rating and she his.
    assert ratings["Dima"].mu > ratings["Gleb"].mu > ratings["Anna"].mu
    assert ratings["Boris"].mu == pytest.approx(ratings["Vera"].mu)

    ratings_rebuild(Table.PREFERANS)  # a rebuild rates him the same way
    assert Rating.objects.get(member__display_name="Gleb").mu == pytest.approx(ratings["Gleb"].mu)


# -- the game record ------------------------------------------------------------------------


def test_the_export_names_the_leaver_and_imports_back_the_same() -> None:
    table = factories.pulka(deals=BEFORE)
    vera = Member.objects.get(display_name="Vera")
    dima = factories.member("Dima")
    judging.table_seat_substitute(table=table, position=2, newcomer=dima, by=None, reason="ушла")
    table = factories.played(Table.objects.get(pk=table.pk), AFTER)

    record = services.table_export(Table.objects.get(pk=table.pk))

    assert record["players"] == ["Anna", "Boris", "Dima"]
    assert record["substitutes"] == [
        {"after_deal": 3, "left": "Vera", "player": "Dima", "member": vera.username}
    ]
    assert record["first_dealer"] == "Anna"
    assert [d.get("declarer") for d in record["deals"]] == [
        "Anna", "Vera", "Vera", "Dima", None, "Boris",
    ]  # fmt: skip
    assert record["deals"][1]["answers"] == {"Anna": "whist", "Boris": "pass"}
    assert record["deals"][4]["tricks"] == {"Anna": 4, "Boris": 4, "Dima": 2}

    seated = [Member.objects.get(username=u) for u in record["members"]]
    imported = services.table_import(
        json.loads(json.dumps(record)), version=table.version, members=seated, by=seated[0]
    )

    assert services.table_export(Table.objects.get(pk=imported.pk)) == record
    change = SeatChange.objects.get(table=imported)
    assert (change.name, change.member, change.position, change.after_sequence) == (
        "Vera",
        vera,
        2,
        3,
    )
    assert _stored(imported) == EXPECTED
    # The engine scores the record as the site does (the `score` command).
    assert score_record(record)["players"] == imported.result["players"]
    # The same game, finished here too, is the same game: a second import is refused.
    services.table_finish(Table.objects.get(pk=table.pk), by=None)
    assert Table.objects.get(pk=table.pk).record_digest == imported.record_digest


@pytest.mark.parametrize(
    ("substitutes", "message"),
    [
        ([{"after_deal": 7, "left": "Vera", "player": "Dima"}], "after_deal: must be 1–6, got 7"),
        ([{"after_deal": 3, "left": "Vera", "player": "Gleb"}], "Gleb holds no seat"),
        ([{"after_deal": 3, "left": "Anna", "player": "Dima"}], "names must be distinct"),
        ([{"after_deal": 3, "left": "Vera", "player": "Dima", "seat": 2}], "unknown field"),
        (
            [
                {"after_deal": 4, "left": "Vera", "player": "Zoe"},
                {"after_deal": 3, "left": "Zoe", "player": "Dima"},
            ],
            "in the order they came",
        ),
    ],
)
def test_a_bad_substitute_in_a_record_is_refused_in_words(
    substitutes: list[dict[str, Any]], message: str
) -> None:
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "players": ["Anna", "Boris", "Dima"],
        "substitutes": substitutes,
        "deals": BEFORE + AFTER,
    }
    with pytest.raises(RuleError, match=message):
        score_record(record)


# -- the drawn sheet ------------------------------------------------------------------------


def _svg(table: Table) -> str:
    table = Table.objects.get(pk=table.pk)
    engine = selectors.current(table, latest=0).game
    with translation.override("ru"):
        return game_pages.of_table(table).sheet_svg(table, engine, RevisionCache(table))


def test_the_drawn_sheet_notes_the_substitute() -> None:
    table = factories.pulka(deals=BEFORE)
    judging.table_seat_substitute(table=table, position=2, newcomer="Dima", by=None, reason="ушла")
    factories.played(Table.objects.get(pk=table.pk), AFTER[:1])

    assert "замена: Vera → Dima после сдачи 3" in _svg(table)
    # Deal 1 struck: the change came after the 2nd deal of the log as it stands now.
    services.deal_delete(DealRecord.objects.get(table=table, sequence=1), by=None, reason="нет")
    svg = _svg(table)
    assert "замена: Vera → Dima после сдачи 2" in svg
    assert svg.count("замена:") == 2  # the line under the sheet and its description
    assert "замена" not in _svg(factories.pulka(deals=BEFORE))
