"""TacticsEnv behaviour beyond the conformance suite: rewards, seats, opponents, encodings."""
from __future__ import annotations

import json

import numpy as np
import pytest

from engine.core.errors import InputError
from engine.core.policy import Policy
from envs import TacticsEnv

CANTINA = "configs/encounters/saga/cantina_ambush.yaml"


def test_learner_plays_both_seats_and_only_acts_for_its_side():
    env = TacticsEnv("saga", opponent="random", encounters=[CANTINA])
    seen = set()
    for seed in range(12):
        env.reset(seed=seed)
        seen.add(env.side)
        if not env.battle.over:
            assert env.battle.enc.actor.side == env.side
    assert seen == {"pcs", "npcs"}
    env.reset(seed=0, options={"learner_side": "npcs"})
    assert env.side == "npcs" and env.battle.enc.actor.side == "npcs"


def test_final_reward_is_the_outcome_when_shaping_is_off():
    env = TacticsEnv("saga", opponent="random", encounters=[CANTINA], rewards={"damage_dealt": 0, "damage_taken": 0,
                                                                        "downed": 0, "lost": 0, "draw": -0.3})
    from agents.imitation import teacher_action
    from engine.policies import rule_policy

    rng = np.random.default_rng(0)
    teacher = rule_policy("heuristic", 0)
    outcomes = set()
    for seed in range(8):
        env.reset(seed=seed)
        side = env.side
        done, r = False, 0.0
        while not done:  # odd seeds: the heuristic plays the learner's side, so some episodes are won
            a = teacher_action(env, teacher) if seed % 2 else int(rng.choice(np.flatnonzero(env.action_masks())))
            _, r, term, trunc, info = env.step(a)
            done = term or trunc
        winner = info["winner"]
        expected = -0.3 if winner == "draw" else (1.0 if winner == side else -1.0)
        assert r == pytest.approx(expected), (seed, winner, side, r)
        assert trunc == (winner == "draw" and info["rounds"] > env.battle.enc.round_limit)
        outcomes.add(winner == side)
    assert outcomes == {True, False}, "both a won and a not-won episode were checked"


def test_damage_shaping_signs():
    env = TacticsEnv("saga", opponent="random", encounters=[CANTINA], rewards={"win": 0, "loss": 0})
    env.reset(seed=3)
    b = env.battle
    from engine.core.events import Event
    me = next(u for u in b.enc.units if u.side == env.side)
    foe = next(u for u in b.enc.units if u.side != env.side)
    assert env._reward_from([Event("damage", me.id, foe.id, amount=10)]) > 0
    assert env._reward_from([Event("damage", foe.id, me.id, amount=10)]) < 0
    assert env._reward_from([Event("down", me.id, foe.id)]) > 0


def test_opponent_can_be_swapped_and_is_used():
    calls = []

    class Spy(Policy):
        name = "spy"

        def choose(self, battle):
            calls.append(battle.enc.actor.side)
            return battle.legal()[0]

    env = TacticsEnv("saga", opponent="random", encounters=[CANTINA], learner_side="pcs")
    env.set_opponent(Spy())
    env.reset(seed=1)
    for _ in range(10):  # end the learner's turns until the other side has acted
        if calls:
            break
        env.step(0)
    assert calls and set(calls) == {"npcs"}


def test_map_or_side_too_big_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="map_size"):
        TacticsEnv("saga", encounters=[CANTINA], map_size=(10, 10))
    with pytest.raises(ValueError, match="max_per_side"):
        TacticsEnv("saga", encounters=[CANTINA], max_per_side=2)


def test_there_is_no_default_ruleset():
    """An env without a ruleset, or with an unknown one, is refused naming the registered ids; the registered
    Gymnasium ids bring their own."""
    import gymnasium as gym

    from engine.rulesets import available
    from envs import env_id

    for bad in ({}, {"ruleset": "nowhere"}):
        with pytest.raises(ValueError) as err:
            TacticsEnv(**bad)
        assert ("needs a ruleset" if not bad else "unknown ruleset 'nowhere'") in str(err.value)
        assert all(rid in str(err.value) for rid in available())
    assert gym.make(env_id("saga")).unwrapped.rs.id == "saga"


def test_model_trained_on_another_encoding_is_refused(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.policies import MaskablePolicy, meta_path, write_meta
    from engine.rulesets import get_ruleset

    env = TacticsEnv("saga", opponent="random", generator={"sizes": (1, 2)})
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, policy_kwargs={"net_arch": [8]})
    path = tmp_path / "m.zip"
    model.save(path)
    write_meta(path, get_ruleset("saga"), 4, (16, 16))
    pol = MaskablePolicy(path)  # loads fine with the right encoding
    env.reset(seed=0)
    assert env.battle.is_legal(pol.choose(env.battle))
    meta = json.loads(meta_path(path).read_text())
    meta["encoding_signature"] = "v9-deadbeef-1"
    meta_path(path).write_text(json.dumps(meta))
    with pytest.raises(InputError, match="retrain"):
        MaskablePolicy(path)
