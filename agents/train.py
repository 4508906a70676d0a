"""Training: MaskablePPO on vectorised TacticsEnvs, from a validated `TrainConfig`.

The loop, in the order it happens (`run`):
  1. resolve the run directory `runs/<name>__<timestamp>/` (or reuse it with --resume) and write config.yaml;
  2. `make_vec_env(cfg)`: `train.n_envs` TacticsEnvs in one MaskedDummyVecEnv (on 2 cores, many envs in one
     process beat SubprocVecEnv), or split over `train.workers` processes (agents/vec_env.py), each with
     a `MixedOpponent` that draws its opponent at every episode
     start from the current stage of `env.opponent` (random / heuristic / checkpoint / league snapshot);
  3. `build_model(cfg, venv)`: MaskablePPO with a small MLP (or the latest checkpoint on --resume), run by
     FastMaskablePPO (agents/fast_ppo.py: the same algorithm with less overhead; plain MaskablePPO zips);
  4. `model.learn` with callbacks: league snapshots, checkpoints, masked evaluation and TensorBoard
     logging (agents/callbacks.py). Ctrl-C saves a checkpoint and returns;
  5. save model.zip + model.meta.json, evaluate `eval.final_episodes` per opponent into eval.json.

League opponents are always frozen copies loaded from snapshot files, never the live model.
"""
from __future__ import annotations

import json
import signal
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from engine.core.policy import Policy
from engine.policies import rule_policy
from engine.rulesets import get_ruleset

from .checkpoints import latest_checkpoint, save_model, step_of
from .config import TrainConfig, load_config
from .heap import freeze_heap
from .policies import MaskablePolicy

RUNS = Path("runs")


# ---- opponents -------------------------------------------------------------------------------------
class League:
    """What opponents exist right now: the schedule stage, the fixed checkpoint and the league snapshots.

    Shared by every env of a DummyVecEnv; the league callback moves `step` on and adds snapshots.
    """

    def __init__(self, cfg: TrainConfig, snapshot_dir: Path | None = None):
        self.cfg, self.rs = cfg, get_ruleset(cfg.ruleset)
        self.ocfg = cfg.env.opponent
        self.step = 0
        self.snapshot_dir = snapshot_dir
        self.snapshots: list[Path] = []
        self._loaded: dict[Path, MaskablePolicy] = {}
        self._checkpoint: Policy | None = None
        if snapshot_dir is not None and snapshot_dir.exists():
            self.snapshots = sorted(snapshot_dir.glob("step_*.zip"), key=step_of)

    def add_snapshot(self, path: Path) -> None:
        self.snapshots.append(path)
        keep = set(self.snapshots[-self.ocfg.max_snapshots:])
        for p in list(self._loaded):
            if p not in keep:
                del self._loaded[p]

    def state(self) -> dict:
        """What a copy of the league in a worker process needs to follow this one (`MixedOpponent.sync`)."""
        return {"step": self.step, "snapshots": [str(p) for p in self.snapshots]}

    def shares(self) -> dict[str, float]:
        return self.ocfg.stage_at(self.step).shares()

    def stage_index(self) -> int:
        return self.ocfg.stages.index(self.ocfg.stage_at(self.step))

    def snapshot_policy(self, rng: np.random.Generator) -> Policy | None:
        pool = self.snapshots[-self.ocfg.max_snapshots:]
        if not pool:
            return None
        path = pool[int(rng.integers(len(pool)))]
        if path not in self._loaded:
            self._loaded[path] = MaskablePolicy(path, self.rs, deterministic=False, seed=int(rng.integers(2**31)))
        return self._loaded[path]

    def checkpoint_policy(self) -> Policy:
        if self._checkpoint is None:
            self._checkpoint = MaskablePolicy(self.ocfg.checkpoint, self.rs, deterministic=False)
        return self._checkpoint


class MixedOpponent(Policy):
    """The opponent of one env: re-drawn from the league's current shares at every episode start.

    TacticsEnv calls `reset(seed)` on its opponent in `reset()`, i.e. exactly at episode boundaries.
    """

    name = "mixed"

    def __init__(self, league: League, seed: int = 0):
        self.league = league
        self.rng = np.random.default_rng(seed)
        self.rules = {"random": rule_policy("random", seed), "heuristic": rule_policy("heuristic", seed)}
        self.kind = "random"
        self.current: Policy = self.rules["random"]

    def sync(self, state: dict) -> None:
        """Take the learner's league state (`League.state`): in a worker process the league is a copy."""
        self.league.step = state["step"]
        for path in state["snapshots"]:
            if Path(path) not in self.league.snapshots:
                self.league.add_snapshot(Path(path))

    def reset(self, seed: int | None = None) -> None:
        shares = self.league.shares()
        kinds = list(shares)
        kind = kinds[int(self.rng.choice(len(kinds), p=np.array([shares[k] for k in kinds])))]
        pol: Policy | None
        if kind == "league":
            pol = self.league.snapshot_policy(self.rng)
            if pol is None:  # no snapshot yet: the heuristic stands in
                kind, pol = "heuristic", self.rules["heuristic"]
        elif kind == "checkpoint":
            pol = self.league.checkpoint_policy()
        else:
            pol = self.rules[kind]
        self.kind, self.current = kind, pol
        pol.reset(seed)

    def choose(self, battle):
        return self.current.choose(battle)

    def rank(self, battle):
        return self.current.rank(battle)


# ---- the two building blocks (also used by `tactician bench`) ---------------------------------------
def env_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    """TacticsEnv keyword arguments of a config (without the opponent)."""
    e = cfg.env
    return {"ruleset": cfg.ruleset, "encounters": list(e.encounters) or None, "generator": e.generator.kwargs(),
            "learner_side": e.learner_side, "max_per_side": e.max_per_side, "map_size": tuple(e.map_size),
            "round_limit": e.round_limit, "rewards": e.rewards.model_dump(), "prior": e.observation_prior,
            "intent": e.intent}


def make_vec_env(cfg: TrainConfig, league: League | None = None):
    """`train.n_envs` TacticsEnvs in a MaskedDummyVecEnv, or a ShardedVecEnv over `train.workers` processes
    (VecMonitor on top), seeded from `train.seed`.

    Each env gets a MixedOpponent over `league` (a fresh one without snapshots if not given; worker
    processes hold copies, kept in step by the league callback through `sync_opponent`); the league is also
    reachable as `venv.league`.
    """
    from stable_baselines3.common.vec_env import VecMonitor

    from .vec_env import MaskedDummyVecEnv, ShardedVecEnv

    from envs.tactics_env import TacticsEnv

    league = league or League(cfg)
    kwargs = env_kwargs(cfg)
    seed = cfg.train.seed

    def factory(i: int):
        def make():
            return TacticsEnv(**kwargs, opponent=MixedOpponent(league, seed * 1000 + i))
        return make

    fns = [factory(i) for i in range(cfg.train.n_envs)]
    t = cfg.train
    venv = VecMonitor(ShardedVecEnv(fns, t.workers, groups=t.worker_groups) if t.workers > 1 else MaskedDummyVecEnv(fns))
    venv.seed(seed)
    venv.league = league
    return venv


def ppo_hparams(cfg: TrainConfig) -> dict[str, Any]:
    """MaskablePPO keyword arguments of the config (all but the policy network)."""
    p = cfg.ppo
    return {"learning_rate": _linear(p.learning_rate) if p.lr_schedule == "linear" else p.learning_rate,
            "n_steps": p.n_steps, "batch_size": p.batch_size, "n_epochs": p.n_epochs, "gamma": p.gamma,
            "gae_lambda": p.gae_lambda, "clip_range": p.clip_range, "ent_coef": p.ent_coef, "vf_coef": p.vf_coef,
            "max_grad_norm": p.max_grad_norm, "target_kl": p.target_kl}


def torch_setup(cfg: TrainConfig) -> None:
    """Threads for the rollouts, and no argument checks in torch distributions: the masked categorical over
    every action is rebuilt at each step and each minibatch, and its checks cost more than its sampling."""
    import torch

    torch.set_num_threads(cfg.train.torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)


def thread_chooser(cfg: TrainConfig):
    """The ThreadChooser of the updates (agents/fast_ppo.py) if `train.adaptive_threads` and update_threads
    differs from torch_threads, else None (the UpdateThreads callback's count)."""
    from .fast_ppo import ThreadChooser

    t = cfg.train
    update = t.update_threads or t.torch_threads
    return ThreadChooser((t.torch_threads, update)) if t.adaptive_threads and update != t.torch_threads else None


def build_model(cfg: TrainConfig, venv, tensorboard_log: str | None = None):
    """A fresh MaskablePPO for the config's hyperparameters on `venv` (CPU): a FastMaskablePPO
    (agents/fast_ppo.py), the same algorithm with less overhead, saved as a plain MaskablePPO."""
    import torch

    from .fast_ppo import FastMaskablePPO

    p = cfg.ppo
    torch_setup(cfg)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    policy, policy_kwargs = "MlpPolicy", {"net_arch": dict(pi=list(p.net_arch), vf=list(p.net_arch)),
                                          "activation_fn": act}
    if cfg.env.observation_prior:  # logits = the network's + a learned weight times the prior block
        from .prior_policy import PriorPolicy
        policy, policy_kwargs["prior_dim"] = PriorPolicy, int(venv.action_space.n)
        policy_kwargs["prior_features"] = p.prior_features
        policy_kwargs["prior_weight"] = p.prior_weight
        if p.square_head:
            from envs.codec import ActionCodec
            from envs.observation import ObservationEncoder

            from .prior_policy import square_layout
            e, rs = cfg.env, get_ruleset(cfg.ruleset)
            policy_kwargs["square_head"] = p.square_head
            policy_kwargs["square_layout"] = tuple(square_layout(ActionCodec(rs, e.max_per_side, *e.map_size),
                                                                 ObservationEncoder(rs, e.max_per_side, *e.map_size)))
    model = FastMaskablePPO(policy, venv, **ppo_hparams(cfg), seed=cfg.train.seed, device="cpu", verbose=0,
                            tensorboard_log=tensorboard_log, policy_kwargs=policy_kwargs)
    return with_run_settings(model, cfg)


def with_run_settings(model, cfg: TrainConfig):
    """`model` with the trainer's settings that are not saved with it: the updates' thread chooser, pipelined env
    workers and rollouts played in the workers (new and resumed models alike)."""
    model.update_threads = thread_chooser(cfg)
    model.pipeline = cfg.train.pipeline
    model.worker_rollouts = cfg.train.worker_rollouts
    return model


def init_weights(cfg: TrainConfig, model, path: str | Path) -> None:
    """Copy the policy and value weights of the model at `path` into `model` (fresh optimizer and steps).

    The source must have been trained on the same encoding (its .meta.json), with the same net_arch and
    activation, or without the intent block this config's env has (`_with_intent`) or without prior features or a
    square head (`_widened`); anything else raises ConfigError naming what differs."""
    from stable_baselines3.common.save_util import load_from_zip_file

    from .config import ConfigError
    from .policies import checked_meta, meta_path

    path = Path(path)
    if not path.exists() or not meta_path(path).exists():
        raise ConfigError(f"train.init_from: {path} (and its .meta.json) not found")
    meta = json.loads(meta_path(path).read_text())
    e = cfg.env
    ours = {"ruleset": cfg.ruleset, "max_per_side": e.max_per_side, "map_size": list(e.map_size)}
    theirs = {k: meta.get(k) for k in ours}
    if theirs != ours:
        raise ConfigError(f"train.init_from: {path} was trained on {theirs}, this config is {ours}")
    checked_meta(path, get_ruleset(cfg.ruleset))  # the encoding signature (InputError with the reason)
    data, params, _ = load_from_zip_file(str(path), device="cpu", load_data=True)
    src_kwargs = (data or {}).get("policy_kwargs", {})
    want_act = {"tanh": "Tanh", "relu": "ReLU"}[cfg.ppo.activation]
    src_act = getattr(src_kwargs.get("activation_fn"), "__name__", None)
    src_arch = src_kwargs.get("net_arch")
    want_arch = dict(pi=list(cfg.ppo.net_arch), vf=list(cfg.ppo.net_arch))
    if src_arch != want_arch or src_act != want_act:
        raise ConfigError(f"train.init_from: {path} has net_arch {src_arch} and activation {src_act}; "
                          f"this config has ppo.net_arch {list(cfg.ppo.net_arch)} and activation {want_act}")
    if meta.get("intent") and not e.intent:
        raise ConfigError(f"train.init_from: {path} reads the enemies' intent (env.intent); set env.intent: true")
    source = params["policy"]
    if e.intent and not meta.get("intent", False):
        source = _with_intent(source, cfg)
    model.policy.load_state_dict(_widened(source, model.policy.state_dict(), path), strict=True)


def _with_intent(source: dict, cfg: TrainConfig) -> dict:
    """A policy's state dict trained without the intent block (envs/intent.py) for an observation with it: both
    first layers read the block's values with zero weights, so the policy plays and values exactly as before."""
    from envs.observation import ObservationEncoder

    e = cfg.env
    enc = ObservationEncoder(get_ruleset(cfg.ruleset), e.max_per_side, *e.map_size, intent=True)
    at, n = enc.core_size, enc.size - enc.core_size
    out = dict(source)
    for key in ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight"):
        w = source[key]
        out[key] = w.new_zeros((w.shape[0], w.shape[1] + n))
        out[key][:, :at] = w[:, :at]
        out[key][:, at + n:] = w[:, at:]
    return out


def _widened(source: dict, target: dict, path: Path) -> dict:
    """`source` (a policy's state dict) for a policy shaped like `target`: a PriorPolicy without prior features
    goes on into one with them (the projection keeps its fresh weights, the actor's first layer reads the new
    features with zero weights, so the policy plays exactly as before), and one without a square head into one
    with it (fresh, its last layer zero: the same play). Anything else must match exactly."""
    from .config import ConfigError

    first, proj, square = "mlp_extractor.policy_net.0.weight", "mlp_extractor.prior_proj.", "action_net.square."
    out = dict(source)
    if any(k.startswith(square) for k in target) and not any(k.startswith(square) for k in source):
        out.update({k: v for k, v in target.items() if k.startswith(square)})  # its last layer zero: silent
    if any(k.startswith(proj) for k in target) and not any(k.startswith(proj) for k in source):
        out.update({k: v for k, v in target.items() if k.startswith(proj)})
        old, new = source[first], target[first]
        if old.shape[0] == new.shape[0] and old.shape[1] < new.shape[1]:
            out[first] = new.new_zeros(new.shape)
            out[first][:, :old.shape[1]] = old
    bad = sorted(k for k in set(out) | set(target) if k not in out or k not in target
                 or out[k].shape != target[k].shape)
    if bad:
        raise ConfigError(f"train.init_from: {path} does not fit this config's policy (differs in {', '.join(bad)})")
    return out


class _linear:
    """Linear decay of the learning rate to 0 (picklable, unlike a lambda in a closure)."""

    def __init__(self, start: float):
        self.start = start

    def __call__(self, progress_remaining: float) -> float:
        return self.start * progress_remaining


def new_run_dir(name: str, root: Path = RUNS) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    d = root / f"{name}__{stamp}"
    k = 1
    while d.exists():
        k += 1
        d = root / f"{name}__{stamp}-{k}"
    return d


def warm_start(cfg: TrainConfig, model, say=print) -> dict[str, float]:
    """Behaviour cloning from the teacher (agents/imitation.py), logged under imitation/ in TensorBoard."""
    from .imitation import clone, collect_parallel

    im = cfg.imitation
    kw = env_kwargs(cfg)
    kw["opponent"] = im.opponent
    t0 = time.time()
    demos = collect_parallel(kw, im.samples, seed=cfg.train.seed, gamma=cfg.ppo.gamma, teacher=im.teacher,
                             workers=im.workers)
    say(f"imitation: {len(demos)} {im.teacher} decisions from {demos.episodes} episodes "
        f"in {time.time() - t0:.0f}s")

    def log(epoch: int, stats: dict[str, float]) -> None:
        for k, v in stats.items():
            model.logger.record(f"imitation/{k}", v)
        model.logger.dump(epoch)

    stats = clone(model, demos, im.epochs, im.batch_size, im.learning_rate, im.value_coef, cfg.train.seed, log)
    model.logger.record("imitation/accuracy", stats["accuracy"])
    model.logger.dump(im.epochs)
    say(f"imitation: policy loss {stats['policy_loss']:.3f}, agreement with the teacher {stats['accuracy']:.1%}")
    return stats


# ---- the run --------------------------------------------------------------------------------------
@contextmanager
def _sigterm_stops():
    """SIGTERM (`kill`, a job scheduler) stops training as Ctrl-C does: a checkpoint, then a clean exit. A run
    started in the background ignores Ctrl-C's SIGINT, so this is how it is stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def run(cfg: TrainConfig | None = None, run_dir: Path | None = None, resume: Path | None = None,
        root: Path = RUNS, console=None) -> dict[str, Any]:
    """Train (or resume) one run; returns {"run_dir", "model", "steps", "interrupted", "eval"}."""
    from stable_baselines3.common.logger import configure

    from .callbacks import make_callbacks
    from .fast_ppo import FastMaskablePPO

    say = console.print if console is not None else print
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.yaml").exists():
            raise FileNotFoundError(f"{run_dir} has no config.yaml: not a run directory")
        cfg = load_config(run_dir / "config.yaml")
    else:
        assert cfg is not None
        run_dir = run_dir or new_run_dir(cfg.name, root)
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(cfg.dump())
    league = League(cfg, run_dir / "league")
    venv = make_vec_env(cfg, league)
    ckpt = latest_checkpoint(run_dir) if resume is not None else None
    if resume is not None and ckpt is None:
        raise FileNotFoundError(f"{run_dir}/checkpoints has no step_*.zip to resume from")
    if ckpt is not None:
        torch_setup(cfg)
        # config.yaml is the source of truth: hyperparameters edited there apply from here on
        model = with_run_settings(FastMaskablePPO.load(str(ckpt), env=venv, device="cpu",
                                                       custom_objects=ppo_hparams(cfg)), cfg)
        say(f"resuming {run_dir} from {ckpt.name} at step {model.num_timesteps}")
    else:
        model = build_model(cfg, venv)
    model.set_logger(configure(str(run_dir / "tb"), ["tensorboard"]))
    t0 = time.time()  # wall time counts the warm start too
    if ckpt is None and cfg.train.init_from:
        init_weights(cfg, model, cfg.train.init_from)
        say(f"initialised from {cfg.train.init_from}")
    elif ckpt is None and cfg.imitation.samples > 0:
        warm_start(cfg, model, say)
    league.step = model.num_timesteps
    remaining = cfg.train.total_timesteps - model.num_timesteps
    interrupted = False
    start_steps = model.num_timesteps
    callbacks = make_callbacks(cfg, run_dir, league)
    if remaining > 0:
        freeze_heap()
        try:
            with _sigterm_stops():
                model.learn(total_timesteps=remaining, callback=callbacks, reset_num_timesteps=False,
                            progress_bar=cfg.train.progress_bar)
        except KeyboardInterrupt:
            interrupted = True
        except Exception:
            # keep what was learned; --resume continues from here once the cause is fixed
            ck = save_model(model, run_dir / "checkpoints" / f"step_{model.num_timesteps}.zip", cfg)
            say(f"training failed at step {model.num_timesteps}; checkpoint {ck}")
            venv.close()  # the env workers still alive
            raise
    wall = time.time() - t0
    before = json.loads((run_dir / "result.json").read_text()).get("wall_time_s", 0.0) \
        if resume is not None and (run_dir / "result.json").exists() else 0.0
    steps = int(model.num_timesteps)
    ck = save_model(model, run_dir / "checkpoints" / f"step_{steps}.zip", cfg)
    final = save_model(model, run_dir / "model.zip", cfg, light=True, wall_time_s=round(before + wall, 1))
    result: dict[str, Any] = {"run_dir": str(run_dir), "model": str(final), "steps": steps,
                              "interrupted": interrupted, "checkpoint": str(ck),
                              "steps_per_second": (steps - start_steps) / wall if wall > 0 else 0.0,
                              "wall_time_s": round(before + wall, 1)}
    if interrupted:
        say(f"interrupted at step {steps}: checkpoint {ck}; continue with `tactician train --resume {run_dir}`")
    else:
        from .callbacks import final_evaluation
        ev = final_evaluation(cfg, model, run_dir)
        result["eval"] = ev
    for logger_format in model.logger.output_formats:
        logger_format.close()
    venv.close()
    (run_dir / "result.json").write_text(json.dumps({k: v for k, v in result.items() if k != "eval"}, indent=2))
    return result
