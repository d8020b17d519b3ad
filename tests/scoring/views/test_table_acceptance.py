"""What counts in the standings (issue 35, item 4): an imported record only once it is
accepted — by an organiser, or by every member seated at it where the club lets them — and
a table an organiser closes early only if he says it counts. Through the site's pages on
the test database, the numbers read back from the standings' CSV.

The numbers, by hand: a pulka of pool 10 that Anna wins with an unplayed 10NT (both
defenders pass) closes her pool at once; 10 pool points are 100 whists against the other
two together, so her balance is 100 − 100/3 = 66.67 whists and each other's −33.33. At a
whist price of 4.5 her money is 66.67 × 4.5 = 300 (the engine keeps the thirds exact:
200/3 × 4.5 = 300), theirs −150 each.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
from decimal import Decimal
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring import services
from scoring.models import AuditEntry, Club, Guest, Rating, StandingsTotal, Table
from scoring.services.guests import guest_merge
from tests import factories
from tests.factories import HTMX, finished_pulka

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 3, 10)


def fabricated(guests: tuple[str, str], *, price: str = "4.5") -> dict[str, Any]:
    """The finding's record: Anna wins an unplayed 10NT against two guests, at a whist
    price of 4.5 (nobody at the club played it)."""
    return {
        "format": "pulka/1",
        "game": "preferans",
        "players": ["Anna", *guests],
        "members": ["anna", None, None],
        "pool_target": 10,
        "whist_price": price,
        "deals": [
            {
                "kind": "game",
                "declarer": "Anna",
                "contract": "10N",
                "answers": dict.fromkeys(guests, "pass"),
            }
        ],
    }


def upload(record: dict[str, Any]) -> dict[str, Any]:
    content = json.dumps(record, ensure_ascii=False).encode()
    return {
        "record": SimpleUploadedFile("game.json", content, "application/json"),
        "game": "preferans",
    }


def board(client: Client) -> dict[str, dict[str, str]]:
    """The all-time Preferans standings as their CSV gives them, by member's name."""
    response = client.get(reverse("scoring:standings_csv", args=[Table.PREFERANS]))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    head = rows[0]
    return {row[head.index("Member")]: dict(zip(head, row, strict=True)) for row in rows[1:]}


def line(client: Client, name: str) -> tuple[int, int, Decimal]:
    """A member's tables, wins and money in the standings (zeros when he is not there)."""
    row = board(client).get(name)
    if row is None:
        return 0, 0, Decimal(0)
    return int(row["Games"]), int(row["Wins"]), Decimal(row["Money"])


@pytest.fixture
def club() -> dict[str, Member]:
    """Anna, Boris and Vera, and two pulkas Boris won: Anna has 2 tables, no win and
    −33.33 − 33.34 = −66.67 in money (the cent that thirds leave goes to the last seat:
    hers at the second)."""
    anna, boris, vera = (
        factories.member(name, username=name.lower()) for name in ("Anna", "Boris", "Vera")
    )
    finished_pulka([anna, boris, vera], boris, DAY)
    finished_pulka([boris, vera, anna], boris, DAY + datetime.timedelta(days=1))
    return {"anna": anna, "boris": boris, "vera": vera}


def as_(member: Member) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(member)
    return client


def decide(client: Client, table: Table, decision: str, **headers: Any) -> Any:
    return client.post(
        reverse("scoring:table_decide", args=[table.pk]),
        {"decision": decision, **factories.drawn(table)},
        **headers,
    )


def test_a_fabricated_record_counts_only_once_an_organiser_accepts_it(club):
    """The finding: a member imports three records of a 10NT win against guests. Before,
    his tables went 2 → 5, his wins 0 → 3 and his money up 900 at once."""
    anna = as_(club["anna"])
    assert line(anna, "Anna") == (2, 0, Decimal("-66.67"))
    imported = []
    for guests in (("Пётр", "Иван"), ("Олег", "Семён"), ("Фёдор", "Яков")):
        response = anna.post(reverse("scoring:table_import"), upload(fabricated(guests)))
        assert response.status_code == 302
        imported.append(Table.objects.latest("pk"))

    assert [t.standing for t in imported] == [Table.PENDING] * 3
    assert line(anna, "Anna") == (2, 0, Decimal("-66.67"))  # nothing changed
    assert not Rating.objects.filter(member=club["anna"], tables__gt=2).exists()
    page = anna.get(reverse("scoring:table_detail", args=[imported[0].pk])).content.decode()
    assert '<span class="badge badge--pending">awaiting acceptance</span>' in page
    assert 'value="accept"' not in page  # the club's setting: an organiser decides

    # Anna herself may not accept it (the club's default: an organiser only).
    assert decide(anna, imported[0], "accept").status_code == 403
    assert line(anna, "Anna") == (2, 0, Decimal("-66.67"))

    olga = as_(factories.member("Olga", organiser=True, username="olga"))
    page = olga.get(reverse("scoring:table_detail", args=[imported[0].pk])).content.decode()
    assert 'value="accept"' in page and 'value="reject"' in page
    response = decide(olga, imported[0], "accept")
    assert response.status_code == 302
    assert line(anna, "Anna") == (3, 1, Decimal("233.33"))  # −66.67 + 300
    response = decide(olga, imported[1], "accept", **HTMX)
    assert response.status_code == 200
    assert "Accepted for the standings." in response.content.decode()
    assert line(anna, "Anna") == (4, 2, Decimal("533.33"))
    assert decide(olga, imported[2], "reject").status_code == 302
    assert line(anna, "Anna") == (4, 2, Decimal("533.33"))  # rejected: never counted

    page = anna.get(reverse("scoring:table_detail", args=[imported[2].pk])).content.decode()
    assert '<span class="badge badge--rejected">rejected</span>' in page
    assert "Olga · rejected for the standings" in page
    entry = AuditEntry.objects.get(table=imported[0], action=AuditEntry.ACCEPT)
    assert entry.actor.username == "olga"

    # An organiser may still accept the rejected one; nobody may decide a counted one.
    assert decide(olga, imported[2], "accept").status_code == 302
    assert line(anna, "Anna") == (5, 3, Decimal("833.33"))  # −66.67 + 900
    assert decide(olga, imported[2], "reject").status_code == 403
    assert StandingsTotal.objects.get(member=club["anna"], season=None).tables == 5


def test_the_standings_rebuilt_leave_a_record_awaiting_acceptance_out(club):
    anna = as_(club["anna"])
    anna.post(reverse("scoring:table_import"), upload(fabricated(("Пётр", "Иван"))))
    services.standings_rebuild()
    assert line(anna, "Anna") == (2, 0, Decimal("-66.67"))


def test_where_the_players_accept_it_counts_once_every_seated_member_has(club):
    identity = Club.load()
    identity.import_acceptance = Club.PLAYERS
    identity.save()
    anna, boris, vera = (as_(club[n]) for n in ("anna", "boris", "vera"))
    # Anna won a pulka against Boris and Vera that was never entered here.
    record = fabricated(("Boris", "Vera"), price="1")
    record["members"] = ["anna", "boris", "vera"]
    assert anna.post(reverse("scoring:table_import"), upload(record)).status_code == 302
    table = Table.objects.latest("pk")
    page = anna.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    assert "Still to accept it: Anna, Boris, Vera" in page

    assert decide(anna, table, "accept").status_code == 302
    assert decide(boris, table, "accept").status_code == 302
    assert line(anna, "Anna") == (2, 0, Decimal("-66.67"))  # Vera has not yet
    page = vera.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    assert "Still to accept it: Vera" in page
    page = anna.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    assert 'value="accept"' not in page and 'value="reject"' in page  # hers is in
    again = decide(anna, table, "accept")
    assert "you have accepted this table already" in anna.get(again["Location"]).content.decode()
    assert decide(vera, table, "accept").status_code == 302
    assert Table.objects.get(pk=table.pk).standing == Table.COUNTED
    assert line(anna, "Anna") == (3, 1, Decimal("0.00"))  # −66.67 + 66.67
    assert line(anna, "Boris")[0] == 3
    stranger = as_(factories.member("Mila", username="mila"))
    assert decide(stranger, table, "reject").status_code == 403


def test_where_the_players_accept_any_of_them_rejects_and_a_lone_member_cannot(club):
    identity = Club.load()
    identity.import_acceptance = Club.PLAYERS
    identity.save()
    anna, boris = as_(club["anna"]), as_(club["boris"])
    record = fabricated(("Boris", "Vera"), price="1")
    record["members"] = ["anna", "boris", "vera"]
    anna.post(reverse("scoring:table_import"), upload(record))
    table = Table.objects.latest("pk")
    assert decide(anna, table, "accept").status_code == 302
    assert decide(boris, table, "reject").status_code == 302
    assert Table.objects.get(pk=table.pk).standing == Table.REJECTED
    assert line(anna, "Anna") == (2, 0, Decimal("-66.67"))

    # Anna alone with two guests would be accepting her own record: an organiser decides.
    anna.post(reverse("scoring:table_import"), upload(fabricated(("Пётр", "Иван"))))
    alone = Table.objects.latest("pk")
    assert decide(anna, alone, "accept").status_code == 403
    assert Table.objects.get(pk=alone.pk).standing == Table.PENDING


def test_a_decision_without_a_choice_is_refused_and_changes_nothing(club):
    anna = as_(club["anna"])
    anna.post(reverse("scoring:table_import"), upload(fabricated(("Пётр", "Иван"))))
    table = Table.objects.latest("pk")
    olga = as_(factories.member("Olga", organiser=True, username="olga"))
    response = decide(olga, table, "maybe")
    assert response.status_code == 302
    assert "Choose to accept or to reject." in olga.get(response["Location"]).content.decode()
    assert Table.objects.get(pk=table.pk).standing == Table.PENDING
    ru = Client(headers={"accept-language": "ru"})
    ru.force_login(club["anna"])
    page = ru.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    assert '<span class="badge badge--pending">ждёт подтверждения</span>' in page


def _unfinished_pulka(club: dict[str, Member]) -> Table:
    """Anna wins a 6♠ (6 in her pool, pool 10): the pulka is not complete."""
    return factories.pulka(
        [club["anna"], club["boris"], club["vera"]],
        pool_target=10,
        played_on=DAY,
        deals=[factories.GAME_RECORD],
    )


def test_an_early_close_asks_whether_it_counts_and_no_keeps_it_out(club):
    table = _unfinished_pulka(club)
    olga = as_(factories.member("Olga", organiser=True, username="olga"))
    finish = reverse("scoring:table_finish", args=[table.pk])
    form = olga.get(finish).content.decode()
    assert 'name="counts"' in form and "checked" not in form  # no default

    response = olga.post(finish, {"reason": "the club closes", **factories.drawn(table)})
    assert response.status_code == 200
    assert "Say whether the table counts in the standings." in response.content.decode()
    assert Table.objects.get(pk=table.pk).is_open

    response = olga.post(
        finish, {"reason": "the club closes", "counts": "no", **factories.drawn(table)}
    )
    assert response.status_code == 302
    closed = Table.objects.get(pk=table.pk)
    assert (closed.status, closed.standing) == (Table.FINISHED, Table.LEFT_OUT)
    assert line(olga, "Anna") == (2, 0, Decimal("-66.67"))  # as before the table
    page = olga.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    assert '<span class="badge badge--left-out">not counted</span>' in page

    # Reopened and closed early again, counting: it adds its one table.
    services.table_reopen(closed, by=Member.objects.get(username="olga"), reason="it counts")
    response = olga.post(
        finish, {"reason": "the club closes", "counts": "yes", **factories.drawn(table)}
    )
    assert response.status_code == 302
    assert Table.objects.get(pk=table.pk).standing == Table.COUNTED
    assert line(olga, "Anna")[0] == 3


def test_a_table_its_players_finish_counts_as_before(club):
    """A Boston table has no end of its own: its players finish it, and it counts."""
    gleb = factories.member("Gleb", username="gleb")
    seated = [club["anna"], club["boris"], club["vera"], gleb]
    table = factories.boston_table(seated, played_on=DAY)
    deal = {"kind": "independence", "declarer": "Anna", "suit": "minor", "tricks": 7}
    services.deal_create(table, deal, by=club["anna"])
    anna = as_(club["anna"])
    response = anna.post(reverse("scoring:table_finish", args=[table.pk]), factories.drawn(table))
    assert response.status_code == 302
    assert "Table finished." in anna.get(response["Location"]).content.decode()
    assert Table.objects.get(pk=table.pk).standing == Table.COUNTED
    totals = StandingsTotal.objects.get(member=club["anna"], season=None, game=Table.BOSTON)
    assert totals.tables == 1


def test_the_admin_lists_each_tables_standing(club):
    anna = as_(club["anna"])
    anna.post(reverse("scoring:table_import"), upload(fabricated(("Пётр", "Иван"))))
    pending = Table.objects.latest("pk")
    oleg = as_(factories.member("Oleg", organiser=True, is_staff=True, username="oleg"))
    listing = reverse("admin:scoring_table_changelist")
    html = oleg.get(listing + "?standing__exact=pending").content.decode()
    assert f"Preferans #{pending.pk}" in html and "awaiting acceptance" in html
    assert "Preferans #1<" not in html  # the counted ones are filtered out
    html = oleg.get(reverse("admin:scoring_table_change", args=[pending.pk])).content.decode()
    assert "awaiting acceptance" in html


def test_the_members_page_marks_a_table_that_does_not_count(club):
    anna = as_(club["anna"])
    anna.post(reverse("scoring:table_import"), upload(fabricated(("Пётр", "Иван"))))
    table = Table.objects.latest("pk")
    profile = reverse("members:detail", args=["anna"])
    visitor = Client(headers={"accept-language": "en"})
    html = visitor.get(profile).content.decode()
    assert f"#{table.pk}</a> " + '<span class="badge badge--pending">' in html
    olga = as_(factories.member("Olga", organiser=True, username="olga"))
    decide(olga, table, "reject")
    html = visitor.get(profile).content.decode()  # the visitors' copy is not stale
    assert f"#{table.pk}</a> " + '<span class="badge badge--rejected">' in html


def test_a_guest_merged_into_a_member_leaves_a_table_awaiting_acceptance_out(club):
    """A merge takes the guest's finished tables off the totals and adds them back with
    the member's seat: one that does not count must stay out."""
    anna = as_(club["anna"])
    anna.post(reverse("scoring:table_import"), upload(fabricated(("Пётр", "Иван"))))
    gleb = factories.member("Gleb", username="gleb")
    pyotr = Guest.objects.get(name="Пётр")
    olga = factories.member("Olga", organiser=True, username="olga")
    guest_merge(guest=pyotr, member=gleb, by=olga)
    assert line(anna, "Anna") == (2, 0, Decimal("-66.67"))
    assert line(anna, "Gleb") == (0, 0, Decimal(0))
    assert not StandingsTotal.objects.filter(member=gleb).exists()
