"""The Boston numbers the cleaned tariff corrects from the seed text, and why.

Copied from the spec's ``boston_tariff.json`` (entries with status ``corrected``) and the
reconciliation table of ``sources.md``: the spec folder is not part of the site. The tariff
pages mark a number when the tariff still holds the corrected value at that position, so a
house edit that changes the number also drops the mark.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Correction:
    """A number of the cleaned tariff that differs from what the seed prints."""

    value: int
    reason: str


PaymentKey = tuple[str, str, str, int]
"""(contract, outcome ``won``/``lost``, suit class ``minor``/``major``, tricks taken),
for the simple tour."""

CardKey = tuple[str, str, str]
"""(card row, part ``contract``/``three_honours``/``four_honours``/``overtrick``, suit)."""

PAYMENT_CORRECTIONS: dict[PaymentKey, Correction] = {
    ("supported", "won", "minor", 11): Correction(
        8,
        "Corrected from the seed: copy 000 prints 7, copy 003 prints 8. The section runs "
        "2, 4, 6, …, 10 in steps of 2 and the double tour prints 16 = 2 × 8; 003 adopted.",
    ),
    ("supported", "won", "major", 9): Correction(
        8,
        "Corrected from the seed: copy 000 prints 18, copy 003 prints 3, both OCR damage. "
        "4 + 4 = 8, confirmed by the double-tour table (16 = 2 × 8).",
    ),
    ("supported", "won", "major", 11): Correction(
        16,
        "Corrected from the seed: copy 000 prints 14, copy 003 prints 16. The section "
        "steps by 4 and the double tour prints 32 = 2 × 16; 003 adopted.",
    ),
    ("supported", "lost", "minor", 7): Correction(
        4,
        "Corrected from the seed: copy 000 lost the line «за неисполненную обязанность — 2» "
        "and prints a total of 6; copy 003 prints 2 + 2 = 4, as does the unsupported ask.",
    ),
    ("independence", "won", "minor", 12): Correction(
        32,
        "Corrected from the seed: both copies print 30, but the column steps by 4 "
        "(16, 20, 24, 28) and the slam line 2 × (16 + 5 × 4) = 72 implies 32.",
    ),
    ("independence", "won", "major", 12): Correction(
        64,
        "Corrected from the seed: both copies print 64 against «13 tricks»; it is the "
        "12-trick step (32 + 4 × 8). Thirteen tricks is the slam line (144).",
    ),
}

CARD_CORRECTIONS: dict[CardKey, Correction] = {
    ("5", "contract", "spades"): Correction(
        4, "Corrected from the seed: OCR prints 1; the other columns are 4 × the multiplier."
    ),
    ("5", "overtrick", "hearts"): Correction(
        4, "Corrected from the seed: OCR prints 14; the row is 1 × the multiplier."
    ),
    ("6", "contract", "hearts"): Correction(
        24, "Corrected from the seed: OCR prints 64; the row is 6 × the multiplier."
    ),
    ("6", "three_honours", "clubs"): Correction(
        8, "Corrected from the seed: OCR prints 6; the row is 4 × the multiplier."
    ),
    ("open-boston", "contract", "hearts"): Correction(
        800, "Corrected from the seed: OCR prints «80&»; the row is 200 × the multiplier."
    ),
}


def payment_note(key: PaymentKey, value: int) -> str | None:
    """The reason a payment-table number is marked, when ``value`` is the corrected one."""
    correction = PAYMENT_CORRECTIONS.get(key)
    return correction.reason if correction is not None and correction.value == value else None


def card_note(key: CardKey, value: int) -> str | None:
    """The reason a value-card number is marked, when ``value`` is the corrected one."""
    correction = CARD_CORRECTIONS.get(key)
    return correction.reason if correction is not None and correction.value == value else None
