"""A whole battle driven through the interactive loop by scripted GM input."""
from __future__ import annotations

import json
import random
import re

import pytest

from engine.core.decision import END
from engine.core.policy import RandomPolicy
from engine.rulesets import get_ruleset

from agents.autopilot import Session, resolve_policy
from agents.autopilot.session import help_text, read_session
from agents.autopilot.words import command_for, parse_decision
from agents.render import markers

from .conftest import DIE, Table

RS = get_ruleset("saga")


def _gm_fallback(rng):
    """PCs shoot or strike the first enemy they can, else end; NPC proposals are accepted, the PCs' reactions taken;
    dice rolled."""
    def answer(table: Table, prompt: str) -> str:
        m = DIE.match(prompt)
        if m:
            return str(rng.randint(1, int(m.group(1))))
        if prompt.endswith("take it? [Y/n] ") or prompt.startswith("which? "):
            return "y"
        if prompt.startswith("Enter = accept"):
            return ""
        b = table.session.battle
        for d in b.legal():
            if d.action in ("ranged_attack", "melee_attack"):
                return command_for(d, b.enc, RS)
        return "end"
    return answer


def test_whole_battle_scripted(yard, tmp_path):
    rng = random.Random(5)
    save = tmp_path / "s.json"
    impossible_asked = []

    def die_bad_then_good(table, prompt):
        # the first die prompt of the battle gets impossible values first; they must be refused
        assert DIE.match(prompt), prompt
        impossible_asked.append(prompt)
        return "0"

    script = [
        die_bad_then_good, "21", "banana", "12",        # Kira's initiative d20: 0, 21, banana refused, then 12
        "7", "5", "3",                                   # the other initiative rolls
    ]
    table = Table(script, _gm_fallback(rng))
    s = Session(yard, RS, resolve_policy("heuristic", RS, 1), None, dice="manual", seed=2, ask=table.ask,
                say=table.say)
    table.session = s
    # after initiative, Kira (12) goes first: scripted GM commands for her turn and then for the NPCs
    table.script += [
        "?",                                             # legal listing
        "flibber wobble",                                # nonsense -> help, never a traceback
        "move 0 0",                                      # a wall: refused with the rule's reason
        "move 3 3",
        "undo",                                          # back to (1, 1)
        "move 2 2",
        f"save {save}",
        "hp Trooper 1 1",                                # a correction...
        f"load {save}",                                  # ...undone by loading the save
    ]
    result = s.run()
    text = table.text
    assert result.winner in ("pcs", "npcs", "draw"), text[-2000:]
    assert result.decisions > 3
    # manual dice refused impossible values and asked again
    assert "'0' is not a possible d20 roll" in text
    assert "'21' is not a possible d20 roll" in text
    assert "'banana' is not a possible d20 roll" in text
    assert s.enc.initiative[0] == 12 + RS.initiative_bonus(s.enc.units[0])
    # nonsense and illegal input got help and reasons
    assert "'flibber' is not an action" in text
    assert "Not legal:" in text and "(0, 0)" in text
    assert "Legal now for Kira" in text
    # undo took the move back, the later move stuck
    assert "Undone: Kira: move 3 3" in text
    assert "Kira moves from (1, 1) to (2, 2)" in text
    # the save was a valid state, and load restored Trooper 1's HP
    saved = json.loads(save.read_text())
    assert saved["units"][2]["hp"] == 18
    assert "Trooper 1 at 1/18 HP" in text and f"Loaded {save}" in text
    # the summary
    assert "Damage dealt / taken:" in text
    assert sum(result.damage.values()) > 0
    log = s.log.text()
    assert "## Round 1" in log and "## Result" in log and "GM: Trooper 1 at 1/18 HP" not in log.split("## Result")[1]


def test_veto_is_never_proposed_again_that_turn(yard):
    """The GM vetoes NPC proposals repeatedly; no vetoed decision comes back in the same turn."""
    proposals: list[tuple] = []

    def fallback(table, prompt):
        s = table.session
        if prompt.startswith("Enter = accept"):
            prop = s._current_proposal()
            proposals.append((s._turn_key, prop.decision, frozenset(s.vetoed)))
            # veto the first four proposals of every NPC turn, then accept
            n_this_turn = sum(1 for k, _, _ in proposals if k == s._turn_key)
            return "no" if n_this_turn <= 4 else ""
        return "end"

    table = Table(["Kira 30, Dax 29, Trooper 1 10, Trooper 2 5"], fallback)
    s = Session(yard, RS, RandomPolicy(3), None, seed=4, ask=table.ask, say=table.say, max_decisions=60)
    table.session = s
    s.run()
    assert len(proposals) >= 10
    vetoed_by_turn: dict = {}
    for key, d, vetoed in proposals:
        assert d not in vetoed or d == END
        assert d not in vetoed_by_turn.get(key, set()) or d == END, f"{d} proposed again after a veto"
        vetoed_by_turn.setdefault(key, set()).update(vetoed)
    assert "Vetoed" in table.text


def test_nonsense_gets_help_never_a_traceback(yard, tmp_path):
    table = Table([], lambda t, p: "quit")
    s = Session(yard, RS, RandomPolicy(1), None, seed=1, ask=table.ask, say=table.say,
                initiative={"Kira": 20, "Dax": 19, "Trooper 1": 3, "Trooper 2": 2})
    table.session = s
    s.battle.start({0: 20, 1: 19, 2: 3, 3: 2})
    junk = ["", "attack", "attack nobody", 'attack "unclosed', "move a b", "move 1", "hp", "hp Kira x",
            "place Kira 0 0", "place Kira 99 1", "place Kira 8 4", "add Kira flying", "add Kira", "set Kira ct x",
            "set Kira nothing 2", f"load {tmp_path}/missing.json", "save", "draw 9", "\x00", "🙂 !!", "shoot Kira",
            "charge", "melee Trooper", "undo", "undo", "remove Nobody prone", "? ?", "help me"]
    for line in junk:
        before = len(table.out)
        s.command(line)
        if line.strip():
            assert len(table.out) > before, f"no answer to {line!r}"
    text = table.text
    assert "Traceback" not in text
    assert "Decisions (for the acting unit)" in text   # help
    assert "is not a condition of Kira" in text
    assert "Not legal" in text
    assert s.enc.units[0].pos == (1, 1)


def test_a_save_that_cannot_be_written_says_why_and_the_session_goes_on(yard, tmp_path):
    table = Table([], lambda t, p: "quit")
    s = Session(yard, RS, RandomPolicy(1), None, seed=1, ask=table.ask, say=table.say)
    table.session = s
    s.battle.start({0: 20, 1: 19, 2: 3, 3: 2})
    for line, said in ((f"save {tmp_path}", "could not write"),
                       (f"save {tmp_path}/no/such/folder.json", "could not write"),
                       ('save ""', "save needs a file name")):
        before = len(table.out)
        s.command(line)
        answer = "\n".join(table.out[before:])
        assert said in answer and "Could not do that" not in answer, (line, answer)
    s.command(f"save {tmp_path}/ok.json")
    assert (tmp_path / "ok.json").exists() and s.battle.legal()


def test_a_correction_the_rules_cannot_play_is_refused_and_changes_nothing(yard, tmp_path):
    table = Table([], lambda t, p: "quit")
    s = Session(yard, RS, RandomPolicy(1), None, seed=1, ask=table.ask, say=table.say)
    table.session = s
    s.battle.start({0: 20, 1: 19, 2: 3, 3: 2})
    kira = s.enc.units[0]
    undo_depth = len(s.undo_stack)
    for line, said in (("set Kira ct 99", "condition track step 99"), ("set Kira recover -1", "out of range"),
                       (f"load {tmp_path}", "could not read"), ('load ""', "load needs a file name")):
        before = len(table.out)
        s.command(line)
        answer = "\n".join(table.out[before:])
        assert said in answer and "Could not do that" not in answer, (line, answer)
    assert kira.state["ct"] == 0 and kira.state["recover"] == 0 and len(s.undo_stack) == undo_depth
    s.command("set Kira ct 2")
    assert kira.state["ct"] == 2 and len(s.undo_stack) == undo_depth + 1
    s.command(f"save {tmp_path}/s.json")
    s.command(f"load {tmp_path}/s.json")
    assert s.enc.units[0].state["ct"] == 2


def test_corrections_and_conditions(yard):
    table = Table([], lambda t, p: "quit")
    s = Session(yard, RS, RandomPolicy(1), None, seed=1, ask=table.ask, say=table.say)
    s.battle.start({0: 20, 1: 19, 2: 3, 3: 2})
    s.command("add Kira prone")
    assert s.enc.units[0].state["prone"] is True
    s.command("move 2 2")
    assert "Not legal" in table.text and "prone" in table.out[-1]
    s.command("remove Kira prone")
    assert s.enc.units[0].state["prone"] is False
    s.command("place Trooper 1 5 1")
    assert s.enc.units[2].pos == (5, 1)
    s.command("hp Trooper 2 0")
    assert s.enc.units[3].down
    s.command("hp Trooper 1 -3")
    assert s.enc.over and s.enc.winner == "pcs"
    s.command("undo")
    assert not s.enc.over and s.enc.units[2].active


def test_non_interactive_battle_plays_out(yard, tmp_path):
    table = Table([], lambda t, p: (_ for _ in ()).throw(AssertionError("asked: " + p)))
    s = Session(yard, RS, resolve_policy("heuristic", RS, 1), resolve_policy("heuristic", RS, 2), seed=7,
                ask=table.ask, say=table.say)
    r = s.run()
    assert r.winner is not None and not r.quit
    assert "== Round 1 ==" in table.text and "Winner" in table.text or "draw" in table.text.lower()
    p = s.log.write(tmp_path / "b.md")
    assert "| unit | side | damage dealt |" in p.read_text()


def test_difficulties_sample_legal_and_deadly_is_best(yard):
    from engine.core.battle import Battle
    from engine.core.dice import SeededDice

    from agents.autopilot.chooser import Chooser

    b = Battle(yard, RS, SeededDice(1))
    b.start({0: 1, 1: 2, 2: 20, 3: 19})
    pol = resolve_policy("heuristic", RS, 1)
    for diff in ("easy", "normal", "hard", "deadly"):
        c = Chooser(pol, diff, seed=3)
        for _ in range(10):
            assert b.is_legal(c.propose(b).decision)
    best = Chooser(pol, "deadly", 0).propose(b)
    assert best.prob >= max(p for _, p in best.ranked) * (1 - 1e-6)   # the best (up to exact ties)


def test_load_keeps_the_turns_vetoes(yard, tmp_path):
    """A choice vetoed this turn stays vetoed after save + load, in the session and with `--load`; a save from
    another turn brings no vetoes into this one."""
    table = Table([], lambda t, p: "quit")
    s = Session(yard, RS, resolve_policy("heuristic", RS, 1), None, seed=1, ask=table.ask, say=table.say)
    table.session = s
    s.battle.start({0: 1, 1: 2, 2: 20, 3: 19})   # Trooper 1 acts first
    s._turn_header()
    first = s._current_proposal().decision
    s.vetoed.add(first)
    second = s._current_proposal().decision
    assert second != first
    save = tmp_path / "s.json"
    s.command(f"save {save}")
    s.command("hp Kira 5")          # something to load over
    s.command(f"load {save}")
    s._turn_header()
    assert s.vetoed == {first} and s._current_proposal().decision == second, table.text[-800:]
    assert "vetoed: " in s.explain(s._current_proposal())

    table2 = Table([], lambda t, p: "quit")  # a new session resumed from the file (`autopilot --load`)
    saved = read_session(save, RS)
    s2 = Session(saved.enc, RS, resolve_policy("heuristic", RS, 1), None, seed=1, ask=table2.ask, say=table2.say)
    s2.resume(saved)
    s2._turn_header()
    assert s2.vetoed == {first} and s2._current_proposal().decision != first

    s.apply(second)                 # a later turn's save: the vetoes were this turn's only
    while s.enc.actor.name == "Trooper 1":
        s.apply(END)
    s.command(f"save {save}")
    s.command(f"load {save}")
    s._turn_header()
    assert s.vetoed == set()
    data = json.loads(save.read_text())
    data["autopilot"]["vetoed"] = [{"action": "move", "square": "here"}]
    save.write_text(json.dumps(data))
    before = len(table.out)
    s.command(f"load {save}")
    assert "autopilot.vetoed[0]" in "\n".join(table.out[before:])


def test_alternatives_show_their_hit_chance_and_expected_damage(yard):
    """Each alternative of an NPC proposal has its probability and, where the ruleset estimates it, its hit chance
    and expected damage (the ruleset's `estimate`)."""
    from engine.core.decision import Decision
    from engine.core.policy import Policy

    class Ranks(Policy):
        name = "ranks"

        def rank(self, battle):
            legal = battle.legal()
            move = next(d for d in legal if d.action == "move")
            shots = [d for d in legal if d.action == "ranged_attack"]
            return [(move, 0.6)] + [(d, 0.3 / len(shots)) for d in shots] + [(END, 0.1)]

    table = Table([], lambda t, p: "quit")
    s = Session(yard, RS, Ranks(), None, seed=1, ask=table.ask, say=table.say)
    s.battle.start({0: 1, 1: 2, 2: 20, 3: 19})   # Trooper 1 acts
    s._turn_header()
    text = s.explain(s._current_proposal())
    kira = Decision("ranged_attack", 0)
    est = RS.estimate(s.enc, s.enc.actor, kira)
    assert est.hit_chance > 0
    line = next(x for x in text.splitlines() if x.strip().startswith("shoot Kira"))
    assert f"hit {est.hit_chance:.0%}, expected damage {est.expected_damage:.1f}" in line, text
    assert "p=0." in line
    end = next(x for x in text.splitlines() if x.strip().startswith("end"))
    assert "hit" not in end and "p=0.10" in end


def test_set_names_the_rulesets_declared_corrections_first_and_still_takes_other_numbers(yard):
    table = Table([], lambda t, p: "quit")
    s = Session(yard, RS, RandomPolicy(1), None, seed=1, ask=table.ask, say=table.say)
    s.battle.start({0: 20, 1: 19, 2: 3, 3: 2})
    declared = list(RS.words().corrections)
    assert declared[:1] == ["ct"] and len(declared) > 1
    kira = s.enc.units[0]
    assert s.numbers(kira)[:len(declared)] == declared  # the page's number fields in that order too
    s.command("set Kira ctt 2")
    error = table.out[-1]
    named, others = error.split("; or another number of Kira's state: ")
    assert f"one of {RS.name}'s corrections: {', '.join(declared)} (help says what they are)" in named
    assert "recover" in others.split(", ") and "ct" not in others.split(", ")
    assert kira.state["ct"] == 0
    s.command("set Kira recover 1")  # a number the words do not declare is still corrected
    assert kira.state["recover"] == 1
    help_lines = help_text(RS).splitlines()
    at = next(n for n, line in enumerate(help_lines) if line.strip().startswith("set NAME KEY N"))
    assert f"{RS.name}'s corrections" in help_lines[at]
    assert [line.split(":")[0].strip() for line in help_lines[at + 1:at + 1 + len(declared)]] == declared
    assert "or any other number of the unit's state" in help_lines[at + 1 + len(declared)]


def test_help_and_quit_at_the_initiative_prompt(yard):
    table = Table(["help", "Kira", "quit"], lambda t, p: "quit")
    s = Session(yard, RS, RandomPolicy(1), None, seed=1, ask=table.ask, say=table.say)
    result = s.run()
    assert result.quit and result.decisions == 0
    assert "Type each initiative total you rolled" in table.text
    assert "Units: Kira, Dax, Trooper 1, Trooper 2" in table.text
    assert "'Kira' is not NAME NUMBER" in table.text
    assert sum("Initiative:" in p for p in table.prompts) == 3   # help asks again; quit asks nothing more
    assert not s.enc.order


@pytest.mark.parametrize("path", ["configs/encounters/saga/cantina_ambush.yaml",
                                  "configs/encounters/starship/asteroid_ambush.yaml",
                                  "configs/encounters/rise/goblin_ambush.yaml"])
def test_an_empty_line_on_a_pc_turn_suggests_legal_commands_in_the_rulesets_words(path):
    from engine.core.encounter_file import load_encounter

    rs = get_ruleset(path.split("/")[2])
    table = Table([""], lambda t, p: "quit")
    s = Session(load_encounter(path, rs), rs, RandomPolicy(1), None, seed=1, ask=table.ask, say=table.say)
    table.session = s
    s.battle.start()
    while s.enc.actor.side != "pcs":
        s.battle.step(END)
    s._gm_turn_input()
    said = table.out[-1]
    shown = re.findall(r"`([^`]+)`", said.split("(e.g. ")[1].split("), ")[0])
    assert said.startswith(f"Type a decision for {s.enc.actor.name}") and len(shown) >= 2 and shown[-1] == "end"
    legal = s.battle.legal()
    for command in shown[:-1]:
        assert parse_decision(command, s.battle, markers(s.enc)) in legal, command
