"""Reactions at the terminal: the GM is asked whether a PC takes the attack of opportunity an NPC provokes (y / n, or
the number of one of several), in the middle of the NPC's decision; undo and quit stop the decision there, manual
dice follow the answer, Ctrl-C offers to save; the sides a policy plays have their policy choose."""
from __future__ import annotations

import json

import pytest

from engine.core.encounter_file import parse_encounter
from engine.core.policy import Policy, RandomPolicy
from engine.rulesets import get_ruleset

from agents.autopilot import Session
from agents.autopilot.core import Quit, read_session

from .conftest import Table
from .reactions import DUELS, INITIATIVE, TripToy

ASKED = "Kira may take an attack of opportunity on {npc} (moving out of a threatened square): take it? [Y/n] "


class Declines(Policy):
    """Lets every reaction pass (the last option)."""

    def choose_reaction(self, enc, unit, trigger, options):
        return options[-1]


def _duel(rid, script, dice="auto", npcs=None, pcs=None, ruleset=None):
    """A session of the duel at the NPC's turn (Kira ended hers), with the GM's answers scripted."""
    text, npc, goal = DUELS[rid]
    rs = ruleset or get_ruleset(rid)
    table = Table(script, lambda t, p: "quit")
    s = Session(parse_encounter(text, f"{rid}.yaml"), rs, npcs or RandomPolicy(1), pcs, dice=dice, seed=1,
                ask=table.ask, say=table.say)
    table.session = s
    s.battle.start(INITIATIVE)
    s.sync_turn()
    s.command("end")
    s.sync_turn()
    assert s.enc.actor.name == npc
    return s, table, npc, goal


def _walk(s, goal):
    s.command(f"move {goal[0]} {goal[1]}")


@pytest.mark.parametrize("rid", ["saga", "starfinder", "toy_5e"])
def test_a_pc_that_declines_lets_the_npc_walk_away_unharmed(rid):
    s, table, npc, goal = _duel(rid, ["n"])
    mover = s.enc.units[1]
    _walk(s, goal)
    if rid != "toy_5e":
        assert table.prompts == [ASKED.format(npc=npc)]
        assert f"Kira lets {npc} go" in table.text
    else:
        assert table.prompts == ["Kira may take an opportunity attack on Gob (leaving reach): take it? [Y/n] "]
    assert mover.pos == goal and mover.hp == mover.max_hp and s.decisions == 2
    assert "d20" not in table.text and " vs " not in table.text  # no attack rolled


@pytest.mark.parametrize("rid, faces, damage", [("saga", ["15", "3", "4"], 3 + 4 + 4),   # 2d8 + 4: 21 vs Reflex 15
                                                ("starfinder", ["15", "3"], 3 + 4),      # 1d4 + 4: 19 vs KAC 12
                                                ("toy_5e", ["15", "3"], 3 + 3)])         # 1d8 + 3: 20 vs 13
def test_a_pc_that_takes_it_rolls_the_attack_with_manual_dice(rid, faces, damage):
    s, table, npc, goal = _duel(rid, ["y", *faces], dice="manual")
    mover = s.enc.units[1]
    _walk(s, goal)
    assert table.prompts[0].endswith("take it? [Y/n] ") and table.prompts[1].startswith("d20 for Kira's")
    assert len(table.prompts) == 1 + len(faces) and all("Kira" in p for p in table.prompts[1:])
    assert mover.hp == mover.max_hp - damage and mover.pos == goal, table.text
    assert "15" in table.text and s.undo_stack[-1].what == f'{npc}: move {goal[0]} {goal[1]}'


def test_enter_takes_it_and_the_attack_is_rolled_with_seeded_dice():
    s, table, npc, goal = _duel("saga", [""])
    _walk(s, goal)
    assert table.prompts == [ASKED.format(npc=npc)]
    assert "Kira takes an attack of opportunity with their lightsaber on Trooper 1: " in table.text
    assert "vs Reflex" in table.text


def test_a_mistyped_answer_is_asked_again_saying_what_to_type():
    s, table, npc, goal = _duel("saga", ["maybe", "3", "no"])
    _walk(s, goal)
    assert table.prompts == [ASKED.format(npc=npc)] * 3
    assert "'maybe' is not an answer: type y or n (Enter: y), or undo / quit / exit." in table.text
    assert s.enc.units[1].pos == goal and s.enc.units[1].hp == 18


@pytest.mark.parametrize("rid", ["saga", "starfinder"])
def test_undo_at_the_reaction_prompt_takes_the_npcs_decision_back_whole(rid):
    s, table, npc, goal = _duel(rid, ["undo"])
    before = json.dumps(s.enc.to_dict(), sort_keys=True)
    _walk(s, goal)
    assert f"Taken back: move {goal[0]} {goal[1]} (nothing of it happened)." in table.text
    assert json.dumps(s.enc.to_dict(), sort_keys=True) == before and s.decisions == 1
    table.script += ["n"]
    _walk(s, goal)  # the session goes on: asked again
    assert s.enc.units[1].pos == goal and table.prompts[-1] == ASKED.format(npc=npc)


def test_undo_at_a_die_after_taking_it_takes_the_whole_decision_back():
    s, table, npc, goal = _duel("saga", ["y", "15", "undo"], dice="manual")
    before = json.dumps(s.enc.to_dict(), sort_keys=True)
    _walk(s, goal)
    assert table.prompts[0] == ASKED.format(npc=npc) and table.prompts[1].startswith("d20 for Kira's attack")
    assert table.prompts[2].startswith("d8 for Kira's damage") and len(table.prompts) == 3
    assert json.dumps(s.enc.to_dict(), sort_keys=True) == before and "Taken back" in table.text


@pytest.mark.parametrize("word", ["quit", "exit"])
def test_quit_at_the_reaction_prompt_ends_the_session(word):
    s, table, npc, goal = _duel("saga", [word])
    with pytest.raises(Quit):
        _walk(s, goal)
    assert s.enc.units[1].pos == (4, 2)


def test_ctrl_c_at_the_reaction_prompt_offers_to_save_the_state_before_the_decision(tmp_path):
    def interrupt(table, prompt):
        raise KeyboardInterrupt

    path = tmp_path / "duel.json"
    s, table, npc, goal = _duel("saga", ["move 8 2", interrupt, str(path)])
    result = s.run()
    assert result.quit and table.prompts[1] == ASKED.format(npc=npc)
    saved = read_session(path)
    assert saved.enc.units[1].pos == (4, 2) and saved.enc.actor.name == npc
    table2 = Table(["n"], lambda t, p: "quit")
    again = Session(saved.enc, get_ruleset("saga"), RandomPolicy(1), None, seed=1, ask=table2.ask, say=table2.say)
    again.resume(saved)
    again.sync_turn()
    again.command("move 8 2")  # loaded, the walk asks again
    assert table2.prompts == [ASKED.format(npc=npc)] and again.enc.units[1].pos == goal


def test_several_reactions_are_numbered_and_a_number_chooses_one():
    s, table, npc, goal = _duel("toy_5e", ["4", "2"], ruleset=TripToy())
    _walk(s, goal)
    assert table.prompts == ["which? [1-3, Enter: 1] "] * 2
    at = table.out.index("Kira may react to Gob (leaving reach):")
    assert table.out[at + 1:at + 4] == ["  1. opportunity attack on Gob", "  2. trip on Gob", "  3. no reaction"]
    assert "'4' is not an answer: type a number from 1 to 3 (Enter: 1)" in table.text
    assert s.enc.units[1].pos == (4, 2) and s.enc.units[1].hp == 7  # tripped where it stood, unhurt


@pytest.mark.parametrize("answer, at, struck", [("3", (7, 2), False), ("n", (7, 2), False), ("1", (4, 2), True)])
def test_the_other_numbers_strike_or_let_it_pass(answer, at, struck):
    s, table, npc, goal = _duel("toy_5e", [answer, "20", "8"], dice="manual", ruleset=TripToy())
    _walk(s, goal)
    assert table.prompts[0] == "which? [1-3, Enter: 1] " and len(table.prompts) == (3 if struck else 1)
    assert s.enc.units[1].pos == at and (s.enc.units[1].hp < 7) == struck, table.text


def test_an_npc_reacts_as_its_policy_chooses_and_the_gm_is_not_asked():
    text = DUELS["saga"][0].replace("name: Trooper 1, side: npcs, template: trooper", "name: Rancor, side: npcs, "
                                    "template: beast")  # claws: it threatens
    rs = get_ruleset("saga")
    for policy, struck in ((Declines(), False), (RandomPolicy(1), True)):
        table = Table([], lambda t, p: "quit")
        s = Session(parse_encounter(text, "saga.yaml"), rs, policy, None, seed=1, ask=table.ask, say=table.say)
        s.battle.start(INITIATIVE)
        s.sync_turn()
        s.command("move 1 2")  # Kira walks out of the beast's reach: the beast's policy decides
        assert table.prompts == [] and s.enc.units[0].pos == (1, 2), table.text
        assert ("Rancor takes an attack of opportunity" in table.text) == struck, table.text
        assert ("Rancor lets Kira go" in table.text) == (not struck)


def test_a_battle_both_policies_play_asks_nobody_and_their_policies_choose():
    text, npc, goal = DUELS["saga"]
    rs = get_ruleset("saga")
    table = Table([], lambda t, p: pytest.fail(f"asked {p!r}"))
    s = Session(parse_encounter(text, "saga.yaml"), rs, RandomPolicy(1), Declines(), seed=1, ask=table.ask,
                say=table.say)
    s.battle.start(INITIATIVE)
    s.command("end")
    s.sync_turn()
    s.command(f"move {goal[0]} {goal[1]}")
    assert table.prompts == [] and "Kira lets Trooper 1 go" in table.text and s.enc.units[1].hp == 18
