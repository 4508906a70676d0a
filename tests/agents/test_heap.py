"""freeze_heap takes the objects of a set-up process out of the collector's walks, without stopping it from
collecting garbage made later; env workers call it once their envs are built, and raise their thresholds."""
import gc
import weakref

import gymnasium as gym
import numpy as np

from agents.heap import WORKER_THRESHOLDS, freeze_heap
from agents.vec_env import ShardedVecEnv


class _GcEnv(gym.Env):
    """A one-step env whose `frozen()` reports its process's permanent-generation size."""

    observation_space = gym.spaces.Box(0, 1, (1,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return np.zeros(1, np.float32), {}

    def step(self, action):
        return np.zeros(1, np.float32), 0.0, True, False, {}

    def frozen(self):
        return gc.get_freeze_count()

    def thresholds(self):
        return gc.get_threshold()


class _Node:
    pass


def test_freeze_moves_live_objects_and_later_cycles_are_still_collected():
    try:
        before = gc.get_freeze_count()
        keep = [_Node() for _ in range(100)]
        freeze_heap()
        assert gc.get_freeze_count() >= before + 100
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a cycle made after the freeze
        gone = weakref.ref(a)
        del a, b
        gc.collect()
        assert gone() is None
        assert keep
    finally:
        gc.unfreeze()


def test_env_workers_freeze_their_heap_and_collect_less_often():
    venv = ShardedVecEnv([_GcEnv, _GcEnv], workers=2)
    try:
        counts = venv.env_method("frozen")
        assert len(counts) == 2 and all(c > 1000 for c in counts)  # the modules' objects, at least
        assert venv.env_method("thresholds") == [WORKER_THRESHOLDS] * 2
        assert gc.get_threshold() != WORKER_THRESHOLDS  # the learner's process keeps its own
    finally:
        venv.close()
