"""A run's model files: a model saved with the .meta.json that `load_policy` checks (`save_model`), a light copy for
playing (`save_light`), and the numbered checkpoints of `runs/<run>/checkpoints/` (`latest_checkpoint`).

The trainer (agents/train.py) and its callbacks (agents/callbacks.py) both save models through here.
"""
from __future__ import annotations

import re
from pathlib import Path

from engine.rulesets import get_ruleset

from .config import TrainConfig
from .policies import write_meta


def save_light(model, path: str | Path) -> None:
    """model.save without what only training needs: the optimizer's moment estimates (two thirds of a checkpoint)
    and the envs' last observations (one per env); `--resume` from such a file starts the envs afresh."""
    from collections import defaultdict

    opt = model.policy.optimizer
    kept = opt.state
    opt.state = defaultdict(dict)
    try:
        model.save(str(path), exclude=["_last_obs", "_last_episode_starts", "_last_original_obs"])
    finally:
        opt.state = kept


def save_model(model, path: Path, cfg: TrainConfig, light: bool = False, **extra) -> Path:
    """model.save + the .meta.json that lets `load_policy` check the encoding.

    `light` (`save_light`) is for the final model, which is for playing; checkpoints keep everything so that
    --resume continues exactly.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if light:
        save_light(model, path)
    else:
        model.save(str(path))
    if not path.name.endswith(".zip"):
        path = path.with_name(path.name + ".zip")
    e = cfg.env
    write_meta(path, get_ruleset(cfg.ruleset), e.max_per_side, tuple(e.map_size), prior=e.observation_prior,
               intent=e.intent, steps=int(model.num_timesteps),
               run=cfg.name, train_env=e.trained_on(), **extra)
    return path


def step_of(p: Path) -> int:
    """The step count in a snapshot or checkpoint name (`step_<N>.zip`); -1 for another name."""
    m = re.search(r"step_(\d+)", p.name)
    return int(m.group(1)) if m else -1


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The run's checkpoint with the most steps, or None."""
    ckpts = sorted((run_dir / "checkpoints").glob("step_*.zip"), key=step_of)
    return ckpts[-1] if ckpts else None
