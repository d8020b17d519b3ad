"""Data built once for many tests: the pattern of Django's ``TestCase.setUpTestData`` for
pytest fixtures.

A module- or class-scoped fixture builds its data inside ``built_once(django_db_blocker)``:
the database is unblocked, a transaction is opened and the data is built in it; the
fixture yields, each test runs in pytest-django's savepoint on top and is rolled back to
it, and when the module or class ends the whole build is rolled back. Building five
finished pulkas deal by deal for each of 30 tests cost more than the tests themselves.

    @pytest.fixture(scope="class")
    def world(django_db_setup, django_db_blocker):
        with built_once(django_db_blocker):
            yield build_the_world()

    @pytest.fixture
    def season(world):
        return fresh(world.season)  # each test its own copy

Caveats:

- **Hand each test a copy.** A model instance built once is shared by every test that
  gets it; one that changes it in memory (``season.name = …``) would change it for the
  tests after it, though the database is rolled back. ``fresh()`` deep-copies, as Django's
  ``TestData`` descriptor does for ``setUpTestData``'s attributes.
- **Tests that must not see the data live outside the class or module** whose fixture
  builds it (a test of an empty club, or one that counts every row): the data is there for
  every test that runs while the fixture lives, whether it asks for it or not.
- **Only tests in a transaction** (``django_db`` without ``transaction=True``) may use it:
  a transactional test would commit on top of the open transaction, or flush it.
- **Caches and sequences are not rolled back**: primary keys go on rising, and a cache
  filled while building is still filled (the suite empties the cache before each test,
  tests/conftest.py's ``empty_cache``).
- The data is built in English (``translation.override("en")``), as the tests read it.
- Under ``make test`` the slow tests run first and a class's tests may be shared out
  between the two workers: each worker builds the data once for the tests it runs.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import transaction
from django.utils import translation


@contextmanager
def built_once(django_db_blocker: Any, language: str = "en") -> Iterator[None]:
    """Unblock the database and open a transaction rolled back when the block ends (see the
    module's docstring). ``django_db_blocker`` is pytest-django's fixture; the fixture
    using this also asks for ``django_db_setup``, so that the test database exists."""
    with django_db_blocker.unblock(), transaction.atomic(), translation.override(language):
        yield
        transaction.set_rollback(True)


def fresh[T](data: T) -> T:
    """A deep copy of data built once, for one test: what the test changes in memory stays
    in that test (model instances are copied with their cached relations, as
    ``setUpTestData``'s are)."""
    return copy.deepcopy(data)
