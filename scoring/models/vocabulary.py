"""The cards' words the site shows, one place each: the suits (their symbols and names)
and the value card's contracts by name, for every page, form, message and model choice.

The engine speaks in stable keys (``"spades"``, ``"7H"``, ``"small-misere"``) and never
translates; these are the keys' words. They sit in the models' layer because two model
fields take their choices from here (``Table.preference_suit``, ``BostonCardRow.row``);
everything above imports them from this module."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

SUIT_SYMBOLS = {"spades": "♠", "clubs": "♣", "diamonds": "♦", "hearts": "♥"}
"""The Boston engine's suits (its value-card columns, lowest first; a trump, the
preference suit) as the cards show them."""

SUIT_NAMES = {
    "spades": _("spades"),
    "clubs": _("clubs"),
    "diamonds": _("diamonds"),
    "hearts": _("hearts"),
}
"""The Boston engine's suits in words."""

PREFERANS_SUITS: dict[str, str | Promise] = {
    **{suit[0].upper(): symbol for suit, symbol in SUIT_SYMBOLS.items()},
    "N": _("NT"),
}
"""A Preferans contract's suit by the engine's letter (``"7H"``): S C D H as their
symbols, no trumps in words."""


@dataclass(frozen=True, slots=True)
class ContractNames:
    """A value-card contract past the trick rows, by name."""

    title: Promise
    """Heading its row: the tariff pages, the admin, the card row's choice."""
    words: Promise
    """In a sentence: a deal's title in the log, an engine message."""
    stats: Promise
    """In a member's statistics."""
    russian: str
    """The Russian term, a hint beside the title on an English page."""


CARD_CONTRACT_NAMES = {
    "slam-by-two": ContractNames(
        title=_("Slam by two (13 together)"),
        words=_("slam by two"),
        stats=_("Slam by two"),
        russian="шлем вдвоём",
    ),
    "small-misere": ContractNames(
        title=_("Small misère"),
        words=_("small misère"),
        stats=_("Small misère"),
        russian="маленький мизер",
    ),
    "piccolissimo": ContractNames(
        title=_("Piccolissimo"),
        words=_("piccolissimo"),
        stats=_("Piccolissimo"),
        russian="пикколиссимо",
    ),
    "grand-misere": ContractNames(
        title=_("Grand misère"),
        words=_("grand misère"),
        stats=_("Grand misère"),
        russian="большой мизер",
    ),
    "four-tour-misere": ContractNames(
        title=_("Misère of four tours"),
        words=_("misère of four tours"),
        stats=_("Four-tour misère"),
        russian="мизер четырёх туров",
    ),
    "small-open-misere": ContractNames(
        title=_("Small open misère"),
        words=_("small open misère"),
        stats=_("Small open misère"),
        russian="маленький открытый мизер",
    ),
    "grand-open-misere": ContractNames(
        title=_("Grand open misère"),
        words=_("grand open misère"),
        stats=_("Grand open misère"),
        russian="большой открытый мизер",
    ),
    "boston": ContractNames(
        title=_("Boston (13 alone)"),
        words=_("Boston"),
        stats=_("Boston"),
        russian="бостон",
    ),
    "open-boston": ContractNames(
        title=_("Open Boston"),
        words=_("open Boston"),
        stats=_("Open Boston"),
        russian="открытый бостон",
    ),
}
"""The value card's rows past the trick contracts (the engine's ``CARD_ROWS`` after
``TRICK_ROWS``, in its order), each by its names."""

CARD_CONTRACT_WORDS: dict[str, Promise] = {
    "5": _("5 alone or 8 together"),
    **{row: names.words for row, names in CARD_CONTRACT_NAMES.items()},
}
"""The value card's contracts in a sentence; the trick rows 6–12 are their numbers."""
