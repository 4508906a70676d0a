"""The Rise toy through Battle: a movement phase, then a simultaneous action phase."""
import json

import pytest

from engine.core.battle import Battle
from engine.core.dice import ScriptedDice
from engine.core.errors import IllegalAction
from engine.core.state import Encounter

from .common import END, Decision, build, squares_of
from .toy_rise import RULESET as RS

ROWS = ["." * 8] * 4


def battle(units, faces=()):
    enc = build(RS, ROWS, units)
    b = Battle(enc, RS, ScriptedDice(list(faces)))
    b.start({u.id: 20 - u.id for u in enc.units})
    return b


DUEL = [{"name": "Ana", "side": "pcs", "template": "warrior", "at": [1, 1], "hp": 5},
        {"name": "Bor", "side": "npcs", "template": "warrior", "at": [6, 1], "hp": 5}]


def test_round_is_a_movement_phase_then_an_action_phase():
    b = battle(DUEL, faces=[2, 2])
    assert b.phase == "movement" and b.actor.name == "Ana"
    assert squares_of(b.legal(), "move") and not any(d.action == "strike" for d in b.legal())
    b.step(Decision("move", square=(3, 1)))  # one move: the phase turn ends by itself
    assert b.phase == "movement" and b.actor.name == "Bor"
    assert b.enc.units[0].pos == (3, 1)  # movement is open: Bor sees where Ana went
    b.step(Decision("move", square=(4, 1)))
    assert b.phase == "action" and b.actor.name == "Ana" and b.enc.round == 1
    assert not squares_of(b.legal(), "move")
    with pytest.raises(IllegalAction, match="movement phase"):
        b.step(Decision("move", square=(2, 1)))
    b.step(Decision("strike", 1))
    b.step(Decision("strike", 0))
    assert b.phase == "movement" and b.enc.round == 2 and b.actor.name == "Ana"


def test_two_creatures_that_kill_each_other_both_go_down():
    b = battle(DUEL, faces=[15, 8, 15, 8])  # both hit (15+4 vs 13) for 8+2
    b.step(Decision("move", square=(3, 1)))
    b.step(Decision("move", square=(4, 1)))
    ev = b.step(Decision("strike", 1))
    kinds = [e.kind for e in ev]
    assert kinds[0] == "committed" and "attack" not in kinds and b.enc.units[1].hp == 5  # nothing lands yet
    assert ev[0].data == {}  # the event does not tell the other side what was chosen
    ev = b.step(Decision("strike", 0))
    kinds = [e.kind for e in ev]
    assert kinds.count("down") == 2 and "phase_resolves" in kinds
    assert b.enc.units[0].down and b.enc.units[1].down
    assert b.over and b.enc.winner == "draw"


def test_commitments_are_hidden_until_the_phase_resolves():
    units = DUEL[:1] + [dict(DUEL[1], at=[2, 1])]
    b = battle(units, faces=[15, 8, 15, 8])
    b.step(END)
    b.step(END)
    assert b.phase == "action"
    before = b.enc.clone()
    b.step(Decision("strike", 1))
    # Bor's view: the same units, the same legal choices as if Ana had not chosen yet; only the commitment
    # (without the action in the event) is recorded
    assert [u.to_dict() for u in b.enc.units] == [u.to_dict() for u in before.units]
    b_view = Battle(before, RS, ScriptedDice([]))
    before.turn = b.enc.turn
    before.budget = RS.new_budget(before, before.units[1])
    assert b.legal() == b_view.legal()
    assert b.enc.pending == {0: [Decision("strike", 1)]}
    # the pending commitment survives a JSON round trip mid-phase
    restored = Encounter.from_dict(json.loads(json.dumps(b.enc.to_dict())))
    assert restored.pending == b.enc.pending and restored.to_dict() == b.enc.to_dict()


def test_a_creature_downed_before_the_action_phase_takes_no_action_turn():
    units = DUEL + [{"name": "Cid", "side": "npcs", "template": "archer", "at": [6, 3]}]
    b = battle(units, faces=[])
    b.enc.units[1].down = True  # Bor falls during the movement phase (say, to a trap)
    b.step(END)  # Ana
    assert b.actor.name == "Cid"  # Bor is skipped
    b.step(END)
    assert b.phase == "action" and b.actor.name == "Ana"
    b.step(END)
    assert b.actor.name == "Cid"
    b.step(END)
    assert b.phase == "movement" and b.enc.round == 2 and b.actor.name == "Ana"
