"""The keys of what is kept per table: every write moves the table's revision on, so a
key with the revision in it names something that never changes."""

from __future__ import annotations

from scoring.models import Table


def _table(table: Table) -> str:
    # The opening time tells a table from an earlier one that had its number: SQLite
    # reuses a rolled-back id.
    return f"{table.pk}:{table.opened_at.timestamp()}"


def revision_key(table: Table, kind: str) -> str:
    """The key of ``kind`` derived from this revision of ``table``."""
    return f"{kind}:{_table(table)}:{table.revision}"


def tariff_key(table: Table, kind: str) -> str:
    """The key of ``kind`` derived only from ``table``'s players and tariff version (the
    empty deal form of a shape), which outlives revisions."""
    return f"{kind}:{_table(table)}:{table.preferans_version_id or table.boston_version_id}"


def url_key(kind: str, url: str) -> str:
    """The key of ``kind`` derived from ``url`` alone (its QR code), whatever the table."""
    return f"{kind}:{url}"
