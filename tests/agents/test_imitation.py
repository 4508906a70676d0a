"""Behaviour cloning: demonstrations are the teacher's legal choices; cloning makes the policy agree more."""
from __future__ import annotations

import numpy as np

from agents.imitation import Demonstrations, clone, collect


def _kwargs():
    return {"ruleset": "saga", "generator": {"width": 10, "height": 10, "sizes": (1, 2)}, "max_per_side": 2,
            "map_size": (10, 10), "opponent": "heuristic", "round_limit": 8}


def test_demonstrations_are_legal_teacher_choices_with_returns():
    d = collect(_kwargs(), 150, seed=1)
    assert len(d) >= 150 and d.episodes >= 1
    assert d.masks[np.arange(len(d)), d.actions].all(), "every recorded action must be in its mask"
    assert (d.actions != 0).any(), "the teacher does more than end turns"
    assert np.isfinite(d.returns).all() and d.returns.std() > 0
    again = collect(_kwargs(), 150, seed=1)
    assert (again.actions == d.actions).all(), "recording is deterministic for a seed"
    joined = Demonstrations.join([d, again])
    assert len(joined) == 2 * len(d) and joined.episodes == 2 * d.episodes


def test_cloning_raises_agreement_with_the_teacher():
    from sb3_contrib import MaskablePPO

    from envs import TacticsEnv

    d = collect(_kwargs(), 400, seed=2)
    env = TacticsEnv(**{**_kwargs(), "opponent": "random"})
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, policy_kwargs={"net_arch": [64]})
    before = clone(model, d, epochs=1, learning_rate=1e-9)["accuracy"]
    after = clone(model, d, epochs=15, batch_size=64, learning_rate=3e-3)["accuracy"]
    assert after > before + 0.2
