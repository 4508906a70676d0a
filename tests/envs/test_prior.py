"""The heuristic prior block of the observation (envs/prior.py) and the policy that adds it to its logits
(agents/prior_policy.py)."""
import random

import numpy as np
import pytest

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.policies import rule_policy
from engine.rulesets import get_ruleset
from envs.prior import FLOOR
from envs.tactics_env import TacticsEnv
from tests.battle_walk import random_walk

RS = get_ruleset("saga")


def _env(**kw):
    return TacticsEnv("saga", generator={"width": 12, "height": 12, "sizes": (1, 3)}, round_limit=8,
                      prior="heuristic", **kw)


def test_the_block_holds_the_heuristics_scores_at_their_action_indices():
    env = _env()
    enc_ = env.encoder
    base, n = enc_.base_size, env.codec.n
    assert enc_.size == base + n and env.observation_space.shape == (base + n,)
    h = rule_policy("heuristic", 0)
    checked = 0
    for seed in range(6):
        b = Battle(random_encounter(RS, random.Random(seed), 12, 12, sizes=(2, 3)), RS, SeededDice(seed))
        b.start()
        for _ in random_walk(b, random.Random(seed), 60):
            enc, actor = b.enc, b.enc.actor
            obs = enc_.encode(enc, actor)
            block = obs[base:]
            scored = h.scores(b, seed=0)
            best = max(s for _, s in scored)
            idx = env.codec.indices([d for d, _ in scored], enc, actor)
            want = np.full(n, FLOOR, dtype=np.float32)
            for (_, s), i in zip(scored, idx):
                if i is not None:
                    want[i] = max(s - best, FLOOR)
            assert np.array_equal(block, want)
            assert block.max() == 0.0 and env.codec.mask(b.legal(), enc, actor)[block > FLOOR].all()
            assert np.array_equal(enc_.encode(enc, actor), obs)  # a function of the state alone
            assert np.array_equal(enc_.encode(enc, actor, battle=b), obs)  # the battle's legal list reused
            # the rest of the vector is the plain encoding
            plain = TacticsEnv("saga", generator={"width": 12, "height": 12}).encoder.encode(enc, actor)
            assert np.array_equal(obs[:base], plain)
            checked += 1
    assert checked > 100


def test_an_untrained_prior_policy_plays_the_heuristics_choice_and_survives_a_save():
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    from agents.prior_policy import PriorHead, PriorPolicy

    env = _env(opponent="random")
    model = MaskablePPO(PriorPolicy, env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32], "prior_dim": env.codec.n})
    head = model.policy.action_net
    assert isinstance(head, PriorHead) and float(head.weight.detach()) == 2.0
    with torch.no_grad():
        head.linear.weight.zero_()
        head.linear.bias.zero_()
    base = env.encoder.base_size
    obs, _ = env.reset(seed=3)
    for _ in range(40):
        mask = env.action_masks()
        a, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert a == int(np.argmax(np.where(mask, obs[base:], -np.inf)))
        obs, _, te, tr, _ = env.step(int(a))
        if te or tr:
            obs, _ = env.reset()
    before = head.weight.detach().clone()
    model.learn(128)
    assert float(model.policy.action_net.weight.detach()) != float(before)  # the prior's weight is learned
    obs, _ = env.reset(seed=4)
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        model.save(f"{d}/m.zip")
        again = MaskablePPO.load(f"{d}/m.zip", device="cpu")
    assert isinstance(again.policy, PriorPolicy)
    t = torch.as_tensor(obs[None, :])
    with torch.no_grad():
        want = model.policy.action_net(model.policy.mlp_extractor.forward_actor(model.policy.extract_features(t)))
        got = again.policy.action_net(again.policy.mlp_extractor.forward_actor(again.policy.extract_features(t)))
    assert torch.equal(want, got)
