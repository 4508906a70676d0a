"""`tactician serve [ENCOUNTER]`: the battle map in a browser and the HTTP JSON API (docs at /docs)."""
from __future__ import annotations

import ipaddress
import secrets
from pathlib import Path

import typer

LOOPBACK = ("localhost",)
DEFAULT_FOLDER = Path.home() / ".local" / "state" / "tactician" / "sessions"


def is_loopback(host: str) -> bool:
    """Whether a bind address reaches this machine only (127.0.0.0/8, ::1, localhost)."""
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(encounter: str = typer.Argument(None, help="encounter YAML to open a session of (omit to serve the "
                                                         "saved sessions only)"),
              npcs: str = typer.Option("heuristic", "--npcs", help="POLICY for the NPCs: random, heuristic, anticipating, "
                                                                    "zoo:<ruleset> or a model .zip"),
              pcs: str = typer.Option("gm", "--pcs", help="gm (you decide the PCs' turns) or a POLICY proposing them"),
              dice: str = typer.Option("seeded", "--dice", help="seeded (rolled here) or manual (the table's, typed "
                                                                "in the page)"),
              difficulty: str = typer.Option("deadly", "--difficulty", help="easy | normal | hard | deadly"),
              seed: int = typer.Option(0, "--seed", help="seed for dice, initiative and sampling"),
              load: str = typer.Option(None, "--load", help="open a session saved with `save FILE` (or GET .../save)"),
              host: str = typer.Option("127.0.0.1", "--host", help="address to listen on; another than this "
                                                                   "machine's needs a token"),
              port: int = typer.Option(8000, "--port", min=0, max=65535),
              token: str = typer.Option(None, "--token", help="the token every request must carry (made up and "
                                                              "printed when --host is not loopback)"),
              sessions: Path = typer.Option(DEFAULT_FOLDER, "--sessions", help="folder the sessions are written to "
                                                                               "after every change, resumed from")):
        """Serve the battle page and the API. Open the printed address in a browser: the map, the initiative, the
        acting unit, its legal decisions (click the unit, then a square or target), NPC proposals to accept or
        veto, corrections, undo and manual dice; two tabs on one session stay in step."""
        import uvicorn

        from agents.serve import Registry, create_app
        from agents.serve.app import ApiError, NewSession

        if dice not in ("seeded", "manual"):
            raise typer.BadParameter("use seeded or manual", param_hint="--dice")
        if not is_loopback(host) and not token:
            token = secrets.token_urlsafe(16)
        registry = Registry(sessions)
        for problem in registry.load_all():
            typer.echo(f"warning: not resumed: {problem}", err=True)
        opened = None
        if encounter or load:
            from agents.serve.app import new_session
            try:
                body = NewSession(**({"saved": load} if load else {"encounter": encounter}), npcs=npcs, pcs=pcs,
                                  dice=dice, difficulty=difficulty, seed=seed)
                opened = new_session(registry, body).live.id
            except ApiError as e:
                typer.echo(f"error: {e.field}: {e.error}" + (f" (fix: {e.fix})" if e.fix else ""), err=True)
                raise typer.Exit(2)
            except ValueError as e:  # the options' own checks (pydantic)
                typer.echo(f"error: {e}", err=True)
                raise typer.Exit(2)
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}/" + (f"?session={opened}" if opened else "")
        if token:
            url += ("&" if opened else "?") + f"token={token}"
        typer.echo(f"Tactician at {url}  (API docs: http://{shown}:{port}/docs; {len(registry.entries)} session(s), "
                   f"written to {sessions})")
        uvicorn.run(create_app(registry, token), host=host, port=port, log_level="warning")
