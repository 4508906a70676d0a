"""`tactician autopilot ENCOUNTER`: the GM's session, or a whole battle played by policies."""
from __future__ import annotations

import typer

DIFFICULTIES = ("easy", "normal", "hard", "deadly")


def register(app: typer.Typer) -> None:
    @app.command()
    def autopilot(encounter: str = typer.Argument(..., help="encounter YAML (or a saved session JSON)"),
                  npcs: str = typer.Option("heuristic", "--npcs", help="POLICY for the NPCs: random, heuristic, anticipating, "
                                                                        "zoo:<ruleset> or a model .zip"),
                  pcs: str = typer.Option("gm", "--pcs", help="gm (you type the PCs' turns) or a POLICY"),
                  dice: str = typer.Option("auto", "--dice", help="auto (rolled, faces shown) or manual (typed in)"),
                  difficulty: str = typer.Option("deadly", "--difficulty",
                                                 help="easy | normal | hard | deadly (the policy's best)"),
                  seed: int = typer.Option(0, "--seed", help="seed for dice, initiative and sampling"),
                  load: str = typer.Option(None, "--load", help="resume a session saved with `save FILE`"),
                  log: str = typer.Option(None, "--log", help="write the battle as Markdown to this file"),
                  plain: bool = typer.Option(False, "--plain", help="plain-text map (no colours)"),
                  round_limit: int = typer.Option(0, "--round-limit", min=0,
                                                  help="override the encounter's round limit")):
        """Run a battle. With --pcs gm (the default) you play the PCs in short words, approve, veto or replace
        each NPC decision, and say whether a PC takes a reaction an NPC provokes (an attack of opportunity); with
        --pcs POLICY the whole battle plays itself and is printed."""
        from engine.core.errors import InputError
        from engine.core.encounter_file import load_encounter
        from engine.rulesets import get_ruleset

        from agents.autopilot import Session, read_session, resolve_policy
        from agents.render import map_rich

        if dice not in ("auto", "manual"):
            raise typer.BadParameter("use auto or manual", param_hint="--dice")
        if difficulty not in DIFFICULTIES:
            raise typer.BadParameter(f"use one of {', '.join(DIFFICULTIES)}", param_hint="--difficulty")
        warn = lambda m: typer.echo(m, err=True)  # noqa: E731
        try:
            src = load or encounter
            saved = read_session(src) if src.lower().endswith(".json") else None
            enc = saved.enc if saved is not None else load_encounter(src)
            rs = get_ruleset(enc.ruleset)
            if round_limit:
                enc.round_limit = round_limit
            npc_policy = resolve_policy(npcs, rs, seed, warn, enc)
            pc_policy = None if pcs == "gm" else resolve_policy(pcs, rs, seed + 1, warn, enc)
        except InputError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2)
        show = None
        if not plain:
            from rich.console import Console
            console = Console()
            show = lambda enc_: console.print(map_rich(enc_, rs))  # noqa: E731
        # a battle the policies play alone asks nothing, unless Ctrl-C stops it: then it offers to save
        session = Session(enc, rs, npc_policy, pc_policy, dice=dice, difficulty=difficulty, seed=seed,
                          ask=input, say=typer.echo, show=show)
        if saved is not None:
            session.resume(saved)
        result = session.run()
        if log:
            path = session.log.write(log)
            typer.echo(f"Battle log written to {path}")
        if result.quit and result.winner is None:
            raise typer.Exit(0)
