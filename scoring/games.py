"""The two games the club scores, each as one object that knows everything that differs
between them in the domain: its engine, its tariff models, its name and unit, how a table
under it is set up, replayed and scored. Everything outside the engine asks
``games.of(...)`` instead of branching on "Preferans or Boston" (the table that Tabbycat
keeps for its draw types). How each game's pages look (its forms, sheet, headings and
deal log) is its presenter's, ``scoring.pages.games``.

Adding a third game means one more subclass here, its engine, its tariff models, its
presenter in ``scoring.pages.games`` and its templates (``templates/scoring/<code>/``: the
parts of the table pages, the deal fields); no view, service or selector changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, ClassVar

from django.db import models
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from scoring.engine import boston, preferans
from scoring.engine.boston import BostonRules, BostonSetup, BostonTable
from scoring.engine.errors import N_, RuleError
from scoring.engine.money import two_decimals
from scoring.engine.preferans import PreferansRules, Pulka, PulkaSetup
from scoring.engine.preferans.rules import RATES
from scoring.engine.stats import Stats, boston_stats, preferans_stats
from scoring.engine.tournament.substitute import Substitution
from scoring.models import (
    BostonCardRow,
    BostonPaymentRow,
    BostonTariff,
    BostonTariffVersion,
    PreferansTariff,
    PreferansTariffVersion,
    Table,
)
from scoring.models.tariffs import Tariff

Engine = Pulka | BostonTable
Rules = PreferansRules | BostonRules
Setup = PulkaSetup | BostonSetup

CENT = Decimal("0.01")


class Game:
    """What every game has; the subclasses fill in the differences."""

    code: ClassVar[str]
    """The value of ``Table.game`` and of a game record's ``"game"``."""
    label: ClassVar[Promise]
    unit: ClassVar[Promise]
    """What a balance is counted in (whists, chips)."""
    tariff_model: ClassVar[type[models.Model]]
    version_model: ClassVar[type[models.Model]]
    version_field: ClassVar[str]
    """The ``Table`` field pointing at its tariff version."""
    season_tariff_field: ClassVar[str]
    """The ``Season`` field naming its default tariff."""
    tariff_detail_url: ClassVar[str]
    rules_type: ClassVar[type[Rules]]
    record: ClassVar[Any]
    """The engine's game-record module (parse, write, result documents)."""
    default_rules: ClassVar[str]
    """The preset a game record without ``"rules"`` is played under."""
    seats: ClassVar[tuple[int, ...]]
    """The player counts a table of this game may have."""
    tariff_rows: ClassVar[tuple[tuple[str, type[models.Model]], ...]] = ()
    """A tariff's own tables of rows (related name, model), kept with it in a backup."""
    last_round: ClassVar[bool] = False
    """Whether a table of this game plays a last round after its control time."""

    def __repr__(self) -> str:
        return f"<game {self.code}>"

    def setup(self, table: Table, players: tuple[str, ...]) -> Setup:
        """The engine's setup for ``table``, with the seats' names in order."""
        raise NotImplementedError

    def new_engine(self, setup: Setup) -> Engine:
        """The engine's game for ``setup``, with no deal played."""
        raise NotImplementedError

    def table_options(self, setup: Setup) -> dict[str, Any]:
        """The ``services.table_open`` options that give back ``setup`` (record import)."""
        raise NotImplementedError

    def new_table(self, table: Table, players: tuple[str, ...], rules: Rules | None) -> Engine:
        """An engine game for ``table`` with no deals played (optionally under ``rules``)."""
        setup = self.setup(table, players)
        if rules is not None:
            setup = dataclasses.replace(setup, rules=rules)  # type: ignore[arg-type]
        return self.new_engine(setup)

    def parse_deal(self, data: Any, players: tuple[str, ...], n: int) -> Any:
        """A stored deal (game-record form) as the engine's deal; ``RuleError`` if bad."""
        return self.record.parse_deal(data, players, n)

    def deal_record(self, deal: Any, players: tuple[str, ...]) -> dict[str, Any]:
        """The engine's deal in the game record's own form (as stored)."""
        return self.record.deal_record(deal, players)  # type: ignore[no-any-return]

    def parse_rules(self, raw: Any) -> Rules:
        """A game record's ``"rules"`` (a preset name or settings) as the engine's rules."""
        return self.record.parse_rules(raw)  # type: ignore[no-any-return]

    def rules_from_dict(self, data: dict[str, Any]) -> Rules:
        return self.rules_type.from_dict(data)

    def is_complete(self, engine: Engine) -> bool:
        """Whether the game may be finished by the players themselves."""
        return True

    def mark_control_time(self, engine: Engine) -> int:
        """Mark the control time on ``engine`` now (preferans.md §13.12) and return the
        mark: the deals played by then. ``RuleError`` in a game that has no last round."""
        raise RuleError(N_("this game has no control time"), field="table")

    def deals_left(self, engine: Engine) -> int | None:
        """How many deals the last round has left at least (``None``: not in a last round,
        or a game without one)."""
        return None

    def close(self, engine: Engine) -> None:
        """Make a replayed game final (a finished table)."""

    def result_document(self, engine: Engine, result: Any, *, finished: bool) -> dict[str, Any]:
        """The result document (game-format.md) of ``result``."""
        return self.record.result_document(result)  # type: ignore[no-any-return]

    def versions(self) -> Any:
        """Every published version of this game's tariffs."""
        return self.version_model.objects.all()  # type: ignore[attr-defined]

    def new_tariff(self, rules: Rules, **fields: Any) -> Tariff:
        """An unsaved tariff of this game that gives back ``rules`` (a JSON import, a copy);
        ``RuleError`` if its columns cannot hold them."""
        raise NotImplementedError

    def add_tariff_rows(self, tariff: Tariff, rules: Rules) -> None:
        """Store the rows (a saved tariff's inlines) that ``rules`` need; most games have
        none."""

    def to_record(
        self, setup: Setup, deals: Sequence[Any], substitutions: Sequence[Substitution] = ()
    ) -> dict[str, Any]:
        """The game record (game-format.md) of a table set up as ``setup``; where
        ``substitutions`` came (Preferans), its deals name who held the seats then."""
        if substitutions:
            return self.record.to_record(setup, list(deals), substitutions)  # type: ignore[no-any-return]
        return self.record.to_record(setup, list(deals))  # type: ignore[no-any-return]

    def parse_record(self, record: Any) -> tuple[Setup, Sequence[Any]]:
        """A game record's setup and deals, as the engine's."""
        return self.record.parse_record(record)  # type: ignore[no-any-return]

    def substitutions(self, record: Any, setup: Setup, deal_count: int) -> list[Substitution]:
        """A game record's seats that changed hands mid-game (none but in Preferans)."""
        return []

    # -- standings and profiles

    def seat_results(
        self, engine: Engine, deals: Sequence[Any], result: Any
    ) -> tuple[list[Decimal], list[Stats]]:
        """Each seat's final balance (what standings rank) and statistics counts."""
        raise NotImplementedError

    def deal_stats(
        self, engine: Engine, deals: Sequence[Any], results: Sequence[Any]
    ) -> list[Stats]:
        """Each seat's statistics counts over ``deals`` (some of a table's deals, with
        their ``results`` from ``engine``'s result): ``seat_results``' over all of them."""
        raise NotImplementedError

    def figure(self, value: Decimal) -> str:
        """A stored result as the sheet writes it."""
        return str(value.quantize(CENT))

    def amount_text(self, shown: str, count: int) -> str:
        """``shown`` (a number as the page writes it) with the unit in the plural ``count``
        takes: «139,33 виста», «12 chips»."""
        raise NotImplementedError


class Preferans(Game):
    code = Table.PREFERANS
    label = _("Preferans")
    unit = _("whists")
    tariff_model = PreferansTariff
    version_model = PreferansTariffVersion
    version_field = "preferans_version"
    season_tariff_field = "preferans_tariff"
    tariff_detail_url = "scoring:preferans_tariff_detail"
    rules_type = PreferansRules
    record: ClassVar[Any] = preferans.record
    default_rules = "sochi"
    seats = (3, 4)
    last_round = True

    def setup(self, table: Table, players: tuple[str, ...]) -> PulkaSetup:
        return PulkaSetup(
            players=players,
            rules=table.version.to_rules(),  # type: ignore[arg-type]
            first_dealer=table.first_dealer,
            pool_target=table.pool_target,
            whist_price=table.price,
            control_time_deal=table.control_time_deal,
        )

    def new_tariff(self, rules: Rules, **fields: Any) -> Tariff:
        assert isinstance(rules, PreferansRules)  # noqa: S101 - this game's rules
        for rate in RATES:
            if (getattr(rules, rate) * 100).denominator != 1:  # the columns keep two decimals
                raise RuleError(N_("must have at most two decimals"), field=f"rules.{rate}")
        return PreferansTariff(**fields, **PreferansTariff.fields_from_rules(rules))

    def new_engine(self, setup: Setup) -> Pulka:
        return Pulka(setup)  # type: ignore[arg-type]

    def table_options(self, setup: Setup) -> dict[str, Any]:
        assert isinstance(setup, PulkaSetup)  # noqa: S101 - parsed by this game's record
        return {
            "price": setup.whist_price,
            "first_dealer": setup.first_dealer,
            "pool_target": setup.pool_target,
            "control_time_deal": setup.control_time_deal,
        }

    def substitutions(self, record: Any, setup: Setup, deal_count: int) -> list[Substitution]:
        return preferans.record.parse_substitutes(record, setup.players, deal_count)

    def is_complete(self, engine: Engine) -> bool:
        return engine.complete  # type: ignore[union-attr]

    def mark_control_time(self, engine: Engine) -> int:
        assert isinstance(engine, Pulka)  # noqa: S101 - a Preferans table's engine
        engine.mark_control_time()
        assert engine.control_time_deal is not None  # noqa: S101 - marked just now
        return engine.control_time_deal

    def deals_left(self, engine: Engine) -> int | None:
        return engine.deals_left()  # type: ignore[union-attr]

    def close(self, engine: Engine) -> None:
        engine.close()  # type: ignore[union-attr]

    def result_document(self, engine: Engine, result: Any, *, finished: bool) -> dict[str, Any]:
        document: dict[str, Any] = self.record.result_document(result)
        document["complete"] = engine.complete or finished  # type: ignore[union-attr]
        return document

    def seat_results(
        self, engine: Engine, deals: Sequence[Any], result: Any
    ) -> tuple[list[Decimal], list[Stats]]:
        balances = [Decimal(two_decimals(b)) for b in result.balances]
        return balances, self.deal_stats(engine, deals, result.deals)

    def deal_stats(
        self, engine: Engine, deals: Sequence[Any], results: Sequence[Any]
    ) -> list[Stats]:
        return preferans_stats(engine.setup, deals, results)  # type: ignore[arg-type]

    def amount_text(self, shown: str, count: int) -> str:
        return ngettext("%(amount)s whist", "%(amount)s whists", count) % {"amount": shown}


class Boston(Game):
    code = Table.BOSTON
    label = _("Boston")
    unit = _("chips")
    tariff_model = BostonTariff
    version_model = BostonTariffVersion
    version_field = "boston_version"
    season_tariff_field = "boston_tariff"
    tariff_detail_url = "scoring:boston_tariff_detail"
    rules_type = BostonRules
    record: ClassVar[Any] = boston.record
    default_rules = "payment-tariff"
    seats = (4,)
    tariff_rows = (("payment_rows", BostonPaymentRow), ("card_rows", BostonCardRow))

    def setup(self, table: Table, players: tuple[str, ...]) -> BostonSetup:
        return BostonSetup(
            players=players,
            rules=table.version.to_rules(),  # type: ignore[arg-type]
            chip_price=table.price,
            double_tour_from=table.double_tour_from,
            preference_suit=table.preference_suit,
        )

    def new_engine(self, setup: Setup) -> BostonTable:
        return BostonTable(setup)  # type: ignore[arg-type]

    def table_options(self, setup: Setup) -> dict[str, Any]:
        assert isinstance(setup, BostonSetup)  # noqa: S101 - parsed by this game's record
        return {
            "price": setup.chip_price,
            "double_tour_from": setup.double_tour_from,
            "preference_suit": setup.preference_suit,
        }

    def seat_results(
        self, engine: Engine, deals: Sequence[Any], result: Any
    ) -> tuple[list[Decimal], list[Stats]]:
        return [Decimal(c) for c in result.chips], self.deal_stats(engine, deals, result.deals)

    def deal_stats(
        self, engine: Engine, deals: Sequence[Any], results: Sequence[Any]
    ) -> list[Stats]:
        return boston_stats(deals, results)

    def new_tariff(self, rules: Rules, **fields: Any) -> Tariff:
        assert isinstance(rules, BostonRules)  # noqa: S101 - this game's rules
        return BostonTariff(**fields, **BostonTariff.fields_from_rules(rules))

    def add_tariff_rows(self, tariff: Tariff, rules: Rules) -> None:
        assert isinstance(tariff, BostonTariff) and isinstance(rules, BostonRules)  # noqa: S101
        payment, card = BostonTariff.rows_from_rules(rules)
        for row in payment:
            tariff.payment_rows.create(**row)
        for card_row in card:
            tariff.card_rows.create(**card_row)

    def amount_text(self, shown: str, count: int) -> str:
        return ngettext("%(amount)s chip", "%(amount)s chips", count) % {"amount": shown}

    def figure(self, value: Decimal) -> str:
        """Chips are whole (a stored result keeps two decimals)."""
        if value == value.to_integral_value():
            return str(int(value))
        return super().figure(value)


PREFERANS = Preferans()
BOSTON = Boston()
GAMES: dict[str, Game] = {PREFERANS.code: PREFERANS, BOSTON.code: BOSTON}
"""Every game, by code, in the order the site lists them."""


def of(code: str) -> Game:
    """The game called ``code`` (``KeyError`` for any other string)."""
    return GAMES[code]


def of_table(table: Table) -> Game:
    return GAMES[table.game]


def of_tariff(tariff: models.Model) -> Game:
    """The game a tariff or a tariff version belongs to."""
    for game in GAMES.values():
        if isinstance(tariff, game.tariff_model | game.version_model):
            return game
    raise TypeError(f"not a tariff: {tariff!r}")


def choices() -> Sequence[tuple[str, Promise]]:
    return [(game.code, game.label) for game in GAMES.values()]
