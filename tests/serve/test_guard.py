"""Bad input and strangers: a fuzz of malformed bodies on every endpoint gets 4xx answers naming the field (never
a 500), and the session plays on; off loopback every request must carry the server's token."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from fastapi.testclient import TestClient

from agents.commands.serve import is_loopback
from agents.serve import Registry, create_app

from ..autopilot.conftest import YARD
from .conftest import create, post

ENDPOINTS = ["decision", "accept", "veto", "suggest", "dice", "reaction", "undo", "command", "hp", "place", "condition",
             "set", "save"]
JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                    max_leaves=12)
# bodies shaped like the real ones, with wrong or odd values: they reach the rules, not only the schema
SHAPED = st.fixed_dictionaries({"decision": st.fixed_dictionaries({
    "action": st.sampled_from(["move", "ranged_attack", "melee_attack", "end_turn", "aim", "fly", ""]),
    "target": st.none() | st.integers(-3, 8), "square": st.none() | st.lists(st.integers(-2, 12), min_size=2,
                                                                             max_size=2),
    "option": st.integers(-2, 5)})}) | st.fixed_dictionaries({
        "unit": st.integers(-2, 6) | st.sampled_from(["Kira", "Trooper", "#2", "", "Nobody"]),
        "hp": st.integers(-50, 50), "square": st.lists(st.integers(-2, 12), min_size=2, max_size=2),
        "condition": st.sampled_from(["prone", "down", "dead", "aimed", "x y", ""]),
        "key": st.sampled_from(["ct", "recover", "hp", "'", ""]), "value": st.integers(-5, 9)}) | \
    st.fixed_dictionaries({"line": st.sampled_from(["move 2 2", "hp Kira 0", "undo", "shoot Nobody", "add Kira x",
                                                    "", "\"", "set Kira ct 99", "place Dax 0 0", "end"])}) | \
    st.fixed_dictionaries({"faces": st.lists(st.integers(-3, 30), max_size=4)}) | \
    st.fixed_dictionaries({"choice": st.integers(-2, 3) | st.booleans() | st.text(max_size=3)})


def _check(r):
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        err = r.json()
        assert set(err) == {"error", "field", "fix"} and err["error"] and isinstance(err["field"], str), err


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(endpoint=st.sampled_from(ENDPOINTS), body=JSON | SHAPED, dice=st.sampled_from(["seeded", "manual"]))
def test_malformed_bodies_get_a_4xx_naming_the_field_and_the_session_plays_on(endpoint, body, dice):
    client = _fuzz_client(dice)
    sid = _fuzz_client.sid[dice]
    if endpoint == "save" and isinstance(body, dict) and "path" in body:
        body = {**body, "path": "/nonexistent/dir/x.json"}
    _check(client.post(f"/api/sessions/{sid}/{endpoint}", json=body))
    state = client.get(f"/api/sessions/{sid}")
    assert state.status_code == 200
    s = state.json()
    if s["waiting_for"] in ("over", "start"):
        _fuzz_client.sid.pop(dice)  # a new battle for the next examples
    elif s["waiting_for"] == "question":
        answer = ("reaction", {"choice": 0}) if s["question"]["kind"] == "reaction" else ("dice", {"faces": [1]})
        _check(client.post(f"/api/sessions/{sid}/{answer[0]}", json=answer[1]))
    else:  # it plays on: something legal is still accepted
        legal = s["legal"]["decisions"][0]["decision"]
        _check(client.post(f"/api/sessions/{sid}/decision", json={"decision": legal}))


def _fuzz_client(dice):
    if not hasattr(_fuzz_client, "client"):
        _fuzz_client.client = TestClient(create_app(Registry(None)))
        _fuzz_client.sid = {}
    if dice not in _fuzz_client.sid:
        init = {"Kira": 20, "Dax": 19, "Trooper 1": 3, "Trooper 2": 2}
        _fuzz_client.sid[dice] = create(_fuzz_client.client, npcs="random", dice=dice, initiative=init)["id"]
    return _fuzz_client.client


@settings(max_examples=40, deadline=None)
@given(raw=st.binary(max_size=40), endpoint=st.sampled_from(ENDPOINTS + ["../sessions"]))
def test_bodies_that_are_not_json_get_a_4xx(raw, endpoint):
    client = _fuzz_client("seeded")
    sid = _fuzz_client.sid["seeded"]
    r = client.post(f"/api/sessions/{sid}/{endpoint}", content=raw, headers={"content-type": "application/json"})
    _check(r)


def test_a_token_is_needed_by_every_request_when_the_server_has_one(tmp_path):
    app = create_app(Registry(tmp_path), token="s3cret")
    with TestClient(app) as c:
        for path in ("/", "/api/sessions", "/docs", "/static/app.js"):
            r = c.get(path)
            assert r.status_code == 401 and r.json()["field"] == "token" and "Authorization" in r.json()["fix"]
        assert c.get("/api/sessions", headers={"Authorization": "Bearer nope"}).status_code == 401
        assert c.get("/api/sessions", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        r = c.post("/api/sessions", json={"encounter_yaml": YARD}, headers={"Authorization": "Bearer s3cret"})
        assert r.status_code == 201
        page = c.get("/?token=s3cret")
        assert page.status_code == 200 and "tactician_token" in page.headers.get("set-cookie", "")
        assert c.get("/api/sessions").status_code == 200  # the page's later requests: the cookie carries it


def test_only_loopback_addresses_go_without_a_token():
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.3.2.1", "::1", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.1.4", "::", "example.org"))


def test_the_page_and_the_docs_are_served_with_nothing_from_the_internet(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text and "/static/app.css" in page.text
    for name in ("app.js", "app.css"):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and "http://" not in r.text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in r.text
    assert "https://" not in page.text and "http://" not in page.text.replace("http://www.w3.org/2000/svg", "")
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/sessions", "/api/sessions/{sid}", "/api/sessions/{sid}/legal", "/api/sessions/{sid}/decision",
              "/api/sessions/{sid}/suggest", "/api/sessions/{sid}/undo", "/api/sessions/{sid}/save",
              "/api/sessions/{sid}/events", "/api/sessions/{sid}/dice", "/api/sessions/{sid}/hp"):
        assert p in paths, p


def test_the_serve_command_is_registered():
    from typer.testing import CliRunner

    from agents.cli import app
    r = CliRunner().invoke(app, ["serve", "--help"])
    assert r.exit_code == 0 and "--dice" in r.output and "--load" in r.output and "--token" in r.output
    r = CliRunner().invoke(app, ["serve", "nope.yaml", "--sessions", "/tmp/tactician-none"])
    assert r.exit_code == 2 and "no such file" in r.output
