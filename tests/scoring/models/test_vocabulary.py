"""The cards' words (scoring/models/vocabulary.py) name every key the engine has."""

from __future__ import annotations

from scoring.engine.boston.rules import CARD_ROWS, SUITS, TRICK_ROWS
from scoring.engine.preferans.deals import SUITS as PREFERANS_LETTERS
from scoring.models.vocabulary import (
    CARD_CONTRACT_NAMES,
    CARD_CONTRACT_WORDS,
    PREFERANS_SUITS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
)


def test_every_suit_has_a_symbol_and_a_name():
    assert tuple(SUIT_SYMBOLS) == tuple(SUIT_NAMES) == SUITS
    assert tuple(PREFERANS_SUITS) == PREFERANS_LETTERS
    assert [PREFERANS_SUITS[letter] for letter in "SCDH"] == ["♠", "♣", "♦", "♥"]


def test_every_named_row_of_the_value_card_has_its_names_in_order():
    assert tuple(CARD_CONTRACT_NAMES) == CARD_ROWS[len(TRICK_ROWS) :]
    assert set(CARD_CONTRACT_WORDS) == {"5", *CARD_CONTRACT_NAMES}
