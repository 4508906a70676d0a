"""The heuristic on Starfinder (engine/rulesets/starfinder/tactics.py): it beats random in both seats on random and
on the shipped encounters, uses the ruleset's variety of actions, and makes the table's obvious calls (stand up when
prone and threatened, a grenade into a cluster, a guarded step rather than a provoking shot, a heal for a low ally,
the second attack of a full attack, a reload when empty); the ruleset's hooks it leans on (the cost of an ability,
the tactics) are checked too."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.core.decision import END
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.core.ruleset import Cost
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets.starfinder import area as A
from engine.rulesets.starfinder import conditions as K
from engine.rulesets.starfinder.tactics import StarfinderTactics

from tests.heuristic_helpers import rate

from .helpers import FRAG, KNIFE, LASER, RS, floor, make, step, u, unit

ENCOUNTERS = sorted((Path(__file__).resolve().parents[2] / "configs/encounters/starfinder").glob("*.yaml"))
CURE = {"name": "mystic cure", "kind": "spell", "uses": 2, "target": "ally", "range": 0, "heal": "1d8+4"}


def test_it_beats_random_in_both_seats_on_random_encounters():
    encs = [random_encounter(RS, random.Random(1000 + k), 12, 12, sizes=(1, 4)) for k in range(50)]
    win, actions = rate(RS, encs, range(50))     # 100 battles
    assert win >= 0.9, win
    assert actions["ranged_attack"] + actions["melee_attack"] > 0
    assert actions["full_attack_ranged"] + actions["full_attack_melee"] > 0
    assert actions["use_ability"] > 0 and actions["pick_target"] > 0   # spells when they pay
    # a full attack goes on to its second attack
    assert actions["next_ranged"] + actions["next_melee"] >= 0.8 * (actions["full_attack_ranged"]
                                                                     + actions["full_attack_melee"])
    assert not {"drop_prone", "dismiss"} & set(actions), actions


def test_it_beats_random_in_both_seats_on_the_shipped_encounters():
    encs = [load_encounter(p, RS) for p in ENCOUNTERS]
    assert len(encs) >= 3
    win, actions = rate(RS, encs, range(13 * len(encs)))     # over 100 battles, every encounter in both seats
    assert win >= 0.9, win
    assert actions["explode_attack"] > 0      # the goblins and the soldier throw grenades
    assert actions["use_ability"] > 0


# ---- table decisions ------------------------------------------------------------------------------------------------
def test_it_stands_up_when_prone_and_threatened():
    b = make(floor(8, 5), [unit("A", "pcs", (3, 2), KNIFE, LASER), unit("B", "npcs", (4, 2), KNIFE)])
    K.add(u(b, "A").state, "prone", K.FOREVER)
    assert HeuristicPolicy(0).choose(b).action == "stand_up"


def test_it_throws_a_grenade_into_a_cluster():
    b = make(floor(12, 8), [unit("A", "pcs", (1, 4), FRAG, LASER),
                            unit("B", "npcs", (6, 3), KNIFE), unit("C", "npcs", (7, 3), KNIFE),
                            unit("D", "npcs", (6, 4), KNIFE)])
    d = HeuristicPolicy(0).choose(b)
    assert d.action == "explode_attack", d
    caught = A.blast(b.enc.grid, d.square, FRAG["explode"])
    assert sum(u(b, n).pos in caught for n in "BCD") >= 2


def test_it_saves_a_grenade_for_more_than_one_foe():
    b = make(floor(12, 8), [unit("A", "pcs", (1, 4), LASER, FRAG), unit("B", "npcs", (6, 3), KNIFE)])
    assert HeuristicPolicy(0).choose(b).action in ("ranged_attack", "full_attack_ranged")


def test_it_steps_away_before_shooting_rather_than_provoke():
    """A shooter next to a knife fighter: a guarded step (no attack of opportunity), then the shot from there;
    never a shot in the threatened square nor a move that provokes."""
    b = make(floor(10, 5), [unit("A", "pcs", (3, 2), LASER), unit("B", "npcs", (4, 2), KNIFE)])
    h = HeuristicPolicy(0)
    d = h.choose(b)
    assert d.action == "guarded_step", d
    step(b, "guarded_step", square=d.square)
    assert b.enc.grid.distance(u(b, "A").pos, u(b, "B").pos) == 2
    assert h.choose(b).action == "ranged_attack"


def test_a_shot_in_a_threatened_square_is_charged_the_attack_of_opportunity():
    b = make(floor(10, 5), [unit("A", "pcs", (3, 2), LASER), unit("B", "npcs", (4, 2), KNIFE)])
    h = HeuristicPolicy(0)
    scores = dict(h.explain(b))
    shot = next(d for d in scores if d.action == "ranged_attack")
    u(b, "B").state["reaction"] = False         # its reaction spent: the same shot provokes nothing
    assert dict(HeuristicPolicy(0).explain(b))[shot] > scores[shot]


def test_it_heals_a_low_ally():
    b = make(floor(8, 5), [unit("M", "pcs", (1, 2), LASER, abilities=[CURE]), unit("F", "pcs", (2, 2), LASER),
                           unit("E", "npcs", (7, 4), LASER)])
    f = u(b, "F")
    f.hp = 6
    h = HeuristicPolicy(0)
    d = h.choose(b)
    assert (d.action, d.option) == ("use_ability", 0), d
    step(b, "use_ability", option=0)
    d = h.choose(b)
    assert (d.action, d.target) == ("pick_ally", f.id), d


def test_it_does_not_heal_an_unhurt_ally_over_shooting():
    b = make(floor(8, 5), [unit("M", "pcs", (1, 2), LASER, abilities=[CURE]), unit("F", "pcs", (2, 2), LASER),
                           unit("E", "npcs", (5, 2), LASER)])
    scores = dict(HeuristicPolicy(0).explain(b))
    heal = next(d for d in scores if d.action == "use_ability")
    shot = next(d for d in scores if d.action == "ranged_attack")
    assert scores[heal] < scores[shot] < max(scores.values()) + 1e-9


def test_it_takes_the_second_attack_of_a_full_attack():
    b = make(floor(8, 5), [unit("A", "pcs", (1, 2), LASER), unit("B", "npcs", (4, 2), KNIFE)])
    step(b, "full_attack_ranged", "B", faces=[1])    # a natural 1: a miss
    assert b.enc.flags.get("pending") == {"kind": "second"}
    d = HeuristicPolicy(0).choose(b)
    assert (d.action, d.target) == ("next_ranged", u(b, "B").id), d


def test_it_reloads_an_empty_gun():
    gun = {**LASER, "capacity": 4, "usage": 1}
    b = make(floor(8, 5), [unit("A", "pcs", (1, 2), gun), unit("B", "npcs", (5, 2), LASER)])
    u(b, "A").state["ammo"][0] = 0
    assert HeuristicPolicy(0).choose(b).action == "reload"


def test_it_ends_the_turn_when_nothing_pays():
    """Its attack and move made, with only its swift action (drop prone) left, the heuristic ends its turn."""
    b = make(floor(8, 5), [unit("A", "pcs", (1, 2), LASER), unit("B", "npcs", (6, 2), LASER)])
    step(b, "ranged_attack", "B", faces=[1])
    step(b, "move", square=(1, 1))
    assert {d.action for d in b.legal()} == {"end_turn", "drop_prone"}
    assert HeuristicPolicy(0).choose(b) == END


# ---- the hooks ------------------------------------------------------------------------------------------------------
def test_the_ruleset_gives_its_own_tactics_and_ability_costs():
    assert isinstance(RS.tactics(), StarfinderTactics)
    swift = {**CURE, "cost": "swift"}
    b = make(floor(8, 5), [unit("M", "pcs", (1, 2), LASER, abilities=[swift, CURE]), unit("E", "npcs", (7, 4))])
    m = u(b, "M")
    use_swift = next(d for d in b.legal() if d.action == "use_ability" and d.option == 0)
    assert RS.effective_cost(b.enc, m, use_swift) == Cost("swift")
    left = RS.budget_after(b.enc, m, use_swift)
    assert left["standard"] == 1 and left["swift"] == 0
    assert RS.budget_after(b.enc, m, END) == {}


def test_a_staggered_unit_has_nothing_left_after_its_one_action():
    b = make(floor(8, 5), [unit("A", "pcs", (1, 2), LASER), unit("B", "npcs", (5, 2), LASER)])
    a = u(b, "A")
    K.add(a.state, "staggered", K.FOREVER)
    shot = next(d for d in b.legal() if d.action == "ranged_attack")
    left = RS.budget_after(b.enc, a, shot)
    assert left["standard"] == 0 and left["move"] == 0


@pytest.mark.parametrize("action,role", [("full_attack_ranged", "attack"), ("guarded_step", "withdraw"),
                                         ("withdraw", "run"), ("charge", "charge"), ("explode_attack", "attack"),
                                         ("trip", "attack"), ("stand_up", "misc"), ("end_turn", "end")])
def test_roles(action, role):
    assert StarfinderTactics(RS).kinds[action] == role
