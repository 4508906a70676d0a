"""`tactician train CONFIG [--set key=value ...] [--name NAME] [--resume RUN_DIR]`."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("train")
    def train(config: Optional[Path] = typer.Argument(None, help="training config (YAML), e.g. configs/saga/skirmish.yaml"),
              set_: list[str] = typer.Option([], "--set", help="override a key: --set ppo.learning_rate=1e-4 (repeatable)"),
              name: Optional[str] = typer.Option(None, "--name", help="run name (default: the config's `name`)"),
              resume: Optional[Path] = typer.Option(None, "--resume", help="continue this run directory from its latest checkpoint"),
              runs: Path = typer.Option(Path("runs"), "--runs", help="parent directory of run directories")) -> None:
        """Train a MaskablePPO policy; everything about the run goes to runs/<name>__<timestamp>/."""
        from rich.console import Console

        from agents.config import ConfigError, load_config

        console = Console()
        if resume is None and config is None:
            console.print("[red]give a CONFIG, or --resume RUN_DIR[/red]")
            raise typer.Exit(2)
        if resume is not None and (config is not None or set_ or name):
            console.print("[red]--resume takes the run's own config.yaml; drop CONFIG, --set and --name[/red]")
            raise typer.Exit(2)
        cfg = None
        if resume is None:
            try:
                cfg = load_config(config, set_ + ([f"name={name}"] if name else []))
            except ConfigError as e:  # it names the file
                console.print(f"[red]{e}[/red]", highlight=False)
                raise typer.Exit(2)
        from agents.forked import WorkerDied
        from agents.train import run
        try:
            result = run(cfg, resume=resume, root=runs, console=console)
        except (FileNotFoundError, ConfigError) as e:
            console.print(f"[red]{e}[/red]", highlight=False)
            raise typer.Exit(2)
        except WorkerDied as e:  # the checkpoint of that moment is saved (run says where): --resume continues
            console.print(f"[red]{e}[/red]", highlight=False)
            raise typer.Exit(1)
        console.print(f"run: {result['run_dir']}  steps: {result['steps']}  "
                      f"({result['steps_per_second']:.0f} steps/s)  model: {result['model']}")
        ev = result.get("eval")
        if ev:
            for tag, s in ev["vs"].items():
                lo, hi = s["win_rate_ci95"]
                console.print(f"  vs {tag:<10} win {s['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]  "
                              f"draw {s['draw_rate']:.1%}  loss {s['loss_rate']:.1%}  "
                              f"over {s['episodes']} episodes")
