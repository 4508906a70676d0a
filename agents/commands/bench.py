"""`tactician bench`: engine decisions/s, training steps/s against the framework's ceiling, NPC decision latency."""
from __future__ import annotations

import json

import typer

PARTS = ("engine", "policy", "train", "latency")


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(seconds: float = typer.Option(5.0, "--seconds", "-s", min=0.05,
                                            help="time per measurement (training gets twice this per trainer)"),
              only: list[str] = typer.Option([], "--only", help=f"run only these parts: {', '.join(PARTS)}"),
              as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
              overrides: list[str] = typer.Option([], "--set", help="trainer: override a key of the skirmish "
                                                  "config, e.g. --set train.workers=2 --set train.n_envs=64"),
              latency_decisions: int = typer.Option(2000, "--decisions", min=20,
                                                    help="NPC decisions timed for the latency figure"),
              split: bool = typer.Option(False, "--split", help="engine: also the µs per decision of each part "
                                                               "(legal, mask, observation, apply), in a second run; "
                                                               "train: also the trainer against random opponents "
                                                               "only (what the heuristic opponent costs)"),
              repeat: int = typer.Option(1, "--repeat", min=1, max=50,
                                         help="engine and train: measure this many times and report the median "
                                              "run (with every run's figure)")):
        """Measure speed: engine decisions/s (mask + observation + apply, 4v4 Saga 16x16, one core),
        training steps/s end to end vs the same trainer on a do-nothing env, and per-decision latency."""
        from agents.bench import TARGETS, run_all

        bad = [p for p in only if p not in PARTS]
        if bad:
            raise typer.BadParameter(f"unknown part(s) {', '.join(bad)}; use {', '.join(PARTS)}", param_hint="--only")
        from agents.config import ConfigError, load_config
        from agents.bench import SKIRMISH_CONFIG

        try:  # a bad override is reported like `tactician train` reports it, before anything is measured
            load_config(SKIRMISH_CONFIG, list(overrides))
        except ConfigError as e:
            raise typer.BadParameter(str(e), param_hint="--set")
        res = run_all(seconds, tuple(only) or PARTS, train_overrides=list(overrides) or None,
                      latency_decisions=latency_decisions, split=split, repeat=repeat)
        if as_json:
            typer.echo(json.dumps(res, indent=2))
            return
        typer.echo(f"python {res['python']}, {res['cpus']} cpus, {seconds:g} s per measurement, load average "
                   f"{res['load_average_1min']:g} before the run (anything well above 0 slows every figure)")
        if res["c_modules_missing"]:
            typer.echo("not built, so running in Python (much slower): " + ", ".join(res["c_modules_missing"])
                       + " (`python3 bootstrap.py setup` builds them; it needs a C compiler)")
        if "engine" in res:
            e = res["engine"]
            typer.echo(f"engine    {e['decisions_per_s']:>10,.0f} decisions/s   (mask + observation + apply; "
                       f"{e['decisions_per_cpu_s']:,.0f} per CPU second; {e['decisions']} decisions in {e['battles']} battles; "
                       f"{e['encounter']}; "
                       f"target >= {TARGETS['engine_decisions_per_s']:,})")
            if "runs" in e:
                typer.echo(f"  the median of {len(e['runs'])} runs: " + ", ".join(f"{r:,.0f}" for r in e["runs"]))
            if "split_us" in e:
                typer.echo("  per decision: " + ", ".join(f"{k} {v:.1f} µs" for k, v in e["split_us"].items()))
        if "heuristic" in res:
            h = res["heuristic"]
            if "error" in h:
                typer.echo(f"heuristic  {h['error']}")
            else:
                typer.echo(f"heuristic {h['decisions_per_s']:>10,.0f} decisions/s   "
                           f"(choose {h['choose_ms_mean']} ms mean, both sides)")
        if "training" in res:
            t = res["training"]
            typer.echo(f"training  {t['steps_per_s']:>10,.0f} steps/s       ({t['trainer']}; {t['n_envs']} envs in "
                       f"{t['workers']} process(es) x {t['n_steps']} steps, rollouts {t['rollouts']}, batch "
                       f"{t['batch_size']}, torch threads "
                       f"{t['torch_threads']} / {t['update_threads']} in updates; target >= "
                       f"{TARGETS['train_steps_per_s']:,})")
            typer.echo(f"  a cycle of {t['n_envs'] * t['n_steps']:,} steps: rollout {t['skirmish']['rollout_s']:.2f} s, "
                       f"update {t['skirmish']['update_s']:.2f} s" + (
                           "; env workers on a CPU for " + " / ".join(f"{b:.0%}" for b in t["skirmish"]["worker_busy"])
                           + " of the rollout" if "worker_busy" in t["skirmish"] else ""))
            typer.echo(f"ceiling   {t['ceiling_steps_per_s']:>10,.0f} steps/s       (same trainer, do-nothing envs in its own process; "
                       f"{t['null_env']['steps_per_learner_cpu_s']:,.0f} per learner CPU second; rollout "
                       f"{t['null_env']['rollout_s']:.2f} s, update {t['null_env']['update_s']:.2f} s)")
            typer.echo(f"ratio     {t['ratio']:>10.3f}               (target >= {TARGETS['train_ratio']})")
            if "runs" in t:
                typer.echo(f"  the median of {len(t['runs'])} runs (steps/s, ratio): "
                           + ", ".join(f"{sps:,.0f} / {ratio:.3f}" for sps, ratio in t["runs"]))
            if "random_opponents" in t:
                r = t["random_opponents"]
                typer.echo(f"  against random opponents only: {r['steps_per_s']:,.0f} steps/s, ratio {r['ratio']:.3f} "
                           f"(rollout {r['rollout_s']:.2f} s, update {r['update_s']:.2f} s): the rest of the gap is the "
                           f"heuristic opponent's decisions")
        if "latency" in res:
            lat = res["latency"]
            typer.echo(f"latency   p50 {lat['p50_ms']:.3f} ms  p99 {lat['p99_ms']:.3f} ms  "
                       f"(CPU time p99 {lat['cpu_p99_ms']:.3f} ms; per NPC decision, {lat['decisions']} decisions, {lat['model']}; "
                       f"target p99 <= {TARGETS['latency_p99_ms']} ms)")
