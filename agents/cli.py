"""The `tactician` command line. Each command lives in `agents/commands/<name>.py` exposing `register(app)`."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import typer

from agents import commands

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Tactician: AI opponent and tactics trainer for tabletop combat.")


def reflowed(doc: str) -> str:
    """A command's docstring as its --help shows it: the lines of each paragraph joined (the help keeps a
    docstring's line breaks, which then fall mid-line at the terminal's width); indented blocks kept as written."""
    out = []
    for para in inspect.cleandoc(doc).split("\n\n"):
        lines = para.splitlines()
        out.append(para if any(line.startswith(" ") for line in lines) else " ".join(x.strip() for x in lines))
    return "\n\n".join(out)


for _mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
    importlib.import_module(f"agents.commands.{_mod}").register(app)
for _cmd in app.registered_commands:
    if _cmd.help is None and _cmd.callback is not None and _cmd.callback.__doc__:
        _cmd.help = reflowed(_cmd.callback.__doc__)

if __name__ == "__main__":
    app()
