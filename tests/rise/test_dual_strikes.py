"""Dual strikes ("5.8.2 Dual Strikes"): the text's six examples as printed, the tag rules (Ammunition, Bow, Compact,
Heavy, Impact, Light, Long, Projectile, Subdual, Thrown), -4 (-5 exotic), who may make them (two weapons in hand,
Dexterity 2, no shield, no Bow), power once; split strikes (half damage, a second target, melee or ranged)."""
from collections import Counter

import pytest

from .helpers import (DAGGER, DUAL, MAIN, OFF, SLING, SPLIT, SWORD, C, actions, all_of, first, floor, make,
                      play_phase, skip_movement, step, u, unit, weapons, why)


def _dice(expr: str) -> Counter:
    """'1d6+1d4' / '2d4' -> the multiset of die sizes."""
    out: Counter = Counter()
    for part in expr.split("+"):
        n, s = part.split("d")
        out[int(s)] += int(n)
    return out


def _combined(a: str, b: str) -> dict:
    w = weapons()
    return C.combine(w[a], w[b])


# ---- the text's six examples (a creature with less than 4 Dexterity) -------------------------------------------------
EXAMPLES = [
    # "Two kukris: +2 accuracy, 2d4 damage, Sweeping (2)."
    ("kukri", "kukri", 2, "2d4", {"sweeping": 2}),
    # "Two rapiers: +1 accuracy, 2d4 damage, Keen+ (+4 accuracy with critical hits)."
    ("rapier", "rapier", 1, "2d4", {"keen": 2}),
    # "Two totokias: -5 accuracy, 2d10 damage, Impact+ (glance if miss by 8 or less)"
    ("totokia", "totokia", -5, "2d10", {"impact": 2}),
    # "Throwing axe and handaxe: -1 accuracy, 1d8+1d4 damage, Thrown (30/60)"
    ("throwing_axe", "handaxe", -1, "1d8+1d4", {"thrown": [30, 60]}),
    # "Warhammer and light hammer: -2 accuracy, 1d8+1d6 damage, Resonating+ (-4 Armor on hit), Versatile Grip"
    ("warhammer", "light_hammer", -2, "1d8+1d6", {"resonating": 2, "versatile_grip": True}),
]


@pytest.mark.parametrize("a,b,accuracy,damage,tags", EXAMPLES, ids=[f"{a}+{b}" for a, b, *_ in EXAMPLES])
def test_the_texts_dual_strike_examples(a, b, accuracy, damage, tags):
    w = _combined(a, b)
    assert w["accuracy"] == accuracy
    assert Counter(C.dice(d).sides for d in w["dice"] for _ in range(C.dice(d).count)) == _dice(damage)
    assert w["tags"] == tags and w["dual"] is True


def test_the_texts_broadsword_and_smallsword_example():
    # "Broadsword and smallsword: +1 accuracy, 1d6+1d4 damage, Sweeping (1)"
    w = _combined("broadsword", "smallsword")
    assert w["accuracy"] == 1 and [C.dice(d).sides for d in w["dice"]] == [6, 4]
    assert w["tags"] == {"sweeping": 1}


def test_the_broadsword_and_smallsword_figures_apart_from_versatile_grip():
    w = _combined("broadsword", "smallsword")
    assert w["accuracy"] == 1 and [C.dice(d).sides for d in w["dice"]] == [6, 4] and w["tags"]["sweeping"] == 1


def test_the_rapiers_keen_plus_gives_4_for_critical_hits_in_play():
    # two rapiers (+1): a creature of accuracy 10 rolls 5: 16 vs Armor 10, a critical hit only with Keen 2's +4
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), "rapier", "rapier", accuracy=10, dexterity=2),
                           unit("T", "npcs", (1, 0), SWORD, hp=40)])
    skip_movement(b)
    ev = play_phase(b, [5, 1, 1, 1, 1], A=("strike", "T", None, DUAL))
    assert first(ev, "attack").get("total") == 16 and first(ev, "attack").get("result") == "crit"
    assert first(ev, "damage").get("amount") == 4        # both d4s, twice


def test_two_totokias_glance_on_a_miss_by_8_in_play():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), "totokia", "totokia", accuracy=5, dexterity=2),
                           unit("T", "npcs", (1, 0), SWORD, hp=40)])
    skip_movement(b)
    ev = play_phase(b, [2, 8, 6], A=("strike", "T", None, DUAL))   # 2 + 5 - 5 = 2 vs 10: miss by 8, a glance
    assert first(ev, "attack").get("result") == "glance" and first(ev, "damage").get("amount") == (8 + 6) // 2


def test_the_hammers_resonating_plus_gives_minus_4_armor_on_a_hit():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), "warhammer", "light_hammer", accuracy=4, dexterity=2),
                           unit("T", "npcs", (1, 0), SWORD, hp=40)])
    skip_movement(b)
    play_phase(b, [9, 1, 1], A=("strike", "T", None, DUAL))
    assert C.defense(b.enc, u(b, "T"), "armor") == 10 - 4


# ---- the tag rules ------------------------------------------------------------------------------------------------
def W(name, damage="1d6", accuracy=0, exotic=False, **tags):
    return {"name": name, "damage": damage, "accuracy": accuracy, "exotic": exotic, "tags": tags}


@pytest.mark.parametrize("w1,w2,accuracy", [
    (W("a"), W("b"), -4),                                            # -4 dual-strike penalty
    (W("a", accuracy=2), W("b", accuracy=1), -1),                    # accuracies summed
    (W("a", exotic=True), W("b"), -5),                               # at least one exotic: -5
    (W("a", exotic=True), W("b", exotic=True), -5),
    (W("a", heavy=True), W("b"), -5),                                # Heavy: -1 each
    (W("a", heavy=True), W("b", heavy=True), -6),
    (W("a", light=True), W("b"), -2),                                # Light: +2 if one
    (W("a", light=True), W("b", light=True), -1),                    # +3 if both
])
def test_dual_strike_accuracy(w1, w2, accuracy):
    assert C.combine(w1, w2)["accuracy"] == accuracy


@pytest.mark.parametrize("tag,value", [("compact", True), ("long", True), ("subdual", True),
                                       ("thrown", [30, 60])])
def test_compact_long_subdual_and_thrown_only_if_both_have_them(tag, value):
    assert tag not in C.combine(W("a", **{tag: value}), W("b"))["tags"]
    assert C.combine(W("a", **{tag: value}), W("b", **{tag: value}))["tags"][tag] == value


def test_projectile_and_thrown_pairs_use_the_lower_range_limits():
    assert C.combine(W("a", projectile=[90, 180]), W("b", projectile=[60, 240]))["tags"]["projectile"] == [60, 180]
    assert C.combine(W("a", thrown=[30, 120]), W("b", thrown=[20, 60]))["tags"]["thrown"] == [20, 60]


def test_numeric_tags_stack():
    t = C.combine(W("a", keen=1, sweeping=1, impact=1), W("b", keen=1, resonating=1))["tags"]
    assert (t["keen"], t["sweeping"], t["impact"], t["resonating"]) == (2, 1, 1, 1)


def test_only_the_ammunition_weapon_breaks_after_a_dual_strike():
    b = make(floor(8, 1), [unit("A", "pcs", (0, 0), {**SLING, "name": "one shot", "tags": {
        "projectile": [30, 60], "ammunition": True}}, SLING, dexterity=2), unit("T", "npcs", (4, 0), SWORD, hp=40)])
    skip_movement(b)
    play_phase(b, [1], A=("shoot", "T", None, DUAL))
    assert u(b, "A").state["held"] == [False, True]


# ---- who may make a dual strike --------------------------------------------------------------------------------------
def _dualist(*ws, at=(1, 0), **over):
    b = make(floor(8, 1), [unit("A", "pcs", (0, 0), *ws, **{"dexterity": 2, **over}),
                           unit("T", "npcs", at, SWORD, hp=40)])
    skip_movement(b)
    return b


def _options(b, action="strike"):
    return {d.option for d in b.legal() if d.action == action}


def test_two_weapons_and_dexterity_2_make_dual_and_split_strikes():
    assert _options(_dualist(SWORD, DAGGER)) == {MAIN, OFF, DUAL, SPLIT}


@pytest.mark.parametrize("ws,over", [((SWORD, DAGGER), {"dexterity": 1}),       # Dexterity below 2
                                     ((SWORD, DAGGER), {"shield": True}),       # a shield
                                     ((SWORD,), {}),                             # one weapon
                                     (("longbow", DAGGER), {})])                 # a Bow
def test_no_dual_strike_without_dexterity_2_two_weapons_without_shield_or_bow(ws, over):
    b = _dualist(*ws, **over)
    assert not _options(b) & {DUAL, SPLIT} and not _options(b, "shoot") & {DUAL, SPLIT}
    assert "dual strike needs" in why(b, "strike", "T", option=DUAL)


def test_projectile_dual_strikes_need_two_projectile_weapons():
    b = _dualist(SLING, SLING, at=(4, 0))
    assert DUAL in _options(b, "shoot")


def test_a_projectile_and_a_non_projectile_weapon_make_no_dual_strike():
    b = _dualist(SLING, DAGGER)
    assert not (_options(b, "strike") | _options(b, "hurl") | _options(b, "shoot")) & {DUAL, SPLIT}


def test_a_dual_strike_rolls_once_sums_the_dice_and_adds_power_once():
    b = _dualist("kukri", "kukri", accuracy=3, power=2)
    ev = play_phase(b, [5, 3, 4], A=("strike", "T", None, DUAL))
    attack = first(ev, "attack")
    assert attack.get("bonus") == 3 + 2 and attack.get("result") == "hit" and attack.get("notes") == ["dual strike"]
    assert len(all_of(ev, "attack")) == 1 and first(ev, "damage").get("amount") == 3 + 4 + 2


def test_a_dual_thrown_strike_throws_both_weapons():
    b = _dualist("throwing_axe", "handaxe", at=(5, 0))
    ev = play_phase(b, [9, 5, 2], A=("hurl", "T", None, DUAL))      # Thrown (30/60): 5 squares is short range
    assert first(ev, "attack").get("bonus") == -1 and first(ev, "attack").get("notes") == ["dual strike"]
    assert u(b, "A").state["held"] == [False, False]


# ---- split strikes ---------------------------------------------------------------------------------------------------
def test_a_split_strike_hits_two_targets_for_half_damage_each():
    b = make(floor(4, 3), [unit("A", "pcs", (1, 1), SWORD, DAGGER, dexterity=2, accuracy=6, power=1),
                           unit("T", "npcs", (2, 1), SWORD, hp=40), unit("U", "npcs", (1, 0), SWORD, hp=40)])
    skip_movement(b)
    step(b, "strike", "T", option=SPLIT)
    assert actions(b) == {"end_turn", "split_target"}
    assert {b.enc.units[d.target].name for d in b.legal() if d.action == "split_target"} == {"U"}
    # +6 - 4 + 2 (one Light) = +4: 6 hits T for (5 + 3 + 1) // 2, 7 hits U for (2 + 4 + 1) // 2
    ev = play_phase(b, [6, 5, 3, 7, 2, 4], A=("split_target", "U"))
    assert [a.target for a in all_of(ev, "attack")] == [u(b, "T").id, u(b, "U").id]
    assert (u(b, "T").hp, u(b, "U").hp) == (40 - 4, 40 - 3)


def test_a_split_strike_works_at_range():
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), "handaxe", "handaxe", dexterity=2, accuracy=4),
                           unit("T", "npcs", (4, 0), SWORD, hp=40), unit("U", "npcs", (5, 2), SWORD, hp=40)])
    skip_movement(b)
    # handaxes +1 +1 -4 +3 = +1, +4: 5 hits T for (4 + 4) // 2; 9 hits U for (1 + 1) // 2
    ev = play_phase(b, [5, 4, 4, 9, 1, 1], A=[("hurl", "T", None, SPLIT), ("split_target", "U")])
    assert [a.get("result") for a in all_of(ev, "attack")] == ["hit", "hit"]
    assert (u(b, "T").hp, u(b, "U").hp) == (40 - 4, 40 - 1)


def test_a_split_strike_without_a_second_enemy_in_reach_strikes_one_for_half_damage():
    b = _dualist(SWORD, DAGGER, accuracy=6)
    step(b, "strike", "T", option=SPLIT)
    assert b.actor is u(b, "T")                  # no second target to name: A's turn is over
    ev = play_phase(b, [6, 5, 4])                # 6 + 4 hits for (5 + 4) // 2
    assert len(all_of(ev, "attack")) == 1 and first(ev, "damage").get("amount") == 4
