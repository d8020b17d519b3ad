"""Preferans: the pulka, its deals, its house settings and its game record."""

from scoring.engine.preferans import record
from scoring.engine.preferans.deals import (
    Adjustment,
    Concede,
    Deal,
    Entry,
    Game,
    Misere,
    Passout,
)
from scoring.engine.preferans.pulka import (
    DealResult,
    Pulka,
    PulkaResult,
    PulkaSetup,
    joining_player_entry,
    score_pulka,
    settle,
)
from scoring.engine.preferans.rules import PRESETS, PreferansRules

__all__ = [
    "PRESETS",
    "Adjustment",
    "Concede",
    "Deal",
    "DealResult",
    "Entry",
    "Game",
    "Misere",
    "Passout",
    "PreferansRules",
    "Pulka",
    "PulkaResult",
    "PulkaSetup",
    "joining_player_entry",
    "record",
    "score_pulka",
    "settle",
]
