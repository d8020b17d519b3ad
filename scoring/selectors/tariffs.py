"""Tariff reads: which published version plays by given rules."""

from __future__ import annotations

from typing import Any

from scoring.games import Game, Rules


def version_with_rules(game: Game, rules: Rules) -> Any:
    """The newest published version of ``game`` whose rules are ``rules`` (``None`` if
    none is), e.g. for an imported game record.

    Versions are compared as the engine reads them (``TariffVersion.has_rules``): one
    published before a setting existed still matches rules that give that setting its
    default.
    """
    versions = game.versions().select_related("tariff").order_by("-created_at", "-pk")
    return next((version for version in versions if version.has_rules(rules)), None)
