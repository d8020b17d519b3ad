"""What every fuzz module shares: Hypothesis settings for a target, one example's writes
rolled back, and the tally — how many inputs each target was fed, and how many of them the
site answered with a 5xx (a page) or crashed on (a command: an exception other than its
refusal). ``tests/conftest.py`` prints the tally once at the end of the run, after the
other results, summed over pytest-xdist's workers::

    fuzz: 4,210 inputs tried, 0 answered 5xx (backups: 300 tried, 0 5xx; urls: …)

A 5xx fails its test as well, so a green run always reads ``0 answered 5xx``; the count is
still taken from what was answered, before the test fails, never assumed. It is printed by
a terminal-summary hook because what a test (or a module fixture) writes while it runs is
captured by pytest and shown only for a failure.

Not a test module (no ``test_`` prefix): pytest does not collect it.
"""

from __future__ import annotations

import logging
import os
import traceback
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck, settings

from tests.hypothesis_profiles import examples

#: ``FUZZ_EXAMPLES=1000`` tries that many inputs per target, whatever the profile.
SCALE = int(os.environ.get("FUZZ_EXAMPLES", "0"))


def fuzz(n: int) -> Any:
    """Hypothesis settings for one target: ``n`` inputs, scaled for the Hypothesis profile
    (tests/hypothesis_profiles.py); ``FUZZ_EXAMPLES`` overrides both. Derandomized (the
    same inputs every run) unless ``FUZZ_RANDOM`` is set."""
    return settings(
        max_examples=SCALE or examples(n),
        deadline=None,
        derandomize=not os.environ.get("FUZZ_RANDOM"),
        database=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )


@contextmanager
def rolled_back() -> Iterator[None]:
    """One example's writes, undone when it ends: the examples are independent, and
    Hypothesis replays a failing one exactly."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def login(client: Client, member: Any) -> None:
    """Sign ``member`` in on ``client``; ``None`` signs out (an anonymous visitor)."""
    if member is None:
        client.logout()
    else:
        client.force_login(member)


@contextmanager
def quiet_request_logs() -> Iterator[None]:
    """Keep the logs of the hundreds of 403s, 404s and failed sign-ins a fuzz provokes off
    the console (a 5xx still fails its test, with the view's traceback)."""
    quiet = {"django.request": logging.CRITICAL, "axes": logging.ERROR}
    levels = {name: logging.getLogger(name).level for name in quiet}
    for name, level in quiet.items():
        logging.getLogger(name).setLevel(level)
    try:
        yield
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


# -- the tally ----------------------------------------------------------------------------

TRIED: Counter[str] = Counter()
ANSWERED_5XX: Counter[str] = Counter()
_RUNNING: list[str] = []  # the target whose input is being fed now (innermost last)


class Crash(Exception):
    """A command ended as a shell would show a traceback: its equivalent of a 5xx."""


@contextmanager
def fuzz_input(target: str) -> Iterator[None]:
    """One input fed to ``target``, counted. A 5xx that a ``CountingClient`` receives
    meanwhile is counted against it, and so is any exception escaping the block other than
    a failed assertion (the test's own checks): a view or a command that crashed."""
    TRIED[target] += 1
    _RUNNING.append(target)
    try:
        yield
    except AssertionError:
        raise
    except Exception:
        ANSWERED_5XX[target] += 1
        raise
    finally:
        _RUNNING.pop()


class CountingClient(Client):
    """The test client, in English, that does not re-raise a view's exception: the site's
    own error page (a 500, or the 503 for a database error) comes back as the answer, is
    counted against the input being fed, and then fails the test with the traceback."""

    def __init__(self, **defaults: Any) -> None:
        super().__init__(
            raise_request_exception=False, headers={"accept-language": "en"}, **defaults
        )

    def request(self, **request: Any) -> Any:
        response = super().request(**request)
        if response.status_code >= 500:
            if _RUNNING:
                ANSWERED_5XX[_RUNNING[-1]] += 1
            query = request.get("QUERY_STRING")
            where = f"{request.get('REQUEST_METHOD')} {request.get('PATH_INFO')!r}"
            where += f" ?{query}" if query else ""
            error = response.exc_info
            details = "".join(traceback.format_exception(*error)) if error else ""
            raise AssertionError(f"{where} answered {response.status_code}\n{details}")
        return response


# -- the report, across pytest-xdist's workers ----------------------------------------------


def as_dict() -> dict[str, dict[str, int]]:
    """This process's tally, as plain data a pytest-xdist worker sends its controller."""
    return {"tried": dict(TRIED), "answered_5xx": dict(ANSWERED_5XX)}


def merge(tally: dict[str, dict[str, int]] | None) -> None:
    """Add a worker's ``as_dict()`` to this process's tally."""
    if tally:
        TRIED.update(tally["tried"])
        ANSWERED_5XX.update(tally["answered_5xx"])


def summary() -> str | None:
    """The line the run ends with, or ``None`` when no fuzz target ran."""
    if not TRIED:
        return None
    parts = "; ".join(
        f"{target}: {n:,} tried, {ANSWERED_5XX[target]:,} 5xx"
        for target, n in sorted(TRIED.items())
    )
    total, failed = sum(TRIED.values()), sum(ANSWERED_5XX.values())
    return f"fuzz: {total:,} inputs tried, {failed:,} answered 5xx ({parts})"
