"""The control time and the last round on the site (preferans.md §13.12): the table keeps
the mark (``Table.control_time_deal``), the clock or the scorer makes it, the engine plays
the round out and completes the pulka, and every replay of the table agrees.

The clock is the ``clock`` fixture (tests/conftest.py): each test sets the time itself.
Every table is opened on Friday 6 March 2026 at 19:00 (Moscow) with the control time 23:00,
pool 100 (no pool closes here), and each deal is a misère by the seat after the dealer, so
the deal passes every time: after ``k`` deals the dealer is ``(first + k) mod players``.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.engine.preferans import Pulka
from scoring.models import AuditEntry, Table
from tests import factories

pytestmark = pytest.mark.django_db

FRIDAY = datetime.date(2026, 3, 6)
ELEVEN = datetime.time(23, 0)
SOCHI = "Сочи (Sochi)"
ONE_MORE = "Сочи, ещё круг"


def at(hour: int, minute: int = 0, day: int = 0) -> datetime.datetime:
    """That time of the evening (``day`` = 1: after midnight)."""
    return datetime.datetime.combine(
        FRIDAY + datetime.timedelta(days=day), datetime.time(hour, minute)
    )


def open_table(clock: Any, players: int = 3, *, tariff: str = SOCHI, **options: Any) -> Table:
    clock.at(at(19))
    members = [factories.member(name) for name in ("Anna", "Boris", "Vera", "Gleb")[:players]]
    options.setdefault("control_time", ELEVEN)
    return factories.pulka(members, tariff=tariff, pool_target=100, **options)


def one_more_circle_tariff() -> None:
    """A copy of Sochi that plays one more full circle after the control time."""
    factories.preferans_tariff(ONE_MORE, last_round="one_more_circle")


def game(table: Table) -> Pulka:
    pulka = selectors.replay(Table.objects.get(pk=table.pk)).game
    assert isinstance(pulka, Pulka)
    return pulka


def misere(table: Table) -> dict[str, Any]:
    """A clean misère by the seat after the dealer, as the deal log stores it."""
    pulka = game(table)
    names = pulka.setup.players
    declarer = names[(pulka.dealer + 1) % len(names)]
    return {"kind": "misere", "declarer": declarer, "tricks": {declarer: 0}}


def play(table: Table, when: datetime.datetime | None = None, clock: Any = None) -> Any:
    if when is not None:
        clock.at(when)
    return services.deal_create(table, misere(table), by=None)


def adjustment(table: Table) -> dict[str, Any]:
    name = game(table).setup.players[0]
    return {"kind": "adjust", "reason": "joined late", "pool": {name: 1}}


def mark(table: Table) -> int | None:
    return Table.objects.get(pk=table.pk).control_time_deal


def refused_deal(table: Table) -> RuleError:
    with pytest.raises(RuleError) as error:
        services.deal_create(table, misere(table), by=None)
    return error.value


# -- the clock ---------------------------------------------------------------------------------


def test_the_first_deal_saved_after_the_control_time_marks_it_and_counts_itself(clock):
    """3 players, first dealer А, finish_circle. Four deals before 23:00 (А, Б, В, А deal);
    deal 5, dealt by Б, is saved at 23:05: it was being played when the clock struck, so
    the mark is 5. В deals next and the deal would pass back to А: 1 deal is left."""
    table = open_table(clock)
    for minute in range(4):
        play(table, at(22, 10 * minute), clock)
        assert mark(table) is None
    saved = play(table, at(23, 5), clock)
    assert mark(table) == 5
    assert saved.state.table.control_time_deal == 5
    assert (saved.state.game.last_round, saved.state.game.deals_left()) == (True, 1)
    clock_entry = table.audit.get(action=AuditEntry.CLOCK)
    assert clock_entry.after == {"control_time_deal": 5}
    # The pulka the service advanced is the one every replay gives.
    assert game(table).result() == saved.state.game.result()

    last = play(table, at(23, 20), clock)  # В deals the last deal of the round
    assert last.state.game.complete
    assert game(table).complete
    assert "the pulka is complete" in refused_deal(table).message
    services.deal_create(table, adjustment(table), by=None)  # adjustments stay allowed
    services.table_finish(table, by=None)
    finished = Table.objects.get(pk=table.pk)
    assert finished.result["complete"] is True


def test_at_the_first_dealer_the_deal_being_saved_opens_the_last_circle(clock):
    """3 players, finish_circle. Three deals before 23:00: the deal is back at А. Deal 4,
    dealt by А, is saved at 23:01: the mark is 4 and Б and В deal the rest of the circle
    (2 left). Had the mark been the 3 deals before it, §13.12 would have made the pulka
    complete at once and refused deal 4 itself, which was on the table when the clock
    struck."""
    table = open_table(clock)
    for minute in range(3):
        play(table, at(22, 10 * minute), clock)
    before = game(table)
    assert before.dealer == before.first_dealer == 0
    marked_before = before.copy()
    marked_before.mark_control_time()  # the other reading: the time reached after deal 3
    assert marked_before.complete

    saved = play(table, at(23, 1), clock)

    assert mark(table) == 4
    assert saved.state.game.deals_left() == 2
    play(table, at(23, 15), clock)
    assert not game(table).complete
    play(table, at(23, 30), clock)
    assert game(table).complete


def test_four_players_one_more_circle(clock):
    """4 players, first dealer А, one_more_circle. Two deals before 23:00 (А, Б deal); deal
    3, dealt by В, at 23:10 marks 3: Г finishes the circle (1 deal), then one more full
    circle (4 deals): 5 left, the pulka complete after deal 8."""
    one_more_circle_tariff()
    table = open_table(clock, 4, tariff=ONE_MORE)
    play(table, at(22), clock)
    play(table, at(22, 30), clock)
    saved = play(table, at(23, 10), clock)
    assert mark(table) == 3
    assert saved.state.game.deals_left() == 5
    for minute in range(4):
        assert not game(table).complete
        play(table, at(23, 20 + minute * 5), clock)
    assert game(table).deals_left() == 1
    play(table, at(23, 50), clock)
    assert game(table).complete
    assert game(table).played == 8


def test_three_players_one_more_circle_at_the_first_dealer(clock):
    """3 players, one_more_circle, first dealer В (seat 2). Three deals before the time:
    back at В. Deal 4 (В deals) at 23:00 exactly marks 4: Г and А finish its circle, then
    one more circle of 3: 5 left."""
    one_more_circle_tariff()
    table = open_table(clock, tariff=ONE_MORE, first_dealer=2)
    for minute in range(3):
        play(table, at(21, 10 * minute), clock)
    saved = play(table, at(23), clock)  # at the control time is past it
    assert mark(table) == 4
    assert saved.state.game.deals_left() == 5


def test_before_the_control_time_nothing_is_marked(clock):
    table = open_table(clock)
    play(table, at(22, 59), clock)
    assert mark(table) is None
    assert not game(table).last_round


def test_an_adjustment_is_not_a_deal_and_does_not_count(clock):
    """§13.12: adjustments are not counted. Deal 1 (А deals) before 23:00; at 23:02 an
    adjustment marks nothing; at 23:03 deal 2 (Б deals) marks 2, though it is the third
    record. В deals next, 1 deal left; another adjustment changes nothing; В's deal
    completes the pulka."""
    table = open_table(clock)
    play(table, at(22), clock)
    clock.at(at(23, 2))
    services.deal_create(table, adjustment(table), by=None)
    assert mark(table) is None
    play(table, at(23, 3), clock)
    assert mark(table) == 2
    assert game(table).deals_left() == 1
    clock.at(at(23, 4))
    services.deal_create(table, adjustment(table), by=None)
    assert game(table).deals_left() == 1
    play(table, at(23, 10), clock)
    assert game(table).complete
    assert table.deal_records.count() == 5


def test_a_control_time_before_the_opening_is_after_midnight(clock):
    table = open_table(clock, control_time=datetime.time(1, 0))  # opened at 19:00
    play(table, at(23, 30), clock)
    assert mark(table) is None
    play(table, at(1, 0, day=1), clock)
    assert mark(table) == 2


def test_a_deal_saved_long_after_the_control_time_is_left_to_the_scorer(clock):
    """A deal saved 12 hours or more after the control time is no deal played that evening
    (a table reopened next day for a forgotten deal): the clock marks nothing."""
    table = open_table(clock)
    play(table, at(22), clock)
    play(table, at(11, 0, day=1), clock)
    assert mark(table) is None
    assert Table.objects.get(pk=table.pk).clock_has_struck() is False
    clock.at(at(10, 59, day=1))
    assert Table.objects.get(pk=table.pk).clock_has_struck() is True


def test_a_table_without_a_control_time_is_never_marked_by_the_clock(clock):
    table = open_table(clock, control_time=None)
    play(table, at(23, 30), clock)
    assert mark(table) is None


def test_a_complete_pulka_is_not_marked(clock):
    """Pools 10, 10 and 0 of 10; В's clean misère writes 10 in her pool: every pool is
    closed and the pulka complete, with no round left to mark, by the clock or by hand."""
    clock.at(at(19))
    table = factories.pulka(pool_target=10, control_time=ELEVEN)
    names = selectors.seat_names(table)
    pools = dict.fromkeys(names[:2], 10) | {names[2]: 0}
    services.deal_create(table, {"kind": "adjust", "reason": "pools", "pool": pools}, by=None)
    clock.at(at(23, 30))
    services.deal_create(
        table, {"kind": "misere", "declarer": names[2], "tricks": {names[2]: 0}}, by=None
    )
    assert game(table).complete
    assert mark(table) is None
    with pytest.raises(RuleError, match="complete already"):
        services.control_time_mark(table, by=None)


def test_a_boston_table_has_no_last_round(clock):
    clock.at(at(19))
    table = factories.boston_table(control_time=ELEVEN)
    clock.at(at(23, 30))
    services.deal_create(table, {"kind": "pass"}, by=None)
    assert mark(table) is None
    with pytest.raises(RuleError, match="no control time"):
        services.control_time_mark(table, by=None)


# -- corrections after the mark ----------------------------------------------------------------


def test_undo_and_edit_after_the_mark(clock):
    """The mark is a count of deals: undoing below it leaves it waiting until the sheet has
    that many deals again; the clock does not move it; an edit before it changes nothing."""
    table = open_table(clock)
    for minute in range(4):
        play(table, at(22, 10 * minute), clock)
    play(table, at(23, 5), clock)  # marks 5, as in the first test
    play(table, at(23, 20), clock)
    assert game(table).complete

    services.deal_undo(table, by=None)  # deal 6: one deal left again
    assert (game(table).complete, game(table).deals_left()) == (False, 1)
    services.deal_undo(table, by=None)  # deal 5: the mark waits for a fifth deal
    assert not game(table).last_round
    assert mark(table) == 5
    play(table, at(23, 40), clock)  # the fifth deal again; the clock leaves the mark
    assert mark(table) == 5
    assert game(table).deals_left() == 1
    assert table.audit.filter(action=AuditEntry.CLOCK).count() == 1

    first = selectors.live_deals(table)[0]
    services.deal_edit(
        first, {**first.data, "tricks": {first.data["declarer"]: 1}}, by=None, reason="a trick"
    )
    assert (mark(table), game(table).deals_left()) == (5, 1)
    play(table, at(23, 45), clock)
    assert game(table).complete


def test_an_edit_that_would_put_a_deal_after_the_round_is_refused(clock):
    """Marked by hand after 2 deals (А, Б dealt): В deals the last one. An adjustment
    before В's deal does not count; edited into a deal, it would be the last of the round
    and В's deal would come after it: the edit is refused and nothing changes."""
    table = open_table(clock, control_time=None)
    play(table, at(22), clock)
    play(table, at(22, 10), clock)
    services.control_time_mark(table, by=None)
    services.deal_create(table, adjustment(table), by=None)
    play(table, at(22, 30), clock)
    assert game(table).complete
    adjusted = selectors.live_deals(table)[2]
    names = selectors.seat_names(table)
    as_deal = {"kind": "misere", "declarer": names[0], "tricks": {names[0]: 0}}
    with pytest.raises(RuleError, match="complete") as error:
        services.deal_edit(adjusted, as_deal, by=None, reason="it was a misère")
    assert error.value.deal == 4
    assert Table.objects.get(pk=table.pk).deal_records.get(pk=adjusted.pk).data["kind"] == "adjust"


# -- marking by hand, clearing -----------------------------------------------------------------


def test_the_scorer_marks_by_hand(clock):
    """No control time on the table: the scorer marks it after 2 deals (А, Б dealt), so В
    deals the last deal; the history says who, the revision moves on."""
    table = open_table(clock, control_time=None)
    anna = table.seats.get(position=0).member
    play(table, at(22), clock)
    play(table, at(22, 30), clock)
    revision = Table.objects.get(pk=table.pk).revision

    services.control_time_mark(table, by=anna)

    marked = Table.objects.get(pk=table.pk)
    assert (marked.control_time_deal, marked.revision) == (2, revision + 1)
    entry = marked.audit.get(action=AuditEntry.MARK)
    assert (entry.actor, entry.after) == (anna, {"control_time_deal": 2})
    assert game(table).deals_left() == 1
    with pytest.raises(RuleError, match="marked already"):
        services.control_time_mark(table, by=anna)
    play(table, at(23), clock)
    assert game(table).complete


def test_marked_by_hand_at_the_first_dealer_the_pulka_is_complete_at_once(clock):
    table = open_table(clock, control_time=None)
    for minute in range(3):
        play(table, at(22, 10 * minute), clock)
    services.control_time_mark(table, by=None)
    assert mark(table) == 3
    assert game(table).complete
    assert "the pulka is complete" in refused_deal(table).message


def test_an_organiser_clears_a_mark_and_the_clock_marks_again(clock):
    table = open_table(clock)
    play(table, at(22), clock)
    services.control_time_mark(table, by=None)  # pressed too early, at 22:xx
    with pytest.raises(RuleError, match="say why"):
        services.control_time_clear(table, by=None, reason=" ")
    olga = factories.member("Olga", organiser=True)

    services.control_time_clear(table, by=olga, reason="pressed too early")

    assert mark(table) is None
    entry = table.audit.get(action=AuditEntry.UNMARK)
    assert (entry.actor, entry.reason, entry.before) == (
        olga,
        "pressed too early",
        {"control_time_deal": 1},
    )
    assert not game(table).last_round
    with pytest.raises(RuleError, match="not marked"):
        services.control_time_clear(table, by=olga, reason="again")
    play(table, at(22, 40), clock)
    assert mark(table) is None
    play(table, at(23, 1), clock)  # the clock: deal 3 marks 3
    assert mark(table) == 3


def test_a_finished_table_is_neither_marked_nor_cleared(clock):
    table = open_table(clock, control_time=None)
    play(table, at(22), clock)
    services.table_finish(table, by=None)
    with pytest.raises(RuleError, match="finished"):
        services.control_time_mark(table, by=None)
    with pytest.raises(RuleError, match="finished"):
        services.control_time_clear(table, by=None, reason="x")
