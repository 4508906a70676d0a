"""Attacks of opportunity (one reaction a round) and what provokes them: moving out of a threatened square (not by a
guarded step, not the first square of a withdrawal), a ranged attack, a spell or spell-like ability; reach; who
cannot take them."""
import pytest

from engine.core.reaction import DECLINE, Trigger

from .helpers import (KNIFE, LASER, SPEAR, actions, all_of, end, first, floor, kinds, make, step, u, unit)

BOLT = {"name": "force bolt", "kind": "spell", "target": "enemy", "range": 60, "damage": "1d4", "type": "force"}


def _pair(*weapons, rows=None, **over):
    """A (pcs) next to E (npcs, a knife) on a 6x3 floor."""
    return make(rows or floor(6, 3), [unit("A", "pcs", (1, 1), *weapons, **over), unit("E", "npcs", (2, 1), KNIFE)])


def test_moving_out_of_a_threatened_square_provokes_before_the_step():
    b = _pair(LASER)
    ev = step(b, "move", square=(0, 1), faces=[15, 3])
    assert kinds(ev)[:4] == ["action", "move", "aoo", "attack"]
    assert first(ev, "aoo").actor == u(b, "E").id and u(b, "A").hp == 30 - 3 and u(b, "A").pos == (0, 1)


def test_a_guarded_step_provokes_nothing():
    b = _pair(LASER)
    ev = step(b, "guarded_step", square=(0, 1))
    assert not all_of(ev, "aoo") and u(b, "A").pos == (0, 1)


@pytest.mark.parametrize("reach,aoo", [(KNIFE, False), (SPEAR, True)])
def test_withdraw_spares_the_first_square_only(reach, aoo):
    # leaving (1, 1) is free; with a spear E also threatens (2, 1), and leaving that provokes
    b = make(floor(8, 3), [unit("A", "pcs", (1, 1), LASER), unit("E", "npcs", (0, 1), reach)])
    ev = step(b, "withdraw", square=(6, 1), faces=[2] if aoo else [])
    assert bool(all_of(ev, "aoo")) == aoo and u(b, "A").pos == (6, 1)


def test_a_drop_stops_the_walk():
    b = _pair(LASER, hp=3)
    step(b, "move", square=(0, 1), faces=[15, 3])
    a = u(b, "A")
    assert a.down and a.pos == (1, 1)


def test_a_mover_knocked_prone_by_an_attack_of_opportunity_stops():
    trip_knife = {**KNIFE, "critical": "knockdown"}
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), LASER), unit("E", "npcs", (2, 1), trip_knife)])
    step(b, "move", square=(0, 0), faces=[20, 1, 1])
    a = u(b, "A")
    assert a.pos == (1, 1) and "prone" in a.state["conds"]


def test_one_reaction_a_round_regained_at_the_start_of_its_turn():
    b = make(floor(8, 3), [unit("A", "pcs", (1, 1), LASER), unit("B", "pcs", (3, 1), LASER),
                           unit("E", "npcs", (2, 1), KNIFE)])
    step(b, "move", square=(0, 1), faces=[1])          # E's attack of opportunity on A
    end(b)
    ev = step(b, "move", square=(4, 1))                # B leaves E's reach: E has no reaction left
    assert not all_of(ev, "aoo")
    end(b)
    assert u(b, "E").state["reaction"]                 # E's own turn starts: its reaction is back


def test_a_ranged_attack_in_a_threatened_square_provokes():
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), LASER), unit("E", "npcs", (2, 1), KNIFE),
                           unit("T", "npcs", (5, 1))])
    ev = step(b, "ranged_attack", "T", faces=[1, 1])
    assert first(ev, "aoo").actor == u(b, "E").id
    assert [e.actor for e in all_of(ev, "attack")] == [u(b, "E").id, u(b, "A").id]  # the AoO comes first


def test_a_ranged_attack_out_of_reach_does_not_provoke():
    b = make(floor(6, 3), [unit("A", "pcs", (0, 1), LASER), unit("E", "npcs", (2, 1), KNIFE)])
    assert not all_of(step(b, "ranged_attack", "E", faces=[1]), "aoo")


@pytest.mark.parametrize("kind,provokes", [("spell", True), ("sla", True), ("ex", False), ("su", False)])
def test_spells_and_spell_like_abilities_provoke(kind, provokes):
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), abilities=[{**BOLT, "kind": kind}]),
                           unit("E", "npcs", (2, 1), KNIFE)])
    ev = step(b, "use_ability", option=0, faces=[1] if provokes else [])
    assert bool(all_of(ev, "aoo")) == provokes


def test_a_damaging_attack_of_opportunity_spoils_the_spell_and_its_use():
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), abilities=[{**BOLT, "uses": 2}]),
                           unit("E", "npcs", (2, 1), KNIFE)])
    ev = step(b, "use_ability", option=0, faces=[15, 2])
    assert first(ev, "spoiled") and u(b, "A").state["uses"] == [1]
    assert "pick_target" not in actions(b)


def test_a_missed_attack_of_opportunity_lets_the_spell_go_off():
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), abilities=[BOLT]), unit("E", "npcs", (2, 1), KNIFE)])
    step(b, "use_ability", option=0, faces=[1])
    assert "pick_target" in actions(b)
    step(b, "pick_target", "E", faces=[3])
    assert u(b, "E").hp == 27


def test_standing_up_provokes_nothing():
    b = _pair(LASER)
    u(b, "A").state["conds"]["prone"] = -1
    assert not all_of(step(b, "stand_up"), "aoo")


def test_reach_10_threatens_the_second_diagonal():
    b = make(floor(6, 6), [unit("A", "pcs", (3, 3), LASER), unit("E", "npcs", (1, 1), SPEAR)])
    assert all_of(step(b, "move", square=(4, 4), faces=[1]), "aoo")


def test_a_ranged_weapon_or_unarmed_strike_threatens_nothing():
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), LASER), unit("E", "npcs", (2, 1), LASER)])
    assert not all_of(step(b, "move", square=(0, 1)), "aoo")
    b = make(floor(6, 3), [unit("A", "pcs", (1, 1), LASER), unit("E", "npcs", (2, 1))])
    assert not all_of(step(b, "move", square=(0, 1)), "aoo")


@pytest.mark.parametrize("setup", [
    lambda e: e.state.update(total_defense=True),          # no attacks of opportunity in total defense
    lambda e: e.state["conds"].update(flat_footed=-1),     # flat-footed: no reactions
    lambda e: e.state["conds"].update(grappled=-1),        # grappled: no attacks of opportunity
    lambda e: e.state["conds"].update(staggered=-1),       # staggered: no reactions
    lambda e: e.state.update(acted=False),                 # no reaction before its first turn in the combat
    lambda e: e.state.update(reaction=False),              # already used this round
])
def test_who_cannot_take_an_attack_of_opportunity(setup):
    b = _pair(LASER)
    setup(u(b, "E"))
    assert not all_of(step(b, "move", square=(0, 1)), "aoo")


def test_cover_from_the_reactor_stops_its_attack_of_opportunity():
    b = make(["......", "..c...", "......"], [unit("A", "pcs", (1, 1), LASER), unit("E", "npcs", (3, 1), SPEAR)])
    assert not all_of(step(b, "move", square=(0, 1)), "aoo")


def test_the_reacting_side_may_decline():
    b = _pair(LASER)
    asked = []

    def react(enc, unit_, trigger, options):
        asked.append((unit_.name, trigger.kind, options))
        return DECLINE

    b.react = react
    ev = step(b, "move", square=(0, 1))
    assert asked[0][:2] == ("E", "leaves_threat") and asked[0][2][-1] == DECLINE
    assert first(ev, "aoo_declined") and u(b, "E").state["reaction"]


def test_legal_reactions_list_the_attack_then_decline():
    b = _pair(LASER)
    e, a = u(b, "E"), u(b, "A")
    opts = b.ruleset.legal_reactions(b.enc, e, Trigger("leaves_threat", a.id, "", {"square": a.pos}))
    assert [d.action for d in opts] == ["attack_of_opportunity", "no_reaction"] and opts[0].target == a.id
    assert b.ruleset.legal_reactions(b.enc, e, Trigger("leaves_threat", a.id, "", {"square": (4, 1)})) == []
