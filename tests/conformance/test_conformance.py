"""Conformance suite: every registered ruleset (Saga, and the toy rulesets of tests/toys) must pass it."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

import envs
from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.dice import SeededDice
from engine.core.errors import IllegalAction
from engine.core.generate import random_encounter
from engine.core.policy import RandomPolicy
from engine.core.state import Encounter
from engine.rulesets import available

RULESETS = sorted(available())
SHIPPED = ("saga", "starfinder", "swurpg", "starship", "rise")


def _env(rid: str, **kw) -> envs.TacticsEnv:
    envs.register_all()
    kw.setdefault("opponent", "random")
    return envs.TacticsEnv(ruleset=rid, max_per_side=3, map_size=(12, 12),
                           generator={"sizes": (1, 3)}, **kw)


def _battle(rid: str, seed: int) -> Battle:
    rs = available()[rid]
    enc = random_encounter(rs, random.Random(seed), 12, 12, sizes=(1, 3))
    b = Battle(enc, rs, SeededDice(seed))
    b.start()
    return b


@pytest.mark.parametrize("rid", RULESETS)
def test_gymnasium_and_sb3_env_checkers(rid):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    check_env(_env(rid), skip_render_check=True)
    sb3_check_env(_env(rid), warn=False)


@pytest.mark.parametrize("rid", RULESETS)
def test_registered_id_makes_the_env(rid):
    import gymnasium as gym

    env = gym.make(envs.env_id(rid), opponent="random", max_per_side=3, map_size=(12, 12),
                   generator={"sizes": (1, 2)})
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    assert env.unwrapped.action_masks().any()
    assert env.get_wrapper_attr("action_masks")().shape == (env.action_space.n,)


@pytest.mark.parametrize("rid", RULESETS)
def test_mask_is_exactly_the_legal_enumeration(rid):
    env = _env(rid)
    rng = np.random.default_rng(1)
    checked = 0
    for ep in range(4):
        env.reset(seed=ep)
        done = False
        while not done:
            b = env.battle
            mask = env.action_masks()
            legal = set(b.legal())
            decoded = {env.codec.decode(int(i), b.enc, b.enc.actor) for i in np.flatnonzero(mask)}
            encodable = {d for d in legal if env.codec.encode(d, b.enc, b.enc.actor) is not None}
            assert decoded == encodable
            assert mask[0], "end turn must always be legal"
            checked += 1
            _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
    assert checked > 20


@pytest.mark.parametrize("rid", RULESETS)
def test_masked_actions_apply_and_unmasked_are_refused_without_change(rid):
    env = _env(rid)
    rng = np.random.default_rng(2)
    decisions = refused = 0
    ep = 0
    while decisions < 1500:
        env.reset(seed=100 + ep)
        ep += 1
        done = False
        while not done and decisions < 1500:
            mask = env.action_masks()
            if decisions % 5 == 0:
                bad = np.flatnonzero(~mask)
                if len(bad):
                    before = json.dumps(env.battle.enc.to_dict(), sort_keys=True)
                    _, r, term, trunc, info = env.step(int(rng.choice(bad)))
                    assert info["illegal"] and r < 0 and not term and not trunc
                    assert json.dumps(env.battle.enc.to_dict(), sort_keys=True) == before
                    refused += 1
            _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not info.get("illegal")
            decisions += 1
            done = term or trunc
    assert refused > 100


def _refusals(rid: str, seeds: int = 6):
    """(battle, refused probe, its reason) for random probes of every catalogue action outside the enumeration,
    one a decision of random battles; the state is checked unchanged by each refusal."""
    rs = available()[rid]
    rng = random.Random(3)
    for seed in range(seeds):
        b = _battle(rid, seed)
        while not b.over:
            legal = b.legal()
            actor = b.enc.actor
            spec = rng.choice(list(rs.catalogue.values()))
            others = [u.id for u in b.enc.units]
            corner = spec.target == "intersection"  # x in 0..width, y in 0..height
            probe = Decision(spec.key, rng.choice(others) if spec.target not in ("none", "square", "intersection")
                             else None,
                             (rng.randrange(b.enc.grid.width + corner), rng.randrange(b.enc.grid.height + corner))
                             if spec.target in ("square", "intersection") else None,
                             rng.randrange(spec.options) if spec.target == "none" or spec.options > 1 else 0)
            if probe not in legal:
                before = json.dumps(b.enc.to_dict(), sort_keys=True)
                with pytest.raises(IllegalAction) as exc:
                    b.step(probe)
                assert json.dumps(b.enc.to_dict(), sort_keys=True) == before
                yield b, probe, exc.value.reason
            b.step(rng.choice(legal))
            assert actor is not None


@pytest.mark.parametrize("rid", RULESETS)
def test_engine_refuses_decisions_outside_the_enumeration_with_a_reason(rid):
    reasons = [why for _, _, why in _refusals(rid)]
    assert len(reasons) > 20 and all(why and len(why) > 10 for why in reasons)


@pytest.mark.parametrize("rid", SHIPPED)
def test_the_shipped_rulesets_say_what_a_refused_decision_misses(rid):
    """Not the catch-all "X is not possible for Y right now": the rule that refuses it (nearly always)."""
    got = [(probe, why) for _, probe, why in _refusals(rid, seeds=10)]
    vague = [(probe, why) for probe, why in got if why.endswith("right now")]
    assert len(got) > 100 and len(vague) <= len(got) // 100, vague[:5]


@pytest.mark.parametrize("rid", RULESETS)
def test_same_seed_and_decisions_give_the_same_battle(rid):
    def play(seed):
        b = _battle(rid, seed)
        p = RandomPolicy(seed)
        log = []
        while not b.over:
            d = p.choose(b)
            log += [e.to_dict() for e in b.step(d)]
        return json.dumps(log, sort_keys=True, default=str), json.dumps(b.enc.to_dict(), sort_keys=True)

    assert play(5) == play(5)
    assert play(5) != play(6)


@pytest.mark.parametrize("rid", RULESETS)
def test_json_round_trip_at_random_points_is_lossless(rid):
    rng = random.Random(4)
    for seed in range(5):
        b = _battle(rid, seed)
        p = RandomPolicy(seed)
        while not b.over:
            if rng.random() < 0.2:
                d1 = b.enc.to_dict()
                text = json.dumps(d1)
                restored = Encounter.from_dict(json.loads(text))
                assert restored.to_dict() == d1
                # the restored state plays on exactly like the original
                state = b.dice.getstate()
                b2 = Battle(restored, b.ruleset, SeededDice(0))
                b2.dice.setstate(state)
                assert b2.legal() == b.legal()
                d = p.choose(b)
                e1 = [e.to_dict() for e in b.step(d)]
                e2 = [e.to_dict() for e in b2.step(d)]
                assert e1 == e2 and b.enc.to_dict() == b2.enc.to_dict()
            else:
                b.step(p.choose(b))


@pytest.mark.parametrize("rid", RULESETS)
def test_battles_end(rid):
    for seed in range(10):
        b = _battle(rid, seed)
        p = RandomPolicy(seed)
        steps = 0
        while not b.over:
            b.step(p.choose(b))
            steps += 1
            assert steps < 20000
        assert b.enc.winner is not None
        assert b.enc.round <= b.enc.round_limit + 1


@pytest.mark.parametrize("rid", RULESETS)
def test_maskable_ppo_runs_at_the_real_action_count(rid):
    from sb3_contrib import MaskablePPO

    env = envs.TacticsEnv(ruleset=rid, opponent="random", generator={"sizes": (1, 2)})
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(128)
    obs, _ = env.reset(seed=0)
    a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(a)]
