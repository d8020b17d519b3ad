"""scoring.games: each game's adapter gives the site what used to be "if Preferans … else
Boston" at every call site, so these tests pin what each game answers."""

from __future__ import annotations

import ast
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from scoring import games, selectors, services
from scoring.engine.boston import BostonSetup, BostonTable
from scoring.engine.preferans import Pulka, PulkaSetup
from scoring.models import (
    BostonTariff,
    BostonTariffVersion,
    PreferansTariff,
    PreferansTariffVersion,
    Table,
)
from tests import factories

THREE = ("Anna", "Boris", "Vera")
FOUR = ("Anna", "Boris", "Vera", "Gleb")

# (game, players, a deal as stored): every kind of deal each game's record writes.
DEALS = [
    (
        games.PREFERANS,
        THREE,
        {
            "kind": "game",
            "declarer": "Anna",
            "contract": "6S",
            "answers": {"Boris": "whist", "Vera": "pass"},
            "tricks": {"Anna": 6, "Boris": 3, "Vera": 1},
        },
    ),
    (games.PREFERANS, THREE, {"kind": "misere", "declarer": "Boris", "tricks": {"Boris": 0}}),
    (games.PREFERANS, THREE, {"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "Vera": 0}}),
    (
        games.BOSTON,
        FOUR,
        {
            "kind": "ask",
            "declarer": "Anna",
            "partner": "Boris",
            "suit": "minor",
            "tour": "simple",
            "tricks": 8,
        },
    ),
    (games.BOSTON, FOUR, {"kind": "pass"}),
    (games.BOSTON, FOUR, {"kind": "adjust", "reason": "x", "transfers": [["Anna", "Boris", 3]]}),
    (
        games.BOSTON,
        FOUR,
        {
            "kind": "independence",
            "declarer": "Vera",
            "trump": "hearts",
            "tour": "double",
            "tricks": 9,
        },
    ),
]


@pytest.mark.parametrize(("game", "players", "stored"), DEALS)
def test_a_stored_deal_round_trips_through_its_game(
    game: games.Game, players: tuple[str, ...], stored: dict[str, Any]
) -> None:
    deal = game.parse_deal(stored, players, 1)

    assert game.deal_record(deal, players) == stored
    assert game.parse_deal(game.deal_record(deal, players), players, 1) == deal


def test_every_game_is_listed_once_under_its_code() -> None:
    assert list(games.GAMES) == [Table.PREFERANS, Table.BOSTON]
    assert all(games.of(code).code == code for code in games.GAMES)
    assert [code for code, _label in games.choices()] == [code for code, _ in Table.GAMES]
    with pytest.raises(KeyError):
        games.of("whist")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tariff_model", "version_model", "game"),
    [
        (PreferansTariff, PreferansTariffVersion, games.PREFERANS),
        (BostonTariff, BostonTariffVersion, games.BOSTON),
    ],
)
def test_of_tariff_finds_the_game_of_a_tariff_and_of_its_versions(
    tariff_model: Any, version_model: Any, game: games.Game
) -> None:
    tariff = tariff_model.objects.first()

    assert games.of_tariff(tariff) is game
    assert games.of_tariff(version_model.objects.filter(tariff=tariff).first()) is game
    assert game.tariff_model is tariff_model and game.version_model is version_model


def test_of_tariff_refuses_what_is_no_tariff() -> None:
    with pytest.raises(TypeError):
        games.of_tariff(Table())


@pytest.mark.django_db
def test_a_pulka_is_set_up_from_its_table_and_tariff_version() -> None:
    table = factories.pulka(pool_target=10, first_dealer=2, price=Decimal("0.50"))

    assert games.of_table(table) is games.PREFERANS
    assert games.PREFERANS.setup(table, THREE) == PulkaSetup(
        players=THREE,
        rules=table.preferans_version.to_rules(),
        first_dealer=2,
        pool_target=10,
        whist_price=Decimal("0.50"),
    )
    assert isinstance(games.PREFERANS.new_table(table, THREE, None), Pulka)


@pytest.mark.django_db
def test_a_boston_table_is_set_up_from_its_table_and_tariff_version() -> None:
    table = factories.boston_table(price=Decimal(2))
    table.double_tour_from = 5

    assert games.of_table(table) is games.BOSTON
    assert games.BOSTON.setup(table, FOUR) == BostonSetup(
        players=FOUR,
        rules=table.boston_version.to_rules(),
        chip_price=Decimal(2),
        double_tour_from=5,
    )
    assert isinstance(games.BOSTON.new_table(table, FOUR, None), BostonTable)


@pytest.mark.django_db
def test_a_boston_table_gives_the_engine_its_preference_suit() -> None:
    table = factories.boston_table(preference_suit="clubs")
    setup = games.BOSTON.setup(table, FOUR)

    assert setup.preference_suit == "clubs"
    assert games.BOSTON.table_options(setup)["preference_suit"] == "clubs"


def _boston_with_double_tours() -> Table:
    table = factories.boston_table(price=Decimal("0.10"))
    table.double_tour_from = 3
    table.save(update_fields=["double_tour_from"])
    return table


def _boston_with_a_preference_suit() -> Table:
    return factories.boston_table(preference_suit="diamonds")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "make",
    [
        lambda: factories.pulka(pool_target=10, first_dealer=1, price=Decimal("0.20")),
        _boston_with_double_tours,
        _boston_with_a_preference_suit,
    ],
)
def test_the_table_options_of_a_setup_open_the_same_table_again(make: Any) -> None:
    """What a record import relies on: ``table_options`` of a table's setup, given back
    to ``table_open``, sets the table up the same way."""
    table = make()
    game = games.of_table(table)
    players = selectors.seat_names(table)
    setup = game.setup(table, players)
    members = [seat.member for seat in table.seats.order_by("position")]

    again = services.table_open(
        game=game.code,
        version=table.version,
        members=members,
        by=members[0],
        **game.table_options(setup),
    )

    assert game.setup(again, players) == setup


@pytest.mark.parametrize(
    ("game", "value", "shown"),
    [
        (games.PREFERANS, Decimal(12), "12.00"),
        (games.PREFERANS, Decimal("-3.333"), "-3.33"),
        (games.BOSTON, Decimal("12.00"), "12"),
        (games.BOSTON, Decimal("2.50"), "2.50"),
    ],
)
def test_a_result_is_written_as_its_game_counts(
    game: games.Game, value: Decimal, shown: str
) -> None:
    assert game.figure(value) == shown


def test_the_adapter_imports_no_layer_above_it() -> None:
    """games.py is asked by services, pages, selectors and views; it must not ask them back."""
    source = Path(games.__file__).read_text(encoding="utf-8")
    imported = {
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
    }
    above = (
        "scoring.services",
        "scoring.pages",
        "scoring.selectors",
        "scoring.views",
        "scoring.live",
    )
    assert not [name for name in imported if name.startswith(above)]
