"""Words the engine writes for a member, kept translatable while the engine stays pure.

``N_`` marks an English template for the catalogue (``makemessages --keyword=N_``) and
returns it unchanged. ``Text`` is a template with its parameters that is also its English
rendering (a ``str``), so the ``score`` command, the logs and the tests read it as before,
while the site translates ``template`` and each parameter in ``scoring.pages.labels``. A
parameter may itself be a ``Text`` (an explanation built on another). How to write one:
docs/contributing.md.
"""

from __future__ import annotations

from typing import Any


def N_(template: str) -> str:
    """Mark ``template`` as a message for the catalogue; it is returned unchanged."""
    return template


class Text(str):
    """``template % params`` in English, remembering ``template`` and ``params``.

    A template without parameters is used as it is (it needs no ``%%``).
    """

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, **params: Any) -> Text:
        text = super().__new__(cls, template % params if params else template)
        text.template = template
        text.params = params
        return text

    # A copy or an unpickled Text is built from its English text (str's own
    # ``__getnewargs__``), then its template and params are restored from its state.
