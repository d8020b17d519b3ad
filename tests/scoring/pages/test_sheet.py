"""The pulka sheet drawing (scoring/pages/sheet.py): its chains, and an SVG that is well-formed,
safe under the site's Content Security Policy and laid out without overflow.

Plain functions: no database. The SVG is our own output, so parsing it with ElementTree is
safe (hence the ``noqa: S314``).
"""

from __future__ import annotations

import functools
import json
import math
import re
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import pytest
from django.utils import translation

from scoring.engine.preferans.deals import Adjustment, Concede, Deal, Game, Misere, Passout
from scoring.engine.preferans.pulka import Pulka, PulkaSetup
from scoring.engine.preferans.record import parse_record
from scoring.engine.preferans.rules import PreferansRules
from scoring.pages import sheet
from scoring.pages.sheet import format_amount, pulka_chains, pulka_svg

SVG = "{http://www.w3.org/2000/svg}"
EXAMPLES = Path(__file__).parents[1] / "engine" / "examples"
THREE = ("Anna", "Boris", "Vera")
FOUR = ("Anna", "Boris", "Vera", "Gleb")

Point = tuple[float, float]


@pytest.fixture(autouse=True)
def russian():
    """The sheet as the club draws it, in Russian, the site's language (the tests run in
    English by default: tests/conftest.py); the English sheet has tests of its own."""
    with translation.override("ru"):
        yield


# -- building pulkas -----------------------------------------------------------------------------


def example(name: str) -> Pulka:
    setup, deals = parse_record(json.loads((EXAMPLES / f"{name}.json").read_text()))
    return played(setup, deals)


def played(setup: PulkaSetup, deals: list[Deal]) -> Pulka:
    pulka = Pulka(setup)
    for deal in deals:
        pulka.play(deal)
    return pulka


def new(players: tuple[str, ...] = THREE, rules: str = "sochi", **setup: int) -> Pulka:
    return Pulka(PulkaSetup(players=players, rules=PreferansRules.preset(rules), **setup))


def unplayed_game(pulka: Pulka, declarer: int, level: int) -> Game:
    """A contract both defenders pass: the declarer just writes its value."""
    return Game(declarer, level, "S", dict.fromkeys(pulka.defenders(declarer), "pass"))


def busy(players: tuple[str, ...], deals: int) -> Pulka:
    """A long Sochi pulka that never closes: games made and failed, misères, pass-outs."""
    pulka = new(players, pool_target=10_000)
    for i in range(deals):
        active = pulka.active_seats()
        declarer = active[i % len(active)]
        first, second = pulka.defenders(declarer)
        match i % 5:
            case 0:
                pulka.play(Passout(tricks=dict(zip(active, (4, 3, 3), strict=True))))
            case 1:
                answers = {first: "whist", second: "pass"}
                pulka.play(Game(declarer, 6, "S", answers, {declarer: 6, first: 3, second: 1}))
            case 2:
                answers = {first: "whist", second: "whist"}
                pulka.play(Game(declarer, 7, "H", answers, {declarer: 5, first: 3, second: 2}))
            case 3:
                pulka.play(Misere(declarer, i % 2))
            case _:
                pulka.play(unplayed_game(pulka, declarer, 8))
    return pulka


def dark_passouts(players: tuple[str, ...], count: int) -> Pulka:
    """A Classic pulka after ``count`` dark pass-outs in a row, nobody looking."""
    pulka = new(players, rules="classic")
    for _ in range(count):
        active = pulka.active_seats()
        pulka.play(Passout(tricks=dict(zip(active, (4, 3, 3), strict=True)), dark=True))
    return pulka


# -- reading the SVG -----------------------------------------------------------------------------


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # noqa: S314 - our own output


def classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def with_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if name in classes(e)]


def sectors(root: ET.Element) -> dict[int, ET.Element]:
    return {int(e.get("data-seat", "")): e for e in with_class(root, "sector")}


def polygon(sector: ET.Element) -> list[Point]:
    area = with_class(sector, "sector-area")[0]
    return [(float(x), float(y)) for x, y in (p.split(",") for p in area.get("points", "").split())]


def inside(point: Point, shape: list[Point], slack: float = 0.5) -> bool:
    """Inside a convex polygon (either winding), allowing ``slack`` user units."""
    x, y = point
    sides = []
    for (x0, y0), (x1, y1) in zip(shape, [*shape[1:], shape[0]], strict=True):
        length = math.hypot(x1 - x0, y1 - y0)
        sides.append(((x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)) / length)
    return all(s >= -slack for s in sides) or all(s <= slack for s in sides)


def transform(text: str) -> tuple[float, float, int]:
    match = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)(?: rotate\((-?\d+)\))?", text)
    assert match, text
    return float(match[1]), float(match[2]), int(match[3] or 0)


def to_sheet(point: Point, move: tuple[float, float, int]) -> Point:
    (x, y), (dx, dy, angle) = point, move
    turn = {0: (x, y), 90: (-y, x), -90: (y, -x)}[angle]
    return (dx + turn[0], dy + turn[1])


def chain_boxes(root: ET.Element) -> list[tuple[int, list[Point]]]:
    """(seat, corners on the sheet) of every written line of every chain."""
    boxes = []
    for seat, sector in sectors(root).items():
        for band in with_class(sector, "sheet-band"):
            move = transform(band.get("transform", ""))
            for chain in with_class(band, "sheet-chain"):
                for text in chain.iter(f"{SVG}text"):
                    x, base = float(text.get("x", "")), float(text.get("y", ""))
                    right = x + len(text.text or "") * sheet.CHAIN_CHAR
                    top, bottom = base - 0.75 * sheet.CHAIN_FONT, base + 0.2 * sheet.CHAIN_FONT
                    corners = [(x, top), (right, top), (right, bottom), (x, bottom)]
                    boxes.append((seat, [to_sheet(c, move) for c in corners]))
    return boxes


def written_chains(root: ET.Element) -> dict[tuple[int, str, int | None], str]:
    """What each column shows, lines joined: (seat, kind, on) → chain text."""
    shown = {}
    for seat, sector in sectors(root).items():
        for column in with_class(sector, "sheet-column"):
            on = column.get("data-on")
            key = (seat, column.get("data-kind", ""), None if on is None else int(on))
            chain = with_class(column, "sheet-chain")[0]
            shown[key] = "".join(t.text or "" for t in chain.iter(f"{SVG}text"))
    return shown


def expected_chains(pulka: Pulka) -> dict[tuple[int, str, int | None], str]:
    expected: dict[tuple[int, str, int | None], str] = {}
    for p in pulka_chains(pulka):
        expected[p.seat, "pool", None] = p.pool.text
        expected[p.seat, "mountain", None] = p.mountain.text
        for on, chain in p.whists:
            expected[p.seat, "whists", on] = chain.text
    return expected


# -- the chains ------------------------------------------------------------------------------------

# Worked by hand from sochi-short-pulka.expected.json, deal by deal. A deal adds one link
# per column it changes: in deal 2 Anna and Vera each write 8 for tricks and 4 consolation
# on Boris, one number of 12 each.
SOCHI_SHORT = {
    "Anna": ("2.4", "5.7", {"Boris": "12", "Vera": ""}),
    "Boris": ("10", "4.9.17", {"Vera": "", "Anna": "8"}),
    "Vera": ("1.9", "10", {"Anna": "4", "Boris": "12"}),
}


def test_chains_of_the_sochi_example():
    chains = pulka_chains(example("sochi-short-pulka"))
    names = [p.name for p in chains]
    assert names == ["Anna", "Boris", "Vera"]
    assert [p.letter for p in chains] == ["А", "Б", "В"]
    for p in chains:
        pool, mountain, whists = SOCHI_SHORT[p.name]
        assert p.pool.text == pool
        assert p.mountain.text == mountain
        assert {names[on]: chain.text for on, chain in p.whists} == whists


def test_chain_totals_agree_with_the_engine():
    pulka = busy(FOUR, 120)
    result = pulka.result()
    for p in pulka_chains(pulka):
        assert p.pool.total == result.pool[p.seat]
        assert p.mountain.total == result.mountain[p.seat]
        for on, chain in p.whists:
            assert chain.total == result.whists[p.seat][on]
            assert p.whists_on(on) == chain


def test_whist_columns_run_clockwise_from_the_player():
    chains = pulka_chains(new(FOUR))
    assert [[on for on, _ in p.whists] for p in chains] == [
        [1, 2, 3],
        [2, 3, 0],
        [3, 0, 1],
        [0, 1, 2],
    ]


def test_help_overflow_and_adjustments_are_links_of_the_chains():
    pulka = new(pool_target=4)
    pulka.play(unplayed_game(pulka, 0, 8))  # 6 points: 4 close Anna's pool, 2 help Boris
    pulka.play(unplayed_game(pulka, 1, 6))  # Boris closes his pool
    pulka.play(unplayed_game(pulka, 2, 8))  # Vera: 4 to her pool, 2 off her mountain
    pulka.play(Adjustment("correction", mountain={0: 5}, whists=((2, 1, 3),)))
    anna, boris, vera = pulka_chains(pulka)
    assert anna.pool.text == "4"
    assert anna.whists_on(1).text == "20"
    assert boris.pool.text == "2.4"
    assert vera.pool.text == "4"
    assert vera.mountain.text == "−2"
    assert anna.mountain.text == "5"
    assert vera.whists_on(1).text == "3"


def test_a_conceded_contract_is_written_where_a_remise_and_its_consolation_are():
    """preferans.md §13.11: the undertricks × the remise rate into the declarer's mountain
    and, with consolation, each consoling player's whists on him (the 4-player dealer
    too); no pool."""
    rules = PreferansRules.preset("sochi").with_overrides(
        {"concede": True, "concede_consolation": True}
    )
    pulka = Pulka(PulkaSetup(players=FOUR, rules=rules))
    pulka.play(Passout(tricks={1: 4, 2: 3, 3: 3}))  # Anna deals: mountains 4, 3, 3
    pulka.play(Concede(2, 7, "S", 3))  # Boris deals; Vera gives up 7♠ three down: 3 × 4
    anna, boris, vera, gleb = pulka_chains(pulka)
    assert vera.mountain.text == "3.15"
    assert [p.whists_on(2).text for p in (anna, boris, gleb)] == ["12", "12", "12"]
    assert [p.pool.text for p in (anna, boris, vera, gleb)] == ["", "", "", ""]
    shown = written_chains(parse(pulka_svg(pulka)))
    assert shown[2, "mountain", None] == "3.15"
    assert [shown[seat, "whists", 2] for seat in (0, 1, 3)] == ["12", "12", "12"]
    assert shown == expected_chains(pulka)


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (0, "0"),
        (12, "12"),
        (-3, "−3"),
        (Fraction(7, 2), "3,5"),
        (Fraction(-1, 4), "−0,25"),
        (Fraction(1, 3), "0,33"),
    ],
)
def test_amounts_are_written_with_a_decimal_comma(amount, shown):
    assert format_amount(amount) == shown


# -- the drawing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
def test_a_well_formed_svg_with_a_sector_per_player(players):
    pulka = busy(players, 12)
    root = parse(pulka_svg(pulka, control_time="23:00"))
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    assert root.get("aria-label") == f"Пулька: {', '.join(players)}"
    assert root.findtext(f"{SVG}title") == root.get("aria-label")
    assert root.get("viewBox", "").startswith("0 0 600 ")
    assert root.get("width") is None  # scales to its container
    found = sectors(root)
    assert sorted(found) == list(range(len(players)))
    for seat, sector in found.items():
        assert sector.get("data-letter") == "АБВГ"[seat]
        assert sector.findtext(f"{SVG}title") == f"{'АБВГ'[seat]} — {players[seat]}"
        names = [t.text for t in with_class(sector, "sheet-name")]
        assert names == [players[seat]]
        assert {c.get("data-kind") for c in with_class(sector, "sheet-column")} == {
            "pool",
            "mountain",
            "whists",
        }
        assert len(with_class(sector, "sheet-column")) == 2 + len(players) - 1
    assert written_chains(root) == expected_chains(pulka)


def test_russian_labels_and_the_centre():
    pulka = example("sochi-short-pulka")
    root = parse(pulka_svg(pulka, control_time="23:30"))
    labels = {t.text for t in with_class(root, "sheet-label")}
    assert {"пуля", "гора", "висты на Б", "висты на В", "висты на А"} <= labels
    centre = with_class(root, "sheet-centre")[0]
    texts = [t.text for t in centre.iter(f"{SVG}text")]
    assert texts == ["пуля", "10", "вист 0,50", "до 23:30"]


def test_every_word_of_the_english_sheet_is_english():
    # The same pulka as above, drawn on an English page: seats lettered A B C, its labels,
    # centre, titles and description in English; only the players' names are as given.
    pulka = misères(THREE, 1, first_dealer=1, control_time_deal=1)
    with translation.override("en"):
        svg = pulka_svg(pulka, control_time="23:30")
    root = parse(svg)
    assert root.get("aria-label") == "Pulka: Anna, Boris, Vera"
    found = sectors(root)
    assert [found[seat].get("data-letter") for seat in range(3)] == ["A", "B", "C"]
    assert found[0].findtext(f"{SVG}title") == "A — Anna"
    labels = {t.text for t in with_class(root, "sheet-label")}
    assert {"pool", "mountain", "whists on A", "whists on B", "whists on C"} <= labels
    assert [t.text for t in centre_texts(root)] == [
        "pool",
        "20",
        "whist 1",
        "until 23:30",
        "last round",
    ]
    assert root.findtext(f"{SVG}g[@class='dealer-arrow dealer-seat-1']/{SVG}title") == (
        "First dealer: B"
    )
    assert [t.text for t in root.iter(f"{SVG}title") if t.text == "deals"] == ["deals"]
    assert root.findtext(f"{SVG}desc") == (
        "Pool to 20, whist 1; first dealer B (Boris); dealing now C (Vera); "
        "control time 23:30; last round, deals left: 2; "
        "A Anna: pool 0, mountain 0; B Boris: pool 0, mountain 0; C Vera: pool 0, mountain 10."
    )
    assert not re.search("[А-Яа-яЁё]", svg)


def test_the_chains_letter_seats_in_the_readers_language():
    pulka = new(FOUR)
    assert [p.letter for p in pulka_chains(pulka)] == ["А", "Б", "В", "Г"]
    with translation.override("en"):
        assert [p.letter for p in pulka_chains(pulka)] == ["A", "B", "C", "D"]


def test_no_control_time_no_line_for_it():
    root = parse(pulka_svg(new()))
    centre = with_class(root, "sheet-centre")[0]
    assert [t.text for t in centre.iter(f"{SVG}text")] == ["пуля", "20", "вист 1"]


@pytest.mark.parametrize(
    "name", ['<b>&"', "O'Brien <script>alert(1)</script>", "Ann\x07a", "]]> & <!--"]
)
def test_names_and_texts_from_users_are_escaped(name):
    pulka = new((name, "Boris", "Vera"))
    svg = pulka_svg(pulka, control_time="<i>&", title='"Friday" <pulka>')
    root = parse(svg)
    assert "<script" not in svg
    assert root.get("aria-label") == '"Friday" <pulka>'
    shown = name.replace("\x07", "")  # a control character XML cannot hold at all
    assert sectors(root)[0].findtext(f"{SVG}title") == f"А — {shown}"
    assert [t.text for t in with_class(sectors(root)[0], "sheet-name")] == [shown]
    assert with_class(root, "sheet-control")[0].text == "до <i>&"


def test_a_long_name_is_shortened_on_the_sheet_but_whole_in_the_title():
    name = "Анастасия Константиновна Преферансова-Вистующая"
    root = parse(pulka_svg(new((name, "Boris", "Vera"))))
    shown = with_class(sectors(root)[0], "sheet-name")[0].text or ""
    assert shown.endswith("…")
    assert name.startswith(shown[:-1])
    assert sectors(root)[0].findtext(f"{SVG}title") == f"А — {name}"


def misères(players: tuple[str, ...], deals: int, **setup: int) -> Pulka:
    """A pulka after ``deals`` misères, each by the seat after the dealer (the deal passes
    every time)."""
    pulka = new(players, **setup)
    for _ in range(deals):
        pulka.play(Misere((pulka.dealer + 1) % len(players), 1))
    return pulka


def arrow_tip(arrow: ET.Element) -> Point:
    head = with_class(arrow, "dealer-arrowhead")[0].get("points", "")
    x, y = head.split()[0].split(",")
    return (float(x), float(y))


def caption_move(sector: ET.Element) -> tuple[float, float, int]:
    (caption,) = with_class(sector, "sheet-band-caption")
    return transform(caption.get("transform", ""))


# (players, first dealer, deals played, the dealer now): the deal passes clockwise after
# each misère, so the dealer is (first + deals) mod players.
DEALERS = [
    pytest.param(THREE, 0, 0, 0, id="3p-first-A-no-deal"),
    pytest.param(THREE, 0, 1, 1, id="3p-first-A-1-deal"),
    pytest.param(THREE, 0, 3, 0, id="3p-first-A-3-deals-back-to-A"),
    pytest.param(THREE, 2, 2, 1, id="3p-first-C-2-deals"),
    pytest.param(FOUR, 0, 2, 2, id="4p-first-A-2-deals"),
    pytest.param(FOUR, 1, 2, 3, id="4p-first-B-2-deals"),
    pytest.param(FOUR, 3, 5, 0, id="4p-first-D-5-deals"),
]


@pytest.mark.parametrize(("players", "first", "deals", "dealer"), DEALERS)
def test_the_arrow_points_into_the_first_dealers_sector(players, first, deals, dealer):
    """Seed field 1, §13.13: the arrow shows who dealt first, however far the deal went."""
    pulka = misères(players, deals, first_dealer=first)
    assert (pulka.first_dealer, pulka.dealer) == (first, dealer)
    root = parse(pulka_svg(pulka))
    assert root.get("data-first-dealer") == str(first)
    (arrow,) = with_class(root, "dealer-arrow")
    assert arrow.get("data-first-dealer") == str(first)
    assert f"dealer-seat-{first}" in classes(arrow)
    assert arrow.findtext(f"{SVG}title") == f"Первым сдавал {'АБВГ'[first]}"
    found = sectors(root)
    tip = arrow_tip(arrow)
    assert inside(tip, polygon(found[first]))
    assert not any(inside(tip, polygon(found[s])) for s in found if s != first)


@pytest.mark.parametrize(("players", "first", "deals", "dealer"), DEALERS)
def test_the_current_dealer_is_marked_apart_from_the_arrow(players, first, deals, dealer):
    """§13.13: the current dealer has his own mark, «сдаёт», after his name, and his sector
    is shaded (``is-dealer``); nobody else has either."""
    root = parse(pulka_svg(misères(players, deals, first_dealer=first)))
    assert root.get("data-dealer") == str(dealer)
    found = sectors(root)
    marks = {seat: with_class(e, "dealer-mark") for seat, e in found.items()}
    assert [seat for seat, found_marks in marks.items() if found_marks] == [dealer]
    (mark,) = marks[dealer]
    assert mark.findtext(f"{SVG}title") == "сдаёт"
    assert [s for s, e in found.items() if "is-dealer" in classes(e)] == [dealer]


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
def test_the_dealers_mark_fits_after_a_long_name_inside_his_sector(players):
    name = "Анастасия Константиновна Преферансова-Вистующая"
    pulka = new((name, *players[1:]))
    root = parse(pulka_svg(pulka))
    sector = sectors(root)[0]
    shown = with_class(sector, "sheet-name")[0].text or ""
    assert shown.endswith("…")  # shortened to leave room for the mark
    move = caption_move(sector)
    for card in with_class(sector, "dealer-card"):
        x, y = float(card.get("x", "")), float(card.get("y", ""))
        w, h = float(card.get("width", "")), float(card.get("height", ""))
        for corner in ((x, y), (x + w, y), (x + w, y + h), (x, y + h)):
            assert inside(to_sheet(corner, move), polygon(sector))
    name_x = float(with_class(sector, "sheet-name")[0].get("x", ""))
    mark_x = min(float(card.get("x", "")) for card in with_class(sector, "dealer-card"))
    assert mark_x >= name_x + sheet._text_width(shown, sheet.NAME_FONT)


@pytest.mark.parametrize(("players", "first", "deals", "dealer"), DEALERS)
def test_a_finished_table_has_neither_the_arrow_nor_a_dealer(players, first, deals, dealer):
    root = parse(pulka_svg(misères(players, deals, first_dealer=first), finished=True))
    assert not with_class(root, "dealer-arrow")
    assert not with_class(root, "dealer-mark")
    assert not any("is-dealer" in classes(e) for e in sectors(root).values())
    assert root.get("data-dealer") is None
    assert root.get("data-first-dealer") == str(first)
    description = root.findtext(f"{SVG}desc") or ""
    assert "сдаёт" not in description
    assert f"первым сдавал {'АБВГ'[first]}" in description


def test_the_description_names_the_first_dealer_the_dealer_and_the_last_round():
    # Sochi, 3 players, first dealer Б. Deal 1: Б deals, В plays a misère and takes a
    # trick (10 on his mountain). The control time after it: В deals now, then А, and the
    # deal would pass back to Б, so 2 deals are left.
    pulka = misères(THREE, 1, first_dealer=1, control_time_deal=1)
    assert (pulka.dealer, pulka.deals_left()) == (2, 2)
    description = parse(pulka_svg(pulka, control_time="23:00")).findtext(f"{SVG}desc")
    assert description == (
        "Пуля до 20, вист 1; первым сдавал Б (Boris); сдаёт В (Vera); "
        "контрольное время 23:00; последний круг, осталось сдач: 2; "
        "А Anna: пуля 0, гора 0; Б Boris: пуля 0, гора 0; В Vera: пуля 0, гора 10."
    )


def test_the_description_after_the_last_round():
    pulka = misères(THREE, 3, control_time_deal=1)  # after deal 1: Б and В deal, back to А
    assert pulka.complete
    description = parse(pulka_svg(pulka)).findtext(f"{SVG}desc") or ""
    assert "последний круг сыгран" in description
    finished = parse(pulka_svg(pulka, finished=True)).findtext(f"{SVG}desc") or ""
    assert "последний круг сыгран" in finished


def centre_texts(root: ET.Element) -> list[ET.Element]:
    return list(with_class(root, "sheet-centre")[0].iter(f"{SVG}text"))


@pytest.mark.parametrize("control_time", ["23:30", None], ids=["with a time", "without"])
def test_the_centre_says_last_round_once_the_control_time_is_reached(control_time):
    before = parse(pulka_svg(misères(THREE, 1, control_time_deal=2), control_time=control_time))
    assert "последний круг" not in [t.text for t in centre_texts(before)]
    pulka = misères(THREE, 2, control_time_deal=2)
    root = parse(pulka_svg(pulka, control_time=control_time))
    texts = [t.text for t in centre_texts(root)]
    assert texts == [
        "пуля",
        "20",
        "вист 1",
        *(["до 23:30"] if control_time else []),
        "последний круг",
    ]
    # Every line of the centre fits inside its circle (generous widths, as the layout's).
    circle = with_class(root, "sheet-circle")[0]
    cx, cy = float(circle.get("cx", "")), float(circle.get("cy", ""))
    for text in centre_texts(root):
        size = float(text.get("font-size", ""))
        half = sheet._text_width(text.text or "", size) / 2
        for y in (float(text.get("y", "")) - 0.75 * size, float(text.get("y", "")) + 0.2 * size):
            for x in (cx - half, cx + half):
                assert math.dist((x, y), (cx, cy)) < sheet.RADIUS, text.text


def bombs_by_seat(root: ET.Element) -> dict[int, list[str]]:
    return {
        seat: [b.get("data-bomb", "") for b in with_class(sector, "sheet-bomb")]
        for seat, sector in sectors(root).items()
    }


def test_a_dark_passout_draws_a_bomb_for_everybody():
    pulka = example("classic-dark-passout-bomb")  # then Boris made a game: his bomb is gone
    root = parse(pulka_svg(pulka))
    assert pulka.bombs == [[2], [], [2]]
    assert bombs_by_seat(root) == {0: ["2"], 1: [], 2: ["2"]}
    (bomb,) = with_class(sectors(root)[0], "sheet-bomb")
    assert with_class(bomb, "sheet-bomb-body")
    assert with_class(bomb, "sheet-fuse")
    assert [t.text for t in bomb.iter(f"{SVG}text")] == ["×2"]


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
def test_three_dark_passouts_draw_a_bomb_a_double_bomb_and_a_fir_tree(players):
    pulka = dark_passouts(players, 3)
    root = parse(pulka_svg(pulka))
    assert bombs_by_seat(root) == {seat: ["2", "4", "8"] for seat in range(len(players))}
    for sector in sectors(root).values():
        assert len(with_class(sector, "sheet-tree")) == 1
        assert [t.text for t in with_class(sector, "sheet-bomb-label")] == ["×2", "×4", "×8"]


def test_a_sochi_pulka_draws_no_bombs():
    root = parse(pulka_svg(busy(THREE, 30)))
    assert not with_class(root, "sheet-bomb")


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
def test_no_inline_style_and_no_script(players):
    svg = pulka_svg(dark_passouts(players, 2), control_time="22:00", title="Пятница")
    root = parse(svg)
    assert all("style" not in e.attrib for e in root.iter())
    assert not list(root.iter(f"{SVG}style"))
    assert not list(root.iter(f"{SVG}script"))
    assert "style=" not in svg
    assert "<script" not in svg
    assert not any(name.startswith("on") for e in root.iter() for name in e.attrib)


def fixed_slots(first: int, then: int, lines: int = 99) -> sheet.Slots:
    """Room for ``first`` characters after the label ``пуля`` on the first line and ``then``
    on each later one (which starts at x = 10); no line after the ``lines``-th."""
    label = sheet._text_width("пуля", sheet.LABEL_FONT) + 5

    def slot(i: int) -> tuple[float, float] | None:
        if i >= lines:
            return None
        if i == 0:
            return (0.0, label + first * sheet.CHAIN_CHAR + 1)
        return (10.0, 10.0 + then * sheet.CHAIN_CHAR + 1)

    return slot


@pytest.mark.parametrize(
    ("chain", "first", "then", "lines", "expected"),
    [
        ("2.4.10", 20, 7, 99, ["2.4.10"]),
        ("2.4.10.16.100.1000.12.3", 5, 7, 99, ["2.4.", "10.16.", "100.", "1000.", "12.3"]),
        ("−3.−12.7,5", 6, 6, 99, ["−3.", "−12.", "7,5"]),
        ("10.20", 1, 7, 99, ["", "10.20"]),
        ("", 5, 7, 99, [""]),
        ("2.4.10.16", 5, 7, 2, ["2.4.", "10.16"]),
        ("2.4.10.16.100", 5, 7, 2, None),
        ("1.2.123456789", 5, 7, 99, None),
    ],
    ids=[
        "one line",
        "wrapped",
        "signs and commas",
        "the label fills the first line",
        "never written",
        "just enough lines",
        "out of lines",
        "a link longer than a line",
    ],
)
def test_a_chain_wraps_after_a_dot_with_each_line_filled(chain, first, then, lines, expected):
    links = tuple(chain.split(".")) if chain else ()
    laid = sheet._ChainBlock.of("пуля", links, "pool").layout(fixed_slots(first, then, lines))
    if expected is None:
        assert laid is None
        return
    assert laid is not None
    assert [text for _, text in laid.lines] == expected
    assert [x for x, _ in laid.lines[1:]] == [10.0] * (len(expected) - 1)
    assert laid.lines[0][0] == pytest.approx(sheet._text_width("пуля", sheet.LABEL_FONT) + 5)


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
def test_the_long_chains_of_a_300_deal_pulka_wrap_at_their_dots(players):
    root = parse(pulka_svg(busy(players, 300)))
    wrapped = 0
    for column in with_class(root, "sheet-column"):
        chain = with_class(column, "sheet-chain")[0]
        lines = [t.text or "" for t in chain.iter(f"{SVG}text")]
        assert all(line.endswith(".") for line in lines[:-1])
        assert not any(line.startswith(".") or ".." in line for line in lines)
        assert not lines or not lines[-1].endswith(".")
        wrapped += len(lines) > 1
    assert wrapped >= len(players)


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
def test_a_300_deal_pulka_fits_in_one_svg_with_every_chain(players):
    pulka = busy(players, 300)
    root = parse(pulka_svg(pulka))
    expected = expected_chains(pulka)
    assert max(len(text) for text in expected.values()) > 200
    assert written_chains(root) == expected
    # The sheet grows taller, never wider, so the writing keeps its size on a phone.
    width, height = map(float, root.get("viewBox", "").split()[2:])
    assert width == 600
    assert height > 1000


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
@pytest.mark.parametrize("deals", [7, 300])
def test_every_line_stays_in_its_sector_clear_of_the_circle_and_the_others(players, deals):
    root = parse(pulka_svg(busy(players, deals)))
    shapes = {seat: polygon(e) for seat, e in sectors(root).items()}
    circle = with_class(root, "sheet-circle")[0]
    centre = (float(circle.get("cx", "")), float(circle.get("cy", "")))
    boxes = chain_boxes(root)
    assert boxes
    for seat, corners in boxes:
        assert all(inside(c, shapes[seat]) for c in corners)
        assert all(math.dist(c, centre) > sheet.RADIUS for c in corners)
    spans = [
        (min(x for x, _ in c), min(y for _, y in c), max(x for x, _ in c), max(y for _, y in c))
        for _, c in boxes
    ]
    for i, a in enumerate(spans):
        for b in spans[i + 1 :]:
            overlap_x = min(a[2], b[2]) - max(a[0], b[0])
            overlap_y = min(a[3], b[3]) - max(a[1], b[1])
            assert overlap_x <= 0.5 or overlap_y <= 0.5, (a, b)


# -- the sheet's height: the lowest rung of a fixed ladder that holds everything -----------------


@functools.cache
def long_pulka(players: tuple[str, ...]) -> Pulka:
    """``busy(players, 300)``, built once: drawing it changes nothing."""
    return busy(players, 300)


def bands_of(pulka: Pulka) -> list[list[sheet._Band]]:
    """What ``draw_pulka`` lays out for an open table."""
    return [
        sheet._bands(p, pulka.bombs[p.seat], dealer=p.seat == pulka.dealer)
        for p in pulka_chains(pulka)
    ]


def at_rung(players: int, rung: int) -> sheet._Sheet:
    return sheet._Sheet.of(players, sheet.HEIGHT[players] * sheet.STEP**rung)


def viewbox_height(svg: str) -> float:
    return float(parse(svg).get("viewBox", "").split()[3])


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The height of every sheet ``_plan`` lays out, in order, from now on."""
    tried: list[float] = []
    plan = sheet._plan

    def counted(drawn: sheet._Sheet, *args, **kwargs):
        tried.append(drawn.height)
        return plan(drawn, *args, **kwargs)

    monkeypatch.setattr(sheet, "_plan", counted)
    return tried


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
@pytest.mark.parametrize("deals", [0, 7])
def test_a_short_pulka_is_drawn_at_rung_0_the_sheets_own_height(players, deals):
    pulka = busy(players, deals)
    drawing = sheet.draw_pulka(pulka)
    assert drawing.rung == 0
    assert viewbox_height(drawing.svg) == sheet.HEIGHT[len(players)]


@pytest.mark.parametrize(
    ("players", "rung"), [(THREE, 17), (FOUR, 23)], ids=["3 players", "4 players"]
)
def test_a_long_pulka_is_drawn_at_the_lowest_rung_that_holds_it(players, rung):
    pulka = long_pulka(players)
    n = len(players)
    drawing = sheet.draw_pulka(pulka)
    assert drawing.rung == rung
    assert viewbox_height(drawing.svg) == pytest.approx(
        sheet.HEIGHT[n] * sheet.STEP**rung, abs=0.05
    )
    assert sheet._plan(at_rung(n, rung), bands_of(pulka)) is not None
    assert sheet._plan(at_rung(n, rung - 1), bands_of(pulka)) is None


HINTS = {
    "none": lambda right: None,
    "rung 0": lambda right: 0,
    "below rung 0": lambda right: -1,
    "far below": lambda right: right - 12,
    "one below": lambda right: right - 1,
    "right": lambda right: right,
    "one above": lambda right: right + 1,
    "far above": lambda right: right + 40,
    "beyond the ladder": lambda right: 10_000,
}
"""Hints by how they stand to the right rung."""


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
@pytest.mark.parametrize("hint", HINTS.values(), ids=HINTS.keys())
def test_any_hint_gives_the_very_same_drawing(players, hint):
    pulka = long_pulka(players)
    unhinted = sheet.draw_pulka(pulka, control_time="23:00")
    hinted = sheet.draw_pulka(pulka, control_time="23:00", rung_hint=hint(unhinted.rung))
    assert hinted == unhinted
    assert pulka_svg(pulka, control_time="23:00") == unhinted.svg


@pytest.mark.parametrize("hint", [None, 0, 3, 40])
def test_a_short_pulka_drawn_with_any_hint_is_the_same(hint):
    pulka = busy(FOUR, 7)
    assert sheet.draw_pulka(pulka, rung_hint=hint) == sheet.draw_pulka(pulka)


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3 players", "4 players"])
@pytest.mark.parametrize(
    ("short_by", "tried"), [(0, (0, -1)), (1, (-1, 0))], ids=["the right hint", "a rung short"]
)
def test_two_layouts_find_the_height_from_a_hint_right_or_a_rung_short(
    players, short_by, tried, plans
):
    """After a deal the sheet is as tall as before or a rung taller: its hint tried, then
    the rung that settles it."""
    pulka = long_pulka(players)
    n = len(players)
    right = sheet.draw_pulka(pulka).rung
    plans.clear()
    sheet.draw_pulka(pulka, rung_hint=right - short_by)
    assert plans == [at_rung(n, right + step).height for step in tried]


def test_without_a_hint_a_short_pulka_takes_one_layout(plans):
    sheet.draw_pulka(busy(THREE, 7))
    assert plans == [sheet.HEIGHT[3]]


@pytest.mark.parametrize(
    ("players", "tried"),
    [
        # Up from rung 0 by 1, 3, 7, … rungs until one fits (31), then halving the gap.
        (THREE, [0, 1, 3, 7, 15, 31, 23, 19, 17, 16]),
        (FOUR, [0, 1, 3, 7, 15, 31, 23, 19, 21, 22]),
    ],
    ids=["3 players", "4 players"],
)
def test_without_a_hint_a_long_pulka_takes_ten_layouts(players, tried, plans):
    sheet.draw_pulka(long_pulka(players))
    assert plans == [at_rung(len(players), rung).height for rung in tried]


def test_a_hint_far_above_gallops_down_to_the_rung(plans):
    sheet.draw_pulka(long_pulka(THREE), rung_hint=60)
    # 60 fits; 59, 57, 53, 45, 29 fit; 0 does not; then halving from 0 to 29.
    tried = [60, 59, 57, 53, 45, 29, 0, 14, 21, 17, 15, 16]
    assert plans == [at_rung(3, rung).height for rung in tried]


def test_beyond_the_highest_rung_the_pulka_is_too_long_to_draw(monkeypatch):
    monkeypatch.setattr(sheet, "MAX_RUNG", 3)
    with pytest.raises(ValueError, match="too long"):
        sheet.draw_pulka(long_pulka(THREE))
    with pytest.raises(ValueError, match="too long"):
        sheet.draw_pulka(long_pulka(THREE), rung_hint=2)


def test_a_height_that_fails_is_tried_next_time_from_the_sector_that_failed(monkeypatch):
    """At rung 16 the long pulka of four fits in the sectors of seats 0 and 2, not 1 and 3."""
    pulka = long_pulka(FOUR)
    bands = bands_of(pulka)
    short = at_rung(4, 16)
    fits = [
        sheet._plan_sector(short, sector, bands[sector.seat]) is not None
        for sector in short.sectors
    ]
    assert fits == [True, False, True, False]
    order = [2, 0, 3, 1]
    assert sheet._plan(short, bands, order) is None
    assert order == [3, 2, 0, 1]
    laid_out: list[int] = []
    plan_sector = sheet._plan_sector

    def counted(drawn, sector, *args):
        laid_out.append(sector.seat)
        return plan_sector(drawn, sector, *args)

    monkeypatch.setattr(sheet, "_plan_sector", counted)
    assert sheet._plan(at_rung(4, 17), bands, order) is None
    assert laid_out == [3]
    assert order == [3, 2, 0, 1]


def test_the_plan_is_grouped_by_seat_in_seat_order_whatever_the_order_tried():
    pulka = long_pulka(FOUR)
    bands = bands_of(pulka)
    tall = at_rung(4, 23)

    def shape(plan):
        assert plan is not None
        return [(p.frame.sector.seat, p.band.name, p.top, p.depth) for p in plan]

    plain = shape(sheet._plan(tall, bands))
    assert [seat for seat, *_ in plain] == sorted(seat for seat, *_ in plain)
    assert shape(sheet._plan(tall, bands, [2, 0, 3, 1])) == plain
