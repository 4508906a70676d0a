"""ShardedVecEnv and MaskedDummyVecEnv play exactly as a DummyVecEnv over the same envs: observations, rewards,
dones, infos, masks (also as the one array they collect while stepping) and per-env access, across episode ends."""
import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from agents.vec_env import MaskedDummyVecEnv, ShardedVecEnv
from envs import TacticsEnv


def _fns(n):
    return [lambda i=i: TacticsEnv("saga", opponent="random", generator={"sizes": (1, 2), "width": 8, "height": 8})
            for i in range(n)]


def _make(kind, n, groups=1):
    return MaskedDummyVecEnv(_fns(n)) if kind == "masked" else ShardedVecEnv(_fns(n), workers=kind, groups=groups)


@pytest.mark.parametrize("workers,groups", [(1, 1), (2, 1), (3, 1), ("masked", 1), (2, 2), (1, 3)])
def test_sharded_steps_as_dummy(workers, groups):
    dummy, sharded = DummyVecEnv(_fns(5)), _make(workers, 5, groups)
    try:
        assert sharded.num_envs == 5 and sharded.action_space == dummy.action_space
        dummy.seed(7)
        sharded.seed(7)
        np.testing.assert_array_equal(sharded.reset(), dummy.reset())
        rng = np.random.default_rng(0)
        ended = 0
        kept = []  # what each step returned, to check later steps leave it alone (no shared buffers)
        for _ in range(120):
            masks = np.stack(dummy.env_method("action_masks"))
            np.testing.assert_array_equal(np.stack(sharded.env_method("action_masks")), masks)
            np.testing.assert_array_equal(sharded.stacked_action_masks(), masks)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            o1, r1, d1, i1 = dummy.step(actions)
            o2, r2, d2, i2 = sharded.step(actions)
            np.testing.assert_array_equal(o2, o1)
            np.testing.assert_array_equal(r2, r1)
            np.testing.assert_array_equal(d2, d1)
            for a, b in zip(i1, i2):
                assert a.keys() == b.keys()
                np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
                if "terminal_observation" in a:
                    np.testing.assert_array_equal(a["terminal_observation"], b["terminal_observation"])
            ended += int(d1.sum())
            kept.append((o2, o2.copy(), i2[0]["action_mask"], i2[0]["action_mask"].copy()))
        assert ended > 5  # episodes ended and auto-reset in both
        assert all(np.array_equal(a, b) and np.array_equal(c, d) for a, b, c, d in kept)
        assert sharded.get_attr("side", indices=[4, 0]) == dummy.get_attr("side", indices=[4, 0])
        sharded.set_attr("round_limit", 3, indices=[1])
        assert sharded.get_attr("round_limit") == [e.round_limit if i != 1 else 3 for i, e in enumerate(dummy.envs)]
    finally:
        sharded.close()
        dummy.close()


def test_groups_cut_each_workers_block_and_are_read_each_workers_first_then_second():
    sharded = ShardedVecEnv(_fns(7), workers=2, groups=2)
    try:
        assert sharded.shards == [[0, 1], [2, 3], [4, 5], [6]]  # workers hold envs 0-3 and 4-6
        assert sharded._order == [0, 2, 1, 3]
        small = _make(2, 3, groups=5)
        assert len(small.shards) == 3  # at most one group an env
        small.close()
    finally:
        sharded.close()


def test_close_ends_the_workers():
    sharded = ShardedVecEnv(_fns(2), workers=2)
    procs = list(sharded.processes)
    sharded.close()
    assert not any(p.is_alive() for p in procs)


class _Broken(TacticsEnv):
    def step(self, action):
        raise ValueError("this env is broken")


def test_an_env_failing_in_a_worker_raises_with_its_traceback():
    sharded = ShardedVecEnv([lambda: TacticsEnv("saga", opponent="random"), lambda: _Broken("saga", opponent="random")],
                            workers=2)
    try:
        sharded.reset()
        with pytest.raises(RuntimeError, match="this env is broken"):
            sharded.step(np.zeros(2, dtype=int))
        assert sharded.get_attr("side", indices=[0])  # the workers still answer
    finally:
        sharded.close()


class _Crashing(TacticsEnv):
    def step(self, action):
        import faulthandler
        import os
        import signal
        faulthandler.disable()  # pytest's traceback dump would only clutter the test's output
        os.kill(os.getpid(), signal.SIGSEGV)  # as a crash in C code would end the worker


def test_a_worker_that_dies_raises_naming_its_exit_code():
    from agents.forked import WorkerDied

    sharded = ShardedVecEnv([lambda: TacticsEnv("saga", opponent="random"),
                             lambda: _Crashing("saga", opponent="random")], workers=2)
    try:
        sharded.reset()
        with pytest.raises(WorkerDied, match="worker 1 died .exit code -11"):
            sharded.step(np.zeros(2, dtype=int))
    finally:
        sharded.close()
    assert not any(p.is_alive() for p in sharded.processes)


def test_a_worker_that_dies_halfway_through_an_answer_raises_naming_its_exit_code():
    """A worker killed as its sender thread writes a step leaves part of a message in the pipe: reading it fails with
    OSError ("got end of file during message"), which is the worker's death too. An OSError while the worker lives is
    raised as it is."""
    import os
    import signal

    from agents.forked import WorkerDied

    class Torn:
        def recv(self):
            raise OSError("got end of file during message")

    sharded = ShardedVecEnv([lambda: TacticsEnv("saga", opponent="random")] * 2, workers=2)
    real = sharded.remotes[1]
    try:
        sharded.reset()
        sharded.remotes[1] = Torn()
        with pytest.raises(OSError, match="end of file during message"):
            sharded._recv(1)  # alive: not a death
        os.kill(sharded.processes[1].pid, signal.SIGKILL)
        sharded.processes[1].join(5)
        with pytest.raises(WorkerDied, match="worker 1 died .exit code -9"):
            sharded._recv(1)
    finally:
        sharded.remotes[1] = real
        sharded.close()


class _SignalProbe(TacticsEnv):
    def sigterm_is_default(self):
        import signal
        return signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_workers_end_at_once_on_sigterm_even_when_forked_by_a_training_run():
    """A training run turns SIGTERM into KeyboardInterrupt (agents/train.py); a worker that inherited that handler
    could miss the signal in a blocking call and never end."""
    import signal

    def stop(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, stop)
    try:
        sharded = ShardedVecEnv([lambda: _SignalProbe("saga", opponent="random")] * 2, workers=2)
    finally:
        signal.signal(signal.SIGTERM, old)
    try:
        assert sharded.env_method("sigterm_is_default") == [True, True]
    finally:
        sharded.close()


class _Unpicklable(TacticsEnv):
    def __init__(self, **kw):
        super().__init__(**kw)
        import threading
        self.lock = threading.Lock()  # a lock cannot be pickled, so neither can the env or its bound methods


def test_has_attr_is_answered_in_the_workers_without_shipping_the_envs():
    """sb3-contrib checks `has_attr("action_masks")` every rollout; through `get_attr` that pickled every env."""
    sharded = ShardedVecEnv([lambda: _Unpicklable(ruleset="saga", opponent="random")] * 2, workers=2)
    try:
        assert sharded.has_attr("action_masks")
        assert not sharded.has_attr("no_such_attribute")
        with pytest.raises(RuntimeError):
            sharded.get_attr("action_masks")  # what has_attr used to do
    finally:
        sharded.close()


def test_openmp_threads_sleep_unless_told_otherwise():
    """agents sets OMP_WAIT_POLICY=PASSIVE before torch loads (spinning update threads starve the env workers),
    and leaves a value the user set alone."""
    import os
    import subprocess
    import sys

    code = "import agents.cli, torch, os; print(os.environ['OMP_WAIT_POLICY'])"
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "PASSIVE"
    got = subprocess.run([sys.executable, "-c", code], env={**env, "OMP_WAIT_POLICY": "ACTIVE"},
                         capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "ACTIVE"


class _FirstLegal:
    """An actor for `start_rollout`: the first legal action of each env, its index as the value, u as the log-prob."""

    def act(self, obs, masks, u):
        actions = masks.argmax(axis=1)
        return actions, actions.astype(np.float32).reshape(-1, 1), u.reshape(-1).astype(np.float32)


def test_a_rollout_played_in_the_workers_steps_as_the_same_actions_would():
    """`start_rollout`: the workers act on their own; `next_acted` gives each step's actions (and what the actor said
    of them) and `step` what they did: the same as a DummyVecEnv stepped with those actions."""
    dummy, sharded = DummyVecEnv(_fns(5)), ShardedVecEnv(_fns(5), workers=2, groups=2)
    try:
        dummy.seed(7)
        sharded.seed(7)
        np.testing.assert_array_equal(sharded.reset(), dummy.reset())
        uniforms = np.random.default_rng(0).random((40, 5, 1)).astype(np.float32)
        sharded.start_rollout(_FirstLegal(), uniforms)
        assert sharded.queued_steps() == 40
        ended = 0
        for t in range(40):
            masks = np.stack(dummy.env_method("action_masks"))
            np.testing.assert_array_equal(sharded.stacked_action_masks(), masks)
            actions, values, log_probs = sharded.next_acted()
            np.testing.assert_array_equal(actions, masks.argmax(axis=1))
            np.testing.assert_array_equal(values.reshape(-1), actions)
            np.testing.assert_array_equal(log_probs, uniforms[t].reshape(-1))
            o1, r1, d1, i1 = dummy.step(actions)
            o2, r2, d2, i2 = sharded.step(actions)
            np.testing.assert_array_equal(o2, o1)
            np.testing.assert_array_equal(r2, r1)
            np.testing.assert_array_equal(d2, d1)
            # the infos' masks (sent as rows of the stacked masks where they are those) as the envs gave them:
            # the next state's, or at an episode's end its last state's
            assert [set(i) for i in i2] == [set(i) for i in i1]
            for a, b in zip(i2, i1):
                assert a["action_mask"].dtype == b["action_mask"].dtype
                np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
            ended += int(d1.sum())
            if t == 20:  # commands while played steps wait: answered (by envs already at the rollout's end), and
                # the steps kept
                assert sharded.get_attr("max_per_side", indices=[4]) == dummy.get_attr("max_per_side", indices=[4])
        assert sharded.queued_steps() == 0 and ended > 0
        with pytest.raises(RuntimeError, match="no rollout"):
            sharded.next_acted()
    finally:
        sharded.close()
        dummy.close()
