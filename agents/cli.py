"""The `tactician` command line. Each command lives in `agents/commands/<name>.py` exposing `register(app)`."""
from __future__ import annotations

import importlib
import pkgutil

import typer

from agents import commands

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Tactician: AI opponent and tactics trainer for tabletop combat.")

for _mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
    importlib.import_module(f"agents.commands.{_mod}").register(app)

if __name__ == "__main__":
    app()
