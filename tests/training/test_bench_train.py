"""The training benchmark's ceiling runs the trainer's own vec env and model class, and reports CPU figures."""
from agents import bench
from agents.config import load_config
from agents.fast_ppo import FastMaskablePPO, vec_action_masks
from agents.train import build_model, make_vec_env
from agents.vec_env import MaskedDummyVecEnv


def test_ceiling_uses_the_trainers_vec_env_and_model(tmp_path, monkeypatch):
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # where SB3's default logger would make its directory
    cfg = load_config("configs/saga/smoke.yaml", ["train.n_envs=2", "ppo.n_steps=16", "ppo.batch_size=32",
                                                  "ppo.n_epochs=1", "ppo.net_arch=[8]"])
    venv = make_vec_env(cfg)
    null = bench._null_vec_env(venv)
    try:
        assert type(null.unwrapped) is type(venv.unwrapped) is MaskedDummyVecEnv
        assert null.num_envs == venv.num_envs and null.action_space == venv.action_space
        null.reset()
        masks = vec_action_masks(null)
        assert masks.shape == (2, venv.action_space.n) and masks.sum() == 2 * (venv.action_space.n - 1)
        model = build_model(cfg, null)
        assert isinstance(model, FastMaskablePPO)
        r = bench._timed_learn(model, 0.01, cfg)
        assert r["steps"] >= 32 and r["steps_per_s"] > 0 and r["steps_per_learner_cpu_s"] > 0
        assert list(tmp_path.glob("SB3-*")) == [], "bench leaves no logger directories behind"
    finally:
        venv.close()
        null.close()
