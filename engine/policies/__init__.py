"""Rule-based policies (no RL code): `random` and `heuristic`, by name."""
from __future__ import annotations

from engine.core.policy import Policy, RandomPolicy


def rule_policy(name: str, seed: int | None = 0) -> Policy:
    """'random' or 'heuristic'."""
    if name == "random":
        return RandomPolicy(seed)
    if name == "heuristic":
        from .heuristic import HeuristicPolicy
        return HeuristicPolicy(seed)
    raise KeyError(f"unknown rule policy '{name}' (random, heuristic)")
