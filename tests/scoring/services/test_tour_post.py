"""The club chat's post after each tour (issue 32; scoring/services/notifications.py,
``tour_closed_task``): the tour's tables with each player's result and tour points, and
the standings after it, posted once the tour's close commits, to the fake Bot API
(tests/fake_telegram.py), as the evening's summary is.

Every table is the factories' hand-worked short pulka (``factories.tour_played``): the
declarer +66.67 whists, each other player −33.33; the raw rule scores the result as it
is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction

from members.models import Member
from scoring.models import Tour, Tournament
from scoring.services import notifications
from scoring.services import tournaments as services
from tests import factories
from tests.fake_telegram import FakeBotApi, serve
from tests.mailbox import committed

pytestmark = pytest.mark.django_db

TOKEN = "123456:TEST-token"  # noqa: S105 - the fake's
CHAT = "-100777"


class Rollback(Exception):
    pass


@pytest.fixture
def bot_api(settings: Any) -> Iterator[FakeBotApi]:
    for api in serve():
        settings.TELEGRAM_API_URL = api.url
        settings.TELEGRAM_BOT_TOKEN = TOKEN
        settings.TELEGRAM_CHAT_ID = CHAT
        settings.SITE_URL = "https://club.example"
        yield api


def _played_tour(judge: Member) -> Tour:
    tournament = factories.tournament(name="Кубок")
    tournament.judges.add(judge)
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    return factories.tour_played(tour, judge)  # type: ignore[no-any-return]


def _table_line(tour: Tour, number: int) -> str:
    """The table's players in seat order, each with his hand-worked result and points."""
    link = tour.tables.get(number=number)
    parts = []
    for seat in link.table.seats.order_by("position"):
        figure = {"66.67": "+66,67 → 66,67", "-33.33": "-33,33 → -33,33"}[str(seat.result)]
        parts.append(f"{seat.name} {figure}")
    return f"Стол {number}: " + " · ".join(parts)


def test_closing_a_tour_posts_its_tables_and_the_standings_to_the_club_chat(
    bot_api: FakeBotApi,
) -> None:
    judge = factories.member("Judith")
    tour = _played_tour(judge)
    assert bot_api.calls == []  # the tables' own posts come with their finish: none here
    with committed():
        services.tour_close(tour=tour)

    (call,) = bot_api.calls
    assert call.path == f"/bot{TOKEN}/sendMessage"
    assert call.fields["chat_id"] == CHAT
    text = call.fields["text"]
    lines = text.splitlines()
    assert lines[0] == "Кубок: тур 1 закрыт."
    assert lines[1] == ""
    assert lines[2] == _table_line(tour, 1)
    assert lines[3] == _table_line(tour, 2)
    assert lines[4] == ""
    assert lines[5] == "Таблица после тура 1:"
    # The two declarers share the lead at 66.67; the four others are at −33.33 each
    # (their balances in whists: the kopeck a settlement rounds goes to money only).
    totals = [line.rsplit(" ", 1)[1] for line in lines[6:12]]
    assert totals == ["66,67", "66,67", "-33,33", "-33,33", "-33,33", "-33,33"]
    assert lines[12:] == ["", f"https://club.example/tournaments/{tour.tournament_id}/"]


def test_a_tour_closed_inside_a_rollback_posts_nothing(bot_api: FakeBotApi) -> None:
    judge = factories.member("Judith")
    tour = _played_tour(judge)
    with pytest.raises(Rollback), committed(), transaction.atomic():
        services.tour_close(tour=tour)
        raise Rollback
    assert bot_api.calls == []
    assert not Tour.objects.get(pk=tour.pk).is_closed


def test_a_long_field_lists_the_leaders_and_says_how_many_more(bot_api: FakeBotApi) -> None:
    judge = factories.member("Judith")
    tournament = factories.tournament(15, name="Кубок")
    tournament.judges.add(judge)
    services.tournament_start(tournament=tournament, seed=7)
    tour = factories.tour_played(services.tour_seat(tournament=tournament, by=judge), judge)
    with committed():
        services.tour_close(tour=tour)
    text = "\n".join(call.fields["text"] for call in bot_api.calls)
    assert "… и ещё 3" in text  # 15 players, 12 lines shown
    assert Tournament.objects.get(pk=tournament.pk).is_running


def test_the_post_is_the_task_s_and_waits_for_a_closed_tour(bot_api: FakeBotApi) -> None:
    judge = factories.member("Judith")
    tour = _played_tour(judge)
    assert notifications.tour_closed_task.call(tour_id=tour.pk) == "the tour is gone or open again"
    assert bot_api.calls == []
