"""Per-player statistics of one finished table, stored with the player's seat so that a
member's profile adds them up without replaying any deal.

Every value is a whole number (counts and sums), so profiles can add them across tables.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from scoring.engine.boston.deals import Adjustment as BostonAdjustment
from scoring.engine.boston.deals import Ask, Card, Independence, Pass
from scoring.engine.boston.deals import Deal as BostonDeal
from scoring.engine.boston.table import DealResult as BostonDealResult
from scoring.engine.preferans.deals import Concede, Deal, Game, Misere, Passout
from scoring.engine.preferans.pulka import DealResult, PulkaSetup
from scoring.engine.preferans.rules import LEVELS

Stats = dict[str, int]


def preferans_stats(
    setup: PulkaSetup, deals: Sequence[Deal], results: Sequence[DealResult]
) -> list[Stats]:
    """Each seat's counts: contracts declared and made by level (``declared_7``,
    ``made_7``), misères, pass-out deals and tricks, whists written and received (whole
    whists, a gentleman's half dropped), help given and received (in pool points).

    A conceded contract (уход, §13.11) is a contract declared and not made, as a club
    counts it: it adds to ``declared_7`` and not to ``made_7``, and is also counted in
    ``conceded_7``. Consolation written on it counts as whists like any other."""
    stats = [Counter[str]() for _ in range(setup.size)]
    per_point = setup.rules.help_whists_per_point
    for deal, result in zip(deals, results, strict=True):
        if isinstance(deal, Game):
            made = deal.tricks is None or deal.tricks[deal.declarer] >= deal.level
            stats[deal.declarer][f"declared_{deal.level}"] += 1
            stats[deal.declarer][f"made_{deal.level}"] += made
        elif isinstance(deal, Concede):
            stats[deal.declarer][f"declared_{deal.level}"] += 1
            stats[deal.declarer][f"conceded_{deal.level}"] += 1
        elif isinstance(deal, Misere):
            stats[deal.declarer]["misere_declared"] += 1
            stats[deal.declarer]["misere_made"] += deal.tricks == 0
        elif isinstance(deal, Passout):
            for seat, tricks in deal.tricks.items():
                stats[seat]["passouts"] += 1
                stats[seat]["passout_tricks"] += tricks
        for entry in result.entries:
            if entry.kind != "whists" or entry.on is None:
                continue
            whole = int(entry.amount)
            if entry.rule == "help":
                points = whole // per_point
                stats[entry.player]["help_given"] += points
                stats[entry.on]["help_received"] += points
            elif entry.rule != "adjustment":
                stats[entry.player]["whists_written"] += whole
                stats[entry.on]["whists_received"] += whole
    return [dict(s) for s in stats]


def before_concessions(stats: Stats) -> Stats:
    """A seat's counts as the site stored them before concessions were counted (a backup
    made then holds these): no ``conceded_7``, and ``declared_7`` without the conceded
    ones. Consolation whists were counted already, so they stay."""
    old = dict(stats)
    for level in LEVELS:
        conceded = old.pop(f"conceded_{level}", 0)
        if conceded:
            declared = old[f"declared_{level}"] - conceded
            if declared:
                old[f"declared_{level}"] = declared
            else:  # declared only by conceding: the key was never written
                del old[f"declared_{level}"]
    return old


def boston_stats(deals: Sequence[BostonDeal], results: Sequence[BostonDealResult]) -> list[Stats]:
    """Each seat's contracts by kind (``declared_ask``, ``made_card-8`` …) and passes;
    a contract is made when the declaring side received chips."""
    stats = [Counter[str]() for _ in range(4)]
    for deal, result in zip(deals, results, strict=True):
        if isinstance(deal, Pass | BostonAdjustment):
            continue
        if isinstance(deal, Card):
            kind = f"card-{deal.contract}"
        elif isinstance(deal, Ask):
            kind = "ask-supported" if deal.partner is not None else "ask-unsupported"
        else:
            assert isinstance(deal, Independence)  # noqa: S101 - the remaining kind
            kind = "independence"
        net = sum(t.chips for t in result.transfers if t.payee == deal.declarer) - sum(
            t.chips for t in result.transfers if t.payer == deal.declarer
        )
        stats[deal.declarer][f"declared_{kind}"] += 1
        stats[deal.declarer][f"made_{kind}"] += net > 0
    return [dict(s) for s in stats]


def stats_by_holder(
    segments: Sequence[Sequence[Stats]], positions: Sequence[int]
) -> tuple[list[Stats], list[Stats]]:
    """Each player's counts at a table where substitutes came (Kodeks 3.1.2: each player's
    statistics keep their own deals). ``positions[k]`` is the seat the ``k``-th
    substitute took; ``segments[k]`` the seats' counts over the deals played before him
    and after the one before (``segments[-1]``: after the last), so there is one segment
    more than substitutes. A seat's counts in a segment are its holder's then: the leaver
    of the next substitute at that seat, or whoever holds the seat at the end. Returns the
    seats' counts (the players who hold them at the end) and each leaver's, in the order
    they left.

    >>> stats_by_holder([[{"a": 1}, {"a": 2}], [{"a": 4}, {"a": 8}]], [1])
    ([{'a': 5}, {'a': 8}], [{'a': 2}])
    """
    if len(segments) != len(positions) + 1:
        raise ValueError("one segment more than substitutes")
    seats = [Counter[str]() for _ in segments[0]]
    leavers = [Counter[str]() for _ in positions]
    for k, segment in enumerate(segments):
        for seat, counts in enumerate(segment):
            leaver = next((j for j in range(k, len(positions)) if positions[j] == seat), None)
            (seats[seat] if leaver is None else leavers[leaver]).update(counts)
    return [dict(s) for s in seats], [dict(s) for s in leavers]
