"""Damage by type: resistance halves, vulnerability doubles, immunity, their stacking, the kinetic group against its
subtypes, flat Damage Resistance first; temporary HP first and not stacking; regeneration."""
import pytest

from engine.rulesets.swurpg import combat as C

from .helpers import BLASTER, KNIFE, RS, end, first, floor, make, step, u, unit


def _unit(**over):
    return RS.make_unit(0, unit("T", "npcs", (0, 0), KNIFE, **over), "test")


@pytest.mark.parametrize("over,amount,dtype,taken", [
    ({}, 9, "energy", 9),
    ({"resist": ["energy"]}, 9, "energy", 4),                          # halved, rounded down
    ({"resist": ["energy"]}, 9, "fire", 9),                            # another type: untouched
    ({"vulnerable": ["ion"]}, 9, "ion", 18),                           # doubled
    ({"immune": ["poison"]}, 9, "poison", 0),
    ({"resist": ["energy"], "vulnerable": ["energy"]}, 9, "energy", 9),  # they cancel
    ({"resist": ["energy", "energy"]}, 9, "energy", 4),                # two resistances do not stack
    ({"immune": ["fire"], "resist": ["fire"]}, 9, "fire", 0),          # immunity wins
    ({"immune": ["fire"], "vulnerable": ["fire"]}, 9, "fire", 0),
    ({"immune": ["fire"], "resist": ["fire"], "vulnerable": ["fire"]}, 9, "fire", 0),
    # the kinetic group covers all three subtypes; a subtype only itself
    ({"resist": ["kinetic"]}, 9, "piercing", 4),
    ({"resist": ["kinetic"]}, 9, "bludgeoning", 4),
    ({"resist": ["kinetic"]}, 9, "slashing", 4),
    ({"resist": ["kinetic"]}, 9, "energy", 9),
    ({"resist": ["bludgeoning"]}, 9, "bludgeoning", 4),
    ({"resist": ["bludgeoning"]}, 9, "piercing", 9),
    ({"vulnerable": ["kinetic"], "resist": ["slashing"]}, 9, "slashing", 9),   # group and subtype cancel too
    ({"immune": ["kinetic"]}, 9, "slashing", 0),
    # flat Damage Resistance: subtracted first (minimum 0), then the halving
    ({"dr": {"energy": 2}}, 9, "energy", 7),
    ({"dr": {"energy": 2}}, 1, "energy", 0),
    ({"dr": {"energy": 2}}, 9, "ion", 9),
    ({"dr": {"energy": 2}, "resist": ["energy"]}, 9, "energy", 3),     # (9 - 2) // 2, not 9 // 2 - 2
    ({"dr": {"energy": 3}, "vulnerable": ["energy"]}, 9, "energy", 12),  # (9 - 3) * 2
    ({"dr": {"kinetic": 2}}, 9, "piercing", 7),
    ({"dr": {"energy": 5}, "immune": ["energy"]}, 9, "energy", 0),
])
def test_damage_by_type(over, amount, dtype, taken):
    assert C.reduce_damage(_unit(**over), amount, dtype) == taken


def test_resistance_applies_to_an_attack_s_damage():
    b = make(floor(5, 1), [unit("A", "pcs", (0, 0), BLASTER), unit("T", "npcs", (3, 0), KNIFE, resist=["energy"])])
    ev = step(b, "attack", "T", faces=[15, 5])
    dmg = first(ev, "damage")
    assert dmg.get("rolled") == 5 and dmg.get("amount") == 2 and u(b, "T").hp == 28


def test_a_critical_hit_is_doubled_before_resistance_halves_it():
    b = make(floor(5, 1), [unit("A", "pcs", (0, 0), {**BLASTER, "bonus_damage": 1}),
                           unit("T", "npcs", (3, 0), KNIFE, resist=["energy"])])
    ev = step(b, "attack", "T", faces=[20, 4, 3])
    assert first(ev, "damage").get("amount") == (4 + 3 + 1) // 2


# ---- temporary hit points -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("temp,amount,temp_left,hp", [(5, 3, 2, 30), (5, 5, 0, 30), (5, 8, 0, 27), (0, 4, 0, 26)])
def test_temporary_hp_are_lost_first(temp, amount, temp_left, hp):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("T", "npcs", (2, 0), KNIFE, temp_hp=temp)])
    t = u(b, "T")
    ev = C.deal_damage(b.enc, None, t, amount, "energy")
    assert t.state["temp_hp"] == temp_left and t.hp == hp
    assert first(ev, "damage").get("temp") == min(temp, amount)


def test_temporary_hp_absorb_damage_after_resistance():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE),
                           unit("T", "npcs", (2, 0), KNIFE, temp_hp=5, resist=["energy"])])
    t = u(b, "T")
    C.deal_damage(b.enc, None, t, 10, "energy")   # halved to 5: all of it from the temporary HP
    assert t.state["temp_hp"] == 0 and t.hp == 30


@pytest.mark.parametrize("have,gain,after", [(5, 3, 5), (5, 8, 8), (0, 4, 4), (6, 6, 6)])
def test_temporary_hp_do_not_stack_the_higher_is_kept(have, gain, after):
    t = _unit(temp_hp=have)
    C.gain_temp_hp(t, gain)
    assert t.state["temp_hp"] == after


# ---- regeneration ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("hp_now,regen,after", [(20, 3, 23), (29, 3, 30), (30, 3, 30)])
def test_regeneration_heals_at_the_start_of_the_creature_s_turn(hp_now, regen, after):
    b = make(floor(5, 1), [unit("A", "pcs", (0, 0), BLASTER),
                           unit("T", "npcs", (4, 0), KNIFE, regeneration=regen, hp_now=hp_now)])
    t = u(b, "T")
    assert t.hp == hp_now          # not on A's turn
    end(b)                         # T's turn starts
    assert b.actor is t and t.hp == after


def test_regeneration_does_not_work_at_0_hp():
    b = make(floor(5, 1), [unit("A", "pcs", (0, 0), BLASTER),
                           unit("T", "npcs", (4, 0), KNIFE, regeneration=5, hp_now=2),
                           unit("U", "npcs", (3, 0), KNIFE)])
    t = u(b, "T")
    C.deal_damage(b.enc, None, t, 10, "energy")
    assert t.hp == 0 and t.down
    end(b, faces=[12])      # A ends; T's turn: a death save, no regeneration
    assert t.hp == 0 and t.state["death"] == [1, 0]
