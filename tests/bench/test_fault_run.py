"""How ``make faults`` reads a server's ``/healthz`` answers (bench/fault_run.py)."""

from __future__ import annotations

import pytest

from bench.fault_run import Probe

OK = {"database": "ok"}
DOWN = {"database": "error"}


def probe(*answers: tuple[float, dict[str, str]]) -> Probe:
    return Probe(
        port=0, answers=[(sent, 200 if body == OK else 503, body) for sent, body in answers]
    )


def test_recovery_is_the_first_ok_after_which_it_stayed_ok() -> None:
    answers = probe((9.5, OK), (10.0, DOWN), (10.5, OK), (11.0, DOWN), (12.0, OK), (13.0, OK))
    assert answers.recovered(10.0, "database") == 2.0
    assert probe((10.0, OK), (11.0, DOWN)).recovered(10.0, "database") is None


def test_a_later_fault_is_not_counted_against_the_recovery_before_it() -> None:
    # PostgreSQL back at 10, its connections cut at 23: a probe failing at the cut is the
    # cut's to count (a CI run read it as 13.2 s to recover from the restart).
    answers = probe((9.0, DOWN), (11.0, OK), (12.0, OK), (23.1, DOWN), (23.3, OK))
    assert answers.recovered(10.0, "database", until=23.0) == 1.0
    assert answers.recovered(23.0, "database") == pytest.approx(0.3)
    assert answers.recovered(10.0, "database") == pytest.approx(13.3)  # the old reading
