"""`tactician eval POLICY [--ruleset R] [--vs random|heuristic|POLICY ...] [--episodes N] [--seed S]
[--round-limit N] [--encounter FILE ...] [--config TRAINING_CONFIG] [--control] [--agreement] [--json]`.

`--json` prints one object of the same shape whatever the number of opponents (`FORMAT` 1):

    {"format": 1, "policy": "zoo:saga", "ruleset": "saga", "seed": 0, "episodes": 200,
     "round_limit": 20 or null (each --encounter file's own),
     "encounters": ["configs/encounters/saga/cantina_ambush.yaml"] or null (random ones),
     "config": "configs/saga/skirmish.yaml" or null (--config: that config's encounters),
     "results": [{"opponent": "random", "episodes": 200, "win_rate": ..., "win_rate_ci95": [lo, hi], ...,
                  "by_seat": {...}, "by_size": {...}, "tactics": {...}, "control": null, "agreement": null}, ...]}

one entry of `results` per `--vs`, in the order given, each the summary of `agents.evaluate.summarise`; with
`--control`, its "control" is the heuristic's own figures against that opponent on the same episodes
(`agents.evaluate.card_summary`: win, draw and loss rates, rounds, by size); with `--agreement`, its "agreement"
sets POLICY's decisions beside the heuristic's choices at the same points (`agents.evaluate.agreement`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

FORMAT = 1


def model_ruleset(spec: str) -> str | None:
    """The ruleset a POLICY is bound to: zoo:<ruleset>'s, or the one a model file's .meta.json records; None for
    the rule policies (they play any ruleset) or a spec that names no model."""
    from agents.policies import meta_path

    if spec.startswith("zoo:"):
        return spec[4:] or None
    meta = meta_path(spec)
    if spec.endswith(".zip") and meta.exists():
        try:
            return json.loads(meta.read_text()).get("ruleset")
        except (OSError, ValueError):
            return None  # load_policy reports the broken file
    return None


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_(policy: str = typer.Argument(..., help="random, heuristic, zoo:<ruleset> or a model .zip"),
              ruleset: Optional[str] = typer.Option(None, "--ruleset",
                                                    help="ruleset id; needed only when no model is named (a model "
                                                         "brings its own: zoo:<ruleset>, a .zip's meta)"),
              vs: list[str] = typer.Option(["random", "heuristic"], "--vs",
                                           help="opponent: random, heuristic or a POLICY (repeatable)"),
              episodes: int = typer.Option(200, "--episodes", min=2, help="episodes per opponent (both seats)"),
              seed: int = typer.Option(0, "--seed", help="first encounter seed"),
              round_limit: Optional[int] = typer.Option(
                  None, "--round-limit", min=1, help="rounds before a draw, the same for every player and encounter "
                                                     "(default 20, the engine's, and each --encounter file's own; "
                                                     "not a model's training limit)"),
              encounter: list[Path] = typer.Option([], "--encounter",
                                                   help="encounter file(s) instead of random encounters"),
              config: Optional[Path] = typer.Option(
                  None, "--config", help="the encounters a training config's env trains on (its files or its "
                                         "generator), e.g. for the heuristic's own figures on a model's encounters"),
              workers: int = typer.Option(1, "--workers", min=1,
                                          help="processes playing the episodes (same results; 2 on 2 cores)"),
              agreement: bool = typer.Option(False, "--agreement",
                                             help="also ask the heuristic its choice at each of POLICY's decisions "
                                                  "(never played): how often they agree, and where POLICY departs"),
              control: bool = typer.Option(False, "--control",
                                           help="also play the heuristic in POLICY's place on the same episodes "
                                                "(what the heuristic's own play makes of these encounters), per "
                                                "opponent"),
              as_json: bool = typer.Option(False, "--json", help="print one JSON object (format 1: "
                                                                "{format, policy, ruleset, seed, episodes, "
                                                                "round_limit, encounters, config, results: "
                                                                "[{opponent, ..., control}]})")) -> None:
        """Win / draw / loss with 95% Wilson intervals, rounds and damage traded, on fixed seeds, both seats.

        The encounters are the --encounter files, else those of the --config, else those a model POLICY was trained
        on, else random ones; every player meets them at the same round limit (an --encounter file's own unless
        --round-limit is given: as a card's held-out figures are played). A model that cannot see an encounter (a
        larger map, more units a side than its encoding) is refused."""
        from rich.console import Console
        from rich.table import Table

        from agents.evaluate import DEFAULT_ROUND_LIMIT, SAME_ACTION, card_summary, evaluate, source_for
        from agents.forked import WorkerDied
        from agents.policies import load_policy
        from engine.core.errors import InputError
        from engine.rulesets import available, get_ruleset

        console = Console(stderr=as_json)
        if not console.is_terminal:
            console.width = max(console.width, 110)

        def fail(message: str, code: int = 2):
            console.print(f"[red]{message}[/red]", highlight=False)
            raise typer.Exit(code)

        train_env = None
        if config is not None:
            from agents.config import ConfigError, load_config
            try:
                cfg = load_config(config)
            except ConfigError as e:
                fail(str(e))
            if ruleset is not None and ruleset != cfg.ruleset:
                fail(f"{config} trains ruleset '{cfg.ruleset}', not '{ruleset}'")
            ruleset = ruleset or cfg.ruleset
            train_env = cfg.env.trained_on()
        bound = {rid for rid in map(model_ruleset, [policy, *vs]) if rid}
        if ruleset is None:
            if len(bound) != 1:
                fail(f"give --ruleset (one of {', '.join(sorted(available()))}): "
                     + ("no model among the policies names one" if not bound else
                        f"the models play different rulesets ({', '.join(sorted(bound))})"))
            ruleset = bound.pop()
        if ruleset not in available():
            fail(f"unknown ruleset '{ruleset}'; available: {', '.join(sorted(available()))}")
        rs = get_ruleset(ruleset)
        limit = round_limit or (None if encounter else DEFAULT_ROUND_LIMIT)  # None: each file's own
        try:
            learner = load_policy(policy, rs, seed=seed)
            opponents = {v: load_policy(v, rs, seed=seed + 1) for v in vs}
            source = source_for(learner, rs, encounter, limit, train_env)
        except (InputError, ImportError, KeyError) as e:
            fail(str(e))
        results, controls = {}, {}
        for name, opp in opponents.items():
            try:
                probe = load_policy("heuristic", rs, seed=seed) if agreement else None
                results[name], _ = evaluate(learner, opp, rs, episodes, seed, source, workers=workers, probe=probe)
                if control:
                    controls[name], _ = evaluate(load_policy("heuristic", rs, seed=seed), opp, rs, episodes, seed,
                                                 source, workers=workers)
            except WorkerDied as e:
                fail(str(e), 1)
            except InputError as e:  # a model that cannot see an encounter
                fail(str(e))
        if as_json:
            out = {"format": FORMAT, "policy": policy, "ruleset": ruleset, "seed": seed, "episodes": episodes,
                   "round_limit": limit, "encounters": [str(p) for p in encounter] or None,
                   "config": str(config) if config is not None else None,
                   "results": [{"opponent": name, **s, "control": card_summary(controls[name]) if control else None,
                                "agreement": s.get("agreement")} for name, s in results.items()]}
            print(json.dumps(out, indent=2))
            return
        t = Table(title=f"{policy} on {ruleset}: {episodes} episodes per opponent, seeds from {seed}, both seats, "
                        + (f"{limit} rounds" if limit else "each file's round limit"),
                  caption="win / draw / loss: rate [95% Wilson interval, %]; dealt / taken: damage per battle; "
                          "lost: own units down per battle")
        for col in ("vs", "win", "draw", "loss", "rounds", "dealt", "taken", "lost"):
            t.add_column(col, justify="left" if col == "vs" else "right", no_wrap=True)

        def pct(s, key):
            lo, hi = s[f"{key}_rate_ci95"]
            return f"{s[f'{key}_rate']:.1%} [{lo * 100:.0f}-{hi * 100:.0f}]"

        rows = list(results.items())
        if control:  # each opponent's control row under its own
            rows = [r for name, s in results.items() for r in ((name, s), ("  control (heuristic)", controls[name]))]
        for name, s in rows:
            t.add_row(name, pct(s, "win"), pct(s, "draw"), pct(s, "loss"), f"{s['mean_rounds']:.1f}",
                      f"{s['damage_dealt']:.1f}", f"{s['damage_taken']:.1f}", f"{s['units_lost']:.2f}")
        console.print(t)
        for name, s in results.items():  # why its draws are draws
            kinds = s.get("draws_by_kind") or {}
            if s["draws"]:
                console.print(f"  vs {name}, draws: {kinds.get('round_limit', 0)} at the round limit, "
                              f"{kinds.get('none_standing', 0)} with no side left standing",
                              highlight=False)
        for name, s in results.items():  # where it departs from the heuristic's choices
            a = s.get("agreement")
            if a:
                parts = ", ".join(f"{d['policy']} " + ("on another square or target" if d["probe"] == SAME_ACTION
                                                         else f"for {d['probe']}") + f" {d['share']:.1%}"
                                  for d in a["departures"][:5])
                console.print(f"  vs {name}, the heuristic's own choice on {a['rate']:.1%} of {a['decisions']} "
                              f"decisions (its action {a['same_action_rate']:.1%}); departs most: {parts}",
                              highlight=False)
        for name, s in results.items():  # where it wins and loses: by the units a side (the policy's side first)
            if len(s["by_size"]) > 1:
                sizes = ", ".join(f"{z} {v['win_rate']:.1%} ({v['episodes']})" for z, v in s["by_size"].items())
                console.print(f"  vs {name}, win rate by size: {sizes}", highlight=False)
