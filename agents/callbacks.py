"""Training callbacks: league snapshots, checkpoints, training win rates, masked evaluation in TensorBoard.

TensorBoard tags written here:
  eval/win_rate_vs_<opponent>   (random, heuristic, or a model's file stem), on fixed seeds, both seats
  eval/mean_rounds, eval/damage_dealt, eval/damage_taken, eval/units_lost   (all evaluation episodes)
  tactics/<action>_rate, tactics/cover_rate, tactics/focus_fire, tactics/illegal_rate
  eval/sample_battle (text: a narrated battle), eval/final_map (image: its final map)
  rollout/win_rate, rollout/win_rate_vs_<kind>   (training episodes, last 100 / per opponent kind)
  league/snapshots, league/stage
  the hyperparameters in the HPARAMS tab, with the evaluation win rates as its metrics
"""
from __future__ import annotations

import json
import warnings
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import HParam, Image

from engine.policies import RULE_POLICIES
from engine.rulesets import get_ruleset

from .checkpoints import save_model
from .config import TrainConfig
from .evaluate import encounter_source, evaluate, opponent_policy, summarise
from .policies import ModelPolicy

NOT_SCALAR = ("stdout", "log", "json", "csv")


def opponent_tag(spec: str) -> str:
    if spec in RULE_POLICIES:
        return spec
    if spec.startswith("zoo:"):
        return "zoo_" + spec[4:]
    return Path(spec).name.removesuffix(".zip")


def eval_source(cfg: TrainConfig):
    rs = get_ruleset(cfg.ruleset)
    e = cfg.env
    return encounter_source(rs, e.encounters, e.generator.kwargs(), e.round_limit)


def run_evaluation(cfg: TrainConfig, model, episodes: int, narrate: bool = True) -> dict[str, Any]:
    """Evaluate the live model against every `eval.opponents` entry; returns per-opponent summaries,
    the pooled summary ("all") and the narrated sample battle ("sample": its EpisodeStats)."""
    rs = get_ruleset(cfg.ruleset)
    learner = ModelPolicy(model, rs, cfg.env.max_per_side, tuple(cfg.env.map_size), prior=cfg.env.observation_prior,
                          intent=cfg.env.intent)
    source = eval_source(cfg)
    out: dict[str, Any] = {"vs": {}}
    pooled = []
    sample = None
    for k, spec in enumerate(cfg.eval.opponents):
        try:
            opp = opponent_policy(spec, rs, seed=cfg.eval.seed)
        except ImportError as e:  # pragma: no cover - only while a rule policy is being written
            warnings.warn(f"evaluation opponent '{spec}' unavailable ({e}); skipped")
            continue
        # narrate the battle against the last (usually strongest) opponent
        last = k == len(cfg.eval.opponents) - 1
        summary, stats = evaluate(learner, opp, rs, episodes, cfg.eval.seed, source, narrate_first=narrate and last,
                                  workers=cfg.eval.workers)
        out["vs"][opponent_tag(spec)] = summary
        pooled += stats
        if narrate and last and stats:
            sample = stats[0]
    out["all"] = summarise(pooled, list(rs.catalogue))
    out["sample"] = sample
    return out


def log_evaluation(logger, result: dict[str, Any], step: int, sample_battle: bool = True) -> None:
    for tag, summary in result["vs"].items():
        logger.record(f"eval/win_rate_vs_{tag}", summary["win_rate"])
        logger.record(f"eval/draw_rate_vs_{tag}", summary["draw_rate"])
        for size, part in summary.get("by_size", {}).items():
            logger.record(f"eval_by_size/win_rate_vs_{tag}_{size}", part["win_rate"])
    pooled = result["all"]
    for key in ("mean_rounds", "damage_dealt", "damage_taken", "units_lost"):
        logger.record(f"eval/{key}", pooled[key])
    for key, value in pooled["tactics"].items():
        logger.record(f"tactics/{key}", value)
    sample = result.get("sample")
    if sample_battle and sample is not None:
        outcome = "won" if sample.winner == sample.side else ("a draw" if sample.winner == "draw" else "lost")
        text = [f"Learner plays **{sample.side}** — {outcome} after {sample.rounds} rounds.", ""]
        text += ["    " + line for line in sample.narration]
        try:
            from .render import map_picture, map_text
            final = sample.final
            text += ["", "The final map (also drawn as the picture eval/final_map):", ""]
            text += ["    " + line for line in map_text(final, get_ruleset(final.ruleset)).splitlines()]
            logger.record("eval/final_map", Image(map_picture(final), "HWC"), exclude=NOT_SCALAR)
        except Exception:  # noqa: BLE001 - the map is optional; never stop training for it
            pass
        logger.record("eval/sample_battle", "\n".join(text), exclude=NOT_SCALAR)
    logger.dump(step)


class LeagueCallback(BaseCallback):
    """Moves the opponent schedule on, and saves a frozen snapshot every `snapshot_every` steps."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, league):
        super().__init__()
        self.cfg, self.dir, self.league = cfg, run_dir / "league", league
        self.every = cfg.env.opponent.snapshot_every
        self.enabled = cfg.env.opponent.uses_league
        self._last = 0

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps - self.num_timesteps % self.every

    def _on_step(self) -> bool:
        self.league.step = self.num_timesteps
        if self.enabled and self.num_timesteps - self._last >= self.every:
            self._last = self.num_timesteps - self.num_timesteps % self.every
            path = save_model(self.model, self.dir / f"step_{self.num_timesteps}.zip", self.cfg, light=True)
            self.league.add_snapshot(path)
        return True

    def _on_rollout_end(self) -> None:
        # envs in worker processes hold copies of the league: bring them up to date once a rollout
        self.training_env.env_method("sync_opponent", self.league.state())
        self.logger.record("league/stage", self.league.stage_index())
        self.logger.record("league/snapshots", len(self.league.snapshots))


class CheckpointEvery(BaseCallback):
    """checkpoints/step_<N>.zip (+ .meta.json) every `checkpoint_freq` steps."""

    def __init__(self, cfg: TrainConfig, run_dir: Path):
        super().__init__()
        self.cfg, self.dir, self.every = cfg, run_dir / "checkpoints", cfg.train.checkpoint_freq
        self._last = 0

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps - self.num_timesteps % self.every

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.every:
            self._last = self.num_timesteps - self.num_timesteps % self.every
            save_model(self.model, self.dir / f"step_{self.num_timesteps}.zip", self.cfg)
        return True


class EpisodeStatsCallback(BaseCallback):
    """Win rates of the training episodes (last 100, and per opponent kind)."""

    def __init__(self):
        super().__init__()
        self.results: deque[float] = deque(maxlen=100)
        self.by_kind: dict[str, deque[float]] = {}

    def _on_step(self) -> bool:
        dones = self.locals.get("dones")
        if dones is None or not np.any(dones):
            return True
        infos = self.locals.get("infos", [])
        for i, done in enumerate(dones):
            if not done:
                continue
            info = infos[i]
            won = float(info.get("winner") == info.get("learner_side"))
            self.results.append(won)
            kind = info.get("opponent", "opponent")
            self.by_kind.setdefault(kind, deque(maxlen=100)).append(won)
        return True

    def _on_rollout_end(self) -> None:
        if self.results:
            self.logger.record("rollout/win_rate", float(np.mean(self.results)))
        for kind, xs in self.by_kind.items():
            self.logger.record(f"rollout/win_rate_vs_{kind}", float(np.mean(xs)))


class TacticsEvalCallback(BaseCallback):
    """Every `eval.freq` steps: masked evaluation on fixed seeds, both seats, logged to TensorBoard."""

    def __init__(self, cfg: TrainConfig):
        super().__init__()
        self.cfg, self.every = cfg, cfg.eval.freq
        self._last = 0

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps - self.num_timesteps % self.every
        if self.num_timesteps == 0:
            self.logger.record("hparams", HParam(hparams(self.cfg), {
                f"eval/win_rate_vs_{opponent_tag(s)}": 0.0 for s in self.cfg.eval.opponents}), exclude=NOT_SCALAR)

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.every:
            self._last = self.num_timesteps - self.num_timesteps % self.every
            result = run_evaluation(self.cfg, self.model, self.cfg.eval.episodes, self.cfg.eval.sample_battle)
            log_evaluation(self.logger, result, self.num_timesteps, self.cfg.eval.sample_battle)
            self.model._last_eval_step = self.num_timesteps
        return True


def hparams(cfg: TrainConfig) -> dict[str, Any]:
    """Flat hyperparameters for the HPARAMS tab (numbers, strings and booleans only)."""
    p, t, e = cfg.ppo, cfg.train, cfg.env
    return {"learning_rate": p.learning_rate, "lr_schedule": p.lr_schedule, "n_steps": p.n_steps,
            "batch_size": p.batch_size, "n_epochs": p.n_epochs, "gamma": p.gamma, "gae_lambda": p.gae_lambda,
            "clip_range": p.clip_range, "ent_coef": p.ent_coef, "vf_coef": p.vf_coef,
            "net_arch": "x".join(map(str, p.net_arch)), "activation": p.activation, "n_envs": t.n_envs,
            "total_timesteps": t.total_timesteps, "seed": t.seed, "ruleset": cfg.ruleset,
            "max_per_side": e.max_per_side, "map": "x".join(map(str, e.map_size)),
            "opponent_stages": json.dumps([s.shares() for s in e.opponent.stages])}


class UpdateThreads(BaseCallback):
    """`train.update_threads` torch threads for the gradient updates, `train.torch_threads` for the rollouts
    (in-process envs leave the other cores idle during an update)."""

    def __init__(self, cfg: TrainConfig):
        super().__init__()
        self.rollout, self.update = cfg.train.torch_threads, cfg.train.update_threads or cfg.train.torch_threads

    def _on_rollout_start(self) -> None:
        import torch
        torch.set_num_threads(self.rollout)

    def _on_rollout_end(self) -> None:
        import torch
        torch.set_num_threads(self.update)

    def _on_step(self) -> bool:
        return True


def make_callbacks(cfg: TrainConfig, run_dir: Path, league) -> CallbackList:
    return CallbackList([LeagueCallback(cfg, run_dir, league), CheckpointEvery(cfg, run_dir),
                         EpisodeStatsCallback(), TacticsEvalCallback(cfg), UpdateThreads(cfg)])


def final_evaluation(cfg: TrainConfig, model, run_dir: Path) -> dict[str, Any]:
    """`eval.final_episodes` per opponent at the end of training: eval.json, and one more logged point."""
    result = run_evaluation(cfg, model, cfg.eval.final_episodes, cfg.eval.sample_battle)
    if getattr(model, "_last_eval_step", None) != model.num_timesteps:  # no point twice at one step
        log_evaluation(model.logger, result, int(model.num_timesteps), cfg.eval.sample_battle)
    out = {"steps": int(model.num_timesteps), "episodes_per_opponent": cfg.eval.final_episodes,
           "seed": cfg.eval.seed, "vs": result["vs"]}
    (run_dir / "eval.json").write_text(json.dumps(out, indent=2))
    return out
