"""Grenades and explode weapons: a grid intersection as the target (AC 5), the scatter of a miss (the text's own
example), the blast's radius and line of effect, Reflex for half, critical hits on the closest creature."""
import pytest

from engine.rulesets.starfinder import area as A

from .helpers import FRAG, LASER, actions, first, floor, legal_squares, make, step, u, unit, why

LAUNCHER = {"name": "grenade launcher", "kind": "ranged", "damage": "1d8", "type": "P", "range": 60, "explode": 5,
            "dc": 13, "capacity": 2, "usage": 1, "hands": 2}


# ---- scatter ------------------------------------------------------------------------------------------------------
def test_the_texts_example_lands_two_squares_short():
    """1d8 = 1 (short, toward the thrower), 1d4 = 2: the grenade lands at the intersection 2 squares in front of the
    target intersection."""
    b = make(floor(12, 12), [unit("A", "pcs", (1, 5), FRAG), unit("T", "npcs", (10, 10))])
    ev = step(b, "explode_attack", square=(7, 5), faces=[2, 1, 2])   # 2: a miss against AC 5; 1 then 2: scatter
    sc = first(ev, "scatter")
    assert (sc.get("from"), sc.get("to"), sc.get("direction"), sc.get("squares")) == ((7, 5), (5, 5), 1, 2)


@pytest.mark.parametrize("roll,landing", [
    (1, (4, 5)),   # short: toward the thrower (west)
    (2, (4, 4)),   # then clockwise round the target: north-west
    (3, (5, 4)),   # north
    (4, (6, 4)),   # north-east
    (5, (6, 5)),   # east: long
    (6, (6, 6)),   # south-east
    (7, (5, 6)),   # south
    (8, (4, 6)),   # south-west
])
def test_scatter_directions_run_clockwise_from_short(roll, landing):
    assert A.scatter((5, 5), (0, 5), roll, 1, 12, 12) == landing


def test_short_points_at_a_thrower_on_the_diagonal():
    assert A.scatter((5, 5), (1, 8), 1, 3, 12, 12) == (2, 8)    # the thrower south-west: short goes south-west
    assert A.scatter((5, 5), (1, 8), 5, 3, 12, 12) == (8, 2)    # 5 is straight past the target


def test_scatter_stays_on_the_map():
    assert A.scatter((1, 1), (5, 1), 5, 4, 8, 8) == (0, 1)


# ---- targeting an intersection --------------------------------------------------------------------------------------
def test_an_intersection_is_attacked_against_ac_5_with_the_range_penalty():
    b = make(floor(14, 3), [unit("A", "pcs", (0, 1), FRAG), unit("T", "npcs", (13, 1))])
    # the intersection (6, 1) is 5 squares from A's square's nearest corner: 25 ft, the second 20-ft increment
    ev = step(b, "explode_attack", square=(6, 1), faces=[7])
    atk = first(ev, "attack_point")
    assert (atk.get("bonus"), atk.get("defense"), atk.get("total"), atk.get("hit")) == (-2, 5, 5, True)


def test_grenade_range_is_five_increments_and_needs_line_of_effect():
    b = make(["......#....." + "." * 10] * 3, [unit("A", "pcs", (0, 1), FRAG), unit("T", "npcs", (21, 1))])
    squares = legal_squares(b, "explode_attack")
    assert (5, 1) in squares and (6, 1) in squares         # (6, 1) touches the open square (5, 1)
    assert (8, 1) not in squares                           # behind the wall
    b = make(floor(24, 3), [unit("A", "pcs", (0, 1), FRAG), unit("T", "npcs", (23, 1))])
    squares = legal_squares(b, "explode_attack")
    assert (21, 1) in squares and (22, 1) not in squares   # 20 squares (100 ft) and no farther
    assert "beyond" in why(b, "explode_attack", square=(22, 1))


def test_a_grenade_must_be_in_hand():
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), LASER, FRAG), unit("T", "npcs", (7, 1))])
    assert "explode_attack" not in actions(b)
    assert "draw one first" in why(b, "explode_attack", square=(4, 1))
    step(b, "draw", option=1)
    assert "explode_attack" in actions(b)


def test_a_thrown_grenade_leaves_the_hand_and_one_fewer_is_left():
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), FRAG), unit("T", "npcs", (7, 1))])
    step(b, "explode_attack", square=(4, 1), faces=[10])
    a = u(b, "A")
    assert a.state["wield"] == [] and a.state["ammo"] == [1]


# ---- the blast ------------------------------------------------------------------------------------------------------
def test_a_15_ft_blast_catches_what_its_radius_reaches():
    b = make(floor(12, 12), [unit("A", "pcs", (0, 0), FRAG, str=5),
                             unit("In1", "npcs", (7, 5)), unit("Out1", "npcs", (8, 5)),
                             unit("In2", "npcs", (6, 6)), unit("Out2", "npcs", (7, 7)), unit("In3", "npcs", (2, 5))])
    ev = step(b, "explode_attack", square=(5, 5), faces=[15, 4, 1, 1, 1])   # hit; 4 damage; three Reflex saves fail
    caught = {b.enc.units[i].name for i in first(ev, "blast").get("caught")}
    assert caught == {"In1", "In2", "In3"}
    assert [x.hp for x in b.enc.units[1:]] == [26, 30, 26, 30, 26]


@pytest.mark.parametrize("save,damage", [(11, 5), (12, 2)])   # DC 12: a success halves (rounded down)
def test_reflex_for_half(save, damage):
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), {**FRAG, "damage": "1d6"}), unit("T", "npcs", (4, 1))])
    step(b, "explode_attack", square=(4, 1), faces=[15, 5, save])
    assert u(b, "T").hp == 30 - damage


def test_walls_stop_the_blast():
    b = make(["......", "...#..", "......"], [unit("A", "pcs", (0, 0), FRAG),
                                              unit("Hid", "npcs", (4, 1)), unit("T", "npcs", (2, 2))])
    ev = step(b, "explode_attack", square=(3, 2), faces=[15, 3, 1])
    assert [b.enc.units[i].name for i in first(ev, "blast").get("caught")] == ["T"]


def test_allies_in_the_blast_are_hit_too():
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), FRAG), unit("F", "pcs", (4, 1)), unit("T", "npcs", (5, 1))])
    ev = step(b, "explode_attack", square=(5, 1), faces=[15, 3, 1, 1])
    assert {b.enc.units[i].name for i in first(ev, "blast").get("caught")} == {"F", "T"}
    assert u(b, "F").hp == 27


def test_a_critical_doubles_the_damage_of_the_creature_closest_to_the_intersection():
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), {**FRAG, "critical": "knockdown"}),
                           unit("Near", "npcs", (4, 1)), unit("Far", "npcs", (6, 1))])
    # natural 20; damage 3 for all; Near: extra critical roll 5, save 1; Far: save 1
    step(b, "explode_attack", square=(5, 1), faces=[20, 3, 5, 1, 1])
    assert u(b, "Near").hp == 30 - 8 and u(b, "Far").hp == 30 - 3
    assert "prone" in u(b, "Near").state["conds"] and "prone" not in u(b, "Far").state["conds"]


def test_a_missed_grenade_explodes_where_it_lands():
    b = make(floor(12, 12), [unit("A", "pcs", (1, 5), {**FRAG, "explode": 5}), unit("T", "npcs", (4, 4))])
    ev = step(b, "explode_attack", square=(7, 5), faces=[1, 1, 2, 3, 1])   # a natural 1; lands at (5, 5)
    assert first(ev, "blast").get("point") == (5, 5) and u(b, "T").hp == 27


def test_an_explode_weapon_fires_with_dexterity_and_keeps_its_hand():
    b = make(floor(16, 3), [unit("A", "pcs", (0, 1), LAUNCHER, str=4, dex=2), unit("T", "npcs", (12, 1))])
    ev = step(b, "explode_attack", square=(12, 1), faces=[10, 2, 1])
    a = u(b, "A")
    assert first(ev, "attack_point").get("bonus") == 2 and a.state["wield"] == [0] and a.state["ammo"] == [1]


def test_the_blast_geometry_counts_from_the_intersection():
    assert len(A.blast(make(floor(12, 12), [unit("A", "pcs", (0, 0)), unit("T", "npcs", (11, 11))]).enc.grid,
                       (6, 6), 5)) == 4
    g = make(floor(12, 12), [unit("A", "pcs", (0, 0)), unit("T", "npcs", (11, 11))]).enc.grid
    assert len(A.blast(g, (6, 6), 10)) == 12 and len(A.blast(g, (6, 6), 15)) == 24
    assert A.point_distance((0, 1), (6, 1)) == 5 and A.point_distance((3, 3), (3, 3)) == 0
