"""Persistence: the club's identity, house tariffs and their versions, tables (pulkas and
Boston tables) with their deals and audit history. Each tariff version adapts itself to the
engine (``to_rules()``), a table through its game (``scoring.games``); the write paths live
in ``scoring/services/``."""

from scoring.models.accounts import AccountEntry
from scoring.models.club import Club
from scoring.models.epoch import Epoch
from scoring.models.evenings import (
    ApartRequest,
    Attendance,
    Evening,
    EveningAnswer,
    EveningSeries,
    EveningTable,
    Settlement,
)
from scoring.models.guests import Guest
from scoring.models.history import HistoryImport
from scoring.models.home import HomeStamp
from scoring.models.notices import Notice
from scoring.models.seasons import Rating, RatingHistory, Season
from scoring.models.standings import RivalTotal, StandingsStamp, StandingsTotal
from scoring.models.tables import AuditEntry, DealRecord, Seat, SeatChange, Table, WriteKey
from scoring.models.tariffs import (
    BostonCardRow,
    BostonPaymentRow,
    BostonTariff,
    BostonTariffVersion,
    PreferansTariff,
    PreferansTariffVersion,
)
from scoring.models.tournaments import Entry, Penalty, Tour, Tournament, TourSeat, TourTable

__all__ = [
    "AccountEntry",
    "ApartRequest",
    "Attendance",
    "AuditEntry",
    "BostonCardRow",
    "BostonPaymentRow",
    "BostonTariff",
    "BostonTariffVersion",
    "Club",
    "DealRecord",
    "Entry",
    "Epoch",
    "Evening",
    "EveningAnswer",
    "EveningSeries",
    "EveningTable",
    "Guest",
    "HistoryImport",
    "HomeStamp",
    "Notice",
    "Penalty",
    "PreferansTariff",
    "PreferansTariffVersion",
    "Rating",
    "RatingHistory",
    "RivalTotal",
    "Season",
    "Seat",
    "SeatChange",
    "Settlement",
    "StandingsStamp",
    "StandingsTotal",
    "Table",
    "Tour",
    "TourSeat",
    "TourTable",
    "Tournament",
    "WriteKey",
]
