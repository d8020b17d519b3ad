"""A table where a substitute came mid-pulka survives a backup (scoring/club/backup.py):
who left the seat, after which deal and what he settled, so the restored record replays
(the numbers: tests/scoring/services/test_judging.py)."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command

from scoring import selectors
from scoring.engine.preferans.pulka import Pulka
from scoring.models import SeatChange, Table
from scoring.services import judging
from tests import factories
from tests.scoring.club.test_backup import _restore, empty_the_club
from tests.scoring.services.test_judging import DIMA_SIX, _four
from tests.scoring.services.test_judging_substitute import (
    EXPECTED,
    _finished_with_substitute,
    _stored,
)

pytestmark = pytest.mark.django_db


def test_a_substitute_is_restored_and_the_record_replays(tmp_path: Path) -> None:
    table = _four()
    judging.table_seat_substitute(table=table, position=3, newcomer="Dima", by=None, reason="ушёл")
    table.refresh_from_db()
    factories.played(table, [DIMA_SIX])
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stdout=io.StringIO())
    document = json.loads(path.read_text(encoding="utf-8"))

    empty_the_club()
    _restore(tmp_path, document)

    restored = Table.objects.get(has_seat_changes=True)
    change = SeatChange.objects.get(table=restored)
    assert (change.name, change.position, change.from_deal, change.result) == (
        "Gleb",
        3,
        3,
        Decimal("-10.00"),
    )
    assert change.member is not None and change.member.name == "Gleb"
    game = selectors.replay(restored).game
    assert isinstance(game, Pulka)
    assert list(game.pool) == [0, 2, 2, 3]


def test_a_backup_from_before_the_leavers_kept_their_statistics_restores_them(
    tmp_path: Path,
) -> None:
    # tests/scoring/services/test_judging_substitute.py's table: Vera leaves after deal 3.
    # A backup made before then has no statistics for her and Dima's seat counting her
    # deals too: it restores with each player's own, as the deals give them.
    table = _finished_with_substitute()
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stdout=io.StringIO())
    document = json.loads(path.read_text(encoding="utf-8"))
    [item] = [t for t in document["tables"] if t["id"] == table.pk]
    del item["seat_changes"][0]["stats"]
    whole = {
        k: EXPECTED["Vera"].get(k, 0) + EXPECTED["Dima"].get(k, 0)
        for k in EXPECTED["Vera"].keys() | EXPECTED["Dima"].keys()
    }
    item["seats"][2]["stats"] = whole
    empty_the_club()
    _restore(tmp_path, document)

    assert _stored(Table.objects.get(has_seat_changes=True)) == EXPECTED
