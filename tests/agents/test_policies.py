"""MaskablePolicy: the fast logits path agrees with sb3-contrib's masked distribution; names resolve."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.policies import MaskablePolicy, load_policy, write_meta
from engine.core.errors import InputError
from engine.rulesets import get_ruleset
from envs import TacticsEnv


@pytest.fixture(scope="module", params=[torch.nn.Tanh, torch.nn.ReLU])
def saved(tmp_path_factory, request):
    from sb3_contrib import MaskablePPO

    env = TacticsEnv("saga", opponent="random", generator={"sizes": (1, 2)})
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=3,
                        policy_kwargs={"net_arch": [16, 16], "activation_fn": request.param})
    path = tmp_path_factory.mktemp("m") / "model.zip"
    model.save(path)
    write_meta(path, get_ruleset("saga"), 4, (16, 16))
    return path, env


def test_fast_probabilities_equal_the_masked_distribution(saved):
    path, env = saved
    pol = MaskablePolicy(path)
    for seed in range(5):
        env.reset(seed=seed)
        probs, mask = pol.probabilities(env.battle)
        assert (mask == env.action_masks()).all()
        obs = pol.encoder.encode(env.battle.enc, env.battle.enc.actor)
        with torch.no_grad():
            dist = pol.model.policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None])
            ref = dist.distribution.probs[0].numpy()
        assert np.allclose(probs, ref, atol=1e-5)
        assert pol._layers, "a plain MLP takes the numpy path"
        assert probs[~mask].sum() == 0
        ranked = pol.rank(env.battle)
        assert all(env.battle.is_legal(d) for d, _ in ranked)
        assert ranked[0][0] == pol.choose(env.battle)


def test_choose_is_the_masked_distribution_argmax_or_sample(saved):
    """`choose` computes only the legal actions' logits: the same pick as over the whole masked space."""
    path, env = saved
    greedy, sampler = MaskablePolicy(path, deterministic=True), MaskablePolicy(path, deterministic=False, seed=5)
    reference = np.random.default_rng(5)
    for seed in range(8):
        env.reset(seed=seed)
        for _ in range(6):
            b = env.battle
            if b.over:
                break
            probs, mask = greedy.probabilities(b)
            decisions, rows, logits = greedy.legal_logits(b)
            assert len(decisions) == mask.sum() and all(b.is_legal(d) for d in decisions)
            assert sorted(rows) == list(np.flatnonzero(mask))
            assert np.allclose(logits, greedy.logits(greedy.encoder.encode(b.enc, b.enc.actor))[rows], atol=1e-5)
            assert greedy.choose(b) == greedy.codec.decode(int(np.argmax(probs)), b.enc, b.enc.actor)
            drawn = greedy.codec.decode(int(reference.choice(len(probs), p=probs)), b.enc, b.enc.actor)
            assert sampler.choose(b) == drawn
            env.step(int(np.argmax(probs)))


def test_policy_names_resolve_and_bad_ones_explain(saved):
    path, _ = saved
    assert load_policy("random", "saga").name == "random"
    assert load_policy("heuristic", "saga").name == "heuristic"
    assert isinstance(load_policy(str(path), "saga"), MaskablePolicy)
    with pytest.raises(InputError, match="zoo"):
        load_policy("zoo:nosuch", "saga")
    with pytest.raises(InputError, match="unknown policy"):
        load_policy("smartest", "saga")


def test_a_live_model_plays_as_its_saved_copy(saved):
    """ModelPolicy (the model being trained, read through torch) picks what the saved model picks (numpy)."""
    from agents.policies import ModelPolicy

    path, env = saved
    disk = MaskablePolicy(path)
    live = ModelPolicy(disk.model, get_ruleset("saga"), 4, (16, 16))
    n = 0
    for seed in range(6):
        env.reset(seed=seed)
        if not env.battle.over:
            assert live.choose(env.battle) == disk.choose(env.battle)
            assert not live._numpy_path() and disk._numpy_path()
            n += 1
    assert n >= 4
