"""Reactions through the API: a PC's attack of opportunity an NPC provokes is a pending question of kind 'reaction'
(its options and their words), answered by POST .../reaction and the decision played again with the answers, as
with dice; refused while waiting, taken back by undo, mixed with manual dice, kept across a restart, and the save
the terminal reads is the state before the waiting decision."""
from __future__ import annotations

import json

import pytest

from engine.core.policy import RandomPolicy
from engine.rulesets import get_ruleset

from agents.autopilot import Session, read_session
from agents.autopilot.core import parse_session

from ..autopilot.conftest import Table
from ..autopilot.reactions import DUELS
from .conftest import create, post
from .test_persist import _restart

INIT = {"Kira": 20}  # Kira first (a Starfinder unit reacts only once it has acted); the NPC's rolled below hers


def _at_npc_turn(client, rid, dice="seeded"):
    """A duel session at the NPC's turn (Kira ended hers): (session id, the NPC's name, the square it walks to)."""
    text, npc, goal = DUELS[rid]
    s = create(client, encounter_yaml=text, npcs="random", dice=dice, initiative={**INIT, npc: 1})
    s = post(client, s["id"], "decision", {"command": "end"})
    assert s["actor"]["name"] == npc and s["waiting_for"] == "proposal"
    return s["id"], npc, goal


def _walk(client, sid, goal):
    return post(client, sid, "decision", {"command": f"move {goal[0]} {goal[1]}"})


def _aoo_asked(s, npc, why="moving out of a threatened square"):
    q = s["question"]
    assert s["waiting_for"] == "question" and q["kind"] == "reaction" and s["legal"]["decisions"] == []
    assert q["prompt"] == f"Kira may take an attack of opportunity on {npc} ({why})"
    assert q["options"] == [{"action": "attack_of_opportunity", "target": 1, "square": None, "option": 0},
                            {"action": "no_reaction", "target": None, "square": None, "option": 0}]
    assert q["labels"] == [f"attack of opportunity on {npc}", "no reaction"] and q["sides"] is None
    return q


@pytest.mark.parametrize("rid", ["saga", "starfinder"])
def test_a_pc_that_declines_lets_the_npc_walk_away_unharmed(client, rid):
    sid, npc, goal = _at_npc_turn(client, rid)
    s = _walk(client, sid, goal)
    _aoo_asked(s, npc)
    npc_hp = s["units"][1]["hp"]
    assert s["units"][1]["pos"] == [4, 2] and s["undo"].endswith("(waiting for a reaction)")  # nothing played yet
    s = post(client, sid, "reaction", {"choice": 1})
    assert s["question"] is None and s["units"][1]["pos"] == list(goal) and s["units"][1]["hp"] == npc_hp
    items = [e["text"] for e in s["log"] if e["kind"] == "item"]
    assert f"Kira lets {npc} go (no attack of opportunity)" in items and not any(" vs " in t for t in items)


@pytest.mark.parametrize("rid", ["saga", "starfinder"])
def test_a_pc_that_takes_it_rolls_the_attack(client, rid):
    sid, npc, goal = _at_npc_turn(client, rid)
    _aoo_asked(_walk(client, sid, goal), npc)
    s = post(client, sid, "reaction", {"choice": 0})
    assert s["question"] is None and s["decisions"] == 2
    items = [e["text"] for e in s["log"] if e["kind"] == "item"]
    roll = next(t for t in items if t.startswith("Kira takes an attack of opportunity with their "))
    assert f"on {npc}: " in roll and " vs " in roll
    hit = "hit" in roll.split(" vs ")[1]
    assert (s["units"][1]["hp"] < s["units"][1]["max_hp"]) == hit


def test_the_5e_toy_asks_too(client):
    sid, npc, goal = _at_npc_turn(client, "toy_5e")
    s = _walk(client, sid, goal)
    assert s["question"]["prompt"] == "Kira may take an opportunity attack on Gob (leaving reach)"
    s = post(client, sid, "reaction", {"choice": 1})
    assert s["units"][1]["pos"] == list(goal) and s["units"][1]["hp"] == 7


def test_while_a_reaction_waits_everything_but_its_answer_and_undo_is_refused(client, registry):
    sid, npc, goal = _at_npc_turn(client, "saga")
    before = json.dumps(registry.get(sid).live.enc.to_dict(), sort_keys=True)
    _walk(client, sid, goal)
    for what, body in (("decision", {"command": "end"}), ("accept", {}), ("command", {"line": "hp Kira 3"})):
        r = client.post(f"/api/sessions/{sid}/{what}", json=body)
        assert r.status_code == 409 and r.json()["field"] == "choice", r.text
        assert "/reaction" in r.json()["fix"] and "0 (attack of opportunity on Trooper 1), 1 (no reaction)" in \
            r.json()["fix"]
    r = client.post(f"/api/sessions/{sid}/dice", json={"faces": [3]})
    assert r.status_code == 422 and r.json()["field"] == "faces" and "/reaction" in r.json()["fix"]
    r = client.post(f"/api/sessions/{sid}/reaction", json={"choice": 2})
    assert r.status_code == 422 and r.json()["field"] == "choice"
    assert r.json()["fix"] == "one of 0 (attack of opportunity on Trooper 1), 1 (no reaction)"
    r = client.post(f"/api/sessions/{sid}/reaction", json={"choice": "yes"})
    assert r.status_code == 422 and r.json()["field"] == "choice"
    s = post(client, sid, "undo")
    assert s["question"] is None and s["waiting_for"] == "proposal" and "Taken back: Trooper 1: move 8 2" in \
        s["messages"][0]
    assert json.dumps(registry.get(sid).live.enc.to_dict(), sort_keys=True) == before
    r = client.post(f"/api/sessions/{sid}/reaction", json={"choice": 0})
    assert r.status_code == 422 and "no reaction is waiting" in r.json()["error"]


def test_a_reaction_and_manual_dice_answered_in_turn(client):
    sid, npc, goal = _at_npc_turn(client, "saga", dice="manual")
    _aoo_asked(_walk(client, sid, goal), npc)
    s = post(client, sid, "reaction", {"choice": 0})
    q = s["question"]
    assert q["kind"] == "die" and q["sides"] == 20 and "Kira's attack of opportunity on Trooper 1" in q["prompt"]
    r = client.post(f"/api/sessions/{sid}/reaction", json={"choice": 0})
    assert r.status_code == 422 and "/dice" in r.json()["fix"]
    s = post(client, sid, "dice", {"faces": [15]})
    assert s["question"]["sides"] == 8 and any(": 21 (15+6)" in line for line in s["question"]["shown"])
    s = post(client, sid, "dice", {"faces": [3, 4]})
    assert s["question"] is None and s["units"][1]["hp"] == 18 - (3 + 4 + 4) and s["units"][1]["pos"] == list(goal)


def test_a_waiting_reaction_and_the_answers_before_a_die_survive_a_restart(client, folder):
    sid, npc, goal = _at_npc_turn(client, "saga", dice="manual")
    waiting = _walk(client, sid, goal)
    _, client2 = _restart(folder)
    again = client2.get(f"/api/sessions/{sid}").json()
    assert again["question"] == waiting["question"] and again["undo"] == waiting["undo"]
    die = post(client2, sid, "reaction", {"choice": 0})
    assert die["question"]["kind"] == "die"
    _, client3 = _restart(folder)  # the reaction answered is kept with the die's question: not asked again
    done = post(client3, sid, "dice", {"faces": [15, 3, 4]})
    assert done["question"] is None and done["units"][1]["hp"] == 18 - (3 + 4 + 4)


def test_the_save_of_a_waiting_session_is_the_state_before_the_decision(client, tmp_path):
    sid, npc, goal = _at_npc_turn(client, "saga")
    _walk(client, sid, goal)
    saved = client.get(f"/api/sessions/{sid}/save").json()
    assert saved["units"][1]["pos"] == [4, 2]
    path = tmp_path / "duel.json"
    post(client, sid, "save", {"path": str(path)})
    for back in (parse_session(saved, "download"), read_session(path)):
        table = Table(["n"], lambda t, p: "quit")
        s = Session(back.enc, get_ruleset("saga"), RandomPolicy(1), None, seed=1, ask=table.ask, say=table.say)
        s.resume(back)
        s.sync_turn()
        s.command(f"move {goal[0]} {goal[1]}")  # the terminal asks the same question
        assert table.prompts == [f"Kira may take an attack of opportunity on {npc} (moving out of a threatened "
                                 f"square): take it? [Y/n] "] and s.enc.units[1].pos == goal
    s = create(client, state=saved, encounter_yaml=None, npcs="random")
    _aoo_asked(_walk(client, s["id"], goal), npc)  # and so does a session made from it
