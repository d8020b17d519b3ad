"""The two games the club scores, each as one object that knows everything that differs
between them: its engine, its tariff models, its names and units, how a table under it is
set up and replayed. Everything outside the engine asks ``games.of(...)`` instead of
branching on "Preferans or Boston" (the table that Tabbycat keeps for its draw types).

Adding a third game means one more subclass here, its engine, its tariff models and its
templates (``templates/scoring/<code>/``: the parts of the table pages, the deal fields);
no view, service or selector changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import Any, ClassVar, NamedTuple, Protocol

from django import forms as django_forms
from django.db import models
from django.utils.functional import Promise
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from scoring.engine import boston, preferans
from scoring.engine.boston import BostonRules, BostonSetup, BostonTable
from scoring.engine.errors import N_, RuleError
from scoring.engine.money import two_decimals
from scoring.engine.preferans import PreferansRules, Pulka, PulkaSetup
from scoring.engine.preferans.rules import RATES
from scoring.engine.stats import Stats, boston_stats, preferans_stats
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
from scoring.pages.forms import BostonDealForm, PreferansDealForm, TableOpenForm
from scoring.pages.labels import deal_title, engine_text, entry_text, suit_label, transfer_text
from scoring.pages.sheet import draw_pulka

Engine = Pulka | BostonTable
Rules = PreferansRules | BostonRules
Setup = PulkaSetup | BostonSetup


class Cache(Protocol):
    """What a game draws through, given by the caller (``scoring.live``): a fragment cache
    for one revision of a table, and hints kept for the table from one revision to the
    next."""

    def __call__(self, key: str, render: Callable[[], str], /) -> str:
        """``render()``, kept under ``key`` for this revision."""
        ...

    def hint(self, kind: str) -> int | None:
        """What ``keep_hint`` last kept under ``kind`` for this table, at any revision, if
        it is still there. A hint may be stale or gone: it only ever saves time."""
        ...

    def keep_hint(self, kind: str, value: int) -> None:
        """Keep ``value`` for the table's next revisions to start from."""
        ...


CENT = Decimal("0.01")


class ResultColumn(NamedTuple):
    """A column of a table's result (a key of the result document's ``players`` rows)."""

    key: str
    heading: Promise


class Entry(NamedTuple):
    """A line of what a deal wrote: the words, the rule's key and the arithmetic."""

    text: str
    rule: str
    calc: str


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
    total_label: ClassVar[Promise]
    """The heading of a leaderboard's result column."""
    open_title: ClassVar[Promise]
    """The heading of the page that opens a table of this game."""
    price_label: ClassVar[Promise]
    conditions: ClassVar[tuple[str, ...]]
    """Which of ``TableOpenForm.CONDITIONS`` a table of this game is opened with."""
    result_columns: ClassVar[tuple[ResultColumn, ...]]
    """The result table's columns between a player's name and their money."""
    deal_form_class: ClassVar[type[PreferansDealForm] | type[BostonDealForm]]
    tariff_rows: ClassVar[tuple[tuple[str, type[models.Model]], ...]] = ()
    """A tariff's own tables of rows (related name, model), kept with it in a backup."""
    last_round: ClassVar[bool] = False
    """Whether a table of this game plays a last round after its control time."""
    draws_sheet: ClassVar[bool] = False
    """Whether the sheet has a drawing (``sheet_svg``), which the table page shows and
    ``/tables/<id>/sheet.png`` serves as a picture."""

    @property
    def sheet_template(self) -> str:
        """What the sheet shows above the result (a drawing, who deals), as a partial."""
        return f"scoring/{self.code}/_table.html#sheet-head"

    @property
    def print_template(self) -> str:
        """What the printed sheet shows above the result, as a partial."""
        return f"scoring/{self.code}/_table.html#print-head"

    @property
    def open_hint_template(self) -> str:
        """The hint under the seats of the open-a-table form, as a partial."""
        return f"scoring/{self.code}/_table.html#open-hint"

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

    def to_record(self, setup: Setup, deals: Sequence[Any]) -> dict[str, Any]:
        """The game record (game-format.md) of a table set up as ``setup``."""
        return self.record.to_record(setup, list(deals))  # type: ignore[no-any-return]

    def parse_record(self, record: Any) -> tuple[Setup, Sequence[Any]]:
        """A game record's setup and deals, as the engine's."""
        return self.record.parse_record(record)  # type: ignore[no-any-return]

    # -- standings and profiles

    def seat_results(
        self, engine: Engine, deals: Sequence[Any], result: Any
    ) -> tuple[list[Decimal], list[Stats]]:
        """Each seat's final balance (what standings rank) and statistics counts."""
        raise NotImplementedError

    def figure(self, value: Decimal) -> str:
        """A stored result as the sheet writes it."""
        return str(value.quantize(CENT))

    # -- the table's pages

    def open_form(self, data: Any = None) -> TableOpenForm:
        """The form that opens a table of this game."""
        return TableOpenForm(
            data,
            game=self.code,
            versions=self.version_model,
            players=self.seats,
            conditions=self.conditions,
            price_label=self.price_label,
        )

    def deal_form(
        self, engine: Engine, players: tuple[str, ...], data: Any = None, initial: Any = None
    ) -> django_forms.Form:
        """The form for the next deal of ``engine`` (bound to ``data`` when given)."""
        raise NotImplementedError

    def initial_from(self, deal: dict[str, Any]) -> dict[str, Any]:
        """Deal-form values that show a stored deal (for editing)."""
        return self.deal_form_class.initial_from(deal)

    def empty_form_shape(self, engine: Engine) -> tuple[int, ...]:
        """What an empty deal form depends on besides the table's players and rules."""
        return self.deal_form_class.shape(engine)  # type: ignore[arg-type]

    def sheet_context(
        self, table: Table, engine: Engine, players: tuple[str, ...], cache: Cache
    ) -> dict[str, Any]:
        """What ``sheet_template`` shows, drawn through ``cache`` when it costs."""
        return {}

    def sheet_svg(self, table: Table, engine: Engine, cache: Cache) -> str:
        """The sheet drawn as an SVG, through ``cache`` (only if ``draws_sheet``)."""
        raise NotImplementedError

    def entries(self, result: Any, players: tuple[str, ...]) -> list[Entry]:
        """What one deal wrote (an engine deal result), line by line."""
        raise NotImplementedError

    def deal_rows(
        self, engine: Engine, players: tuple[str, ...], first: int
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        """The deal log's rows after the ``first`` deals, oldest first: each deal's number
        and what its row shows of the engine's result."""
        for n, result in enumerate(engine.result().deals, start=1):
            if n > first:
                yield n, self.deal_row(result, players)

    def deal_row(self, result: Any, players: tuple[str, ...]) -> dict[str, Any]:
        return {"entries": self.entries(result, players)}

    def deal_title(self, engine: Engine, deal: dict[str, Any]) -> str:
        """A stored deal's title in the log (``labels.deal_title``)."""
        return deal_title(deal)


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
    total_label = _("Whists")
    open_title = _("Open a pulka")
    price_label = _("price of a whist")
    deal_form_class = PreferansDealForm
    draws_sheet = True
    conditions = ("first_dealer", "pool_target", "control_time")
    last_round = True
    result_columns = (
        ResultColumn("pool", _("pool")),
        ResultColumn("mountain", _("mountain")),
        ResultColumn("balance", _("balance, whists")),
    )

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
        return balances, preferans_stats(engine.setup, deals, result.deals)  # type: ignore[arg-type]

    def deal_form(
        self, engine: Engine, players: tuple[str, ...], data: Any = None, initial: Any = None
    ) -> PreferansDealForm:
        return PreferansDealForm(data, pulka=engine, initial=initial)  # type: ignore[arg-type]

    def sheet_context(
        self, table: Table, engine: Engine, players: tuple[str, ...], cache: Cache
    ) -> dict[str, Any]:
        """The drawn sheet, who deals and the last round (§13.12)."""
        assert isinstance(engine, Pulka)  # noqa: S101 - a Preferans table's engine
        return {
            "svg": self.sheet_svg(table, engine, cache),
            "dealer": players[engine.dealer],
            "first_dealer": players[engine.first_dealer],
            "last_round": engine.last_round,
            "deals_left": engine.deals_left(),
        }

    def sheet_svg(self, table: Table, engine: Engine, cache: Cache) -> str:
        """The pulka drawn as the paper sheet. Drawing lays out every chain (tens of
        milliseconds for a long pulka) and a revision's sheet never changes, so it goes
        through ``cache``: every viewer after the first gets it from there. The key names
        all the drawing reads besides the revision's deals: the control time and whether
        the table is finished (no dealer is marked then), and the language its words are
        written in.

        A new revision's sheet is drawn starting from the height of the table's last one
        (``sheet.draw_pulka``'s hint, kept per table and language): after a deal the sheet
        is nearly always as tall as before or one rung taller, which two layouts settle.
        The hint changes how fast the sheet is drawn, never what is drawn."""
        assert isinstance(engine, Pulka)  # noqa: S101 - a Preferans table's engine
        control_time = table.control_time.strftime("%H:%M") if table.control_time else None
        finished = not table.is_open
        language = get_language()
        hint = f"sheet-rung:{language}"

        def draw() -> str:
            rung = cache.hint(hint)
            drawing = draw_pulka(
                engine, control_time=control_time, finished=finished, rung_hint=rung
            )
            if drawing.rung != rung:
                cache.keep_hint(hint, drawing.rung)
            return drawing.svg

        return cache(f"pulka-svg:{language}:{control_time}:{int(finished)}", draw)

    def entries(self, result: Any, players: tuple[str, ...]) -> list[Entry]:
        return [Entry(entry_text(e, players), e.rule, engine_text(e.calc)) for e in result.entries]

    def deal_row(self, result: Any, players: tuple[str, ...]) -> dict[str, Any]:
        dealer = None if result.dealer is None else players[result.dealer]
        return {"dealer": dealer, "entries": self.entries(result, players)}

    def deal_title(self, engine: Engine, deal: dict[str, Any]) -> str:
        """As every game's; a concession whose record leaves its undertricks to the tariff
        (an imported one) is titled with the tariff's usual number, which scored it."""
        assert isinstance(engine, Pulka)  # noqa: S101 - a Preferans table's engine
        if deal.get("kind") == "concede" and "undertricks" not in deal:
            deal = deal | {"undertricks": engine.rules.concede_undertricks}
        return deal_title(deal)


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
    total_label = _("Chips")
    open_title = _("Open a Boston table")
    price_label = _("price of a chip")
    deal_form_class = BostonDealForm
    conditions = ("preference_suit",)
    result_columns = (ResultColumn("chips", _("chips")),)
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
        return [Decimal(c) for c in result.chips], boston_stats(deals, result.deals)

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

    def figure(self, value: Decimal) -> str:
        """Chips are whole (a stored result keeps two decimals)."""
        if value == value.to_integral_value():
            return str(int(value))
        return super().figure(value)

    def deal_form(
        self, engine: Engine, players: tuple[str, ...], data: Any = None, initial: Any = None
    ) -> BostonDealForm:
        assert isinstance(engine, BostonTable)  # noqa: S101 - a Boston table's engine
        return BostonDealForm(
            data, players=players, preference_suit=engine.setup.preference_suit, initial=initial
        )

    def sheet_context(
        self, table: Table, engine: Engine, players: tuple[str, ...], cache: Cache
    ) -> dict[str, Any]:
        """The preference suit, for the sheet's head (none on a table opened without it)."""
        suit = table.preference_suit
        return {"preference_suit": suit_label(suit) if suit else None}

    def entries(self, result: Any, players: tuple[str, ...]) -> list[Entry]:
        return [
            Entry(transfer_text(t, players), t.rule, engine_text(t.arithmetic))
            for t in result.transfers
        ]

    def deal_title(self, engine: Engine, deal: dict[str, Any]) -> str:
        """As every game's, with the suit a trump gives at this table (its preference suit)."""
        assert isinstance(engine, BostonTable)  # noqa: S101 - a Boston table's engine
        return deal_title(deal, preference_suit=engine.setup.preference_suit)

    def deal_rows(
        self, engine: Engine, players: tuple[str, ...], first: int
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        """As every game's, and each row with the running chip totals after its deal (which
        need every deal, shown or not)."""
        running = [0] * len(players)
        results: Sequence[Any] = engine.result().deals
        for n, result in enumerate(results, start=1):
            for t in result.transfers:
                running[t.payer] -= t.chips
                running[t.payee] += t.chips
            if n > first:
                row = self.deal_row(result, players)
                yield n, row | {"totals": list(zip(players, running, strict=True))}


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
