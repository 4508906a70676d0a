"""`tactician publish RUN_DIR`: ship a trained model to agents/zoo/<ruleset>/ with its card."""
from __future__ import annotations

import json
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import typer
import yaml


def _save_light(src: Path, dest: Path) -> None:
    """Copy a model without what only training needs (`agents.checkpoints.save_light`)."""
    from sb3_contrib import MaskablePPO

    from agents.checkpoints import save_light

    save_light(MaskablePPO.load(str(src), device="cpu"), dest)


def register(app: typer.Typer) -> None:
    @app.command("publish")
    def publish(run_dir: Path = typer.Argument(..., help="a run directory of `tactician train`"),
                model: str = typer.Option("model.zip", "--model", help="model file inside the run directory"),
                episodes: int = typer.Option(2000, "--episodes", min=2,
                                             help="evaluation episodes per opponent (2,000: intervals of about "
                                                  "+-2 points)"),
                seed: int = typer.Option(0, "--seed", help="first evaluation seed"),
                round_limit: int = typer.Option(20, "--round-limit", min=1,
                                                help="rounds before a draw in the generated encounters' evaluation "
                                                     "(as `tactician eval`'s); the held-out files keep their own"),
                workers: int = typer.Option(2, "--workers", min=1,
                                            help="processes playing the evaluation (same results; 2 on 2 cores)"),
                zoo: Path = typer.Option(None, "--zoo", help="zoo folder (default: agents/zoo)")) -> None:
        """Copy a run's model to the zoo (`zoo:<ruleset>`) and write card.yaml: config, steps, wall time,
        commit, and evaluation against random and the heuristic with 95% intervals; and (`held_out`) against the
        heuristic on the ruleset's shipped encounters the model never trained on, each to its own round limit,
        beside the heuristic's own figures on the same episodes (the control)."""
        from agents.evaluate import card_summary, evaluate, held_out, source_for
        from agents.policies import ZOO, MaskablePolicy, load_policy, meta_path

        src = run_dir / model
        if not src.exists() or not meta_path(src).exists():
            typer.echo(f"{src} (and its .meta.json) not found: give a run directory of `tactician train`", err=True)
            raise typer.Exit(2)
        meta = json.loads(meta_path(src).read_text())
        policy = MaskablePolicy(src)
        rs = policy.ruleset
        results = {}
        for name in ("random", "heuristic"):
            summary, _ = evaluate(policy, load_policy(name, rs, seed=seed + 1), rs, episodes, seed,
                                  source_for(policy, rs, round_limit=round_limit), workers=workers)
            results[f"vs_{name}"] = card_summary(summary)
        unseen = held_out(policy, rs, episodes, seed, workers=workers)  # each file to its own round limit
        dest = (zoo or ZOO) / rs.id
        dest.mkdir(parents=True, exist_ok=True)
        _save_light(src, dest / "model.zip")
        shutil.copy(meta_path(src), dest / "model.meta.json")
        result = json.loads((run_dir / "result.json").read_text()) if (run_dir / "result.json").exists() else {}
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        card = {
            "policy": f"zoo:{rs.id}", "ruleset": rs.id, "env_id": meta.get("env_id"),
            "encoding_signature": meta.get("encoding_signature"), "run": str(run_dir),
            # a checkpoint's own step count (meta), not the run's; the run's wall time only for its final model
            "steps": meta.get("steps", result.get("steps")),
            "wall_time_s": meta.get("wall_time_s", result.get("wall_time_s") if model == "model.zip" else None),
            "commit": commit, "published": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "model_bytes": (dest / "model.zip").stat().st_size,
            "eval": {"command": f"tactician eval zoo:{rs.id} --episodes {episodes} --seed {seed} "
                                f"--round-limit {round_limit} --workers 2",
                     "encounters": meta.get("train_env"), "round_limit": round_limit, **results,
                     "held_out": unseen},
            "config": yaml.safe_load((run_dir / "config.yaml").read_text()),
        }
        (dest / "card.yaml").write_text(yaml.safe_dump(card, sort_keys=False))
        for k, v in results.items():
            lo, hi = v["win_rate_ci95"]
            typer.echo(f"{k}: win {v['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] over {v['episodes']} episodes")
        if "margin" in unseen:
            lo, hi = unseen["vs_heuristic"]["win_rate_ci95"]
            names = ", ".join(Path(f).stem for f in unseen["encounters"])
            typer.echo(f"held out ({names}): win "
                       f"{unseen['vs_heuristic']['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] vs heuristic, "
                       f"{unseen['control']['win_rate']:.1%} for the heuristic itself")
        else:
            typer.echo("held out: every shipped encounter was trained on or is too large for the model's encoding "
                       "(card.yaml: eval.held_out.left_out)")
        typer.echo(f"published {dest}/model.zip ({card['model_bytes'] / 1e6:.1f} MB) with card.yaml")
