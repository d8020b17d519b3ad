"""The test databases on PostgreSQL made as copies of one database migrated once, not each
migrated from nothing (``django_db_modify_db_settings`` in tests/conftest.py).

Running the migrations takes about 13 s of CPU (Django works out the models' states through
every migration), and every xdist worker did it for its own test database on every run:
two thirds of a small run's wall time (a module of 24 tests: 17.6 s, 6.1 s from a template).
PostgreSQL copies a database given as the template of a new one in a tenth of a second;
Django then runs the migrations on the copy, finds them all applied, and only sends
``post_migrate``.

The template is ``test_<NAME>_migrated_<digest>``: the digest is of every migration file of
the project's apps and of uv.lock (the versions, and so the migrations, of Django and the
libraries). The migrations read nothing else — the presets they write are written out in
them (scoring/migrations/0002_preset_tariffs.py) — so a template with the digest of the
files checked out is what migrating would make. A changed or new migration makes a new
template, and the older ones of that name are dropped. One worker at a time looks for it
and builds it (a PostgreSQL advisory lock); it is built under another name and renamed
once migrated, so a run stopped halfway leaves no half-migrated template behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DatabaseError

LOCK = 7_406_228_231
"""The advisory lock the workers take turns under, a number of this file's own."""


def digest() -> str:
    base = Path(settings.BASE_DIR)
    files = [*sorted(base.glob("*/migrations/*.py")), base / "uv.lock"]
    hashed = hashlib.sha256()
    for path in files:
        hashed.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes())
    return hashed.hexdigest()[:12]


def migrated_template(connection: Any) -> str:
    """The name of the migrated template for ``connection``'s test databases, built first
    if there is none for the migrations checked out."""
    prefix = f"test_{connection.settings_dict['NAME']}_migrated_"
    name = prefix + digest()
    quote = connection.ops.quote_name
    with connection._nodb_cursor() as cursor:
        # The other workers wait for the build as long as it takes, not the site's 30 s.
        cursor.execute("SET statement_timeout = 0")
        cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK])
        try:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            if cursor.fetchone() is None:
                _build(cursor, name, quote)
                _drop_older(cursor, prefix, name, quote)
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK])
    return name


def _build(cursor: Any, name: str, quote: Any) -> None:
    building = name + "_building"
    cursor.execute(f"DROP DATABASE IF EXISTS {quote(building)}")
    cursor.execute(f"CREATE DATABASE {quote(building)}")
    _migrate(building)
    cursor.execute(f"ALTER DATABASE {quote(building)} RENAME TO {quote(name)}")


def _drop_older(cursor: Any, prefix: str, name: str, quote: Any) -> None:
    cursor.execute(
        "SELECT datname FROM pg_database WHERE starts_with(datname, %s) AND datname <> %s",
        [prefix, name],
    )
    for (older,) in cursor.fetchall():
        # One that another run is copying from right now stays for a later build.
        with contextlib.suppress(DatabaseError):
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(older)}")


def _migrate(database: str) -> None:
    """``manage.py migrate`` into ``database``, in a process of its own: this one's
    connections stay with the test databases."""
    url = urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{database}").geturl()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "--verbosity=0"],
        cwd=settings.BASE_DIR,
        env=os.environ | {"DATABASE_URL": url},
        check=True,
    )
