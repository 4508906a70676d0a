"""Shared setup of the server's tests: a registry writing to a temporary folder, the app's test client (no
sockets), encounters of Saga and of every toy ruleset, and helpers to play through the API."""
from __future__ import annotations

import pytest
import yaml
from fastapi.testclient import TestClient

from agents.serve import Registry, create_app

from ..autopilot.conftest import YARD

TOY_UNITS = {
    "toy_5e": [("Hero", "pcs", "fighter", [1, 2]), ("Gob", "npcs", "goblin", [6, 2]), ("Gab", "npcs", "goblin", [7, 3])],
    "toy_rise": [("Ava", "pcs", "warrior", [1, 2]), ("Bo", "pcs", "archer", [0, 4]), ("Orc", "npcs", "warrior", [7, 2])],
    "toy_starship": [("Wing", "pcs", "fighter", [1, 2]), ("Hulk", "npcs", "corvette", [8, 2])],
}


def toy_yaml(rid: str) -> str:
    """A small open map with the toy ruleset's units."""
    units = [{"name": n, "side": s, "template": t, "at": at} for n, s, t, at in TOY_UNITS[rid]]
    rows = ["..........", "....c.....", "..........", "....~.....", ".........."]
    return yaml.safe_dump({"ruleset": rid, "name": f"{rid} test", "map": "\n".join(rows) + "\n", "units": units},
                          sort_keys=False)


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "sessions"


@pytest.fixture
def registry(folder):
    return Registry(folder)


@pytest.fixture
def client(registry):
    with TestClient(create_app(registry)) as c:
        yield c


def create(client, **body):
    """POST /api/sessions; the state, asserting it was made."""
    body.setdefault("encounter_yaml", YARD)
    r = client.post("/api/sessions", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def post(client, sid: str, what: str, body=None, status: int = 200):
    r = client.post(f"/api/sessions/{sid}/{what}", json=body if body is not None else {})
    assert r.status_code == status, r.text
    return r.json()
