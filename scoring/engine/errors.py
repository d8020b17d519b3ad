"""The engine's one error type: every message is safe to show a club member.

A message is an English template with named parameters, ``%(total)s`` style, marked with
``N_`` so that ``makemessages --keyword=N_`` puts it in the translation catalogue. The
engine never translates (it imports no Django): ``str(error)`` is the English text for the
``score`` command and the logs, and the site translates the template and its parameters in
``scoring.pages.labels.rule_error_text``. How to write one: docs/contributing.md.
"""

from __future__ import annotations

from typing import Any

from scoring.engine.text import N_

__all__ = ["N_", "Grouped", "RuleError"]


class Grouped(int):
    """A large whole number a message writes grouped by thousands (1,000,000 in English,
    1 000 000 in Russian): a record's size or deal count."""


class RuleError(ValueError):
    """Input that breaks the game record's format or the rules.

    ``template`` is the message with ``%(name)s`` placeholders for ``params`` (a template
    without parameters is used as it is, so it needs no ``%%``); ``deal`` is the 1-based
    deal number (``None`` for the record's head) and ``field`` the name of the offending
    field, so a form can mark it and a command can print one line.
    """

    def __init__(
        self,
        template: str,
        *,
        field: str | None = None,
        deal: int | None = None,
        **params: Any,
    ) -> None:
        self.template = template
        self.params = params
        self.field = field
        self.deal = deal
        super().__init__(str(self))

    @property
    def message(self) -> str:
        """The message in English, its parameters filled in."""
        if not self.params:
            return str(self.template)  # a service may give a lazy translation
        return self.template % {
            name: f"{value:,}" if isinstance(value, Grouped) else value
            for name, value in self.params.items()
        }

    def __str__(self) -> str:
        where = []
        if self.deal is not None:
            where.append(f"deal {self.deal}")
        if self.field:
            where.append(self.field)
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message

    def at_deal(self, deal: int) -> RuleError:
        """The same error, located at ``deal`` (used when replaying a whole record)."""
        return RuleError(self.template, field=self.field, deal=deal, **self.params)

    def at_field(self, field: str) -> RuleError:
        """The same error on ``field`` (a setting's error, named as the record names it)."""
        return RuleError(self.template, field=field, deal=self.deal, **self.params)
