"""Starfinder's table words (engine/rulesets/starfinder/words.yaml) through the autopilot's parser
(agents/autopilot/words.py): every legal decision of many states typed back by its short words, the words a
Starfinder GM types, their errors, and a whole encounter played by a scripted GM at the autopilot with manual dice."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.core.battle import Battle
from engine.core.decision import END
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.errors import IllegalAction, InputError
from engine.core.generate import random_encounter
from engine.core.policy import RandomPolicy

from agents.autopilot.words import command_for, decision_help, parse_decision

from tests.table_helpers import gm_session
from .helpers import FRAG, KNIFE, LASER, RS, floor, make, step, u, unit

ENCOUNTERS = sorted((Path(__file__).resolve().parents[2] / "configs/encounters/starfinder").glob("*.yaml"))
THRUST = {"name": "mind thrust", "kind": "spell", "uses": 3, "target": "enemy", "range": 30, "damage": "2d10",
          "type": "force", "save": "will", "dc": 15, "on_save": "half"}
CLAWS = {"name": "claws", "kind": "melee", "damage": "1d4", "type": "S", "natural": True}


def _round_trip(b: Battle, rng: random.Random) -> int:
    """Every legal action (one decision of each, and a few more at random) typed back to itself."""
    legal = b.legal()
    picks = {d.action: d for d in legal}
    chosen = list(picks.values()) + rng.sample(legal, min(4, len(legal)))
    for d in chosen:
        text = command_for(d, b.enc, RS)
        assert parse_decision(text, b) == d, (text, d)
    return len(chosen)


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
            checked += _round_trip(b, rng)
            seen.update(d.action for d in b.legal())
            b.step(pol.choose(b))
            n += 1
    assert checked > 2000
    # the round trip covered the follow-ups and the ruleset's own actions
    assert {"next_ranged", "pick_target", "explode_attack", "guarded_step", "trip", "feint", "use_ability",
            "full_attack_ranged", "charge"} <= seen, seen


@pytest.fixture
def table():
    """A soldier with a pistol and a grenade in hand and claws, a mystic with mind thrust, against three foes."""
    return make(floor(12, 8), [unit("Kira", "pcs", (1, 4), LASER, FRAG, CLAWS, wield=["laser pistol", "frag grenade"]),
                               unit("Sola", "pcs", (1, 6), LASER, abilities=[THRUST]),
                               unit("Goblin", "npcs", (6, 3), KNIFE), unit("Boss", "npcs", (7, 3), KNIFE),
                               unit("Runt", "npcs", (0, 3), KNIFE)], order=["Kira", "Sola", "Goblin", "Boss", "Runt"])


@pytest.mark.parametrize("text,action,target,square", [
    ("shoot Goblin", "ranged_attack", "Goblin", None),
    ("fire boss", "ranged_attack", "Boss", None),
    ("melee Runt", "melee_attack", "Runt", None),
    ("hit Runt", "melee_attack", "Runt", None),
    ("attack Runt", "melee_attack", "Runt", None),
    ("attack Goblin", "ranged_attack", "Goblin", None),
    ("full Goblin", "full_attack_ranged", "Goblin", None),
    ("full attack Goblin", "full_attack_ranged", "Goblin", None),
    ("full melee Runt", "full_attack_melee", "Runt", None),
    ("grenade 6 4", "explode_attack", None, (6, 4)),
    ("step 0 4", "guarded_step", None, (0, 4)),
    ("guarded step 1 3", "guarded_step", None, (1, 3)),
    ("move 3 6", "move", None, (3, 6)),
    ("trip Runt", "trip", "Runt", None),
    ("feint Runt", "feint", "Runt", None),
    ("disarm Runt", "disarm", "Runt", None),
    ("blind Runt", "dirty_trick_blinded", "Runt", None),
    ("dirty trick off target Runt", "dirty_trick_off_target", "Runt", None),
    ("push Runt", "bull_rush", "Runt", None),
    ("harry Goblin", "harrying_fire", "Goblin", None),
    ("cover Sola", "covering_fire", "Sola", None),
    ("defend", "fight_defensively", None, None),
    ("total defense", "total_defense", None, None),
    ("total", "total_defense", None, None),
    ("charge Goblin", "charge", "Goblin", None),
    ("end", "end_turn", None, None),
])
def test_the_words_a_starfinder_gm_types(table, text, action, target, square):
    d = parse_decision(text, table)
    assert (d.action, d.square) == (action, square)
    assert d.target == (None if target is None else u(table, target).id)
    assert table.is_legal(d)


def test_a_full_attack_goes_on_with_second_or_shoot(table):
    u(table, "Runt").state["reaction"] = False     # no attack of opportunity on the shot
    step(table, "full_attack_ranged", "Goblin", faces=[1])
    assert parse_decision("second Boss", table).action == "next_ranged"
    assert parse_decision("shoot Boss", table).action == "next_ranged"   # shoot in a full attack: its second shot
    d = parse_decision("second melee Runt", table)
    assert (d.action, d.target) == ("next_melee", u(table, "Runt").id)


def test_cast_a_spell_by_name_then_its_target(table):
    step(table, "end_turn")
    d = parse_decision("cast mind thrust", table)
    assert (d.action, d.option) == ("use_ability", 0)
    assert parse_decision("cast 0", table) == d
    step(table, "use_ability", option=0)
    d = parse_decision("target Goblin", table)
    assert (d.action, d.target) == ("pick_target", u(table, "Goblin").id)


@pytest.mark.parametrize("text,error,says", [
    ("fly 3 3", InputError, "'fly' is not an action"),
    ("trip Nobody", InputError, "no unit called 'Nobody'"),
    ("grenade", InputError, "where?"),
    ("grenade 30 3", IllegalAction, "not on the map"),
    ("shoot Sola", IllegalAction, "not an enemy"),
    ("target Goblin", IllegalAction, "only follows"),
    ("second Boss", IllegalAction, "only follows"),
])
def test_words_that_are_not_a_legal_decision_say_why(table, text, error, says):
    with pytest.raises(error) as e:
        parse_decision(text, table)
    assert says in str(e.value), str(e.value)


def test_the_help_shows_the_starfinder_words():
    text = "\n".join(decision_help(RS))
    for word in ("step X Y", "grenade X Y", "full NAME", "trip", "feint", "cast", "target NAME"):
        assert word in text, word


# ---- a session at the table -----------------------------------------------------------------------------------------
def test_a_scripted_gm_plays_a_starfinder_encounter_with_manual_dice():
    """The GM types the PCs' decisions in Starfinder's words (a grenade at a cluster, full attacks and their second
    shot, spells and their targets, a guarded step away from a foe, a wrong word now and then) and rolls every die
    by hand; the NPCs' proposals are accepted. The battle plays to its end and the narration tells it."""
    import re
    rng = random.Random(3)
    enc = load_encounter(next(p for p in ENCOUNTERS if p.name == "goblin_scrapyard.yaml"), RS)
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
        legal = b.legal()
        if state["wrong"] < 2:   # a word that is not an action, then a grenade at a square off the map
            state["wrong"] += 1
            line = "flibber" if state["wrong"] == 1 else "move 40 40"
            typed.append(line)
            return line
        by = {}
        for d in legal:
            by.setdefault(d.action, []).append(d)
        grenades = [d for d in by.get("draw", ()) if "grenade" in RS.option_label(d, b.enc)]
        if grenades and not state.get("drawn"):   # the soldier draws a frag grenade (typed by its name)
            state["drawn"] = True
            typed.append("draw frag")
            return "draw frag"
        for action in ("next_ranged", "pick_target", "pick_ally", "pick_point", "reposition_to", "explode_attack",
                       "use_ability", "full_attack_ranged", "ranged_attack", "melee_attack", "guarded_step"):
            if action in by:
                d = rng.choice(by[action])
                if action == "explode_attack":   # at the intersection nearest the goblins' middle
                    foes = [x for x in b.enc.units if x.side == "npcs" and not x.down]
                    cx = sum(x.pos[0] for x in foes) / len(foes)
                    cy = sum(x.pos[1] for x in foes) / len(foes)
                    d = min(by[action], key=lambda x: (x.square[0] - cx) ** 2 + (x.square[1] - cy) ** 2)
                line = command_for(d, b.enc, RS)
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
    assert any(re.match(r"d20 for ", p) for p in t.prompts)            # attack rolls asked of the GM
    assert any(line.startswith(("shoot ", "full ", "second ")) for line in typed), typed
    assert any(line.startswith("grenade ") for line in typed) and " bursts at " in text
    assert "Damage dealt / taken:" in text
    assert sum(result.damage.values()) > 0
