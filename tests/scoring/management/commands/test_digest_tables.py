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
