"""Standings: the seasons, each season's leaderboard per game, the all-time boards, and
their CSV downloads.

A leaderboard reads the totals kept when tables finish (``selectors.standings``: two
queries, a row per member, whatever the number of tables). Its rendered board is kept in
the cache under the standings stamp (``selectors.standings_cached``), so a page that
nothing changed costs the stamp, the season and the page around it. Sorting by a column
happens here, on the server, through plain links: it works without JavaScript, and the
rank column always shows the official rank (the board itself: ``scoring.pages.standings``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.db.models import F
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.utils.translation import get_language
from django.views.decorators.http import require_safe

from clubsite.http import HtmxHttpRequest
from clubsite.pages import kept_page
from scoring import games, selectors, spreadsheets
from scoring.models import Season, Table
from scoring.pages import leagues
from scoring.pages.standings import (
    SORT_KEYS,
    board_html,
    board_lines,
    columns,
)
from scoring.permissions import can_see_standings


class GameConverter:
    """``<game:game>`` in a URL: ``preferans`` or ``boston``, anything else is a 404."""

    regex = "|".join(game for game, _label in Table.GAMES)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def standings_public(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """With ``STANDINGS_PUBLIC = False`` only signed-in members see standings; anybody
    else is sent to sign in and brought back."""

    @wraps(view)
    def wrapped(request: HtmxHttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not can_see_standings(request):
            return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    return wrapped


# -- the board ----------------------------------------------------------------------------


def _sort_request(request: HtmxHttpRequest) -> tuple[str, bool]:
    sort = request.GET.get("sort", "rank")
    if sort not in SORT_KEYS:
        sort = "rank"
    default = "desc" if sort not in ("rank", "name") else "asc"
    direction = request.GET.get("dir", default)
    return sort, (direction if direction in ("asc", "desc") else default) == "desc"


def _page(request: HtmxHttpRequest, game: str, season: Season | None) -> HttpResponse:
    sort, descending = _sort_request(request)
    today = timezone.localdate()  # a season's state (begun, over) is today's
    scope = season.pk if season is not None else "all"
    direction = "desc" if descending else "asc"
    made_from = (game, scope, sort, direction, get_language(), today)
    # A season's page read the stamp with the season (``_season``).
    stamp = getattr(season, "standings_stamp", None) if season else selectors.standings_stamp()
    board = selectors.standings_cached(
        stamp or "",
        "board",
        made_from,
        lambda: board_html(game, season, sort=sort, descending=descending, today=today),
    )
    return render(
        request,
        "scoring/standings_detail.html",
        {"game_label": dict(Table.GAMES)[game], "season": season, "board": board},
    )


def _csv(game: str, season: Season | None) -> HttpResponse:
    if season is not None and season.is_league:
        found = selectors.league(game, season)
        ranked_lines, below_lines = leagues.league_lines(game, found, {})
        header = leagues.csv_header()
        rows = [line.cells() for line in [*ranked_lines, *below_lines]]
    else:
        ranked, below = selectors.standings(game, season)
        header = [column.label for column in columns(game)]
        rows = [line.cells() for line in board_lines([*ranked, *below], game, {})]
    stem = (
        (slugify(season.name, allow_unicode=True) or f"season-{season.pk}")
        if season is not None
        else "all-time"
    )
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{stem}-{game}.csv"
    )
    # A byte-order mark, so that spreadsheet programs read the Cyrillic names as UTF-8.
    response.write("\ufeff")
    # Names are the members' own words: a leading = + - @ would be a formula there.
    writer = spreadsheets.writer(response, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return response


def _season(pk: int) -> Season:
    """The season, with the names of its default tariffs (``preferans_tariff_name``,
    ``boston_tariff_name``): the page shows and links them, and whole tariffs are some
    fifty columns, which doubled the cost of reading the season; and with the standings
    stamp (``standings_stamp``), which its board is cached under."""
    names = {
        f"{game.season_tariff_field}_name": F(f"{game.season_tariff_field}__name")
        for game in games.GAMES.values()
    }
    seasons = Season.objects.annotate(**names, standings_stamp=selectors.stamp_column())
    return get_object_or_404(seasons, pk=pk)


# -- pages --------------------------------------------------------------------------------


@require_safe
@standings_public
def season_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(
        request,
        "scoring/season_list.html",
        {
            "seasons": list(Season.objects.order_by("-starts_on")),
            "today": timezone.localdate(),
            "games": Table.GAMES,
        },
    )


def _standings_version(request: HtmxHttpRequest, *args: Any, **kwargs: Any) -> str | None:
    """What a standings page shows for a visitor: the standings as the stamp names them, as
    of today (a season's state, begun or over, is today's); None before the first stamp."""
    stamp = selectors.standings_stamp()
    return f"{stamp}:{timezone.localdate()}" if stamp else None


@require_safe
@standings_public
@kept_page(_standings_version, last_while_made=True)
def season_standings(request: HtmxHttpRequest, pk: int, game: str) -> HttpResponse:
    return _page(request, game, _season(pk))


@require_safe
@standings_public
def season_standings_csv(request: HtmxHttpRequest, pk: int, game: str) -> HttpResponse:
    return _csv(game, _season(pk))


@require_safe
@standings_public
@kept_page(_standings_version, last_while_made=True)
def standings(request: HtmxHttpRequest, game: str) -> HttpResponse:
    return _page(request, game, None)


@require_safe
@standings_public
def standings_csv(request: HtmxHttpRequest, game: str) -> HttpResponse:
    return _csv(game, None)
