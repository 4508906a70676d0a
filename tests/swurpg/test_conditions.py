"""Conditions as the text lists them (conditions.py) and the saves that end them at the end of the turn: stunned,
dazed, grappled, prone, bleeding, burning, frightened, poisoned, unconscious, surprised, blinded, charmed, confused,
shaken, freezing, paralyzed."""
import pytest

from engine.rulesets.swurpg import combat as C

from .helpers import (BLASTER, CLUB, KNIFE, actions, all_of, cond, end, first, floor, legal_squares, legal_targets,
                      make, step, u, unit, why)

SPEAR = {"name": "spear", "kind": "melee", "damage": "1d6", "type": "piercing", "reach": True}


def _with(conds, weapon=CLUB, other=None, rows=None, **over):
    """X (pcs, the conditions) acts first at (1, 1); E (npcs) beside it at (2, 1)."""
    return make(rows or floor(6, 3), [unit("X", "pcs", (1, 1), weapon, state={"conds": conds}, **over),
                                      other or unit("E", "npcs", (2, 1), KNIFE)])


def _leave(b, mover="A", square=(0, 1), faces=()):
    ev = step(b, "move", square=square, faces=faces)
    return all_of(ev, "aoo")


def _provoke(conds=None, **over):
    """A (pcs) at (1, 1) acts first and walks away from E (npcs, the conditions) at (2, 1)."""
    return make(floor(6, 3), [unit("A", "pcs", (1, 1), BLASTER),
                              unit("E", "npcs", (2, 1), KNIFE, state={"conds": conds or {}}, **over)])


def test_a_plain_enemy_takes_its_opportunity_attack():
    assert _leave(_provoke(), faces=[1])


@pytest.mark.parametrize("name", ["stunned", "unconscious", "paralyzed", "confused", "shaken", "surprised"])
def test_conditions_that_forbid_reactions(name):
    over = {"state": {"conds": {}, "surprised": True}} if name == "surprised" else {}
    b = _provoke({name: cond()}) if name != "surprised" else make(
        floor(6, 3), [unit("A", "pcs", (1, 1), BLASTER), unit("E", "npcs", (2, 1), KNIFE, **over)])
    assert not _leave(b)


@pytest.mark.parametrize("name", ["dazed", "poisoned", "frightened", "blinded", "freezing", "prone"])
def test_conditions_that_leave_reactions(name):
    dis = name in ("dazed", "poisoned", "frightened", "blinded")    # its attack rolls have disadvantage
    assert _leave(_provoke({name: cond(9, "", 0, 0)}), faces=[1, 1] if dis else [1])   # frightened of A


# ---- no actions, no movement -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["stunned", "paralyzed"])
def test_incapacitating_conditions_leave_only_ending_the_turn(name):
    b = _with({name: cond()})
    assert actions(b) == {"end_turn"} and b.enc.budget["feet"] == 0
    assert "cannot take actions" in why(b, "attack", "E")


@pytest.mark.parametrize("name,fails", [("stunned", True), ("paralyzed", True), ("unconscious", True),
                                        ("shaken", False), ("prone", False)])
def test_str_and_dex_saves_fail_automatically(name, fails):
    b = _with({name: cond()})
    x = u(b, "X")
    for ability in ("str", "dex"):
        b.dice.push(*([] if fails else [20]))
        ok, e = C.roll_save(b.dice, x, ability, 5, "test")
        assert ok is not fails and bool(e.get("auto")) == fails
    b.dice.push(20)
    assert C.roll_save(b.dice, x, "con", 5, "test")[0]       # other saves are rolled


@pytest.mark.parametrize("name", ["stunned", "paralyzed", "unconscious", "blinded"])
def test_attacks_against_have_advantage(name):
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), BLASTER), unit("T", "npcs", (4, 0), KNIFE,
                                                                   state={"conds": {name: cond()}})])
    atk = first(step(b, "attack", "T", faces=[2, 3]), "attack")
    assert atk.get("faces") == [2, 3] and atk.get("face") == 3


@pytest.mark.parametrize("name,weapon,at,crit", [
    ("paralyzed", CLUB, (1, 0), True),         # a melee hit from within 5 ft: critical
    ("unconscious", CLUB, (1, 0), True),
    ("paralyzed", SPEAR, (2, 0), False),       # from 10 ft with a reach weapon: not
    ("paralyzed", BLASTER, (3, 0), False),     # ranged: not
    ("stunned", CLUB, (1, 0), False),          # stunned: advantage only
])
def test_melee_hits_within_5_ft_are_critical(name, weapon, at, crit):
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), weapon),
                           unit("T", "npcs", at, KNIFE, hp=60, state={"conds": {name: cond()}})])
    ev = step(b, "attack", "T", faces=[9, 10, 3] + ([4] if crit else []))
    assert first(ev, "attack").get("crit") == crit
    assert first(ev, "damage").get("amount") == 3 + (4 if crit else 0)


# ---- stunned: the Con save at the end of each turn ----------------------------------------------------------------------
@pytest.mark.parametrize("name,ability", [("stunned", "con"), ("frightened", "wis"), ("poisoned", "con"),
                                          ("confused", "wis"), ("shaken", "wis"), ("freezing", "con"),
                                          ("paralyzed", "con")])
@pytest.mark.parametrize("face,ends", [(12, True), (11, False)])
def test_a_condition_with_a_save_is_saved_against_at_the_end_of_the_turn(name, ability, face, ends):
    conds = {name: cond(-1, ability, 12)}
    b = make(floor(6, 3), [unit("E", "npcs", (5, 2), KNIFE), unit("X", "pcs", (1, 1), CLUB, state={"conds": conds})])
    end(b, faces=[6] if name == "confused" else [])     # E; X's turn (confused: d6 6, it acts normally)
    face -= C.save_bonus(u(b, "X"), ability)            # shaken: -1 on the save that ends it too
    ev = end(b, faces=[face])
    save = first(ev, "save")
    assert save.get("ability") == ability and save.get("dc") == 12
    assert (name not in u(b, "X").state["conds"]) == ends


# ---- dazed ----------------------------------------------------------------------------------------------------------
ION = {"name": "ion blaster", "kind": "ranged", "damage": "1d8", "type": "ion", "range": 60, "condition": "dazed",
       "condition_dc": 11}


def test_dazed_ends_at_the_end_of_its_next_turn_when_it_acted_first():
    # T acts before A: dazed on A's round-1 turn, T's next turn is in round 2
    b = make(floor(6, 1), [unit("T", "npcs", (4, 0), KNIFE), unit("A", "pcs", (0, 0), ION)])
    end(b)
    step(b, "attack", "T", faces=[15, 3, 5])     # hit, 3 ion, Con save 5 < 11: dazed; A's turn ends
    t = u(b, "T")
    assert "dazed" in t.state["conds"] and b.actor is t and b.enc.round == 2
    end(b)
    assert "dazed" not in t.state["conds"]


def test_dazed_ends_at_the_end_of_its_next_turn_when_it_acts_later_in_the_round():
    # A acts before T: dazed on A's round-1 turn, T's next turn is its round-1 turn
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), ION), unit("T", "npcs", (4, 0), KNIFE)])
    step(b, "attack", "T", faces=[15, 3, 5])
    t = u(b, "T")
    assert "dazed" in t.state["conds"] and b.actor is t and b.enc.round == 1
    end(b)                                        # the end of T's next turn
    assert "dazed" not in t.state["conds"]


def test_a_made_save_against_the_daze_keeps_it_off():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), ION), unit("T", "npcs", (4, 0), KNIFE)])
    step(b, "attack", "T", faces=[15, 3, 11])
    assert "dazed" not in u(b, "T").state["conds"]


def test_dazed_gives_disadvantage_on_attack_rolls():
    b = _with({"dazed": cond(5)})
    assert first(step(b, "attack", "E", faces=[15, 4]), "attack").get("face") == 4


# ---- grappled ----------------------------------------------------------------------------------------------------------
def _grapple(a_over=None, t_over=None):
    """A (pcs) grapples T (npcs) on A's turn; T acts next, B (pcs) on T's other side."""
    b = make(floor(3, 3), [unit("A", "pcs", (0, 1), KNIFE, **(a_over or {})),
                           unit("T", "npcs", (1, 1), KNIFE, **(t_over or {})), unit("B", "pcs", (2, 1), KNIFE)])
    ev = step(b, "grapple", "T", faces=[15, 10])
    assert first(ev, "contest").get("ok")
    return b


def test_a_grapple_is_a_contest_and_makes_the_speed_0():
    b = _grapple()
    t = u(b, "T")
    assert "grappled" in t.state["conds"] and t.state["grappled_by"] == u(b, "A").id
    assert b.actor is t and b.enc.budget["feet"] == 0 and not legal_squares(b, "move")


def test_a_grapple_lost_in_the_contest():
    b = make(floor(3, 3), [unit("A", "pcs", (0, 1), KNIFE), unit("T", "npcs", (1, 1), KNIFE, skills={"athletics": 3})])
    ev = step(b, "grapple", "T", faces=[12, 10])       # 12 + 0 against 10 + 3
    assert not first(ev, "contest").get("ok") and "grappled" not in u(b, "T").state["conds"]


def test_grappled_attacks_not_at_the_grappler_have_disadvantage():
    b = _grapple()
    assert first(step(b, "attack", "B", faces=[15, 3]), "attack").get("faces") == [15, 3]
    b = _grapple()
    assert first(step(b, "attack", "A", faces=[15, 3]), "attack").get("faces") == [15]


@pytest.mark.parametrize("mine,theirs,free", [(15, 10, True), (10, 10, False), (5, 10, False)])
def test_escape_is_a_contest_against_the_grappler_s_athletics(mine, theirs, free):
    b = _grapple(t_over={"skills": {"acrobatics": 4, "athletics": 1}})
    ev = step(b, "escape", faces=[mine, theirs])
    c = first(ev, "contest")
    assert c.get("mine") == mine + 4 and c.get("theirs") == theirs     # the better of Athletics and Acrobatics
    assert ("grappled" not in u(b, "T").state["conds"]) == (mine + 4 > theirs)


def test_the_grapple_ends_when_the_grappler_moves_away():
    b = make(floor(5, 3), [unit("A", "pcs", (1, 1), KNIFE, BLASTER), unit("T", "npcs", (2, 1), KNIFE)])
    step(b, "grapple", "T", faces=[15, 10])
    end(b)
    end(b)
    step(b, "move", square=(0, 1), faces=[1])     # T's opportunity attack misses
    assert "grappled" not in u(b, "T").state["conds"] and u(b, "A").state["grappling"] is None


def test_the_grapple_ends_when_the_grappler_drops():
    b = make(floor(4, 3), [unit("A", "pcs", (1, 1), KNIFE, hp=3), unit("T", "npcs", (2, 1), KNIFE),
                           unit("B", "pcs", (3, 2), KNIFE)])
    step(b, "grapple", "T", faces=[15, 10])
    step(b, "attack", "A", faces=[15, 4])           # T drops A
    assert "grappled" not in u(b, "T").state["conds"]


def test_the_grapple_ends_when_the_grappler_is_incapacitated():
    baton = {"name": "stun baton", "kind": "melee", "damage": "1d6", "type": "bludgeoning", "stun_dc": 10}
    b = make(floor(4, 3), [unit("A", "pcs", (1, 1), KNIFE), unit("T", "npcs", (2, 1), KNIFE),
                           unit("U", "npcs", (0, 1), baton)])
    step(b, "grapple", "T", faces=[15, 10])
    end(b)                                            # T, still grappled
    step(b, "attack", "A", faces=[15, 1])             # U stuns A (Con 1 < 12)
    assert "stunned" in u(b, "A").state["conds"]
    assert "grappled" not in u(b, "T").state["conds"] and u(b, "T").state["grappled_by"] is None


# ---- bleeding ----------------------------------------------------------------------------------------------------------
def test_bleeding_deals_1d8_at_the_end_of_the_turn_and_does_not_stack():
    b = _with({"bleeding": cond()})
    x = u(b, "X")
    assert x.hp == 30
    from engine.rulesets.swurpg import conditions as K
    assert not K.add(x.state, "bleeding")          # a second bleeding: still the one
    ev = end(b, faces=[5])                         # one d8
    assert first(ev, "bleeding").get("amount") == 5 and x.hp == 25
    assert "bleeding" in x.state["conds"]


def test_a_medpac_cures_bleeding():
    b = make(floor(4, 3), [unit("M", "pcs", (1, 1), KNIFE, KNIFE | {"name": "k2"}, medpacs=2),
                           unit("P", "pcs", (2, 1), KNIFE, hp_now=20, state={"conds": {"bleeding": cond()}}),
                           unit("E", "npcs", (3, 2), KNIFE)])
    step(b, "medpac", "P", faces=[1, 1])
    assert "bleeding" not in u(b, "P").state["conds"] and u(b, "P").hp == 24


@pytest.mark.parametrize("face,cured", [(10, True), (9, False)])
def test_treat_injury_dc_12_cures_bleeding(face, cured):
    b = make(floor(4, 3), [unit("M", "pcs", (1, 1), KNIFE, {**KNIFE, "name": "k2"}, skills={"treat_injury": 2}),
                           unit("P", "pcs", (2, 1), KNIFE, state={"conds": {"bleeding": cond()}}),
                           unit("E", "npcs", (3, 2), KNIFE)])
    ev = step(b, "treat_bleeding", "P", faces=[face])
    assert first(ev, "check").get("dc") == 12 and ("bleeding" not in u(b, "P").state["conds"]) == cured


def test_a_bleeding_weapon_inflicts_it_on_a_failed_save():
    axe = {"name": "vibroaxe", "kind": "melee", "damage": "1d10", "type": "slashing", "condition": "bleeding",
           "condition_dc": 11}
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), axe), unit("T", "npcs", (1, 0), KNIFE)])
    step(b, "attack", "T", faces=[15, 5, 10])        # Con save 10 < 11
    assert "bleeding" in u(b, "T").state["conds"]


# ---- burning -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("over,face,hp", [({}, 4, 26), ({"resist": ["fire"]}, 4, 28)])
def test_burning_deals_1d6_fire_at_the_start_of_the_turn(over, face, hp):
    b = make(floor(6, 3), [unit("A", "pcs", (0, 0), BLASTER),
                           unit("T", "npcs", (5, 2), KNIFE, state={"conds": {"burning": cond()}}, **over)])
    t = u(b, "T")
    assert t.hp == 30
    ev = end(b, faces=[face])
    assert first(ev, "burning").get("amount") == face and t.hp == hp and b.dice.asked[-1][0] == 6
    end(b)                                          # no bleeding-style damage at its end
    assert t.hp == hp


def test_extinguishing_the_flames_yourself_or_an_adjacent_ally():
    b = make(floor(6, 3), [unit("X", "pcs", (1, 1), KNIFE, {**KNIFE, "name": "k2"},
                                state={"conds": {"burning": cond()}}),
                           unit("Y", "pcs", (2, 1), KNIFE, state={"conds": {"burning": cond()}}),
                           unit("E", "npcs", (5, 2), KNIFE)], dice=[1])
    assert legal_targets(b, "extinguish") == {"X", "Y"}
    step(b, "extinguish", "Y")
    assert "burning" not in u(b, "Y").state["conds"] and "burning" in u(b, "X").state["conds"]


# ---- frightened ------------------------------------------------------------------------------------------------------------
def _afraid(src_at=(3, 1), rows=None):
    b = make(rows or floor(10, 3), [unit("S", "npcs", src_at, KNIFE),
                                    unit("X", "pcs", (1, 1), BLASTER, state={"conds": {"frightened": cond(-1, "wis", 12, 0)}})],
             order=["X", "S"])
    return b


def test_frightened_within_20_ft_must_move_away():
    b = _afraid((3, 1))                     # 10 ft
    sq = legal_squares(b, "move")
    assert sq and all(max(abs(x - 3), abs(y - 1)) > 2 for x, y in sq)
    assert (0, 1) in sq and (2, 1) not in sq and (1, 0) not in sq


def test_frightened_farther_than_20_ft_never_moves_closer():
    b = _afraid((7, 1))                     # 30 ft
    sq = legal_squares(b, "move")
    assert (1, 0) in sq and (0, 1) in sq and (2, 1) not in sq


def test_frightened_may_disengage_as_a_bonus_action():
    b = _afraid((2, 1))
    assert "bonus_disengage" in actions(b)
    step(b, "bonus_disengage")
    assert not all_of(step(b, "move", square=(0, 1)), "aoo")


def test_frightened_has_disadvantage_while_the_source_is_visible():
    b = _afraid((5, 1))
    assert first(step(b, "attack", "S", faces=[15, 3]), "attack").get("faces") == [15, 3]


def test_frightened_no_disadvantage_while_the_source_is_out_of_sight():
    b = make(["...#......", "...#......", ".........."],
             [unit("S", "npcs", (5, 0), KNIFE), unit("T", "npcs", (2, 2), KNIFE),
              unit("X", "pcs", (1, 0), BLASTER, state={"conds": {"frightened": cond(-1, "wis", 12, 0)}})],
             order=["X", "S", "T"])
    assert not b.enc.grid.line_of_sight((1, 0), (5, 0))
    atk = first(step(b, "attack", "T", faces=[15, 3]), "attack")
    assert atk.get("faces") == [15]


# ---- poisoned, blinded, shaken -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["poisoned", "blinded"])
def test_disadvantage_on_its_attacks(name):
    b = _with({name: cond()})
    assert first(step(b, "attack", "E", faces=[15, 4]), "attack").get("face") == 4


def test_shaken_minus_1_to_attacks_and_saves():
    b = _with({"shaken": cond()})
    x = u(b, "X")
    assert C.save_bonus(x, "con") == -1 and C.save_bonus(x, "dex") == -1
    assert first(step(b, "attack", "E", faces=[2]), "attack").get("bonus") == 2 - 1


# ---- charmed -------------------------------------------------------------------------------------------------------------
def test_charmed_cannot_attack_the_charmer():
    b = make(floor(6, 3), [unit("X", "pcs", (1, 1), BLASTER, state={"conds": {"charmed": cond(-1, "wis", 12, 1)}}),
                           unit("S", "npcs", (4, 1), KNIFE), unit("T", "npcs", (4, 2), KNIFE)])
    assert legal_targets(b, "attack") == {"T"}


# ---- confused ------------------------------------------------------------------------------------------------------------
def _confused():
    """A (pcs) far off acts first; C (npcs, confused, a club) at (2, 1) beside its ally D at (3, 1)."""
    return make(floor(6, 3), [unit("A", "pcs", (0, 1), BLASTER),
                              unit("C", "npcs", (2, 1), CLUB, state={"conds": {"confused": cond(-1, "wis", 30)}}),
                              unit("D", "npcs", (3, 1), KNIFE)])


def test_confused_1_2_attacks_the_nearest_creature():
    b = _confused()
    ev = end(b, faces=[2])
    assert first(ev, "confusion").get("what") == "attack" and b.actor is u(b, "C")
    assert legal_targets(b, "attack") == {"D"}          # its ally, the nearest


def test_confused_3_4_wanders_and_takes_no_action():
    b = _confused()
    ev = end(b, faces=[3, 3])                            # d8 3: east
    assert first(ev, "confusion").get("what") == "wander"
    assert u(b, "C").pos == (2, 1)                      # east is D's square: it stays
    assert actions(b) == {"end_turn"}


def test_confused_wandering_moves_one_square_in_the_rolled_direction():
    b = _confused()
    end(b, faces=[4, 7])                                 # d8 7: west
    assert u(b, "C").pos == (1, 1)


def test_confused_5_6_acts_normally():
    b = _confused()
    end(b, faces=[5])
    assert "A" in legal_targets(b, "unarmed") or "move" in actions(b)
    assert "D" not in legal_targets(b, "attack") and "dash" in actions(b)


# ---- surprised ----------------------------------------------------------------------------------------------------------
def test_surprised_takes_no_turn_in_round_1_and_acts_in_round_2():
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), BLASTER), unit("E", "npcs", (2, 1), KNIFE,
                                                                   state={"surprised": True})])
    assert not _leave(b)                                 # no reaction in round 1
    end(b)                                               # E skipped
    assert b.actor is u(b, "A") and b.enc.round == 2
    end(b)
    assert b.actor is u(b, "E") and not u(b, "E").state["surprised"]


# ---- freezing ---------------------------------------------------------------------------------------------------------------
def test_freezing_halves_speed_and_gives_disadvantage_on_dex_saves():
    b = _with({"freezing": cond()})
    x = u(b, "X")
    assert b.enc.budget["feet"] == 15 and C.speed_feet(x) == 15
    b.dice.push(15, 4)
    ok, e = C.roll_save(b.dice, x, "dex", 10, "test")
    assert e.get("face") == 4 and not ok
    b.dice.push(15)
    assert C.roll_save(b.dice, x, "con", 10, "test")[0]      # other saves rolled once


# ---- prone --------------------------------------------------------------------------------------------------------------
def test_prone_speed_0_until_it_crawls_or_stands():
    b = _with({"prone": cond()})
    assert not legal_squares(b, "move") and {"crawl", "stand_up"} <= actions(b)
