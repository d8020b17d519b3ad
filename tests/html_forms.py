"""What a browser would submit from a page's form, read from the HTML (for tests that
post through the real admin and forms)."""

from __future__ import annotations

import html as entities
import re
from html.parser import HTMLParser
from typing import Any


class _FormFields(HTMLParser):
    """The values a browser would submit from the form with id ``form_id``."""

    def __init__(self, form_id: str, action: str | None = None) -> None:
        super().__init__()
        self.form_id = form_id
        self.action = action
        self.inside = False
        self.fields: list[tuple[str, str]] = []
        self._select: str | None = None
        self._textarea: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id or (
                self.action is not None and a.get("action") == self.action
            )
        if not self.inside or "disabled" in a:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("submit", "button", "file", "image", "reset"):
                return
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self.fields.append((name, a.get("value") or ("on" if kind == "checkbox" else "")))
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.fields.append((self._select, a.get("value") or ""))
        elif tag == "textarea" and name:
            self._textarea, self._text = name, ""

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea" and self._textarea:
            self.fields.append((self._textarea, self._text.removeprefix("\n")))
            self._textarea = None


def form_data(html: str, form_id: str = "", *, action: str | None = None) -> dict[str, Any]:
    """The form's fields (the form with id ``form_id``, or posting to ``action``) as the
    test client's POST data (repeated names become lists)."""
    parser = _FormFields(form_id, action)
    parser.feed(html)
    data: dict[str, Any] = {}
    for name, value in parser.fields:
        if name in data:
            data[name] = (
                [*data[name], value] if isinstance(data[name], list) else [data[name], value]
            )
        else:
            data[name] = value
    return data


def field_errors(html: str, field_id: str) -> list[str]:
    """The errors a page prints beside the form field ``field_id`` (Django's error list
    ``id="<field_id>_error"``), unescaped."""
    match = re.search(rf'<ul class="errorlist" id="{re.escape(field_id)}_error">(.*?)</ul>', html)
    if match is None:
        return []
    return [entities.unescape(item) for item in re.findall(r"<li>(.*?)</li>", match[1])]


def group_errors(html: str, group: str) -> list[str]:
    """The errors a deal form prints beside a group of fields (``form.errors.tricks``:
    an error list without an id, right after the group's buttons)."""
    match = re.search(
        rf'<fieldset class="{re.escape(group)}[^"]*"[^>]*>.*?<ul class="errorlist">(.*?)</ul>',
        html,
        re.S,
    )
    if match is None:
        return []
    return [entities.unescape(item) for item in re.findall(r"<li>(.*?)</li>", match[1])]


class _ShownFields(HTMLParser):
    """The names of the inputs a page shows: none inside an element drawn ``hidden`` (the
    deal form draws every kind's fields and shows the chosen kind's)."""

    VOID = frozenset(("input", "br", "img", "meta", "link", "hr", "source", "wbr", "col"))

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, bool]] = []
        self.names: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        hidden = bool(self.open and self.open[-1][1]) or "hidden" in a
        if tag == "input" and a.get("name") and a.get("type") != "hidden" and not hidden:
            self.names.add(str(a["name"]))
        if tag not in self.VOID:
            self.open.append((tag, hidden))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                return


def shown_fields(html: str) -> set[str]:
    """The names of the fields ``html`` shows (not inside anything ``hidden``)."""
    parser = _ShownFields()
    parser.feed(html)
    return parser.names
