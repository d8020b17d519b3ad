"""The judges' decision at a tied cut on the tournament's page (scoring/views/
tournaments.py ``cut_decide``, ``cut_decision_reverse``): what the page says about the
tie, the judge's form, the refusals, who may.

Six players, tour 1 of the factories' short pulka closed (two winners on +66.67, four on
−33.33 equal on every tie-break), a cut to 3 after it: the four share places 3–6 and one
of them goes on."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.models import Entry, Penalty, Tournament
from scoring.services import tournaments as services
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def judge() -> Member:
    return factories.member("Judith")


@pytest.fixture
def cup(judge: Member) -> Tournament:
    tournament = factories.tournament(cut_after=1, cut_to=3, final_deals=4)
    tournament.judges.add(judge)
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    factories.tour_played(tour, judge)
    services.tour_close(tour=tour)
    return tournament  # type: ignore[no-any-return]


def _tied(cup: Tournament) -> list[Entry]:
    tour = cup.tour_set.get()
    return [seat.entry for seat in tour.seats.exclude(position=0).order_by("entry_id")]


def _detail(cup: Tournament) -> str:
    return reverse("scoring:tournament_detail", args=[cup.pk])


def _decide(cup: Tournament) -> str:
    return reverse("scoring:cut_decide", args=[cup.pk])


def test_everyone_sees_the_tie_and_that_the_judges_decide(
    client: Client, cup: Tournament, django_assert_num_queries: Any
) -> None:
    with django_assert_num_queries(7):  # as the page without a tie: nothing more is read
        page = client.get(_detail(cup)).content.decode()
    assert "a tie at the cut's line: the judges decide" in page
    names = ", ".join(entry.name for entry in _tied(cup))
    assert f"sharing places 3–6, with 1 place in the final for them: {names}." in page
    assert _decide(cup) not in page

    ru = client.get(_detail(cup), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "ничья на линии отсечения: решают судьи" in ru


def test_the_judge_sees_the_form_instead_of_seating_the_final(
    client: Client, cup: Tournament, judge: Member, django_assert_num_queries: Any
) -> None:
    client.force_login(judge)
    with django_assert_num_queries(10):  # the judge's page as it costs without a tie
        page = client.get(_detail(cup)).content.decode()
    assert f'action="{_decide(cup)}"' in page
    for entry in _tied(cup):
        assert f'<input type="checkbox" name="entry" value="{entry.pk}"> {entry.name}' in page
    assert 'name="reason" id="cut-reason" maxlength="500" required' in page
    assert "Who goes on: tick 1 player" in page
    assert reverse("scoring:tour_seat", args=[cup.pk]) not in page
    assert "the judges decide" not in page
    # The penalty form offers the penalties only: the decision has its own form.
    assert '<option value="points">' in page and '<option value="cut">' not in page


def test_a_judge_decides_and_the_page_and_the_standings_say_so(
    client: Client, cup: Tournament, judge: Member
) -> None:
    chosen = _tied(cup)[1]
    client.force_login(judge)
    response = client.post(_decide(cup), {"entry": [str(chosen.pk)], "reason": "жребий"})

    assert response.status_code == 302 and response["Location"] == _detail(cup)
    row = Penalty.objects.get()
    assert (row.entry, row.category, row.reason, row.by) == (chosen, Penalty.CUT, "жребий", judge)
    page = client.get(_detail(cup)).content.decode()
    assert f"The judges' decision: going on <strong>{chosen.name}</strong> — жребий" in page
    # The standings' tie-break column, for each of the four tied.
    assert page.count("the judges&#x27; decision: жребий") == 4
    # The history of the judges' decisions lists it, with who.
    assert f"<strong>{chosen.name}</strong>: goes on by the judges&#x27; decision" in page
    assert reverse("scoring:cut_decision_reverse", args=[cup.pk]) in page
    assert reverse("scoring:tour_seat", args=[cup.pk]) in page
    ru = client.get(_detail(cup), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert ru.count("решение судей: жребий") == 4

    seated = client.post(reverse("scoring:tour_seat", args=[cup.pk]))
    assert seated.status_code == 302
    final = cup.tour_set.get(number=2)
    winners = {s.entry_id for s in cup.tour_set.get(number=1).seats.filter(position=0)}
    assert {s.entry_id for s in final.seats.all()} == winners | {chosen.pk}


@pytest.mark.parametrize(
    ("ticks", "reason", "english", "russian"),
    [
        (
            [0, 1],
            "жребий",
            "choose 1 of the players tied for places 3–6",
            "выберите 1 из игроков, делящих места 3–6",
        ),
        (
            [],
            "жребий",
            "choose 1 of the players tied for places 3–6",
            "выберите 1 из игроков, делящих места 3–6",
        ),
        (
            [0],
            " ",
            "say why: the reason is kept with the decision",
            "укажите причину: она сохраняется вместе с решением",
        ),
        (["x"], "жребий", "choose players of the tournament", "выберите игроков турнира"),
    ],
)
def test_a_bad_decision_says_why_and_changes_nothing(
    client: Client,
    cup: Tournament,
    judge: Member,
    ticks: list[Any],
    reason: str,
    english: str,
    russian: str,
) -> None:
    tied = _tied(cup)
    entries = [str(tied[t].pk) if isinstance(t, int) else t for t in ticks]
    client.force_login(judge)
    page = client.post(
        _decide(cup), {"entry": entries, "reason": reason}, follow=True
    ).content.decode()
    assert english in page
    ru = client.post(
        _decide(cup), {"entry": entries, "reason": reason}, follow=True, HTTP_ACCEPT_LANGUAGE="ru"
    ).content.decode()
    assert russian in ru
    assert not Penalty.objects.exists()


def test_a_member_gets_403_and_a_stranger_is_sent_to_sign_in(
    client: Client, cup: Tournament
) -> None:
    data = {"entry": [str(_tied(cup)[0].pk)], "reason": "жребий"}
    assert client.post(_decide(cup), data).status_code == 302  # to sign in
    client.force_login(factories.member("Mark"))
    assert client.post(_decide(cup), data).status_code == 403
    reverse_url = reverse("scoring:cut_decision_reverse", args=[cup.pk])
    assert client.post(reverse_url, {"reason": "ошибка"}).status_code == 403
    assert not Penalty.objects.exists()


def test_a_judge_reverses_the_decision_with_a_reason(
    client: Client, cup: Tournament, judge: Member
) -> None:
    services.cut_decide(tournament=cup, chosen=_tied(cup)[:1], reason="жребий", by=judge)
    url = reverse("scoring:cut_decision_reverse", args=[cup.pk])
    client.force_login(judge)
    refused = client.post(url, {"reason": " "}, follow=True).content.decode()
    assert "say why the decision is reversed" in refused
    assert Penalty.objects.get().in_force

    assert client.post(url, {"reason": "ошибка в протоколе"}).status_code == 302

    row = Penalty.objects.get()
    assert (row.reversed_by, row.reversal_reason, row.in_force) == (
        judge,
        "ошибка в протоколе",
        False,
    )
    page = client.get(_detail(cup)).content.decode()
    assert f'action="{_decide(cup)}"' in page  # the tie is open again
    assert "ошибка в протоколе" in page  # the reversed row stays listed, with why
