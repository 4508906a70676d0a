"""Other standard actions: covering fire, harrying fire, feint, fight defensively, total defense, special abilities and
spells (damage, area, save, condition, healing, several targets, concentration, dismissal), activating an item."""
import pytest

from engine.core.decision import END

from .helpers import (KNIFE, LASER, actions, all_of, end, first, floor, legal_squares, legal_targets, make, step, u,
                      unit, why)

THRUST = {"name": "mind thrust", "kind": "spell", "level": 1, "uses": 2, "target": "enemy", "range": 30,
          "damage": "2d10", "type": "force", "save": "will", "dc": 15, "on_save": "half", "tags": ["mind"]}
DAZE = {"name": "daze", "kind": "spell", "target": "enemy", "range": 30, "save": "will", "dc": 14, "condition": "dazed",
        "rounds": 1, "tags": ["mind"]}
RAY = {"name": "energy ray", "kind": "spell", "target": "enemy", "range": 30, "attack": "eac", "damage": "1d3",
       "type": "F"}
SURGE = {"name": "jolting surge", "kind": "spell", "level": 1, "target": "enemy", "range": 0, "attack": "eac",
         "damage": "4d6", "type": "E"}
MISSILE = {"name": "magic missile", "kind": "spell", "level": 1, "uses": 3, "target": "enemy", "range": 120,
           "damage": "1d4+1", "type": "force", "targets": 2}
CURE = {"name": "mystic cure", "kind": "spell", "level": 1, "target": "ally", "range": 0, "heal": "1d8+4"}
BURST = {"name": "sonic burst", "kind": "sla", "target": "area", "range": 60, "radius": 5, "damage": "2d6",
         "type": "So", "save": "ref", "dc": 12}
HOLD = {"name": "hold", "kind": "spell", "target": "enemy", "range": 30, "save": "will", "dc": 20,
        "condition": "entangled", "sustain": "concentration"}
SHAKE = {"name": "fright", "kind": "spell", "target": "enemy", "range": 30, "save": "will", "dc": 20,
         "condition": "shaken", "rounds": 3, "sustain": "dismissible"}
SERUM = {"name": "serum of healing", "target": "self", "heal": "1d8", "uses": 1}


# ---- covering fire ---------------------------------------------------------------------------------------------------
def _cover_scene(**over):
    # A covers F; E (a laser pistol) shoots at F
    return make(floor(10, 5), [unit("A", "pcs", (0, 2), LASER, **over), unit("F", "pcs", (4, 2), KNIFE),
                               unit("E", "npcs", (8, 2), LASER)])


@pytest.mark.parametrize("face,covered", [(15, True), (14, False)])
def test_covering_fire_is_a_ranged_attack_against_ac_15(face, covered):
    b = _cover_scene()
    ev = step(b, "covering_fire", "F", faces=[face])
    atk = first(ev, "attack")
    assert (atk.get("defense"), atk.get("hit")) == (15, covered) and not all_of(ev, "damage")
    assert bool(u(b, "F").state["covered"]) == covered


def test_covering_fire_adds_2_ac_against_the_next_attack_only():
    b = _cover_scene()
    step(b, "covering_fire", "F", faces=[15])
    end(b)
    end(b)                                            # F's turn passes
    atk = first(step(b, "ranged_attack", "F", faces=[1]), "attack")
    assert atk.get("defense") == 10 + 2 and "covering fire +2" in atk.get("notes")
    assert u(b, "F").state["covered"] == []


def test_covering_fire_lapses_at_the_coverers_next_turn():
    b = _cover_scene()
    step(b, "covering_fire", "F", faces=[15])
    end(b)
    end(b)
    end(b)                                            # E passes; A's next turn begins
    assert u(b, "F").state["covered"] == []


# ---- harrying fire ---------------------------------------------------------------------------------------------------
def test_harrying_fire_gives_the_next_allys_attack_plus_2():
    b = make(floor(10, 5), [unit("A", "pcs", (0, 2), LASER), unit("F", "pcs", (2, 2), LASER),
                            unit("E", "npcs", (8, 2))])
    atk = first(step(b, "harrying_fire", "E", faces=[15]), "attack")
    assert atk.get("defense") == 15
    end(b)
    atk = first(step(b, "ranged_attack", "E", faces=[1]), "attack")
    assert atk.get("bonus") == 2 and "harried +2" in atk.get("notes") and u(b, "E").state["harried"] == []


def test_harrying_fire_does_not_help_the_harrier():
    b = make(floor(10, 5), [unit("A", "pcs", (0, 2), LASER), unit("E", "npcs", (8, 2))])
    step(b, "harrying_fire", "E", faces=[15])
    end(b)
    end(b)
    assert first(step(b, "ranged_attack", "E", faces=[1]), "attack").get("bonus") == 0


# ---- feint -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sense,cr,dc", [
    (8, 1, 18),       # 10 + Sense Motive
    (0, 4, 21),       # 15 + 1 1/2 x CR
    (0, "1/2", 15),   # 15 + 0.75, rounded down
    (5, 0, 15),
])
def test_feint_dc_is_the_greater_of_sense_motive_and_cr(sense, cr, dc):
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE, bluff=0), unit("T", "npcs", (1, 0), sense_motive=sense,
                                                                          cr=cr)])
    assert first(step(b, "feint", "T", faces=[1]), "check").get("dc") == dc


def test_a_successful_feint_makes_the_foe_flat_footed_against_the_next_attack():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE, bluff=10), unit("T", "npcs", (1, 0))])
    step(b, "feint", "T", faces=[10])                 # 20 vs DC 15
    end(b)
    end(b)
    atk = first(step(b, "melee_attack", "T", faces=[1]), "attack")
    assert atk.get("defense") == 12 - 2 and u(b, "T").state["feinted"] == []


def test_a_feint_lapses_at_the_end_of_the_feinters_next_turn():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE, bluff=10), unit("T", "npcs", (1, 0))])
    step(b, "feint", "T", faces=[10])
    end(b)
    end(b)
    assert u(b, "T").state["feinted"]
    end(b)
    assert u(b, "T").state["feinted"] == []


def test_no_feint_against_a_creature_without_intelligence():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("R", "npcs", (1, 0), intelligent=False)])
    assert "feint" not in actions(b) and "no Intelligence" in why(b, "feint", "R")


# ---- fight defensively, total defense -------------------------------------------------------------------------------
def test_fighting_defensively_minus_4_attack_plus_2_ac_until_the_next_turn():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("T", "npcs", (1, 0), KNIFE)])
    step(b, "fight_defensively")
    assert "fight_defensively" not in actions(b)
    atk = first(step(b, "melee_attack", "T", faces=[10]), "attack")
    assert atk.get("bonus") == -4
    end(b)
    assert first(step(b, "melee_attack", "A", faces=[1]), "attack").get("defense") == 12 + 2
    end(b)
    assert u(b, "A").state["defense"] == 0


def test_fighting_defensively_is_declared_before_the_attack():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("T", "npcs", (1, 0), KNIFE)])
    step(b, "melee_attack", "T", faces=[1])
    assert "fight_defensively" not in actions(b) and "before the turn's attacks" in why(b, "fight_defensively")


def test_fighting_defensively_without_attacking_gives_no_ac():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("T", "npcs", (1, 0), KNIFE)])
    step(b, "fight_defensively")
    step(b, "total_defense")
    assert u(b, "A").state["defense"] == 4          # total defense's +4, no +2 on top


def test_total_defense_plus_4_and_no_attacks_of_opportunity():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("T", "npcs", (1, 0), LASER)])
    step(b, "total_defense")
    end(b)
    assert not all_of(step(b, "move", square=(3, 0)), "aoo")
    atk = first(step(b, "ranged_attack", "A", faces=[1]), "attack")
    assert atk.get("defense") == 10 + 4


# ---- special abilities and spells ------------------------------------------------------------------------------------
def _caster(*abilities, t_over=None, extra=(), at=(4, 0)):
    return make(floor(8, 3), [unit("A", "pcs", (0, 0), abilities=list(abilities)),
                              unit("T", "npcs", at, **(t_over or {})), *extra])


@pytest.mark.parametrize("save,damage", [(1, 11), (15, 5)])    # 2d10 = 5 + 6; Will 15 vs DC 15 halves
def test_a_damaging_spell_with_a_save_for_half(save, damage):
    b = _caster(THRUST)
    step(b, "use_ability", option=0)
    assert actions(b) == {"end_turn", "pick_target"}
    step(b, "pick_target", "T", faces=[save, 5, 6])
    assert u(b, "T").hp == 30 - damage and u(b, "A").state["uses"] == [1]


def test_a_condition_negated_by_a_save():
    b = _caster(DAZE)
    step(b, "use_ability", option=0)
    step(b, "pick_target", "T", faces=[13])
    assert "dazed" in u(b, "T").state["conds"]
    end(b)
    assert b.legal() == [END]                       # dazed: no actions
    end(b)
    end(b)
    assert "dazed" not in u(b, "T").state["conds"]  # 1 round: gone before A's initiative count


def test_a_spell_attack_against_eac():
    b = _caster(RAY)
    step(b, "use_ability", option=0)
    ev = step(b, "pick_target", "T", faces=[10, 3])
    atk = first(ev, "attack")
    assert (atk.get("defense"), atk.get("defense_name"), u(b, "T").hp) == (10, "EAC", 27)


def test_a_touch_spell_needs_an_adjacent_target():
    b = _caster(SURGE)
    assert "use_ability" not in actions(b)
    assert why(b, "use_ability", option=0) == f"{SURGE['name']} has no foe to aim at within touch (and in sight)"
    b = _caster(SURGE, at=(1, 0))
    step(b, "use_ability", option=0)                # T is unarmed: it threatens nothing, no attack of opportunity
    atk = first(step(b, "pick_target", "T", faces=[10, 1, 2, 3, 4]), "attack")
    assert atk.get("defense_name") == "EAC" and atk.get("hit") and u(b, "T").hp == 30 - 10


def test_several_missiles_choose_their_targets_one_by_one():
    b = _caster(MISSILE, extra=[unit("T2", "npcs", (6, 2))])
    step(b, "use_ability", option=0)
    step(b, "pick_target", "T", faces=[3])
    assert legal_targets(b, "pick_target") == {"T", "T2"}
    step(b, "pick_target", "T2", faces=[4])
    assert (u(b, "T").hp, u(b, "T2").hp) == (26, 25) and "pick_target" not in actions(b)


def test_healing_restores_hit_points_not_stamina():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), abilities=[CURE]), unit("F", "pcs", (1, 0), hp=20, sp=10,
                                                                              hp_now=5, sp_now=0),
                           unit("T", "npcs", (5, 0))])
    step(b, "use_ability", option=0)
    assert legal_targets(b, "pick_ally") == {"A", "F"}   # touch: self or adjacent
    step(b, "pick_ally", "F", faces=[6])
    f = u(b, "F")
    assert f.hp == 5 + 10 and f.state["sp"] == 0


def test_an_area_ability_centred_on_an_intersection():
    b = make(floor(10, 5), [unit("A", "pcs", (0, 2), abilities=[BURST]), unit("T", "npcs", (5, 2)),
                            unit("T2", "npcs", (6, 3)), unit("T3", "npcs", (8, 2))])
    step(b, "use_ability", option=0, faces=[])
    assert (6, 3) in legal_squares(b, "pick_point")
    ev = step(b, "pick_point", square=(6, 3), faces=[3, 4, 1, 20])   # 7 damage; T fails, T2 saves (half)
    assert {b.enc.units[i].name for i in first(ev, "blast").get("caught")} == {"T", "T2"}
    assert (u(b, "T").hp, u(b, "T2").hp, u(b, "T3").hp) == (23, 27, 30)


def test_mind_affecting_abilities_do_not_touch_the_immune():
    b = _caster(THRUST, t_over={"immune": ["mind"]})
    step(b, "use_ability", option=0)
    ev = step(b, "pick_target", "T")
    assert first(ev, "immune") and u(b, "T").hp == 30


def test_uses_run_out():
    b = _caster({**THRUST, "uses": 1})
    step(b, "use_ability", option=0)
    step(b, "pick_target", "T", faces=[20, 1, 1])
    end(b)
    end(b)
    assert "use_ability" not in actions(b)


def test_a_concentration_spell_lasts_while_concentrated_on():
    b = _caster(HOLD)
    step(b, "use_ability", option=0)
    step(b, "pick_target", "T", faces=[1])
    t = u(b, "T")
    end(b)
    end(b)
    assert "entangled" in t.state["conds"] and "concentrate" in actions(b)
    step(b, "concentrate")
    end(b)
    end(b)
    assert "entangled" in t.state["conds"]
    end(b)                                          # no concentration this turn: the spell ends
    assert "entangled" not in t.state["conds"]


def test_a_dismissible_spell_can_be_dismissed():
    b = _caster(SHAKE)
    step(b, "use_ability", option=0)
    step(b, "pick_target", "T", faces=[1])
    end(b)
    end(b)
    assert "shaken" in u(b, "T").state["conds"] and "dismiss" in actions(b)
    step(b, "dismiss")
    assert "shaken" not in u(b, "T").state["conds"]


def test_activate_an_item():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), hp_now=10, items=[SERUM]), unit("T", "npcs", (3, 0))])
    step(b, "activate_item", option=0, faces=[5])
    a = u(b, "A")
    assert a.hp == 15 and a.state["item_uses"] == [0] and "activate_item" not in actions(b)
    assert why(b, "activate_item", option=0) == f"A has used up its {SERUM['name']}"
    assert why(b, "activate_item", option=3) == f"A has no item 3 (its items: 0 {SERUM['name']})"
    assert why(b, "use_ability", option=0) == "A has no ability 0 (its abilities: none)"
