"""ppo.prior_features: the actor's MLP of a PriorPolicy also reads the prior block (projected), and a model trained
without it continues with it, playing exactly as before at the start; so does a model trained without the enemies'
intent block (env.intent) with it."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.checkpoints import save_model
from agents.config import ConfigError, load_config
from agents.policies import MaskablePolicy
from agents.train import build_model, init_weights, make_vec_env
from engine.rulesets import get_ruleset
from envs.observation import ObservationEncoder

SMALL = ["train.n_envs=2", "ppo.n_steps=32", "ppo.batch_size=64", "train.total_timesteps=64", "env.prior=heuristic",
         "ppo.net_arch=[16, 16]", "ppo.activation=relu", "env.opponent=heuristic", "imitation.samples=0"]


def _config(*extra: str):
    return load_config("configs/saga/smoke.yaml", SMALL + list(extra))


def _actor_logits(model, obs: np.ndarray) -> torch.Tensor:
    pol = model.policy
    with torch.no_grad():
        return pol.action_net(pol.mlp_extractor.forward_actor(torch.as_tensor(obs)))


def _values(model, obs: np.ndarray) -> torch.Tensor:
    pol = model.policy
    with torch.no_grad():
        return pol.value_net(pol.mlp_extractor.forward_critic(torch.as_tensor(obs)))


@pytest.fixture(scope="module")
def setting(tmp_path_factory):
    """A saved plain PriorPolicy (no prior features, no square head; weights moved off their initialisation), the
    env and its observations."""
    cfg = _config()
    venv = make_vec_env(cfg)
    model = build_model(cfg, venv)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())) * 0.1)
    path = save_model(model, tmp_path_factory.mktemp("src") / "model.zip", cfg, light=True)
    obs = np.concatenate([venv.reset()] + [venv.step(np.zeros(2, dtype=np.int64))[0] for _ in range(3)])
    yield path, model, venv, obs
    venv.close()


def test_a_model_without_prior_features_continues_with_them_playing_as_before(setting):
    path, source, venv, obs = setting
    cfg = _config("ppo.prior_features=8")
    model = build_model(cfg, venv)
    ext = model.policy.mlp_extractor
    assert ext.prior_proj is not None and ext.prior_proj.out_features == 8
    assert not torch.equal(_actor_logits(model, obs), _actor_logits(source, obs))  # a fresh model plays otherwise
    init_weights(cfg, model, path)
    assert torch.equal(_actor_logits(model, obs), _actor_logits(source, obs))
    first = ext.policy_net[0].weight
    assert first.shape[1] == ext.base_dim + 8 and not first[:, ext.base_dim:].any()  # the new inputs' weights
    # the new inputs are live: weights on them change the logits
    with torch.no_grad():
        first[:, ext.base_dim:] = 0.5
    assert not torch.equal(_actor_logits(model, obs), _actor_logits(source, obs))


def test_a_model_without_intent_continues_with_it_as_before(setting, tmp_path):
    path, source, venv, _ = setting
    wide_cfg = _config("env.intent=true")
    wide_venv = make_vec_env(wide_cfg)
    obs = np.concatenate([wide_venv.reset()] + [wide_venv.step(np.zeros(2, dtype=np.int64))[0] for _ in range(3)])
    model = build_model(wide_cfg, wide_venv)
    wide_venv.close()
    e = wide_cfg.env  # the block sits between the map planes and the prior block
    encoder = ObservationEncoder(get_ruleset(wide_cfg.ruleset), e.max_per_side, *e.map_size, prior="heuristic",
                                 intent=True)
    block = slice(encoder.core_size, encoder.core_size + encoder.intent.size)
    assert obs[:, block].any()  # the enemies' plans are there
    narrow = np.delete(obs, np.r_[block], axis=1)

    init_weights(wide_cfg, model, path)
    assert torch.allclose(_actor_logits(model, obs), _actor_logits(source, narrow), atol=1e-6)
    assert torch.allclose(_values(model, obs), _values(source, narrow), atol=1e-6)
    first = model.policy.mlp_extractor.policy_net[0].weight
    assert not first[:, block].any()
    with torch.no_grad():  # the block's inputs are live: weights on them change the logits
        first[:, block] = 0.5
    assert not torch.allclose(_actor_logits(model, obs), _actor_logits(source, narrow))

    saved = save_model(model, tmp_path / "intent.zip", wide_cfg, light=True)
    table = MaskablePolicy(saved, deterministic=True)
    assert table.encoder.intent is not None and table.encoder.size == obs.shape[1]
    np.testing.assert_allclose(table.logits(obs[0]), _actor_logits(model, obs[:1])[0].numpy(), rtol=1e-4, atol=1e-4)
    # a model that reads the block cannot go on without it
    with pytest.raises(ConfigError, match="env.intent"):
        init_weights(_config(), build_model(_config(), venv), saved)


def test_init_from_refuses_a_model_with_other_prior_features(setting, tmp_path):
    path, _, venv, _ = setting
    cfg8 = _config("ppo.prior_features=8")
    model8 = build_model(cfg8, venv)
    init_weights(cfg8, model8, path)
    saved = save_model(model8, tmp_path / "eight.zip", cfg8, light=True)
    cfg4 = _config("ppo.prior_features=4")
    with pytest.raises(ConfigError, match="prior_proj"):
        init_weights(cfg4, build_model(cfg4, venv), saved)
    cfg0 = _config()  # back to no features: the wider first layer does not fit either
    with pytest.raises(ConfigError, match="does not fit"):
        init_weights(cfg0, build_model(cfg0, venv), saved)


def test_the_table_policy_computes_the_networks_logits(setting, tmp_path):
    """MaskablePolicy's numpy copy of an actor that reads the projected block gives torch's logits."""
    _, _, venv, obs = setting
    cfg = _config("ppo.prior_features=8")
    model = build_model(cfg, venv)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel() + 1)) * 0.3)
    path = save_model(model, tmp_path / "model.zip", cfg, light=True)
    pol = MaskablePolicy(path)
    want = _actor_logits(model, obs).numpy()
    for o, w in zip(obs, want):
        got = pol.logits(o)
        assert pol._numpy_path() and np.allclose(got, w, atol=1e-4)
    # the block reaches the network's part of the logits too, not only through the weighted sum
    base, k, _ = pol._prior
    o = obs[0].copy()
    o[base:] = np.where(o[base:] > -5, -5.0, 0.0)
    assert not np.allclose(pol.logits(o) - k * o[base:], pol.logits(obs[0]) - k * obs[0][base:], atol=1e-3)


def test_prior_features_need_the_prior_block():
    with pytest.raises(ConfigError, match="ppo.prior_features"):
        load_config("configs/saga/smoke.yaml", ["ppo.prior_features=8"])


def test_prior_weight_sets_the_starting_weight_of_the_block_in_the_logits(setting):
    """ppo.prior_weight: the untrained actor's logits are its network's plus that weight times the prior block."""
    _, _, venv, obs = setting
    soft, sharp = build_model(_config("ppo.prior_weight=0.5"), venv), build_model(_config(), venv)
    assert soft.policy.action_net.weight.item() == 0.5 and sharp.policy.action_net.weight.item() == 2.0
    block = torch.as_tensor(obs[:, -soft.policy.prior_dim:])
    assert block.min() < 0  # the heuristic tells the actions apart here
    diff = _actor_logits(sharp, obs) - _actor_logits(soft, obs)
    assert torch.allclose(diff, 1.5 * block, atol=1e-5)  # the rest of the two same-seeded networks is the same
