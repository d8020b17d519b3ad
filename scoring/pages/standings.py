"""What the standings pages show: a leaderboard's columns, headers and lines (numbers as
machine text, the colour class of each line's money), the ranking and qualification in
words, the board below the site's header (kept under the standings stamp) and the home
page's leaders. Writes nothing."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple
from urllib.parse import urlencode

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from members.models import Member
from scoring import games, selectors
from scoring.engine.standings import RANKING_KEYS, Standing
from scoring.games import CENT
from scoring.models import Season, Table
from scoring.models.seasons import RANKING_WORDS
from scoring.pages import games as game_pages
from scoring.pages import leagues
from scoring.pages.labels import rule_error_text
from scoring.pages.profiles import figure, unit

ALL_TIME_ORDER = ("money", "average", "wins")
"""How ``selectors.standings`` ranks the all-time boards (copied here to say it in words)."""


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    numeric: bool = True


def columns(game: str) -> list[Column]:
    """The leaderboard's columns (and the CSV's), in order."""
    return [
        Column("rank", _("Rank")),
        Column("name", _("Member"), numeric=False),
        Column("games", _("Games")),
        Column("total", str(game_pages.of(game).total_label)),
        Column("money", _("Money")),
        Column("average", _("Average")),
        Column("best", _("Best")),
        Column("worst", _("Worst")),
        Column("wins", _("Wins")),
        Column("rating", _("Rating")),
    ]


SORT_KEYS = frozenset(
    ("rank", "name", "games", "total", "money", "average", "best", "worst", "wins", "rating")
)


@dataclass(frozen=True)
class BoardLine:
    """One member's line: its numbers as machine text (points), as the CSV writes them;
    the page shows them in the reader's language (templates/scoring/_leaderboard.html, the
    ``number`` filter)."""

    rank: int | None
    username: str | None
    name: str
    games: int
    total: str
    money: str
    average: str
    best: str
    worst: str
    wins: int
    rating: str
    sign: str

    def cells(self) -> list[str]:
        return [
            "" if self.rank is None else str(self.rank),
            self.name,
            str(self.games),
            self.total,
            self.money,
            self.average,
            self.best,
            self.worst,
            str(self.wins),
            self.rating,
        ]


def _sign(value: Decimal) -> str:
    return "plus" if value > 0 else "minus" if value < 0 else "zero"


def board_lines(
    standings: Iterable[Standing], game: str, usernames: dict[int, str]
) -> list[BoardLine]:
    def shown(value: Decimal) -> str:
        return figure(value, game) or ""

    lines = []
    for s in standings:
        username = usernames.get(s.member)
        lines.append(
            BoardLine(
                rank=s.rank,
                username=username,
                name=s.name,
                games=s.games,
                total=shown(s.total),
                money=str(s.money.quantize(CENT)),
                average=str(s.average),
                best=shown(s.best),
                worst=shown(s.worst),
                wins=s.wins,
                rating=str(s.rating.quantize(CENT)),
                sign=_sign(s.money),
            )
        )
    return lines


def usernames(*boards: Sequence[Standing]) -> dict[int, str]:
    """Member id → username, for the profile links (one query; none for empty boards).

    Every member's: a club has a few hundred, and reading them all costs a fifth of asking
    for a board's two hundred by id (an ``IN`` list binds each id as its own parameter)."""
    if not any(boards):
        return {}
    return dict(Member.objects.order_by().values_list("pk", "username"))


def sorted_standings(standings: Sequence[Standing], key: str, descending: bool) -> list[Standing]:
    """The board ordered by a column; equal values keep the official order."""
    if key == "rank":
        return list(reversed(standings)) if descending else list(standings)

    def value(s: Standing) -> Any:
        return s.name.casefold() if key == "name" else s.key(key)

    return sorted(standings, key=value, reverse=descending)


def ranking_in_words(order: Sequence[str]) -> str:
    words = [str(RANKING_WORDS.get(key, RANKING_KEYS.get(key, key))) for key in order]
    return _("Ranked by %(keys)s; higher comes first.") % {"keys": _(", then ").join(words)}


def qualification_in_words(min_games: int) -> str:
    if min_games <= 1:
        return _("Everyone who has played is ranked.")
    return ngettext(
        "A member needs %(count)d game to be ranked; the others are listed apart.",
        "A member needs %(count)d games to be ranked; the others are listed apart.",
        min_games,
    ) % {"count": min_games}


@dataclass(frozen=True)
class Header:
    column: Column
    url: str
    sorted: str  # "ascending", "descending" or "" (for aria-sort)


def headers(game: str, sort: str, descending: bool) -> list[Header]:
    result = []
    for column in columns(game):
        if column.key == sort:
            direction = "asc" if descending else "desc"
            state = "descending" if descending else "ascending"
        else:
            direction = "desc" if column.numeric and column.key != "rank" else "asc"
            state = ""
        query = urlencode({"sort": column.key, "dir": direction})
        result.append(Header(column, f"?{query}#leaderboard", state))
    return result


def board_html(
    game: str, season: Season | None, *, sort: str, descending: bool, today: datetime.date
) -> str:
    """The page's content below the site's header: the same for every visitor of this
    board, sorting and language while the standings stay as they are."""
    if season is not None and season.is_league:
        return _league_html(game, season, today=today)
    ranked, below = selectors.standings(game, season)
    names = usernames(ranked, below)
    order = season.order if season is not None else ALL_TIME_ORDER
    min_games = season.min_games if season is not None else 0
    if season is not None:
        csv_url = reverse("scoring:season_standings_csv", kwargs={"pk": season.pk, "game": game})
        other = {
            g: reverse("scoring:season_standings", kwargs={"pk": season.pk, "game": g})
            for g, _label in Table.GAMES
        }
    else:
        csv_url = reverse("scoring:standings_csv", kwargs={"game": game})
        other = {g: reverse("scoring:standings", kwargs={"game": g}) for g, _label in Table.GAMES}
    return render_to_string(
        "scoring/standings_detail.html#board",
        {
            "game": game,
            "game_label": dict(Table.GAMES)[game],
            "unit": unit(game),
            "season": season,
            "today": today,
            "headers": headers(game, sort, descending),
            "ranked": board_lines(sorted_standings(ranked, sort, descending), game, names),
            "below": board_lines(sorted_standings(below, sort, descending), game, names),
            "ranking": ranking_in_words(order),
            "qualification": qualification_in_words(min_games),
            "min_games": min_games,
            "csv_url": csv_url,
            "games": [(g, label, other[g]) for g, label in Table.GAMES],
            "default_tariff": _default_tariff(games.of(game), season),
        },
    )


def _league_html(game: str, season: Season, *, today: datetime.date) -> str:
    """A league season's board: its lines with their breakdowns, and its rule in words."""
    found = selectors.league(game, season)
    names = usernames([*found.ranked, *found.below])  # type: ignore[list-item]
    ranked, below = leagues.league_lines(game, found, names)
    return render_to_string(
        "scoring/standings_detail.html#board",
        {
            "game": game,
            "game_label": dict(Table.GAMES)[game],
            "unit": unit(game),
            "season": season,
            "today": today,
            "league": True,
            "problem": rule_error_text(found.problem) if found.problem else "",
            "ranked": ranked,
            "below": below,
            "ranking": (
                leagues.league_in_words(season)
                if found.problem is None
                else str(season.get_league_rule_display())
            ),
            "nights": leagues.nights_in_words(season),
            "qualification": qualification_in_words(season.min_games),
            "min_games": season.min_games,
            "csv_url": reverse(
                "scoring:season_standings_csv", kwargs={"pk": season.pk, "game": game}
            ),
            "games": [
                (g, label, reverse("scoring:season_standings", kwargs={"pk": season.pk, "game": g}))
                for g, label in Table.GAMES
            ],
            "default_tariff": _default_tariff(games.of(game), season),
        },
    )


def _default_tariff(game: games.Game, season: Season | None) -> tuple[str, str] | None:
    """The season's default tariff of ``game``, as (name, page url); None if it has none."""
    field = game.season_tariff_field
    pk = getattr(season, f"{field}_id", None)
    if pk is None:
        return None
    return getattr(season, f"{field}_name"), reverse(game.tariff_detail_url, args=[pk])


class Board(NamedTuple):
    """The top of a game's board, as the home page shows it."""

    game: str
    label: str
    url: str
    lines: list[BoardLine] | list[leagues.LeagueBoardLine]

    @property
    def league(self) -> bool:
        """Whether the lines are a league season's (points and nights, not money)."""
        return any(isinstance(line, leagues.LeagueBoardLine) for line in self.lines)

    @property
    def unit(self) -> str:
        return str(games.of(self.game).unit)


def leaders_section(season: Season | None, *, top: int = 3) -> str:
    """The home page's section of the ``top`` leaders of each game, kept in the cache until
    the standings change: the stamp's query when nothing did."""
    made_from = (season.pk if season is not None else "all", get_language(), top)
    return selectors.standings_cached(
        selectors.standings_stamp(),
        "leaders",
        made_from,
        lambda: render_to_string(
            "scoring/home.html#leaders", {"season": season, "leaders": leaders(season, top=top)}
        ),
    )


def leaders(season: Season | None, *, top: int = 3) -> list[Board]:
    """The top of each game's board (for the home page): ``(game, label, url, lines)``.
    Two queries per game and one for the members' usernames (a league season's: one per
    game, its seats, and the usernames)."""
    if season is not None and season.is_league:
        return _league_leaders(season, top=top)
    boards = {game: selectors.standings(game, season)[0][:top] for game, _label in Table.GAMES}
    names = usernames(*boards.values())
    result = []
    for game, label in Table.GAMES:
        if season is not None:
            url = reverse("scoring:season_standings", kwargs={"pk": season.pk, "game": game})
        else:
            url = reverse("scoring:standings", kwargs={"game": game})
        result.append(Board(game, str(label), url, board_lines(boards[game], game, names)))
    return result


def _league_leaders(season: Season, *, top: int) -> list[Board]:
    """The top of a league season's boards, by its league rule."""
    found = {game: selectors.league(game, season) for game, _label in Table.GAMES}
    names = usernames(*(f.ranked[:top] for f in found.values()))  # type: ignore[arg-type]
    return [
        Board(
            game,
            str(label),
            reverse("scoring:season_standings", kwargs={"pk": season.pk, "game": game}),
            leagues.league_lines(game, found[game], names)[0][:top],
        )
        for game, label in Table.GAMES
    ]
