"""Tariff writes: publishing an edit as a new version, moving tables in play onto it,
deleting a tariff no table has played, the impact preview, copies and JSON import/export."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import F

from members.models import Member
from scoring import games, selectors
from scoring.engine.errors import N_, RuleError
from scoring.engine.record import BAD_TEXT_AT, bad_text
from scoring.live import revisions
from scoring.models import AuditEntry, Table
from scoring.models.tariffs import Tariff
from scoring.services.standings import standings_changed


def tariff_publish(tariff: Tariff, *, by: Member | None, move_tables: Iterable[int] = ()) -> Any:
    """Save an edited tariff and publish its rules as the version new tables get.

    A version that no table has used is updated in place; a used one is never touched:
    the edit becomes a new version. Tables in play listed in ``move_tables`` move to it.
    An edit of a published tariff moves the standings stamp: its name is on the profiles'
    tables and the seasons' pages (a new tariff, with no version yet, is on neither).
    """
    with transaction.atomic():
        tariff.changed_by = by
        tariff.save()
        rules = tariff.to_rules()
        current = tariff.current_version
        if current is not None and current.has_rules(rules):
            version = current
        elif current is not None and not _played(current):
            current.rules = rules.to_dict()
            current.created_by = by
            current.save(update_fields=["rules", "created_by"])
            version = current
        else:
            number = current.number + 1 if current is not None else 1
            version = tariff.versions.create(number=number, rules=rules.to_dict(), created_by=by)
        for table in tables_in_play(tariff).filter(pk__in=list(move_tables)):
            _move_to_version(table, version, by)
        if current is not None:
            # Last, as a finish takes the stamp's row last: a table this publish moves
            # is locked before the stamp, never after it.
            standings_changed()
        return version


def _played(version: Any) -> bool:
    """Whether ``version`` is in use: a table plays it, or a tournament froze it when it
    started (its tables, seated later, must play the same rules: issue 32)."""
    return bool(version.tables.exists() or version.tournaments.exists())


def tariff_delete(*, tariff: Tariff) -> None:
    """Delete a tariff with its versions and rows. Versions protect their tariff, so that
    no other path drops one by accident; a version some table has played protects it
    here too (``ProtectedError``: the table's version stays forever). A season that had it
    as its default has none now, which its page shows: the standings stamp moves."""
    with transaction.atomic():
        tariff.versions.all().delete()
        tariff.delete()
        standings_changed()


def tables_in_play(tariff: Tariff) -> Any:
    """The open tables played under any version of ``tariff``."""
    field = games.of_tariff(tariff).version_field
    return Table.objects.filter(status=Table.OPEN, **{f"{field}__tariff": tariff})


def _move_to_version(table: Table, version: Any, by: Member | None) -> None:
    before = _audit_name(table.version)
    field = games.of_table(table).version_field
    setattr(table, field, version)
    selectors.replay(table)  # the new rules must accept every deal played so far
    table.revision = F("revision") + 1
    table.save(update_fields=[field, "revision"])
    revisions.table_moved(table.pk)
    AuditEntry.objects.create(
        table=table,
        action=AuditEntry.RETARIFF,
        actor=by,
        before={"tariff": before},
        after={"tariff": _audit_name(version)},
    )


def _audit_name(version: Any) -> str:
    """A version as the audit stores it: the same in every language (a version's own
    ``str`` is in the reader's)."""
    return f"{version.tariff} v{version.number}"


@dataclass(frozen=True)
class TableChange:
    """How an edit of a tariff would change one table in play."""

    table: Table
    players: tuple[str, ...]
    before: tuple[Decimal, ...]
    after: tuple[Decimal, ...] | None
    error: str | None = None

    @property
    def deltas(self) -> tuple[Decimal, ...]:
        if self.after is None:
            return ()
        return tuple(a - b for a, b in zip(self.after, self.before, strict=True))

    @property
    def changes(self) -> bool:
        return self.error is not None or any(self.deltas)


def tariff_change_preview(tariff: Tariff) -> list[TableChange]:
    """For an edited (unsaved) tariff: each table in play, its money now and under the
    edited rules, so the organiser can choose which tables move to the new version."""
    new_rules = tariff.to_rules()
    changes = []
    for table in tables_in_play(tariff).prefetch_related("seats", "deal_records"):
        state = selectors.replay(table)
        before = state.result.money
        try:
            after = selectors.replay(table, state.records, new_rules).result.money
            error = None
        except RuleError as err:
            after, error = None, str(err)
        changes.append(TableChange(table, state.players, before, after, error))
    return changes


def tariff_copy(tariff: Tariff, *, name: str, by: Member | None) -> Tariff:
    """A new tariff with the same rules (and rows) under another name."""
    return tariff_import(tariff_export(tariff) | {"name": name}, by=by)


def tariff_export(tariff: Tariff) -> dict[str, Any]:
    """A tariff as JSON: its name, description and the engine's settings."""
    return {
        "format": "house-tariff/1",
        "game": games.of_tariff(tariff).code,
        "name": tariff.name,
        "description": tariff.description,
        "rules": tariff.to_rules().to_dict(),
    }


def tariff_import(data: Any, *, by: Member | None) -> Tariff:
    """Create a tariff (and its first version) from ``tariff_export`` output.

    Text holding a NUL or half of a surrogate pair anywhere in ``data`` (JSON's ``\\u``
    escapes spell both) is refused first: no column can store it, and a message that
    quoted it could not be sent as a page."""
    if not isinstance(data, dict) or data.get("format") != "house-tariff/1":
        raise RuleError(N_('must be a house tariff ("format": "house-tariff/1")'), field="format")
    if (where := bad_text(data)) is not None:
        raise RuleError(BAD_TEXT_AT, at=where[:80])
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise RuleError(N_("must be a name of 1–100 characters"), field="name")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise RuleError(N_("must be text"), field="description")
    rules_data = data.get("rules")
    if not isinstance(rules_data, dict):
        raise RuleError(N_("must be an object of settings"), field="rules")
    game = games.GAMES.get(str(data.get("game")))
    if game is None:
        raise RuleError(N_('must be "preferans" or "boston"'), field="game")
    rules = game.rules_from_dict(rules_data)
    with transaction.atomic():
        tariff = game.new_tariff(rules, name=name, description=description)
        _save_new(tariff)
        game.add_tariff_rows(tariff, rules)
        tariff_publish(tariff, by=by)
        return tariff


def _save_new(tariff: Tariff) -> None:
    if type(tariff)._default_manager.filter(name=tariff.name).exists():
        raise RuleError(N_("a tariff with this name exists already"), field="name")
    tariff.full_clean(exclude=["changed_by"])
    tariff.save()
