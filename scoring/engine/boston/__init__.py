"""Boston scoring (boston.md): the payment tariff and the contract value card.

``score_record`` scores a JSON game record; ``BostonTable`` scores deal by deal;
``BostonRules`` holds a house tariff.
"""

from scoring.engine.boston.amounts import Amount, card_amount, tariff_amount
from scoring.engine.boston.deals import (
    SUIT_CLASSES,
    Adjustment,
    Ask,
    Card,
    Deal,
    Independence,
    Pass,
    suit_class,
    trump_class,
)
from scoring.engine.boston.record import parse_record, result_document, score_record, to_record
from scoring.engine.boston.rules import CARD_ROWS, SUITS, SYSTEMS, BostonRules
from scoring.engine.boston.table import (
    BostonResult,
    BostonSetup,
    BostonTable,
    DealResult,
    Transfer,
    score_boston,
    score_deal,
)

__all__ = [
    "CARD_ROWS",
    "SUITS",
    "SUIT_CLASSES",
    "SYSTEMS",
    "Adjustment",
    "Amount",
    "Ask",
    "BostonResult",
    "BostonRules",
    "BostonSetup",
    "BostonTable",
    "Card",
    "Deal",
    "DealResult",
    "Independence",
    "Pass",
    "Transfer",
    "card_amount",
    "parse_record",
    "result_document",
    "score_boston",
    "score_deal",
    "score_record",
    "suit_class",
    "tariff_amount",
    "to_record",
    "trump_class",
]
