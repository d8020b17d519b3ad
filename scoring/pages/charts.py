"""Line charts drawn on the server as standalone SVG.

No chart script: the site's Content Security Policy allows no inline script or style, and a
phone should not download a library to draw one line. The SVG carries no ``style``
attribute; its colours and type sizes come from classes in ``static/css/standings.css``,
with plain presentation attributes as a fallback so the file reads on its own.

The drawing is 360 × 220 units: on a 360 px phone one unit is about one pixel, so the
11-unit labels stay legible; CSS lets it scale to the column's width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from html import escape
from itertools import groupby

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from scoring.templatetags.amounts import figure

Number = Decimal | int | float
Point = tuple[str, Number]
Series = tuple[str, Sequence[Point]]

WIDTH, HEIGHT = 360, 220
LEFT, RIGHT, TOP, BOTTOM = 46, 12, 26, 188  # the plot area inside the drawing
MAX_X_LABELS = 4
MAX_MARKED_POINTS = 40  # beyond this the dots would merge into the line
PLOT_WIDTH = WIDTH - RIGHT - LEFT
MAX_LINE_POINTS = 2 * PLOT_WIDTH  # beyond this a line is thinned to what can be seen (_thinned)


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    y_label: str,
    empty_text: str | None = None,
) -> SafeString:
    """A standalone ``<svg>`` drawing each ``(label, [(x_label, value), …])`` series as a
    line. The i-th point of every series shares the i-th x position; the x labels are the
    longest series'. The y axis always includes zero and draws a zero line. With no points
    at all the chart says ``empty_text`` ("No games yet"). Every text is escaped."""
    points = [
        (label, [(str(x), float(v)) for x, v in values if _finite(v)]) for label, values in series
    ]
    points = [(label, values) for label, values in points if values]
    text = empty_text if empty_text is not None else gettext("No games yet")
    summary = _summary(points) or text
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'class="chart" role="img" aria-label="{_e(title)}" '
        f'font-family="system-ui, sans-serif" font-size="11">'
        f"<title>{_e(title)}</title><desc>{_e(summary)}</desc>"
        f'<text x="4" y="14" class="chart-y-label" fill="currentColor">{_e(y_label)}</text>'
    )
    if not points:
        return mark_safe(  # noqa: S308 - every text inside is escaped by _e
            f"{head}"
            f'<text x="{WIDTH / 2:g}" y="{HEIGHT / 2:g}" text-anchor="middle" '
            f'class="chart-empty" fill="currentColor">{_e(text)}</text></svg>'
        )
    values = [v for _label, series_points in points for _x, v in series_points]
    ticks = _ticks(min(values), max(values))
    low, high = ticks[0], ticks[-1]
    length = max(len(series_points) for _label, series_points in points)

    def x_at(i: int) -> float:
        if length == 1:
            return (LEFT + WIDTH - RIGHT) / 2
        return LEFT + i * (WIDTH - RIGHT - LEFT) / (length - 1)

    def y_at(value: float) -> float:
        return BOTTOM - (value - low) * (BOTTOM - TOP) / (high - low)

    parts = [head]
    step = ticks[1] - ticks[0]
    for tick in ticks:
        y = y_at(tick)
        kind = "chart-zero" if tick == 0 else "chart-grid"
        parts.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" class="{kind}" '
            f'stroke="currentColor" stroke-opacity="{0.6 if tick == 0 else 0.15}"/>'
            f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end" class="chart-tick" '
            f'fill="currentColor">{_e(_number(tick, step))}</text>'
        )
    parts.append(
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{BOTTOM}" class="chart-axis" '
        f'stroke="currentColor"/>'
    )
    longest = max((series_points for _label, series_points in points), key=len)
    for i in _label_indices(length):
        anchor = "start" if i == 0 and length > 1 else "end" if i == length - 1 else "middle"
        if length == 1:
            anchor = "middle"
        parts.append(
            f'<text x="{x_at(i):.1f}" y="{BOTTOM + 16}" text-anchor="{anchor}" '
            f'class="chart-tick" fill="currentColor">{_e(longest[i][0])}</text>'
        )
    for n, (label, series_points) in enumerate(points):
        colour = f"chart-series-{n % 4}"
        drawn = [(x_at(i), y_at(v)) for i, (_x, v) in enumerate(series_points)]
        if len(drawn) > MAX_LINE_POINTS:
            drawn = _thinned(drawn)
        coordinates = " ".join(f"{x:.1f},{y:.1f}" for x, y in drawn)
        parts.append(
            f'<g class="{colour}"><title>{_e(label)}</title>'
            f'<polyline points="{coordinates}" class="chart-line" fill="none" '
            f'stroke="currentColor" stroke-width="2" stroke-linejoin="round"/>'
        )
        if len(series_points) <= MAX_MARKED_POINTS:
            parts.extend(
                f'<circle cx="{x_at(i):.1f}" cy="{y_at(v):.1f}" r="3" class="chart-point" '
                f'fill="currentColor"/>'
                for i, (_x, v) in enumerate(series_points)
            )
        last_i, (_x, last) = len(series_points) - 1, series_points[-1]
        # The last value is written on the side of its point away from the line coming in.
        x, y = min(x_at(last_i), WIDTH - RIGHT), y_at(last)
        if last_i > 0 and last < series_points[-2][1]:
            x, y = (x, y + 16) if y + 16 <= BOTTOM else (x - 7, y + 4)
        else:
            y -= 7
        anchor = "middle" if length == 1 else "end"
        parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="chart-value" '
            f'fill="currentColor">{_e(_number(last, 0.01))}</text></g>'
        )
    parts.extend(_legend(points))
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text inside is escaped by _e


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _finite(value: Number) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def _ticks(low: float, high: float) -> list[float]:
    """Round tick values (1, 2, 2.5 or 5 × a power of ten apart) covering zero, low and high."""
    low, high = min(low, 0.0), max(high, 0.0)
    if high == low:
        high = low + 1
    raw = (high - low) / 4
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(k * step, 10) for k in range(first, last + 1)]


def _number(value: float, step: float = 1) -> str:
    """A tick or value as the page's language writes it (``amounts.figure``: the decimal
    comma in Russian, as in the tables beside the chart), no needless decimals, a real
    minus sign."""
    places = 0 if step >= 1 and float(value).is_integer() else 2
    return figure(value, places=places)


def _thinned(coordinates: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points of a line that can be seen at the drawing's scale ("min-max decimation").

    A member's rating has a point per table played, so over a club's history the line
    would grow without bound while the plot stays ``PLOT_WIDTH`` units wide: most of the
    points share an x position. Within each one-unit column of x only four points change
    the drawing: the first and the last (where the line comes in and goes out) and the
    lowest and the highest (how far it reaches); the others lie on the vertical stroke
    between those. They are kept in their order, each once, so the line has at most four
    points a column, and the first and the last point of the line are always among them.
    """
    kept: list[tuple[float, float]] = []
    for _column, group in groupby(coordinates, key=lambda point: math.floor(point[0])):
        column = list(enumerate(group))
        picks = {
            column[0][0],
            column[-1][0],
            min(column, key=lambda item: item[1][1])[0],
            max(column, key=lambda item: item[1][1])[0],
        }
        kept.extend(column[i][1] for i in sorted(picks))
    return kept


def _label_indices(length: int) -> list[int]:
    if length <= MAX_X_LABELS:
        return list(range(length))
    picks = {round(k * (length - 1) / (MAX_X_LABELS - 1)) for k in range(MAX_X_LABELS)}
    return sorted(picks)


def _legend(points: Sequence[tuple[str, list[tuple[str, float]]]]) -> list[str]:
    if len(points) < 2:
        return []
    parts = []
    x = float(LEFT)
    for n, (label, _values) in enumerate(points):
        parts.append(
            f'<g class="chart-series-{n % 4}">'
            f'<line x1="{x:.0f}" y1="{HEIGHT - 8}" x2="{x + 14:.0f}" y2="{HEIGHT - 8}" '
            f'stroke="currentColor" stroke-width="3" class="chart-line"/>'
            f'<text x="{x + 18:.0f}" y="{HEIGHT - 4}" class="chart-legend" '
            f'fill="currentColor">{_e(label)}</text></g>'
        )
        x += 26 + 6.5 * len(label)
    return parts


def _summary(points: Sequence[tuple[str, list[tuple[str, float]]]]) -> str:
    """The text a screen reader gives instead of the picture."""
    if not points:
        return ""
    lines = []
    for label, values in points:
        numbers = [v for _x, v in values]
        lines.append(
            ngettext(
                "%(label)s: %(count)d point, %(first)s, value %(value)s",
                "%(label)s: %(count)d points from %(first)s to %(last)s, last %(value)s",
                len(values),
            )
            % {
                "label": label,
                "count": len(values),
                "first": values[0][0],
                "last": values[-1][0],
                "value": _number(numbers[-1], 0.01),
            }
        )
    return "; ".join(lines)
