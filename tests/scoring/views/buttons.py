"""Reading the deal form's rows of buttons (``scoring.pages.forms.Segmented``) out of a page."""

from __future__ import annotations

import re


def choices(text: str, name: str) -> list[tuple[str, str]]:
    """The buttons of the choice called ``name``, as (value, label)."""
    return [(value, label) for value, _, label in _buttons(text, name)]


def chosen(text: str, name: str) -> list[str]:
    """The values checked in the choice called ``name`` (one at most in a sane form)."""
    return [value for value, checked, _ in _buttons(text, name) if checked]


def _buttons(text: str, name: str) -> list[tuple[str, str, str]]:
    pattern = (
        rf'<input type="radio" name="{re.escape(name)}" value="([^"]*)"(?: id="[^"]*")?'
        r"( checked)?><span>(.*?)</span>"
    )
    return re.findall(pattern, text)
