"""train.init_from: PPO starts from an existing model's weights (fresh optimizer and step count)."""
from pathlib import Path

import pytest
import torch

from agents.checkpoints import save_model
from agents.config import ConfigError, load_config
from agents.train import build_model, init_weights, make_vec_env, run

SMALL = ["train.n_envs=2", "ppo.n_steps=32", "ppo.batch_size=64", "train.total_timesteps=64",
         "eval.freq=1000000", "eval.final_episodes=2", "eval.opponents=[random]", "env.opponent=random",
         "imitation.samples=0", "train.checkpoint_freq=1000000"]


def _weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.policy.state_dict().items()}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A saved model (never trained, but with weights of its own seed) and its config."""
    cfg = load_config("configs/saga/smoke.yaml", SMALL + ["train.seed=7"])
    venv = make_vec_env(cfg)
    model = build_model(cfg, venv)
    with torch.no_grad():  # weights no fresh model of any seed has
        for p in model.policy.parameters():
            p.add_(0.25)
    path = save_model(model, tmp_path_factory.mktemp("src") / "model.zip", cfg, light=True)
    venv.close()
    return path, _weights(model)


def test_run_starts_from_the_given_weights(source, tmp_path):
    path, src = source
    # a learning rate so small that training cannot move the weights measurably away from the start
    cfg = load_config("configs/saga/smoke.yaml", SMALL + [f"train.init_from={path}", "ppo.learning_rate=1e-12"])
    result = run(cfg, root=tmp_path)
    assert result["steps"] == 64  # a fresh step count, not the source's
    from sb3_contrib import MaskablePPO
    trained = MaskablePPO.load(result["model"], device="cpu")
    got = _weights(trained)
    assert got.keys() == src.keys()
    for k in src:
        assert torch.allclose(got[k], src[k], atol=1e-6), k
    # without init_from the same run ends far from the source's weights
    fresh = build_model(load_config("configs/saga/smoke.yaml", SMALL), make_vec_env(load_config("configs/saga/smoke.yaml", SMALL)))
    assert any(not torch.allclose(_weights(fresh)[k], src[k], atol=1e-3) for k in src)
    assert load_config(Path(result["run_dir"]) / "config.yaml").train.init_from == str(path)


def test_init_from_refuses_another_network_or_encoding(source):
    path, _ = source
    cfg = load_config("configs/saga/smoke.yaml", SMALL + ["ppo.net_arch=[16, 16]"])
    venv = make_vec_env(cfg)
    with pytest.raises(ConfigError, match="net_arch"):
        init_weights(cfg, build_model(cfg, venv), path)
    cfg = load_config("configs/saga/smoke.yaml", SMALL + ["ppo.activation=relu"])
    with pytest.raises(ConfigError, match="activation"):
        init_weights(cfg, build_model(cfg, venv), path)
    venv.close()
    cfg = load_config("configs/saga/smoke.yaml", SMALL + ["env.max_per_side=3"])
    venv = make_vec_env(cfg)
    with pytest.raises(ConfigError, match="max_per_side"):
        init_weights(cfg, build_model(cfg, venv), path)
    venv.close()


def test_config_checks_init_from(source, tmp_path):
    path, _ = source
    with pytest.raises(ConfigError, match="train.init_from.*does not exist"):
        load_config("configs/saga/smoke.yaml", SMALL + [f"train.init_from={tmp_path / 'nope.zip'}"])
    with pytest.raises(ConfigError, match="imitation.samples"):
        load_config("configs/saga/smoke.yaml", [f"train.init_from={path}"])  # smoke.yaml clones 200 samples
    assert load_config("configs/saga/smoke.yaml").train.init_from is None
