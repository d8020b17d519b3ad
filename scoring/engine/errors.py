"""The engine's one error type: every message is safe to show a club member."""

from __future__ import annotations


class RuleError(ValueError):
    """Input that breaks the game record's format or the rules.

    ``deal`` is the 1-based deal number (``None`` for the record's head) and ``field`` the
    name of the offending field, so a form can mark it and a command can print one line.
    """

    def __init__(self, message: str, *, field: str | None = None, deal: int | None = None):
        self.message = message
        self.field = field
        self.deal = deal
        super().__init__(str(self))

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
        return RuleError(self.message, field=self.field, deal=deal)
