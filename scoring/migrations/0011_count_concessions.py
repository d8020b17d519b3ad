"""A finished pulka's conceded contracts (уход, preferans.md §13.11) in its seats'
statistics: until now a concession was not counted, from now on it is a contract declared
and not made (``declared_7``) and a concession (``conceded_7``), as
``scoring.engine.stats.preferans_stats`` counts it. Consolation on it was counted as whists
already and is left alone.

Only tables finished before this migration can hold the old counts. The counting is copied
here, not imported from the engine, so the migration never changes.
"""

from collections import defaultdict

from django.db import migrations


def _concessions(apps):
    """(table id, declarer's name) → the levels he conceded, over finished pulkas."""
    DealRecord = apps.get_model("scoring", "DealRecord")
    records = DealRecord.objects.filter(
        table__game="preferans", table__status="finished", deleted=False, data__kind="concede"
    )
    conceded = defaultdict(list)
    for table_id, data in records.values_list("table_id", "data"):
        conceded[table_id, data["declarer"]].append(int(data["contract"][:-1]))
    return conceded


def _recount(apps, sign):
    Seat = apps.get_model("scoring", "Seat")
    for (table_id, name), levels in _concessions(apps).items():
        seat = Seat.objects.filter(table_id=table_id, name=name).first()
        if seat is None:
            continue
        stats = dict(seat.stats or {})
        for level in levels:
            for key in (f"declared_{level}", f"conceded_{level}"):
                stats[key] = stats.get(key, 0) + sign
                if not stats[key]:
                    del stats[key]
        seat.stats = stats
        seat.save(update_fields=["stats"])


def forwards(apps, schema_editor):
    _recount(apps, +1)


def backwards(apps, schema_editor):
    _recount(apps, -1)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0010_table_preference_suit"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]
