"""forked_map: work over forked processes, in order, and an error (not a hang) when a worker dies."""
import faulthandler
import os
import signal

import pytest

from agents.forked import WorkerDied, forked_map


def _square(x):
    return x * x


def _die_on_three(x):
    if x == 3:
        faulthandler.disable()  # pytest's traceback dump would only clutter the test's output
        os.kill(os.getpid(), signal.SIGSEGV)  # as a crash in C code would end the worker
    return x


def _sigterm_handler(_x):
    return signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_results_come_in_the_items_order():
    assert list(forked_map(_square, range(20), workers=2, chunksize=3)) == [x * x for x in range(20)]


def test_a_worker_that_dies_raises_instead_of_waiting_for_its_results_forever():
    """multiprocessing.Pool would start another worker and wait for the lost task for ever."""
    with pytest.raises(WorkerDied, match="exit code"):
        list(forked_map(_die_on_three, range(8), workers=2))


def test_workers_do_not_inherit_the_trainers_sigterm_handler():
    """A training run turns SIGTERM into KeyboardInterrupt; its forked workers end at once on SIGTERM, and leave
    Ctrl-C to the process that started them."""
    def stop(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, stop)
    try:
        assert set(forked_map(_sigterm_handler, range(2), workers=2)) == {(True, True)}
    finally:
        signal.signal(signal.SIGTERM, old)


def test_an_error_in_a_worker_reaches_the_caller():
    with pytest.raises(ZeroDivisionError):
        list(forked_map(_inverse, [1, 0], workers=2))


def _inverse(x):
    return 1 / x
