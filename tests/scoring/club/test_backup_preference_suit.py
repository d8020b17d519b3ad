"""Boston's preference suit in the club backup: it is kept, a backup written before the
site knew it restores every table with none, and an unknown suit is refused."""

from __future__ import annotations

import pytest

from scoring import selectors
from scoring.club.backup import BackupError, club_export, club_import
from scoring.models import DealRecord, Table
from tests import factories
from tests.scoring.club.test_backup import empty_the_club

pytestmark = pytest.mark.django_db

DEALS = [
    # hearts is major: (2 + 2 × 1) × 2 = 8, Boris → Anna, Gleb → Vera
    {"kind": "ask", "declarer": "Anna", "partner": "Vera", "trump": "hearts", "tricks": 9},
    # clubs is minor: 16 from each to Boris
    {"kind": "independence", "declarer": "Boris", "trump": "clubs", "tricks": 8},
    {"kind": "ask", "declarer": "Gleb", "suit": "major", "tricks": 5},  # 2 × 2 = 4 from each
]
CHIPS = {"Anna": 8 - 16 - 4, "Boris": -8 + 48 - 4, "Vera": 8 - 16 - 4, "Gleb": -8 - 16 + 12}


def a_club() -> dict:
    """A backup of a club with a finished Boston table whose preference suit is hearts, one
    in play with spades, and one opened before the site asked for it; the club emptied."""
    members = [factories.member(name) for name in ("Anna", "Boris", "Vera", "Gleb")]
    factories.boston_table(members, preference_suit="hearts", deals=DEALS, finished=True)
    factories.boston_table(members, preference_suit="spades", deals=DEALS[:1])
    factories.boston_table(members, deals=[DEALS[2]])
    document = club_export()
    empty_the_club()
    return document


def chips(table: Table) -> dict[str, int]:
    players = selectors.replay(table).document()["players"]
    return {name: row["chips"] for name, row in players.items()}


def test_the_preference_suit_and_the_trumps_are_restored():
    document = a_club()
    assert [t["preference_suit"] for t in document["tables"]] == ["hearts", "spades", None]

    club_import(document)

    finished, in_play, older = Table.objects.order_by("pk")
    assert (finished.preference_suit, in_play.preference_suit, older.preference_suit) == (
        "hearts",
        "spades",
        None,
    )
    assert [d.data.get("trump") for d in finished.deal_records.order_by("sequence")] == [
        "hearts",
        "clubs",
        None,
    ]
    assert chips(finished) == CHIPS
    assert finished.record_digest is not None  # recomputed, with the preference suit in it
    # spades is the preference suit there: the hearts ask is minor, 4.
    assert chips(in_play) == {"Anna": 4, "Boris": -4, "Vera": 4, "Gleb": -4}


def test_a_backup_from_before_the_preference_suit_restores_with_none():
    document = a_club()
    older = document["tables"][2]
    del older["preference_suit"]
    document["tables"] = [older]

    club_import(document)

    table = Table.objects.get()
    assert table.preference_suit is None
    assert chips(table) == {"Anna": -4, "Boris": -4, "Vera": -4, "Gleb": 12}


@pytest.mark.parametrize(
    ("table", "suit", "message"),
    [
        (0, "red", "tables[0]: preference_suit: Value 'red' is not a valid choice."),
        (0, "♥", "tables[0]: preference_suit: Value '♥' is not a valid choice."),
        # Without its preference suit the finished table's hearts cannot be priced.
        (0, None, "tables[0]: its deals do not replay: deal 1, trump: the table has no"),
    ],
)
def test_a_backup_with_a_bad_preference_suit_is_refused(table, suit, message):
    document = a_club()
    document["tables"][table]["preference_suit"] = suit

    with pytest.raises(BackupError) as refused:
        club_import(document)

    assert message in str(refused.value)
    assert not Table.objects.exists()
    assert not DealRecord.objects.exists()
