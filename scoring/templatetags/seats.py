"""Seats on a page in the reader's language: ``{% load seats %}``, ``{{ 3|seat_letter }}``
is «Г» on a Russian page and «D» on an English one (``scoring.pages.labels.seat_letter``)."""

from __future__ import annotations

from django import template

from scoring.pages.labels import seat_letter as _seat_letter

register = template.Library()


@register.filter
def seat_letter(seat: int) -> str:
    """The letter of seat ``seat`` (0 is the first), as the sheet and the forms name it."""
    return _seat_letter(seat)
