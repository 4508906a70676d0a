"""Combat maneuvers: a melee attack roll against KAC + 8 (bull rush, dirty trick, disarm, grapple and pin, reposition,
sunder, trip), each with its margin rule."""
import pytest

from .helpers import (KNIFE, LASER, RIFLE, RS, act, actions, all_of, end, first, floor, legal_squares, legal_targets,
                      make, step, u, unit, why)

TRIPPER = {"name": "tripping staff", "kind": "melee", "damage": "1d6", "type": "B", "maneuvers": ["trip"]}


def _duel(a_weapons=(KNIFE,), rows=None, t_at=(2, 1), a_over=None, t_over=None, extra=()):
    """A (pcs, at (1, 1)) against T (npcs, a laser pistol: it threatens nothing)."""
    return make(rows or floor(7, 3), [unit("A", "pcs", (1, 1), *a_weapons, **(a_over or {})),
                                      unit("T", "npcs", t_at, LASER, **(t_over or {})), *extra])


@pytest.mark.parametrize("key", ["bull_rush", "dirty_trick_shaken", "disarm", "grapple", "reposition", "sunder",
                                 "trip"])
def test_every_maneuver_is_a_melee_attack_against_kac_plus_8(key):
    b = _duel()
    atk = first(step(b, key, "T", faces=[1]), "attack")
    assert (atk.get("defense"), atk.get("defense_name"), atk.get("hit")) == (12 + 8, "KAC", False)


def test_an_energy_weapon_still_goes_against_kac_for_a_maneuver():
    b = _duel(a_weapons=({**KNIFE, "type": "E"},))
    assert first(step(b, "trip", "T", faces=[1]), "attack").get("defense") == 20


def test_maneuvers_need_the_target_within_reach_and_provoke_nothing():
    b = _duel(t_at=(3, 1))
    assert "trip" not in actions(b) and "beyond" in why(b, "trip", "T")
    b = make(floor(7, 3), [unit("A", "pcs", (1, 1), KNIFE), unit("T", "npcs", (2, 1), KNIFE)])
    assert not all_of(step(b, "trip", "T", faces=[1]), "aoo")


# ---- bull rush -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bab,end_x", [(10, 3), (14, 3), (15, 4), (20, 5), (25, 6)])
def test_bull_rush_5_ft_plus_5_per_5_over(bab, end_x):
    b = _duel(rows=floor(12, 3), a_over={"bab": bab})
    step(b, "bull_rush", "T", faces=[10])           # 10 + bab vs KAC 12 + 8: the margin is bab - 10
    assert u(b, "T").pos == (end_x, 1)


def test_bull_rush_stops_at_an_obstacle():
    b = _duel(rows=["......", "....#.", "......"], a_over={"bab": 20})
    step(b, "bull_rush", "T", faces=[19])            # 39 vs 20: 4 squares, but the wall is 2 away
    assert u(b, "T").pos == (3, 1)


def test_a_bull_rushed_foe_provokes_from_others_who_threaten_it():
    b = _duel(rows=floor(8, 3), extra=[unit("B", "pcs", (3, 0), KNIFE)])
    ev = step(b, "bull_rush", "T", faces=[20, 1])   # T leaves B's reach: B's attack of opportunity (a miss)
    assert [e.actor for e in all_of(ev, "aoo")] == [u(b, "B").id]


# ---- dirty trick -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cond", ["blinded", "deafened", "entangled", "off_target", "shaken", "sickened"])
def test_dirty_trick_gives_the_chosen_condition(cond):
    b = _duel()
    ev = step(b, f"dirty_trick_{cond}", "T", faces=[20])
    assert cond in u(b, "T").state["conds"] and first(ev, "condition").get("rounds") == 1


def test_every_dirty_trick_refused_says_why():
    from engine.rulesets.starfinder import conditions as K

    b = _duel()
    K.add(u(b, "A").state, "pinned", K.FOREVER)
    b.enc.version += 1  # a change made by hand: the legal decisions are worked out again
    for cond in K.DIRTY_TRICKS:
        assert why(b, f"dirty_trick_{cond}", "T") == "A is pinned: only escaping or grappling back"


def test_dirty_trick_lasts_1_round_plus_1_per_5_over_and_ends_before_the_tricksters_turn():
    b = _duel(a_over={"bab": 10})
    step(b, "dirty_trick_shaken", "T", faces=[15])  # 25 vs 20: 2 rounds
    t = u(b, "T")
    end(b)
    end(b)                                          # T's turn of round 1 done; round 2 begins with A
    assert "shaken" in t.state["conds"]
    end(b)
    end(b)                                          # round 3: gone just before A's initiative count
    assert "shaken" not in t.state["conds"]


def test_the_target_can_shake_off_a_dirty_trick_as_a_move_action():
    b = _duel()
    step(b, "dirty_trick_off_target", "T", faces=[20])
    end(b)
    step(b, "shake_off")
    t = u(b, "T")
    assert "off_target" not in t.state["conds"] and b.enc.budget["move"] == 0


# ---- disarm ----------------------------------------------------------------------------------------------------------
def test_disarm_drops_the_weapon_into_the_targets_square_to_be_picked_up():
    b = _duel(a_weapons=(KNIFE, LASER))
    assert u(b, "A").state["wield"] == [0, 1]       # a knife and a pistol: no free hand to catch it
    step(b, "disarm", "T", faces=[20])
    t = u(b, "T")
    assert t.state["wield"] == [] and t.state["dropped"] == [0]
    end(b)
    assert "ranged_attack" not in actions(b)
    step(b, "pick_up", option=0)
    assert t.state["wield"] == [0] and t.state["dropped"] == []


def test_disarm_with_a_free_hand_takes_the_weapon():
    b = _duel()
    step(b, "disarm", "T", faces=[20])
    t = u(b, "T")
    assert t.state["lost"] == [0] and t.state["wield"] == [] and t.state["dropped"] == []
    end(b)
    assert not {"draw", "pick_up", "ranged_attack"} & actions(b)


def test_disarm_needs_a_held_weapon():
    b = _duel(t_over={"weapons": []})
    assert "disarm" not in actions(b) and "holds no weapon" in why(b, "disarm", "T")


# ---- grapple ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("face,cond", [(19, "grappled"), (18, None)])
def test_grapple_at_kac_plus_8(face, cond):
    b = _duel(a_over={"bab": 1})
    step(b, "grapple", "T", faces=[face])
    conds = u(b, "T").state["conds"]
    assert ("grappled" in conds) == (cond == "grappled") and "pinned" not in conds


def test_a_grapple_reaching_kac_plus_13_pins():
    b = _duel(a_over={"bab": 5})
    ev = step(b, "grapple", "T", faces=[20])        # 25 vs KAC 12 + 13
    assert "pinned" in u(b, "T").state["conds"] and first(ev, "pinned")


def test_grapple_needs_a_free_hand_and_one_target_at_a_time():
    b = _duel(a_weapons=(RIFLE,))
    assert "grapple" not in actions(b) and "free hand" in why(b, "grapple", "T")
    b = _duel(extra=[unit("T2", "npcs", (1, 2), LASER)])
    step(b, "grapple", "T", faces=[20])
    end(b)
    end(b)
    end(b)
    assert legal_targets(b, "grapple") == {"T"}     # renewing is allowed, a second target is not


def test_a_grappled_creature_cannot_move_and_takes_minus_2_ac_and_attack():
    b = _duel()
    step(b, "grapple", "T", faces=[20])
    end(b)
    assert not {"move", "guarded_step", "withdraw"} & actions(b)
    atk = first(step(b, "ranged_attack", "A", faces=[1, 1]), "attack")   # A's AoO (knife) comes first
    assert atk.get("defense") == 12 - 2


def test_a_pinned_creature_is_flat_footed_at_minus_4_more_and_can_only_escape_or_grapple_back():
    b = _duel(a_over={"bab": 5})
    step(b, "grapple", "T", faces=[20])
    end(b)
    assert actions(b) <= {"end_turn", "escape", "grapple", "total_defense", "fight_defensively", "shake_off"}
    assert "pinned" in why(b, "ranged_attack", "A")
    t = u(b, "T")
    assert b.ruleset.attack_numbers(b.enc, u(b, "A"), t, 0, "melee attack")[1] == 12 - 4 - 2


def test_the_grapple_lasts_until_the_end_of_the_grapplers_next_turn_unless_renewed():
    b = _duel()
    step(b, "grapple", "T", faces=[20])
    end(b)
    end(b)                                          # T's turn; round 2, A's turn
    t = u(b, "T")
    assert "grappled" in t.state["conds"]
    end(b)                                          # A does not renew: it ends at the end of A's turn
    assert "grappled" not in t.state["conds"] and t.state["grappled_by"] is None


def test_renewing_keeps_it_and_moving_away_ends_it():
    b = _duel()
    step(b, "grapple", "T", faces=[20])
    end(b)
    end(b)
    step(b, "grapple", "T", faces=[20])             # renewed on A's next turn
    end(b)
    t = u(b, "T")
    assert "grappled" in t.state["conds"]
    end(b)
    step(b, "move", square=(0, 1))
    assert "grappled" not in t.state["conds"]


@pytest.mark.parametrize("face,free", [(15, True), (14, False)])   # Acrobatics 0 vs 13 + KAC 12 (here +10 skill)
def test_escape_with_acrobatics_against_13_plus_the_grapplers_kac(face, free):
    b = _duel(t_over={"acrobatics": 10})
    step(b, "grapple", "T", faces=[20])
    end(b)
    step(b, "escape", faces=[face])
    assert ("grappled" not in u(b, "T").state["conds"]) == free


def test_grappling_back_turns_the_grapple_around():
    b = _duel()
    step(b, "grapple", "T", faces=[20])
    end(b)
    step(b, "grapple", "A", faces=[20])
    a, t = u(b, "A"), u(b, "T")
    assert "grappled" in a.state["conds"] and "grappled" not in t.state["conds"] and a.state["grappled_by"] == t.id


# ---- reposition ------------------------------------------------------------------------------------------------------
def test_reposition_moves_the_target_within_reach_and_5_ft_per_5_over():
    b = _duel(rows=floor(7, 5), t_at=(2, 2), a_over={"bab": 0})
    b.enc.units[0].pos = (1, 2)
    step(b, "reposition", "T", faces=[20])          # 20 vs 20: 5 ft
    assert legal_squares(b, "reposition_to") == {(1, 1), (2, 1), (1, 3), (2, 3)}
    assert actions(b) == {"end_turn", "reposition_to"}
    step(b, "reposition_to", square=(2, 3))
    assert u(b, "T").pos == (2, 3)


# ---- sunder ----------------------------------------------------------------------------------------------------------
def test_sunder_damages_the_held_weapon_past_its_hardness():
    axe = {"name": "axe", "kind": "melee", "damage": "1d12", "type": "S"}
    b = _duel(a_weapons=(axe,), a_over={"str": 5}, t_over={"weapons": [{**LASER, "level": 1}]})
    # laser level 1: hardness 7, 18 HP; damage 12 + 5 - 7 = 10: broken (more than half)
    ev = step(b, "sunder", "T", faces=[20, 12])
    t = u(b, "T")
    assert first(ev, "object_damage").get("amount") == 10 and first(ev, "object_broken").get("destroyed") is False
    assert b.ruleset.attack_numbers(b.enc, t, u(b, "A"), 0, "ranged attack")[0] == -2
    end(b)
    end(b)
    step(b, "sunder", "T", faces=[20, 3])            # 3 + 5 - 7 = 1: 11 of 18
    end(b)
    end(b)
    step(b, "sunder", "T", faces=[20, 12])           # 10 more: destroyed
    assert t.state["lost"] == [0] and t.state["wield"] == []


# ---- trip ------------------------------------------------------------------------------------------------------------
def test_trip_knocks_prone_and_a_trip_weapon_adds_2():
    b = _duel(a_weapons=(TRIPPER,))
    atk = first(step(b, "trip", "T", faces=[18]), "attack")
    assert atk.get("bonus") == 2 and "prone" in u(b, "T").state["conds"]


def test_the_estimate_of_a_maneuver_counts_its_weapons_bonus():
    """The trip weapon's +2 is in the estimate's odds as in the roll: T's KAC 12 + 8 = 20 needs 18 at +2 (15%)
    for a trip, 20 (5%) for a bull rush."""
    b = _duel(a_weapons=(TRIPPER,))
    t = u(b, "T").id
    assert RS.estimate(b.enc, u(b, "A"), act("trip", t)).hit_chance == pytest.approx(0.15)
    assert RS.estimate(b.enc, u(b, "A"), act("bull_rush", t)).hit_chance == pytest.approx(0.05)


@pytest.mark.parametrize("altitude,prone,left", [(20, False, 10), (10, True, 0)])
def test_trip_in_the_air_descends_10_ft(altitude, prone, left):
    b = _duel()
    u(b, "T").state["altitude"] = altitude
    step(b, "trip", "T", faces=[20])
    t = u(b, "T")
    assert ("prone" in t.state["conds"]) == prone and t.state["altitude"] == left


def test_trip_in_zero_gravity_leaves_the_target_off_kilter_until_it_rights_itself():
    b = _duel()
    u(b, "T").state["zero_g"] = True
    step(b, "trip", "T", faces=[20])
    t = u(b, "T")
    assert "off_kilter" in t.state["conds"] and "prone" not in t.state["conds"]
    end(b)
    assert "move" not in actions(b)
    step(b, "stand_up")
    assert "off_kilter" not in t.state["conds"]
