"""`tactician serve`: the battle map in a browser and an HTTP JSON API for virtual tabletops, both over the
autopilot's session core (`agents.autopilot.core`): `live` (a session served over HTTP: questions answered by
later requests, a file written after every change), `registry` (sessions by id, their locks and listeners),
`views` (the JSON the page draws), `app` (the FastAPI app), `static/` (the page)."""
from .app import create_app
from .registry import Registry

__all__ = ["create_app", "Registry"]
