"""How hard Hypothesis tries: the ``ci`` profile in CI, the ``dev`` profile locally.

``ci`` is Hypothesis as the tests were written: every property and fuzz target tries the
number of examples it asks for. ``dev`` tries a tenth of them (at least ten each), so that
``make test`` stays quick on a two-core machine; no test is left out, each simply tries
fewer inputs. The profile is ``HYPOTHESIS_PROFILE`` when that is set, else ``ci`` when
``CI`` is (CI runs ``.ci/run`` with ``CI=true``), else ``dev``; pytest's
``--hypothesis-profile=ci`` works too.

A test's own ``@settings(max_examples=…)`` overrides the profile's, so the tests ask
through ``examples(n)``, which scales ``n`` as the loaded profile scales Hypothesis'
default of 100.
"""

from __future__ import annotations

import os

from hypothesis import settings

#: Hypothesis' own default ``max_examples``: the ``ci`` profile keeps it.
DEFAULT_EXAMPLES = 100
#: Under ``dev`` every test tries at least this many examples (or all it asks for, if fewer).
MINIMUM_EXAMPLES = 10

settings.register_profile("ci", max_examples=DEFAULT_EXAMPLES)
settings.register_profile("dev", max_examples=DEFAULT_EXAMPLES // 10)


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in {"", "0", "false", "no", "off"}


def chosen_profile() -> str:
    """``HYPOTHESIS_PROFILE``, else ``ci`` under ``CI``, else ``dev``."""
    return os.environ.get("HYPOTHESIS_PROFILE", "").strip() or ("ci" if _flag("CI") else "dev")


def examples(n: int) -> int:
    """``n`` examples under ``ci``; under ``dev`` a tenth of them, but at least ten.

    Read when a test module is imported, after the profile is loaded (tests/conftest.py
    loads it; the hypothesis plugin applies ``--hypothesis-profile`` before collection).
    """
    scaled = round(n * settings().max_examples / DEFAULT_EXAMPLES)
    return max(scaled, min(n, MINIMUM_EXAMPLES))
