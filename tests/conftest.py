"""Shared fixtures for the whole test tree (pytest-django provides ``client``, ``settings``)."""

from pathlib import Path

import pytest
from django.conf import settings
from hypothesis import settings as hypothesis_settings

from tests.hypothesis_profiles import chosen_profile

# ``dev`` locally, ``ci`` under CI=true: tests/hypothesis_profiles.py.
hypothesis_settings.load_profile(chosen_profile())


@pytest.fixture
def rules_path() -> Path:
    """The rules document the site renders at /rules/."""
    return Path(settings.BASE_DIR) / "docs" / "rules.md"


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

    django_settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


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
    revision, and a rolled-back test's table numbers come round again."""
    from django.core.cache import cache

    from scoring.live.snapshots import SNAPSHOTS

    cache.clear()
    SNAPSHOTS.clear()
