"""ShardedVecEnv: the envs of a VecEnv split over a few worker processes, each stepping its share in a loop.

SB3's SubprocVecEnv runs one env a process: on a 2-core machine 32 envs would be 32 processes. DummyVecEnv
runs them all in the learner's process, which is best while an env step is cheap next to the framework's
own work; a Tactician env step is not (the heuristic opponent alone costs ~0.5-1 ms a decision), so
`workers` processes (one per core) each run a DummyVecEnv over their share of the envs, and the learner's
process only gathers the results. Everything else behaves as a DummyVecEnv: seeds, auto-reset with
`terminal_observation`, `env_method` (MaskablePPO's `action_masks`), `get_attr` / `set_attr`.

With `set_prefetch` the stepping is pipelined: the learner acts for a group of envs as soon as their step is
read, and their worker starts that group's next step while the learner reads and acts for the others
(agents/fast_ppo.py does this when `train.pipeline` is on); the rollouts are the same, the workers wait less.
With `groups` > 1 each worker holds that many groups of envs and steps them in turn, so that it has a group to
step while the learner reads and acts for the one it has just stepped; a worker's answers go out from a thread
of its own, so it does not wait for the learner to read them either.

With `start_rollout` each worker plays a whole rollout of its envs on its own, acting with a copy of the policy the
learner sends (agents/fast_ppo.py `WorkerActor`; the policy does not change during a rollout), and streams the steps
back; the learner takes them one at a time (`next_acted`, then `step`), so its callbacks, monitors and rollout buffer
see the steps as they would in lockstep, without a round trip per step.

Both vec envs here (ShardedVecEnv, and MaskedDummyVecEnv for the envs in the learner's process) also collect
every env's action mask after each step and reset into one array, `stacked_action_masks()`, which the trainer
reads instead of calling `action_masks` on each env at each step (agents/fast_ppo.py `vec_action_masks`).
"""
from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection as mp_connection
import queue
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from multiprocessing.reduction import ForkingPickler
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnv, VecEnvIndices, VecEnvStepReturn

from .forked import EXIT_CODES, WorkerDied, worker_signals
from .heap import settle_worker


class MaskedDummyVecEnv(DummyVecEnv):
    """A DummyVecEnv that keeps the action masks of its envs in one (n_envs x n) bool array, refreshed after
    every step (after the auto-reset of an env whose episode ended) and every reset.

    Also cheaper than DummyVecEnv where nothing depends on it: the infos it returns are shallow copies of the
    envs' info dicts (DummyVecEnv deep-copies them, masks and terminal observations included), and the
    observations one copy of the stacked array."""

    def __init__(self, env_fns: list[Callable[[], gym.Env]]):
        super().__init__(env_fns)
        self._mask_fns: list[Callable[[], np.ndarray]] | None = None
        self._masks: np.ndarray | None = None
        if isinstance(self.action_space, gym.spaces.Discrete):
            try:
                self._mask_fns = [env.get_wrapper_attr("action_masks") for env in self.envs]
            except AttributeError:
                pass
            else:
                self._masks = np.ones((self.num_envs, int(self.action_space.n)), dtype=bool)
        self._box = list(self.buf_obs) == [None]

    def stacked_action_masks(self) -> np.ndarray | None:
        """Every env's `action_masks()` as of the last step or reset (a copy), or None if the envs have none."""
        return None if self._masks is None else self._masks.copy()

    def step_wait(self) -> VecEnvStepReturn:
        self._step_range(0, self.num_envs, self.actions)
        return (self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones),
                [dict(info) for info in self.buf_infos])

    def step_slice(self, lo: int, hi: int, actions: np.ndarray) -> tuple:
        """Step envs lo..hi-1 only, with `actions` (one per env of the slice): their (observations, rewards, dones,
        infos, reset infos, masks or None), as `step`, `reset_infos` and `stacked_action_masks` give them."""
        if not self._box:
            raise TypeError("step_slice steps envs with Box observations only")
        self._step_range(lo, hi, actions)
        masks = self._masks
        return (self.buf_obs[None][lo:hi].copy(), self.buf_rews[lo:hi].copy(), self.buf_dones[lo:hi].copy(),
                [dict(info) for info in self.buf_infos[lo:hi]], self.reset_infos[lo:hi],
                None if masks is None else masks[lo:hi].copy())

    def _step_range(self, lo: int, hi: int, actions: np.ndarray) -> None:
        """Step envs lo..hi-1 with actions[0..hi-lo) into the buffers (auto-reset, masks refreshed)."""
        fns, masks = self._mask_fns, self._masks
        for i in range(lo, hi):
            env = self.envs[i]
            obs, self.buf_rews[i], terminated, truncated, info = env.step(actions[i - lo])
            done = self.buf_dones[i] = terminated or truncated
            info["TimeLimit.truncated"] = truncated and not terminated
            if done:
                info["terminal_observation"] = obs
                obs, self.reset_infos[i] = env.reset()
            self.buf_infos[i] = info
            self._save_obs(i, obs)
            if fns is not None:
                masks[i] = fns[i]()

    def reset(self):
        obs = super().reset()
        if self._mask_fns is not None:
            for i, fn in enumerate(self._mask_fns):
                self._masks[i] = fn()
        return obs

    def _obs_from_buf(self):
        return self.buf_obs[None].copy() if self._box else super()._obs_from_buf()


class _Failure:
    """What a worker sends back instead of an answer when its envs raised: the traceback as text."""

    def __init__(self, text: str):
        self.text = text


class _Sender:
    """A worker's answers, pickled in its main thread and written to the pipe in order by a thread of their own: an
    answer larger than the pipe's buffer (a step's observations are) would otherwise hold the worker until the
    learner has read it."""

    def __init__(self, remote):
        self.remote = remote
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def send(self, obj) -> None:
        self.queue.put(ForkingPickler.dumps(obj))

    def _run(self) -> None:
        while (buf := self.queue.get()) is not None:
            try:
                self.remote.send_bytes(buf)
            except OSError:  # the learner's end is closed: nothing more to tell it
                return

    def close(self) -> None:
        """Send what is queued, then stop."""
        self.queue.put(None)
        self.thread.join(timeout=5)


def _worker(remote, parent_remote, fns_wrapper: CloudpickleWrapper) -> None:
    parent_remote.close()
    worker_signals()
    try:
        venv = MaskedDummyVecEnv(fns_wrapper.var)
    except Exception:  # noqa: BLE001 - reported to the learner's process, which raises it
        remote.recv()
        remote.send(_Failure(traceback.format_exc()))
        return
    settle_worker()
    out = _Sender(remote)
    try:
        _serve(remote, out, venv)
    except KeyboardInterrupt:  # Ctrl-C reaches the workers too: the learner's process reports it
        pass
    finally:
        out.close()


class _StackedMask:
    """In a worker's message, an info's "action_mask" that is its env's row of the step's stacked masks (which the
    message carries anyway): the learner puts that row back (`_unpack_masks`). Each mask pickled on its own made a
    step's message ~2.5x slower to write and read."""


def _pack_masks(infos: list[dict], masks: np.ndarray | None) -> list[dict]:
    if masks is not None:
        for info, row in zip(infos, masks):
            m = info.get("action_mask")
            if isinstance(m, np.ndarray) and m.dtype == row.dtype and np.array_equal(m, row):
                info["action_mask"] = _StackedMask
    return infos


def _unpack_masks(infos: list[dict], masks: np.ndarray | None) -> list[dict]:
    for i, info in enumerate(infos):
        if info.get("action_mask") is _StackedMask:
            info["action_mask"] = masks[i]
    return infos


def _play_rollout(out: _Sender, venv: MaskedDummyVecEnv, actor, uniforms: np.ndarray) -> None:
    """`len(uniforms)` steps of all the worker's envs, each acted by `actor.act(obs, masks, uniforms[t])`; each step's
    (actions, values, log-probabilities, observations, rewards, dones, infos, reset infos, masks) sent as it ends."""
    for u in uniforms:
        actions, values, log_probs = actor.act(venv.buf_obs[None], venv._masks, u)
        obs, rews, dones, infos = venv.step(actions)
        masks = venv.stacked_action_masks()
        out.send((actions, values, log_probs, obs, rews, dones, _pack_masks(infos, masks), venv.reset_infos, masks))


def _serve(remote, out: _Sender, venv: MaskedDummyVecEnv) -> None:
    """A worker's command loop; its answers go out through `out`."""
    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt):
            return
        try:
            if cmd == "step":  # one group's (first env, end, actions)
                out.send(venv.step_slice(*data))
            elif cmd == "rollout":
                _play_rollout(out, venv, *data)
            elif cmd == "reset":
                venv._seeds, venv._options = list(data[0]), list(data[1])
                obs = venv.reset()
                out.send((obs, venv.reset_infos, venv.stacked_action_masks()))
            elif cmd == "env_method":
                name, args, kwargs, idx = data
                out.send(venv.env_method(name, *args, indices=idx, **kwargs))
            elif cmd == "get_attr":
                out.send(venv.get_attr(data[0], indices=data[1]))
            elif cmd == "set_attr":
                out.send(venv.set_attr(data[0], data[1], indices=data[2]))
            elif cmd == "has_attr":
                out.send(venv.has_attr(data))
            elif cmd == "is_wrapped":
                out.send(venv.env_is_wrapped(data[0], indices=data[1]))
            elif cmd == "spaces":
                out.send((venv.observation_space, venv.action_space))
            elif cmd == "close":
                venv.close()
                return
            else:
                raise NotImplementedError(f"ShardedVecEnv worker: unknown command {cmd!r}")
        except Exception:  # noqa: BLE001 - reported to the learner's process, which raises it
            out.send(_Failure(traceback.format_exc()))


class ShardedVecEnv(VecEnv):
    """`len(env_fns)` envs over `workers` processes (at most one per env), in order: each worker holds a
    contiguous block of the envs, cut into `groups` groups (at most one per env) that it steps one at a time.
    `shards` lists the groups (their env indices, in env order). The observation space must be a Box (stacked as
    one array)."""

    def __init__(self, env_fns: list[Callable[[], gym.Env]], workers: int = 2, start_method: str | None = None,
                 groups: int = 1):
        n = len(env_fns)
        if n < 1:
            raise ValueError("ShardedVecEnv needs at least one env")
        workers = max(1, min(workers, n))
        self._blocks = [list(map(int, s)) for s in np.array_split(np.arange(n), workers)]
        self.shards: list[list[int]] = []
        self._worker_of: list[int] = []  # per group: its worker
        self._slice: list[tuple[int, int]] = []  # per group: its envs among its worker's (first, end)
        ranked = []  # (rank in its worker, worker, group)
        for w, block in enumerate(self._blocks):
            for rank, part in enumerate(np.array_split(np.arange(len(block)), max(1, min(groups, len(block))))):
                ranked.append((rank, w, len(self.shards)))
                self.shards.append([block[int(i)] for i in part])
                self._worker_of.append(w)
                self._slice.append((int(part[0]), int(part[-1]) + 1))
        # steps are sent the workers' first groups first, then their second ones, ...
        self._order: list[int] = [k for _, _, k in sorted(ranked)]
        ctx = mp.get_context(start_method or ("fork" if sys.platform.startswith("linux") else "spawn"))
        self.remotes, self.processes = [], []
        for block in self._blocks:
            remote, work_remote = ctx.Pipe()
            p = ctx.Process(target=_worker, daemon=True,
                            args=(work_remote, remote, CloudpickleWrapper([env_fns[i] for i in block])))
            p.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(p)
        self.waiting = self.closed = False
        self._masks: np.ndarray | None = None
        self._prefetch: Callable[[int, np.ndarray, np.ndarray | None], np.ndarray | None] | None = None
        self._sent = [False] * len(self.shards)  # a step of the group's envs under way (its answer not read)
        self._pending: list[deque[int]] = [deque() for _ in self._blocks]  # per worker: its groups under way, in order
        self._early: list[Any] = [None] * len(self.shards)  # answers read before step_wait (`_settle`)
        self._playing = [0] * len(self._blocks)  # per worker: steps of its rollout still to read (`start_rollout`)
        self._played: list[deque] = [deque() for _ in self._blocks]  # per worker: rollout steps read, not replayed
        self._replay: tuple | None = None  # the rollout step `next_acted` gave, for `step_wait`
        try:
            self.remotes[0].send(("spaces", None))
            obs_space, act_space = self._gather([0])[0]
        except RuntimeError:
            self.close()
            raise
        if not isinstance(obs_space, gym.spaces.Box):
            self.close()
            raise TypeError("ShardedVecEnv stacks Box observations only")
        super().__init__(n, obs_space, act_space)

    def _recv(self, w: int) -> Any:
        """Worker w's next answer; `WorkerDied` if the worker has ended (a crash: its pipe is closed)."""
        try:
            return self.remotes[w].recv()
        except (EOFError, OSError) as e:  # OSError: it died as its answer was being sent ("end of file during message")
            p = self.processes[w]
            p.join(timeout=1)
            if p.exitcode is None:
                raise
            raise WorkerDied(f"ShardedVecEnv worker {w} died (exit code {p.exitcode}; {EXIT_CODES})") from e

    def _gather(self, workers: Sequence[int]) -> list[Any]:
        """The answer of each worker, all read before an env's failure is raised (with its traceback)."""
        got = [self._recv(w) for w in workers]
        for g in got:
            if isinstance(g, _Failure):
                raise RuntimeError("an env raised in a ShardedVecEnv worker:\n" + g.text)
        return got

    # ---- stepping ----------------------------------------------------------------------------------------
    def set_prefetch(self, fn: Callable[[int, np.ndarray, np.ndarray | None], np.ndarray | None] | None) -> None:
        """Pipelined stepping: `step_wait` calls `fn(k, obs, masks)` as soon as group k's envs (`shards[k]`) have
        stepped, with their new observations and masks, in the order their answers come (whichever worker answers
        first; a worker answers its groups in the order they were sent). An array it returns is the actions of
        their next step, sent at once, so that their worker steps them on while the learner waits for the others
        and acts for them; the next `step_async` then sends nothing for group k, its actions being those already
        sent. None: no next step sent. The learner's rollout loop (agents/fast_ppo.py) sets it; None switches it
        off."""
        self._prefetch = fn

    # ---- rollouts played in the workers -------------------------------------------------------------------
    def start_rollout(self, actor, uniforms: np.ndarray) -> None:
        """Each worker plays `len(uniforms)` steps of its envs on its own, acting with `actor.act(obs, masks, u)`
        (picklable; `u` a row of `uniforms`, n_steps x num_envs, cut to the worker's envs) and sending each step as
        it ends. The learner then takes them one step at a time: `next_acted()` gives a step's actions (with the
        actor's values and log-probabilities), and `step(those actions)` returns what they did, as a step would.
        Per-env access meanwhile (`env_method`, `get_attr`, ...) waits for the workers to end the rollout and sees
        their envs as they are then."""
        if self._replay is not None or self.queued_steps() or any(self._sent):
            raise RuntimeError("start_rollout: steps of a previous rollout or a pipelined step are not all taken")
        for w, (remote, block) in enumerate(zip(self.remotes, self._blocks)):
            remote.send(("rollout", (actor, np.ascontiguousarray(uniforms[:, block[0]:block[-1] + 1]))))
            self._playing[w] = len(uniforms)

    def queued_steps(self) -> int:
        """Steps of a rollout played in the workers (`start_rollout`) and not yet taken by `next_acted` (the same for
        every worker: they play and are taken in step)."""
        return len(self._played[0]) + self._playing[0]

    def next_acted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions, values, log-probabilities) of the next step of the rollout the workers play; the next
        `step_async` / `step_wait` (`step`) then return that step's results."""
        parts = []
        for w in range(len(self._blocks)):
            if self._played[w]:
                got = self._played[w].popleft()
            elif self._playing[w]:
                got = self._recv(w)
                self._playing[w] = 0 if isinstance(got, _Failure) else self._playing[w] - 1
            else:
                raise RuntimeError("next_acted: no rollout under way")
            parts.append(got)
        for g in parts:
            if isinstance(g, _Failure):
                self._settle()
                self._played = [deque() for _ in self._blocks]
                raise RuntimeError("an env raised in a ShardedVecEnv worker:\n" + g.text)
        self._replay = tuple(parts)
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]))

    def _send_step(self, k: int, actions: np.ndarray) -> None:
        lo, hi = self._slice[k]
        w = self._worker_of[k]
        self.remotes[w].send(("step", (lo, hi, actions)))
        self._pending[w].append(k)
        self._sent[k] = True

    def _read(self, w: int) -> tuple[int, Any]:
        """The next answer of worker w to a step: (its group, the answer)."""
        got = self._recv(w)
        return self._pending[w].popleft(), got

    def step_async(self, actions: np.ndarray) -> None:
        if self._replay is not None:  # a rollout step the workers played (`next_acted`): already done
            self.waiting = True
            return
        for k in self._order:
            if not self._sent[k]:  # else the prefetch has sent this step's actions already
                shard = self.shards[k]
                self._send_step(k, actions[shard[0]:shard[-1] + 1])
        self.waiting = True

    def step_wait(self):
        self.waiting = False
        if self._replay is not None:
            parts, self._replay = self._replay, None
            self.reset_infos = [info for p in parts for info in p[7]]
            self._keep_masks([p[8] for p in parts])
            infos = _unpack_masks([info for p in parts for info in p[6]], self._masks)
            return (np.concatenate([p[3] for p in parts]), np.concatenate([p[4] for p in parts]),
                    np.concatenate([p[5] for p in parts]), infos)
        results: list[Any] = [None] * len(self.shards)
        todo = set(range(len(self.shards)))

        def take(k: int, got: Any) -> None:
            self._sent[k] = False
            results[k] = got
            todo.discard(k)
            if self._prefetch is not None and not isinstance(got, _Failure):
                nxt = self._prefetch(k, got[0], got[5])
                if nxt is not None:
                    self._send_step(k, nxt)

        for k in range(len(self.shards)):
            if self._early[k] is not None:
                got, self._early[k] = self._early[k], None
                take(k, got)
        while todo:  # whichever worker answers first (a worker answers its groups in the order they were sent)
            waiting = [w for w, q in enumerate(self._pending) if q and q[0] in todo]
            for conn in mp_connection.wait([self.remotes[w] for w in waiting]):
                take(*self._read(self.remotes.index(conn)))
        for g in results:
            if isinstance(g, _Failure):
                self._settle()
                raise RuntimeError("an env raised in a ShardedVecEnv worker:\n" + g.text)
        obs = np.concatenate([r[0] for r in results])
        rews = np.concatenate([r[1] for r in results])
        dones = np.concatenate([r[2] for r in results])
        infos = [info for r in results for info in r[3]]
        self.reset_infos = [info for r in results for info in r[4]]
        self._keep_masks([r[5] for r in results])
        return obs, rews, dones, infos

    def _keep_masks(self, parts: list[np.ndarray | None]) -> None:
        self._masks = None if any(p is None for p in parts) else np.concatenate(parts)

    def stacked_action_masks(self) -> np.ndarray | None:
        """Every env's `action_masks()` as of the last step or reset (sent with the step's results), or None
        if the envs have none."""
        return None if self._masks is None else self._masks.copy()

    def _settle(self) -> None:
        """Read the answers of steps under way (a prefetched step the learner has not asked for yet) and keep
        them for the next `step_wait`, so that the workers can answer another command."""
        for w, q in enumerate(self._pending):
            while q:
                k, got = self._read(w)
                self._early[k] = got
        for w, left in enumerate(self._playing):  # a rollout's steps: kept for `next_acted`
            for _ in range(left):
                got = self._recv(w)
                self._played[w].append(got)
                if isinstance(got, _Failure):
                    break
            self._playing[w] = 0

    def reset(self):
        self._settle()
        self._sent = [False] * len(self.shards)  # a reset replaces whatever those steps did
        self._early = [None] * len(self.shards)
        self._played = [deque() for _ in self._blocks]
        self._replay = None
        for remote, block in zip(self.remotes, self._blocks):
            remote.send(("reset", ([self._seeds[i] for i in block], [self._options[i] for i in block])))
        results = self._gather(range(len(self.remotes)))
        self.reset_infos = [info for r in results for info in r[1]]
        self._keep_masks([r[2] for r in results])
        self._reset_seeds()
        self._reset_options()
        return np.concatenate([r[0] for r in results])

    def close(self) -> None:
        if self.closed:
            return
        try:
            self._settle()
        except (EOFError, OSError, WorkerDied):
            pass
        self.waiting = False
        for remote in self.remotes:
            try:
                remote.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for p in self.processes:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
        self.closed = True

    # ---- per-env access ------------------------------------------------------------------------------------
    def _route(self, indices: VecEnvIndices) -> list[tuple[int, list[int], list[int]]]:
        """Per worker holding any of `indices`: (worker, local indices, positions in the answer)."""
        wanted = list(self._get_indices(indices))
        out = []
        for k, block in enumerate(self._blocks):
            pos = [j for j, i in enumerate(wanted) if block[0] <= i <= block[-1]]
            if pos:
                out.append((k, [wanted[j] - block[0] for j in pos], pos))
        return out

    def _ask(self, indices: VecEnvIndices, make_message) -> list[Any]:
        """Send each worker holding any of `indices` its message; the answers (one per env) in `indices`
        order, or None if the workers answer None (set_attr)."""
        self._settle()
        routes = self._route(indices)
        for k, local, _ in routes:
            self.remotes[k].send(make_message(local))
        answer: list[Any] = [None] * sum(len(pos) for _, _, pos in routes)
        answers = self._gather([k for k, _, _ in routes])
        for (k, _, pos), got in zip(routes, answers):
            for j, value in zip(pos, got if got is not None else [None] * len(pos)):
                answer[j] = value
        return answer

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list:
        return self._ask(indices, lambda local: ("env_method", (method_name, method_args, method_kwargs, local)))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list:
        return self._ask(indices, lambda local: ("get_attr", (attr_name, local)))

    def has_attr(self, attr_name: str) -> bool:
        """Whether the envs have the attribute, answered in the workers: VecEnv's own `has_attr` fetches it with
        `get_attr`, which for a method (sb3-contrib asks for `action_masks` every rollout) pickles every env."""
        self._settle()
        for remote in self.remotes:
            remote.send(("has_attr", attr_name))
        return all(self._gather(range(len(self.remotes))))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._ask(indices, lambda local: ("set_attr", (attr_name, value, local)))

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return self._ask(indices, lambda local: ("is_wrapped", (wrapper_class, local)))

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs
