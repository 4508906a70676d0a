"""Random lines typed at the table, built from the session's own words, unit names, numbers and junk: each gets an
answer of its own (never the catch-all "Could not do that", which would mean an input nobody handled), and the
session plays on."""
from __future__ import annotations

import random

from engine.core.encounter_file import parse_encounter
from engine.core.policy import RandomPolicy
from engine.rulesets import get_ruleset

from agents.autopilot import Session
from agents.autopilot.session import Quit

from .conftest import YARD, Table

RS = get_ruleset("saga")
HEADS = ["move", "shoot", "melee", "attack", "charge", "aim", "full", "defend", "draw", "stand", "prone", "end", "?",
         "hp", "place", "add", "remove", "set", "undo", "save", "load", "map", "status", "help", "run", "withdraw",
         "grab", "grapple", "disarm", "aid_attack", "suppress", "coup_de_grace", "switch_mode", "holster", "drop_item",
         "activate_item", "second_wind", "recover", "total_defense", "attack_object", "fight_defensively", "no", ""]
ARGS = ["Kira", "Dax", '"Trooper 1"', "Trooper", "2", "1", "0", "-1", "99", "1e9", "x", "prone", "dead", "down",
        "ct", "hp", "aid", "grabbed_by", '""', "'", '"', "?", "1.5", "nan", "inf", "K", "3", "8", "4", "aimed",
        "charged", "pinned_by", "recover", "hands", "modes", "state", "None", "[]", "{}", ".", "/", "saved.json"]


def test_random_lines_get_an_answer_and_the_session_plays_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # `save WORD` writes a file named WORD
    lines = 0
    for seed in range(60):
        rng = random.Random(seed)
        table = Table([], lambda t, p: "")
        s = Session(parse_encounter(YARD, "yard.yaml"), RS, RandomPolicy(1), None, seed=seed, ask=table.ask,
                    say=table.say)
        table.session = s
        s.battle.start({0: 20, 1: 19, 2: 3, 3: 2})
        for _ in range(40):
            line = " ".join([rng.choice(HEADS)] + [rng.choice(ARGS) for _ in range(rng.randint(0, 4))])
            before = len(table.out)
            try:
                s.command(line)
            except Quit:
                break
            lines += 1
            answer = "\n".join(table.out[before:])
            assert "Could not do that" not in answer and "Traceback" not in answer, (line, answer)
            if s.battle.over:
                break
            assert s.battle.legal(), line
    assert lines > 1000
