"""Gymnasium side of Tactician: `tactician/<Ruleset>-v0` for every registered ruleset."""
from __future__ import annotations

import gymnasium as gym

from engine.core.ruleset import Ruleset
from engine.rulesets import available

from .tactics_env import ENCODING_VERSION, TacticsEnv

__all__ = ["TacticsEnv", "env_id", "register_env", "register_all"]


def env_id(ruleset: Ruleset | str) -> str:
    from engine.rulesets import get_ruleset
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    return f"tactician/{rs.env_name or rs.id.capitalize()}-v{ENCODING_VERSION}"


def register_env(ruleset: Ruleset) -> str:
    """Register `tactician/<Name>-v<N>` for a ruleset (idempotent); returns the id."""
    eid = env_id(ruleset)
    if eid not in gym.registry:
        gym.register(id=eid, entry_point="envs.tactics_env:TacticsEnv", kwargs={"ruleset": ruleset.id})
    return eid


def register_all() -> list[str]:
    return [register_env(rs) for rs in available().values()]


register_all()
