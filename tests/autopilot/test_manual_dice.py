"""Manual dice at the table: faces typed on one line answer the next dice, `undo` / `quit` work at every dice
prompt, a mistyped value is asked again, Ctrl-C offers to save, and an attack's result shows before its damage
is asked."""
from __future__ import annotations

import json

import pytest

from engine.core.dice import AskedDice, DiceStopped
from engine.core.policy import RandomPolicy
from engine.rulesets import get_ruleset

from agents.autopilot import Session

from .conftest import DIE, Table

RS = get_ruleset("saga")
SHOOT = 'shoot "Trooper 1"'


def _asked(*answers):
    told: list[str] = []
    queue = list(answers)
    return AskedDice(lambda p: queue.pop(0), told.append, stop=("undo", "quit")), told, queue


def test_a_line_of_numbers_answers_the_next_dice():
    d, told, queue = _asked("3 4, 9", "2")
    assert [d.face(6, "a"), d.face(6, "b"), d.face(10, "c"), d.face(4, "d")] == [3, 4, 9, 2]
    assert queue == [] and "d6 for b: 4 (typed ahead)" in told and "d10 for c: 9 (typed ahead)" in told


def test_an_impossible_value_typed_ahead_is_refused_and_the_die_asked():
    d, told, queue = _asked("3 8 1", "5")
    assert d.face(6, "a") == 3 and d.face(6, "b") == 5 and queue == []
    assert any("8 (typed ahead) is not a possible d6 roll" in t for t in told)
    assert not d.ahead   # the 1 typed after the 8 went with it


@pytest.mark.parametrize("bad", ["0", "7", "x", "3 x", "", "٣", "-1", "2.5"])
def test_a_mistyped_value_is_refused_with_what_to_type(bad):
    d, told, _ = _asked(bad, "4")
    assert d.face(6, "damage") == 4
    assert told and "from 1 to 6" in told[0] and "undo / quit" in told[0]


@pytest.mark.parametrize("word", ["undo", "QUIT"])
def test_a_stop_word_stops_the_roll(word):
    d, _, _ = _asked(word)
    with pytest.raises(DiceStopped) as e:
        d.face(20, "attack")
    assert e.value.word == word.lower()


def _session(script, fallback=lambda t, p: "quit"):
    from engine.core.encounter_file import parse_encounter

    from .conftest import YARD
    table = Table(script, fallback)
    s = Session(parse_encounter(YARD, "yard.yaml"), RS, RandomPolicy(1), None, dice="manual", seed=1,
                ask=table.ask, say=table.say)
    table.session = s
    s.battle.start({0: 20, 1: 19, 2: 3, 3: 2})  # Kira acts first
    return s, table


def test_the_attack_result_shows_before_its_damage_is_asked():
    s, table = _session(["15", "2", "3", "4"])
    s.command(SHOOT)
    damage_prompt = next(i for i, line in enumerate(table.out) if line.startswith("d6 for Kira's damage"))
    before = "\n".join(table.out[:damage_prompt])
    assert "Kira" in before and "vs Reflex" in before and ": 21 (15+6)" in before and "hit" in before, table.text
    assert s.enc.units[2].hp == 18 - (2 + 3 + 4 + 1)


def test_undo_at_a_dice_prompt_takes_the_decision_back_and_the_session_goes_on():
    s, table = _session(["15", "2", "undo"])
    before = json.dumps(s.enc.to_dict(), sort_keys=True)
    s.command(SHOOT)
    assert json.dumps(s.enc.to_dict(), sort_keys=True) == before, "the shot half happened"
    assert "Taken back: shoot \"Trooper 1\"" in table.text
    table.script += ["15 2 3 4"]  # the same shot again, every die on one line
    s.command(SHOOT)
    assert s.enc.units[2].hp == 8 and s.decisions == 1


def test_undo_forgets_the_values_typed_ahead():
    s, table = _session(["15 2", "undo"])  # the 2 answers the first damage die, then undo at the second
    s.command(SHOOT)
    assert not s.dice.ahead and s.enc.units[2].hp == 18 and s.decisions == 0


def test_quit_at_a_dice_prompt_ends_the_session_with_the_decision_not_taken(tmp_path):
    def asked_again(table, prompt):
        raise AssertionError(f"asked {prompt!r} after quit")

    s, table = _session([SHOOT, "15", "quit"], asked_again)
    result = s.run()
    assert result.quit and s.enc.units[2].hp == 18 and s.enc.actor.name == "Kira"
    assert "Save the session" not in table.text   # a typed quit is a choice: no question


def test_initiative_rolls_accept_undo_and_quit():
    from engine.core.encounter_file import parse_encounter

    from .conftest import YARD
    # Kira's d20, Dax's, then undo: initiative again from the first unit; then all four on one line
    table = Table(["5", "6", "undo", "11 12 13 14", "quit"], lambda t, p: "quit")
    s = Session(parse_encounter(YARD, "yard.yaml"), RS, RandomPolicy(1), None, dice="manual", seed=1,
                ask=table.ask, say=table.say)
    table.session = s
    s.run()
    assert "Initiative taken back" in table.text
    assert [s.enc.initiative[i] - RS.initiative_bonus(s.enc.units[i]) for i in range(4)] == [11, 12, 13, 14]


def _ctrl_c(table, prompt):
    raise KeyboardInterrupt


def test_ctrl_c_offers_to_save_and_the_saved_state_is_from_before_the_interrupted_decision(tmp_path):
    save = tmp_path / "saved.json"
    s, table = _session([SHOOT, "15", "2", _ctrl_c, str(save)])
    result = s.run()
    assert result.quit and "Save the session before leaving?" in table.prompts[-1]
    saved = json.loads(save.read_text())
    assert saved["units"][2]["hp"] == 18 and saved["units"][0]["name"] == "Kira"
    assert f"Saved to {save}" in table.text


@pytest.mark.parametrize("answer", ["", _ctrl_c])
def test_ctrl_c_twice_or_enter_leaves_without_saving(tmp_path, answer):
    s, table = _session([_ctrl_c, answer])
    result = s.run()
    assert result.quit and "Session ended." in table.text and "Saved to" not in table.text
    assert table.prompts[-1].startswith("\nSave the session before leaving?") and not list(tmp_path.iterdir())


def test_a_save_that_fails_after_ctrl_c_is_asked_again(tmp_path):
    s, table = _session([_ctrl_c, str(tmp_path), str(tmp_path / "ok.json")])
    s.run()
    assert "could not write" in table.text and (tmp_path / "ok.json").exists()


def test_ctrl_c_while_the_policies_play_alone_offers_to_save(tmp_path):
    from engine.core.encounter_file import parse_encounter

    from .conftest import YARD

    class Stops(RandomPolicy):
        def rank(self, battle):
            if battle.enc.round == 2:
                raise KeyboardInterrupt
            return super().rank(battle)

    save = tmp_path / "auto.json"
    table = Table([str(save)], lambda t, p: "")
    s = Session(parse_encounter(YARD, "yard.yaml"), RS, Stops(1), Stops(2), seed=1, ask=table.ask, say=table.say)
    result = s.run()
    assert result.quit and json.loads(save.read_text())["round"] == 2
    assert not any(DIE.match(p) for p in table.prompts)
