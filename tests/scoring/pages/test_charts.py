"""Server-drawn SVG line charts (scoring/pages/charts.py): well-formed, accessible, CSP-safe."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

from scoring.pages.charts import _thinned, _ticks, line_chart

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # noqa: S314 - our own output, parsed to check it


def texts(root: ET.Element, cls: str) -> list[str]:
    return [e.text or "" for e in root.iter(f"{SVG}text") if cls in e.get("class", "").split()]


def test_a_chart_is_a_standalone_scalable_labelled_svg() -> None:
    svg = line_chart(
        [("Anna", [("1 Mar", Decimal("66.67")), ("2 Mar", Decimal("-33.33")), ("3 Mar", 10)])],
        title="Preferans: cumulative result",
        y_label="whists",
    )

    root = parse(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox") == "0 0 360 220"
    assert root.get("width") is None  # it scales to its column (CSS)
    assert root.get("role") == "img"
    assert root.get("aria-label") == "Preferans: cumulative result"
    assert root.find(f"{SVG}title").text == "Preferans: cumulative result"
    assert "3 points from 1 Mar to 3 Mar, last 10" in root.find(f"{SVG}desc").text
    assert texts(root, "chart-y-label") == ["whists"]
    assert texts(root, "chart-value") == ["10"]
    # The x labels, the y ticks (round numbers covering zero and every value).
    ticks = texts(root, "chart-tick")
    assert ticks[-3:] == ["1 Mar", "2 Mar", "3 Mar"]
    assert ticks[:-3] == ["\u221250", "\u221225", "0", "25", "50", "75"]
    (line,) = root.iter(f"{SVG}polyline")
    assert len(line.get("points").split()) == 3
    assert len(list(root.iter(f"{SVG}circle"))) == 3


def test_the_zero_line_is_drawn_and_the_axis_has_a_few_ticks() -> None:
    root = parse(line_chart([("A", [("a", 5), ("b", 120)])], title="t", y_label="y"))

    zero = [e for e in root.iter(f"{SVG}line") if e.get("class") == "chart-zero"]
    grid = [e for e in root.iter(f"{SVG}line") if e.get("class") == "chart-grid"]
    assert len(zero) == 1
    assert 3 <= len(zero) + len(grid) <= 7


def test_no_style_attributes_and_classes_for_colours() -> None:
    svg = line_chart([("A", [("a", 1), ("b", 2)]), ("B", [("a", 2)])], title="t", y_label="y")

    assert "style" not in svg
    root = parse(svg)
    groups = [g.get("class") for g in root.iter(f"{SVG}g")]
    assert "chart-series-0" in groups
    assert "chart-series-1" in groups
    assert texts(root, "chart-legend") == ["A", "B"]  # a legend once there are two lines


def test_every_text_is_escaped() -> None:
    evil = "<script>alert(\"x\")</script> & 'co'"
    svg = line_chart([(evil, [(evil, 1)])], title=evil, y_label=evil, empty_text=evil)

    assert "<script>" not in svg
    root = parse(svg)
    assert root.find(f"{SVG}title").text == evil
    assert texts(root, "chart-y-label") == [evil]
    assert evil in texts(root, "chart-tick")


@pytest.mark.parametrize("series", [[], [("Anna", [])]])
def test_no_data_says_so(series: list) -> None:
    root = parse(line_chart(series, title="Boston", y_label="chips"))

    assert texts(root, "chart-empty") == ["No games yet"]
    assert not list(root.iter(f"{SVG}polyline"))
    assert root.find(f"{SVG}desc").text == "No games yet"


def test_a_chart_may_say_something_else_when_empty() -> None:
    root = parse(line_chart([], title="t", y_label="y", empty_text="No games in this season"))

    assert texts(root, "chart-empty") == ["No games in this season"]


def test_a_single_point_is_a_visible_dot_in_the_middle() -> None:
    root = parse(line_chart([("Anna", [("3 Nov", 2.01)])], title="Rating", y_label="rating"))

    (dot,) = root.iter(f"{SVG}circle")
    assert float(dot.get("cx")) == pytest.approx((46 + 348) / 2)
    assert texts(root, "chart-value") == ["2.01"]
    assert texts(root, "chart-tick")[-1] == "3 Nov"


def test_many_points_draw_a_line_without_dots_and_few_x_labels() -> None:
    points = [(f"d{i}", i % 7 - 3) for i in range(100)]

    root = parse(line_chart([("A", points)], title="t", y_label="y"))

    (line,) = root.iter(f"{SVG}polyline")
    assert len(line.get("points").split()) == 100
    assert not list(root.iter(f"{SVG}circle"))
    assert [t for t in texts(root, "chart-tick") if t.startswith("d")] == [
        "d0",
        "d33",
        "d66",
        "d99",
    ]


def test_a_short_line_keeps_every_point() -> None:
    svg = line_chart(
        [("Anna", [("1 Mar", Decimal("66.67")), ("2 Mar", Decimal("-33.33")), ("3 Mar", 10)])],
        title="t",
        y_label="y",
    )

    (line,) = parse(svg).iter(f"{SVG}polyline")
    # Ticks -50..75 over the plot's 162 units (y 188 up to 26): y = 188 - (v + 50) * 1.296.
    assert line.get("points") == "46.0,36.8 197.0,166.4 348.0,110.2"


def test_a_long_line_is_thinned_to_what_the_plot_can_show() -> None:
    values = [i % 10 for i in range(5000)]
    values[2500] = 40  # the highest point
    values[3000] = -20  # the lowest
    points = [(f"d{i}", v) for i, v in enumerate(values)]

    root = parse(line_chart([("A", points)], title="t", y_label="y"))

    assert [t for t in texts(root, "chart-tick") if not t.startswith("d")] == [
        "\u221220",
        "0",
        "20",
        "40",
    ]
    # So y = 188 - (v + 20) * 162 / 60 and x = 46 + i * 302 / 4999.
    (line,) = root.iter(f"{SVG}polyline")
    coordinates = line.get("points").split()
    assert len(coordinates) <= 4 * (302 + 1)  # at most four a unit column of the plot
    xs = [float(c.split(",")[0]) for c in coordinates]
    assert xs == sorted(xs)
    assert coordinates[0] == "46.0,134.0"  # d0 = 0
    assert coordinates[-1] == "348.0,109.7"  # d4999 = 9
    assert "197.0,26.0" in coordinates  # d2500 = 40
    assert "227.2,188.0" in coordinates  # d3000 = -20
    # Everything else is drawn from every point.
    (value,) = (e for e in root.iter(f"{SVG}text") if e.get("class") == "chart-value")
    assert (value.text, value.get("x"), value.get("y")) == ("9", "348.0", "102.7")
    assert not list(root.iter(f"{SVG}circle"))
    assert [t for t in texts(root, "chart-tick") if t.startswith("d")] == [
        "d0",
        "d1666",
        "d3333",
        "d4999",
    ]
    assert root.find(f"{SVG}desc").text == "A: 5000 points from d0 to d4999, last 9"


def test_thinning_keeps_the_first_last_lowest_and_highest_point_of_each_column() -> None:
    line = [
        (46.1, 50.0),
        (46.2, 90.0),
        (46.5, 10.0),
        (46.7, 70.0),  # neither first, last, lowest nor highest of its column
        (46.9, 60.0),
        (47.2, 80.0),
        (47.5, 80.0),
        (49.0, 30.0),
    ]

    assert _thinned(line) == [
        (46.1, 50.0),
        (46.2, 90.0),
        (46.5, 10.0),
        (46.9, 60.0),
        (47.2, 80.0),
        (47.5, 80.0),
        (49.0, 30.0),
    ]


@pytest.mark.parametrize(
    ("low", "high", "ticks"),
    [
        (0, 0, [0, 0.25, 0.5, 0.75, 1]),
        (5, 120, [0, 50, 100, 150]),
        (-33.33, 66.67, [-50, -25, 0, 25, 50, 75]),
        (-0.3, 0.2, [-0.4, -0.2, 0, 0.2]),
        (1500, 9000, [0, 2500, 5000, 7500, 10000]),
        (0, 2.74, [0, 1, 2, 3]),
    ],
)
def test_ticks_are_round_and_cover_zero(low: float, high: float, ticks: list[float]) -> None:
    assert _ticks(low, high) == ticks
