"""The HTTP API end to end, on Saga, on every toy ruleset and on every shipped ruleset's encounter with its shipped
policy: the state drawn from the grid, the units and the
ruleset; legal decisions from the battle's own enumeration; decisions, refusals with the rule's reason,
proposals, vetoes, suggest, corrections, undo, save and load."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.core.decision import END, Decision
from engine.core.grid import TERRAINS
from engine.rulesets import get_ruleset

from agents.autopilot.core import read_session
from agents.autopilot.planner import FORMAT, decision_json
from agents.autopilot.words import command_for

from ..autopilot.conftest import YARD
from .conftest import TOY_UNITS, create, post, toy_yaml

ROOT = Path(__file__).resolve().parents[2]
INIT = {"Kira": 20, "Dax": 19, "Trooper 1": 3, "Trooper 2": 2}


def _live(registry, sid):
    return registry.get(sid).live


def test_the_state_shows_the_map_units_order_and_the_acting_unit(client, registry):
    s = create(client, initiative=INIT, npcs="random")
    live = _live(registry, s["id"])
    enc, rs = live.enc, live.ruleset
    g = enc.grid
    assert s["map"]["width"] == g.width and s["map"]["kinds"] == list(TERRAINS)
    assert [[s["map"]["kinds"][c] for c in row] for row in s["map"]["rows"]] == \
        [[g.kind(g.index(x, y)) for x in range(g.width)] for y in range(g.height)]
    assert s["map"]["kinds"][s["map"]["rows"][2][3]] == "low_cover"
    assert [u["name"] for u in s["units"]] == ["Kira", "Dax", "Trooper 1", "Trooper 2"]
    assert s["units"][3]["hp"] == 6 and s["units"][0]["summary"] == json.loads(json.dumps(rs.unit_summary(enc.units[0])))
    assert [o["name"] for o in s["order"]] == ["Kira", "Dax", "Trooper 1", "Trooper 2"]
    assert s["order"][0]["acting"] and s["order"][0]["initiative"] == 20
    assert s["actor"]["name"] == "Kira" and s["actor"]["budget"] == enc.budget and s["waiting_for"] == "gm"
    assert s["round"] == 1 and s["proposal"] is None
    assert {"kind": "heading", "text": "Initiative"} in s["log"]


def test_legal_decisions_are_the_battles_own_list_in_the_rulesets_words(client, registry):
    s = create(client, initiative=INIT, npcs="random")
    live = _live(registry, s["id"])
    legal = live.battle.legal()
    got = client.get(f"/api/sessions/{s['id']}/legal").json()
    assert [d["decision"] for d in got["decisions"]] == [decision_json(d) for d in legal]
    assert [d["command"] for d in got["decisions"]] == [command_for(d, live.enc, live.ruleset) for d in legal]
    assert [d["text"] for d in got["decisions"]] == [live.ruleset.describe(d, live.enc) for d in legal]
    shoot = next(d for d in got["decisions"] if d["decision"]["target"] == 2 and d["action"] == "ranged_attack")
    assert 0 < shoot["estimate"]["hit_chance"] <= 1 and shoot["estimate"]["expected_damage"] > 0
    assert any(line.startswith("move X Y") for line in got["listing"])
    assert s["legal"] == got


def test_a_decision_plays_and_an_illegal_one_is_refused_with_the_rules_reason(client, registry):
    s = create(client, initiative=INIT, npcs="random")
    sid = s["id"]
    live = _live(registry, sid)
    wall = Decision("move", square=(0, 0))
    r = client.post(f"/api/sessions/{sid}/decision", json={"decision": {"action": "move", "square": [0, 0]}})
    assert r.status_code == 409
    err = r.json()
    assert err["error"] == "not legal: " + live.ruleset.why_illegal(live.enc, live.enc.actor, wall)
    assert err["field"] == "decision" and "/legal" in err["fix"]
    assert client.get(f"/api/sessions/{sid}").json()["version"] == s["version"]  # nothing changed
    s = post(client, sid, "decision", {"decision": {"action": "move", "square": [2, 2]}})
    assert s["units"][0]["pos"] == [2, 2] and any("Kira moves" in e["text"] for e in s["log"])
    s = post(client, sid, "decision", {"command": "move 3 2"})
    assert s["units"][0]["pos"] == [3, 2]
    r = client.post(f"/api/sessions/{sid}/decision", json={"command": "flibber"})
    assert r.status_code == 422 and r.json()["field"] == "command" and "not an action" in r.json()["error"]
    s = post(client, sid, "undo")
    assert s["units"][0]["pos"] == [2, 2] and "Undone: Kira: move 3 2" in s["messages"][0]


def test_npc_turns_propose_and_a_veto_gives_the_next_best_never_the_vetoed(client, registry):
    s = create(client, initiative={"Trooper 1": 30, "Trooper 2": 29, "Kira": 2, "Dax": 1})
    sid = s["id"]
    assert s["waiting_for"] == "proposal" and s["actor"]["name"] == "Trooper 1"
    p = s["proposal"]
    assert p["command"] and p["text"] and 0 < p["probability"] <= 1
    legal = [d["decision"] for d in s["legal"]["decisions"]]
    assert p["decision"] in legal and all(a["decision"] in legal for a in p["alternatives"])
    vetoed = []
    for _ in range(3):
        vetoed.append(s["proposal"]["decision"])
        s = post(client, sid, "veto")
        assert s["proposal"]["decision"] not in vetoed or s["proposal"]["decision"] == decision_json(END)
        assert [v["decision"] for v in s["proposal"]["vetoed"]] == sorted(vetoed, key=lambda d: repr(
            Decision.from_dict({k: v for k, v in d.items() if v is not None})))
    assert sum(e["kind"] == "note" and e["text"].startswith("GM vetoed") for e in s["log"]) == 3
    before = len(s["log"])
    chosen = s["proposal"]["decision"]
    s = post(client, sid, "accept")
    assert len(s["log"]) > before and s["decisions"] == 1
    live = _live(registry, sid)
    if live.enc.actor is not None and live.enc.actor.name == "Trooper 1":  # still its turn: its vetoes stand
        assert chosen not in [d["decision"] for d in s["proposal"]["vetoed"]]


def test_an_npc_can_be_given_another_legal_decision(client, registry):
    s = create(client, initiative={"Trooper 1": 30, "Trooper 2": 29, "Kira": 2, "Dax": 1})
    sid = s["id"]
    other = next(d for d in s["legal"]["decisions"] if d["decision"] != s["proposal"]["decision"]
                 and d["decision"]["square"] is not None)
    s = post(client, sid, "decision", {"decision": other["decision"]})
    assert s["units"][2]["pos"] == other["decision"]["square"]


def test_accept_and_veto_are_refused_on_the_gms_turn(client):
    s = create(client, initiative=INIT)
    for what in ("accept", "veto"):
        r = client.post(f"/api/sessions/{s['id']}/{what}", json={})
        assert r.status_code == 422 and "GM's to play" in r.json()["error"]


def test_suggest_plans_the_whole_turn_and_changes_nothing(client, registry):
    s = create(client, initiative={"Trooper 1": 30, "Trooper 2": 29, "Kira": 2, "Dax": 1})
    sid = s["id"]
    before = json.dumps(_live(registry, sid).enc.to_dict(), sort_keys=True)
    plan = post(client, sid, "suggest", {"explain": True})
    assert plan["format"] == FORMAT and plan["actor"]["name"] == "Trooper 1" and plan["decisions"]
    assert all("alternatives" in e and "estimate" in e for e in plan["decisions"])
    assert json.dumps(_live(registry, sid).enc.to_dict(), sort_keys=True) == before
    r = client.post(f"/api/sessions/{sid}/suggest", json={"policy": "bogus"})
    assert r.status_code == 422 and r.json()["field"] == "policy"


def test_corrections_apply_are_refused_with_the_field_and_undo(client, registry):
    s = start = create(client, initiative=INIT, npcs="random")
    sid = s["id"]
    s = post(client, sid, "hp", {"unit": "Trooper 1", "hp": 4})
    assert s["units"][2]["hp"] == 4 and s["messages"] == ["GM: Trooper 1 at 4/18 HP"]
    s = post(client, sid, "place", {"unit": 1, "square": [5, 3]})
    assert s["units"][1]["pos"] == [5, 3]
    r = client.post(f"/api/sessions/{sid}/place", json={"unit": 1, "square": [0, 0]})
    assert r.status_code == 422 and r.json()["field"] == "square" and "wall" in r.json()["error"]
    r = client.post(f"/api/sessions/{sid}/place", json={"unit": 1, "square": [7, 3]})
    assert r.status_code == 422 and "Trooper 1 stands at" in r.json()["error"]
    s = post(client, sid, "condition", {"unit": "Dax", "condition": "prone"})
    assert s["units"][1]["flags"]["prone"] is True
    r = client.post(f"/api/sessions/{sid}/condition", json={"unit": "Dax", "condition": "sleepy"})
    assert r.status_code == 422 and r.json()["field"] == "condition" and "prone" in r.json()["fix"]
    s = post(client, sid, "set", {"unit": "Kira", "key": "ct", "value": 2})
    assert s["units"][0]["numbers"]["ct"] == 2
    r = client.post(f"/api/sessions/{sid}/set", json={"unit": "Kira", "key": "ct", "value": 9})
    assert r.status_code == 422 and r.json()["field"] == "key"
    r = client.post(f"/api/sessions/{sid}/hp", json={"unit": "Nobody", "hp": 3})
    assert r.status_code == 422 and r.json()["field"] == "unit" and "Kira" in r.json()["fix"]
    s = post(client, sid, "command", {"line": "hp Dax 0"})
    assert s["units"][1]["down"] is True
    for _ in range(5):
        s = post(client, sid, "undo")
    assert [u["hp"] for u in s["units"]] == [u["hp"] for u in start["units"]]
    assert s["units"][1]["pos"] == [1, 4] and s["units"][1]["flags"]["prone"] is False
    assert s["units"][0]["numbers"]["ct"] == 0


def test_save_gives_a_session_the_terminal_reads_and_load_resumes_it(client, registry, tmp_path):
    s = create(client, initiative={"Trooper 1": 30, "Trooper 2": 29, "Kira": 2, "Dax": 1})
    sid = s["id"]
    s = post(client, sid, "veto")
    vetoed = s["proposal"]["vetoed"][0]["decision"]
    saved = client.get(f"/api/sessions/{sid}/save").json()
    assert saved["autopilot"]["vetoed"] and saved["units"][0]["name"] == "Kira"
    path = tmp_path / "battle.json"
    told = post(client, sid, "save", {"path": str(path)})
    assert told["messages"] == [f"Saved to {path}."] and read_session(path).enc.units[2].name == "Trooper 1"
    s2 = create(client, state=saved, encounter_yaml=None)
    assert s2["id"] != sid and s2["round"] == s["round"] and s2["actor"]["name"] == "Trooper 1"
    assert [u["pos"] for u in s2["units"]] == [u["pos"] for u in s["units"]]
    assert s2["proposal"]["vetoed"][0]["decision"] == vetoed and s2["proposal"]["decision"] != vetoed
    s3 = create(client, saved=str(path), encounter_yaml=None)
    assert s3["actor"]["name"] == "Trooper 1"
    r = client.post(f"/api/sessions/{sid}/save", json={"path": str(tmp_path / "no" / "such" / "dir.json")})
    assert r.status_code == 422 and r.json()["field"] == "path"


def _play(client, sid, s, steps):
    """Play decisions through the API: proposals accepted, the PCs' reactions taken, the GM's turns the first legal
    decision that is not the end of the turn (then the end)."""
    seen = set()
    for n in range(steps):
        if s["waiting_for"] == "over":
            break
        if s["waiting_for"] == "proposal":
            s = post(client, sid, "accept")
        elif s["waiting_for"] == "question":  # a PC's reaction: taken
            s = post(client, sid, "reaction", {"choice": 0})
        else:
            ds = [d for d in s["legal"]["decisions"] if d["action"] != "end_turn"]
            key = (s["round"], s["actor"]["id"])
            pick = ds[0]["decision"] if ds and key not in seen else decision_json(END)
            seen.add(key)
            s = post(client, sid, "decision", {"decision": pick})
    return s


@pytest.mark.parametrize("rid", sorted(TOY_UNITS))
def test_a_toy_ruleset_plays_through_the_api(client, registry, rid):
    s = create(client, encounter_yaml=toy_yaml(rid), npcs="heuristic")
    sid = s["id"]
    rs = get_ruleset(rid)
    assert s["ruleset"]["id"] == rid and s["ruleset"]["phases"] == list(rs.phases)
    assert [u["name"] for u in s["units"]] == [n for n, *_ in TOY_UNITS[rid]]
    live = _live(registry, sid)
    if s["waiting_for"] == "gm":
        assert [d["decision"] for d in s["legal"]["decisions"]] == [decision_json(d) for d in live.battle.legal()]
    s = _play(client, sid, s, 40)
    assert s["waiting_for"] == "over" or (s["decisions"] >= 10 and s["round"] > 1)
    assert sum(e["kind"] == "item" for e in s["log"]) >= s["decisions"]
    if s["waiting_for"] == "proposal":
        assert s["proposal"]["decision"] in [d["decision"] for d in s["legal"]["decisions"]]


SHIPPED_ENCOUNTERS = {"starfinder": "spike_docks_ambush", "swurpg": "cantina_shootout",
                      "starship": "asteroid_ambush", "rise": "goblin_ambush"}


@pytest.mark.parametrize("rid", sorted(SHIPPED_ENCOUNTERS))
def test_every_ruleset_plays_through_the_api_with_its_shipped_policy(client, registry, rid):
    """A GM-written encounter of each ruleset, the NPCs proposed by zoo:<rid>: the legal list is the battle's own,
    every proposal is one of the legal decisions, and the battle goes on past its first round."""
    path = ROOT / "configs" / "encounters" / rid / f"{SHIPPED_ENCOUNTERS[rid]}.yaml"
    s = create(client, encounter_yaml=path.read_text(), npcs=f"zoo:{rid}")
    sid = s["id"]
    assert s["ruleset"]["id"] == rid
    proposals = 0
    for _ in range(6):
        live = _live(registry, sid)
        if s["waiting_for"] == "proposal":
            assert s["proposal"]["decision"] in [d["decision"] for d in s["legal"]["decisions"]]
            proposals += 1
        if s["waiting_for"] in ("gm", "proposal"):
            assert [d["decision"] for d in s["legal"]["decisions"]] == [decision_json(d) for d in live.battle.legal()]
        s = _play(client, sid, s, 8)
    assert proposals > 0 and (s["waiting_for"] == "over" or s["round"] > 1), s["waiting_for"]


def test_a_whole_saga_battle_plays_to_its_end_through_the_api(client):
    s = create(client, initiative=INIT, npcs="heuristic")
    s = _play(client, s["id"], s, 400)
    assert s["waiting_for"] == "over" and s["winner"] in ("pcs", "npcs", "draw")
    assert s["actor"] is None and s["legal"]["decisions"] == []
    r = client.post(f"/api/sessions/{s['id']}/accept", json={})
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_unknown_sessions_are_404_naming_the_session(client):
    for method, what in [("get", ""), ("get", "/legal"), ("get", "/log"), ("post", "/accept"), ("post", "/undo"),
                         ("get", "/save"), ("delete", ""), ("get", "/events")]:
        r = getattr(client, method)(f"/api/sessions/nope{what}")
        assert r.status_code == 404 and r.json()["field"] == "session" and "GET /api/sessions" in r.json()["fix"]


def test_sessions_are_listed_and_deleted_with_their_file(client, folder):
    s = create(client)
    assert (folder / f"{s['id']}.json").exists()
    assert [x["id"] for x in client.get("/api/sessions").json()] == [s["id"]]
    assert client.delete(f"/api/sessions/{s['id']}").status_code == 200
    assert client.get("/api/sessions").json() == [] and not (folder / f"{s['id']}.json").exists()


def test_create_names_the_source_that_is_wrong(client):
    cases = [({"encounter": "nope.yaml"}, "encounter", "no such file"),
             ({"encounter_yaml": "ruleset: saga\nmap: |\n  ..\n"}, "encounter_yaml", "units"),
             ({"encounter": "a.yaml", "encounter_yaml": "x"}, "encounter", "exactly one"),
             ({}, "encounter", "exactly one"),
             ({"state": {"format": "nope"}}, "state", "format"),
             ({"encounter_yaml": YARD, "npcs": "bogus"}, "npcs", "unknown policy"),
             ({"encounter_yaml": YARD, "pcs": "bogus"}, "pcs", "unknown policy"),
             ({"encounter_yaml": YARD, "dice": "loaded"}, "dice", "seeded"),
             ({"encounter_yaml": YARD, "initiative": {"Nobody": 3}}, "initiative.Nobody", "no unit")]
    for body, field, words in cases:
        r = client.post("/api/sessions", json=body)
        assert r.status_code == 422, (body, r.text)
        err = r.json()
        assert err["field"].startswith(field) and words in err["error"] + err["fix"], (body, err)
