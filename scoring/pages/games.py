"""How each game's tables are shown: the presentation half of the game adapter
(``scoring.games`` holds the domain half). One presenter per game (``PREFERANS``,
``BOSTON``), chosen by the domain game: its headings, its deal form, its sheet (drawn
through a cache), what a deal wrote in words and the deal log's rows. Code above asks
``pages.games.of(game)``; it does not branch on the game.

Adding a game means one more presenter here beside its subclass in ``scoring.games``
(a test checks that every game has one), and its templates
(``templates/scoring/<code>/``: the parts of the table pages, the deal fields).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar, NamedTuple, Protocol

from django import forms as django_forms
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from members.models import Member
from scoring import games
from scoring.engine.boston import BostonTable
from scoring.engine.preferans import Pulka
from scoring.games import Engine, Game
from scoring.models import Table
from scoring.pages.forms import BostonDealForm, PreferansDealForm, TableOpenForm
from scoring.pages.labels import deal_title, engine_text, entry_text, suit_label, transfer_text
from scoring.pages.sheet import SeatHandover, draw_pulka
from scoring.selectors.players import seat_candidates
from scoring.selectors.tables import handovers
from scoring.selectors.tariffs import opening_tariff


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


class ResultColumn(NamedTuple):
    """A column of a table's result (a key of the result document's ``players`` rows)."""

    key: str
    heading: Promise


class Entry(NamedTuple):
    """A line of what a deal wrote: the words, the rule's key and the arithmetic."""

    text: str
    rule: str
    calc: str


class GamePage:
    """What every game's pages have; the subclasses fill in the differences."""

    game: ClassVar[Game]
    """The domain game this presenter shows."""
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
    draws_sheet: ClassVar[bool] = False
    """Whether the sheet has a drawing (``sheet_svg``), which the table page shows and
    ``/tables/<id>/sheet.png`` serves as a picture."""

    @property
    def code(self) -> str:
        return self.game.code

    @property
    def label(self) -> Promise:
        return self.game.label

    @property
    def tariff_detail_url(self) -> str:
        return self.game.tariff_detail_url

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
        return f"<pages of {self.code}>"

    def open_form(self, data: Any = None, *, me: Member | None = None) -> TableOpenForm:
        """The form that opens a table of this game, for ``me`` (seated at А when he
        plays): the club's tariff chosen, its regulars offered first."""
        today = timezone.localdate()
        return TableOpenForm(
            data,
            game=self.code,
            versions=self.game.version_model,
            players=self.game.seats,
            conditions=self.conditions,
            price_label=self.price_label,
            candidates=seat_candidates(self.game, today, me),
            default_tariff=opening_tariff(self.game, today),
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


class PreferansPage(GamePage):
    game = games.PREFERANS
    total_label = _("Whists")
    open_title = _("Open a pulka")
    price_label = _("price of a whist")
    deal_form_class = PreferansDealForm
    draws_sheet = True
    conditions = ("first_dealer", "pool_target", "control_time")
    result_columns = (
        ResultColumn("pool", _("pool")),
        ResultColumn("mountain", _("mountain")),
        ResultColumn("balance", _("balance, whists")),
    )

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
        # A guest's name is marked on the sheet; a merge into a member moves the revision on.
        guests = frozenset(s.position for s in table.seats.all() if s.guest_id is not None)

        def draw() -> str:
            rung = cache.hint(hint)
            drawing = draw_pulka(
                engine,
                control_time=control_time,
                finished=finished,
                rung_hint=rung,
                guests=guests,
                substitutes=[SeatHandover(*h) for h in handovers(table)],
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


class BostonPage(GamePage):
    game = games.BOSTON
    total_label = _("Chips")
    open_title = _("Open a Boston table")
    price_label = _("price of a chip")
    deal_form_class = BostonDealForm
    conditions = ("preference_suit",)
    result_columns = (ResultColumn("chips", _("chips")),)

    def deal_form(
        self, engine: Engine, players: tuple[str, ...], data: Any = None, initial: Any = None
    ) -> BostonDealForm:
        assert isinstance(engine, BostonTable)  # noqa: S101 - a Boston table's engine
        return BostonDealForm(
            data,
            players=players,
            preference_suit=engine.setup.preference_suit,
            system=engine.setup.rules.system,
            initial=initial,
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


PREFERANS = PreferansPage()
BOSTON = BostonPage()
PAGES: dict[str, GamePage] = {page.code: page for page in (PREFERANS, BOSTON)}
"""Every game's presenter, by code, in the order the site lists the games."""


def of(game: Game | str) -> GamePage:
    """The presenter of ``game`` (a domain game or its code; ``KeyError`` for any other)."""
    return PAGES[game if isinstance(game, str) else game.code]


def of_table(table: Table) -> GamePage:
    return PAGES[table.game]
