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
    # the shipped Saga encounters are all larger than this 10x10, 2-a-side model sees: none held out to play
    unseen = card["eval"]["held_out"]
    assert unseen["encounters"] == [] and "margin" not in unseen
    assert sorted(unseen["left_out"]) == [f"configs/encounters/saga/{n}.yaml" for n in
                                          ("cantina_ambush", "canyon_beast", "droid_factory", "skirmish_4v4")]
    assert "maps up to 10x10" in unseen["left_out"]["configs/encounters/saga/skirmish_4v4.yaml"]


def test_the_card_plays_the_shipped_encounters_not_trained_on_beside_the_heuristics_own_figures(tmp_path):
    """`eval.held_out`: the model against the heuristic on the shipped encounters it never trained on and can see,
    and the control (the heuristic against itself on the same episodes); the file it trained on, and those larger
    than its encoding, are left out with the reason."""
    from agents.evaluate import encounter_source, evaluate
    from agents.policies import load_policy
    from engine.rulesets import get_ruleset

    trained = "configs/encounters/saga/cantina_ambush.yaml"
    cfg = load_config("configs/saga/smoke.yaml", ["env.map_size=[16, 16]", "env.max_per_side=4",
                                                  f"env.encounters=[{trained}]", "eval.final_episodes=2"])
    result = run(cfg, root=tmp_path / "runs")
    out = CliRunner().invoke(app, ["publish", result["run_dir"], "--episodes", "4", "--seed", "7", "--round-limit",
                                   "3", "--zoo", str(tmp_path / "zoo")])
    assert out.exit_code == 0, out.output
    unseen = yaml.safe_load((tmp_path / "zoo" / "saga" / "card.yaml").read_text())["eval"]["held_out"]
    assert unseen["encounters"] == ["configs/encounters/saga/skirmish_4v4.yaml"]
    assert unseen["left_out"][trained] == "trained on"
    assert "maps up to 16x16" in unseen["left_out"]["configs/encounters/saga/canyon_beast.yaml"]
    rs = get_ruleset("saga")
    # --round-limit is the generated encounters'; a held-out file is played to the round limit its GM wrote
    card = yaml.safe_load((tmp_path / "zoo" / "saga" / "card.yaml").read_text())
    assert card["eval"]["vs_heuristic"]["mean_rounds"] <= 3
    assert unseen["round_limits"] == {"configs/encounters/saga/skirmish_4v4.yaml": 20}
    assert unseen["vs_heuristic"]["mean_rounds"] > 3 and unseen["control"]["mean_rounds"] > 3
    source = encounter_source(rs, unseen["encounters"], None, None)
    control, _ = evaluate(load_policy("heuristic", rs, seed=7), load_policy("heuristic", rs, seed=8), rs, 4, 7, source)
    assert unseen["control"]["episodes"] == unseen["vs_heuristic"]["episodes"] == 4
    assert unseen["control"]["win_rate"] == control["win_rate"]
    assert unseen["control"]["mean_rounds"] == control["mean_rounds"]
    assert unseen["margin"] == round(unseen["vs_heuristic"]["win_rate"] - control["win_rate"], 4)
    assert "held out (skirmish_4v4): win" in out.output


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
