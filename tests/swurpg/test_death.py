"""0 HP: unconscious, prone, weapons dropped; death saves at the start of its turns (3 successes stable, 3 failures
dead, a natural 1 two failures, a natural 20 1 HP); damage at 0 HP (a failure, two on a critical hit); medpac and
Treat Injury DC 25; attacks on an unconscious creature (advantage, melee within 5 ft critical)."""
import pytest

from engine.rulesets.swurpg import combat as C

from .helpers import (BLASTER, CLUB, FRAG, KNIFE, RS, actions, all_of, end, first, floor, legal_targets, make, step,
                      u, unit)


def test_dropping_to_0_hp_knocks_unconscious_prone_and_drops_the_weapons():
    b = make(floor(5, 1), [unit("E", "npcs", (0, 0), CLUB, str=16), unit("P", "pcs", (1, 0), BLASTER, KNIFE, hp_now=3),
                           unit("M", "pcs", (4, 0), BLASTER)], order=["P", "E", "M"])
    end(b)                                          # P; E's turn
    ev = step(b, "attack", "P", faces=[15, 6])      # E's turn ends by itself; M's (P's death saves wait for its turn)
    p = u(b, "P")
    assert p.hp == 0 and p.down and not p.dead and all_of(ev, "down")
    assert {"unconscious", "prone"} <= set(p.state["conds"])
    assert p.state["wield"] == [] and p.state["dropped"] == [0]
    assert p.state["death"] == [0, 0]


def _dying(**p_over):
    """Round 1, M's turn: P (pcs, next in the order) just dropped to 0 HP (M at (1, 0) beside it); E (npcs) at
    (4, 0) acts last."""
    b = make(floor(5, 1), [unit("M", "pcs", (1, 0), BLASTER, medpacs=1, skills={"treat_injury": 5}),
                           unit("P", "pcs", (0, 0), BLASTER, **p_over), unit("E", "npcs", (4, 0), BLASTER)])
    p = u(b, "P")
    C.deal_damage(b.enc, None, p, 40, "energy")
    assert b.actor is u(b, "M") and p.down
    return b, p


def _save(b, face):
    """M ends its turn, P rolls its death save (face), E's turn ends; back to M."""
    end(b, faces=[face] if face else [])
    if b.actor is u(b, "E"):
        end(b)


@pytest.mark.parametrize("faces,death,stable,dead", [
    ([10], [1, 0], False, False),
    ([9], [0, 1], False, False),
    ([1], [0, 2], False, False),                  # a natural 1: two failures
    ([10, 15, 19], [3, 0], True, False),          # three successes: stable
    ([9, 2, 5], [0, 3], False, True),             # three failures: dead
    ([1, 9], [0, 3], False, True),
    ([12, 1, 14, 3], [2, 3], False, True),        # failures and successes counted apart
])
def test_death_saves(faces, death, stable, dead):
    b, p = _dying()
    for f in faces:
        _save(b, f)
    assert p.state["death"] == death and p.state["stable"] == stable and p.dead == dead
    assert p.hp == 0


def test_a_stable_creature_stays_unconscious_and_rolls_no_more():
    b, p = _dying()
    for f in (10, 11, 12):
        _save(b, f)
    _save(b, None)                                  # no die asked for P now
    _save(b, None)
    assert p.state["stable"] and p.hp == 0 and p.down and "unconscious" in p.state["conds"]


def test_a_dead_creature_rolls_no_more():
    b, p = _dying()
    for f in (1, 1):
        _save(b, f)
    assert p.dead
    _save(b, None)


def test_a_natural_20_regains_1_hp_and_the_creature_acts():
    b, p = _dying()
    end(b, faces=[20])
    assert p.hp == 1 and not p.down and "unconscious" not in p.state["conds"] and p.state["death"] == [0, 0]
    assert b.actor is p and "end_turn" in actions(b)


@pytest.mark.parametrize("crit,failures", [(False, 1), (True, 2)])
def test_damage_at_0_hp_is_a_failed_death_save_two_on_a_critical_hit(crit, failures):
    b, p = _dying()
    ev = C.deal_damage(b.enc, None, p, 3, "energy", crit=crit)
    assert p.state["death"] == [0, failures] and p.hp == 0 and first(ev, "death_failure")


def test_damage_at_0_hp_ends_stability_and_a_third_failure_kills():
    b, p = _dying()
    p.state["stable"] = True
    p.state["death"] = [3, 1]
    C.deal_damage(b.enc, None, p, 3, "energy")
    assert not p.state["stable"] and p.state["death"][1] == 2
    C.deal_damage(b.enc, None, p, 3, "energy")
    assert p.dead


def test_damage_at_0_hp_that_immunity_negates_is_no_failure():
    b, p = _dying(immune=["fire"])
    C.deal_damage(b.enc, None, p, 5, "fire")
    assert p.state["death"] == [0, 0]


def test_a_grenade_blast_on_a_dying_creature_is_a_failed_death_save():
    b = make(floor(8, 1), [unit("E", "npcs", (0, 0), KNIFE, FRAG), unit("P", "pcs", (5, 0), BLASTER),
                           unit("M", "pcs", (7, 0), BLASTER)], order=["P", "E", "M"])
    p = u(b, "P")
    end(b)
    C.deal_damage(b.enc, None, p, 40, "energy")
    ev = step(b, "grenade", square=(6, 0), faces=[2, 2, 5])   # P fails its Dex save (unconscious): no die; M saves 5
    assert p.state["death"][1] == 1 and first(ev, "death_failure").target == p.id


def test_an_unconscious_creature_can_be_attacked():
    b, p = _dying()
    end(b, faces=[12])               # M; P's death save; E's turn
    assert b.actor is u(b, "E") and p.state["death"] == [1, 0]
    assert "P" in legal_targets(b, "attack")


def test_a_melee_hit_within_5_ft_on_the_unconscious_is_critical_with_advantage():
    """The resolution (`_strike`) of an attack on an unconscious creature at 0 HP: advantage, and a melee hit from
    within 5 ft critical: two failed death saves."""
    b, p = _dying()
    e = u(b, "E")
    e.pos = (1, 0)
    b.dice.push(3, 12)               # advantage: the higher, 12 + 2 >= AC 10
    ev = RS._strike(b.enc, u(b, "E"), p, None, b.dice, "unarmed strike", True)
    atk = first(ev, "attack")
    assert atk.get("faces") == [3, 12] and atk.get("crit") and p.state["death"][1] == 2


def test_medpac_heals_and_wakes_a_dying_ally():
    b, p = _dying()
    m = u(b, "M")
    assert "P" in legal_targets(b, "medpac")
    ev = step(b, "medpac", "P", faces=[3, 2])    # 2d4 + 2
    assert first(ev, "medpac").get("amount") == 7 and p.hp == 7 and not p.down
    assert "unconscious" not in p.state["conds"] and p.state["death"] == [0, 0] and m.state["medpacs"] == 0
    assert first(ev, "wakes")


def test_no_medpac_left_none_to_apply():
    b, p = _dying(medpacs=0)
    u(b, "M").state["medpacs"] = 0
    b.enc.version += 1
    assert "medpac" not in actions(b)


@pytest.mark.parametrize("face,ok", [(20, True), (19, False)])
def test_treat_injury_dc_25_stabilizes(face, ok):
    b, p = _dying()
    # Treat Injury +5; M's turn then ends by itself: a P still dying rolls its death save (10)
    ev = step(b, "stabilize", "P", faces=[face] + ([] if ok else [10]))
    chk = first(ev, "check")
    assert chk.get("dc") == 25 and chk.get("total") == face + 5 and p.state["stable"] == ok
    assert p.hp == 0 and p.down


def test_treat_injury_on_a_stable_or_standing_ally_is_not_offered():
    b, p = _dying()
    assert "P" in legal_targets(b, "stabilize")
    p.state["stable"] = True
    b.enc.version += 1
    assert "P" not in legal_targets(b, "stabilize")
    assert "stabilize" not in actions(make(floor(3, 1), [unit("M", "pcs", (0, 0), BLASTER),
                                                         unit("P", "pcs", (1, 0), BLASTER, hp_now=5),
                                                         unit("E", "npcs", (2, 0), BLASTER)]))


def test_any_healing_wakes():
    b, p = _dying()
    ev = C.heal(p, 1, "test")
    assert p.hp == 1 and not p.down and first(ev, "wakes")
