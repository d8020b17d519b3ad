"""The write paths: every change to tariffs and tables, each in one transaction.

Each function checks the change with the engine before writing anything, so bad input
raises ``RuleError`` (a message for the member) and leaves the database as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone
from openskill.models import PlackettLuce

from members.models import Member
from scoring import selectors
from scoring.engine import boston, preferans
from scoring.engine.errors import RuleError
from scoring.engine.money import two_decimals
from scoring.engine.record import check_head
from scoring.engine.standings import table_places
from scoring.engine.stats import boston_stats, preferans_stats
from scoring.models import (
    AuditEntry,
    BostonTariff,
    DealRecord,
    PreferansTariff,
    Rating,
    RatingHistory,
    Seat,
    Table,
)
from scoring.models.tariffs import Tariff

# -- tariffs ------------------------------------------------------------------------------


def tariff_publish(tariff: Tariff, *, by: Member | None, move_tables: Iterable[int] = ()) -> Any:
    """Save an edited tariff and publish its rules as the version new tables get.

    A version that no table has used is updated in place; a used one is never touched:
    the edit becomes a new version. Tables in play listed in ``move_tables`` move to it.
    """
    with transaction.atomic():
        tariff.changed_by = by
        tariff.save()
        rules = tariff.to_rules().to_dict()
        current = tariff.current_version
        if current is not None and current.rules == rules:
            version = current
        elif current is not None and not current.tables.exists():
            current.rules = rules
            current.created_by = by
            current.save(update_fields=["rules", "created_by"])
            version = current
        else:
            number = current.number + 1 if current is not None else 1
            version = tariff.versions.create(number=number, rules=rules, created_by=by)
        for table in tables_in_play(tariff).filter(pk__in=list(move_tables)):
            _move_to_version(table, version, by)
        return version


def tables_in_play(tariff: Tariff) -> Any:
    """The open tables played under any version of ``tariff``."""
    field = "preferans_version" if isinstance(tariff, PreferansTariff) else "boston_version"
    return Table.objects.filter(status=Table.OPEN, **{f"{field}__tariff": tariff})


def _move_to_version(table: Table, version: Any, by: Member | None) -> None:
    before = str(table.version)
    field = "preferans_version" if table.game == Table.PREFERANS else "boston_version"
    setattr(table, field, version)
    selectors.replay(table)  # the new rules must accept every deal played so far
    table.revision = F("revision") + 1
    table.save(update_fields=[field, "revision"])
    AuditEntry.objects.create(
        table=table,
        action=AuditEntry.RETARIFF,
        actor=by,
        before={"tariff": before},
        after={"tariff": str(version)},
    )


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
    kind = "preferans" if isinstance(tariff, PreferansTariff) else "boston"
    return {
        "format": "house-tariff/1",
        "game": kind,
        "name": tariff.name,
        "description": tariff.description,
        "rules": tariff.to_rules().to_dict(),
    }


def tariff_import(data: Any, *, by: Member | None) -> Tariff:
    """Create a tariff (and its first version) from ``tariff_export`` output."""
    if not isinstance(data, dict) or data.get("format") != "house-tariff/1":
        raise RuleError('must be a house tariff ("format": "house-tariff/1")', field="format")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 100 or "\x00" in name:
        raise RuleError("must be a name of 1–100 characters", field="name")
    description = data.get("description", "")
    if not isinstance(description, str) or "\x00" in description:
        raise RuleError("must be text", field="description")
    rules_data = data.get("rules")
    if not isinstance(rules_data, dict):
        raise RuleError("must be an object of settings", field="rules")
    with transaction.atomic():
        if data.get("game") == "preferans":
            rules = preferans.PreferansRules.from_dict(rules_data)
            for rate in ("whist_rate", "remise_rate", "consolation_rate", "whister_penalty_rate"):
                if (getattr(rules, rate) * 100).denominator != 1:
                    raise RuleError("must have at most two decimals", field=f"rules.{rate}")
            tariff: Tariff = PreferansTariff(
                name=name, description=description, **PreferansTariff.fields_from_rules(rules)
            )
            _save_new(tariff)
        elif data.get("game") == "boston":
            boston_rules = boston.BostonRules.from_dict(rules_data)
            tariff = BostonTariff(
                name=name,
                description=description,
                **BostonTariff.fields_from_rules(boston_rules),
            )
            _save_new(tariff)
            payment, card = BostonTariff.rows_from_rules(boston_rules)
            for row in payment:
                tariff.payment_rows.create(**row)  # type: ignore[attr-defined]
            for card_row in card:
                tariff.card_rows.create(**card_row)  # type: ignore[attr-defined]
        else:
            raise RuleError('must be "preferans" or "boston"', field="game")
        tariff_publish(tariff, by=by)
        return tariff


def _save_new(tariff: Tariff) -> None:
    if type(tariff).objects.filter(name=tariff.name).exists():  # type: ignore[attr-defined]
        raise RuleError("a tariff with this name exists already", field="name")
    tariff.full_clean(exclude=["changed_by"])
    tariff.save()


# -- tables -------------------------------------------------------------------------------


def table_open(
    *,
    game: str,
    version: Any,
    members: Sequence[Member],
    by: Member,
    first_dealer: int = 0,
    pool_target: int = 20,
    price: Decimal = Decimal(1),
    control_time: Any = None,
    played_on: Any = None,
) -> Table:
    """Open a table with ``members`` seated in clockwise order."""
    if len({m.pk for m in members}) != len(members):
        raise RuleError("each member can take one seat only", field="players")
    names = seat_names_for(members)
    with transaction.atomic():
        table = Table(
            game=game,
            preferans_version=version if game == Table.PREFERANS else None,
            boston_version=version if game == Table.BOSTON else None,
            first_dealer=first_dealer,
            pool_target=pool_target,
            price=price,
            control_time=control_time,
            opened_by=by,
        )
        if played_on is not None:
            table.played_on = played_on
        table.setup(names)  # the engine checks the player count, dealer, target
        table.save()
        Seat.objects.bulk_create(
            Seat(table=table, position=i, member=m, name=name)
            for i, (m, name) in enumerate(zip(members, names, strict=True))
        )
        return table


def seat_names_for(members: Sequence[Member]) -> tuple[str, ...]:
    """The names the sheet shows: display names, made unique with the username."""
    names = [m.name for m in members]
    return tuple(
        f"{name} ({m.username})" if names.count(name) > 1 else name
        for name, m in zip(names, members, strict=True)
    )


def _locked(table: Table) -> Table:
    """The table row, locked until the transaction ends (one writer at a time)."""
    return Table.objects.select_for_update().get(pk=table.pk)


def _require_open(table: Table) -> None:
    if not table.is_open:
        raise RuleError("the table is finished; an organiser can reopen it", field="table")


def _canonical(table: Table, players: tuple[str, ...], data: Any, n: int) -> dict[str, Any]:
    """A deal in the game record's own form, checked for shape (RuleError otherwise)."""
    deal = selectors.parse_deal(table, players, data, n)
    if table.game == Table.PREFERANS:
        return preferans.record.deal_record(deal, players)
    return boston.record.deal_record(deal, players)


def _touch(table: Table) -> None:
    Table.objects.filter(pk=table.pk).update(revision=F("revision") + 1)


def deal_create(
    table: Table,
    data: Any,
    *,
    by: Member | None,
    expected_count: int | None = None,
    state: selectors.TableState | None = None,
) -> DealRecord:
    """Add the next deal. ``expected_count`` is how many deals the form was drawn for: if
    someone saved a deal meanwhile, the deal is refused rather than stored twice.

    ``state`` is the caller's replay of the table: if the table has not changed since
    (same revision, checked under the row lock), it is advanced by the new deal in place
    rather than replayed again, and the caller can draw the new sheet from it.
    """
    with transaction.atomic():
        locked = _locked(table)
        _require_open(locked)
        if state is None or state.table.revision != locked.revision:
            state = selectors.current(locked, latest=0)
        table = locked
        if expected_count is not None and expected_count != state.count:
            raise RuleError(
                "another deal was saved meanwhile; the sheet now shows it — check and "
                "enter this deal again if it is still missing",
                field="deal",
            )
        n = state.count + 1
        canonical = _canonical(table, state.players, data, n)
        state.game.play(selectors.parse_deal(table, state.players, canonical, n))
        last = table.deal_records.aggregate(last=Max("sequence"))["last"] or 0
        record = DealRecord.objects.create(
            table=table, sequence=last + 1, data=canonical, created_by=by
        )
        AuditEntry.objects.create(
            table=table, deal=record, action=AuditEntry.ADD, actor=by, after=canonical
        )
        _touch(table)
        state.records.append(record)
        state.deal_ids.append(record.pk)
        state.table.revision = table.revision + 1
        transaction.on_commit(partial(selectors.remember, state))
        return record


def deal_preview(table: Table, data: Any) -> Any:
    """What a deal would write if saved now (the engine's deal result), saving nothing."""
    state = selectors.current(table, latest=0)
    n = state.count + 1
    return state.game.play(selectors.parse_deal(table, state.players, data, n))


def deal_edit(record: DealRecord, data: Any, *, by: Member | None, reason: str) -> DealRecord:
    """Replace a deal; every later deal must still be legal after the change."""
    _require_reason(reason)
    with transaction.atomic():
        table = _locked(record.table)
        _require_open(table)
        records = selectors.live_deals(table)
        position = _position(records, record)
        players = selectors.seat_names(table)
        canonical = _canonical(table, players, data, position + 1)
        before = record.data
        record.data = canonical
        records[position] = record
        selectors.replay(table, records)
        record.save(update_fields=["data"])
        AuditEntry.objects.create(
            table=table,
            deal=record,
            action=AuditEntry.EDIT,
            actor=by,
            reason=reason,
            before=before,
            after=canonical,
        )
        _touch(table)
        return record


def deal_delete(
    record: DealRecord, *, by: Member | None, reason: str, action: str = AuditEntry.DELETE
) -> None:
    """Strike a deal from the log (it stays in the history); later deals must still be
    legal without it."""
    _require_reason(reason)
    with transaction.atomic():
        table = _locked(record.table)
        _require_open(table)
        records = selectors.live_deals(table)
        position = _position(records, record)
        selectors.replay(table, records[:position] + records[position + 1 :])
        DealRecord.objects.filter(pk=record.pk).update(deleted=True)
        AuditEntry.objects.create(
            table=table,
            deal=record,
            action=action,
            actor=by,
            reason=reason,
            before=record.data,
        )
        _touch(table)


def deal_undo(table: Table, *, by: Member | None) -> DealRecord:
    """Strike the last deal (the scorer's undo)."""
    records = selectors.live_deals(table)
    if not records:
        raise RuleError("there is no deal to undo", field="deal")
    deal_delete(records[-1], by=by, reason="undo", action=AuditEntry.UNDO)
    return records[-1]


def _position(records: list[DealRecord], record: DealRecord) -> int:
    for i, live in enumerate(records):
        if live.pk == record.pk:
            return i
    raise RuleError("this deal was deleted already", field="deal")


def _require_reason(reason: str) -> None:
    if not reason or not reason.strip():
        raise RuleError("say why (the history keeps it)", field="reason")


def table_finish(table: Table, *, by: Member | None, reason: str = "") -> Table:
    """Finish a table: lock it and store its final result (for standings)."""
    with transaction.atomic():
        table = _locked(table)
        _require_open(table)
        state = selectors.replay(table)
        table.status = Table.FINISHED
        table.result = state.document()
        table.finished_at = timezone.now()
        table.revision += 1
        table.save(update_fields=["status", "result", "finished_at", "revision"])
        _store_seat_results(table, state)
        AuditEntry.objects.create(table=table, action=AuditEntry.CLOSE, actor=by, reason=reason)
        ratings_after_finish(table)
        return table


def table_reopen(table: Table, *, by: Member | None, reason: str) -> Table:
    """Reopen a finished table for corrections (organisers only; the view checks)."""
    _require_reason(reason)
    with transaction.atomic():
        table = _locked(table)
        if table.is_open:
            raise RuleError("the table is in play already", field="table")
        table.status = Table.OPEN
        table.result = None
        table.finished_at = None
        table.revision += 1
        table.save(update_fields=["status", "result", "finished_at", "revision"])
        table.seats.update(result=None, money=None, place=None, won=False, stats={})
        AuditEntry.objects.create(table=table, action=AuditEntry.REOPEN, actor=by, reason=reason)
        ratings_rebuild(table.game)  # the table no longer counts until it finishes again
        return table


def table_export(table: Table) -> dict[str, Any]:
    """The table as a game record (game-format.md)."""
    state = selectors.replay(table)
    setup = table.setup(state.players)
    deals = [
        selectors.parse_deal(table, state.players, r.data, n)
        for n, r in enumerate(state.records, start=1)
    ]
    if table.game == Table.PREFERANS:
        record = preferans.record.to_record(setup, deals)  # type: ignore[arg-type]
    else:
        record = boston.record.to_record(setup, deals)  # type: ignore[arg-type]
    return record


def table_import(
    data: Any, *, version: Any, members: Sequence[Member], by: Member, played_on: Any = None
) -> Table:
    """A game record brought in as a new finished table, seated by ``members`` in the
    record's order; its rules are the record's, checked against ``version``."""
    record = check_head(data)
    game = record["game"]
    module = preferans.record if game == "preferans" else boston.record
    setup, deals = module.parse_record(record)  # type: ignore[attr-defined]
    if setup.rules != version.to_rules():
        raise RuleError("the record's rules differ from the chosen tariff version", field="rules")
    if len(members) != len(setup.players):
        raise RuleError(f"choose {len(setup.players)} members", field="players")
    with transaction.atomic():
        options: dict[str, Any] = (
            {"price": setup.whist_price} if game == "preferans" else {"price": setup.chip_price}
        )
        if game == "preferans":
            options |= {"first_dealer": setup.first_dealer, "pool_target": setup.pool_target}
        table = table_open(
            game=game, version=version, members=members, by=by, played_on=played_on, **options
        )
        names = selectors.seat_names(table)
        if game == "boston" and setup.double_tour_from is not None:
            table.double_tour_from = setup.double_tour_from
            table.save(update_fields=["double_tour_from"])
        for sequence, deal in enumerate(deals, start=1):
            DealRecord.objects.create(
                table=table,
                sequence=sequence,
                created_by=by,
                data=module.deal_record(deal, names),  # type: ignore[attr-defined]
            )
        AuditEntry.objects.create(
            table=table, action=AuditEntry.IMPORT, actor=by, after={"deals": len(deals)}
        )
        return table_finish(table, by=by, reason="imported")


def _store_seat_results(table: Table, state: selectors.TableState) -> None:
    """Each seat's final balance, money, place and statistics, for standings."""
    result = state.result
    deals = [
        selectors.parse_deal(table, state.players, r.data, n)
        for n, r in enumerate(state.records, start=1)
    ]
    if table.game == Table.PREFERANS:
        balances = [_cents(b) for b in result.balances]
        stats = preferans_stats(state.game.setup, deals, result.deals)  # type: ignore[union-attr]
    else:
        balances = [Decimal(c) for c in result.chips]
        stats = boston_stats(deals, result.deals)
    places = table_places(balances)
    seats = sorted(table.seats.all(), key=lambda seat: seat.position)
    for seat, balance, money, place, seat_stats in zip(
        seats, balances, result.money, places, stats, strict=True
    ):
        seat.result, seat.money, seat.place = balance, money, place
        seat.won, seat.stats = place == 1, seat_stats
    Seat.objects.bulk_update(seats, ["result", "money", "place", "won", "stats"])


def _cents(value: Any) -> Decimal:
    return Decimal(two_decimals(value))


# -- ratings ------------------------------------------------------------------------------

RATING_MODEL = PlackettLuce()


def ratings_after_finish(table: Table) -> None:
    """Rate a newly finished table; if it is not the latest finished table of its game
    (an imported past game, a re-finished one), rebuild that game's ratings instead, so
    the ratings are always those of the tables in date order."""
    later = Table.objects.filter(game=table.game, status=Table.FINISHED).filter(
        Q(played_on__gt=table.played_on) | Q(played_on=table.played_on, pk__gt=table.pk)
    )
    if later.exists() or RatingHistory.objects.filter(table=table).exists():
        ratings_rebuild(table.game)
        return
    ratings = {r.member_id: r for r in Rating.objects.filter(game=table.game)}
    history = _rate(table, ratings)
    for entry in history:
        ratings[entry.member_id].save()
    RatingHistory.objects.bulk_create(history)


def ratings_rebuild(game: str) -> None:
    """Recompute a game's ratings from scratch over its finished tables in date order."""
    with transaction.atomic():
        Rating.objects.filter(game=game).delete()
        RatingHistory.objects.filter(game=game).delete()
        ratings: dict[int, Rating] = {}
        history: list[RatingHistory] = []
        tables = (
            Table.objects.filter(game=game, status=Table.FINISHED)
            .order_by("played_on", "pk")
            .prefetch_related("seats")
        )
        for table in tables.iterator(chunk_size=500):
            history += _rate(table, ratings)
        Rating.objects.bulk_create(ratings.values())
        RatingHistory.objects.bulk_create(history, batch_size=1000)


def _rate(table: Table, ratings: dict[int, Rating]) -> list[RatingHistory]:
    """Move the seated members' ratings (in ``ratings``, in memory) by the table's final
    places; returns the history rows to store."""
    seats = sorted(table.seats.all(), key=lambda seat: seat.position)
    if any(seat.place is None for seat in seats):
        return []
    current = []
    for seat in seats:
        rating = ratings.get(seat.member_id)
        if rating is None:
            fresh = RATING_MODEL.rating()
            rating = Rating(
                member_id=seat.member_id,
                game=table.game,
                mu=fresh.mu,
                sigma=fresh.sigma,
                ordinal=fresh.ordinal(),
            )
            ratings[seat.member_id] = rating
        current.append([RATING_MODEL.create_rating([rating.mu, rating.sigma])])
    rated = RATING_MODEL.rate(current, ranks=[seat.place for seat in seats])
    history = []
    for seat, (new,) in zip(seats, rated, strict=True):
        rating = ratings[seat.member_id]
        rating.mu, rating.sigma, rating.ordinal = new.mu, new.sigma, new.ordinal()
        rating.tables += 1
        history.append(
            RatingHistory(
                member_id=seat.member_id,
                game=table.game,
                table=table,
                played_on=table.played_on,
                mu=new.mu,
                sigma=new.sigma,
                ordinal=rating.ordinal,
            )
        )
    return history
