"""The 5e-style toy driven through engine.core.battle.Battle: feet, Action, Bonus, object, Reaction."""
import pytest

from engine.core.battle import Battle
from engine.core.reaction import DECLINE
from engine.core.dice import ScriptedDice
from engine.core.errors import IllegalAction

from .common import END, Decision, build, squares_of, targets_of
from .toy_fifth import RULESET as RS

ROWS = ["." * 10] * 5


def battle(units, faces=(), initiative=None):
    enc = build(RS, ROWS, units)
    b = Battle(enc, RS, ScriptedDice(list(faces)))
    b.start(initiative or {u.id: 20 - u.id for u in enc.units})
    return b


def test_movement_in_feet_split_around_the_action():
    b = battle([{"name": "Hero", "side": "pcs", "template": "fighter", "at": [0, 2]},
                {"name": "Gob", "side": "npcs", "template": "goblin", "at": [9, 2]}], faces=[2])
    assert b.actor.name == "Hero" and b.enc.budget["feet"] == 30
    b.step(Decision("move", square=(2, 2)))
    assert b.enc.budget["feet"] == 20
    assert (8, 2) not in squares_of(b.legal(), "move") and (6, 2) in squares_of(b.legal(), "move")
    b.step(Decision("dash"))  # the Action: 30 more feet
    assert b.enc.budget == {"action": 0, "bonus": 1, "object": 1, "feet": 50}
    b.step(Decision("move", square=(8, 2)))  # movement after the Action
    assert b.enc.budget["feet"] == 20 and b.enc.units[0].pos == (8, 2)
    # the Action is spent: no attack even though the goblin is in reach now
    assert targets_of(b.legal(), "attack") == set()
    with pytest.raises(IllegalAction, match="already used its action"):
        b.step(Decision("attack", 1))


def test_one_action_and_a_bonus_action_after_attacking():
    b = battle([{"name": "Hero", "side": "pcs", "template": "fighter", "at": [1, 2]},
                {"name": "Gob", "side": "npcs", "template": "goblin", "at": [2, 2], "hp": 30}],
               faces=[15, 4, 15, 3])
    legal = b.legal()
    assert Decision("offhand", 1) not in legal  # bonus attack needs the Attack action first
    with pytest.raises(IllegalAction, match="Attack action first"):
        b.step(Decision("offhand", 1))
    b.step(Decision("attack", 1))
    assert b.enc.units[1].hp == 30 - 7
    assert Decision("attack", 1) not in b.legal() and Decision("offhand", 1) in b.legal()
    b.step(Decision("offhand", 1))
    assert b.enc.units[1].hp == 30 - 7 - 6
    assert b.enc.budget["action"] == 0 and b.enc.budget["bonus"] == 0


def test_one_free_object_interaction_then_it_costs_the_action():
    b = battle([{"name": "Hero", "side": "pcs", "template": "fighter", "at": [1, 2]},
                {"name": "Gob", "side": "npcs", "template": "goblin", "at": [8, 2]}])
    b.step(Decision("interact"))  # stow: the free interaction
    assert b.enc.budget["object"] == 0 and b.enc.budget["action"] == 1
    b.step(Decision("interact"))  # draw again: paid with the Action
    assert b.enc.budget["action"] == 0 and b.enc.units[0].state["drawn"]
    assert Decision("interact") not in b.legal() and Decision("dash") not in b.legal()


def test_reaction_once_per_round_refreshed_on_own_turn():
    units = [{"name": "A", "side": "pcs", "template": "fighter", "at": [3, 2]},
             {"name": "B", "side": "pcs", "template": "fighter", "at": [3, 3]},
             {"name": "Gob", "side": "npcs", "template": "goblin", "at": [4, 2]}]
    # A leaves reach: goblin's opportunity attack (hit 18+4, 3 damage); B leaves: no reaction left
    b = battle(units, faces=[18, 1])
    gob = b.enc.units[2]
    ev = b.step(Decision("move", square=(0, 2)))
    assert [e.kind for e in ev].count("provoked") == 1 and b.enc.units[0].hp == 12 - 3
    assert gob.state["reaction"] is False
    b.step(END)
    assert b.actor.name == "B"
    ev = b.step(Decision("move", square=(0, 4)))
    assert not any(e.kind == "provoked" for e in ev) and b.enc.units[1].hp == 12
    b.step(END)
    assert b.actor is gob and gob.state["reaction"] is True  # refreshed at the start of its turn


def test_path_avoids_provoking_when_it_can_and_disengage_prevents_it():
    units = [{"name": "A", "side": "pcs", "template": "fighter", "at": [3, 2]},
             {"name": "Gob", "side": "npcs", "template": "goblin", "at": [4, 2]}]
    b = battle(units)
    ev = b.step(Decision("move", square=(4, 1)))  # stays in reach the whole way: no attack
    assert not any(e.kind == "provoked" for e in ev) and b.enc.units[0].pos == (4, 1)
    b = battle(units)
    b.step(Decision("disengage"))
    ev = b.step(Decision("move", square=(0, 0)))
    assert not any(e.kind == "provoked" for e in ev) and b.enc.units[1].state["reaction"]


def test_reacting_side_may_decline_and_a_downed_mover_stops():
    units = [{"name": "A", "side": "pcs", "template": "fighter", "at": [3, 2], "hp": 2},
             {"name": "Gob", "side": "npcs", "template": "goblin", "at": [4, 2]}]
    enc = build(RS, ROWS, units)
    asked = []
    b = Battle(enc, RS, ScriptedDice([]),
               react=lambda e, u, trigger, options: asked.append((u.name, trigger.kind, options)) or options[-1])
    b.start({0: 20, 1: 1})
    b.step(Decision("move", square=(0, 2)))
    assert asked == [("Gob", "opportunity_attack", [Decision("opportunity_attack", 0), DECLINE])]
    assert enc.units[0].pos == (0, 2) and enc.units[1].state["reaction"]
    enc = build(RS, ROWS, units)
    b = Battle(enc, RS, ScriptedDice([15, 6]))
    b.start({0: 20, 1: 1})
    ev = b.step(Decision("move", square=(0, 2)))
    assert enc.units[0].down and enc.units[0].pos == (3, 2) and b.over and enc.winner == "npcs"
    assert [e.kind for e in ev][-1] == "victory"
