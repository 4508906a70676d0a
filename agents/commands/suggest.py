"""`tactician suggest STATE [--policy POLICY] [--explain] [--seed S]`: the acting unit's turn as JSON."""
from __future__ import annotations

import json
import re
from pathlib import Path

import typer


def read_state(path: str, seed: int | None):
    """An encounter file (YAML; initiative rolled with the seed) or a saved JSON state -> (encounter, ruleset)."""
    from engine.core.battle import Battle
    from engine.core.dice import SeededDice
    from engine.core.encounter_file import load_encounter
    from engine.core.errors import InputError
    from engine.rulesets import get_ruleset

    from agents.autopilot.session import load_state

    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {p}", str(p), "check the path")
    text = p.read_text(errors="replace")
    if p.suffix.lower() in (".yaml", ".yml") or not text.lstrip().startswith(("{", "[")):
        enc = load_encounter(p)
        rs = get_ruleset(enc.ruleset)
        Battle(enc, rs, SeededDice(seed)).start()
        return enc, rs
    enc, _ = load_state(p)  # its ruleset known and its units playable, or InputError
    rs = get_ruleset(enc.ruleset)
    if not enc.order:
        raise InputError("the state has no initiative order (the battle has not started)", f"{p}: order",
                         "give the encounter file instead, or a state saved during play")
    if enc.over:
        raise InputError(f"the battle in this state is over ({enc.winner})", f"{p}: winner")
    actor = enc.actor
    if actor is None or not actor.active:
        raise InputError("the unit whose turn it is is out of the fight", f"{p}: turn")
    for k, v in enc.budget.items():
        if k not in rs.economy.slots or not 0 <= v <= max(rs.economy.slots.values()) * 100:
            raise InputError(f"budget entry {k}={v} does not fit {rs.name}'s economy", f"{p}: budget",
                             f"counters: {', '.join(rs.economy.slots)}")
    return enc, rs


def register(app: typer.Typer) -> None:
    @app.command()
    def suggest(state: str = typer.Argument(..., help="an encounter YAML or a saved state JSON"),
                policy: str = typer.Option("heuristic", "--policy", "-p",
                                           help="random, heuristic, anticipating, zoo:<ruleset> or a model .zip"),
                explain: bool = typer.Option(False, "--explain", help="add alternatives and probabilities"),
                seed: int = typer.Option(0, "--seed", help="seed for initiative and simulated dice")):
        """Print the acting unit's whole turn as one JSON object; changes nothing. Decisions after a
        simulated roll are marked depends_on_roll: ask again once the table has rolled."""
        from engine.core.errors import InputError

        from agents.autopilot.chooser import Chooser
        from agents.autopilot.planner import plan_turn
        from agents.autopilot.policies import resolve_policy

        try:
            enc, rs = read_state(state, seed)
            pol = resolve_policy(policy, rs, seed, warn=lambda m: typer.echo(m, err=True), enc=enc)
            plan = plan_turn(enc, rs, Chooser(pol, "deadly", seed), seed=seed, explain=explain, policy=policy)
        except InputError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            typer.echo(f"error: {state}: the state is inconsistent ({type(e).__name__}: {e})", err=True)
            raise typer.Exit(2)
        # squares and other short number lists on one line: [10, 4], not four lines
        text = re.sub(r"\[\s*(-?[\d.]+(?:,\s*-?[\d.]+)*)\s*\]",
                      lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
                      json.dumps(plan, indent=2))
        typer.echo(text)
