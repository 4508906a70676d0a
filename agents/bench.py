"""Speed measurements behind `tactician bench`, for each ruleset measured (every ruleset shipped in
engine/rulesets/ unless some are named).

The figures, each measured on one process:
  engine     decisions per second of the rules engine alone: for every decision the mask, the observation
             and the application of a random legal decision (the ruleset's 4-vs-4 skirmish on a 16x16 map:
             configs/encounters/<ruleset>/skirmish_4v4.yaml, else a seeded random one);
  heuristic  decisions per second of the heuristic playing both sides of that skirmish;
  training   MaskablePPO steps per second end to end (rollouts and updates) on the ruleset's skirmish config
             (configs/<ruleset>/skirmish.yaml; skipped without one), the same trainer on a do-nothing env with
             identical spaces (the framework's ceiling), and their ratio;
  latency    per NPC decision of a loaded MaskablePolicy (mask + observation + forward pass): p50 / p99, with
             zoo:<ruleset> or a freshly initialised model.
"""
from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.rulesets import available, get_ruleset

from agents.evaluate import ROOT

TARGETS = {"engine_decisions_per_s": 20_000, "train_steps_per_s": 3_000, "train_ratio": 0.5,
           "latency_p99_ms": 1.0, "serve_p99_ms": 100.0}
# The floors set for Saga (issue 3) and, lower, for every ruleset added after it (its rules in Python only).
_LATER_RULESETS = {**TARGETS, "engine_decisions_per_s": 5_000, "train_steps_per_s": 1_000}


def targets_for(rid: str) -> dict[str, float]:
    """The figures a ruleset's bench is held to."""
    return TARGETS if rid == "saga" else _LATER_RULESETS


def shipped_rulesets() -> list[str]:
    """The ids of the rulesets shipped in engine/rulesets/ (not those registered from elsewhere, such as the tests'
    toys): what `tactician bench` measures unless told which."""
    return sorted(rid for rid, rs in available().items() if type(rs).__module__.startswith("engine.rulesets."))


def skirmish_config(ruleset: str) -> Path:
    """The ruleset's benchmarked training config: configs/<ruleset>/skirmish.yaml (it may not exist)."""
    return ROOT / "configs" / ruleset / "skirmish.yaml"


def _rs(ruleset: Ruleset | str) -> Ruleset:
    return get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset


# ---- (a) engine ---------------------------------------------------------------------------------------
def skirmish_encounter(ruleset: Ruleset | str) -> tuple[Encounter, str]:
    """The ruleset's 4-vs-4 16x16 skirmish: configs/encounters/<ruleset>/skirmish_4v4.yaml if there is one, else a
    seeded random one; (encounter, where it comes from)."""
    rs = _rs(ruleset)
    path = ROOT / "configs" / "encounters" / rs.id / "skirmish_4v4.yaml"
    if path.exists():
        from engine.core.encounter_file import load_encounter
        return load_encounter(path, rs), str(path.relative_to(ROOT))
    from engine.core.generate import random_encounter
    return random_encounter(rs, random.Random(0), 16, 16, sizes=(4, 4)), "random_encounter(seed 0, 16x16, 4v4)"


def engine_rate(ruleset: Ruleset | str, seconds: float = 3.0, seed: int = 0, split: bool = False) -> dict[str, Any]:
    """Decisions per second: legal + mask + observation + apply of a uniformly random legal decision.

    With `split`, also the mean µs per decision of each part ("legal": the legal decisions of a new state,
    "mask", "observation", "apply": the decision applied and the turn loop, which computes the next state's
    legal decisions); the clocks around the parts cost ~0.3 µs a decision."""
    from envs.codec import ActionCodec
    from envs.observation import ObservationEncoder

    rs = _rs(ruleset)
    enc0, source = skirmish_encounter(rs)
    codec = ActionCodec(rs, 4, 16, 16)
    obs_enc = ObservationEncoder(rs, 4, 16, 16)
    out = np.zeros(obs_enc.size, dtype=np.float32)
    rng = random.Random(seed)
    n = battles = 0
    parts = [0.0, 0.0, 0.0, 0.0]
    clock = time.perf_counter
    t0, c0 = clock(), time.process_time()
    while True:
        b = Battle(enc0.clone(), rs, SeededDice(seed + battles))
        b.start()
        battles += 1
        while not b.over:
            enc = b.enc
            actor = enc.actor
            t1 = clock() if split else 0.0
            legal = b.legal()
            t2 = clock() if split else 0.0
            codec.mask(legal, enc, actor)
            t3 = clock() if split else 0.0
            obs_enc.encode(enc, actor, out)
            t4 = clock() if split else 0.0
            b.step(legal[rng.randrange(len(legal))])
            if split:
                parts[0] += t2 - t1
                parts[1] += t3 - t2
                parts[2] += t4 - t3
                parts[3] += clock() - t4
            n += 1
        if clock() - t0 >= seconds:
            break
    dt, cpu = clock() - t0, time.process_time() - c0
    # per CPU second too: on a shared machine the wall-clock figure also counts time spent waiting for a core
    res = {"encounter": source, "decisions": n, "battles": battles, "seconds": round(dt, 3),
           "decisions_per_s": round(n / dt, 1), "decisions_per_cpu_s": round(n / max(cpu, 1e-9), 1),
           "decisions_per_battle": round(n / battles, 1)}
    if split:
        res["split_us"] = {k: round(v / n * 1e6, 2) for k, v in zip(("legal", "mask", "observation", "apply"), parts)}
    return res


def policy_rate(ruleset: Ruleset | str, name: str = "heuristic", seconds: float = 2.0,
                seed: int = 0) -> dict[str, Any]:
    """Decisions per second of a rule policy (random / heuristic) choosing for both sides of the skirmish."""
    from engine.policies import rule_policy

    rs = _rs(ruleset)
    enc0, _ = skirmish_encounter(rs)
    try:
        pol = rule_policy(name, seed)
    except (KeyError, ImportError) as e:
        return {"policy": name, "error": f"not available ({e})"}
    n = battles = 0
    t_choose = 0.0
    clock = time.perf_counter
    t0 = clock()
    while True:
        b = Battle(enc0.clone(), rs, SeededDice(seed + battles))
        b.start()
        battles += 1
        while not b.over:
            t1 = clock()
            d = pol.choose(b)
            t_choose += clock() - t1
            b.step(d)
            n += 1
        if clock() - t0 >= seconds:
            break
    dt = clock() - t0
    return {"policy": name, "decisions": n, "decisions_per_s": round(n / dt, 1),
            "choose_ms_mean": round(1000 * t_choose / max(1, n), 3)}


# ---- (b) training -------------------------------------------------------------------------------------
class NullEnv:
    """Built lazily (gymnasium imported only here): a do-nothing env with the spaces of `like`."""

    @staticmethod
    def make(like, episode_len: int = 200):
        import gymnasium as gym

        class _Null(gym.Env):
            metadata = {"render_modes": []}

            def __init__(self):
                super().__init__()
                self.observation_space = like.observation_space
                self.action_space = like.action_space
                self._obs = np.zeros(self.observation_space.shape, dtype=np.float32)
                self._mask = np.ones(self.action_space.n, dtype=bool)
                self._mask[-1] = False
                self._t = 0

            def reset(self, *, seed=None, options=None):
                super().reset(seed=seed)
                self._t = 0
                return self._obs.copy(), {}

            def step(self, action):
                self._t += 1
                return self._obs.copy(), 0.0, self._t >= episode_len, False, {}

            def action_masks(self):
                return self._mask.copy()

        return _Null()


def _null_vec_env(venv):
    """Do-nothing envs with the same count and spaces as `venv`, in the trainer's in-process vec env
    (agents.train.make_vec_env with train.workers 1: MaskedDummyVecEnv under VecMonitor)."""
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.vec_env import MaskedDummyVecEnv
    return VecMonitor(MaskedDummyVecEnv([lambda: NullEnv.make(venv)] * venv.num_envs))


def _process_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) of another process so far, from /proc; None where there is no /proc."""
    import os

    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _timed_learn(model, seconds: float, cfg) -> dict[str, Any]:
    """Train until `seconds` have passed, counting whole rollout + update cycles after a warm-up cycle.

    Besides steps/s: the wall seconds of a cycle's rollout and update, and, for env worker processes, the
    share of the rollouts' wall time that each worker spent on its CPU (well under 1: the workers wait)."""
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList
    from stable_baselines3.common.logger import Logger

    from agents.callbacks import UpdateThreads
    from agents.heap import freeze_heap

    pids = [p.pid for p in getattr(model.env.unwrapped, "processes", [])]
    spans: dict[str, list[float]] = {"rollout": [], "update": []}

    def timed(name: str, fn):
        def run(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spans[name].append(time.perf_counter() - t)
        return run

    model.collect_rollouts, model.train = timed("rollout", model.collect_rollouts), timed("update", model.train)

    class Clock(BaseCallback):
        def __init__(self):
            super().__init__()
            self.marks: list[tuple[float, float, int, list[float | None]]] = []
            self.stop = False

        def _on_rollout_start(self) -> None:
            self.marks.append((time.perf_counter(), time.process_time(), self.model.num_timesteps,
                               [_process_cpu_s(p) for p in pids]))
            if len(self.marks) >= 3 and self.marks[-1][0] - self.marks[1][0] >= seconds:
                self.stop = True

        def _on_step(self) -> bool:
            return not self.stop

    cb = Clock()
    model.set_logger(Logger(None, []))  # no output; SB3's default logger makes a new directory in /tmp per learn()
    freeze_heap()  # as agents.train.run does
    try:
        model.learn(total_timesteps=10**9, callback=CallbackList([cb, UpdateThreads(cfg)]), progress_bar=False)
    finally:
        del model.collect_rollouts, model.train
    (t1, c1, s1, w1), (t2, c2, s2, w2) = cb.marks[1], cb.marks[-1]
    rollouts, updates = spans["rollout"][1:-1], spans["update"][1:]  # the measured cycles (the last rollout stops)
    out = {"steps": s2 - s1, "seconds": round(t2 - t1, 3), "steps_per_s": round((s2 - s1) / (t2 - t1), 1),
           # per CPU second of the learner's process (all its threads; not the env worker processes): steadier
           # than the wall clock on a shared machine, but torch's waiting threads count too when update_threads > 1
           "steps_per_learner_cpu_s": round((s2 - s1) / max(c2 - c1, 1e-9), 1),
           "rollout_s": round(sum(rollouts) / len(rollouts), 3), "update_s": round(sum(updates) / len(updates), 3)}
    if pids and None not in w1 + w2:
        out["worker_busy"] = [round((b - a) / max(sum(rollouts), 1e-9), 3) for a, b in zip(w1, w2)]
    return out


def _rollout_mode(model, cfg) -> str:
    """How the trainer collects a rollout of this config (agents/fast_ppo.py)."""
    t = cfg.train
    if t.workers <= 1:
        return "in the learner's process"
    if model.plays_in_workers(model.env):
        return "played in the workers"
    return f"pipelined, {t.worker_groups} group(s) a worker" if t.pipeline else "lockstep"


def training_rate(seconds: float, cfg_path: Path, overrides: list[str] | None = None,
                  split: bool = False) -> dict[str, Any]:
    """Steps/s of the trainer (agents.train) on a config, of the same trainer on a do-nothing env, and their
    ratio. `overrides` are `--set`-style `key.path=value` strings.

    With `split`, also the config's trainer against random opponents only (`env.opponent=random`), under
    "random_opponents": the env without the heuristic opponent's decisions, which tells how much of the gap to
    the ceiling they are."""
    from agents.config import load_config
    from agents.train import build_model, make_vec_env

    cfg = load_config(cfg_path, overrides)
    cfg_path = Path(cfg_path)
    where = cfg_path.resolve()
    how = f"agents.train on {where.relative_to(ROOT) if where.is_relative_to(ROOT) else cfg_path}"
    venv = make_vec_env(cfg)
    model = build_model(cfg, venv)
    real = _timed_learn(model, seconds, cfg)
    null = _null_vec_env(venv)
    model_null = build_model(cfg, null)
    ceiling = _timed_learn(model_null, seconds, cfg)
    venv.close()
    null.close()
    out = {}
    if split:
        rnd_cfg = load_config(cfg_path, [*(overrides or []), "env.opponent=random"])
        rnd_venv = make_vec_env(rnd_cfg)
        rnd = _timed_learn(build_model(rnd_cfg, rnd_venv), seconds, rnd_cfg)
        rnd_venv.close()
        out["random_opponents"] = {**rnd, "ratio": round(rnd["steps_per_s"] / max(1e-9, ceiling["steps_per_s"]), 3)}
    t = cfg.train
    return {"trainer": how, "n_envs": venv.num_envs, "workers": t.workers, "rollouts": _rollout_mode(model, cfg),
            "n_steps": model.n_steps,
            "batch_size": model.batch_size, "torch_threads": t.torch_threads,
            "update_threads": t.update_threads or t.torch_threads, "skirmish": real, "null_env": ceiling,
            "steps_per_s": real["steps_per_s"], "ceiling_steps_per_s": ceiling["steps_per_s"],
            "ratio": round(real["steps_per_s"] / max(1e-9, ceiling["steps_per_s"]), 3), **out}


# ---- (c) NPC decision latency ---------------------------------------------------------------------------
def _latency_model(rs: Ruleset, tmp: Path) -> tuple[Path, str]:
    from agents.policies import zoo_model
    z = zoo_model(rs.id)
    if z.exists():
        return z, f"zoo:{rs.id}"
    from sb3_contrib import MaskablePPO
    from agents.policies import write_meta
    from envs.tactics_env import TacticsEnv

    env = TacticsEnv(rs.id, opponent="random")
    arch = [128, 128]
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": arch}, device="cpu", seed=0, n_steps=64)
    path = tmp / "untrained.zip"
    model.save(str(path))
    write_meta(path, env.rs, env.max_per_side, (env.map_w, env.map_h))
    return path, f"freshly initialised MaskablePPO (net_arch {arch})"


def decision_latency(ruleset: Ruleset | str, decisions: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Per-decision time of MaskablePolicy.choose for the NPCs (the ruleset's second side) on fresh states (legal +
    mask + observation + forward); the other side plays at random."""
    from agents.policies import MaskablePolicy
    from engine.core.policy import RandomPolicy

    rs = _rs(ruleset)
    enc0, _ = skirmish_encounter(rs)
    npcs = rs.sides[-1]
    with tempfile.TemporaryDirectory() as tmp:
        path, what = _latency_model(rs, Path(tmp))
        pol = MaskablePolicy(path, rs, deterministic=True, seed=seed)
        other = RandomPolicy(seed)
        times: list[float] = []
        cpu_times: list[float] = []
        clock, cpu_clock = time.perf_counter, time.thread_time
        games = 0
        while len(times) < decisions:
            b = Battle(enc0.clone(), rs, SeededDice(seed + games))
            b.start()
            games += 1
            while not b.over and len(times) < decisions:
                if b.actor.side == npcs:
                    t0, c0 = clock(), cpu_clock()
                    d = pol.choose(b)
                    times.append(clock() - t0)
                    cpu_times.append(cpu_clock() - c0)
                else:
                    d = other.choose(b)
                b.step(d)
    skip = min(20, len(times) // 10)  # drop the first calls (allocations, caches)
    ms, cpu_ms = np.array(times[skip:]) * 1000, np.array(cpu_times[skip:]) * 1000
    # the CPU time of this thread alone: on a shared machine the wall clock also counts waiting for a core
    return {"model": what, "decisions": int(ms.size), "p50_ms": round(float(np.percentile(ms, 50)), 3),
            "p99_ms": round(float(np.percentile(ms, 99)), 3), "mean_ms": round(float(ms.mean()), 3),
            "cpu_p99_ms": round(float(np.percentile(cpu_ms, 99)), 3)}


def engine_runs(ruleset: Ruleset | str, seconds: float, repeat: int) -> dict[str, Any]:
    """`engine_rate` `repeat` times, back to back: the run with the median decisions/s, and every run's figure
    under "runs" (this machine's speed drifts from minute to minute; the spread shows by how much)."""
    runs = [engine_rate(ruleset, seconds, seed=k) for k in range(repeat)]
    mid = sorted(runs, key=lambda r: r["decisions_per_s"])[(repeat - 1) // 2]
    return {**mid, "runs": [r["decisions_per_s"] for r in runs]} if repeat > 1 else mid


def training_runs(seconds: float, repeat: int, cfg_path: Path, overrides: list[str] | None = None,
                  split: bool = False) -> dict[str, Any]:
    """`training_rate` `repeat` times: the run with the median steps/s (its ceiling and ratio with it), and every
    run's (steps/s, ratio) under "runs". Each run measures the skirmish and its ceiling back to back, so a run's
    ratio is the steadier figure when the machine's speed drifts."""
    runs = [training_rate(seconds, cfg_path, overrides, split=split) for _ in range(repeat)]
    mid = sorted(runs, key=lambda r: r["steps_per_s"])[(repeat - 1) // 2]
    return {**mid, "runs": [(r["steps_per_s"], r["ratio"]) for r in runs]} if repeat > 1 else mid


C_MODULES = ("engine.core._native", "envs._native", "agents._kernels")  # pyproject.toml's ext-modules


def missing_c_modules() -> list[str]:
    """The C modules (optional at install: each has a Python version) that are not built here."""
    import importlib

    missing = []
    for name in C_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def run_all(seconds: float = 5.0, parts: tuple[str, ...] = ("engine", "policy", "train", "latency", "serve"),
            rulesets: list[str] | None = None, train_overrides: list[str] | None = None,
            latency_decisions: int = 2000, split: bool = False, repeat: int = 1) -> dict[str, Any]:
    """Every measurement, as one dict (what `tactician bench --json` prints): the machine, then under "rulesets"
    each ruleset's figures (`rulesets`, or every shipped one), the engine's and the trainer's `repeat` times. A
    ruleset without a skirmish config has {"skipped": why} for its training figures."""
    import os
    import platform

    res: dict[str, Any] = {"python": platform.python_version(), "cpus": os.cpu_count(), "seconds": seconds,
                           "targets": {rid: targets_for(rid) for rid in rulesets or shipped_rulesets()},
                           # other work on the machine slows every figure (a busy sibling core included)
                           "load_average_1min": round(os.getloadavg()[0], 2),
                           # without them every figure is several times lower
                           "c_modules_missing": missing_c_modules(), "rulesets": {}}
    for rid in rulesets or shipped_rulesets():
        rs = get_ruleset(rid)
        out: dict[str, Any] = {"name": rs.name}
        if "engine" in parts:
            out["engine"] = engine_runs(rs, seconds, repeat)
            if split:  # a separate run: the clocks would slow the figure above
                out["engine"]["split_us"] = engine_rate(rs, max(0.5, seconds / 2), split=True)["split_us"]
        if "policy" in parts:
            out["heuristic"] = policy_rate(rs, "heuristic", max(0.5, seconds / 2))
        if "train" in parts:
            cfg = skirmish_config(rid)
            out["training"] = training_runs(seconds * 2, repeat, cfg, train_overrides, split) if cfg.exists() \
                else {"skipped": f"no training config {cfg.relative_to(ROOT)}"}
        if "latency" in parts:
            out["latency"] = decision_latency(rs, latency_decisions)
        if "serve" in parts:  # an NPC proposal reaching the page of `tactician serve` (agents/serve/bench.py)
            from agents.serve.bench import proposal_latency
            out["serve"] = proposal_latency(rs, *skirmish_encounter(rs), max(50, latency_decisions // 10))
        res["rulesets"][rid] = out
    return res
