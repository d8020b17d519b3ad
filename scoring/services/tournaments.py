"""Tournament writes, each in one transaction: a preset copied into a draft, the field
(entries, check-in), the start (the tariff version frozen, the field prechecked), each
tour seated and its tables opened, each tour closed (the tables' results into tour
points), and the judges' penalties (added, reversed).

The rules are the engine's (``scoring/engine/tournament/``): the seating (``seat_tour``,
``schedule``, ``precheck``), the points (``score_table``), the standings and the cut
(``rank``, ``cut``). Bad input raises ``RuleError`` (a message for the member) and
changes nothing.

A write the tournament's pages show (a tour seated or closed, a penalty given or
reversed) is announced on the tournament's channel once it commits (``live.push``), so
its page and big screen redraw at once rather than at their next poll.
"""

from __future__ import annotations

import datetime
import secrets
from decimal import ROUND_HALF_UP, Decimal
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from members.models import Member
from scoring import selectors as table_selectors
from scoring.engine.errors import RuleError
from scoring.engine.tournament.formats import PRESETS, Format
from scoring.engine.tournament.points import bye_score, score_table, timeout_scores
from scoring.engine.tournament.seating import Seating, precheck, schedule, seat_tour
from scoring.engine.tournament.standings import cut
from scoring.live import push
from scoring.models import Entry, Guest, Penalty, Table, Tour, Tournament, TourSeat, TourTable
from scoring.models.tournaments import entry_key, format_columns, text_to_json, tournament_format
from scoring.selectors import tournaments as selectors
from scoring.selectors.tariffs import house_tariffs
from scoring.services import locking
from scoring.services.confirmations import tour_waiting
from scoring.services.guest_names import guest_name_check
from scoring.services.notifications import after_tour_close
from scoring.services.tables import Player, table_open

MAX_SEED = 999_999
"""Seeds are drawn below a million, as the evening's draw: short enough to read out."""


def _locked(tournament: Tournament) -> Tournament:
    return locking.lock_row(tournament)


def _announce(pk: int) -> None:
    """Announce the tournament's change once the caller's transaction commits; a push that
    fails is logged (``robust``), never the write's failure."""
    transaction.on_commit(partial(push.tournament_changed, pk), robust=True)


def _require_draft(tournament: Tournament) -> None:
    if not tournament.is_draft:
        raise RuleError(
            _("the tournament has started: its format and tariff stay as they were"),
            field="status",
        )


def tournament_preset(*, tournament: Tournament, preset: str) -> Tournament:
    """Copy ``preset``'s format (the engine's ``PRESETS``) into a draft's columns; the
    organiser edits them after. ``custom`` keeps the columns as they are."""
    _require_draft(tournament)
    if preset != "custom":
        if preset not in PRESETS:
            raise RuleError(_("no such format"), field="preset")
        for name, value in format_columns(PRESETS[preset]).items():
            setattr(tournament, name, value)
    tournament.preset = preset
    return tournament


def tournament_check(tournament: Tournament) -> Format:
    """The tournament's format as the engine reads it (``RuleError`` in words when its
    columns cannot work together)."""
    return tournament_format(tournament)


def entry_add(
    *, tournament: Tournament, member: Member | None = None, guest_name: str = ""
) -> Entry:
    """Enter a member, or a guest by name (a new guest, as at an evening). Twice is
    refused; a field is closed once the first tour is seated."""
    with transaction.atomic():
        locked = _locked(tournament)
        if locked.tour_set.exists():
            raise RuleError(_("the first tour is seated: the field is closed"), field="member")
        if member is not None:
            if not member.is_active:
                raise RuleError(_("this member is not active"), field="member")
            try:
                with transaction.atomic():
                    entry = Entry.objects.create(tournament=locked, member=member)
            except IntegrityError:
                raise RuleError(_("this player is entered already"), field="member") from None
            _announce(locked.pk)
            return entry
        name = guest_name_check(name=" ".join(guest_name.split()), field="guest_name")
        if locked.entries.filter(guest__name__iexact=name).exists():
            raise RuleError(
                _("a guest called %(name)s is entered already: add a surname or an initial")
                % {"name": name},
                field="guest_name",
            )
        entry = Entry.objects.create(tournament=locked, guest=Guest.objects.create(name=name))
        _announce(locked.pk)
        return entry


def entry_check_in(*, entry: Entry, checked_in: bool = True) -> Entry:
    """Mark an entry as here on the day (or not: a wrong tap), until tour 1 is seated."""
    with transaction.atomic():
        _locked(entry.tournament)
        if entry.tournament.tour_set.exists():
            raise RuleError(_("the first tour is seated: the field is closed"), field="entry")
        entry.checked_in = checked_in
        entry.save(update_fields=["checked_in"])
        _announce(entry.tournament_id)
        return entry


def entry_withdraw(*, entry: Entry) -> Entry:
    """A player leaves the tournament: he keeps his tours, and is seated no more."""
    entry.status = Entry.WITHDRAWN
    entry.save(update_fields=["status"])
    _announce(entry.tournament_id)
    return entry


def _version(tournament: Tournament) -> Any:
    """The version the tournament plays: its tariff's current one, or the club's tariff
    for the game (as an evening's)."""
    tariff = tournament.tariff
    if tariff is None:
        tariffs = house_tariffs(tournament.played_on)
        tariff = (
            tariffs.preferans
            if tournament.game == Table.PREFERANS
            else next(iter(tariffs.boston), None)
        )
    version = tariff.current_version if tariff is not None else None
    if version is None:
        raise RuleError(_("the club has no published tariff for this game"), field="tariff")
    return version


def _field(tournament: Tournament) -> list[Entry]:
    """Who plays the next tour: checked in and neither withdrawn nor disqualified."""
    return [e for e in selectors.entries(tournament) if e.checked_in and e.status == Entry.PLAYING]


def tournament_start(*, tournament: Tournament, seed: int | None = None) -> Tournament:
    """Start a draft: its format checked, the field checked (``precheck``, in words), the
    tariff's current version frozen for every table of the event, the seed drawn."""
    if seed is None:
        seed = secrets.randbelow(MAX_SEED + 1)
    if not 0 <= seed <= MAX_SEED:
        raise RuleError(
            _("the seed is a number from 0 to %(max)s") % {"max": MAX_SEED}, field="seed"
        )
    with transaction.atomic():
        locked = _locked(tournament)
        _require_draft(locked)
        fmt = tournament_format(locked)
        precheck(
            len(_field(locked)),
            game=locked.game,
            prefer=locked.table_size,
            tours=locked.tours,
            mode=fmt.seating_for(1),
        )
        version = _version(locked)
        if locked.game == Table.PREFERANS:
            locked.preferans_version = version
        else:
            locked.boston_version = version
        locked.seed = seed if locked.seed is None else locked.seed
        locked.status = Tournament.RUNNING
        locked.started_at = timezone.now()
        locked.save()
        _announce(locked.pk)
        return locked


def _tour_seed(tournament: Tournament, number: int) -> int:
    """Each tour's seed, from the tournament's: the same seed draws the same tours."""
    return (tournament.seed or 0) * 100 + number


def _seating(tournament: Tournament, fmt: Format, number: int, played: list[Tour]) -> Seating:
    """Tour ``number``'s seating by the format's mode for it, from the standings after
    the tours played and the pairs that have met."""
    field = _field(tournament)
    standings = selectors.standings(tournament, played=played)
    order = [line.player for line in standings.lines if not line.disqualified]
    out = {line.player for line in standings.lines if line.disqualified}
    keys = [e.key for e in field if e.key not in out]
    if fmt.cut is not None and number > fmt.cut.after:
        kept = _finalists(standings, fmt.cut.keep, played, fmt.cut.after)
        keys = [k for k in order if k in kept and k in set(keys)]
    mode = fmt.seating_for(number)
    seed = _tour_seed(tournament, number)
    if mode == Tournament.SCHEDULE:
        first = [s.entry.key for s in played[0].seats.all()] if played else keys
        published = schedule(
            sorted(first),
            fmt.tours,
            seed=tournament.seed or 0,
            prefer=fmt.table_size,
            game=tournament.game,
        )
        return seat_tour(
            keys,
            mode=mode,
            seed=seed,
            tour=number,
            schedule=published,
            prefer=fmt.table_size,
            game=tournament.game,
        )
    return seat_tour(
        keys,
        mode=mode,
        seed=seed,
        tour=number,
        ranking=order,
        met=selectors.met(played),
        prefer=fmt.table_size,
        game=tournament.game,
        interval=fmt.interval,
        bye_counts=selectors.byes(played),
    )


def _finalists(
    standings: selectors.Standings, keep: int, played: list[Tour], after: int
) -> set[str]:
    """Who plays the final: the cut of the standings after tour ``after`` (the judges'
    decision in force settling a tie at its line), or, once the final's first tour is
    seated, the players it seated (the final's own tours do not cut again)."""
    if len(played) > after:
        return {seat.entry.key for seat in played[after].seats.all()}
    decided = [entry_key(p.entry_id) for p in standings.decision] or None
    return set(cut(standings.at_cut or standings.lines, keep, decided=decided))


def tour_seat(*, tournament: Tournament, by: Member) -> Tour:
    """Seat the next tour (the engine's ``seat_tour``) and open its tables, each an
    ordinary table under the frozen tariff version. The tour before must be closed."""
    with transaction.atomic():
        locked = _locked(tournament)
        if not locked.is_running:
            raise RuleError(_("the tournament is not running"), field="status")
        played = selectors.tours(locked)
        if any(not t.is_closed for t in played):
            raise RuleError(_("close the tour in play first"), field="tour")
        number = len(played) + 1
        fmt = tournament_format(locked)
        if number > fmt.tours:
            raise RuleError(_("every tour has been played"), field="tour")
        seating = _seating(locked, fmt, number, played)
        length = fmt.length_for(number)
        tour = Tour.objects.create(
            tournament=locked,
            number=number,
            seed=seating.seed,
            is_final=fmt.cut is not None and number > fmt.cut.after,
            length=length.kind,
            pool_target=length.pool,
            deals=length.deals,
            minutes=length.minutes,
        )
        entries = {e.key: e for e in selectors.entries(locked)}
        control = _control_time(length.minutes)
        for number_at, keys in enumerate(seating.tables, start=1):
            players: list[Player] = [entries[k].player for k in keys]
            table = table_open(
                game=locked.game,
                version=locked.version,
                members=players,
                by=by,
                pool_target=length.pool or locked.pool_target,
                control_time=control,
                deal_cap=length.deals,
            )
            link = TourTable.objects.create(tour=tour, number=number_at, table=table)
            TourSeat.objects.bulk_create(
                TourSeat(tour=tour, table=link, entry=entries[k], position=i)
                for i, k in enumerate(keys)
            )
        TourSeat.objects.bulk_create(TourSeat(tour=tour, entry=entries[k]) for k in seating.byes)
        _announce(locked.pk)
        return tour


def _control_time(minutes: int | None) -> datetime.time | None:
    """A tour played to time: the control time is ``minutes`` from now, on the club's
    clock (the table's last round begins then: preferans.md §13.12)."""
    if minutes is None:
        return None
    moment = timezone.localtime() + datetime.timedelta(minutes=minutes)
    return moment.time().replace(second=0, microsecond=0)


def tour_close(*, tour: Tour) -> Tour:
    """Close a tour whose tables have all finished: each player's result at his table (his
    balance in whists, as the engine settled the table) and place, through the format's
    points rule (``score_table``), stored with the engine's explanation; a bye scores the
    format's bye points, and where the format says so (Gambler) a table of a tour played
    to time whose pulka the time stopped scores 0 (``timeout_scores``). Closing the last
    tour finishes the tournament."""
    with transaction.atomic():
        tournament = _locked(tour.tournament)
        tour = Tour.objects.select_for_update().get(pk=tour.pk)
        if tour.is_closed:
            raise RuleError(_("this tour is closed already"), field="tour")
        fmt = tournament_format(tournament)
        links = list(tour.tables.select_related("table").prefetch_related("table__seats"))
        in_play = [link.number for link in links if link.table.is_open]
        if in_play:
            raise RuleError(
                _("tables still in play: %(tables)s") % {"tables": ", ".join(map(str, in_play))},
                field="tour",
            )
        waiting = tour_waiting(links, tournament, closed=False)
        if waiting:
            raise RuleError(waiting, field="tour")
        changed = tour_scores(tour, fmt, links)
        TourSeat.objects.bulk_update(changed, ["result", "place", "points", "calc"])
        tour.closed_at = timezone.now()
        tour.status = Tour.LOCKED
        tour.save(update_fields=["closed_at", "status"])
        if tour.number >= fmt.tours:
            tournament.status = Tournament.FINISHED
            tournament.finished_at = tour.closed_at
            tournament.save(update_fields=["status", "finished_at"])
        _announce(tournament.pk)
        after_tour_close(tour)  # the club's chat: the tour's results, once this commits
        return tour


def tour_scores(tour: Tour, fmt: Format, links: list[TourTable] | None = None) -> list[TourSeat]:
    """The tour's seats with each player's result, place, points and their explanation
    filled in (not saved) from its tables' stored results through ``fmt``'s points rule: what
    ``tour_close`` stores, and what a restored backup's closed tours are checked against."""
    if links is None:
        links = list(tour.tables.select_related("table").prefetch_related("table__seats"))
    seats = {(s.table_id, s.position): s for s in tour.seats.select_related("entry")}
    changed = []
    for link in links:
        at_table = {
            seats[(link.pk, seat.position)].entry.key: (seats[(link.pk, seat.position)], seat)
            for seat in link.table.seats.all()
        }
        results = {key: Decimal(seat.result or 0) for key, (_ts, seat) in at_table.items()}
        # A seat whose player left it to a substitute (``SeatChange``) stays its entry's:
        # its result is what the leaver settled plus what the substitute made, so the table
        # still sums to zero (docs/tournaments.md, "A substitute mid-pulka").
        for change in link.table.seat_changes.all() if link.table.has_seat_changes else ():
            results[seats[(link.pk, change.position)].entry.key] += change.result
        scored = (
            timeout_scores(results)
            if fmt.timeout_scores_zero and _stopped_by_time(link.table)
            else score_table(results, fmt.points)
        )
        for key, score in scored.items():
            tour_seat_row = at_table[key][0]
            tour_seat_row.result, tour_seat_row.place = score.result, score.place
            tour_seat_row.points = _hundredths(score.points)
            tour_seat_row.calc = text_to_json(score.explanation)
            changed.append(tour_seat_row)
    for row in tour.seats.filter(table__isnull=True).select_related("entry"):
        score = bye_score(row.entry.key, fmt.bye_points)
        row.result, row.place = score.result, score.place
        row.points = _hundredths(score.points)
        row.calc = text_to_json(score.explanation)
        changed.append(row)
    return changed


def _stopped_by_time(table: Table) -> bool:
    """Whether a finished table of a tour played to time stopped before its pulka was
    complete (its control time came first): Gambler scores such a table 0."""
    if table.control_time is None:
        return False
    game = table_selectors.replay(table).game
    return not getattr(game, "complete", True)


def _hundredths(points: Decimal) -> Decimal:
    """Tour points as they are kept and shown: to the hundredth, halves up (58.335 →
    58.34), like the tables' balances."""
    return points.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def table_extra_time(*, link: TourTable, minutes: int) -> TourTable:
    """A judge gives one table of a tour played to time extra minutes: its control time
    moves on by them."""
    if not 1 <= minutes <= 120:
        raise RuleError(_("extra time is 1 to 120 minutes"), field="minutes")
    with transaction.atomic():
        table = locking.lock_row(link.table)
        if not table.is_open or table.control_time is None:
            raise RuleError(_("this table is not played to time"), field="minutes")
        moment = datetime.datetime.combine(table.played_on, table.control_time)
        table.control_time = (moment + datetime.timedelta(minutes=minutes)).time()
        table.save(update_fields=["control_time"])
        link.extra_minutes += minutes
        link.save(update_fields=["extra_minutes"])
        return link


def penalty_add(
    *,
    tournament: Tournament,
    entry: Entry,
    category: str,
    reason: str,
    by: Member,
    points: Decimal = Decimal(0),
    tour: Tour | None = None,
) -> Penalty:
    """A judge's penalty with its category and reason, shown to all. Points off are for
    the ``points`` category only; a disqualification takes the player out of the next
    tours."""
    reason = " ".join(reason.split())
    if not reason:
        raise RuleError(_("say why: the reason is shown with the penalty"), field="reason")
    if category not in dict(Penalty.GIVEN):
        raise RuleError(_("choose a category"), field="category")
    if points < 0 or (points and category != Penalty.POINTS):
        raise RuleError(_("points are taken off only with a penalty in points"), field="points")
    if category == Penalty.POINTS and not points:
        raise RuleError(_("how many points are taken off?"), field="points")
    if entry.tournament_id != tournament.pk:
        raise RuleError(_("this player is not in the tournament"), field="entry")
    with transaction.atomic():
        _locked(tournament)
        penalty = Penalty.objects.create(
            tournament=tournament,
            entry=entry,
            tour=tour,
            category=category,
            reason=reason,
            points=points,
            by=by,
        )
        if category == Penalty.DISQUALIFICATION:
            Entry.objects.filter(pk=entry.pk).update(status=Entry.DISQUALIFIED)
        _announce(tournament.pk)
        return penalty


def penalty_reverse(*, penalty: Penalty, by: Member, reason: str) -> Penalty:
    """A judge reverses a penalty (it stays listed, struck through, with who and why); a
    reversed disqualification lets the player back in."""
    reason = " ".join(reason.split())
    if not reason:
        raise RuleError(_("say why the penalty is reversed"), field="reason")
    if penalty.category == Penalty.CUT:  # one player's row of the judges' decision
        cut_decision_reverse(tournament=penalty.tournament, by=by, reason=reason)
        penalty.refresh_from_db()
        return penalty
    with transaction.atomic():
        _locked(penalty.tournament)
        penalty = Penalty.objects.select_for_update().get(pk=penalty.pk)
        if not penalty.in_force:
            raise RuleError(_("this penalty is reversed already"), field="penalty")
        penalty.reversed_by, penalty.reversed_at = by, timezone.now()
        penalty.reversal_reason = reason
        penalty.save(update_fields=["reversed_by", "reversed_at", "reversal_reason"])
        if penalty.category == Penalty.DISQUALIFICATION:
            Entry.objects.filter(pk=penalty.entry_id, status=Entry.DISQUALIFIED).update(
                status=Entry.PLAYING
            )
        _announce(penalty.tournament_id)
        return penalty


def _cut_open(tournament: Tournament) -> tuple[Format, list[Tour]]:
    """The format and the tours of a tournament whose cut's tour is closed and whose
    next tour is not seated yet: the only time the judges decide a tie at the cut (or
    reverse that decision); ``RuleError`` in words at any other time."""
    if not tournament.is_running:
        raise RuleError(_("the tournament is not running"), field="status")
    fmt = tournament_format(tournament)
    if fmt.cut is None:
        raise RuleError(_("this tournament has no cut"), field="cut")
    played = selectors.tours(tournament)
    if len(played) > fmt.cut.after:
        raise RuleError(
            _("the tour after the cut is seated: the judges' decision stands"), field="cut"
        )
    if len(played) < fmt.cut.after or not played[-1].is_closed:
        raise RuleError(
            _("the judges decide at the cut once tour %(n)s is closed") % {"n": fmt.cut.after},
            field="cut",
        )
    return fmt, played


def cut_decide(
    *, tournament: Tournament, chosen: list[Entry], reason: str, by: Member
) -> list[Penalty]:
    """The judges decide a tie at the cut (players equal on every tie-break straddling
    its line): ``chosen``, exactly as many of the tied as there are places for them, go
    on. Kept in the tournament's history of the judges' decisions as a ``Penalty.CUT``
    row for each chosen player (no points, no card) with who, when and why; the
    standings after the cut's tour say «the judges' decision: reason» for the tied, and
    seating the next tour keeps the chosen. Only between closing the cut's tour and
    seating the next; refused in words, changing nothing."""
    reason = " ".join(reason.split())[:500]
    if not reason:
        raise RuleError(_("say why: the reason is kept with the decision"), field="reason")
    with transaction.atomic():
        locked = _locked(tournament)
        fmt, played = _cut_open(locked)
        assert fmt.cut is not None  # noqa: S101 - _cut_open refuses a format without one
        at_cut = selectors.standings(locked, played=played)
        if at_cut.decision:
            raise RuleError(
                _("the judges have decided already: reverse that decision first"), field="cut"
            )
        if at_cut.tie is None:
            raise RuleError(_("nobody is tied at the cut: there is nothing to decide"), field="cut")
        if any(entry.tournament_id != locked.pk for entry in chosen):
            raise RuleError(_("this player is not in the tournament"), field="entry")
        cut(at_cut.lines, fmt.cut.keep, decided=[entry.key for entry in chosen])
        rows = Penalty.objects.bulk_create(
            Penalty(
                tournament=locked,
                entry=entry,
                tour=played[-1],
                category=Penalty.CUT,
                reason=reason,
                by=by,
            )
            for entry in dict.fromkeys(chosen)
        )
        _announce(locked.pk)
        return rows


def cut_decision_reverse(*, tournament: Tournament, by: Member, reason: str) -> int:
    """A judge reverses the judges' decision at the cut, with a reason: every row of it
    stays listed, struck through, with who and why, and the tie is open again. Only while
    the next tour is not seated. Returns how many rows were reversed."""
    reason = " ".join(reason.split())[:500]
    if not reason:
        raise RuleError(_("say why the decision is reversed"), field="reason")
    with transaction.atomic():
        locked = _locked(tournament)
        _cut_open(locked)
        rows = Penalty.objects.filter(
            tournament=locked, category=Penalty.CUT, reversed_at__isnull=True
        )
        reversed_ = rows.update(reversed_by=by, reversed_at=timezone.now(), reversal_reason=reason)
        if not reversed_:
            raise RuleError(_("there is no decision of the judges at the cut"), field="cut")
        _announce(locked.pk)
        return reversed_
