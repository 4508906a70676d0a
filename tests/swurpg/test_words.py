"""SWURPG's table words (engine/rulesets/swurpg/words.yaml) through the autopilot's parser
(agents/autopilot/words.py): every legal decision of many states typed back by its short words, the words a SWURPG
GM types, their errors, and a whole encounter played by a scripted GM at the autopilot with manual dice."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.errors import IllegalAction, InputError
from engine.core.generate import random_encounter
from engine.core.policy import RandomPolicy

from agents.autopilot.words import command_for, decision_help, parse_decision

from tests.table_helpers import gm_session
from .helpers import BLASTER, FRAG, KNIFE, RIFLE, RS, make, step, u, unit

ENCOUNTERS = sorted((Path(__file__).resolve().parents[2] / "configs/encounters/swurpg").glob("*.yaml"))


def test_every_legal_decision_types_back_to_itself_over_many_states():
    rng = random.Random(0)
    encs = [load_encounter(p, RS) for p in ENCOUNTERS] + \
        [random_encounter(RS, random.Random(k), 10, 10, sizes=(2, 3)) for k in range(6)]
    seen: set[str] = set()
    checked = 0
    for k, enc in enumerate(encs):
        b = Battle(enc.clone(), RS, SeededDice(k))
        b.start()
        pol = RandomPolicy(k)
        n = 0
        while not b.over and n < 150:
            legal = b.legal()
            picks = list({d.action: d for d in legal}.values()) + rng.sample(legal, min(4, len(legal)))
            for d in picks:
                text = command_for(d, b.enc, RS)
                assert parse_decision(text, b) == d, (text, d)
            checked += len(picks)
            seen.update(d.action for d in legal)
            b.step(pol.choose(b))
            n += 1
    assert checked > 2000
    assert {"attack", "off_hand", "autofire", "grenade", "dash", "dodge", "help", "draw", "move"} <= seen, seen


@pytest.fixture
def table():
    """A smuggler with two blasters (and a frag grenade), a trooper with a full-auto rifle, against two foes."""
    smuggler = unit("Kira", "pcs", (1, 4), BLASTER, dict(BLASTER, name="holdout", light=True), FRAG,
                    wield=["blaster", "holdout"], traits=["dual_wielder_1"], medpacs=1, hp_now=20)
    trooper = unit("Dex", "pcs", (1, 6), RIFLE)
    return make(["." * 12] * 8, [smuggler, trooper, unit("Thug", "npcs", (8, 3), KNIFE),
                                 unit("Boss", "npcs", (9, 4), KNIFE)], order=["Kira", "Dex", "Thug", "Boss"])


@pytest.mark.parametrize("text,action,target,square", [
    ("shoot Thug", "attack", "Thug", None),
    ("fire boss", "attack", "Boss", None),
    ("attack Thug", "attack", "Thug", None),
    ("frag 8 4", "grenade", None, (8, 4)),
    ("throw 8 4", "grenade", None, (8, 4)),
    ("move 3 5", "move", None, (3, 5)),
    ("go 3 5", "move", None, (3, 5)),
    ("dash", "dash", None, None),
    ("run", "dash", None, None),
    ("disengage", "disengage", None, None),
    ("dodge", "dodge", None, None),
    ("prone", "drop_prone", None, None),
    ("heal Kira", "medpac", "Kira", None),
    ("sheathe", "stow", None, None),
    ("end", "end_turn", None, None),
])
def test_the_words_a_swurpg_gm_types(table, text, action, target, square):
    d = parse_decision(text, table)
    assert (d.action, d.square) == (action, square)
    assert d.target == (None if target is None else u(table, target).id)
    assert table.is_legal(d)


def test_the_off_hand_attack_follows_the_main_hand_one(table):
    with pytest.raises(IllegalAction) as e:
        parse_decision("offhand Thug", table)
    assert "follows a main-hand attack" in str(e.value)
    step(table, "attack", "Thug", faces=[2])  # a miss
    d = parse_decision("offhand Boss", table)
    assert (d.action, d.target) == ("off_hand", u(table, "Boss").id)
    assert parse_decision("second Boss", table) == d


def test_autofire_is_typed_by_its_area(table):
    step(table, "end_turn")
    d = parse_decision("spray 8 3", table)
    assert (d.action, d.square) == ("autofire", (8, 3))
    assert parse_decision("full auto 8 3", table) == d


@pytest.mark.parametrize("text,error,says", [
    ("fly 3 3", InputError, "'fly' is not an action"),
    ("shoot Nobody", InputError, "no unit called 'Nobody'"),
    ("frag", InputError, "where?"),
    ("move 30 3", IllegalAction, "not on the map"),
    ("shoot Dex", IllegalAction, "not an enemy"),
])
def test_words_that_are_not_a_legal_decision_say_why(table, text, error, says):
    with pytest.raises(error) as e:
        parse_decision(text, table)
    assert says in str(e.value), str(e.value)


def test_the_help_shows_the_swurpg_words():
    text = "\n".join(decision_help(RS))
    for word in ("move X Y", "shoot NAME", "offhand NAME", "spray X Y", "frag X Y", "dash", "heal ALLY"):
        assert word in text, word


def test_a_scripted_gm_plays_a_swurpg_encounter_with_manual_dice():
    """The GM types the PCs' decisions in SWURPG's words (moves, shots and off-hand shots, a wrong word now and then)
    and rolls every die by hand; the NPCs' proposals are accepted. The battle plays to its end and the narration
    tells it."""
    rng = random.Random(3)
    enc = load_encounter(next(p for p in ENCOUNTERS if p.name == "cantina_shootout.yaml"), RS)
    typed: list[str] = []
    die = re.compile(r"^d(\d+) for ")
    state = {"wrong": 0}

    def gm(table, prompt: str) -> str:
        m = die.match(prompt)
        if m:
            return str(rng.randint(1, int(m.group(1))))
        if prompt.endswith("take it? [Y/n] ") or prompt.startswith("which? "):
            return "y"
        if prompt.startswith("Enter = accept"):
            return ""
        b = table.session.battle
        if state["wrong"] < 2:
            state["wrong"] += 1
            line = "flibber" if state["wrong"] == 1 else "move 40 40"
            typed.append(line)
            return line
        by: dict = {}
        for d in b.legal():
            by.setdefault(d.action, []).append(d)
        for action in ("off_hand", "attack", "move"):
            if action in by and not (action == "move" and rng.random() < 0.5):
                line = command_for(rng.choice(by[action]), b.enc, RS)
                typed.append(line)
                return line
        typed.append("end")
        return "end"

    result, t = gm_session(enc, RS, gm, 600)
    text = t.text
    assert result.winner in ("pcs", "npcs", "draw"), text[-3000:]
    assert result.decisions > 20
    assert "'flibber' is not an action" in text
    assert "Not legal:" in text and "(40, 40)" in text
    assert any(p.startswith("d20 for ") for p in t.prompts)
    assert any(line.startswith("shoot ") for line in typed), typed
    assert " vs AC " in text
    assert sum(result.damage.values()) > 0
