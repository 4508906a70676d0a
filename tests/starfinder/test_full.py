"""Full actions: full attack (two attacks at -4, the second with any weapon at any foe), charge, run, withdraw,
coup de grace, fighting defensively in a full attack."""
import pytest

from .helpers import (KNIFE, LASER, RS, act, actions, all_of, end, first, floor, legal_squares, legal_targets, make,
                      step, u,
                      unit, why)

CANNON = {"name": "plasma cannon", "kind": "ranged", "damage": "2d10", "type": "E & F", "range": 40, "hands": 2,
          "unwieldy": True}


def _melee(**over):
    return make(floor(6, 3), [unit("A", "pcs", (1, 1), KNIFE, LASER, **over), unit("T", "npcs", (2, 1)),
                              unit("T2", "npcs", (2, 2))])


def test_full_attack_two_attacks_at_minus_4():
    b = _melee()
    ev = step(b, "full_attack_melee", "T", faces=[1])
    assert first(ev, "attack").get("bonus") == -4
    assert actions(b) == {"end_turn", "next_melee", "next_ranged"}
    ev = step(b, "next_melee", "T2", faces=[16, 2])
    atk = first(ev, "attack")
    assert atk.get("bonus") == -4 and atk.get("hit") and u(b, "T2").hp == 28
    assert b.enc.actor.name == "T"                 # the full action took the turn


def test_the_second_attack_may_use_another_weapon():
    b = _melee()
    step(b, "full_attack_melee", "T", faces=[1])
    ev = step(b, "next_ranged", "T2", faces=[1])
    assert first(ev, "attack").get("weapon") == "laser pistol"


def test_ending_the_turn_forgoes_the_second_attack():
    b = _melee()
    step(b, "full_attack_melee", "T", faces=[1])
    end(b)
    assert b.enc.actor.name == "T" and "pending" not in b.enc.flags


def test_fighting_defensively_in_a_full_attack_minus_8():
    b = _melee()
    step(b, "fight_defensively")
    assert first(step(b, "full_attack_melee", "T", faces=[1]), "attack").get("bonus") == -8


def test_no_full_attack_with_an_unwieldy_weapon():
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), CANNON), unit("T", "npcs", (5, 1))])
    assert "full_attack_ranged" not in actions(b) and "ranged_attack" in actions(b)
    assert "unwieldy" in why(b, "full_attack_ranged", "T")


def test_a_full_ranged_attack_provokes_once_per_reactor():
    b = make(floor(8, 3), [unit("A", "pcs", (1, 1), LASER), unit("E", "npcs", (2, 1), KNIFE),
                           unit("T", "npcs", (6, 1))])
    ev = step(b, "full_attack_ranged", "T", faces=[1, 1])   # E's attack of opportunity, then A's first shot
    assert len(all_of(ev, "aoo")) == 1
    ev = step(b, "next_ranged", "T", faces=[1])             # E has no reaction left
    assert not all_of(ev, "aoo")


# ---- charge ------------------------------------------------------------------------------------------------------
def test_charge_double_speed_minus_2_attack_minus_2_ac():
    b = make(floor(14, 3), [unit("A", "pcs", (0, 1), KNIFE), unit("T", "npcs", (12, 1), KNIFE)])
    ev = step(b, "charge", "T", faces=[14, 1])
    a = u(b, "A")
    atk = first(ev, "attack")
    assert a.pos == (11, 1) and atk.get("bonus") == -2 and atk.get("hit")
    assert b.enc.actor.name == "T"
    assert first(step(b, "melee_attack", "A", faces=[1]), "attack").get("defense") == 12 - 2
    end(b)
    assert not a.state["charged"]                            # until the start of A's next turn


@pytest.mark.parametrize("rows,t_at,legal,why_part", [
    (["." * 16] * 3, (14, 1), False, "straight, clear line"),   # the end square 13 squares away: 65 ft > 60 ft
    (["." * 16] * 3, (13, 1), True, ""),                        # 12 squares: double the speed of 30 ft
    ([".....~........", ".....~........", ".....~........"], (8, 1), False, "difficult terrain"),
    (["..............", "..............", ".............."], (2, 1), False, "10 ft"),    # too close to charge
])
def test_charge_limits(rows, t_at, legal, why_part):
    b = make(rows, [unit("A", "pcs", (0, 1), KNIFE), unit("T", "npcs", t_at, KNIFE)])
    assert ("T" in legal_targets(b, "charge")) == legal
    if not legal:
        assert why_part in why(b, "charge", "T")


def test_no_charge_through_a_creature_even_an_ally():
    b = make(floor(10, 3), [unit("A", "pcs", (0, 1), KNIFE), unit("F", "pcs", (3, 1)), unit("T", "npcs", (8, 1))])
    assert "T" not in legal_targets(b, "charge")


def test_no_charge_while_entangled_or_prone():
    b = make(floor(10, 3), [unit("A", "pcs", (0, 1), KNIFE), unit("T", "npcs", (6, 1))])
    u(b, "A").state["conds"]["entangled"] = -1
    assert "charge" not in actions(b)


# ---- run -------------------------------------------------------------------------------------------------------------
def test_run_four_times_speed_in_a_straight_line_and_flat_footed():
    b = make(floor(30, 3), [unit("A", "pcs", (0, 1), LASER, speed=30), unit("T", "npcs", (29, 1), LASER)])
    squares = legal_squares(b, "run")
    assert (24, 1) in squares and (25, 1) not in squares and (5, 2) not in squares
    step(b, "run", square=(24, 1))
    a = u(b, "A")
    assert "flat_footed" in a.state["conds"]
    assert first(step(b, "ranged_attack", "A", faces=[1]), "attack").get("defense") == 10 - 2
    end(b)
    assert "flat_footed" not in a.state["conds"]


def test_no_run_across_difficult_terrain():
    b = make(["....~.....", "..........", ".........."], [unit("A", "pcs", (0, 0), LASER),
                                                         unit("T", "npcs", (9, 2))])
    assert (3, 0) in legal_squares(b, "run") and (5, 0) not in legal_squares(b, "run")


def test_running_provokes():
    b = make(floor(30, 3), [unit("A", "pcs", (1, 1), LASER), unit("E", "npcs", (0, 1), KNIFE)])
    assert all_of(step(b, "run", square=(10, 1), faces=[1]), "aoo")


# ---- withdraw, coup de grace -----------------------------------------------------------------------------------------
def test_withdraw_double_speed():
    b = make(floor(16, 3), [unit("A", "pcs", (0, 1), LASER), unit("T", "npcs", (15, 1))])
    squares = legal_squares(b, "withdraw")
    assert (12, 1) in squares and (13, 1) not in squares


def test_coup_de_grace_kills_an_adjacent_dying_foe():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("P", "npcs", (1, 0), rp=3),
                           unit("T", "npcs", (3, 0))])
    p = u(b, "P")
    p.hp, p.down = 0, True
    assert legal_targets(b, "coup_de_grace") == {"P"}
    step(b, "coup_de_grace", "P")
    assert p.dead


def test_a_pending_choice_binds_only_the_acting_unit():
    """While A owes its second attack, A may only take it (or end); another unit's legal actions (a recorder or the
    observation asks for them) are not A's follow-ups, and the engine's reasons agree."""
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), KNIFE), unit("T", "npcs", (2, 1), KNIFE)])
    step(b, "full_attack_melee", "T", faces=[1])
    t = u(b, "T")
    assert {d.action for d in RS.legal_actions(b.enc, u(b, "A"))} == {"end_turn", "next_melee"}
    assert {d.action for d in RS.legal_actions(b.enc, t)} == {"end_turn"}   # the turn's budget is spent
    assert "only follows" in RS.why_illegal(b.enc, t, act("next_melee", target=u(b, "A").id))
