"""Area attacks: autofire (-5, -2 braced; every creature in the 2x2 area saves Dex against the attack total, half on
a success) and grenades (no attack roll; Dex save against the DC within 10 ft, half on a success; reaching around
cover by line of effect from the landing square; how many are carried)."""
import pytest

from engine.rulesets.swurpg import combat as C

from .helpers import (FRAG, KNIFE, RIFLE, RS, actions, all_of, cond, first, floor, legal_squares, legal_targets,
                      make, step, u, unit)


def _spray(a_over=None, targets=None, width=8, height=3):
    """A (pcs, a full-auto rifle, Dex 14: +4) at (0, 1); targets (name, side, at, overrides)."""
    targets = targets or [("T1", "npcs", (4, 0), {}), ("T2", "npcs", (5, 1), {}), ("T3", "npcs", (6, 0), {})]
    return make(floor(width, height), [unit("A", "pcs", (0, 1), RIFLE, KNIFE, dex=14, **(a_over or {}))] +
                [unit(n, s, at, KNIFE, **o) for n, s, at, o in targets])


def test_autofire_braced_takes_2_and_every_creature_in_the_area_saves_against_the_total():
    b = _spray()
    # attack d20 10 + 4 - 2 = 12; damage 1d8 6 once for all; T1 saves 12 (made: half), T2 11 (failed: full)
    ev = step(b, "autofire", square=(4, 0), faces=[10, 6, 12, 11])
    auto = first(ev, "autofire")
    assert auto.get("braced") and auto.get("total") == 12
    saves = all_of(ev, "save")
    assert [(s.target, s.get("dc"), s.get("ok")) for s in saves] == [(u(b, "T1").id, 12, True),
                                                                    (u(b, "T2").id, 12, False)]
    assert (u(b, "T1").hp, u(b, "T2").hp, u(b, "T3").hp) == (30 - 3, 30 - 6, 30)
    assert (20, "A's autofire") in b.dice.asked


def test_autofire_after_moving_is_unbraced_minus_5():
    b = _spray()
    step(b, "move", square=(1, 1))
    ev = step(b, "autofire", square=(4, 0), faces=[10, 6, 1, 1])
    assert not first(ev, "autofire").get("braced") and first(ev, "autofire").get("total") == 10 + 4 - 5


def test_autofire_from_prone_is_braced_even_after_moving():
    b = _spray()
    step(b, "move", square=(1, 1))
    step(b, "drop_prone")
    ev = step(b, "autofire", square=(4, 0), faces=[10, 6, 1, 1])
    assert first(ev, "autofire").get("braced") and first(ev, "autofire").get("total") == 12


def test_autofire_hits_allies_in_the_area_too():
    b = _spray(targets=[("T1", "npcs", (4, 0), {}), ("B", "pcs", (4, 1), {})])
    step(b, "autofire", square=(4, 0), faces=[10, 6, 1, 1])
    assert u(b, "B").hp == 24 and u(b, "T1").hp == 24


def test_autofire_saves_use_dex_and_save_proficiency():
    b = _spray(targets=[("T1", "npcs", (4, 0), {"dex": 14, "saves": ["dex"]})])
    ev = step(b, "autofire", square=(4, 0), faces=[10, 8, 8])     # 8 + 2 + 2 = 12: made
    assert first(ev, "save").get("bonus") == 4 and first(ev, "save").get("ok") and u(b, "T1").hp == 30 - 4


def test_a_stunned_creature_fails_the_dex_save_automatically():
    b = _spray(targets=[("T1", "npcs", (4, 0), {"state": {"conds": {"stunned": cond()}}})])
    ev = step(b, "autofire", square=(4, 0), faces=[10, 7])       # no save die
    assert first(ev, "save").get("auto") and u(b, "T1").hp == 23


def test_autofire_needs_a_full_auto_weapon():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), {**RIFLE, "autofire": False}), unit("T", "npcs", (4, 0), KNIFE)])
    assert "autofire" not in actions(b)


def test_autofire_areas_hold_a_creature_and_not_the_shooter():
    b = _spray(targets=[("T1", "npcs", (4, 0), {})])
    sq = legal_squares(b, "autofire")
    assert sq == {(3, 0), (4, 0)}    # the 2x2 areas holding (4, 0) inside the 3-row map


# ---- grenades -------------------------------------------------------------------------------------------------------
def _throw(rows=None, targets=None, a_at=(0, 2), frag=FRAG):
    rows = rows or floor(12, 5)
    targets = targets if targets is not None else [("T1", (6, 2), {}), ("T2", (8, 4), {}), ("T3", (9, 2), {})]
    return make(rows, [unit("A", "pcs", a_at, KNIFE, frag)] + [unit(n, "npcs", at, KNIFE, **o)
                                                                 for n, at, o in targets])


def test_a_grenade_has_no_attack_roll_and_everyone_within_10_ft_saves_dex_against_its_dc():
    b = _throw()
    ev = step(b, "grenade", square=(6, 2), faces=[3, 4, 12, 11])   # 2d6 = 7; T1 makes DC 12, T2 fails
    assert b.dice.asked[0][0] == 6 and not all_of(ev, "attack")
    saves = all_of(ev, "save")
    assert [(s.get("ability"), s.get("dc")) for s in saves] == [("dex", 12), ("dex", 12)]
    assert (u(b, "T1").hp, u(b, "T2").hp, u(b, "T3").hp) == (30 - 3, 30 - 7, 30)   # T3 15 ft away


def test_a_grenade_counts_down_and_runs_out():
    b = _throw(frag={**FRAG, "count": 2}, targets=[("T1", (6, 2), {})])
    a = u(b, "A")
    step(b, "grenade", square=(6, 2), faces=[1, 1, 1])
    assert a.state["ammo"][1] == 1 and RS.grenade(a) == 1
    b = _throw(frag={**FRAG, "count": 1}, targets=[("T1", (6, 2), {})])
    a = u(b, "A")
    step(b, "grenade", square=(6, 2), faces=[1, 1, 1])
    assert a.state["ammo"][1] == 0 and RS.grenade(a) is None


def test_a_grenade_out_of_range_cannot_be_thrown_there():
    b = _throw(rows=floor(12, 1), targets=[("T1", (10, 0), {})], a_at=(0, 0))    # range 40 ft: 8 squares
    sq = legal_squares(b, "grenade")
    assert (8, 0) in sq and (9, 0) not in sq and (10, 0) not in sq


def test_a_grenade_reaches_around_full_cover_from_its_landing_square():
    rows = ["........",
            "........",
            "...#....",
            "........"]
    b = _throw(rows=rows, targets=[("T", (5, 2), {})], a_at=(0, 2))
    assert "T" not in legal_targets(b, "attack")       # no line to T: full cover
    assert (5, 1) in legal_squares(b, "grenade")
    step(b, "grenade", square=(5, 1), faces=[3, 3, 5])
    assert u(b, "T").hp == 24


def test_a_grenade_blast_does_not_pass_a_wall_from_its_landing_square():
    b = _throw(rows=["......#.", "........"], targets=[("T", (7, 0), {}), ("U", (4, 0), {})], a_at=(0, 0))
    ev = step(b, "grenade", square=(5, 0), faces=[3, 3, 5])   # U saves; T, 10 ft away behind the wall, is spared
    assert [s.target for s in all_of(ev, "save")] == [u(b, "U").id]
    assert u(b, "T").hp == 30 and u(b, "U").hp == 24


def test_an_area_reaches_a_creature_in_low_cover_with_no_bonus_to_its_save():
    b = _throw(rows=["....c...", "........"], targets=[("T", (5, 0), {})], a_at=(0, 0))
    ev = step(b, "grenade", square=(5, 0), faces=[2, 2, 11])
    assert first(ev, "save").get("total") == 11 and u(b, "T").hp == 26


def test_a_grenade_s_condition_on_a_failed_save():
    fire = {"name": "incinerator", "kind": "grenade", "damage": "2d4", "type": "fire", "range": 40, "dc": 13,
            "count": 1, "condition": "burning", "condition_dc": 13, "save": "dex"}
    b = _throw(frag=fire, targets=[("T1", (6, 2), {}), ("T2", (7, 2), {})])
    # 2d4 = 4; T1 saves 13 (half, not burning); T2 fails 5, then its save against burning 4 fails
    step(b, "grenade", square=(6, 2), faces=[2, 2, 13, 5, 4])
    assert "burning" not in u(b, "T1").state["conds"] and "burning" in u(b, "T2").state["conds"]
    assert (u(b, "T1").hp, u(b, "T2").hp) == (28, 26)


def test_autofire_area_is_2x2():
    assert set(C.autofire_area((3, 4))) == {(3, 4), (4, 4), (3, 5), (4, 5)}


# ---- cones, lines and squares (engine/core/areas.py through the grenade action) ---------------------------------------
def test_a_flamethrower_cone_catches_what_its_widening_cone_covers_with_one_damage_roll():
    from .helpers import make, step, u, unit
    flamer = {"name": "flamethrower", "kind": "grenade", "damage": "2d6", "type": "fire", "range": 15, "shape": "cone",
              "size": 15, "dc": 13, "count": 3}
    b = make(["." * 9] * 7, [unit("Pyro", "pcs", (1, 3), flamer), unit("Near", "npcs", (2, 3)),
                             unit("Wide", "npcs", (3, 2)), unit("Side", "npcs", (2, 1))])
    aims = {d.square for d in b.legal() if d.action == "grenade"}
    assert (2, 3) in aims and (3, 2) in aims  # aimed at a creature within its 15 ft
    # the cone aimed east at Near: Near (first column) and Wide (second column, one off the axis); Side is outside
    ev = step(b, "grenade", square=(2, 3), faces=[4, 5, 2, 3])  # damage 4+5, Near fails (2), Wide fails (3)
    hit = {e.target for e in ev if e.kind == "damage"}
    assert hit == {u(b, "Near").id, u(b, "Wide").id}
    assert u(b, "Side").hp == u(b, "Side").max_hp


def test_a_line_weapon_hits_everyone_along_it_and_a_square_its_footprint():
    from .helpers import make, step, u, unit
    beam = {"name": "arc caster", "kind": "grenade", "damage": "2d6", "type": "lightning", "range": 30,
            "shape": "line", "size": 30, "dc": 12, "count": 2}
    b = make(["." * 9] * 5, [unit("Caster", "pcs", (0, 2), beam), unit("A", "npcs", (3, 2)),
                             unit("B", "npcs", (5, 2)), unit("Off", "npcs", (4, 3))])
    ev = step(b, "grenade", square=(3, 2), faces=[3, 3, 1, 1])
    assert {e.target for e in ev if e.kind == "damage"} == {u(b, "A").id, u(b, "B").id}
    net = {"name": "net grenade", "kind": "grenade", "damage": "1d4", "type": "bludgeoning", "range": 30,
           "shape": "square", "size": 10, "dc": 12, "count": 1}
    b = make(["." * 9] * 5, [unit("Thrower", "pcs", (0, 2), net), unit("A", "npcs", (4, 2)),
                             unit("B", "npcs", (5, 3)), unit("Out", "npcs", (6, 2))])
    ev = step(b, "grenade", square=(4, 2), faces=[2, 1, 1])
    assert {e.target for e in ev if e.kind == "damage"} == {u(b, "A").id, u(b, "B").id}


def test_an_area_weapon_without_its_size_is_refused():
    import pytest

    from engine.core.errors import InputError

    from .helpers import make, unit
    flamer = {"name": "flamethrower", "kind": "grenade", "damage": "2d6", "type": "fire", "range": 15, "shape": "cone",
              "dc": 13, "count": 3}
    with pytest.raises(InputError) as e:
        make(["." * 5] * 3, [unit("Pyro", "pcs", (1, 1), flamer), unit("X", "npcs", (3, 1))])
    assert "size" in str(e.value)
