"""Throughput under gunicorn, measured with wrk on loopback, and worker memory."""

from __future__ import annotations

import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Throughput:
    name: str
    requests_per_second: float
    latency_ms: float
    errors: int


def more_open_files(needed: int) -> int:
    """Raise this process's limit on open files to its hard limit, for itself and the
    servers it starts, which inherit it; the limit now. A run holding thousands of
    connections needs it: nginx holds two descriptors a proxied connection, and its own
    ``worker_rlimit_nofile`` cannot raise the hard limit without privilege (a container's
    root has none). Under a soft limit of 4,096 a run of 2,000 streams had nginx answer
    HTTP 500 to the last ones ("socket() failed (24: Too many open files) while
    connecting to upstream"). ``SystemExit`` with that explanation when even the hard
    limit is below ``needed``."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = 1_048_576 if hard == resource.RLIM_INFINITY else hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    if limit < needed:
        raise SystemExit(
            f"this run holds about {needed:,} open files in one process (nginx's), but the "
            f"hard limit is {limit:,}: raise it (ulimit -Hn, or the container's nofile)"
        )
    return limit


def free_port() -> int:
    """A loopback port nothing listens on, from below the kernel's range for outgoing
    connections (``ip_local_port_range``). A port the kernel hands out for port 0 comes
    from that range, where any connection opened before the server binds the port may take
    it as its own end: Pushpin's processes open dozens as they start, before the push
    run's app servers bind theirs. (One CI push run's gunicorn ended before it answered,
    2026-12-07, its output not kept; a port taken so was the likeliest cause.)"""
    low = _outgoing_ports_start()
    if low <= FIRST_PORT + 1_000:  # no room below the range: the kernel's pick, as before
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return int(probe.getsockname()[1])
    while True:
        port = FIRST_PORT + secrets.randbelow(low - FIRST_PORT)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port


FIRST_PORT = 10_000
"""The lowest port ``free_port`` gives: above the services' own (PostgreSQL 5432, Redis
6379, Pushpin's 5560-5564 and 7999)."""


def _outgoing_ports_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default


@contextmanager
def gunicorn(
    env: dict[str, str], workers: int = 2, port: int | None = None, log: Path | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The site under gunicorn with the production config, on a loopback port: ``port``,
    else $BENCH_PORT if set (a shared machine gives each user a range), else a free one.
    Its output goes to ``log``, kept (a run shows it when it fails); without one, to a file
    of its own kept while it runs, for the error if it does not start (it names a port
    taken)."""
    port = port or int(os.environ.get("BENCH_PORT") or free_port())
    command = [
        str(ROOT / ".venv" / "bin" / "gunicorn"),
        "clubsite.wsgi:application",
        "--config",
        str(ROOT / "clubsite" / "gunicorn.conf.py"),
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--access-logfile",
        "/dev/null",
    ]
    kept = log is not None
    log = log or scratch_log("clubsite-gunicorn-")
    with log.open("ab") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(base, process, "gunicorn", log)
        yield base, process
    finally:
        stop(process, signal.SIGTERM)
        if not kept:
            log.unlink(missing_ok=True)


def scratch_log(prefix: str) -> Path:
    """A new empty file in the temporary folder for a server's output (its caller removes
    it)."""
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=".log")
    os.close(handle)
    return Path(name)


def wait_until_answering(
    base: str,
    process: subprocess.Popen[bytes],
    name: str,
    log: Path | None = None,
    *,
    path: str = "/bench/bare/",
    seconds: float = 20,
) -> None:
    """Back when the server ``process`` at ``base`` answers ``path``, whatever its status
    (the caller judges what it says), within ``seconds``; ``RuntimeError`` with its ``log``
    if it ends or does not answer."""
    give_up = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(base + path, timeout=1):
                return
        except urllib.error.HTTPError as answer:
            answer.close()
            return  # an answer, with an error status the caller reads
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{name} did not start: {_read(log)}") from None
            if time.monotonic() > give_up:
                raise RuntimeError(
                    f"{name} did not answer {path} in {seconds:.0f} s: {_read(log)}"
                ) from None
            time.sleep(0.2)


def _read(log: Path | None) -> str:
    return log.read_text() if log is not None and log.exists() else ""


def stop(process: subprocess.Popen[bytes], how: signal.Signals) -> None:
    """The server stopped with ``how`` (killed if it has not ended in 30 s)."""
    process.send_signal(how)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wrk(
    name: str,
    url: str,
    *,
    headers: dict[str, str] | None = None,
    seconds: int = 10,
    connections: int = 16,
) -> Throughput:
    """``wrk`` against ``url``: requests per second, mean latency, non-2xx/3xx + socket
    errors."""
    if shutil.which("wrk") is None:
        raise RuntimeError("wrk is not installed (apt-get install wrk)")
    command = ["wrk", "-t2", f"-c{connections}", "--latency"]
    for key, value in (headers or {}).items():
        command += ["-H", f"{key}: {value}"]
    # A second's run first, not counted: each thread's first requests (its connection, the
    # page's first rendering in that worker) are not what the page costs.
    subprocess.run([*command, "-d1s", url], capture_output=True, check=True)
    output = subprocess.run(
        [*command, f"-d{seconds}s", url], capture_output=True, text=True, check=True
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    latency = re.search(r"Latency\s+([\d.]+)(us|ms|s)", output)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    latency_ms = float(latency.group(1)) * scale[latency.group(2)] if latency else 0.0
    return Throughput(name, rps, latency_ms, wrk_errors(output))


def wrk_errors(output: str) -> int:
    """The answers other than 2xx/3xx and the socket errors in wrk's report ``output``."""
    errors = 0
    if match := re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output):
        errors += int(match.group(1))
    if match := re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    ):
        errors += sum(int(n) for n in match.groups())
    return errors


def worker_memory_mb(master: subprocess.Popen[bytes]) -> list[float]:
    """Resident memory of each gunicorn worker (children of the master), in MB."""
    sizes = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if re.search(rf"^PPid:\s+{master.pid}$", text, re.M):
            rss = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
            if rss:
                sizes.append(int(rss.group(1)) / 1024)
    return sizes


def environment(database_url: str) -> dict[str, str]:
    """Production-like settings for a local run over plain http."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DATABASE_URL": database_url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY", "bench-" + "x" * 60),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_SECURE_COOKIES": "0",
        "DJANGO_LOG_LEVEL": "WARNING",
    }
