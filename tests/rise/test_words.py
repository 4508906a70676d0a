"""Rise's table words (engine/rulesets/rise/words.yaml) through the autopilot's parser (agents/autopilot/words.py):
every legal decision of states of real play typed back by its short words (both phases, dual and split strikes,
grapples, a prone creature), the words a Rise GM types, their errors (naming the reason, changing nothing), and a
small encounter played at the autopilot (agents/autopilot/session.py) with manual dice: the PC's choices typed, the
NPC's proposals accepted, each phase resolved only once both have committed, hit points as the dice give."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
import yaml

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.errors import IllegalAction, InputError
from engine.core.policy import RandomPolicy

from agents.autopilot import Session, resolve_policy
from agents.autopilot.session import help_text
from agents.autopilot.words import command_for, decision_help, parse_decision
from agents.render import markers
from tests.autopilot.conftest import DIE, Table

from tests.table_helpers import gm_session
from .helpers import (BOW, DAGGER, DUAL, MAIN, OFF, SPLIT, SWORD, RS, actor, damage_to, end, floor, make,
                      play_phase, skip_movement, step, u, unit)

ENCOUNTERS = sorted((Path(__file__).resolve().parents[2] / "configs/encounters/rise").glob("*.yaml"))


# ---- states ----------------------------------------------------------------------------------------------------------
def _table():
    """Kira (sword and dagger, Dexterity 2: dual and split strikes; no free hand), Bruno (a sword: a free hand) and
    Wren (a bow, prone) against Orc and Boss (both next to Kira) and Far (a straight diagonal charge away). Round 1,
    the movement phase, Kira first.

        x: 01234567
      y 0  ........
        1  .KOB....      K Kira, O Orc, B Bruno
        2  .b......      b Boss
        3  ........
        4  .....F..      F Far
        5  W.......      W Wren (prone)
    """
    return make(floor(8, 6), [
        unit("Kira", "pcs", (1, 1), SWORD, DAGGER, dexterity=2, accuracy=4),
        unit("Bruno", "pcs", (3, 1), SWORD),
        unit("Wren", "pcs", (0, 5), BOW, state={"prone": True}),
        unit("Orc", "npcs", (2, 1), SWORD),
        unit("Boss", "npcs", (1, 2), SWORD),
        unit("Far", "npcs", (5, 4), SWORD)])


def _grapplers():
    """Gus (pcs) holds Orc in a grapple he controls; Ivy (pcs) and Boss (npcs) stand apart. Round 1, movement."""
    return make(floor(7, 3), [
        unit("Gus", "pcs", (1, 1), SWORD, brawling=2, state={"grapple": [2], "control": True}),
        unit("Ivy", "pcs", (4, 1), SWORD),
        unit("Orc", "npcs", (2, 1), SWORD, state={"grapple": [0]}),
        unit("Boss", "npcs", (6, 1), SWORD)])


def _turn_of(b, name: str):
    """End the turns before `name`'s in this phase (nobody commits anything)."""
    for _ in range(len(b.enc.units)):
        if actor(b) == name:
            return b
        end(b)
    raise AssertionError(f"{name} never came to act in the {b.phase} phase")


def _in_action_phase(b):
    skip_movement(b)
    return b


# ---- 1. every legal decision typed back ------------------------------------------------------------------------------
def _typed_back(b) -> set[tuple[str, str, int]]:
    """Every legal decision of the acting creature: its command, as the autopilot words it, parses back to exactly
    that decision (as `parse_decision` reads it at the session's prompt too, with the map's markers)."""
    seen = set()
    for d in b.legal():
        text = command_for(d, b.enc, RS)
        assert parse_decision(text, b) == d, (b.phase, actor(b), text, d)
        assert parse_decision(text, b, markers(b.enc)) == d, (b.phase, actor(b), text, d)
        seen.add((b.phase, d.action, d.option))
    return seen


def _every_turn_of_the_phase(b) -> set[tuple[str, str, int]]:
    start = (b.enc.round, b.phase)
    seen: set = set()
    while not b.over and (b.enc.round, b.phase) == start:
        seen |= _typed_back(b)
        end(b)
    return seen


def test_every_legal_decision_types_back_to_itself_along_play_of_the_shipped_encounters():
    rng = random.Random(0)
    seen: set = set()
    checked = 0
    for k, path in enumerate(ENCOUNTERS):
        b = Battle(load_encounter(path, RS), RS, SeededDice(k))
        b.start()
        pol = RandomPolicy(k)
        for n in range(200):
            if b.over:
                break
            legal = b.legal()
            # every 4th state all of them, else one of each action and option and a few more
            picks = legal if n % 4 == 0 else \
                list({(d.action, d.option): d for d in legal}.values()) + rng.sample(legal, min(6, len(legal)))
            for d in picks:
                text = command_for(d, b.enc, RS)
                assert parse_decision(text, b) == d, (path.name, b.phase, actor(b), text, d)
            checked += len(picks)
            seen.update((b.phase, d.action, d.option) for d in legal)
            b.step(pol.choose(b))
    assert checked > 10000
    movement = {a for p, a, _ in seen if p == "movement"}
    action = {a for p, a, _ in seen if p == "action"}
    assert {"move", "sprint", "overrun_move", "end_turn"} <= movement, movement
    assert {"strike", "shoot", "hurl", "charge", "split_target", "sprint_action", "overrun", "total_defense",
            "recover", "ready", "end_turn"} <= action, action
    assert {o for p, a, o in seen if a == "strike"} == {MAIN, OFF, DUAL, SPLIT}


def test_every_legal_decision_types_back_in_both_phases_with_dual_split_prone_and_grappling_creatures():
    seen: set = set()
    b = _table()
    seen |= _every_turn_of_the_phase(b)                   # movement: Kira, Bruno, prone Wren, the NPCs
    seen |= _every_turn_of_the_phase(b)                   # action
    b = _in_action_phase(_table())
    step(b, "strike", "Orc", option=SPLIT)                # a split strike committed: its second target is next
    assert {d.action for d in b.legal()} == {"end_turn", "split_target"}
    seen |= _typed_back(b)
    g = _grapplers()
    seen |= _every_turn_of_the_phase(g)                   # movement: the grapplers can only push
    seen |= _every_turn_of_the_phase(g)                   # action: hold, let go, break free, throw, shove
    expected = {
        ("movement", "move"), ("movement", "sprint"), ("movement", "overrun_move"), ("movement", "stand"),
        ("movement", "shove_move"), ("movement", "end_turn"),
        ("action", "strike"), ("action", "shoot"), ("action", "hurl"), ("action", "split_target"),
        ("action", "charge"), ("action", "grapple"), ("action", "trip"), ("action", "shove"), ("action", "throw"),
        ("action", "maintain"), ("action", "escape"), ("action", "release"), ("action", "sprint_action"),
        ("action", "overrun"), ("action", "total_defense"), ("action", "recover"), ("action", "ready"),
        ("action", "end_turn")}
    assert {(p, a) for p, a, _ in seen} == expected
    assert {k for _, k in expected} == set(RS.catalogue)  # every action of the catalogue was typed back
    assert {o for p, a, o in seen if a == "strike"} == {MAIN, OFF, DUAL, SPLIT}
    assert {o for p, a, o in seen if a == "charge"} == {MAIN, OFF, DUAL}


def test_rise_decisions_are_worded_in_its_short_words():
    b = _in_action_phase(_table())
    orc, boss = u(b, "Orc").id, u(b, "Boss").id
    words = {Decision("strike", orc, None, SPLIT): "strike 3 Orc", Decision("split_target", boss): "second Boss",
             Decision("sprint_action", square=(6, 1)): "run 6 1", Decision("overrun_move", square=(4, 1)):
             "bull rush 4 1", Decision("shove_move", orc): "push Orc", Decision("total_defense"): "defend",
             Decision("escape"): "break free", Decision("charge", orc, None, DUAL): "charge 2 Orc", END: "end"}
    for d, text in words.items():
        assert command_for(d, b.enc, RS) == text


# ---- 2. the words a Rise GM types -----------------------------------------------------------------------------------
# (phase, who acts, typed, action, target, square, option)
WORDS = [
    ("movement", "Kira", "move 2 2", "move", None, (2, 2), 0),
    ("movement", "Kira", "go 2 2", "move", None, (2, 2), 0),
    ("movement", "Kira", "walk 2 2", "move", None, (2, 2), 0),
    ("movement", "Kira", "2 2", "move", None, (2, 2), 0),
    ("movement", "Kira", "sprint 7 1", "sprint", None, (7, 1), 0),        # beyond a move: a sprint only
    ("movement", "Kira", "sprint 2 2", "sprint", None, (2, 2), 0),        # within a move, still the sprint typed
    ("movement", "Kira", "dash 7 1", "sprint", None, (7, 1), 0),
    ("movement", "Kira", "bull rush 4 1", "overrun_move", None, (4, 1), 0),
    ("movement", "Kira", "end", "end_turn", None, None, 0),
    ("movement", "Kira", "pass", "end_turn", None, None, 0),
    ("movement", "Wren", "get up", "stand", None, None, 0),
    ("movement", "Wren", "stand", "stand", None, None, 0),
    ("action", "Kira", "strike 0 Orc", "strike", "Orc", None, MAIN),
    ("action", "Kira", "strike Orc", "strike", "Orc", None, MAIN),
    ("action", "Kira", "attack Orc", "strike", "Orc", None, MAIN),
    ("action", "Kira", "hit boss", "strike", "Boss", None, MAIN),
    ("action", "Kira", "melee Boss", "strike", "Boss", None, MAIN),
    ("action", "Kira", "strike 1 Orc", "strike", "Orc", None, OFF),
    ("action", "Kira", "strike 2 Orc", "strike", "Orc", None, DUAL),
    ("action", "Kira", "strike 3 Orc", "strike", "Orc", None, SPLIT),
    ("action", "Kira", "charge 0 Far", "charge", "Far", None, MAIN),
    ("action", "Kira", "charge 2 Far", "charge", "Far", None, DUAL),
    ("action", "Kira", "hurl 1 Far", "hurl", "Far", None, OFF),
    ("action", "Kira", "throw weapon 1 Far", "hurl", "Far", None, OFF),
    ("action", "Kira", "attack Far", "hurl", "Far", None, OFF),          # nothing else reaches Far: the dagger thrown
    ("action", "Kira", "run 6 1", "sprint_action", None, (6, 1), 0),
    ("action", "Kira", "dash 6 1", "sprint_action", None, (6, 1), 0),     # the movement's sprint is past: the action's
    ("action", "Kira", "overrun 4 1", "overrun", None, (4, 1), 0),
    ("action", "Kira", "defend", "total_defense", None, None, 0),
    ("action", "Kira", "rest", "recover", None, None, 0),
    ("action", "Kira", "wait", "ready", None, None, 0),
    ("action", "Kira", "end", "end_turn", None, None, 0),
    ("action", "Bruno", "trip Orc", "trip", "Orc", None, 0),
    ("action", "Bruno", "grab Orc", "grapple", "Orc", None, 0),
    ("action", "Bruno", "push Orc", "shove", "Orc", None, 0),
    ("action", "Bruno", "attack Orc", "strike", "Orc", None, MAIN),
    ("action", "Wren", "fire 0 Far", "shoot", "Far", None, MAIN),
    ("action", "Wren", "shoot Far", "shoot", "Far", None, MAIN),
    ("action", "Wren", "loose far", "shoot", "Far", None, MAIN),
    ("action", "Wren", "attack Far", "shoot", "Far", None, MAIN),        # a bow does not strike in melee: it shoots
]


@pytest.mark.parametrize("phase,who,text,action,target,square,option", WORDS,
                         ids=[f"{w[0]}-{w[1]}-{w[2]}" for w in WORDS])
def test_the_words_a_rise_gm_types(phase, who, text, action, target, square, option):
    b = _table()
    if phase == "action":
        skip_movement(b)
    _turn_of(b, who)
    d = parse_decision(text, b)
    assert (d.action, d.square, d.option) == (action, square, option)
    assert d.target == (None if target is None else u(b, target).id)
    assert b.is_legal(d)


GRAPPLE_WORDS = [
    ("movement", "Gus", "push Orc", "shove_move", "Orc"),
    ("movement", "Orc", "push Gus", "shove_move", "Gus"),
    ("action", "Gus", "hold", "maintain", None),
    ("action", "Gus", "let go", "release", None),
    ("action", "Gus", "throw Orc", "throw", "Orc"),
    ("action", "Gus", "shove Orc", "shove", "Orc"),
    ("action", "Gus", "break free", "escape", None),
    ("action", "Orc", "break free", "escape", None),
    ("action", "Orc", "hold", "maintain", None),
]


@pytest.mark.parametrize("phase,who,text,action,target", GRAPPLE_WORDS,
                         ids=[f"{w[0]}-{w[1]}-{w[2]}" for w in GRAPPLE_WORDS])
def test_the_words_of_a_grapple(phase, who, text, action, target):
    b = _grapplers()
    if phase == "action":
        skip_movement(b)
    _turn_of(b, who)
    d = parse_decision(text, b)
    assert (d.action, d.target) == (action, None if target is None else u(b, target).id)
    assert b.is_legal(d)


def test_a_split_strike_then_second_names_the_other_target_and_both_are_struck():
    b = _in_action_phase(_table())
    d = parse_decision("strike 3 Orc", b)
    assert d == Decision("strike", u(b, "Orc").id, None, SPLIT)
    b.step(d)
    assert actor(b) == "Kira"                               # the second target is still Kira's to name
    with pytest.raises(IllegalAction, match="needs its second target first"):
        parse_decision("defend", b)
    with pytest.raises(IllegalAction, match="must be another enemy"):
        parse_decision("second Orc", b)                     # not the first target again
    second = parse_decision("second Boss", b)
    assert second == Decision("split_target", u(b, "Boss").id)
    b.step(second)
    assert actor(b) == "Bruno"                              # Kira's choice is complete
    assert b.enc.pending[u(b, "Kira").id] == [d, second]
    # the phase resolves with the others ending: sword and dagger as one weapon (accuracy 4 - 4 + 2 for a Light
    # weapon), each target's damage halved
    ev = play_phase(b, [9, 4, 2, 8, 6, 4])                  # Orc: 11 vs 10, (4+2)//2; Boss: 10 vs 10, (6+4)//2
    assert damage_to(ev, "Orc", b) == [3] and damage_to(ev, "Boss", b) == [5]
    assert (u(b, "Orc").hp, u(b, "Boss").hp) == (17, 15)


def test_the_help_shows_the_rise_words():
    text = "\n".join(decision_help(RS))
    for word in ("move X Y", "sprint X Y", "bull rush X Y", "strike N NAME", "second NAME", "fire N NAME",
                 "charge N NAME", "grab NAME", "trip NAME", "break free", "defend", "rest"):
        assert word in text, word
    assert "dr: damage resistance left" in help_text(RS)


# ---- 3. errors ---------------------------------------------------------------------------------------------------
# (phase, who acts, typed, error, what the message says)
ERRORS = [
    ("movement", "Kira", "strike 0 Orc", IllegalAction,
     "Strike (melee) is taken in the action phase; this is the movement phase"),
    ("movement", "Kira", "defend", IllegalAction, "Total defense is taken in the action phase"),
    ("movement", "Kira", "move 40 40", IllegalAction, "(40, 40) is not on the map"),
    ("movement", "Kira", "sprint 9 2", IllegalAction, "(9, 2) is not on the map"),
    ("movement", "Kira", "move", InputError, "Move where?"),
    ("movement", "Kira", "fly 3 3", InputError, "'fly' is not an action"),
    ("action", "Kira", "move 2 2", IllegalAction, "Move is taken in the movement phase; this is the action phase"),
    ("action", "Kira", "get up", IllegalAction, "Stand up is taken in the movement phase"),
    ("action", "Kira", "strike 0 Nobody", InputError, "no unit called 'Nobody'"),
    ("action", "Kira", "strike", InputError, "Strike (melee) whom?"),
    ("action", "Kira", "strike 0 Bruno", IllegalAction, "Bruno is not an enemy of Kira"),
    ("action", "Kira", "strike 0 Far", IllegalAction, "Far is out of reach or range of that weapon"),
    ("action", "Kira", "grab Orc", IllegalAction, "Grapple needs a free hand; Kira has none"),
    ("action", "Kira", "trip Orc", IllegalAction, "Trip needs a free hand; Kira has none"),
    ("action", "Kira", "charge 0 Orc", IllegalAction, "no straight, clear line"),
    ("action", "Kira", "second Boss", IllegalAction, "a second target only follows a split strike"),
    ("action", "Kira", "break free", IllegalAction, "Kira is not in a grapple"),
    ("action", "Bruno", "strike 2 Orc", IllegalAction, "a dual strike needs two weapons in hand"),
]


@pytest.mark.parametrize("phase,who,text,error,says", ERRORS, ids=[f"{e[0]}-{e[2]}" for e in ERRORS])
def test_words_that_are_not_a_legal_decision_say_why(phase, who, text, error, says):
    b = _table()
    if phase == "action":
        skip_movement(b)
    _turn_of(b, who)
    with pytest.raises(error) as e:
        parse_decision(text, b)
    assert says in str(e.value), str(e.value)


def test_a_grappler_is_told_why_it_cannot_move():
    b = _grapplers()
    with pytest.raises(IllegalAction, match="Gus is grappling: it cannot move without shoving"):
        parse_decision("move 1 2", b)
    with pytest.raises(IllegalAction, match="Gus is grappling"):
        parse_decision("sprint 0 0", b)


# Refusals that fall through to RiseRuleset.why_illegal's last line, "<action> is not possible for <name> now": a
# GM is not told what is wrong (SWURPG says "Move to (x, y) is beyond Kira's 25 ft of movement or blocked").
VAGUE = [
    ("move 7 1", "Kira", r"speed|beyond|too far|reach", "a square beyond Kira's speed of 6 squares (a sprint's)"),
    ("move 2 1", "Kira", r"occupied|Orc", "Orc's square"),
    ("get up", "Kira", r"prone", "Kira is not prone"),
]


@pytest.mark.parametrize("text,who,reason,what", VAGUE, ids=[v[3] for v in VAGUE])
def test_a_refused_movement_names_its_reason(text, who, reason, what):
    b = _turn_of(_table(), who)
    with pytest.raises(IllegalAction) as e:
        parse_decision(text, b)
    assert re.search(reason, str(e.value)), f"{text!r} ({what}) refused with: {e.value}"


# -- at the autopilot's prompt: refused with the reason, nothing changed --
def _encounter(rows: list[str], units: list[dict], name: str = "test"):
    text = yaml.safe_dump({"ruleset": RS.id, "name": name, "map": "\n".join(rows) + "\n", "units": units},
                          sort_keys=False)
    return parse_encounter(text, f"{name}.yaml", RS)


def _no_questions(table, prompt):
    raise AssertionError(f"asked {prompt!r}: a refused word must not roll or ask anything")


def test_a_refused_word_at_the_autopilot_changes_nothing():
    table = Table([], _no_questions)
    units = [unit("Kira", "pcs", (1, 1), SWORD, DAGGER, dexterity=2), unit("Orc", "npcs", (2, 1), SWORD),
             unit("Boss", "npcs", (1, 2), SWORD)]
    s = Session(_encounter(floor(8, 6), units), RS, RandomPolicy(0), None, dice="manual", ask=table.ask,
                say=table.say)
    table.session = s
    s.start({0: 30, 1: 20, 2: 10})
    refused = {"movement": [("strike 0 Orc", "Not legal: Strike (melee) is taken in the action phase"),
                            ("move 40 40", "Not legal: (40, 40) is not on the map"),
                            ("grab Orc", "Not legal: Grapple is taken in the action phase"),
                            ("move 3 Nobody", "Move where?")],
               "action": [("move 3 3", "Not legal: Move is taken in the movement phase"),
                          ("strike 0 Nobody", "no unit called 'Nobody'"),
                          ("grab Orc", "Not legal: Grapple needs a free hand; Kira has none"),
                          ("second Boss", "Not legal: a second target only follows a split strike")]}
    for phase in ("movement", "action"):
        assert (s.battle.phase, s.enc.actor.name) == (phase, "Kira")
        before, decisions, undo = json.dumps(s.enc.to_dict(), sort_keys=True), s.decisions, len(s.undo_stack)
        for text, says in refused[phase]:
            s.command(text)
            assert table.out[-1].startswith(says), (text, table.out[-1])
            assert json.dumps(s.enc.to_dict(), sort_keys=True) == before, text
            assert (s.decisions, len(s.undo_stack), s.enc.actor.name) == (decisions, undo, "Kira"), text
        for _ in range(3):                                   # nobody commits anything: on to the next phase
            s.command("end")
    assert table.prompts == []


# ---- 4. a session at the autopilot with manual dice ------------------------------------------------------------
def test_a_scripted_gm_plays_a_rise_duel_with_manual_dice():
    """Kira (pcs, accuracy 5, power 2, a sword) and an Orc (npcs, 20 hit points and 3 damage resistance, Armor 10,
    a sword) on a 2x2 floor: whatever either does, they stay next to each other. The GM types Kira's choices
    (a strike in the movement phase first: refused), accepts every proposal of the Orc, and rolls every die by hand:
    Kira's strikes as scripted, the Orc's dice all 1s (a miss: 1 against Kira's 10 Armor, no desperate exertion
    within a fatigue tolerance of 1). The Orc has recovered already, so no proposal of its heals it.

    Round 1: Kira strikes with 7 (+5 = 12 against Armor 10, or 12 after a total defense: a hit, no critical) for
    4 + 2 power = 6 damage, 3 of it on the damage resistance: 17 left. Round 2: 10, 10, 2 (exploding) + 5 = 27, a
    critical hit even against a total defense: the d6 twice, 3 + 5 + 2 = 10 damage: 7 left. The GM quits in round 3."""
    units = [unit("Kira", "pcs", (0, 0), SWORD, accuracy=5, power=2),
             unit("Orc", "npcs", (1, 0), SWORD, dr=3, state={"recovered": True})]
    enc = _encounter([".."] * 2, units, "Duel")
    typed = {(1, "movement"): ["strike 0 Orc", "move 0 1"], (1, "action"): ["strike 0 Orc"],
             (2, "movement"): ["end"], (2, "action"): ["attack Orc"], (3, "movement"): ["quit"]}
    kira_dice = {1: ["7", "4"], 2: ["10", "10", "2", "3", "5"]}
    trace: list[tuple] = []                                  # (round, phase, what, prompt) in the order asked
    checks: list[str] = []

    def gm(table, prompt: str) -> str:
        s = table.session
        enc, phase = s.enc, s.battle.phase
        key = (enc.round, phase)
        kira, orc = enc.unit("Kira"), enc.unit("Orc")
        if DIE.match(prompt):
            trace.append((*key, "die", prompt))
            if "Kira's" in prompt:
                return kira_dice[enc.round].pop(0)
            return "1"
        if "[Y/n]" in prompt or prompt.startswith("which? "):
            trace.append((*key, "reaction", prompt))
            return "n"                                       # Kira lets an overrun pass: no roll
        if prompt.startswith("Enter = accept"):
            # the Orc's turn: Kira has committed (unseen; ending the turn commits nothing) and nothing of the phase
            # has happened yet
            assert enc.actor is orc and set(enc.pending) <= {kira.id}, enc.pending
            assert not [t for t in trace if t[:3] == (*key, "die")]
            start = {(1, "movement"): ((0, 0), 23), (1, "action"): (None, 23), (2, "movement"): (None, 17),
                     (2, "action"): (None, 17)}[key]
            if start[0] is not None:
                assert kira.pos == start[0], "Kira's move resolved before the Orc chose"
            assert orc.hp == start[1], "Kira's strike landed before the Orc chose"
            checks.append(f"{key} {command_for(enc.pending.get(kira.id, [END])[0], enc, RS)}")
            trace.append((*key, "accept", prompt))
            return ""
        assert prompt.startswith("Kira [") and typed.get(key), (key, prompt)
        line = typed[key].pop(0)
        trace.append((*key, "typed", line))
        return line

    table = Table([], gm)
    s = Session(enc, RS, resolve_policy("heuristic", RS, 1), None, dice="manual", seed=4, ask=table.ask,
                say=table.say, initiative={"Kira": 20, "Orc": 10}, max_decisions=40)
    table.session = s
    result = s.run()
    text = table.text

    assert result.quit and all(not v for v in typed.values()) and all(not v for v in kira_dice.values()), text
    assert "Could not do that" not in text, text           # nothing raised in the middle of a decision
    assert checks == ["(1, 'movement') move 0 1", "(1, 'action') strike 0 Orc", "(2, 'movement') end",
                      "(2, 'action') strike 0 Orc"], checks
    # the wrong word was refused with its reason and asked again
    assert "Not legal: Strike (melee) is taken in the action phase; this is the movement phase" in text
    assert "Kira has chosen" in text
    # in each action phase the dice come after both choices, Kira's strike's in the order the rules roll them
    for rnd, faces in ((1, ["d10 for Kira's melee strike against Orc: ", "d6 for Kira's sword damage: "]),
                       (2, ["d10 for Kira's melee strike against Orc: ",
                            "d10 for Kira's melee strike against Orc (exploded): ",
                            "d10 for Kira's melee strike against Orc (exploded): ",
                            "d6 for Kira's sword damage: ", "d6 for Kira's sword damage (critical hit): "])):
        this = [t for t in trace if t[:2] == (rnd, "action")]
        kinds = [t[2] for t in this]
        assert kinds[:2] == ["typed", "accept"] and set(kinds[2:]) <= {"die", "reaction"}, this
        assert [t[3] for t in this if t[2] == "die" and "Kira's" in t[3]] == faces
    assert not [t for t in trace if t[1] == "movement" and t[2] == "die"]   # nothing rolls in a plain movement
    attacks = [e for e in result.events if e.kind == "attack" and e.actor == 0]
    assert [(e.get("total"), e.get("result")) for e in attacks] == [(12, "hit"), (27, "crit")]
    assert [e.get("amount") for e in result.events if e.kind == "damage" and e.target == 1] == [6, 10]
    orc, kira = s.enc.unit("Orc"), s.enc.unit("Kira")
    assert (orc.hp, orc.state["dr"], RS.unit_summary(orc)["hp"]) == (7, 0, 7)
    assert (kira.hp, kira.state["dr"]) == (20, 0)             # the Orc's 1s all missed
    assert "Orc takes 6 damage (3 on damage resistance)" in text and "Orc takes 10 damage" in text
    assert (result.rounds, result.decisions) == (3, 8)


def test_with_manual_dice_a_strikes_result_shows_before_its_damage_is_asked():
    """As with Saga (tests/autopilot/test_manual_dice.py): the GM rolling by hand sees the strike's result (a hit, a
    glancing blow: half damage) before being asked for its damage dice (`Dice.show`, engine/core/dice.py)."""
    units = [unit("Kira", "pcs", (0, 0), SWORD, accuracy=5, power=2), unit("Orc", "npcs", (1, 0), SWORD)]
    table = Table(["7", "4"], _no_questions)                # Kira's d10, then her d6
    s = Session(_encounter([".."] * 2, units, "Duel"), RS, RandomPolicy(0), None, dice="manual", ask=table.ask,
                say=table.say)
    table.session = s
    s.start({0: 20, 1: 10})
    for line in ("end", "end", "strike 0 Orc", "end"):     # both stay; Kira strikes, the Orc does nothing
        s.command(line)
    assert s.enc.unit("Orc").hp == 20 - 6 and table.script == []
    asked = next(n for n, line in enumerate(table.out) if line.startswith("d6 for Kira's sword damage"))
    before = "\n".join(table.out[:asked])
    assert "12 vs 10, a hit" in before, table.text


def test_a_scripted_gm_plays_a_shipped_encounter_to_its_end_with_manual_dice():
    """The GM types the PCs' choices in Rise's words (strikes, charges and shots, a split strike whenever it has two
    targets, moves mostly towards the enemy, sprints, two wrong words first), accepts the NPCs' proposals, answers the
    overrun reactions and rolls every die by hand; the battle plays to its end."""
    rng = random.Random(3)
    enc = load_encounter(next(p for p in ENCOUNTERS if p.name == "bridge_standoff.yaml"), RS)
    typed: list[str] = []
    state = {"wrong": 0}

    def gm(table, prompt: str) -> str:
        m = DIE.match(prompt)
        if m:
            return str(rng.randint(1, int(m.group(1))))
        if prompt.endswith("take it? [Y/n] ") or prompt.startswith("which? "):
            return rng.choice(["y", "n"])
        if prompt.startswith("Enter = accept"):
            return ""
        b = table.session.battle
        if state["wrong"] < 2:
            state["wrong"] += 1
            line = "strike 0 Nobody" if state["wrong"] == 1 else "move 40 40"
            typed.append(line)
            return line
        by: dict = {}
        for d in b.legal():
            by.setdefault(d.action, []).append(d)
        split = [d for d in by.get("strike", []) if d.option == SPLIT]
        if len({d.target for d in split}) > 1:              # a split strike whenever it has two targets
            by["strike"] = split
        if "move" in by and rng.random() < 0.7:             # mostly towards the nearest enemy
            me, g = b.enc.actor, b.enc.grid
            foes = [x.pos for x in b.enc.units if not x.down and x.side != me.side]
            near = min(min(g.distance(d.square, f) for f in foes) for d in by["move"])
            by["move"] = [d for d in by["move"] if min(g.distance(d.square, f) for f in foes) == near]
        for action in ("split_target", "strike", "shoot", "charge", "move", "sprint"):
            if action in by and not (action in ("move", "sprint") and rng.random() < 0.3):
                line = command_for(rng.choice(by[action]), b.enc, RS)
                typed.append(line)
                return line
        typed.append("end")
        return "end"

    result, t = gm_session(enc, RS, gm, 800)
    text = t.text
    assert result.winner in ("pcs", "npcs") and "Could not do that" not in text, text[-3000:]
    assert "no unit called 'Nobody'" in text and "Not legal: (40, 40) is not on the map" in text
    for word in ("strike 0 ", "strike 1 ", "charge 0 ", "shoot 0 ", "move ", "sprint "):
        assert any(line.startswith(word) for line in typed), (word, typed)
    assert any(p.startswith("d10 for ") for p in t.prompts) and "the action phase resolves" in text
    assert sum(result.damage.values()) > 0
