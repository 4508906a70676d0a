"""`tactician publish`: a trained run becomes a zoo policy with a card that evaluates it."""
from __future__ import annotations

import yaml
from typer.testing import CliRunner

from agents.cli import app
from agents.config import load_config
from agents.policies import MaskablePolicy
from agents.train import run


def test_publish_copies_the_model_and_writes_the_card(tmp_path):
    cfg = load_config("configs/saga/smoke.yaml")
    result = run(cfg, root=tmp_path / "runs")
    out = CliRunner().invoke(app, ["publish", result["run_dir"], "--episodes", "4", "--zoo", str(tmp_path / "zoo"),
                                   "--workers", "2"])
    assert out.exit_code == 0, out.output
    dest = tmp_path / "zoo" / "saga"
    card = yaml.safe_load((dest / "card.yaml").read_text())
    assert card["policy"] == "zoo:saga" and card["steps"] == result["steps"]
    assert card["config"]["name"] == "smoke" and card["commit"]
    for k in ("vs_random", "vs_heuristic"):
        v = card["eval"][k]
        assert v["episodes"] == 4 and 0 <= v["win_rate"] <= 1
        lo, hi = v["win_rate_ci95"]
        assert lo <= v["win_rate"] <= hi
        assert sum(part["episodes"] for part in v["by_size"].values()) == 4
    assert card["eval"]["round_limit"] == 20 and "--round-limit 20" in card["eval"]["command"]  # eval's default
    assert isinstance(MaskablePolicy(dest / "model.zip"), MaskablePolicy)


def test_a_published_checkpoint_leaves_its_optimizer_state_behind(tmp_path):
    """Checkpoints keep Adam's moments for --resume; the zoo copy keeps the weights only, and its card the
    checkpoint's step count."""
    import torch
    from sb3_contrib import MaskablePPO

    cfg = load_config("configs/saga/smoke.yaml", ["eval.final_episodes=2", "train.checkpoint_freq=768"])
    result = run(cfg, root=tmp_path / "runs")
    ckpt = "checkpoints/step_768.zip"  # mid-run: the card names its own step count, not the run's
    out = CliRunner().invoke(app, ["publish", result["run_dir"], "--model", ckpt, "--episodes", "2",
                                   "--zoo", str(tmp_path / "zoo"), "--round-limit", "2"])
    assert out.exit_code == 0, out.output
    src = MaskablePPO.load(f"{result['run_dir']}/{ckpt}", device="cpu")
    got = MaskablePPO.load(str(tmp_path / "zoo" / "saga" / "model.zip"), device="cpu")
    assert src.policy.optimizer.state and not got.policy.optimizer.state
    assert src._last_obs is not None and got._last_obs is None  # nor the envs' last observations
    for a, b in zip(src.policy.parameters(), got.policy.parameters()):
        assert torch.equal(a, b)
    assert (tmp_path / "zoo" / "saga" / "model.zip").stat().st_size < 0.6 * (tmp_path / "runs").joinpath(
        result["run_dir"], ckpt).stat().st_size
    card = yaml.safe_load((tmp_path / "zoo" / "saga" / "card.yaml").read_text())
    assert result["steps"] == 1024 and card["steps"] == 768
    assert card["eval"]["round_limit"] == 2 and "--round-limit 2 " in card["eval"]["command"]
    assert all(card["eval"][k]["mean_rounds"] <= 2 for k in ("vs_random", "vs_heuristic"))


def test_publish_refuses_a_folder_without_a_model(tmp_path):
    out = CliRunner().invoke(app, ["publish", str(tmp_path), "--zoo", str(tmp_path / "zoo")])
    assert out.exit_code == 2 and "not found" in out.output
