"""How fast the engine scores a 1,000-deal pulka record (target: ≥ 100,000 deals/s)."""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from scoring.engine.preferans import (
    Deal,
    Game,
    Misere,
    Passout,
    PreferansRules,
    Pulka,
    PulkaSetup,
    score_pulka,
)
from scoring.engine.preferans.record import to_record
from scoring.engine.record import load, score_record

TARGET_DEALS_PER_SECOND = 100_000


def thousand_deal_record(seed: int = 1, deals: int = 1000) -> dict[str, Any]:
    """A legal Classic 4-player pulka of ``deals`` deals (games, misères, pass-outs, dark
    deals and bombs), with a pool target high enough that it never closes."""
    rng = random.Random(seed)
    setup = PulkaSetup(
        players=("Anna", "Boris", "Vera", "Gleb"),
        rules=PreferansRules.preset("classic"),
        pool_target=10_000,
    )
    pulka = Pulka(setup)
    played: list[Deal] = []
    for _ in range(deals):
        deal = random_deal(rng, pulka)
        pulka.play(deal)
        played.append(deal)
    return to_record(setup, played)


def random_deal(rng: random.Random, pulka: Pulka) -> Deal:
    """A legal next deal for ``pulka`` (games, misères, pass-outs; dark where allowed)."""
    active = pulka.active_seats()
    roll = rng.random()
    dark = pulka.rules.dark_games and rng.random() < 0.1
    if roll < 0.2:
        widow_rule = pulka.setup.size == 4 and pulka.rules.dealer_takes_widow_tricks
        widow = rng.randint(0, 2) if widow_rule else 0
        cuts = sorted(rng.randint(0, 10 - widow) for _ in range(2))
        shares = (cuts[0], cuts[1] - cuts[0], 10 - widow - cuts[1])
        return Passout(
            tricks=dict(zip(active, shares, strict=True)),
            dealer_tricks=widow if widow_rule else None,
            dark=dark,
        )
    declarer = rng.choice(active)
    if roll < 0.3:
        return Misere(declarer=declarer, tricks=rng.choice([0, 0, 1, 2]), dark=dark)
    defenders = pulka.defenders(declarer)
    level = rng.randint(pulka.lowest_contract(), 10)
    answers = {s: rng.choice(["whist", "pass"]) for s in defenders}
    tricks = None
    if "whist" in answers.values():
        own = rng.randint(max(0, level - 2), 10)
        first = rng.randint(0, 10 - own)
        tricks = {declarer: own, defenders[0]: first, defenders[1]: 10 - own - first}
    return Game(
        declarer=declarer,
        level=level,
        suit=rng.choice("SCDHN"),
        answers=answers,
        tricks=tricks,
        dark=dark,
    )


def _rate(work: Callable[[], object], deals: int, repeats: int) -> tuple[float, float]:
    """Median and best deals per CPU second over ``repeats`` runs of ``work``.

    CPU time of this process, not wall time: the target is per core, and on a shared
    machine wall time also counts the moments another process had the core."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return deals / statistics.median(times), deals / min(times)


def run(repeats: int = 30) -> dict[str, float]:
    """Print and return the engine's throughput on the 1,000-deal record."""
    from scoring.engine.preferans.record import parse_record

    record = thousand_deal_record()
    text = json.dumps(record)
    setup, deals = parse_record(record)
    n = len(deals)
    scoring, scoring_best = _rate(lambda: score_pulka(setup, deals), n, repeats)
    whole, whole_best = _rate(lambda: score_record(load(text)), n, repeats)
    print(
        f"engine: scoring a {n}-deal record: {scoring:,.0f} deals/s median "
        f"({scoring_best:,.0f} best); target ≥ {TARGET_DEALS_PER_SECOND:,} "
        f"{'MET' if scoring >= TARGET_DEALS_PER_SECOND else 'MISSED'}"
    )
    print(
        f"engine: JSON text → result document: {whole:,.0f} deals/s median ({whole_best:,.0f} best)"
    )
    return {"engine_deals_per_second": scoring, "record_deals_per_second": whole}


if __name__ == "__main__":
    run()
