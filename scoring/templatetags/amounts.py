"""Numbers on screen in the page's language: ``{% load amounts %}``.

The site keeps its figures as machine text («-188», «139.33»: the sheet, the CSV files and
the JSON speak that way). On a page they are shown the way the reader's language writes
them — a decimal comma in Russian, a point in English — and a count of whists or chips
takes the plural its number needs: «−188 фишек», «139,33 виста», «1 вист».
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import template
from django.utils import formats

from scoring import games

register = template.Library()

MINUS = "−"


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, Decimal | int):
        return Decimal(value)
    try:
        return Decimal(str(value).strip().replace(MINUS, "-"))
    except InvalidOperation:
        return None


@register.filter
def number(value: Any) -> str:
    """``"139.33"`` → ``"139,33"`` on a Russian page, as it was on an English one; the
    decimals kept as given. Anything not a number is shown as it is."""
    exact = _decimal(value)
    if exact is None:
        return "" if value is None else str(value)
    return str(formats.number_format(exact))


def figure(value: Decimal | float | int, *, places: int = 2) -> str:
    """A figure worked out in Python rather than stored (a chart's tick, a line's last
    value) as ``number`` writes it: rounded to ``places`` decimals with the zeros after
    them dropped, a real minus sign, and the page's decimal mark — «−156,83» on a Russian
    page, «−156.83» on an English one, «2» rather than «2,00». For pages that build their
    text in Python (``scoring/pages/charts.py``) and cannot use the filter."""
    exact = Decimal(str(value)).quantize(Decimal(1).scaleb(-places))
    text = f"{abs(exact):f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    sign = MINUS if exact < 0 and text != "0" else ""
    return sign + number(text)


def plural_count(exact: Decimal) -> int:
    """The count a plural form is chosen by: a fraction reads as «2–4» does in Russian
    («139,33 виста», «0,5 фишки») and as a plural in English."""
    if exact != exact.to_integral_value():
        return 2
    return int(abs(exact))


@register.filter
def amount(value: Any, game: str) -> str:
    """A result with its unit: «−188 фишек», «139,33 виста», «12 whists»."""
    exact = _decimal(value)
    if exact is None:
        return "" if value is None else str(value)
    count = plural_count(exact)
    return games.of(game).amount_text(number(exact), count)
