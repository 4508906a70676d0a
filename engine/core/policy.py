"""The Policy interface: given a battle, choose the acting unit's next decision (rules only, no RL)."""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .decision import Decision

if TYPE_CHECKING:
    from .battle import Battle


class Policy:
    """Chooses decisions for whichever unit is acting. `rank` gives scored alternatives for explanations."""

    name = "policy"

    def choose(self, battle: "Battle") -> Decision:
        ranked = self.rank(battle)
        return ranked[0][0]

    def rank(self, battle: "Battle") -> list[tuple[Decision, float]]:
        """Legal decisions with a probability (or normalised preference), best first."""
        legal = battle.legal()
        return [(d, 1 / len(legal)) for d in legal]

    def reset(self, seed: int | None = None) -> None:
        """Re-seed any randomness of the policy (called at episode start)."""


class RandomPolicy(Policy):
    """Uniform over the legal decisions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = 0):
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)

    def choose(self, battle: "Battle") -> Decision:
        return self._rng.choice(battle.legal())
