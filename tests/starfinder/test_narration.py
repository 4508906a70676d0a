"""Starfinder's sentences for a GM: attacks with the AC they went against, grenades and their scatter, saves."""
from engine.core.narration import narrate_events

from .helpers import FRAG, KNIFE, LASER, RS, floor, make, step, unit


def test_an_attack_names_the_weapon_and_eac_or_kac():
    b = make(floor(5, 1), [unit("A", "pcs", (0, 0), LASER), unit("T", "npcs", (3, 0), KNIFE)])
    lines = narrate_events(step(b, "ranged_attack", "T", faces=[15, 3]), b.enc, RS)
    assert lines[0].startswith("A fires their laser pistol at T: 15 (15+0) vs EAC 10, hit, 3 damage")


def test_a_missed_grenade_tells_where_it_scatters():
    b = make(floor(12, 12), [unit("A", "pcs", (1, 5), FRAG), unit("T", "npcs", (4, 4))])
    lines = narrate_events(step(b, "explode_attack", square=(7, 5), faces=[2, 1, 2, 3, 20]), b.enc, RS)
    assert any("at the intersection (7, 5): 0 (2-2) vs AC 5 [range -2], miss" in x for x in lines)
    assert "it scatters: d8 1 (short, toward the thrower), d4 2: it lands at (5, 5)" in lines
    assert any(x.startswith("T rolls a Ref save against frag grenade: 20") for x in lines)


def test_decisions_read_with_their_weapon_ability_or_intersection():
    from engine.core.decision import Decision
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), LASER, FRAG, abilities=[{"name": "mind thrust", "target": "enemy",
                                                                              "range": 30, "damage": "2d10"}]),
                           unit("T", "npcs", (5, 0))])
    assert RS.describe(Decision("draw", option=1), b.enc) == "Draw a weapon (frag grenade)"
    assert RS.describe(Decision("use_ability", option=0), b.enc) == "Use a special ability / cast a spell (mind thrust)"
    assert RS.describe(Decision("explode_attack", square=(3, 0)), b.enc).endswith("at the intersection (3, 0)")
