"""Rule-based policies (no RL code): `random`, `heuristic` and `anticipating`, by name."""
from __future__ import annotations

from engine.core.policy import Policy, RandomPolicy

RULE_POLICIES = ("random", "heuristic", "anticipating")


def rule_policy(name: str, seed: int | None = 0) -> Policy:
    """'random', 'heuristic' or 'anticipating' (the heuristic planning a simultaneous phase against where the
    others' movements will leave them)."""
    if name == "random":
        return RandomPolicy(seed)
    if name == "heuristic":
        from .heuristic import HeuristicPolicy
        return HeuristicPolicy(seed)
    if name == "anticipating":
        from .anticipating import AnticipatingPolicy
        return AnticipatingPolicy(seed)
    raise KeyError(f"unknown rule policy '{name}' (random, heuristic, anticipating)")
