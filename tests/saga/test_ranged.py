"""Ranged attacks: range bands, obstruction by characters, cover, aim (Careful Shot, Deadeye), provoking."""
import pytest

from .helpers import PISTOL, RIFLE, SWORD, act, actions, all_of, end, first, floor, make, step, u, unit, why


@pytest.mark.parametrize("dist,penalty", [(1, 0), (20, 0), (21, -2), (40, -2), (41, -5), (60, -5), (61, -10),
                                          (80, -10)])
def test_pistol_range_bands(dist, penalty):
    b = make(floor(dist + 2, 1), [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (dist, 0), PISTOL)])
    ev = step(b, "ranged_attack", "T", faces=[10, 1, 1, 1])
    atk = first(ev, "attack")
    assert atk.get("bonus") == penalty and atk.get("total") == 10 + penalty
    assert atk.get("hit") == (10 + penalty >= 10)


def test_beyond_long_range_is_illegal():
    b = make(floor(83, 1), [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (81, 0), PISTOL)])
    assert act("ranged_attack", u(b, "T").id) not in b.legal()
    assert "beyond the long range" in why(b, "ranged_attack", "T")


def test_characters_obstruct_the_line_of_fire():
    b = make(floor(8, 1), [unit("A", "pcs", (0, 0), PISTOL), unit("Ally", "pcs", (3, 0), PISTOL),
                           unit("T", "npcs", (6, 0), PISTOL)])
    assert "Ally stands in the line of fire" in why(b, "ranged_attack", "T")


@pytest.mark.parametrize("terrain,bonus", [("c", 5), ("C", 10), (".", 0)])
def test_cover_raises_reflex(terrain, bonus):
    b = make(["...." + terrain + "...."], [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (8, 0), PISTOL)])
    atk = first(step(b, "ranged_attack", "T", faces=[1]), "attack")
    assert atk.get("defense") == 10 + bonus


@pytest.mark.parametrize("feats,bonus,dice", [([], 0, 3), (["careful_shot"], 1, 3), (["deadeye"], 0, 4),
                                              (["careful_shot", "deadeye"], 1, 4)])
def test_aim_ignores_cover_with_careful_shot_and_deadeye(feats, bonus, dice):
    b = make(["...C...."], [unit("A", "pcs", (0, 0), PISTOL, feats=feats), unit("T", "npcs", (7, 0), PISTOL)])
    ev = step(b, "aim")
    assert b.enc.budget == {"standard": 1, "move": 0, "swift": 0}  # two swift actions: swift + move paid
    ev = step(b, "ranged_attack", "T", faces=[10] + [1] * dice)
    atk = first(ev, "attack")
    assert atk.get("defense") == 10 and atk.get("bonus") == bonus
    assert len(first(ev, "damage_roll").get("faces")) == dice
    assert not u(b, "A").state["aimed"]


def test_aim_is_lost_by_any_other_action():
    b = make(["...C...."], [unit("A", "pcs", (0, 0), PISTOL, SWORD), unit("T", "npcs", (7, 0), PISTOL)])
    step(b, "aim")
    step(b, "fall_prone")  # the third swift action (paid by the standard)
    assert not u(b, "A").state["aimed"]


# Any attack spends the aim: a ranged one takes its benefit, a melee one (a disarm or an attack on a held weapon
# in melee too) is another action than the aimed shot and loses it (issue 24: those two kept it). A holds a pistol
# and a sword, T stands next to it; the resolver is applied on its own (the turn would end with nothing left).
@pytest.mark.parametrize("action,faces", [("disarm", [1]), ("attack_held_object", [1]), ("melee_attack", [1]),
                                          ("ranged_attack", [1, 1]), ("suppress", [1])])
def test_any_attack_after_aiming_spends_the_aim(action, faces):
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), PISTOL, SWORD, feats=["improved_disarm"]),
                           unit("T", "npcs", (1, 0), PISTOL)])
    a = u(b, "A")
    a.state["hands"] = [0, 1]
    step(b, "aim")
    assert a.state["aimed"]
    b.dice.push(*faces)
    b.ruleset.apply(b.enc, a, act(action, u(b, "T").id), b.dice)
    assert not a.state["aimed"]


def test_an_aim_not_used_this_turn_is_lost_at_its_end():
    b = make(["...C...."], [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (7, 0), PISTOL)])
    step(b, "aim")
    end(b)
    assert not u(b, "A").state["aimed"]
    end(b)  # T's turn
    assert "aim" in actions(b)  # A may aim again
    atk = first(step(b, "ranged_attack", "T", faces=[10, 1, 1, 1]), "attack")
    assert atk.get("defense") == 20 and "aimed" not in atk.get("notes")  # the heavy cover counts again


def test_aim_gives_nothing_to_autofire():
    b = make(["...c...."], [unit("A", "pcs", (0, 0), RIFLE, feats=["careful_shot"]),
                            unit("T", "npcs", (7, 0), PISTOL)])
    b.enc.units[0].state["modes"][0] = 2  # autofire
    step(b, "aim")
    ev = step(b, "ranged_attack", "T", faces=[1, 8, 8, 8])
    atk = first(ev, "attack")
    assert atk.get("defense") == 15 and atk.get("bonus") == -5  # cover counts, no Careful Shot, autofire -5
    assert not atk.get("hit") and first(ev, "damage").get("amount") == 12  # area attack: half damage on a miss


def test_shooting_in_a_threatened_square_provokes():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (1, 0), SWORD)])
    ev = step(b, "ranged_attack", "T", faces=[1, 1])  # the AoO misses (1), then the shot misses (1)
    aoo = first(ev, "aoo")
    assert aoo.actor == u(b, "T").id and u(b, "T").state["aoo_used"]
    assert [e.actor for e in all_of(ev, "attack")] == [u(b, "T").id, u(b, "A").id]
