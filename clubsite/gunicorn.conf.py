"""Gunicorn settings for the club site, read from environment variables.

Run: ``gunicorn -c clubsite/gunicorn.conf.py clubsite.wsgi`` (``make serve-prod`` does,
against PostgreSQL). docs/deploy.md lists every variable.
"""

import os
import re
import socket
from pathlib import Path
from typing import Any


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

# With gthread workers this is NOT a request timeout: the arbiter kills a worker whose
# main loop has not checked in for this many seconds (the loop is frozen, e.g. a C
# extension holding the GIL), while a slow request runs on in its thread however long it
# takes. Slow database statements are bounded by PostgreSQL instead
# (DJANGO_DB_STATEMENT_TIMEOUT in settings.py); the reverse proxy's read timeout bounds
# what the client waits. docs/deploy.md says more.
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
# The last field is the request's id (clubsite.middleware.RequestIdMiddleware), the one
# the site's own log lines of that request carry.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s" %({x-request-id}o)s'

proc_name = "clubsite"
# The workers' heartbeat files: in memory where there is /dev/shm (some container disks
# stall on the frequent writes).
if Path("/dev/shm").is_dir():  # noqa: S108 - gunicorn's documented choice, not a temp file
    worker_tmp_dir = "/dev/shm"  # noqa: S108


def _control_socket(bind: str) -> str | None:
    """This instance's control socket (for ``gunicornc``): GUNICORN_CONTROL_SOCKET if set
    (``off`` disables it), else a path of its own derived from the address it listens on.

    Gunicorn's default is one path per user (``$XDG_RUNTIME_DIR/gunicorn.ctl`` or
    ``~/.gunicorn/gunicorn.ctl``), and a starting instance deletes whatever socket is at
    its path: a second gunicorn on the host (another site, a test run, a second instance
    of this one) took the first one's control socket over, and stopping it left the first
    without one. Two instances cannot listen on the same address, so a path named after
    it is never shared."""
    raw = os.environ.get("GUNICORN_CONTROL_SOCKET", "").strip()
    if raw.lower() in ("off", "0", "no", "false", "none"):
        return None
    if raw:
        return raw
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    folder = Path(runtime) if runtime and Path(runtime).is_dir() else Path.home() / ".gunicorn"
    name = re.sub(r"[^A-Za-z0-9.-]", "_", bind)
    return str(folder / f"clubsite-{name}.ctl")


_socket = _control_socket(bind[0])
if _socket is None:
    control_socket_disable = True
else:
    control_socket = _socket


def _answers(path: str) -> bool:
    """Whether a live server listens on the Unix socket at ``path``."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


def on_starting(server: Any) -> None:
    """Never take over a live control socket (one set with GUNICORN_CONTROL_SOCKET that
    another instance is using): start without one and say so. A stale file, left by an
    instance that was killed, is replaced as usual."""
    if server.cfg.control_socket_disable:
        return
    path = server.cfg.control_socket
    if _answers(path):
        server.log.warning(
            "Control socket %s is in use by another gunicorn: starting without one "
            "(set GUNICORN_CONTROL_SOCKET to a path of this instance's own)",
            path,
        )
        server.cfg.set("control_socket_disable", True)
