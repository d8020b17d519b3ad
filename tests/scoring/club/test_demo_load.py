"""The demo club loaded into an empty database (``manage.py load_demo``), apart from
test_demo.py, whose tests share one demo club loaded once for the module: a test here
running while that one is loaded would find it there."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from members.models import Member
from scoring.club.demo import load_demo
from scoring.models import Club, Table

# The whole demo club, loaded into an empty database: slow.
pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_the_command_loads_once() -> None:
    first, second = io.StringIO(), io.StringIO()

    call_command("load_demo", stdout=first)
    tables = Table.objects.filter(tour_link__isnull=True).count()
    call_command("load_demo", stdout=second)

    assert "Demo club loaded" in first.getvalue()
    assert "demo club already loaded" in second.getvalue()
    # 9 opened by hand, 1 by tonight's draw, 66 from the notebook (besides the tournaments')
    assert Table.objects.filter(tour_link__isnull=True).count() == tables == 10 + 66


def test_nothing_is_loaded_into_a_club_with_members() -> None:
    Member.objects.create(username="real")
    out = io.StringIO()

    assert load_demo(stdout=out) == {}

    assert Member.objects.count() == 1
    assert not Table.objects.exists()
    assert Club.objects.get().name == "Клуб преферанса и бостона"  # a real club keeps its name
