"""Live updates and manual dice: every page open on a session gets each change as a server-sent event (two tabs
stay in step); with manual dice a decision waits at each die for its face, shows what it has done so far, and
can be taken back whole."""
from __future__ import annotations

import json

from .conftest import create, post

INIT = {"Kira": 20, "Dax": 19, "Trooper 1": 3, "Trooper 2": 2}


def _events(lines):
    """The states of a server-sent event stream, as they come."""
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "state":
            yield json.loads(line[6:])


def test_every_open_page_gets_each_change(client):
    s = create(client, initiative=INIT, npcs="random")
    sid = s["id"]
    with client.stream("GET", f"/api/sessions/{sid}/events") as one, \
            client.stream("GET", f"/api/sessions/{sid}/events") as two:
        assert one.headers["content-type"].startswith("text/event-stream")
        tab1, tab2 = _events(one.iter_lines()), _events(two.iter_lines())
        first1, first2 = next(tab1), next(tab2)
        assert first1["version"] == first2["version"] == s["version"]
        moved = post(client, sid, "decision", {"command": "move 2 2"})
        got1, got2 = next(tab1), next(tab2)
        assert got1["version"] == got2["version"] == moved["version"] > s["version"]
        assert got1["units"][0]["pos"] == got2["units"][0]["pos"] == [2, 2]
        post(client, sid, "hp", {"unit": "Dax", "hp": 5})
        assert next(tab2)["units"][1]["hp"] == 5 and next(tab1)["units"][1]["hp"] == 5
        r = client.post(f"/api/sessions/{sid}/decision", json={"command": "move 0 0"})  # refused: no event
        assert r.status_code == 409
        post(client, sid, "undo")
        back = next(tab1)
        assert back["units"][1]["hp"] == s["units"][1]["hp"] and back["messages"][0].startswith("Undone: hp Dax 5")


def test_manual_dice_ask_each_face_and_show_the_hit_before_the_damage(client, registry):
    s = create(client, initiative=INIT, npcs="random", dice="manual")
    sid = s["id"]
    assert s["waiting_for"] == "gm" and s["question"] is None  # the totals given: no initiative die
    s = post(client, sid, "decision", {"command": 'shoot "Trooper 1"'})
    q = s["question"]
    assert s["waiting_for"] == "question" and q["kind"] == "die" and q["sides"] == 20 and "Kira" in q["prompt"]
    assert s["units"][2]["hp"] == 18 and s["legal"]["decisions"] == []
    r = client.post(f"/api/sessions/{sid}/decision", json={"command": "end"})
    assert r.status_code == 409 and r.json()["field"] == "faces" and "/dice" in r.json()["fix"]
    r = client.post(f"/api/sessions/{sid}/dice", json={"faces": [21]})
    assert r.status_code == 422 and r.json()["field"] == "faces[0]" and "1 to 20" in r.json()["fix"]
    s = post(client, sid, "dice", {"faces": [15]})
    q = s["question"]
    assert q["sides"] == 6 and "damage" in q["prompt"]
    assert any("vs Reflex" in line and ": 21 (15+6)" in line and "hit" in line for line in q["shown"]), q
    s = post(client, sid, "dice", {"faces": [2, 3, 4]})
    assert s["question"] is None and s["waiting_for"] == "gm"
    assert s["units"][2]["hp"] == 18 - (2 + 3 + 4 + 1)
    assert any("21 (15+6)" in e["text"] for e in s["log"] if e["kind"] == "item")


def test_a_face_that_cannot_be_is_dropped_with_those_after_it_and_asked_again(client):
    s = create(client, initiative=INIT, npcs="random", dice="manual")
    sid = s["id"]
    post(client, sid, "decision", {"command": 'shoot "Trooper 1"'})
    s = post(client, sid, "dice", {"faces": [15, 9, 1]})  # 9 cannot be a d6
    q = s["question"]
    assert q["sides"] == 6 and "9 is not a possible d6 roll" in q["refused"] and "dropped" in q["refused"]
    assert s["units"][2]["hp"] == 18


def test_undo_at_a_die_takes_the_decision_back_whole(client, registry):
    s = create(client, initiative=INIT, npcs="random", dice="manual")
    sid = s["id"]
    before = json.dumps(registry.get(sid).live.enc.to_dict(), sort_keys=True)
    post(client, sid, "decision", {"command": 'shoot "Trooper 1"'})
    post(client, sid, "dice", {"faces": [15]})
    s = post(client, sid, "undo")
    assert s["question"] is None and s["waiting_for"] == "gm"
    assert "Taken back: Kira: shoot" in s["messages"][0]
    assert json.dumps(registry.get(sid).live.enc.to_dict(), sort_keys=True) == before
    assert not any("15+6" in e["text"] for e in s["log"])


def test_manual_initiative_is_asked_die_by_die(client):
    s = create(client, npcs="random", dice="manual")
    sid = s["id"]
    assert s["waiting_for"] == "question" and "Kira's initiative" in s["question"]["prompt"] and s["order"] == []
    s = post(client, sid, "dice", {"faces": [12, 7]})
    assert "Trooper 1's initiative" in s["question"]["prompt"]
    s = post(client, sid, "dice", {"faces": [5, 3]})
    assert s["question"] is None and s["round"] == 1 and len(s["order"]) == 4
    assert {o["name"]: o["initiative"] for o in s["order"]}["Kira"] > {o["name"]: o["initiative"]
                                                                       for o in s["order"]}["Trooper 2"]


def test_requests_to_a_session_hold_its_lock(client, registry):
    s = create(client, initiative=INIT, npcs="random")
    entry = registry.get(s["id"])
    held = []
    registry.work(s["id"], lambda live: held.append(entry.lock.locked()))
    registry.read(s["id"], lambda live: held.append(entry.lock.locked()))
    assert held == [True, True] and not entry.lock.locked()
