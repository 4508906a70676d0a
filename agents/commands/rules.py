"""`tactician rules [RULESET] [--json]`: the rulesets, or one ruleset's actions with cost, text and source."""
from __future__ import annotations

import json

import typer


def ruleset_rows() -> list[dict]:
    from engine.rulesets import available

    return [{"id": rs.id, "name": rs.name, "actions": len(rs.catalogue), "rules_file": rs.rules_file,
             "sides": list(rs.sides), "phases": list(rs.phases)} for rs in sorted(available().values(), key=lambda r: r.id)]


def action_rows(ruleset) -> list[dict]:
    return [{"key": s.key, "name": s.name, "cost": s.cost, "times": s.times, "target": s.target,
             "options": s.options, "text": s.text, "source": s.source} for s in ruleset.catalogue.values()]


def register(app: typer.Typer) -> None:
    @app.command()
    def rules(ruleset: str = typer.Argument(None, help="a ruleset id (omit to list the rulesets)"),
              as_json: bool = typer.Option(False, "--json", help="print JSON")):
        """The rulesets, or one ruleset's actions: cost, what it targets, the rules text and where it comes from."""
        from rich.console import Console
        from rich.table import Table

        from engine.rulesets import available

        if ruleset is None:
            rows = ruleset_rows()
            if as_json:
                typer.echo(json.dumps(rows, indent=2))
                return
            t = Table(title="Rulesets")
            for c in ("id", "name", "actions", "rules file"):
                t.add_column(c)
            for r in rows:
                t.add_row(r["id"], r["name"], str(r["actions"]), r["rules_file"])
            Console().print(t)
            return
        rs = available().get(ruleset)
        if rs is None:
            typer.echo(f"unknown ruleset '{ruleset}'; known: {', '.join(sorted(available()))}", err=True)
            raise typer.Exit(2)
        rows = action_rows(rs)
        if as_json:
            typer.echo(json.dumps({"ruleset": rs.id, "name": rs.name, "rules_file": rs.rules_file,
                                   "economy": dict(rs.economy.slots), "actions": rows}, indent=2))
            return
        econ = ", ".join(f"{v} {k}" for k, v in rs.economy.slots.items())
        t = Table(title=f"{rs.name} ({rs.id}): per turn {econ}", show_lines=True)
        for c in ("action", "cost", "target", "rules text", "source"):
            t.add_column(c, overflow="fold")
        for r in rows:
            cost = r["cost"].replace("_", "-") + (f" x{r['times']}" if r["times"] > 1 else "")
            t.add_row(f"{r['name']}\n[dim]{r['key']}[/dim]", cost, r["target"], r["text"], r["source"])
        Console().print(t)
