"""Keep the garbage collector off the objects a process starts with.

A training process has some 200,000 long-lived Python objects before it plays a step (torch, numpy and gymnasium
modules, the rules catalogues), and every full collection walks them all: ~140 ms a time in an env worker, 5% of
its stepping. `freeze_heap` moves whatever is alive now into the collector's permanent generation (`gc.freeze`):
the collector no longer walks those objects, and reference counting still frees them. Call it where a process
has finished setting up and is about to loop: env workers, evaluation and imitation pools, the learner.
"""
from __future__ import annotations

import gc


def freeze_heap(*_args) -> None:
    """Collect once, then take every object alive now out of later collections (arguments ignored, so that it
    can be a pool's `initializer`)."""
    gc.collect()
    gc.freeze()
