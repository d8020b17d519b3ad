"""Boston deals as the engine takes them (boston.md §3): seats 0–3, clockwise.

Each deal checks itself when it is built, so an impossible deal never reaches a table;
the messages name the game record's field, and the table adds the deal number.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.engine.boston.rules import CARD_ROWS, SUITS, TRICK_ROWS
from scoring.engine.errors import N_, RuleError

SEATS = 4
SUIT_CLASSES = ("minor", "major")
"""The payment tariff's suit classes (младшая / старшая масть)."""
TOURS = ("simple", "double")
HONOURS = (0, 3, 4)

Chips = tuple[int, int, int]
"""An adjustment's transfer: (payer seat, payee seat, chips)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Ask:
    """A payment-tariff ask (прикуп): with a ``partner`` it is supported (8 together),
    without one unsupported (5 alone). ``tricks``: taken by the declaring side.

    The suit is given one of two ways, exactly one of them: its class ``suit`` (minor or
    major), or the ``trump`` suit (spades … hearts), whose class the table derives from its
    preference suit (``suit_class``)."""

    declarer: int
    partner: int | None = None
    suit: str | None = None
    trump: str | None = None
    tour: str = "simple"
    tricks: int

    def __post_init__(self) -> None:
        _check_players(self.declarer, self.partner)
        _check_suit(self.suit, self.trump)
        _check_choice(self.tour, TOURS, "tour")
        _check_tricks(self.tricks)

    @property
    def contract(self) -> str:
        """The tariff's contract: ``"supported"`` or ``"unsupported"``."""
        return "unsupported" if self.partner is None else "supported"


@dataclass(frozen=True, slots=True, kw_only=True)
class Independence:
    """A payment-tariff independence or solo (индепанданс): 8 tricks alone; its ``suit``
    class or its ``trump`` as for an ``Ask``."""

    declarer: int
    suit: str | None = None
    trump: str | None = None
    tour: str = "simple"
    tricks: int

    def __post_init__(self) -> None:
        _check_players(self.declarer, None)
        _check_suit(self.suit, self.trump)
        _check_choice(self.tour, TOURS, "tour")
        _check_tricks(self.tricks)

    @property
    def partner(self) -> None:
        """Always ``None``: independence is played alone."""
        return None

    @property
    def contract(self) -> str:
        """The tariff's contract: ``"independence"``."""
        return "independence"


@dataclass(frozen=True, slots=True, kw_only=True)
class Card:
    """A value-card contract: a ``contract`` row of the card (``"5"``–``"12"``,
    ``"slam-by-two"``, a misère, ``"boston"``, ``"open-boston"``) in a suit ``column``.

    ``tricks`` are the declaring side's; ``honours`` (0, 3 or 4) the honours it held, which
    count only on the trick rows 5–12.
    """

    declarer: int
    partner: int | None = None
    contract: str
    column: str
    tricks: int
    honours: int = 0
    tour: str = "simple"

    def __post_init__(self) -> None:
        _check_players(self.declarer, self.partner)
        _check_choice(self.contract, CARD_ROWS, "contract")
        _check_choice(self.column, SUITS, "column")
        _check_choice(self.tour, TOURS, "tour")
        _check_tricks(self.tricks)
        self._check_partner()
        self._check_honours()

    def _check_partner(self) -> None:
        # Only row 5 ("5 alone or 8 together") allows both; slam by two needs a partner.
        if self.contract == "slam-by-two" and self.partner is None:
            raise RuleError(N_("slam by two is played with a partner"), field="partner")
        if self.contract not in ("5", "slam-by-two") and self.partner is not None:
            raise RuleError(
                N_("contract %(contract)s is played alone"), field="partner", contract=self.contract
            )

    def _check_honours(self) -> None:
        if isinstance(self.honours, bool) or self.honours not in HONOURS:
            raise RuleError(
                N_("must be 0, 3 or 4, got %(got)s"), field="honours", got=repr(self.honours)
            )
        if self.honours and self.contract not in TRICK_ROWS:
            raise RuleError(N_("honours count only on the trick contracts 5–12"), field="honours")


@dataclass(frozen=True, slots=True)
class Pass:
    """A round with no contract: nobody pays."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Adjustment:
    """Chips moved between players by agreement, with the reason written down."""

    reason: str
    transfers: tuple[Chips, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str) or not self.reason.strip():
            raise RuleError(N_("an adjustment needs a reason"), field="reason")
        if not self.transfers:
            raise RuleError(N_("an adjustment needs at least one transfer"), field="transfers")
        for payer, payee, chips in self.transfers:
            _check_seat(payer, "transfers")
            _check_seat(payee, "transfers")
            if payer == payee:
                raise RuleError(N_("a player cannot pay himself"), field="transfers")
            if isinstance(chips, bool) or not isinstance(chips, int) or chips < 1:
                raise RuleError(N_("chips must be a whole number of at least 1"), field="transfers")


Contract = Ask | Independence | Card
"""A deal somebody played and the table scores."""

Deal = Ask | Independence | Card | Pass | Adjustment
"""Anything a Boston table records."""


def trump_class(trump: str, preference_suit: str) -> str:
    """The payment tariff's class of a ``trump``: major when it is the table's preference
    suit (the suit turned at the first deal, boston.md §3), minor otherwise."""
    return "major" if trump == preference_suit else "minor"


def suit_class(deal: Ask | Independence, preference_suit: str | None) -> str:
    """The class (minor or major) a payment-tariff deal is paid in, at a table whose
    preference suit is ``preference_suit``: the class entered, or the one its trump gives.
    A trump at a table with no preference suit cannot be priced, so it is refused."""
    if deal.suit is not None:
        return deal.suit
    if preference_suit is None:
        raise RuleError(
            N_(
                "the table has no preference suit, so a trump does not say minor or major: "
                "give the suit class instead"
            ),
            field="trump",
        )
    return trump_class(str(deal.trump), preference_suit)


def _check_suit(suit: str | None, trump: str | None) -> None:
    """A payment-tariff deal names its class or its trump, never both."""
    if trump is None:
        _check_choice(suit, SUIT_CLASSES, "suit")
    elif suit is not None:
        raise RuleError(N_("give the trump or the suit class, not both"), field="trump")
    else:
        _check_choice(trump, SUITS, "trump")


def _check_players(declarer: int, partner: int | None) -> None:
    _check_seat(declarer, "declarer")
    if partner is not None:
        _check_seat(partner, "partner")
        if partner == declarer:
            raise RuleError(N_("must differ from the declarer"), field="partner")


def _check_seat(seat: int, field: str) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
        raise RuleError(
            N_("must be a seat %(low)s–%(high)s, got %(got)s"),
            field=field,
            low=0,
            high=SEATS - 1,
            got=repr(seat),
        )


def _check_choice(value: str | None, choices: tuple[str, ...], field: str) -> None:
    if not isinstance(value, str) or value not in choices:
        raise RuleError(N_("must be one of %(choices)s"), field=field, choices=", ".join(choices))


def _check_tricks(tricks: int) -> None:
    if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= 13:
        raise RuleError(
            N_("must be %(low)s–%(high)s, got %(got)s"),
            field="tricks",
            low=0,
            high=13,
            got=repr(tricks),
        )
