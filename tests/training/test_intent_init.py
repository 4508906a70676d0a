"""env.intent: a model trained without the enemies' intent block continues with it (train.init_from), playing and
valuing exactly as before at the start; saved, it is loaded for play with the block."""
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
         "ppo.net_arch=[16, 16]", "ppo.activation=relu", "env.opponent=heuristic", "imitation.samples=0",
         "ppo.prior_features=4"]


def _config(*extra: str):
    return load_config("configs/saga/smoke.yaml", SMALL + list(extra))


def _outputs(model, obs: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    pol = model.policy
    with torch.no_grad():
        x = torch.as_tensor(obs)
        return pol.action_net(pol.mlp_extractor.forward_actor(x)), pol.value_net(pol.mlp_extractor.forward_critic(x))


def test_a_model_without_intent_continues_with_it_as_before(tmp_path):
    cfg = _config()
    venv = make_vec_env(cfg)
    source = build_model(cfg, venv)
    with torch.no_grad():
        for p in source.policy.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())) * 0.1)
    path = save_model(source, tmp_path / "plain.zip", cfg, light=True)
    venv.close()

    wide_cfg = _config("env.intent=true")
    wide_venv = make_vec_env(wide_cfg)
    obs = np.concatenate([wide_venv.reset()] + [wide_venv.step(np.zeros(2, dtype=np.int64))[0] for _ in range(3)])
    wide_venv.close()
    e = wide_cfg.env  # the block sits between the map planes and the prior block
    encoder = ObservationEncoder(get_ruleset(wide_cfg.ruleset), e.max_per_side, *e.map_size, prior="heuristic",
                                 intent=True)
    block = slice(encoder.core_size, encoder.core_size + encoder.intent.size)
    assert obs[:, block].any()  # the enemies' plans are there
    narrow = np.delete(obs, np.r_[block], axis=1)

    model = build_model(wide_cfg, make_vec_env(wide_cfg))
    init_weights(wide_cfg, model, path)
    for a, b in zip(_outputs(model, obs), _outputs(source, narrow)):
        assert torch.allclose(a, b, atol=1e-6)
    first = model.policy.mlp_extractor.policy_net[0].weight
    assert not first[:, block].any()
    with torch.no_grad():  # the block's inputs are live: weights on them change the logits
        first[:, block] = 0.5
    assert not torch.allclose(_outputs(model, obs)[0], _outputs(source, narrow)[0])

    saved = save_model(model, tmp_path / "intent.zip", wide_cfg, light=True)
    table = MaskablePolicy(saved, deterministic=True)
    assert table.encoder.intent is not None and table.encoder.size == obs.shape[1]
    np.testing.assert_allclose(table.logits(obs[0]), _outputs(model, obs[:1])[0][0].numpy(), rtol=1e-4, atol=1e-4)
    # a model that reads the block cannot go on without it
    with pytest.raises(ConfigError, match="env.intent"):
        init_weights(cfg, build_model(cfg, make_vec_env(cfg)), saved)
