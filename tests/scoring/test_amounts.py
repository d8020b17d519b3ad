"""Numbers on screen in the reader's language (scoring/templatetags/amounts.py): a decimal
comma in Russian, a point in English, and the plural a count of whists or chips needs."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.template import Context, Template
from django.utils import translation

from scoring.templatetags.amounts import amount, figure, number


@pytest.mark.parametrize(
    ("value", "russian", "english"),
    [
        ("139.33", "139,33", "139.33"),
        ("-188", "-188", "-188"),
        ("−4.50", "-4,50", "-4.50"),  # the sheet's minus sign is read too
        (Decimal("0.25"), "0,25", "0.25"),
        (7, "7", "7"),
        ("", "", ""),
        ("—", "—", "—"),
        (None, "", ""),
    ],
)
def test_number_follows_the_language(value, russian, english):
    with translation.override("ru"):
        assert number(value) == russian
    with translation.override("en"):
        assert number(value) == english


@pytest.mark.parametrize(
    ("value", "game", "russian", "english"),
    [
        ("1", "preferans", "1 вист", "1 whist"),
        ("21", "preferans", "21 вист", "21 whists"),
        ("3", "preferans", "3 виста", "3 whists"),
        ("11", "preferans", "11 вистов", "11 whists"),
        ("139.33", "preferans", "139,33 виста", "139.33 whists"),
        ("-188", "boston", "-188 фишек", "-188 chips"),
        ("-2", "boston", "-2 фишки", "-2 chips"),
        ("101", "boston", "101 фишка", "101 chips"),
        ("0", "boston", "0 фишек", "0 chips"),
        ("0.5", "boston", "0,5 фишки", "0.5 chips"),
    ],
)
def test_amount_takes_the_plural_its_number_needs(value, game, russian, english):
    with translation.override("ru"):
        assert amount(value, game) == russian
    with translation.override("en"):
        assert amount(value, game) == english


def test_the_filters_work_in_a_template():
    template = Template("{% load amounts %}{{ total|amount:'preferans' }} · {{ best|number }}")
    with translation.override("ru"):
        html = template.render(Context({"total": "139.33", "best": "12.5"}))
    assert html == "139,33 виста · 12,5"


@pytest.mark.parametrize(
    ("value", "places", "russian", "english"),
    [
        (21.666666, 2, "21,67", "21.67"),
        (-156.83, 2, "−156,83", "−156.83"),
        (2.5, 2, "2,5", "2.5"),  # the zeros after the figure dropped
        (2.0, 2, "2", "2"),
        (-0.001, 2, "0", "0"),  # rounded to nothing: no minus sign before it
        (Decimal("-150"), 0, "−150", "−150"),
        (1250, 0, "1250", "1250"),  # as the tables write it: no grouping
    ],
)
def test_figure_writes_a_computed_number_as_the_pages_do(value, places, russian, english):
    with translation.override("ru"):
        assert figure(value, places=places) == russian
    with translation.override("en"):
        assert figure(value, places=places) == english
