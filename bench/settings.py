"""The site's own settings plus one bare view to compare against (benchmarks only)."""

from clubsite.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
