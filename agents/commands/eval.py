"""`tactician eval POLICY --ruleset R [--vs random|heuristic|POLICY] [--episodes N] [--seed S] [--json]`."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_(policy: str = typer.Argument(..., help="random, heuristic, zoo:<ruleset> or a model .zip"),
              ruleset: str = typer.Option("saga", "--ruleset", help="ruleset id"),
              vs: list[str] = typer.Option(["random", "heuristic"], "--vs",
                                           help="opponent: random, heuristic or a POLICY (repeatable)"),
              episodes: int = typer.Option(200, "--episodes", min=2, help="episodes per opponent (both seats)"),
              seed: int = typer.Option(0, "--seed", help="first encounter seed"),
              encounter: list[Path] = typer.Option([], "--encounter",
                                                   help="encounter file(s) instead of random encounters"),
              workers: int = typer.Option(1, "--workers", min=1,
                                          help="processes playing the episodes (same results; 2 on 2 cores)"),
              as_json: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
        """Win / draw / loss with 95% Wilson intervals, rounds and damage traded, on fixed seeds, both seats."""
        from rich.console import Console
        from rich.table import Table

        from agents.evaluate import evaluate, source_for
        from agents.policies import load_policy
        from engine.core.errors import InputError
        from engine.rulesets import available, get_ruleset

        console = Console(stderr=as_json)
        if not console.is_terminal:
            console.width = max(console.width, 110)
        if ruleset not in available():
            console.print(f"[red]unknown ruleset '{ruleset}'; available: {', '.join(sorted(available()))}[/red]")
            raise typer.Exit(2)
        rs = get_ruleset(ruleset)
        try:
            learner = load_policy(policy, rs, seed=seed)
            opponents = {v: load_policy(v, rs, seed=seed + 1) for v in vs}
        except (InputError, ImportError, KeyError) as e:
            console.print(f"[red]{e}[/red]", highlight=False)
            raise typer.Exit(2)
        try:
            source = source_for(learner, rs, encounter)
        except InputError as e:
            console.print(f"[red]{e}[/red]", highlight=False)
            raise typer.Exit(2)
        from agents.forked import WorkerDied

        results = {}
        for name, opp in opponents.items():
            try:
                summary, _ = evaluate(learner, opp, rs, episodes, seed, source, workers=workers)
            except WorkerDied as e:
                console.print(f"[red]{e}[/red]", highlight=False)
                raise typer.Exit(1)
            results[name] = summary
        if as_json:
            first = results[vs[0]]
            out = {"policy": policy, "ruleset": ruleset, "vs": vs[0], "seed": seed,
                   **{k: v for k, v in first.items()}}
            if len(vs) > 1:
                out["by_opponent"] = results
            print(json.dumps(out, indent=2))
            return
        t = Table(title=f"{policy} on {ruleset}: {episodes} episodes per opponent, seeds from {seed}, both seats",
                  caption="win / draw / loss: rate [95% Wilson interval, %]; dealt / taken: damage per battle; "
                          "lost: own units down per battle")
        for col in ("vs", "win", "draw", "loss", "rounds", "dealt", "taken", "lost"):
            t.add_column(col, justify="left" if col == "vs" else "right", no_wrap=True)

        def pct(s, key):
            lo, hi = s[f"{key}_rate_ci95"]
            return f"{s[f'{key}_rate']:.1%} [{lo * 100:.0f}-{hi * 100:.0f}]"

        for name, s in results.items():
            t.add_row(name, pct(s, "win"), pct(s, "draw"), pct(s, "loss"), f"{s['mean_rounds']:.1f}",
                      f"{s['damage_dealt']:.1f}", f"{s['damage_taken']:.1f}", f"{s['units_lost']:.2f}")
        console.print(t)
        for name, s in results.items():  # where it wins and loses: by the units a side (the policy's side first)
            if len(s["by_size"]) > 1:
                sizes = ", ".join(f"{z} {v['win_rate']:.1%} ({v['episodes']})" for z, v in s["by_size"].items())
                console.print(f"  vs {name}, win rate by size: {sizes}", highlight=False)
