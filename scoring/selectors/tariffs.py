"""Tariff reads: which published version plays by given rules, and which tariffs the club
plays by now."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet, prefetch_related_objects

from scoring import games
from scoring.engine.boston.rules import SYSTEMS
from scoring.games import Game, Rules
from scoring.models import BostonTariff, PreferansTariff, Season


def version_with_rules(game: Game, rules: Rules) -> Any:
    """The newest published version of ``game`` whose rules are ``rules`` (``None`` if
    none is), e.g. for an imported game record.

    Versions are compared as the engine reads them (``TariffVersion.has_rules``): one
    published before a setting existed still matches rules that give that setting its
    default.
    """
    versions = game.versions().select_related("tariff").order_by("-created_at", "-pk")
    return next((version for version in versions if version.has_rules(rules)), None)


@dataclass(frozen=True)
class HouseTariffs:
    """The tariffs the club plays by now, whose numbers the rules page quotes."""

    preferans: PreferansTariff | None
    boston: tuple[BostonTariff, ...]
    """One per Boston scoring system the club has a tariff of, in ``SYSTEMS`` order (the
    payment tariff, then the value card), with their rows prefetched."""


def house_tariffs(day: datetime.date) -> HouseTariffs:
    """The club's tariffs on ``day``: for Preferans, and for each Boston system (the rules
    page explains both), the first there is of

    1. the default tariff of the season that holds ``day`` (for a Boston system, if it
       scores by that system): what the organisers chose;
    2. the tariff the club has opened the most tables under: what it plays;
    3. the tariff a game record without rules is scored under: the one with a version
       that plays by the game's default preset (Sochi; the system's own Boston preset),
       for a club that has played nothing yet;
    4. the tariff an organiser changed last (of that system), for a club that edited
       its preset before playing it.

    Ties go to the first name. Each is the tariff as it stands now (its current
    settings), as on its own page.
    """
    season = (
        Season.objects.select_related("preferans_tariff", "boston_tariff")
        .filter(starts_on__lte=day, ends_on__gte=day)
        .first()
    )
    preferans = _house_tariff(
        games.PREFERANS,
        season.preferans_tariff if season else None,
        games.PREFERANS.parse_rules(games.PREFERANS.default_rules),
        PreferansTariff.objects.all(),
        fits=lambda tariff: True,
    )
    boston = [
        _house_tariff(
            games.BOSTON,
            season.boston_tariff if season else None,
            games.BOSTON.parse_rules(system),
            BostonTariff.objects.filter(system=system),
            fits=_of_system(system),
        )
        for system in SYSTEMS
    ]
    found = [tariff for tariff in boston if tariff is not None]
    prefetch_related_objects(found, "payment_rows", "card_rows")
    return HouseTariffs(preferans=preferans, boston=tuple(found))


def _of_system(system: str) -> Callable[[Any], bool]:
    return lambda tariff: bool(tariff.system == system)


def _house_tariff(
    game: Game,
    chosen: Any,
    preset: Rules,
    candidates: QuerySet[Any],
    fits: Callable[[Any], bool],
) -> Any:
    if chosen is not None and fits(chosen):
        return chosen
    played = (
        candidates.annotate(played=Count("versions__tables"))
        .filter(played__gt=0)
        .order_by("-played", "name")
        .first()
    )
    if played is not None:
        return played
    version = version_with_rules(game, preset)
    if version is not None and fits(version.tariff):
        return version.tariff
    return candidates.order_by("-changed_at", "name").first()


RECENT_TABLES_DAYS = 90
"""How far back "the tariff the club plays by now" looks at the tables opened."""


def opening_tariff(game: Game, day: datetime.date) -> Any:
    """The tariff a new table of ``game`` starts on, pre-selected on the open form: the
    first there is of

    1. the default tariff of the season that holds ``day``: what the organisers chose;
    2. the tariff most tables of the last ``RECENT_TABLES_DAYS`` days were opened under:
       what the club plays now;
    3. the tariff the rules page calls the club's (``house_tariffs``' steps 2–4: the most
       played ever, the game's default preset, the last changed), for a club that has not
       played lately.

    Ties go to the first name; ``None`` only when the game has no tariff at all."""
    season = (
        Season.objects.select_related(game.season_tariff_field)
        .filter(starts_on__lte=day, ends_on__gte=day)
        .first()
    )
    chosen = getattr(season, game.season_tariff_field) if season else None
    if chosen is not None:
        return chosen
    since = day - datetime.timedelta(days=RECENT_TABLES_DAYS)
    candidates = game.tariff_model.objects.all()  # type: ignore[attr-defined]
    recent = (
        candidates.annotate(
            recent=Count("versions__tables", filter=Q(versions__tables__played_on__gte=since))
        )
        .filter(recent__gt=0)
        .order_by("-recent", "name")
        .first()
    )
    if recent is not None:
        return recent
    return _house_tariff(
        game, None, game.parse_rules(game.default_rules), candidates, fits=lambda tariff: True
    )
