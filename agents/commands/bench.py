"""`tactician bench [--ruleset R ...]`: per ruleset, engine decisions/s, heuristic decisions/s, training steps/s against
the framework's ceiling, NPC decision latency."""
from __future__ import annotations

import json

import typer

PARTS = ("engine", "policy", "train", "latency", "serve")


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(seconds: float = typer.Option(5.0, "--seconds", "-s", min=0.05,
                                            help="time per measurement (training gets twice this per trainer)"),
              only: list[str] = typer.Option([], "--only", help=f"run only these parts: {', '.join(PARTS)}"),
              rulesets: list[str] = typer.Option([], "--ruleset", help="measure this ruleset (repeatable; default: "
                                                 "every ruleset shipped in engine/rulesets/, one after another)"),
              as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
              overrides: list[str] = typer.Option([], "--set", help="trainer: override a key of each ruleset's "
                                                  "skirmish config (configs/<ruleset>/skirmish.yaml), e.g. --set "
                                                  "train.workers=2 --set train.n_envs=64"),
              latency_decisions: int = typer.Option(2000, "--decisions", min=20,
                                                    help="NPC decisions timed for the latency figure"),
              split: bool = typer.Option(False, "--split", help="engine: also the µs per decision of each part "
                                                               "(legal, mask, observation, apply), in a second run; "
                                                               "train: also the trainer against random opponents "
                                                               "only (what the heuristic opponent costs)"),
              repeat: int = typer.Option(1, "--repeat", min=1, max=50,
                                         help="engine and train: measure this many times and report the median "
                                              "run (with every run's figure)")):
        """Measure speed, for each ruleset given with --ruleset (by default every ruleset shipped in
        engine/rulesets/): engine decisions/s (mask + observation + apply on the ruleset's 4v4 16x16 skirmish, one
        core), heuristic decisions/s, training steps/s end to end on configs/<ruleset>/skirmish.yaml vs the same
        trainer on a do-nothing env (skipped without that config), and per-decision latency of zoo:<ruleset> (or
        of a fresh model). `--json` prints {python, cpus, ..., rulesets: {<id>: {name, engine, heuristic, training,
        latency}}} whatever the number of rulesets."""
        from agents.bench import run_all, shipped_rulesets, skirmish_config, targets_for
        from agents.config import ConfigError, load_config
        from engine.rulesets import available

        bad = [p for p in only if p not in PARTS]
        if bad:
            raise typer.BadParameter(f"unknown part(s) {', '.join(bad)}; use {', '.join(PARTS)}", param_hint="--only")
        unknown = [r for r in rulesets if r not in available()]
        if unknown:
            raise typer.BadParameter(f"unknown ruleset(s) {', '.join(unknown)}; registered: "
                                     f"{', '.join(sorted(available()))}", param_hint="--ruleset")
        measured = list(dict.fromkeys(rulesets)) or shipped_rulesets()
        for rid in measured:  # a bad override is reported like `tactician train` reports it, before anything runs
            cfg = skirmish_config(rid)
            if cfg.exists() and (not only or "train" in only):
                try:
                    load_config(cfg, list(overrides))
                except ConfigError as e:
                    raise typer.BadParameter(str(e), param_hint="--set")
        res = run_all(seconds, tuple(only) or PARTS, rulesets=measured, train_overrides=list(overrides) or None,
                      latency_decisions=latency_decisions, split=split, repeat=repeat)
        if as_json:
            typer.echo(json.dumps(res, indent=2))
            return
        typer.echo(f"python {res['python']}, {res['cpus']} cpus, {seconds:g} s per measurement, load average "
                   f"{res['load_average_1min']:g} before the run (anything well above 0 slows every figure)")
        if res["c_modules_missing"]:
            typer.echo("not built, so running in Python (much slower): " + ", ".join(res["c_modules_missing"])
                       + " (`python3 bootstrap.py setup` builds them; it needs a C compiler)")
        for rid, figures in res["rulesets"].items():
            typer.echo(f"{rid} ({figures['name']})")
            _print_ruleset(figures, targets_for(rid))


def _print_ruleset(res: dict, targets: dict) -> None:
    """The figures of one ruleset, a line per part."""
    if "engine" in res:
        e = res["engine"]
        typer.echo(f"engine    {e['decisions_per_s']:>10,.0f} decisions/s   (mask + observation + apply; "
                   f"{e['decisions_per_cpu_s']:,.0f} per CPU second; {e['decisions']} decisions in "
                   f"{e['battles']} battles; {e['encounter']}; "
                   f"target >= {targets['engine_decisions_per_s']:,})")
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
    if "training" in res and "skipped" in res["training"]:
        typer.echo(f"training  skipped: {res['training']['skipped']}")
    elif "training" in res:
        t = res["training"]
        typer.echo(f"training  {t['steps_per_s']:>10,.0f} steps/s       ({t['trainer']}; {t['n_envs']} envs in "
                   f"{t['workers']} process(es) x {t['n_steps']} steps, rollouts {t['rollouts']}, batch "
                   f"{t['batch_size']}, torch threads "
                   f"{t['torch_threads']} / {t['update_threads']} in updates; target >= "
                   f"{targets['train_steps_per_s']:,})")
        typer.echo(f"  a cycle of {t['n_envs'] * t['n_steps']:,} steps: rollout {t['skirmish']['rollout_s']:.2f} s, "
                   f"update {t['skirmish']['update_s']:.2f} s" + (
                       "; env workers on a CPU for " + " / ".join(f"{b:.0%}" for b in t["skirmish"]["worker_busy"])
                       + " of the rollout" if "worker_busy" in t["skirmish"] else ""))
        typer.echo(f"ceiling   {t['ceiling_steps_per_s']:>10,.0f} steps/s       (same trainer, do-nothing envs in "
                   f"its own process; {t['null_env']['steps_per_learner_cpu_s']:,.0f} per learner CPU second; rollout "
                   f"{t['null_env']['rollout_s']:.2f} s, update {t['null_env']['update_s']:.2f} s)")
        typer.echo(f"ratio     {t['ratio']:>10.3f}               (target >= {targets['train_ratio']})")
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
                   f"(CPU time p99 {lat['cpu_p99_ms']:.3f} ms; per NPC decision, {lat['decisions']} decisions, "
                   f"{lat['model']}; "
                   f"target p99 <= {targets['latency_p99_ms']} ms)")
    if "serve" in res:
        srv = res["serve"]
        typer.echo(f"serve     p50 {srv['p50_ms']:.1f} ms  p99 {srv['p99_ms']:.1f} ms  (an NPC proposal reaching the "
                   f"page: accept sent to the next proposal's event, {srv['decisions']} proposals; "
                   f"target p99 <= {targets['serve_p99_ms']:g} ms)")
