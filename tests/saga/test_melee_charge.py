"""Melee attacks (reach, two-handed Strength, improvised, prone) and Charge."""
import pytest

from engine.core.decision import END

from .helpers import AXE, KNIFE, PISTOL, SWORD, act, actions, first, floor, make, step, u, unit, why

IMPROVISED = {"name": "chair", "kind": "melee", "damage": "1d6", "improvised": True}
LIGHT_2H = {"name": "staff", "kind": "melee", "damage": "1d6", "hands": 2, "light": True}


@pytest.mark.parametrize("weapon,strength,damage", [
    (SWORD, 3, 1 + 3),            # one-handed: Strength once
    (AXE, 3, 1 + 6),              # two-handed: double Strength
    (LIGHT_2H, 3, 1 + 3),         # light weapon: no double Strength
    (AXE, -1, 1 - 1),             # a penalty is not doubled
])
def test_two_handed_double_strength(weapon, strength, damage):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), weapon, str=strength), unit("T", "npcs", (1, 0), SWORD)])
    ev = step(b, "melee_attack", "T", faces=[19, 1])
    assert first(ev, "damage_roll").get("total") == max(damage, damage)
    assert first(ev, "attack").get("bonus") == strength


def test_improvised_weapon_minus_5():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), IMPROVISED), unit("T", "npcs", (1, 0), SWORD)])
    assert first(step(b, "melee_attack", "T", faces=[2]), "attack").get("bonus") == -5


def test_reach_threatens_two_squares_but_not_through_walls():
    b = make(["....", "#...", "...."], [unit("A", "pcs", (0, 0), SWORD, reach=2, size="large"),
                                        unit("T", "npcs", (2, 0), SWORD), unit("W", "npcs", (0, 2), SWORD)])
    assert act("melee_attack", u(b, "T").id) in b.legal()
    assert "wall or closed door" in why(b, "melee_attack", "W")
    b2 = make(floor(4, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (2, 0), SWORD)])
    assert "beyond A's reach of 1" in why(b2, "melee_attack", "T")


@pytest.mark.parametrize("kind,defense", [("melee_attack", 5), ("ranged_attack", 15)])
def test_prone_target(kind, defense):
    w = SWORD if kind == "melee_attack" else PISTOL
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), w), unit("T", "npcs", (1 if w is SWORD else 4, 0), SWORD)])
    u(b, "T").state["prone"] = True
    assert first(step(b, kind, "T", faces=[1]), "attack").get("defense") == defense


def test_prone_attacker_minus_5_in_melee():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (1, 0), SWORD)])
    u(b, "A").state["prone"] = True
    assert first(step(b, "melee_attack", "T", faces=[1]), "attack").get("bonus") == -5


# ---- charge -------------------------------------------------------------------------------------------
def charge_map(row: str, **over):
    return make([row], [unit("A", "pcs", (0, 0), SWORD, **over), unit("T", "npcs", (len(row) - 1, 0), SWORD)])


def test_charge_plus_2_minus_2_reflex_and_nothing_after():
    b = charge_map("......")
    ev = step(b, "charge", "T", faces=[10, 1])
    assert u(b, "A").pos == (4, 0)
    atk = first(ev, "attack")
    assert atk.get("bonus") == 2 and atk.get("hit")
    assert b.actor.name == "T"  # after a charge nothing else: the turn ended by itself
    assert b.ruleset.unit_summary(u(b, "A"))["reflex"] == 8
    ev = step(b, "melee_attack", "A", faces=[8, 1])
    assert first(ev, "attack").get("defense") == 8 and first(ev, "attack").get("hit")


def test_charge_ends_turn_even_with_move_left():
    b = charge_map("......")
    step(b, "charge", "T", faces=[1])
    assert b.actor.name == "T" and u(b, "A").state["charged"]
    step(b, "end_turn")
    assert not u(b, "A").state["charged"]  # the -2 lasts until the start of A's next turn


@pytest.mark.parametrize("row,legal,reason", [
    ("......", True, None),
    ("..c...", False, "the low object at (2, 0)"),
    (".~~~~.", False, "costs 8 squares"),          # difficult terrain costs double: 8 > speed 6
    (".~....", True, None),                        # 5 squares of cost, within speed
    ("........", True, None),                      # 6 squares to walk + reach 1 = 7
    (".........", False, "8 squares away"),         # 6 squares to walk + reach 1 < 8
    ("..", False, "at least 2 squares"),           # already adjacent
])
def test_charge_line(row, legal, reason):
    b = charge_map(row)
    t = u(b, "T")
    assert (act("charge", t.id) in b.legal()) == legal
    if not legal:
        assert reason in why(b, "charge", "T")


def test_charge_blocked_by_enemy_not_by_ally():
    units = [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (5, 0), SWORD), unit("X", "npcs", (2, 0), PISTOL)]
    b = make(["......", "######"], units)
    assert "X (an enemy) at (2, 0)" in why(b, "charge", "T")
    units[2]["side"] = "pcs"
    b = make(["......", "######"], units)
    assert act("charge", u(b, "T").id) in b.legal()


def test_charge_needs_melee_weapon_and_standing():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (5, 0), SWORD)])
    assert "no melee weapon" in why(b, "charge", "T")
    b = charge_map("......")
    u(b, "A").state["prone"] = True
    b.enc.version += 1
    assert "prone" in why(b, "charge", "T")


def test_charge_through_threat_provokes():
    units = [unit("A", "pcs", (0, 1), SWORD), unit("T", "npcs", (5, 1), SWORD), unit("G", "npcs", (1, 0), SWORD)]
    b = make(floor(6, 3), units)
    ev = step(b, "charge", "T", faces=[1, 1])  # G's attack of opportunity misses, the charge misses
    assert first(ev, "aoo").actor == u(b, "G").id
    assert b.actor.name != "A" and END in b.legal()
