"""Work shared out over forked processes, failing loudly instead of hanging.

`multiprocessing.Pool` never returns a result whose worker died (a crash in C code, the out-of-memory killer): it
starts a new worker and waits for the lost task forever. `forked_map` uses `ProcessPoolExecutor` instead, which
sees the death and raises `WorkerDied`, naming the exit code.

Forked workers inherit the parent's signal handlers. A training run turns SIGTERM into a KeyboardInterrupt
(agents/train.py `_sigterm_stops`), so a worker forked while the learner trains runs that handler when it is told to
stop; a signal that arrives just as the worker blocks (on a queue's semaphore, say) is then never handled, and the
worker never ends (the CI hang of 2026-12-01). `worker_signals` puts SIGTERM back to its default: the kernel ends the
process at once.
"""
from __future__ import annotations

import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from .heap import settle_worker


EXIT_CODES = "-11 is a segmentation fault, -9 the out-of-memory killer"  # what a dead worker's exit code tells


class WorkerDied(RuntimeError):
    """A forked worker ended before it returned its results."""


def worker_signals() -> None:
    """SIGTERM ends this (forked) process at once, as it would a process started afresh."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _start_worker() -> None:
    worker_signals()
    # Ctrl-C reaches every process of the terminal's group: the parent stops the work, its workers finish their task
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    settle_worker()


def forked_map(fn: Callable[[Any], Any], items: Iterable[Any], workers: int, chunksize: int = 1) -> Iterator[Any]:
    """`fn(item)` for each item, in `workers` forked processes, yielded in the items' order. `fn` is a module-level
    function (pickled by name); what it reaches is inherited by the fork; the items and results are pickled. Raises
    `WorkerDied` if a worker ends before returning its results."""
    ex = ProcessPoolExecutor(workers, mp_context=get_context("fork"), initializer=_start_worker)
    try:
        yield from ex.map(fn, items, chunksize=chunksize)
    except BrokenProcessPool as e:
        codes = sorted({p.exitcode for p in (ex._processes or {}).values() if p.exitcode})  # the executor's own
        raise WorkerDied(f"a worker process died before returning its results (exit code {codes or 'unknown'}; "
                         f"{EXIT_CODES}): {e}") from e
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


__all__ = ["EXIT_CODES", "WorkerDied", "forked_map", "worker_signals"]
