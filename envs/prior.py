"""The heuristic prior: the rule-based heuristic's score of every legal decision, as an observation block.

Two kinds (`PRIORS`): `heuristic`, the heuristic's own scores; `anticipating`, those of the anticipating heuristic
(`engine/policies/anticipating.py`: in a simultaneous phase the scores where the others' movements will leave them,
elsewhere the heuristic's).

A policy trained with it (`agents.prior_policy.PriorPolicy`) adds the block, times a learned weight, to its
action logits: it starts out playing the heuristic's choices and learns corrections to them (residual policy
learning) instead of relearning from scratch which square is good. The block has one value per action index:
the decision's score minus the best score (expected-damage units, so 0 for the heuristic's choice), floored at
`FLOOR`; actions that are illegal or that the heuristic does not score (squares it prunes) hold `FLOOR`.
"""
from __future__ import annotations

import numpy as np

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.core.units import Unit
from engine.policies import rule_policy

from .codec import ActionCodec

FLOOR = -5.0
PRIORS = (None, "heuristic", "anticipating")


def block_features(block):
    """The prior block as a policy network reads it (`agents.prior_policy`): 1 for the heuristic's choice, 0 at
    the floor (illegal and unscored actions), linear in the score between (numpy arrays and torch tensors)."""
    return 1.0 + block / -FLOOR


class HeuristicPrior:
    """Fills a prior block (`codec.n` floats) for the acting unit of an encounter."""

    def __init__(self, ruleset: Ruleset, codec: ActionCodec, kind: str = "heuristic"):
        self.ruleset, self.codec = ruleset, codec
        self.heuristic = rule_policy(kind, 0)
        self._dice = SeededDice(0)  # a Battle needs dice; scoring rolls none

    def fill(self, enc: Encounter, actor: Unit, out: np.ndarray, battle: Battle | None = None) -> None:
        """The block for `actor` into `out`; `battle`, when it drives `enc`, lends its cached legal decisions."""
        out.fill(FLOOR)
        if enc.over or actor is not enc.actor:
            return
        if battle is None or battle.enc is not enc:
            battle = Battle(enc, self.ruleset, self._dice)
        scored = self.heuristic.scores(battle, seed=0)
        best = max(s for _, s in scored)
        for (_, s), i in zip(scored, self.codec.indices([d for d, _ in scored], enc, actor)):
            if i is not None:
                out[i] = max(s - best, FLOOR)
