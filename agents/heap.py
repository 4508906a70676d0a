"""Keep the garbage collector off the objects a process starts with.

A training process has some 200,000 long-lived Python objects before it plays a step (torch, numpy and gymnasium
modules, the rules catalogues), and every full collection walks them all: ~140 ms a time in an env worker, 5% of
its stepping. `freeze_heap` moves whatever is alive now into the collector's permanent generation (`gc.freeze`):
the collector no longer walks those objects, and reference counting still frees them. Call it where a process
has finished setting up and is about to loop: env workers, evaluation and imitation pools, the learner.

Worker processes (`settle_worker`) also collect less often. Their collections cost what the live heap costs to walk
(the tactics' caches hold tens of thousands of tuples), not what was allocated since the last one, and almost all
of a step's objects are freed by reference counting before any collection sees them: in a process stepping 32
skirmish envs, the collector took ~15 us a step in 308 collections per 9,600 steps at Python's default thresholds
(700, 10, 10), and ~3.6 us in 2 at `WORKER_THRESHOLDS`. Cyclic garbage waits longer (up to ~50,000 objects).
"""
from __future__ import annotations

import gc


WORKER_THRESHOLDS = (50_000, 20, 100)  # gc.set_threshold of worker processes


def freeze_heap(*_args) -> None:
    """Collect once, then take every object alive now out of later collections (arguments ignored, so that it
    can be a pool's `initializer`)."""
    gc.collect()
    gc.freeze()


def settle_worker(*_args) -> None:
    """`freeze_heap`, and the collector's thresholds raised to `WORKER_THRESHOLDS`, for a process that only steps
    envs (arguments ignored, so that it can be a pool's `initializer`)."""
    freeze_heap()
    gc.set_threshold(*WORKER_THRESHOLDS)
