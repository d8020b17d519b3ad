"""``manage.py digest_tables``: tables finished before digests began get theirs, so an
import of their export is refused too."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from scoring import services
from scoring.models import Table
from tests import factories

pytestmark = pytest.mark.django_db

PASSOUT = {"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "Vera": 0}}


def test_fills_in_the_missing_digests_only(club):
    members = [club["Anna"], club["Boris"], club["Vera"]]
    old = factories.pulka(members, deals=[PASSOUT], finished=True)
    new = factories.pulka(members, deals=[PASSOUT, PASSOUT], finished=True)
    in_play = factories.pulka(members, deals=[PASSOUT])
    digest = Table.objects.get(pk=old.pk).record_digest
    Table.objects.filter(pk=old.pk).update(record_digest=None)  # finished before digests
    revision = Table.objects.get(pk=old.pk).revision
    out = io.StringIO()

    call_command("digest_tables", stdout=out)

    assert out.getvalue() == "Stored the digest of 1 finished table(s).\n"
    refreshed = Table.objects.get(pk=old.pk)
    assert refreshed.record_digest == digest
    assert refreshed.revision == revision  # nothing a viewer sees changed
    assert Table.objects.get(pk=in_play.pk).record_digest is None
    assert services.table_digests_fill() == (0, [])
    assert services.table_digests_fill(every=True) == (2, [])
    assert Table.objects.get(pk=new.pk).record_digest not in (None, digest)


def test_a_table_of_paper_history_keeps_the_digest_of_its_seats(club):
    """It has no deals to replay: digesting every table leaves its own digest, so the
    notebook brought in again is still refused."""
    notebook = (
        b"table,date,game,player,result\n"
        b"1,2026-03-10,preferans,anna,5\n1,2026-03-10,preferans,boris,-5\n"
        b"1,2026-03-10,preferans,vera,0\n"
    )
    services.history_import(content=notebook, file_name="n.csv", by=None)
    digest = Table.objects.get().record_digest

    assert services.table_digests_fill(every=True) == (0, [])

    assert Table.objects.get().record_digest == digest
    # Another file (a blank line more) with the same table: refused by the table's digest.
    refused = services.history_plan(content=notebook + b"\n").refused
    assert [r.error.message.split(":")[0] for r in refused] == ["table 1 is in the club already"]
