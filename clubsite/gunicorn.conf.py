"""Gunicorn settings for the club site, read from environment variables.

Run: ``gunicorn -c clubsite/gunicorn.conf.py clubsite.wsgi`` (``make serve-prod`` does,
against PostgreSQL). docs/deploy.md lists every variable.
"""

import os
from pathlib import Path


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {raw!r}") from None


def _default_workers() -> int:
    # Gunicorn's rule of thumb, 2 × cores + 1, capped: each worker holds its own database
    # connections and memory, and a club site is never CPU-bound for long.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(2 * (cores or 1) + 1, 8)


# Where to listen: BIND (host:port, or unix:/path) wins; else PORT on the loopback, for a
# reverse proxy on the same machine to forward to.
bind = [os.environ.get("BIND") or f"127.0.0.1:{_int('PORT', 8000)}"]

# WEB_CONCURRENCY is the name platforms (and gunicorn itself) use for the worker count.
workers = _int("WEB_CONCURRENCY", _default_workers())
# Threads let a worker answer the live sheet's cheap conditional GETs (every table page
# polls) while another request of the same worker waits on the database.
worker_class = "gthread"
threads = _int("GUNICORN_THREADS", 4)

# A request that takes longer than this is stuck: the worker is killed and replaced.
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = 30
# Seconds an idle keep-alive connection (from the reverse proxy) stays open.
keepalive = 5

# Restart each worker after about a thousand requests (at different moments, thanks to the
# jitter), so a slow leak in any library can never grow without bound.
max_requests = _int("GUNICORN_MAX_REQUESTS", 1000)
max_requests_jitter = max(max_requests // 10, 1) if max_requests else 0

# Each worker imports the site itself: a code change needs no more than a HUP to reload,
# and no database connection is ever shared across a fork.
preload_app = False

# Logs: both to stdout/stderr, for the process manager (systemd, Docker) to keep.
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'

proc_name = "clubsite"
# The workers' heartbeat files: in memory where there is /dev/shm (some container disks
# stall on the frequent writes).
if Path("/dev/shm").is_dir():  # noqa: S108 - gunicorn's documented choice, not a temp file
    worker_tmp_dir = "/dev/shm"  # noqa: S108
