"""Nothing lost: every change is written to the session's file, and a server started on the same folder resumes
each session as it was (its log, vetoes, undo steps and a decision waiting for a die)."""
from __future__ import annotations

import json

from fastapi.testclient import TestClient

from agents.serve import Registry, create_app

from .conftest import create, post

NPCS_FIRST = {"Trooper 1": 30, "Trooper 2": 29, "Kira": 2, "Dax": 1}
KEYS = ("round", "units", "order", "actor", "legal", "question", "undo", "log", "decisions", "version")


def _restart(folder):
    registry = Registry(folder)
    assert registry.load_all() == []
    return registry, TestClient(create_app(registry))


def test_a_restarted_server_resumes_the_session_as_it_was(client, folder):
    s = create(client, initiative=NPCS_FIRST)
    sid = s["id"]
    s = post(client, sid, "accept")
    post(client, sid, "hp", {"unit": "Kira", "hp": 9})
    s = post(client, sid, "veto")
    assert s["proposal"]["vetoed"]
    registry2, client2 = _restart(folder)
    again = client2.get(f"/api/sessions/{sid}").json()
    assert {k: again[k] for k in KEYS} == {k: s[k] for k in KEYS}
    assert again["proposal"]["vetoed"] == s["proposal"]["vetoed"]
    assert again["proposal"]["decision"] == s["proposal"]["decision"]
    s2 = post(client2, sid, "undo")
    assert s2["messages"][0].startswith("Undone: hp Kira 9") and s2["units"][0]["hp"] == s["units"][0]["max_hp"]
    s3 = post(client2, sid, "undo")
    assert s3["messages"][0].startswith("Undone: Trooper 1: ") and s3["decisions"] == 0


def test_a_decision_waiting_for_a_die_survives_a_restart(client, folder):
    s = create(client, initiative={"Kira": 20, "Dax": 19, "Trooper 1": 3, "Trooper 2": 2}, npcs="random",
               dice="manual")
    sid = s["id"]
    post(client, sid, "decision", {"command": 'shoot "Trooper 1"'})
    waiting = post(client, sid, "dice", {"faces": [15]})
    assert "damage" in waiting["question"]["prompt"]
    _, client2 = _restart(folder)
    again = client2.get(f"/api/sessions/{sid}").json()
    assert again["question"] == waiting["question"] and again["waiting_for"] == "question"
    done = post(client2, sid, "dice", {"faces": [2, 3, 4]})
    assert done["units"][2]["hp"] == 18 - (2 + 3 + 4 + 1) and done["question"] is None


def _step(client, sid):
    s = client.get(f"/api/sessions/{sid}").json()
    return post(client, sid, "accept") if s["proposal"] else post(client, sid, "decision", {"command": "end"})


def test_seeded_play_after_a_restart_rolls_as_without_one(client, folder, tmp_path):
    """The dice's and the choosers' generators are in the file: the battle goes on as if never stopped."""
    s = create(client, initiative=NPCS_FIRST, seed=5, npcs="random", pcs="random")
    sid = s["id"]
    _step(client, sid)
    _, client2 = _restart(folder)
    with TestClient(create_app(Registry(tmp_path / "other"))) as control:
        cid = create(control, initiative=NPCS_FIRST, seed=5, npcs="random", pcs="random")["id"]
        _step(control, cid)
        for _ in range(12):
            a, b = _step(client2, sid), _step(control, cid)
            assert [u["hp"] for u in a["units"]] == [u["hp"] for u in b["units"]]
            assert [e["text"] for e in a["log"]] == [e["text"] for e in b["log"]]


def test_a_broken_session_file_is_reported_and_the_others_resume(client, folder):
    s = create(client)
    (folder / "broken.json").write_text("{not json")
    (folder / "other.json").write_text(json.dumps({"format": "something else"}))
    registry = Registry(folder)
    problems = registry.load_all()
    assert len(problems) == 2 and any("broken.json" in p for p in problems) and any("other.json" in p for p in problems)
    assert list(registry.entries) == [s["id"]]
