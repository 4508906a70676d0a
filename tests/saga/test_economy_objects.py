"""The action economy and swift actions; objects, doors, held weapons; coup de grace."""
import pytest

from .helpers import (KNIFE, PISTOL, RIFLE, SABER, SWORD, act, actions, first, floor, kinds, make, step, u, unit,
                      why)


def far():
    return make(floor(12, 3), [unit("A", "pcs", (0, 1), PISTOL, KNIFE, items=[{"name": "shield", "reflex": 2}]),
                               unit("T", "npcs", (11, 1), PISTOL)])


def test_two_moves_trade_the_standard():
    b = far()
    step(b, "move", square=(3, 1))
    step(b, "move", square=(6, 1))
    assert b.enc.budget == {"standard": 0, "move": 0, "swift": 1}
    assert "move" not in actions(b) and "ranged_attack" not in actions(b)
    assert "costs a move action" in why(b, "move", square=(7, 1))


def test_three_swifts_and_nothing_more():
    b = far()
    for _ in range(3):
        step(b, "activate_item", option=0)
    assert b.actor.name == "T"  # nothing left: the turn ended
    assert u(b, "A").state["active_items"] == [0]


def test_standard_then_move_then_swift_only():
    b = far()
    step(b, "ranged_attack", "T", faces=[1])
    assert "ranged_attack" not in actions(b) and "move" in actions(b)
    step(b, "move", square=(2, 1))
    assert {d.action for d in b.legal()} <= {"end_turn", "activate_item", "drop_item", "fall_prone",
                                             "switch_mode", "second_wind"}


def test_full_round_only_when_untouched():
    b = far()
    assert "run" in actions(b)
    step(b, "activate_item", option=0)
    assert "run" not in actions(b)
    assert "full-round action" in why(b, "run", square=(8, 1))


@pytest.mark.parametrize("feats,cost_left", [([], {"standard": 1, "move": 0, "swift": 1}),
                                             (["quick_draw"], {"standard": 1, "move": 1, "swift": 0})])
def test_draw_and_holster_move_or_swift_with_quick_draw(feats, cost_left):
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), PISTOL, KNIFE, feats=feats), unit("T", "npcs", (5, 0), PISTOL)])
    step(b, "draw", option=1)
    assert b.enc.budget == cost_left and u(b, "A").state["hands"] == [0, 1]
    b2 = make(floor(6, 1), [unit("A", "pcs", (0, 0), PISTOL, feats=feats), unit("T", "npcs", (5, 0), PISTOL)])
    step(b2, "holster", option=0)
    assert b2.enc.budget == cost_left and "ranged_attack" not in actions(b2)


def test_hands_full_explained():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), RIFLE, KNIFE), unit("T", "npcs", (5, 0), PISTOL)])
    assert "hands are full" in why(b, "draw", option=1)


def test_second_wind_heroic_once_at_half_hp():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), PISTOL, hp=40, feats=["extra_second_wind"]),
                           unit("N", "npcs", (5, 0), PISTOL, heroic=False)])
    a = u(b, "A")
    assert "needs half or less" in why(b, "second_wind")
    a.hp = 20
    b.enc.version += 1
    ev = step(b, "second_wind")
    assert first(ev, "heal").get("amount") == 10 and a.hp == 30  # max(40 // 4, Con 10)
    a.hp = 10
    for _ in range(2):
        step(b, "end_turn")
    assert "already caught" in why(b, "second_wind")  # never twice in an encounter, even with the feat
    step(b, "end_turn")
    u(b, "N").hp = 1
    b.enc.version += 1
    assert "not heroic" in why(b, "second_wind")


def test_drop_is_swift_pick_up_is_move():
    b = far()
    step(b, "drop_item", option=0)
    assert b.enc.budget["swift"] == 0 and "ranged_attack" not in actions(b)
    step(b, "manipulate", square=(0, 1))
    assert b.enc.budget["move"] == 0 and "ranged_attack" in actions(b)


def test_switch_mode_cycles_stun_and_autofire():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), RIFLE), unit("T", "npcs", (5, 0), PISTOL)])
    step(b, "switch_mode", option=0)
    assert first(step(b, "switch_mode", option=0), "mode").get("mode") == "autofire"
    ev = step(b, "ranged_attack", "T", faces=[20, 1, 1, 1])
    assert first(ev, "attack").get("bonus") == -5


def test_activated_item_adds_its_defense():
    b = far()
    step(b, "activate_item", option=0)
    assert b.ruleset.unit_summary(u(b, "A"))["reflex"] == 12


# ---- doors and objects ------------------------------------------------------------------------------------
def door_battle(*weapons, at=(1, 0), **over):
    return make(["..+..", "#####"], [unit("A", "pcs", at, *weapons, **over), unit("T", "npcs", (4, 0), PISTOL)])


def test_doors_open_close_block_sight():
    b = door_battle(PISTOL)
    assert "ranged_attack" not in actions(b)  # a closed door blocks line of sight
    step(b, "manipulate", square=(2, 0))
    assert "ranged_attack" in actions(b)
    assert b.enc.grid.kind(2) == "open_door"


@pytest.mark.parametrize("weapon,damage,dealt", [(SWORD, "20", 10), (SABER, "20", 20)])
def test_attack_door_dr_and_lightsabers(weapon, damage, dealt):
    b = door_battle({**weapon, "damage": damage})
    ev = step(b, "attack_object", square=(2, 0), faces=[5])
    assert first(ev, "attack_object").get("defense") == 5
    assert first(ev, "object_damage").get("amount") == dealt


def test_door_destroyed_only_by_a_blow_over_its_threshold():
    b = door_battle({**SABER, "damage": "20"})
    for _ in range(2):
        step(b, "attack_object", square=(2, 0), faces=[5])
        step(b, "end_turn")
        step(b, "end_turn")
    ev = step(b, "attack_object", square=(2, 0), faces=[5])  # 50 HP gone, but 20 < threshold 30: disabled
    assert first(ev, "object_broken").get("destroyed") is False
    assert b.enc.grid.kind(2) == "door" and "jammed" in why(b, "manipulate", square=(2, 0))
    b = door_battle({**SABER, "damage": "30"})
    b.enc.extra["objects"] = {"2": {"hp": 25, "ct": 0, "disabled": False}}
    ev = step(b, "attack_object", square=(2, 0), faces=[5])
    assert first(ev, "object_broken").get("destroyed") is True
    assert b.enc.grid.kind(2) == "floor" and "move" in actions(b)


def test_ranged_attack_on_a_door_in_sight():
    b = make(["......+.", "########"], [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (7, 0), PISTOL)])
    assert act("attack_object", square=(6, 0)) in b.legal()
    b = make(["...c..+.", "########"], [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (7, 0), PISTOL)])
    assert act("attack_object", square=(3, 0)) not in b.legal()  # low objects: in melee only
    assert "in melee" in why(b, "attack_object", square=(3, 0))


def test_attack_held_weapon():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), {**SABER, "damage": "10"}),
                           unit("T", "npcs", (1, 0), RIFLE, armor=4, reflex=15)])
    ev = step(b, "attack_held_object", "T", faces=[20])  # natural 20: hits, double damage
    atk = first(ev, "attack")
    assert atk.get("defense") == 10 + 0 + 15 - 4  # medium object, holder's Reflex without armor
    assert first(ev, "object_broken").get("object") == "blaster rifle" and 0 in u(b, "T").state["lost"]


# ---- coup de grace ------------------------------------------------------------------------------------------
def test_coup_de_grace_full_round_double_damage_kills():
    units = [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (1, 0), SWORD), unit("C", "npcs", (4, 0), PISTOL)]
    b = make(floor(5, 1), units)
    t = u(b, "T")
    t.state["ct"], t.down = 5, True
    b.enc.version += 1
    ev = step(b, "coup_de_grace", "T", faces=[3])
    assert first(ev, "coup_de_grace").get("amount") == 6 and t.dead


def test_ranged_coup_de_grace_only_adjacent():
    units = [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (2, 0), SWORD), unit("C", "npcs", (4, 0), PISTOL)]
    b = make(floor(5, 1), units)
    u(b, "T").down = True
    b.enc.version += 1
    assert "needs an adjacent target" in why(b, "coup_de_grace", "T")
    assert "not helpless" in why(b, "coup_de_grace", "C")
