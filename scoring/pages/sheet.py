"""The pulka drawn as the paper score sheet (пулька): an SVG and the running chains it shows.

Presentation, not rules: everything here reads what the engine already wrote
(``Pulka.deals``, ``Pulka.first_dealer``, ``Pulka.dealer``, ``Pulka.bombs``, the last
round) and lays it out the way players keep the sheet on paper (preferans.md §1, §7, §8,
§13.12, §13.13; the sheet of seed 001):

- a sector per player, lettered in seat order (А Б В Г in Russian, A B C D in English:
  ``labels.seat_letter``), meeting at a central circle;
  3 players: lines from the circle to the two bottom corners and up to the top edge,
  4 players: the two diagonals;
- in each sector, from the sheet's edge inwards, the whists written on each opponent, the
  pool (пуля) and the mountain (гора), each as a **running chain**: a new running total is
  appended after a dot whenever a deal changes the column (``2.4.10``);
- in the centre the pool target, the price of a whist and the control time (seed fields
  2–4), and «последний круг» once the control time has been reached (field 3, §13.12);
- an arrow from the centre into the first dealer's sector (seed field 1, §13.13), and the
  current dealer marked apart from it: a small pack of cards after his name (titled
  «сдаёт») and his sector shaded; neither once the table is finished, when nobody deals;
- queued bombs beside the player's name.

The SVG carries no ``style`` attribute and no script (the site's Content Security Policy
allows neither): geometry that the layout depends on (font sizes and families) is given
as presentation attributes, the look lives in ``static/css/sheet.css``. Every piece of
user text is escaped, so the returned string is safe markup to embed as it is.

Every word on the sheet is in the active language (gettext): whoever caches a drawing keys
it on the language too (``pages.games.GamePage.sheet_svg``, the PNG picture's key and ETag).
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Literal, NamedTuple, Protocol

from django.utils.translation import gettext, pgettext

from scoring.engine.money import exact_number
from scoring.engine.preferans.deals import Amount
from scoring.engine.preferans.pulka import Pulka
from scoring.pages.labels import seat_letter, seat_letters
from scoring.templatetags.amounts import number

# -- the running chains ---------------------------------------------------------------------


def format_amount(value: Amount) -> str:
    """An amount as written on the sheet: ``12``, ``−3``, ``7,5`` (a decimal comma, so
    that a fraction never reads as two links of a chain)."""
    if type(value) is int:  # nearly every amount: skip the exact-number conversion
        return str(value).replace("-", "−")
    return str(exact_number(value)).replace(".", ",").replace("-", "−")


@dataclass(frozen=True, slots=True)
class Chain:
    """One column of the sheet: its running total after every deal that changed it."""

    totals: tuple[Amount, ...] = ()

    @property
    def links(self) -> tuple[str, ...]:
        """The totals as written, one per link of the chain."""
        return tuple(format_amount(total) for total in self.totals)

    @property
    def text(self) -> str:
        """The chain as players write it, e.g. ``"4.9.17"``; empty when never written."""
        return ".".join(self.links)

    @property
    def total(self) -> Amount:
        """The column's value now (0 if nothing was written)."""
        return self.totals[-1] if self.totals else 0


@dataclass(frozen=True, slots=True)
class PlayerChains:
    """A player's sector in chains: pool, mountain and the whists on each opponent."""

    seat: int
    letter: str
    name: str
    pool: Chain
    mountain: Chain
    whists: tuple[tuple[int, Chain], ...]
    """(opponent's seat, whists written on him), opponents clockwise from this player."""

    def whists_on(self, seat: int) -> Chain:
        """The whists this player wrote on ``seat``."""
        return dict(self.whists)[seat]


def pulka_chains(pulka: Pulka) -> tuple[PlayerChains, ...]:
    """Every player's chains, by seat, built from the deals' entries in order.

    A deal adds one link to each column it changes (a player writes the deal's sum, not its
    parts: lone whists plus consolation on the same declarer are one number). Help, overflow
    and adjustments count like any other entry; a deal whose entries cancel out in a column
    adds nothing there.
    """
    n = pulka.setup.size
    # (kind, writer, on) → running totals; pool and mountain are written "on" oneself.
    columns: dict[tuple[str, int, int], list[Amount]] = {}
    for deal in pulka.deals:
        changes: dict[tuple[str, int, int], Amount] = {}
        for entry in deal.entries:
            on = entry.player if entry.on is None else entry.on
            column: tuple[str, int, int] = (entry.kind, entry.player, on)
            changes[column] = changes.get(column, 0) + entry.amount
        for column, change in changes.items():
            if change:
                totals = columns.setdefault(column, [])
                totals.append((totals[-1] if totals else 0) + change)

    def chain(kind: str, player: int, on: int) -> Chain:
        return Chain(tuple(columns.get((kind, player, on), ())))

    return tuple(
        PlayerChains(
            seat=i,
            letter=seat_letter(i),
            name=pulka.setup.players[i],
            pool=chain("pool", i, i),
            mountain=chain("mountain", i, i),
            whists=tuple(
                (j, chain("whists", i, j)) for j in ((i + step) % n for step in range(1, n))
            ),
        )
        for i in range(n)
    )


# -- drawing ------------------------------------------------------------------------------------

Point = tuple[float, float]
Edge = Literal["bottom", "left", "top", "right"]

WIDTH = 600.0
"""The sheet's width in user units; long pulkas make the sheet taller, never wider, so the
text keeps its size on a phone."""
HEIGHT = {3: 660.0, 4: 640.0}
CENTRE_Y = {3: 0.46, 4: 0.5}
"""Where the sectors meet, as a share of the height."""
# The sheet's height is a rung of a fixed ladder, HEIGHT[n] * STEP ** rung: the lowest rung
# that holds everything. A step of 5% leaves the sheet at most 5% taller than it need be (as
# before, when growing by half and then bisecting three times left ~6%), with few rungs to
# search (a 300-deal pulka's sheet is at rung 19 or so for three players, 26 for four). Being a
# rung, the height is a function of the pulka alone, whichever rung the search starts from
# (``draw_pulka``'s hint).
STEP = 1.05
MAX_RUNG = 500
"""The highest rung tried (1.05 ** 500 is ~4e10 times the height: it holds any record)."""
RADIUS = 58.0
ARROW_ROOM = 30.0
"""The free ring round the circle that holds the first dealer's arrow: no writing there."""

SANS = "DejaVu Sans, Verdana, Arial, sans-serif"
MONO = 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace'
CHAIN_FONT = 16.0
CHAIN_CHAR = 0.62 * CHAIN_FONT
"""Width of one character of a chain: chains are monospace, so wrapping is exact."""
CHAIN_LINE = 19.0
LABEL_FONT = 11.0
LETTER_FONT = 16.0
NAME_FONT = 13.0
LETTER_WIDTH = LETTER_FONT * 0.8 + 6
CAPTION_LINE = 22.0
BAND_PAD = 4.0
SIDE_PAD = 6.0
MIN_BAND_LENGTH = 40.0
BOMB_WIDTH = {2: 36.0, 4: 44.0, 8: 36.0}
DEALER_MARK_WIDTH = 20.0
"""Room for the dealer's mark after his name: a small pack of cards and a gap."""
NAME_MAX = 40
"""Characters of a name shown on the sheet (the full name is in the sector's title)."""

_XML_INVALID_CHARS = "\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff"
_XML_INVALID = re.compile(f"[{_XML_INVALID_CHARS}]")
_NEEDS_ESCAPE = re.compile(f"[&<>\"'{_XML_INVALID_CHARS}]")
"""What ``_escape`` changes; most values (coordinates, class names) have none of it."""


NOTE_LINE = 16.0
"""The height of a line written under the sheet (a substitute mid-pulka)."""


@dataclass(frozen=True, slots=True)
class SeatHandover:
    """A seat that changed hands mid-pulka (Kodeks 3.1.2): ``left`` left it after the
    table's deal ``after_deal`` and ``came`` took it."""

    left: str
    came: str
    after_deal: int


def _shown_name(name: str) -> str:
    """A name as the sheet writes it: at most ``NAME_MAX`` characters."""
    name = _clean(name)
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


@dataclass(frozen=True, slots=True)
class Drawing:
    """A drawn sheet and the rung of its height (``STEP``): the next revision of the same
    pulka is most likely drawn at that rung or the next, so it is the hint to draw it with."""

    svg: str
    rung: int


def pulka_svg(
    pulka: Pulka,
    *,
    control_time: str | None = None,
    title: str | None = None,
    finished: bool = False,
) -> str:
    """The sheet as a standalone ``<svg>`` element (scales to its container's width).

    ``control_time`` is written in the centre when given (seed field 3); ``title`` names
    the drawing for assistive technology (default: the players); a ``finished`` table has
    no dealer, so neither the arrow nor the dealer's mark is drawn. All user text is
    escaped.
    """
    return draw_pulka(pulka, control_time=control_time, title=title, finished=finished).svg


def draw_pulka(
    pulka: Pulka,
    *,
    control_time: str | None = None,
    title: str | None = None,
    finished: bool = False,
    rung_hint: int | None = None,
    guests: frozenset[int] = frozenset(),
    substitutes: Sequence[SeatHandover] = (),
) -> Drawing:
    """The sheet as ``pulka_svg`` draws it, and its rung. ``rung_hint`` (the rung of an
    earlier drawing of this pulka) is where the search for the sheet's height starts: a
    good hint saves time, and any hint, good, bad or none, gives the same drawing.
    ``guests``: the seats of guests, whose names are marked as a guest's (a guest may have
    any name a member has not). ``substitutes``: the seats that changed hands mid-pulka,
    each written under the sheet as «замена: Вера → Дима после сдачи 3»."""
    chains = pulka_chains(pulka)
    if guests:
        marker = gettext("guest")
        chains = tuple(
            replace(player, name=f"{player.name} ({marker})") if player.seat in guests else player
            for player in chains
        )
    n = pulka.setup.size
    dealer = None if finished else pulka.dealer
    bands = [
        _bands(player, pulka.bombs[player.seat], dealer=player.seat == dealer) for player in chains
    ]
    rung, sheet, plan = _fit(n, bands, rung_hint)
    notes = [
        gettext("substitute: %(left)s → %(came)s after deal %(n)s")
        % {"left": _shown_name(h.left), "came": _shown_name(h.came), "n": h.after_deal}
        for h in substitutes
    ]
    height = sheet.height + (NOTE_LINE * len(notes) + NOTE_LINE / 2 if notes else 0)
    names = ", ".join(pulka.setup.players)
    label = title or gettext("Pulka: %(players)s") % {"players": names}
    attrs = {"data_first_dealer": str(pulka.first_dealer)}
    if dealer is not None:
        attrs["data_dealer"] = str(dealer)
    svg = _Svg()
    svg.open(
        "svg",
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {_n(sheet.width)} {_n(height)}",
        class_=f"pulka-sheet pulka-sheet-{n}",
        role="img",
        aria_label=label,
        data_players=str(n),
        **attrs,
        font_family=SANS,
        preserveAspectRatio="xMidYMin meet",
    )
    svg.text_element("title", label)
    svg.text_element("desc", " ".join([_description(pulka, chains, control_time, dealer), *notes]))
    svg.empty(
        "rect",
        class_="sheet-paper",
        x="0",
        y="0",
        width=_n(sheet.width),
        height=_n(height),
        fill="#fff",
    )
    by_seat: dict[int, list[_Placed]] = {}
    for placed in plan:
        by_seat.setdefault(placed.frame.sector.seat, []).append(placed)
    for sector in sheet.sectors:
        _draw_sector(svg, sheet, sector, chains[sector.seat], by_seat[sector.seat], dealer)
    _draw_frame(svg, sheet)
    _draw_centre(svg, sheet, pulka, control_time)
    if not finished:
        _draw_arrow(svg, sheet, pulka.first_dealer)
    for k, note in enumerate(notes, start=1):
        svg.text(6, sheet.height + NOTE_LINE * k, note, class_="sheet-substitute", font_size="11")
    svg.close("svg")
    return Drawing(svg.getvalue(), rung)


def _fit(
    n: int, bands: Sequence[Sequence[_Band]], hint: int | None = None
) -> tuple[int, _Sheet, list[_Placed]]:
    """The lowest rung of the ladder (``STEP``) whose sheet holds everything, that sheet and
    the plan drawn on it. Whether a sheet holds everything is monotone in its height, so the
    search is free to start anywhere: without a hint at rung 0 (most pulkas are short), else
    at the hint; it gallops away from there (1, 3, 7, … rungs) until it has a rung that
    fits above one that does not, then halves the gap between them."""
    order = list(range(n))  # each height tried starts with the sector that failed last
    plans: dict[int, tuple[_Sheet, list[_Placed]]] = {}

    def fits(rung: int) -> bool:
        sheet = _Sheet.of(n, HEIGHT[n] * STEP**rung)
        plan = _plan(sheet, bands, order)
        if plan is not None:
            plans[rung] = sheet, plan
        return plan is not None

    start = 0 if hint is None else min(max(hint, 0), MAX_RUNG)
    # ``short``: the highest rung known to be too short (-1: none); ``tall``: the lowest
    # known to fit.
    if fits(start):
        short, tall, step = -1, start, 1  # down: 1, 3, 7, … rungs below it, to rung 0 at most
        while tall > 0:
            rung = max(start - step, 0)
            if not fits(rung):
                short = rung
                break
            tall = rung
            step = 2 * step + 1
    else:
        short, step = start, 1  # up: 1, 3, 7, … rungs above it
        while True:  # ends with a rung that fits, or at MAX_RUNG
            if short == MAX_RUNG:
                raise ValueError("the pulka is too long to draw")
            rung = min(start + step, MAX_RUNG)
            if fits(rung):
                tall = rung
                break
            short = rung
            step = 2 * step + 1
    while tall - short > 1:
        middle = (short + tall) // 2
        if fits(middle):
            tall = middle
        else:
            short = middle
    sheet, plan = plans[tall]
    return tall, sheet, [_moved_out(placed) for placed in plan]


def _description(
    pulka: Pulka, chains: Sequence[PlayerChains], control_time: str | None, dealer: int | None
) -> str:
    """The sheet in words, for assistive technology: the centre, who dealt first and who
    deals now (nobody at a finished table), the last round, each player's pool and
    mountain."""
    setup = pulka.setup
    first = pulka.first_dealer
    letters = seat_letters()
    parts = [
        gettext("Pool to %(target)s, whist %(price)s")
        % {"target": setup.pool_target, "price": _price(setup.whist_price)},
        gettext("first dealer %(letter)s (%(name)s)")
        % {"letter": letters[first], "name": setup.players[first]},
    ]
    if dealer is not None:
        parts.append(
            gettext("dealing now %(letter)s (%(name)s)")
            % {"letter": letters[dealer], "name": setup.players[dealer]}
        )
    if control_time:
        parts.append(gettext("control time %(time)s") % {"time": control_time})
    left = pulka.deals_left()
    if left is not None:
        if left == 0:
            parts.append(gettext("last round played"))
        elif dealer is None:
            parts.append(pgettext("sheet", "last round"))
        else:
            parts.append(gettext("last round, deals left: %(n)s") % {"n": left})
    for p in chains:
        parts.append(
            gettext("%(letter)s %(name)s: pool %(pool)s, mountain %(mountain)s")
            % {
                "letter": p.letter,
                "name": p.name,
                "pool": format_amount(p.pool.total),
                "mountain": format_amount(p.mountain.total),
            }
        )
    return "; ".join(parts) + "."


# -- the sheet's geometry ----------------------------------------------------------------------


class _Side(NamedTuple):
    """A side of a sector's outline in (u, t), from (u0, t0) to (u1, t1), with what every
    cross-section asks of it worked out once."""

    low: float
    """The least depth the side reaches."""
    high: float
    u0: float
    t0: float
    u1: float
    du: float
    dt: float
    """``t1 - t0``; 0 for a side along the edge."""


def _sides(polygon: Sequence[Point]) -> tuple[_Side, ...]:
    return tuple(
        _Side(min(t0, t1), max(t0, t1), u0, t0, u1, u1 - u0, t1 - t0)
        for (u0, t0), (u1, t1) in zip(polygon, [*polygon[1:], polygon[0]], strict=True)
    )


@dataclass(frozen=True, slots=True)
class _Sector:
    """A player's part of the sheet. ``edge`` is the sheet side it writes from; ``local`` is
    its outline in (u, t) coordinates: u along that edge, t the depth in from it."""

    seat: int
    edge: Edge
    polygon: tuple[Point, ...]
    local: tuple[Point, ...]
    sides: tuple[_Side, ...]
    """``local`` side by side, for cross-sections."""
    centre: Point
    """The sheet's centre in (u, t)."""
    # Fitting the sheet's height lays the same lines out again and again (each column of a
    # band, each depth a band is tried at), and each line asks for the cross-sections at its
    # two depths; so the answers are kept. A sector lives for one drawing, and so do they.
    _sections: dict[float, tuple[float, float] | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    _rooms: dict[tuple[float, float], tuple[float, float] | None] = field(
        default_factory=dict, compare=False, repr=False
    )

    def section(self, t: float) -> tuple[float, float] | None:
        """Where the line at depth ``t`` crosses the sector."""
        if t not in self._sections:
            self._sections[t] = _cross_section(self.sides, t)
        return self._sections[t]

    def room(self, t0: float, t1: float) -> tuple[float, float] | None:
        """The stretch of a band from depth ``t0`` to ``t1`` that is inside the sector at
        both depths and clear of the circle and its arrow, less the padding at its ends
        (``None``, or possibly too short or even inverted: the callers check)."""
        key = (t0, t1)
        if key not in self._rooms:
            self._rooms[key] = self._find_room(t0, t1)
        return self._rooms[key]

    def _find_room(self, t0: float, t1: float) -> tuple[float, float] | None:
        outer, inner = self.section(t0), self.section(t1)
        if outer is None or inner is None:
            return None
        # Within both: max() and min() written out, as this runs for nearly every line.
        lo = inner[0] if inner[0] > outer[0] else outer[0]
        hi = inner[1] if inner[1] < outer[1] else outer[1]
        stretch = (lo, hi)
        clear = _clear_of_disk(stretch, t0, t1, self.centre, RADIUS + ARROW_ROOM)
        if clear is None:
            return None
        return clear[0] + SIDE_PAD, clear[1] - SIDE_PAD


@dataclass(frozen=True, slots=True)
class _Sheet:
    players: int
    width: float
    height: float
    centre: Point
    corners: tuple[Point, ...]
    """Where the sector lines run from the circle to the sheet's edge."""
    sectors: tuple[_Sector, ...]

    @classmethod
    def of(cls, players: int, height: float) -> _Sheet:
        w, h = WIDTH, height
        c = (w / 2, h * CENTRE_Y[players])
        if players == 3:
            outlines: list[tuple[Edge, tuple[Point, ...]]] = [
                ("bottom", ((0, h), (w, h), c)),
                ("left", ((0, 0), (w / 2, 0), c, (0, h))),
                ("right", ((w / 2, 0), (w, 0), (w, h), c)),
            ]
            corners: tuple[Point, ...] = ((0, h), (w, h), (w / 2, 0))
        else:
            outlines = [
                ("bottom", ((0, h), (w, h), c)),
                ("left", ((0, 0), c, (0, h))),
                ("top", ((0, 0), (w, 0), c)),
                ("right", ((w, 0), (w, h), c)),
            ]
            corners = ((0, 0), (w, 0), (w, h), (0, h))
        sectors = []
        for seat, (edge, polygon) in enumerate(outlines):
            local = tuple(_to_local(edge, w, h, p) for p in polygon)
            centre = _to_local(edge, w, h, c)
            sectors.append(_Sector(seat, edge, polygon, local, _sides(local), centre))
        return cls(players, w, h, c, corners, tuple(sectors))

    def to_screen(self, sector: _Sector, u: float, t: float) -> Point:
        """A point of ``sector``'s (u, t) coordinates on the sheet."""
        match sector.edge:
            case "bottom":
                return (u, self.height - t)
            case "top":
                return (u, t)
            case "left":
                return (t, u)
            case "right":
                return (self.width - t, u)

    def cross(self, sector: _Sector, t: float, keep_clear: float) -> tuple[float, float] | None:
        """The stretch of ``sector`` at depth ``t`` that stays ``keep_clear`` off the centre."""
        stretch = sector.section(t)
        if stretch is None:
            return None
        return _clear_of_disk(stretch, t, t, sector.centre, keep_clear)

    def usable(
        self, sector: _Sector, t0: float, t1: float, min_length: float = MIN_BAND_LENGTH
    ) -> tuple[float, float] | None:
        """The stretch along the edge where a band from depth ``t0`` to ``t1`` can hold
        writing: inside the sector at both depths, clear of the circle and its arrow."""
        room = sector.room(t0, t1)
        if room is None:
            return None
        lo, hi = room
        return room if hi - lo >= min_length else None


def _to_local(edge: Edge, width: float, height: float, p: Point) -> Point:
    x, y = p
    match edge:
        case "bottom":
            return (x, height - y)
        case "top":
            return (x, y)
        case "left":
            return (y, x)
        case "right":
            return (y, width - x)


def _cross_section(sides: Sequence[_Side], t: float) -> tuple[float, float] | None:
    """Where the line at depth ``t`` crosses a convex polygon, given by its sides."""
    # Runs for nearly every line tried, so comparisons rather than min() and max().
    lo, hi = math.inf, -math.inf
    for low, high, u0, t0, u1, du, dt in sides:
        if not low <= t <= high:
            continue
        if dt:  # a side across the depths meets the line at one point
            a = b = u0 + (t - t0) * du / dt
        else:  # a side along the edge, at this very depth
            a, b = u0, u1
        if a < lo:
            lo = a
        if a > hi:
            hi = a
        if b < lo:
            lo = b
        if b > hi:
            hi = b
    return (lo, hi) if lo <= hi else None


def _clear_of_disk(
    stretch: tuple[float, float], t0: float, t1: float, centre: Point, radius: float
) -> tuple[float, float] | None:
    """``stretch`` (a band from ``t0`` to ``t1``) without the disk's shadow. Where the disk
    splits it (a side sector of three reaches round the circle) the longer part is kept."""
    lo, hi = stretch
    cu, ct = centre
    nearest = t0 if t0 > ct else ct  # the depth of the band nearest the centre
    if t1 < nearest:
        nearest = t1
    if abs(ct - nearest) >= radius:
        return stretch if hi > lo else None
    half = math.sqrt(radius**2 - (ct - nearest) ** 2)
    s0, s1 = cu - half, cu + half
    if s0 < hi and s1 > lo:  # keep the longer part beside the shadow
        if s0 - lo >= hi - s1:
            hi = s0
        else:
            lo = s1
    return (lo, hi) if hi > lo else None


# -- what a sector holds ---------------------------------------------------------------------

Slot = tuple[float, float]
"""Where one line of writing may run: from and to along a band (its own x)."""
Slots = Callable[[int], Slot | None]
"""The room of each line of a column, by line number; ``None`` where a line cannot go."""


@dataclass(frozen=True, slots=True)
class _Frame:
    """A band's own coordinates: x runs along its writing (reading order), y across it
    from its top line; ``transform`` turns them into place on the sheet."""

    sheet: _Sheet
    sector: _Sector
    t0: float
    t1: float
    ref: tuple[float, float]
    """The band's outer stretch, which x is measured from."""
    dividers: tuple[float, ...]
    """Where the columns meet, in x."""

    @classmethod
    def of(cls, sheet: _Sheet, sector: _Sector, t0: float, t1: float, k: int) -> _Frame | None:
        outer = sector.section(t0)
        whole = sheet.usable(sector, t0, t1)
        if outer is None or whole is None:
            return None
        lo, hi = _along(sector.edge, outer, whole)
        dividers = tuple(lo + (hi - lo) * j / k for j in range(1, k))
        return cls(sheet, sector, t0, t1, outer, dividers)

    @property
    def depth(self) -> float:
        return self.t1 - self.t0

    @property
    def top_is_outer(self) -> bool:
        """Upright writing at the sheet's top starts at its edge; everywhere else the first
        line is the one nearest the centre (the tops of the letters face it)."""
        return self.sector.edge == "top"

    def slots(self, column: int, top: float, line: float) -> Slots:
        """The room of each line of ``column`` when its first line starts at ``top``."""
        # Called for every line of every layout tried while the sheet's height is fitted, so
        # what does not depend on the line is looked up here, once, and the line's depths
        # and its x (as in ``_along``) are worked out inline.
        dividers = self.dividers
        left = dividers[column - 1] + SIDE_PAD if column else -math.inf
        right = dividers[column] - SIDE_PAD if column < len(dividers) else math.inf
        t0, t1 = self.t0, self.t1
        depth = t1 - t0
        from_outer, room = self.top_is_outer, self.sector.room
        read_up, (u0, u1) = self.sector.edge == "right", self.ref

        def slot(i: int) -> Slot | None:
            # The line's top and bottom, from the band's top line (``top`` is never
            # negative); a line past the band's depth is measured at its far side.
            y0, y1 = top + i * line, top + (i + 1) * line
            if y0 > depth:
                y0 = depth
            if y1 > depth:
                y1 = depth
            stretch = room(t0 + y0, t0 + y1) if from_outer else room(t1 - y1, t1 - y0)
            if stretch is None:
                return None
            lo, hi = stretch
            lo, hi = (u1 - hi, u1 - lo) if read_up else (lo - u0, hi - u0)
            if lo < left:
                lo = left
            if hi > right:
                hi = right
            # Also turns away a stretch that ``room`` left inverted.
            return (lo, hi) if hi - lo >= CHAIN_CHAR else None

        return slot

    @property
    def transform(self) -> str:
        """Writing at the sides is turned to face the centre, as the player sitting there
        reads it; at the top it stays upright (upside-down text is unreadable on screen)."""
        sheet, (u0, u1), t1 = self.sheet, self.ref, self.t1
        match self.sector.edge:
            case "bottom":
                return f"translate({_n(u0)} {_n(sheet.height - t1)})"
            case "top":
                return f"translate({_n(u0)} {_n(self.t0)})"
            case "left":
                return f"translate({_n(t1)} {_n(u0)}) rotate(90)"
            case "right":
                return f"translate({_n(sheet.width - t1)} {_n(u1)}) rotate(-90)"


def _along(edge: Edge, ref: tuple[float, float], stretch: tuple[float, float]) -> Slot:
    """``stretch`` (in u) as x along a band whose outer stretch is ``ref``."""
    lo, hi = stretch
    if edge == "right":  # read upwards: x runs against u
        return (ref[1] - hi, ref[1] - lo)
    return (lo - ref[0], hi - ref[0])


class _Laid(Protocol):
    """A block's writing placed on its lines, ready to draw."""

    @property
    def count(self) -> int: ...

    def draw(self, svg: _Svg, top: float) -> None: ...


class _Block(Protocol):
    """Writing for one column of a band."""

    def layout(self, slots: Slots) -> _Laid | None: ...


@dataclass(frozen=True, slots=True)
class _ChainLines:
    kind: str
    on: int | None
    label: str
    label_x: float
    lines: tuple[tuple[float, str], ...]

    @property
    def count(self) -> int:
        return max(1, len(self.lines))

    def draw(self, svg: _Svg, top: float) -> None:
        attrs = {"class_": "sheet-column", "data_kind": self.kind}
        if self.on is not None:
            attrs["data_on"] = str(self.on)
        svg.open("g", **attrs)
        baseline = top + CHAIN_LINE / 2 + CHAIN_FONT * 0.35
        svg.text(self.label_x, baseline, self.label, class_="sheet-label", font_size=_n(LABEL_FONT))
        svg.open("g", class_="sheet-chain", font_family=MONO, font_size=_n(CHAIN_FONT))
        for i, (x, text) in enumerate(self.lines):
            if text:
                svg.text(x, baseline + i * CHAIN_LINE, text)
        svg.close("g")
        svg.close("g")


@dataclass(frozen=True, slots=True)
class _ChainBlock:
    """A label (``pool``) and a chain wrapped at its dots onto as many lines as it needs;
    a line that goes on ends with its dot, as on paper."""

    label: str
    label_width: float
    """The label's width and the gap after it, before the chain's first line."""
    text: str
    """The whole chain as written, ``4.9.17``."""
    breaks: tuple[int, ...]
    """Where in ``text`` a line may end: 0, then just after each link's dot, then the end."""
    kind: str
    on: int | None = None

    @classmethod
    def of(cls, label: str, links: Sequence[str], kind: str, on: int | None = None) -> _ChainBlock:
        breaks = [0]
        for link in links:
            breaks.append(breaks[-1] + len(link) + 1)
        if links:  # the last link has no dot after it
            breaks[-1] -= 1
        label_width = _text_width(label, LABEL_FONT) + 5
        return cls(label, label_width, ".".join(links), tuple(breaks), kind, on)

    def layout(self, slots: Slots) -> _ChainLines | None:
        # A long chain is laid out many times while the sheet's height is fitted, so each
        # line is filled in one step: the most links that fit its width, found by bisection
        # among the breaks, then cut out of the text.
        first = slots(0)
        label_width = self.label_width
        if first is None or first[1] - first[0] < label_width:
            return None
        text, breaks = self.text, self.breaks
        last = len(breaks) - 1
        lines: list[tuple[float, str]] = []
        x, end = first[0] + label_width, first[1]
        start = 0  # the break this line starts at
        while True:
            fits = int((end - x) // CHAIN_CHAR)  # characters
            if fits < 0:  # the label took it all (to within rounding)
                fits = 0
            stop = bisect_right(breaks, breaks[start] + fits, start) - 1
            if stop == last:
                lines.append((x, text[breaks[start] :]))
                break
            if stop == start and lines:  # even an empty line is too short for the link
                return None
            # The first line may stay empty: the label alone fills it.
            lines.append((x, text[breaks[start] : breaks[stop]]))
            start = stop
            room = slots(len(lines))
            if room is None:
                return None
            x, end = room
        return _ChainLines(self.kind, self.on, self.label, first[0], tuple(lines))


@dataclass(frozen=True, slots=True)
class _CaptionLines:
    letter_x: float
    letter: str
    name: str
    dealer_x: float | None
    """Where the dealer's mark stands after the name (``None``: he does not deal)."""
    bombs: tuple[tuple[int, int, float], ...]
    """(line, multiplier, x) of each queued bomb, in the order they will be played."""

    @property
    def count(self) -> int:
        return 1 + max((line for line, _, _ in self.bombs), default=0)

    def draw(self, svg: _Svg, top: float) -> None:
        baseline = top + CAPTION_LINE / 2 + NAME_FONT * 0.36
        letter_x = self.letter_x
        svg.open("g", class_="sheet-caption")
        svg.text(letter_x, baseline, self.letter, class_="sheet-letter", font_size=_n(LETTER_FONT))
        svg.text(
            letter_x + LETTER_WIDTH,
            baseline,
            self.name,
            class_="sheet-name",
            font_size=_n(NAME_FONT),
        )
        svg.close("g")
        if self.dealer_x is not None:
            _draw_dealer_mark(svg, self.dealer_x, top + CAPTION_LINE / 2)
        for line, multiplier, x in self.bombs:
            _draw_bomb(svg, x, top + line * CAPTION_LINE + CAPTION_LINE / 2, multiplier)


@dataclass(frozen=True, slots=True)
class _CaptionBlock:
    """The sector letter, the player's name, the dealer's mark if he deals and his queued
    bombs, in reading order."""

    letter: str
    name: str
    """The name as shown where there is room for it: cleaned, at most ``NAME_MAX`` long."""
    name_width: float
    bombs: tuple[int, ...]
    dealer: bool = False

    @classmethod
    def of(
        cls, letter: str, name: str, bombs: Sequence[int], *, dealer: bool = False
    ) -> _CaptionBlock:
        name = _shown_name(name)
        return cls(letter, name, _text_width(name, NAME_FONT), tuple(bombs), dealer)

    def layout(self, slots: Slots) -> _CaptionLines | None:
        first = slots(0)
        if first is None:
            return None
        x0, end = first
        mark = DEALER_MARK_WIDTH if self.dealer else 0.0
        name, width = self.name, self.name_width
        while name and width > end - x0 - LETTER_WIDTH - mark:
            name = name[:-2] + "…" if len(name) > 1 else ""
            width = _text_width(name, NAME_FONT)
        dealer_x = x0 + LETTER_WIDTH + width + 6 if self.dealer else None
        x = x0 + LETTER_WIDTH + width + 10 if dealer_x is None else dealer_x + mark
        line = 0
        bombs: list[tuple[int, int, float]] = []
        for bomb in self.bombs:
            width = BOMB_WIDTH.get(bomb, BOMB_WIDTH[8])
            if x + width > end:
                line += 1
                room = slots(line)
                if room is None or room[1] - room[0] < width:
                    return None
                x, end = room
            bombs.append((line, bomb, x))
            x += width
        return _CaptionLines(x0, self.letter, name, dealer_x, tuple(bombs))


@dataclass(frozen=True, slots=True)
class _Band:
    """A strip of a sector parallel to its edge, split into columns."""

    name: str
    blocks: tuple[_Block, ...]
    min_lines: int
    line: float
    share: float = 0.0
    """The least part of the sector's depth the band takes, so that a short pulka still
    looks like the paper sheet (wide whists, a pool band, the mountain in the middle)."""

    def measure(self, frame: _Frame, top: float = BAND_PAD) -> tuple[tuple[_Laid, ...], float]:
        """The columns laid out from ``top`` and the depth they need (``inf``: no room)."""
        laid: list[_Laid] = []
        for column, block in enumerate(self.blocks):
            result = block.layout(frame.slots(column, top, self.line))
            if result is None:
                return (), math.inf
            laid.append(result)
        lines = max(max(r.count for r in laid), self.min_lines)
        return tuple(laid), lines * self.line + 2 * BAND_PAD


@dataclass(frozen=True, slots=True)
class _Placed:
    frame: _Frame
    band: _Band
    laid: tuple[_Laid, ...]
    top: float
    depth: float
    need: float
    """The depth the writing needs, at most ``depth``."""


def _bands(player: PlayerChains, bombs: Sequence[int], *, dealer: bool) -> list[_Band]:
    letters = seat_letters()
    whists = tuple(
        _ChainBlock.of(
            gettext("whists on %(letter)s") % {"letter": letters[on]}, chain.links, "whists", on
        )
        for on, chain in player.whists
    )
    caption = _CaptionBlock.of(player.letter, player.name, bombs, dealer=dealer)
    pool = _ChainBlock.of(pgettext("sheet", "pool"), player.pool.links, "pool")
    mountain = _ChainBlock.of(pgettext("sheet", "mountain"), player.mountain.links, "mountain")
    return [
        _Band("caption", (caption,), 1, CAPTION_LINE),
        _Band("whists", whists, 2, CHAIN_LINE, share=0.24),
        _Band("pool", (pool,), 2, CHAIN_LINE, share=0.18),
        _Band("mountain", (mountain,), 3, CHAIN_LINE),
    ]


def _plan(
    sheet: _Sheet, bands: Sequence[Sequence[_Band]], order: list[int] | None = None
) -> list[_Placed] | None:
    """Every band of every sector placed from the edge inwards, each as deep as its writing
    needs where it lies; ``None`` if something does not fit on this sheet. The writing
    starts at each band's top line; ``_moved_out`` places it for the sheet finally drawn.

    The sectors are laid out independently of one another, in ``order`` (seats) when given;
    the seat whose sector does not fit is then moved to its front, so the next height tried
    fails at once where this one did. The placements come grouped by seat, in seat order."""
    by_seat: list[list[_Placed]] = [[] for _ in sheet.sectors]
    for seat in range(len(sheet.sectors)) if order is None else list(order):
        sector = sheet.sectors[seat]
        placed = _plan_sector(sheet, sector, bands[seat])
        if placed is None:
            if order is not None:
                order.remove(seat)
                order.insert(0, seat)
            return None
        by_seat[seat] = placed
    return [placed for sector in by_seat for placed in sector]


def _plan_sector(sheet: _Sheet, sector: _Sector, bands: Sequence[_Band]) -> list[_Placed] | None:
    """``sector``'s bands placed as ``_plan`` places them, or ``None``."""
    placed: list[_Placed] = []
    t = 0.0
    room = sector.centre[1] - RADIUS - ARROW_ROOM
    for band in bands:
        least = max(band.min_lines * band.line + 2 * BAND_PAD, band.share * room)
        depth = least
        while True:  # deeper bands are shorter, so their writing may need more lines
            frame = _Frame.of(sheet, sector, t, t + depth, len(band.blocks))
            if frame is None:
                return None
            laid, need = band.measure(frame)
            if need == math.inf:
                return None
            if need <= depth + 1e-6:
                break
            depth = max(need, depth + band.line)
        placed.append(_Placed(frame, band, laid, BAND_PAD, depth, need))
        t += depth
    return placed


def _moved_out(placed: _Placed) -> _Placed:
    """Spare depth: the writing moved out to the sheet's edge, where lines are no shorter,
    so it still fits (re-laid for the longer lines there). Whether a sheet holds everything
    never depends on this, so only the sheet that is drawn does it."""
    frame, depth, need = placed.frame, placed.depth, placed.need
    if depth > need and not frame.top_is_outer:
        top = BAND_PAD + depth - need
        shifted, again = placed.band.measure(frame, top)
        if again <= need:
            return replace(placed, laid=shifted, top=top)
    return placed


# -- drawing a sector --------------------------------------------------------------------------


def _draw_sector(
    svg: _Svg,
    sheet: _Sheet,
    sector: _Sector,
    player: PlayerChains,
    bands: Sequence[_Placed],
    dealer: int | None,
) -> None:
    classes = f"sector sector-{sector.seat}" + (" is-dealer" if sector.seat == dealer else "")
    svg.open(
        "g",
        class_=classes,
        data_seat=str(sector.seat),
        data_letter=player.letter,
        data_edge=sector.edge,
    )
    svg.text_element("title", f"{player.letter} — {_clean(player.name)}")
    svg.empty("polygon", class_="sector-area", points=_points(sector.polygon), fill="none")
    for placed in bands[:-1]:  # the rule after each band; the mountain runs to the centre
        t = placed.frame.t1
        stretch = sheet.cross(sector, t, RADIUS)
        if stretch is not None:
            light = " sheet-rule-light" if placed.band.name == "caption" else ""
            _line(svg, sheet, sector, (stretch[0], t), (stretch[1], t), light)
    for placed in bands:
        _draw_band(svg, placed)
    svg.close("g")


def _draw_band(svg: _Svg, placed: _Placed) -> None:
    frame = placed.frame
    svg.open("g", class_=f"sheet-band sheet-band-{placed.band.name}", transform=frame.transform)
    for x in frame.dividers:
        svg.empty(
            "line",
            class_="sheet-rule",
            x1=_n(x),
            y1="0",
            x2=_n(x),
            y2=_n(frame.depth),
            stroke="#000",
        )
    for laid in placed.laid:
        laid.draw(svg, placed.top)
    svg.close("g")


def _line(
    svg: _Svg, sheet: _Sheet, sector: _Sector, a: Point, b: Point, extra_class: str = ""
) -> None:
    (x1, y1), (x2, y2) = sheet.to_screen(sector, *a), sheet.to_screen(sector, *b)
    svg.empty(
        "line",
        class_="sheet-rule" + extra_class,
        x1=_n(x1),
        y1=_n(y1),
        x2=_n(x2),
        y2=_n(y2),
        stroke="#000",
    )


def _draw_dealer_mark(svg: _Svg, x: float, middle: float) -> None:
    """The current dealer's mark after his name: a small pack of two cards, «deals»."""
    svg.open("g", class_="dealer-mark")
    svg.text_element("title", pgettext("the dealer's mark on the sheet", "deals"))
    for dx, dy in ((0.0, -7.0), (4.0, -5.0)):
        svg.empty(
            "rect",
            class_="dealer-card",
            x=_n(x + dx),
            y=_n(middle + dy),
            width="8",
            height="12",
            rx="1.5",
            fill="#fff",
            stroke="#000",
        )
    svg.close("g")


def _draw_bomb(svg: _Svg, x: float, middle: float, multiplier: int) -> None:
    """A bomb (×2), a double bomb (×4) or a fir tree, ёлка (×8), as in seed 001."""
    svg.open("g", class_=f"sheet-bomb sheet-bomb-{multiplier}", data_bomb=str(multiplier))
    cy = middle + 1
    if multiplier >= 8:
        cx = x + 7
        svg.empty(
            "polygon",
            class_="sheet-tree",
            points=_points(
                [
                    (cx, cy - 9),
                    (cx + 5, cy - 3),
                    (cx + 3, cy - 3),
                    (cx + 7, cy + 3),
                    (cx - 7, cy + 3),
                    (cx - 3, cy - 3),
                    (cx - 5, cy - 3),
                ]
            ),
            fill="#000",
        )
        svg.empty("rect", x=_n(cx - 1.5), y=_n(cy + 3), width="3", height="4", fill="#000")
        label_x = x + 16
    else:
        cx = x + 6
        for k in range(2 if multiplier == 4 else 1):
            bx = cx + 8 * k
            svg.empty("circle", class_="sheet-bomb-body", cx=_n(bx), cy=_n(cy), r="5.5")
            svg.empty(
                "path",
                class_="sheet-fuse",
                d=f"M{_n(bx + 3.5)} {_n(cy - 4)}q2 -5 6 -4",
                fill="none",
                stroke="#000",
            )
        label_x = cx + 8 * (1 if multiplier == 4 else 0) + 10
    svg.text(label_x, middle + 4, f"×{multiplier}", class_="sheet-bomb-label", font_size="10.5")
    svg.close("g")


# -- the lines, the centre and the arrow -----------------------------------------------------


def _draw_frame(svg: _Svg, sheet: _Sheet) -> None:
    cx, cy = sheet.centre
    svg.open("g", class_="sheet-lines", stroke="#000")
    for x, y in sheet.corners:
        dx, dy = x - cx, y - cy
        size = math.hypot(dx, dy)
        start = (cx + dx / size * RADIUS, cy + dy / size * RADIUS)
        svg.empty(
            "line",
            class_="sheet-rule sheet-rule-bold",
            x1=_n(start[0]),
            y1=_n(start[1]),
            x2=_n(x),
            y2=_n(y),
        )
    svg.empty(
        "rect",
        class_="sheet-border",
        x="1",
        y="1",
        width=_n(sheet.width - 2),
        height=_n(sheet.height - 2),
        fill="none",
    )
    svg.close("g")


def _draw_centre(svg: _Svg, sheet: _Sheet, pulka: Pulka, control_time: str | None) -> None:
    cx, cy = sheet.centre
    setup = pulka.setup
    svg.open("g", class_="sheet-centre", text_anchor="middle")
    svg.empty(
        "circle",
        class_="sheet-circle",
        cx=_n(cx),
        cy=_n(cy),
        r=_n(RADIUS),
        fill="#fff",
        stroke="#000",
    )
    lines: list[tuple[str, str, float]] = [
        (pgettext("sheet", "pool"), "sheet-centre-label", 10.0),
        (str(setup.pool_target), "sheet-target", 24.0),
        (gettext("whist %(price)s") % {"price": _price(setup.whist_price)}, "sheet-price", 11.0),
    ]
    if control_time:
        shown = _clean(control_time)
        if len(shown) > 12:
            shown = shown[:11] + "…"
        lines.append((gettext("until %(time)s") % {"time": shown}, "sheet-control", 11.0))
    if pulka.last_round:  # the count of deals left is on the page, which changes with it
        lines.append((pgettext("sheet", "last round"), "sheet-last-round", 9.5))
    gaps = [size * 1.2 for _, _, size in lines]
    y = cy - sum(gaps) / 2
    for (text, cls, size), gap in zip(lines, gaps, strict=True):
        y += gap
        svg.text(cx, y - gap * 0.22, text, class_=cls, font_size=_n(size))
    svg.close("g")


def _draw_arrow(svg: _Svg, sheet: _Sheet, first_dealer: int) -> None:
    """An arrow from the circle into the first dealer's sector (seed field 1, §13.13): who
    dealt first, so who deals first in every circle."""
    cx, cy = sheet.centre
    sector = sheet.sectors[first_dealer]
    mx, my = _centroid(sector.polygon)
    size = math.hypot(mx - cx, my - cy)
    dx, dy = (mx - cx) / size, (my - cy) / size
    start = RADIUS + 2
    tip = RADIUS + ARROW_ROOM - 3
    base = tip - 11

    def at(r: float, side: float = 0) -> Point:
        return (cx + dx * r - dy * side, cy + dy * r + dx * side)

    letter = seat_letter(first_dealer)
    svg.open(
        "g",
        class_=f"dealer-arrow dealer-seat-{first_dealer}",
        data_first_dealer=str(first_dealer),
        data_letter=letter,
    )
    svg.text_element("title", gettext("First dealer: %(letter)s") % {"letter": letter})
    (x1, y1), (x2, y2) = at(start), at(base)
    svg.empty("line", x1=_n(x1), y1=_n(y1), x2=_n(x2), y2=_n(y2), stroke="#000")
    svg.empty(
        "polygon",
        class_="dealer-arrowhead",
        points=_points([at(tip), at(base, 6), at(base, -6)]),
        fill="#000",
    )
    svg.close("g")


def _centroid(polygon: Sequence[Point]) -> Point:
    area = sx = sy = 0.0
    for (x0, y0), (x1, y1) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        cross = x0 * y1 - x1 * y0
        area += cross
        sx += (x0 + x1) * cross
        sy += (y0 + y1) * cross
    return (sx / (3 * area), sy / (3 * area))


# -- writing SVG ---------------------------------------------------------------------------------


class _Svg:
    """A tiny SVG writer: attribute names are Python-friendly (``class_``, ``data_seat``,
    ``font_size``) and every value and text is escaped."""

    def __init__(self) -> None:
        self._parts: list[str] = []

    def _tag(self, name: str, attrs: dict[str, str]) -> str:
        written = "".join(f' {_attr_name(k)}="{_escape(v)}"' for k, v in attrs.items())
        return f"<{name}{written}"

    def open(self, name: str, **attrs: str) -> None:
        self._parts.append(self._tag(name, attrs) + ">")

    def close(self, name: str) -> None:
        self._parts.append(f"</{name}>")

    def empty(self, name: str, **attrs: str) -> None:
        self._parts.append(self._tag(name, attrs) + "/>")

    def text_element(self, name: str, text: str, **attrs: str) -> None:
        self._parts.append(f"{self._tag(name, attrs)}>{_escape(text)}</{name}>")

    def text(self, x: float, y: float, text: str, **attrs: str) -> None:
        self.text_element("text", text, x=_n(x), y=_n(y), **attrs)

    def getvalue(self) -> str:
        return "".join(self._parts)


def _attr_name(key: str) -> str:
    """``class_`` → ``class``, ``data_seat`` → ``data-seat``; camelCase SVG names as given."""
    return "class" if key == "class_" else key.replace("_", "-")


def _clean(text: str) -> str:
    """``text`` without the characters XML cannot hold even escaped (control characters)."""
    return _XML_INVALID.sub("", text)


def _escape(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return html.escape(_clean(text), quote=True)


def _n(value: float) -> str:
    """A coordinate to one decimal, without trailing zeros."""
    shown = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if shown in ("-0", "") else shown


def _points(points: Sequence[Point]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _price(price: Decimal) -> str:
    """The whist's price in the page's language («0,50», «0.50»): a money figure, not a
    link of a chain, so it is written as every other figure on the page."""
    return number(price)


def _text_width(text: str, size: float) -> float:
    """A generous estimate of a proportional font's width of ``text``."""
    width = 0.0
    for char in text:
        if unicodedata.east_asian_width(char) in ("W", "F"):
            width += 1.0
        elif char.isspace():
            width += 0.35
        elif char.isupper() or char in "шщжмюыфШЩЖМЮЫФ":
            width += 0.75
        else:
            width += 0.62
    return width * size
