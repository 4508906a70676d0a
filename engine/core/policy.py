"""The Policy interface: given a battle, choose the acting unit's next decision (rules only, no RL)."""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .decision import Decision
from .reaction import React, Trigger

if TYPE_CHECKING:
    from .battle import Battle
    from .state import Encounter
    from .units import Unit


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

    def choose_reaction(self, enc: "Encounter", unit: "Unit", trigger: Trigger, options: list[Decision]) -> Decision:
        """One of `options` (the ruleset's legal reactions of `unit` to `trigger`, `DECLINE` last). By default the
        first: the ruleset lists the usual answer first (take the attack of opportunity)."""
        return options[0]


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


def side_reactor(policies: "dict[str, Policy]") -> React:
    """A React that lets each side's policy choose its units' reactions (sides without one take the first)."""
    def react(enc: "Encounter", unit: "Unit", trigger: Trigger, options: list[Decision]) -> Decision:
        policy = policies.get(unit.side)
        return options[0] if policy is None else policy.choose_reaction(enc, unit, trigger, options)
    return react
