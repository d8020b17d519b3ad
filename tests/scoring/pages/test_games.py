"""scoring.pages.games: each game's presenter shows its tables (forms, sheet, headings,
deal log) without the call sites branching on the game, so these tests pin what each
presenter answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.template.loader import get_template

from scoring import games, selectors, services
from scoring.engine.boston import BostonSetup, BostonTable
from scoring.pages import games as game_pages
from scoring.pages import sheet
from scoring.pages.sheet import pulka_svg
from tests import factories
from tests.scoring.pages.test_sheet import busy
from tests.scoring.test_games import DEALS, FOUR, THREE


def test_every_game_has_its_presenter() -> None:
    assert list(game_pages.PAGES) == list(games.GAMES)
    for code, game in games.GAMES.items():
        assert game_pages.of(game) is game_pages.of(code)
        assert game_pages.of(game).game is game


@pytest.mark.django_db
def test_a_boston_deal_form_asks_for_a_trump_only_with_a_preference_suit() -> None:
    table = factories.boston_table(preference_suit="clubs")
    setup = games.BOSTON.setup(table, FOUR)
    form = game_pages.BOSTON.deal_form(games.BOSTON.new_engine(setup), FOUR)
    assert form.preference_suit == "clubs"
    assert "trump" in form.fields
    without = BostonTable(BostonSetup(players=FOUR))
    assert "trump" not in game_pages.BOSTON.deal_form(without, FOUR).fields


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "required", "conditions"),
    [
        (game_pages.PREFERANS, 3, {"first_dealer", "pool_target", "control_time"}),
        (game_pages.BOSTON, 4, {"preference_suit"}),
    ],
)
def test_the_open_form_asks_for_the_games_seats_and_conditions(
    game: game_pages.GamePage, required: int, conditions: set[str]
) -> None:
    form = game.open_form()
    # A seat is a member or a guest's name, so neither field is required by itself: the
    # form asks for one of the two at each of the first ``required`` seats.
    assert form.seats_needed == required
    empty = game.open_form({})
    assert not empty.is_valid()
    seats = [f"player_{i}" in empty.errors for i in range(4)]
    assert seats == [i < required for i in range(4)]
    assert set(form.fields) & set(form.CONDITIONS) == conditions
    assert form.fields["price"].label == game.price_label
    assert form.fields["version"].queryset.model is game.game.version_model


@pytest.mark.django_db
def test_the_deal_log_shows_each_games_own_details() -> None:
    pulka = factories.pulka()
    services.deal_create(pulka, DEALS[2][2], by=None)
    boston = factories.boston_table()
    services.deal_create(boston, DEALS[5][2], by=None)
    services.deal_create(boston, DEALS[4][2], by=None)

    state = selectors.replay(pulka)
    ((n, row),) = game_pages.PREFERANS.deal_rows(state.game, state.players, 0)
    assert n == 1 and row["dealer"] == "Anna" and "totals" not in row

    state = selectors.replay(boston)
    rows = list(game_pages.BOSTON.deal_rows(state.game, state.players, 1))
    assert [n for n, _row in rows] == [2]  # only the deals after the first
    # The running totals still count the deal that is not shown.
    assert rows[0][1]["totals"] == [("Anna", -3), ("Boris", 3), ("Vera", 0), ("Gleb", 0)]
    assert rows[0][1]["entries"] == []


@pytest.mark.django_db
@pytest.mark.parametrize("make", [factories.pulka, factories.boston_table])
def test_each_result_column_is_in_the_result_document(make: Any) -> None:
    table = make()
    document = selectors.replay(table).document()

    for row in document["players"].values():
        assert {column.key for column in game_pages.of_table(table).result_columns} <= set(row)


@pytest.mark.parametrize("game", game_pages.PAGES.values())
def test_every_game_has_its_templates(game: game_pages.GamePage) -> None:
    """The table pages include them by name (a missing one fails only at render time)."""
    names = [game.sheet_template, game.print_template, game.open_hint_template]
    for name in [*names, game.deal_form_class.fields_template]:
        assert get_template(name) is not None


class HintsOnly:
    """A ``pages.games.Cache`` that keeps no drawing (each is made again) and the table's hints
    in a dict."""

    def __init__(self) -> None:
        self.hints: dict[str, int] = {}

    def __call__(self, key: str, render: Callable[[], str], /) -> str:
        return render()

    def hint(self, kind: str) -> int | None:
        return self.hints.get(kind)

    def keep_hint(self, kind: str, value: int) -> None:
        self.hints[kind] = value


@pytest.mark.django_db
def test_a_revisions_sheet_is_drawn_from_the_rung_of_the_tables_last_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Revisions r and r + 1 of a long pulka: the second drawing starts from the rung the
    first kept (the 300-deal sheet of three is at rung 17), which takes two layouts, and
    draws what no hint draws. A hint a rung short (the sheet grew) takes two as well, and
    the new rung is kept."""
    table = factories.pulka(pool_target=10_000)
    before, after = busy(THREE, 299), busy(THREE, 300)
    unhinted = pulka_svg(after)
    cache = HintsOnly()
    assert game_pages.PREFERANS.sheet_svg(table, before, cache) == pulka_svg(before)
    assert cache.hints == {"sheet-rung:en": 17}
    layouts: list[float] = []
    plan = sheet._plan

    def counted(drawn: sheet._Sheet, *args: Any) -> Any:
        layouts.append(drawn.height)
        return plan(drawn, *args)

    monkeypatch.setattr(sheet, "_plan", counted)
    assert game_pages.PREFERANS.sheet_svg(table, after, cache) == unhinted
    assert len(layouts) == 2
    cache.hints["sheet-rung:en"] = 16
    layouts.clear()
    assert game_pages.PREFERANS.sheet_svg(table, after, cache) == unhinted
    assert len(layouts) == 2
    assert cache.hints == {"sheet-rung:en": 17}
