"""SVG to PNG in a child process of its own: resvg holds the interpreter's lock while it
draws (a 2400 px page of the biggest sheet, 0.4 s of a core), which would stall every
other thread of the worker, ``/healthz`` included, for as long. In a child, the worker's
thread only waits on a pipe, and the others run.

One child per worker process, started (spawned: nothing of the worker's state is copied)
at the first picture and kept; it imports only resvg. A child that died is replaced at
the next picture."""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

RENDER_SECONDS = 30
"""The longest a picture may take in the child before the worker gives up on it."""

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


def _render(svg: str, width: int, style_sheet: str, font_files: list[str]) -> bytes:
    import resvg_py

    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            width=width,
            style_sheet=style_sheet,
            font_files=font_files,
            # Only the fonts named: the picture is the same on every server, and resvg
            # does not scan the system's fonts for every picture.
            skip_system_fonts=True,
        )
    )


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            context = multiprocessing.get_context("spawn")
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=context)
        return _pool


def _forget(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


def svg_to_png(svg: str, *, width: int, style_sheet: str, font_files: list[str]) -> bytes:
    """``svg`` drawn ``width`` pixels wide with ``style_sheet`` and ``font_files``, in the
    worker's child."""
    pool = _executor()
    try:
        return pool.submit(_render, svg, width, style_sheet, font_files).result(RENDER_SECONDS)
    except (BrokenProcessPool, TimeoutError):
        _forget(pool)
        raise
