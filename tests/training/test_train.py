"""The smoke config trains end to end in a temporary directory; TensorBoard tags, eval.json, resume."""
import json
import re
import os
import signal
from pathlib import Path

import pytest
import yaml
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from agents import callbacks as cb
from agents.checkpoints import latest_checkpoint
from agents.config import load_config
from agents.policies import load_policy
from agents.train import run
from stable_baselines3.common.callbacks import BaseCallback


def _scalars(run_dir: Path) -> EventAccumulator:
    ea = EventAccumulator(str(run_dir / "tb"), size_guidance={"scalars": 0, "images": 0, "tensors": 0})
    ea.Reload()
    return ea


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    cfg = load_config("configs/saga/smoke.yaml")
    result = run(cfg, root=root)
    return cfg, result, Path(result["run_dir"])


def test_run_directory_holds_everything(smoke):
    cfg, result, d = smoke
    assert d.name.startswith("smoke__")
    assert (d / "config.yaml").exists() and load_config(d / "config.yaml") == cfg
    assert (d / "model.zip").exists() and (d / "model.meta.json").exists()
    assert (d / "model.zip").stat().st_size < 5_000_000
    assert sorted(p.name for p in (d / "checkpoints").glob("*.zip")) == ["step_1024.zip", "step_512.zip"]
    assert list((d / "league").glob("step_*.zip")), "league snapshots are saved as files"
    assert result["steps"] == cfg.train.total_timesteps and not result["interrupted"]
    ev = json.loads((d / "eval.json").read_text())
    for tag in ("random", "heuristic"):
        s = ev["vs"][tag]
        assert s["episodes"] == cfg.eval.final_episodes
        assert 0 <= s["win_rate_ci95"][0] <= s["win_rate"] <= s["win_rate_ci95"][1] <= 1
        assert s["tactics"]["illegal_rate"] == 0.0


def test_tensorboard_tags_exist_with_sane_values(smoke):
    _, _, d = smoke
    ea = _scalars(d)
    tags = set(ea.Tags()["scalars"])
    rates = ["eval/win_rate_vs_random", "eval/win_rate_vs_heuristic", "tactics/cover_rate", "tactics/focus_fire",
             "tactics/illegal_rate", "tactics/move_rate", "tactics/end_turn_rate", "tactics/ranged_attack_rate"]
    counts = ["eval/mean_rounds", "eval/damage_dealt", "eval/damage_taken", "eval/units_lost"]
    for tag in rates + counts + ["rollout/win_rate", "rollout/ep_rew_mean", "train/entropy_loss"]:
        assert tag in tags, tag
    for tag in rates:
        assert all(0.0 <= s.value <= 1.0 for s in ea.Scalars(tag)), tag
    assert all(s.value == 0.0 for s in ea.Scalars("tactics/illegal_rate"))
    assert all(1 <= s.value <= 8 for s in ea.Scalars("eval/mean_rounds"))
    assert all(s.value >= 0 for t in counts for s in ea.Scalars(t))
    assert [s.step for s in ea.Scalars("eval/win_rate_vs_random")] == [512, 1024]
    by_size = {t for t in tags if t.startswith("eval_by_size/win_rate_vs_heuristic_")}
    assert by_size and by_size <= {"eval_by_size/win_rate_vs_heuristic_1v1", "eval_by_size/win_rate_vs_heuristic_2v2"}
    assert "eval/final_map" in ea.Tags()["images"]
    img = ea.Images("eval/final_map")[-1]
    assert img.width >= 10 and img.height >= 10
    text = ea.Tensors("eval/sample_battle/text_summary")[-1].tensor_proto.string_val[0].decode()
    assert "Learner plays" in text and len(text.splitlines()) > 3
    assert "The final map" in text
    assert re.search(r"\[[#.]{10}\]", text.split("The final map")[1]), "the map's legend with HP bars"
    # hyperparameters in the HPARAMS tab
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    plugins = {v.metadata.plugin_data.plugin_name for f in (d / "tb").iterdir()
               for e in EventFileLoader(str(f)).Load() for v in e.summary.value}
    assert "hparams" in plugins


def test_saved_model_loads_as_a_policy_and_evaluates(smoke):
    _, _, d = smoke
    pol = load_policy(str(d / "model.zip"), "saga")
    assert pol.meta["steps"] == 1024
    from typer.testing import CliRunner

    from agents.cli import app
    out = CliRunner().invoke(app, ["eval", str(d / "model.zip"), "--ruleset", "saga", "--vs", "random",
                                   "--episodes", "4", "--seed", "1", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["ruleset"] == "saga" and [r["opponent"] for r in data["results"]] == ["random"]
    res = data["results"][0]
    for key in ("episodes", "win_rate", "draw_rate", "loss_rate", "win_rate_ci95", "mean_rounds"):
        assert key in res, key
    assert res["episodes"] == 4 and len(res["win_rate_ci95"]) == 2
    assert res["win_rate"] + res["draw_rate"] + res["loss_rate"] == pytest.approx(1.0)


class _CtrlC(BaseCallback):
    def _on_step(self):
        if self.num_timesteps >= 256:
            raise KeyboardInterrupt
        return True


class _Kill(BaseCallback):
    def _on_step(self):
        if self.num_timesteps >= 256:
            os.kill(os.getpid(), signal.SIGTERM)
        return True


def test_sigterm_stops_like_ctrl_c_and_leaves_the_handler_as_it_was(tmp_path, monkeypatch):
    cfg = load_config("configs/saga/smoke.yaml", ["train.total_timesteps=768", "eval.freq=512",
                                                  "eval.opponents=[random]", "eval.final_episodes=2",
                                                  "eval.episodes=2", "env.opponent=random", "imitation.samples=0",
                                                  "ppo.n_steps=16", "ppo.batch_size=128"])
    real = cb.make_callbacks
    monkeypatch.setattr(cb, "make_callbacks", lambda *a: real(*a).__class__([*real(*a).callbacks, _Kill()]))
    before = signal.getsignal(signal.SIGTERM)
    got = run(cfg, root=tmp_path)
    assert got["interrupted"] and got["steps"] == 256
    assert latest_checkpoint(Path(got["run_dir"])).name == "step_256.zip"
    assert signal.getsignal(signal.SIGTERM) is before


def test_ctrl_c_saves_a_checkpoint_and_resume_continues_the_step_count(tmp_path, monkeypatch):
    cfg = load_config("configs/saga/smoke.yaml", ["train.total_timesteps=768", "eval.freq=512",
                                                  "eval.opponents=[random]", "eval.final_episodes=2",
                                                  "eval.episodes=2", "env.opponent=random",
                                                  "ppo.n_steps=16", "ppo.batch_size=128"])
    real = cb.make_callbacks
    monkeypatch.setattr(cb, "make_callbacks", lambda *a: real(*a).__class__([*real(*a).callbacks, _CtrlC()]))
    first = run(cfg, root=tmp_path)
    d = Path(first["run_dir"])
    assert first["interrupted"] and first["steps"] == 256
    assert latest_checkpoint(d).name == "step_256.zip"
    assert not (d / "eval.json").exists()
    monkeypatch.setattr(cb, "make_callbacks", real)
    second = run(resume=d)
    assert second["steps"] == 768 and not second["interrupted"]
    ea = _scalars(d)
    steps = sorted({s.step for s in ea.Scalars("time/fps")})
    assert steps[0] <= 256 < steps[-1] <= 768, steps  # one curve, continued
    assert [s.step for s in ea.Scalars("eval/win_rate_vs_random")] == [512, 768]
    assert (d / "eval.json").exists()


def test_env_workers_train_the_same_way_with_the_league_in_step(tmp_path):
    """`train.workers: 2` steps the envs in two worker processes; their league copies follow the learner's
    (the stage switch at 512 steps and the snapshot saved there reach them: league games are played)."""
    cfg = load_config("configs/saga/smoke.yaml", overrides=["train.workers=2", "imitation.samples=0", "eval.workers=2"])
    result = run(cfg, root=tmp_path)
    d = Path(result["run_dir"])
    assert result["steps"] == cfg.train.total_timesteps and not result["interrupted"]
    tags = set(_scalars(d).Tags()["scalars"])
    assert {"rollout/win_rate_vs_random", "rollout/win_rate_vs_league", "eval/win_rate_vs_heuristic"} <= tags
    ev = json.loads((d / "eval.json").read_text())  # the final evaluation, played by two processes
    assert all(ev["vs"][k]["episodes"] == cfg.eval.final_episodes for k in ("random", "heuristic"))


def test_a_run_whose_env_worker_dies_stops_with_an_error_and_keeps_a_checkpoint(tmp_path, monkeypatch):
    """An env worker killed mid-rollout (a crash, the out-of-memory killer) ends the run with WorkerDied naming the
    exit code, not a learner waiting for it forever; what was learned is checkpointed for --resume."""
    import os
    import signal

    from agents.forked import WorkerDied
    from envs.tactics_env import TacticsEnv

    learner, real, calls = os.getpid(), TacticsEnv.step, [0]

    def step(self, action):  # the forked env workers inherit this
        if os.getpid() != learner:
            calls[0] += 1
            if calls[0] == 300:  # in the second rollout
                os.kill(os.getpid(), signal.SIGKILL)
        return real(self, action)

    monkeypatch.setattr(TacticsEnv, "step", step)
    cfg = load_config("configs/saga/smoke.yaml", ["train.workers=2", "imitation.samples=0"])
    import multiprocessing
    before = set(multiprocessing.active_children())
    with pytest.raises(WorkerDied, match="exit code -9"):
        run(cfg, root=tmp_path)
    assert not set(multiprocessing.active_children()) - before  # the other env worker is closed too
    (run_dir,) = tmp_path.iterdir()
    steps = sorted(int(p.stem.split("_")[1]) for p in (run_dir / "checkpoints").glob("step_*.zip"))
    assert steps[0] == 512 and len(steps) == 2 and 512 < steps[1] < 1024  # the cadence's, then the failure's


def test_update_threads_apply_to_the_updates_only():
    import torch

    from agents.callbacks import UpdateThreads
    from agents.config import load_config

    before = torch.get_num_threads()
    try:
        cb = UpdateThreads(load_config("configs/saga/smoke.yaml", ["train.torch_threads=1", "train.update_threads=2"]))
        cb.on_rollout_end()
        assert torch.get_num_threads() == 2
        cb.on_rollout_start()
        assert torch.get_num_threads() == 1
        same = UpdateThreads(load_config("configs/saga/smoke.yaml", ["train.torch_threads=1"]))
        same.on_rollout_end()
        assert torch.get_num_threads() == 1  # no update_threads: the rollout's count
    finally:
        torch.set_num_threads(before)


def test_a_prior_config_trains_a_prior_policy_that_loads_and_plays(tmp_path):
    """`env.prior: heuristic` trains PriorPolicy on observations ending with the prior block; the saved model's
    meta records the prior, and `load_policy` rebuilds the same observation to play it (masked)."""
    from agents.prior_policy import PriorPolicy
    from engine.core.battle import Battle
    from engine.core.dice import SeededDice
    from engine.core.encounter_file import load_encounter
    from engine.rulesets import get_ruleset

    cfg = load_config("configs/saga/smoke.yaml", ["env.prior=heuristic", "imitation.samples=0",
                                                  "train.total_timesteps=512", "eval.final_episodes=4"])
    result = run(cfg, root=tmp_path)
    d = Path(result["run_dir"])
    meta = json.loads((d / "model.meta.json").read_text())
    assert meta["prior"] == "heuristic"
    pol = load_policy(str(d / "model.zip"), get_ruleset("saga"))
    assert isinstance(pol.model.policy, PriorPolicy)
    assert pol.encoder.size == pol.encoder.base_size + pol.codec.n
    rs = get_ruleset("saga")
    b = Battle(load_encounter("configs/encounters/saga/cantina_ambush.yaml", rs), rs, SeededDice(0))
    b.start()
    import numpy as np
    import torch
    obs = pol.encoder.encode(b.enc, b.enc.actor).copy()
    with torch.no_grad():  # the numpy copy of the actor (prior block included) equals the torch policy
        p = pol.model.policy
        want = p.action_net(p.mlp_extractor.forward_actor(p.extract_features(torch.as_tensor(obs[None, :]))))[0]
    assert pol._numpy_path() and np.allclose(pol.logits(obs), want.numpy(), atol=1e-5)
    for _ in range(20):
        if b.over:
            break
        b.step(pol.choose(b))  # an illegal choice would raise
