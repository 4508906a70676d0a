"""Movement in feet up to Speed, split as the unit likes, difficult terrain, standing and crawling, movement before
the Action (Dash and Disengage exceptions), opportunity attacks (one reaction a round), armor speed caps,
initiative, object interactions."""
import pytest

from engine.core.battle import Battle
from engine.core.dice import ScriptedDice
from engine.core.encounter_file import parse_encounter

from .helpers import (BLASTER, KNIFE, RS, actions, all_of, cond, end, first, floor, legal_squares, make, step, u,
                      unit, why)
import yaml


def _solo(rows=None, **over):
    return make(rows or floor(10, 3), [unit("A", "pcs", (0, 1), BLASTER, KNIFE, **over),
                                       unit("T", "npcs", (9, 2), KNIFE)])


def test_move_up_to_speed_in_feet():
    b = _solo()
    assert b.enc.budget["feet"] == 30
    sq = legal_squares(b, "move")
    assert (6, 1) in sq and (7, 1) not in sq and (6, 0) in sq      # diagonals count 5 ft each
    step(b, "move", square=(6, 1))
    assert u(b, "A").pos == (6, 1) and b.enc.budget["feet"] == 0 and not legal_squares(b, "move")


def test_moves_split_as_the_unit_likes():
    b = _solo()
    step(b, "move", square=(2, 1))
    assert b.enc.budget["feet"] == 20
    step(b, "move", square=(2, 0))
    step(b, "move", square=(5, 0))
    assert b.enc.budget["feet"] == 0 and u(b, "A").pos == (5, 0)


def test_difficult_terrain_costs_double():
    b = _solo(rows=[".~~~......"] * 3)
    sq = legal_squares(b, "move")
    assert (3, 1) in sq and (4, 1) not in sq        # 3 squares of difficult terrain: 30 ft
    step(b, "move", square=(2, 1))
    assert b.enc.budget["feet"] == 10


@pytest.mark.parametrize("speed,cost", [(30, 15), (40, 20), (20, 10)])
def test_standing_from_prone_costs_half_the_speed(speed, cost):
    b = _solo(speed=speed, state={"conds": {"prone": cond()}})
    assert "stand_up" in actions(b) and not legal_squares(b, "move")
    assert "prone" in why(b, "move", square=(1, 1))
    step(b, "stand_up")
    assert "prone" not in u(b, "A").state["conds"] and b.enc.budget["feet"] == speed - cost


def test_no_standing_without_half_the_speed_left():
    b = _solo(state={"conds": {"prone": cond()}})
    step(b, "crawl", square=(2, 1))                # 20 ft of crawling: 10 ft left, less than half of 30
    assert "stand_up" not in actions(b)


def test_crawling_costs_double():
    b = _solo(state={"conds": {"prone": cond()}})
    sq = legal_squares(b, "crawl")
    assert (3, 1) in sq and (4, 1) not in sq
    step(b, "crawl", square=(1, 1))
    assert b.enc.budget["feet"] == 20 and "prone" in u(b, "A").state["conds"]


def test_drop_prone_is_free_but_not_after_the_action():
    b = _solo()
    step(b, "drop_prone")
    assert "prone" in u(b, "A").state["conds"] and b.enc.budget["feet"] == 30
    b = _solo()
    step(b, "dodge")
    assert "drop_prone" not in actions(b)


def test_movement_ends_once_the_action_is_taken():
    b = _solo()
    step(b, "move", square=(1, 1))
    step(b, "attack", "T", faces=[2])
    assert b.enc.budget["feet"] == 0 and not legal_squares(b, "move")
    assert "movement comes before the Action" in why(b, "move", square=(2, 1))


def test_a_trait_lets_it_move_after_acting():
    b = _solo(traits=["move_after_action"])
    step(b, "move", square=(1, 1))
    step(b, "attack", "T", faces=[2])
    assert b.enc.budget["feet"] == 25 and (6, 1) in legal_squares(b, "move")


@pytest.mark.parametrize("moved,feet", [(0, 60), (2, 50)])
def test_dash_adds_the_speed_and_movement_may_follow_it(moved, feet):
    b = _solo(rows=floor(20, 3))
    if moved:
        step(b, "move", square=(moved, 1))
    step(b, "dash")
    assert b.enc.budget["feet"] == feet and b.enc.budget["action"] == 0
    assert (moved + feet // 5, 1) in legal_squares(b, "move")


def _pair(over=None, e_over=None, extra=()):
    """A (pcs) at (1, 1) beside E (npcs, a knife) at (2, 1)."""
    return make(floor(8, 3), [unit("A", "pcs", (1, 1), BLASTER, KNIFE, **(over or {})),
                              unit("E", "npcs", (2, 1), KNIFE, **(e_over or {})), *extra])


def test_leaving_an_enemy_s_reach_provokes_an_opportunity_attack_before_the_step():
    b = _pair()
    ev = step(b, "move", square=(0, 1), faces=[15, 3])
    aoo = first(ev, "aoo")
    assert aoo.actor == u(b, "E").id and u(b, "A").hp == 27 and u(b, "A").pos == (0, 1)
    assert not u(b, "E").state["reaction"]


def test_moving_within_the_reach_provokes_nothing():
    b = _pair()
    assert not all_of(step(b, "move", square=(1, 0)), "aoo")     # still beside E


def test_disengage_prevents_opportunity_attacks_and_movement_follows_it():
    b = _pair()
    step(b, "disengage")
    assert b.enc.budget["feet"] == 30
    ev = step(b, "move", square=(0, 0))
    assert not all_of(ev, "aoo") and u(b, "A").pos == (0, 0)


def test_one_reaction_a_round_regained_at_the_start_of_its_turn():
    b = make(floor(8, 3), [unit("A", "pcs", (1, 1), BLASTER, KNIFE), unit("B", "pcs", (3, 1), BLASTER, KNIFE),
                           unit("E", "npcs", (2, 1), KNIFE)])
    assert all_of(step(b, "move", square=(0, 1), faces=[1]), "aoo")
    end(b)
    assert not all_of(step(b, "move", square=(4, 1)), "aoo")         # E's reaction is spent
    end(b)
    end(b)                                                           # E's turn: its reaction back
    end(b)
    step(b, "move", square=(1, 1))                                   # round 2: back beside E
    assert all_of(step(b, "move", square=(0, 2), faces=[1]), "aoo")


def test_a_ranged_weapon_in_hand_threatens_with_an_unarmed_strike():
    b = _pair(e_over={"weapons": [BLASTER]})
    ev = step(b, "move", square=(0, 1), faces=[15])
    assert first(ev, "attack").get("weapon") == "unarmed strike" and u(b, "A").hp == 29


@pytest.mark.parametrize("armor,feet", [
    (None, 30),
    ({"category": "medium", "bonus": 5, "max_dex": 2, "speed_cap": 20}, 20),
    ({"category": "light", "bonus": 2}, 30),
    ({"category": "heavy", "bonus": 8, "max_dex": 0, "speed_cap": 20}, 20),
])
def test_armor_caps_the_speed(armor, feet):
    b = _solo(armor=armor)
    assert b.enc.budget["feet"] == feet and max(x for x, _ in legal_squares(b, "move")) == feet // 5


def test_a_speed_cap_above_the_speed_changes_nothing():
    b = _solo(speed=25, armor={"category": "medium", "bonus": 4, "max_dex": 2, "speed_cap": 30})
    assert b.enc.budget["feet"] == 25


# ---- initiative ---------------------------------------------------------------------------------------------------------
def test_initiative_is_d20_plus_dex_plus_proficiency():
    units = [unit("A", "pcs", (0, 0), KNIFE, dex=14, prof=2), unit("B", "npcs", (3, 0), KNIFE, dex=10, prof=3),
             unit("C", "npcs", (4, 0), KNIFE, dex=18, prof=2)]
    text = yaml.safe_dump({"ruleset": "swurpg", "name": "t", "map": "......\n", "units": units}, sort_keys=False)
    enc = parse_encounter(text, "t.yaml", RS)
    b = Battle(enc, RS, ScriptedDice([10, 12, 5]))
    b.start()
    ids = {n: enc.unit(n).id for n in "ABC"}
    assert enc.initiative[ids["A"]] == 10 + 2 + 2
    assert enc.initiative[ids["B"]] == 12 + 0 + 3
    assert enc.initiative[ids["C"]] == 5 + 4 + 2
    assert [enc.units[i].name for i in enc.order] == ["B", "A", "C"]


# ---- object interactions -----------------------------------------------------------------------------------------------
def test_the_first_object_interaction_is_free_a_second_costs_the_action():
    third = {**KNIFE, "name": "vibroknife"}
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), BLASTER, KNIFE, third), unit("T", "npcs", (5, 0), KNIFE)])
    step(b, "draw", option=1)
    assert u(b, "A").state["wield"][0] == 1
    assert b.enc.budget["object"] == 0 and b.enc.budget["action"] == 1 and b.enc.budget["feet"] == 30
    ev = step(b, "draw", option=2)          # paid with the Action: nothing is left, the turn ends
    assert u(b, "A").state["wield"][0] == 2 and first(ev, "turn_end").actor == u(b, "A").id


def test_after_a_paid_second_interaction_no_action_is_left():
    third = {**KNIFE, "name": "vibroknife"}
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), BLASTER, KNIFE, third), unit("T", "npcs", (5, 0), KNIFE)])
    step(b, "draw", option=1)
    left = RS.budget_after(b.enc, u(b, "A"), next(d for d in b.legal() if d.action == "draw" and d.option == 2))
    assert left["object"] == 0 and left["action"] == 0


def test_a_trait_grants_a_second_free_interaction():
    third = {**KNIFE, "name": "vibroknife"}
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), BLASTER, KNIFE, third, traits=["extra_interaction"]),
                           unit("T", "npcs", (5, 0), KNIFE)])
    step(b, "draw", option=1)
    step(b, "draw", option=2)
    assert b.enc.budget["action"] == 1


def test_picking_up_a_dropped_weapon_is_an_object_interaction():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), BLASTER, KNIFE, state={"wield": [], "dropped": [0]}),
                           unit("T", "npcs", (5, 0), KNIFE)])
    assert "pick_up" in actions(b)
    step(b, "pick_up", option=0)
    assert u(b, "A").state["wield"] == [0] and u(b, "A").state["dropped"] == [] and b.enc.budget["object"] == 0
