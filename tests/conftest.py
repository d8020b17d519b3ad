"""Shared fixtures for the whole test tree (pytest-django provides ``settings`` and the
database ones; model factories are in tests/factories.py).

The people and tables most tests start from are defined here once: ``club`` (five members
by name), ``table`` (an open pulka) with ``anna`` signed in at it, and ``organiser``.
"""

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

from tests.hypothesis_profiles import chosen_profile

# ``dev`` locally, ``ci`` under CI=true: tests/hypothesis_profiles.py.
hypothesis_settings.load_profile(chosen_profile())


# -- the order: the slow tests first -----------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` (the longest: servers, crawls, browsers) first, the rest in
    their usual order after them, so that no long one is left for the end.

    Before pytest-django's own sort (``tryfirst``: a conftest's hook is called before the
    plugin's), which is stable and puts every test in a transaction before the transactional
    ones, as Django does: a transactional test empties the tables when it ends, the preset
    tariffs the migrations made included. The slow tests go first within each of Django's
    groups. ``make test`` shares the tests out with xdist's ``worksteal``: a worker that has
    run out takes half of what the other has left, from its end, and so may run a test in a
    transaction after a transactional one: ``pytest_runtest_setup`` below puts the presets
    back first."""
    for item in items:  # a browser test is slow whether its module says so or not
        if (
            item.get_closest_marker("browser") is not None
            and item.get_closest_marker("slow") is None
        ):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# -- the database as the migrations left it, after a transactional test ------------------------


def _transactional(item: pytest.Item) -> bool | None:
    """Whether ``item`` commits (a transactional test, which empties the tables when it
    ends), runs in a transaction rolled back (False), or has no database (None): pytest-
    django's own reading of the ``django_db`` marker and the fixtures."""
    from pytest_django.fixtures import validate_django_db

    fixtures = getattr(item, "fixturenames", ())
    if "transactional_db" in fixtures or "live_server" in fixtures:
        return True
    if (marker := item.get_closest_marker("django_db")) is not None:
        transaction, reset_sequences, *_ = validate_django_db(marker)
        return bool(transaction or reset_sequences)
    return False if "db" in fixtures else None


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None, django_db_blocker: Any
) -> None:
    """pytest-django's (a test database for each xdist worker), each made on PostgreSQL as a
    copy of one database migrated once (tests/migrated_template.py)."""
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "postgresql":
        from tests.migrated_template import migrated_template

        with django_db_blocker.unblock():
            template = migrated_template(connection)
        settings.DATABASES["default"]["TEST"]["TEMPLATE"] = template


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """pytest-django's, and the test database as the migrations left it kept in memory (as
    Django keeps it for ``serialized_rollback``, when some test asks for that), for
    ``pytest_runtest_setup``."""
    from django.db import connection

    if not hasattr(connection, "_test_serialized_contents"):
        with django_db_blocker.unblock():
            connection._test_serialized_contents = connection.creation.serialize_db_to_string()


_emptied = False  # a transactional test of this process has emptied the tables since


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Any:
    """A test in a transaction that comes after a transactional one finds the tables as the
    migrations left them (the preset tariffs, the club, the groups), put back from the copy
    ``django_db_setup`` keeps. Under ``make test`` that happens only where a worker stole
    work (``pytest_collection_modifyitems``)."""
    global _emptied
    transactional = _transactional(item)
    if _emptied and transactional is False:
        from django.db import connection
        from pytest_django.plugin import blocking_manager_key

        with item.config.stash[blocking_manager_key].unblock():
            connection.creation.deserialize_db_from_string(connection._test_serialized_contents)
    if transactional is not None:
        _emptied = transactional
    return (yield)


# -- the fuzz's tally (tests/fuzz_harness.py), printed once at the end of the run ---------------


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker hands its tally to the controller, which prints the sum."""
    from tests import fuzz_harness

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["fuzz_harness"] = fuzz_harness.as_dict()


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: unknown without it
def pytest_testnodedown(node: Any, error: Any) -> None:
    from tests import fuzz_harness

    fuzz_harness.merge(getattr(node, "workeroutput", {}).get("fuzz_harness"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests import fuzz_harness

    if (line := fuzz_harness.summary()) is not None:
        terminalreporter.write_line(line)


@pytest.fixture
def client():
    """The test client, speaking English: assertions read the English messages (the site's
    default language is Russian; tests of the Russian pages ask for it explicitly)."""
    from django.test import Client

    return Client(headers={"accept-language": "en"})


@pytest.fixture(autouse=True, scope="session")
def fast_password_hasher():
    """Members are made by the dozen in tests; a real password hash takes most of a
    second each on these machines. (Not via the ``settings`` fixture: some engine tests
    use ``settings`` as a parameter name.)"""
    from django.conf import settings as django_settings
    from django.contrib.auth.hashers import get_hashers

    django_settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_hashers.cache_clear()


@pytest.fixture(autouse=True)
def english_outside_requests():
    """Messages raised outside a request (model validation, services) come in the active
    language, Russian by default; the tests read the English ones."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with empty caches: sheets and replay snapshots are kept per table
    revision, and a rolled-back test's table numbers come round again (the versions the
    idle poll remembers too), and the content types a process keeps once read (a query pin
    counts the read; which test read one before depends on how the workers share them out)."""
    from django.contrib.contenttypes.models import ContentType
    from django.core.cache import cache

    from scoring.live import revisions
    from scoring.live.snapshots import SNAPSHOTS

    cache.clear()
    ContentType.objects.clear_cache()
    SNAPSHOTS.clear()
    revisions.forget()


# -- people and tables ------------------------------------------------------------------------


@pytest.fixture
def club() -> dict[str, Any]:
    """Five members by display name, in this order: Anna, Boris, Vera, Gleb and Dina
    (usernames anna, boris, …; password ``factories.PASSWORD``)."""
    from tests import factories

    return factories.club_members()


@pytest.fixture
def table(request: pytest.FixtureRequest) -> Any:
    """An open pulka for three new members called Anna, Boris and Vera, not the ``club``'s
    (Sochi, pool 10: a few deals finish it). ``@pytest.mark.pool_target(n)`` on a test or
    module sets the pool."""
    from tests import factories

    marker = request.node.get_closest_marker("pool_target")
    return factories.pulka(pool_target=marker.args[0] if marker else 10)


@pytest.fixture
def anna(client: Any, table: Any) -> Any:
    """Anna, the first player at ``table``, signed in on ``client``."""
    user = table.seats.get(position=0).member
    client.force_login(user)
    return user


@pytest.fixture
def organiser(client: Any) -> Any:
    """Olga (username olga), an organiser with staff access, signed in on ``client``."""
    from tests import factories

    user = factories.member("Olga", organiser=True, is_staff=True, username="olga")
    client.force_login(user)
    return user


# -- the clock ----------------------------------------------------------------------------------


class Clock:
    """The site's time as a test sets it: ``clock.at(...)`` moves it (a naive time is in the
    club's time zone); until then it is the real time."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self._now: Any = None

    def at(self, moment: Any) -> None:
        from django.utils import timezone

        self._now = moment if timezone.is_aware(moment) else timezone.make_aware(moment)

    def __call__(self) -> Any:
        return self._real() if self._now is None else self._now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """A controllable clock in place of ``django.utils.timezone.now`` for the test: what the
    control time (``Table.clock_has_struck``), ``localdate`` and the ``auto_now`` fields
    read. No timer runs: the test moves the time itself."""
    from django.utils import timezone

    clock = Clock(timezone.now)
    monkeypatch.setattr(timezone, "now", clock)
    return clock


# -- a real Pushpin -----------------------------------------------------------------------------


@pytest.fixture
def push_server(live_server: Any, settings: Any) -> Iterator[Any]:
    """Pushpin (``bench/pushpin.py``) in front of the live server, for every path (a page
    and its stream share an origin, as behind nginx), and the site publishing to it. Its
    users say what a test does without Debian's pushpin."""
    import django_grip

    from bench.load import free_port
    from bench.pushpin import free_run, pushpin

    port, publish = free_port(), free_port()
    other = free_run(avoid={port, publish})
    with pushpin(port, publish, [live_server.thread.port], other=other) as server:
        settings.GRIP_URL = server.grip_url
        django_grip._pubcontrol = None  # made again from GRIP_URL by the next publish
        yield server
    django_grip._pubcontrol = None
