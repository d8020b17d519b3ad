"""The site's own settings plus one bare view to compare against (benchmarks only)."""

import os

from clubsite.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"

# The load run counts the fragments the servers make (scoring.live.fragments logs one
# line per fragment made) into the file it names: every process of every server appends
# its lines, each with its process id.
if RENDER_LOG := os.environ.get("BENCH_RENDER_LOG"):
    LOGGING["formatters"]["renders"] = {"format": "{process} {message}", "style": "{"}  # noqa: F405
    LOGGING["handlers"]["renders"] = {  # noqa: F405
        "class": "logging.FileHandler",
        "filename": RENDER_LOG,
        "formatter": "renders",
    }
    LOGGING["loggers"]["scoring.live.fragments"] = {  # noqa: F405
        "handlers": ["renders"],
        "level": "DEBUG",
        "propagate": False,
    }
