"""Which tariffs the club plays by now (``house_tariffs``: the rules page quotes them): the
season's defaults, else the most played, else the presets, else the last one edited."""

from __future__ import annotations

import datetime

import pytest

from scoring import services
from scoring.models import (
    BostonTariff,
    BostonTariffVersion,
    PreferansTariff,
    PreferansTariffVersion,
    Season,
)
from scoring.selectors.tariffs import house_tariffs
from tests import factories

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 5, 10)
SOCHI = "Сочи (Sochi)"
LENINGRAD = "Ленинград (Leningrad)"
ROSTOV = "Ростов (Rostov)"
CLASSIC = "Классика (Classic)"
PAYMENT = "Бостон: тариф платежей (payment tariff)"
CARD = "Бостон: таблица стоимости (value card)"


def names(day: datetime.date = TODAY) -> tuple[str | None, list[str]]:
    house = house_tariffs(day)
    return (house.preferans.name if house.preferans else None), [t.name for t in house.boston]


def season(**tariffs: object) -> Season:
    return Season.objects.create(
        name="Весна",
        starts_on=datetime.date(2026, 3, 1),
        ends_on=datetime.date(2026, 5, 31),
        **tariffs,
    )


def test_a_new_club_plays_by_the_presets_it_started_from() -> None:
    assert names() == (SOCHI, [PAYMENT, CARD])


def test_the_most_played_tariff_is_the_clubs() -> None:
    factories.pulka(tariff=LENINGRAD)
    factories.pulka(tariff=LENINGRAD)
    factories.pulka(tariff=SOCHI)
    factories.boston_table(system="value-card")

    # Leningrad: two tables against one; each Boston system keeps its own tariff.
    assert names() == (LENINGRAD, [PAYMENT, CARD])


def test_a_tie_in_tables_goes_to_the_first_name() -> None:
    factories.pulka(tariff=ROSTOV)
    factories.pulka(tariff=LENINGRAD)

    assert names() == (LENINGRAD, [PAYMENT, CARD])  # Л before Р


def test_the_seasons_default_wins_while_the_season_lasts() -> None:
    factories.pulka(tariff=LENINGRAD)
    season(preferans_tariff=PreferansTariff.objects.get(name=ROSTOV))

    assert names() == (ROSTOV, [PAYMENT, CARD])
    assert names(datetime.date(2026, 6, 1)) == (LENINGRAD, [PAYMENT, CARD])  # after it


def test_the_seasons_boston_default_takes_the_place_of_its_own_system() -> None:
    house_card = services.tariff_copy(
        BostonTariff.objects.get(name=CARD), name="Наша карта", by=None
    )
    season(boston_tariff=house_card)

    assert names() == (SOCHI, [PAYMENT, "Наша карта"])


def test_a_preset_edited_before_anyone_played_it_stays_the_clubs() -> None:
    """Publishing an edit of a version no table has used rewrites that version, so it no
    longer plays by the preset: the tariff an organiser changed last is the club's."""
    sochi = PreferansTariff.objects.get(name=SOCHI)
    sochi.value_6 = 3
    services.tariff_publish(sochi, by=None)

    assert names() == (SOCHI, [PAYMENT, CARD])


def test_without_any_tariff_there_is_none() -> None:
    """Only a shell can get here: a tariff's versions protect it from deletion."""
    PreferansTariffVersion.objects.all().delete()
    PreferansTariff.objects.all().delete()
    BostonTariffVersion.objects.filter(tariff__system="value-card").delete()
    BostonTariff.objects.filter(system="value-card").delete()

    assert names() == (None, [PAYMENT])


def test_the_boston_tariffs_come_with_their_rows(django_assert_num_queries) -> None:
    house = house_tariffs(TODAY)

    with django_assert_num_queries(0):
        rules = [tariff.to_rules() for tariff in house.boston]
    assert [r.system for r in rules] == ["payment-tariff", "value-card"]
