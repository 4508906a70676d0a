"""The heuristic on the toy rulesets, which write no tactics of their own: `DefaultTactics` (engine/core/tactics.py)
and their economies (`Ruleset.budget_after`) are all it has. It beats random in both seats, it attacks, and it
plays each turn structure: a 5e-style move paid in feet then the Action and the Bonus Action, a starship's move into
range then its attack, Rise's movement phase that leaves the action phase's strike to come."""
from __future__ import annotations

import random

import pytest

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.core.policy import RandomPolicy
from engine.core.tactics import DefaultTactics
from engine.policies.heuristic import HeuristicPolicy, tactics_for

from .common import build
from .toy_fifth import RULESET as FIFTH
from .toy_rise import RULESET as RISE
from .toy_starship import RULESET as SHIP

TOYS = {rs.id: rs for rs in (FIFTH, SHIP, RISE)}


def _battle(rs, seed: int, seat: str) -> tuple[str, dict[str, int]]:
    """A random 3-4 a side encounter played heuristic (seat) against random: the winner, and the heuristic's
    decisions by role."""
    enc = random_encounter(rs, random.Random(seed), 12, 12, sizes=(3, 4))
    b = Battle(enc, rs, SeededDice(seed))
    b.start()
    other = "npcs" if seat == "pcs" else "pcs"
    policies = {seat: HeuristicPolicy(seed), other: RandomPolicy(seed)}
    tac = tactics_for(rs)
    roles: dict[str, int] = {}
    while not b.over:
        side = b.actor.side
        d = policies[side].choose(b)
        assert b.is_legal(d), d
        if side == seat:
            roles[tac.kind(d)] = roles.get(tac.kind(d), 0) + 1
        b.step(d)
    return enc.winner, roles


@pytest.mark.parametrize("rid", sorted(TOYS))
def test_the_heuristic_beats_random_in_both_seats_and_attacks(rid):
    rs = TOYS[rid]
    assert type(tactics_for(rs)) is DefaultTactics
    wins = n = 0
    roles: dict[str, int] = {}
    for seat in ("pcs", "npcs"):
        for seed in range(40):
            winner, got = _battle(rs, seed, seat)
            wins += winner == seat
            n += 1
            for k, v in got.items():
                roles[k] = roles.get(k, 0) + v
    assert wins / n >= 0.9, (wins, n)
    assert roles.get("attack", 0) >= 2 * n, roles  # it fights: at least two attacks a battle


def _turn(rs, rows, units, initiative, steps=6, seed=0):
    """(actor name, phase, action) of the heuristic's first decisions, for both sides (`seed`: its tie-breaking)."""
    enc = build(rs, rows, units)
    b = Battle(enc, rs, SeededDice(0))
    b.start(initiative)
    h, out = HeuristicPolicy(seed), []
    while not b.over and len(out) < steps:
        name, phase = b.actor.name, b.phase
        d = h.choose(b)
        out.append((name, phase, d.action))
        b.step(d)
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("at", [(6, 2), (5, 0), (4, 4)])
def test_fifth_moves_in_then_takes_its_action_and_bonus_action(at, seed):
    """The goblin 4-6 squares away: one move of up to 30 feet reaches it, then the Action and the Bonus Action."""
    units = [{"name": "Hero", "side": "pcs", "template": "fighter", "at": [0, 2]},
             {"name": "Gob", "side": "npcs", "template": "goblin", "at": list(at), "hp": 30}]
    got = _turn(FIFTH, ["." * 10] * 5, units, {0: 20, 1: 1}, seed=seed)
    assert [a for who, _, a in got if who == "Hero"][:4] == ["move", "attack", "offhand", "end_turn"], got


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("at", [(9, 2), (10, 4), (9, 0)])
def test_starship_moves_into_range_then_fires(at, seed):
    """Out of range (6) by up to 3 squares, a move (3) away from it: move, then fire."""
    got = _turn(SHIP, ["." * 12] * 5, [{"name": "Wing", "side": "pcs", "template": "fighter", "at": [1, 2]},
                                       {"name": "Raider", "side": "npcs", "template": "corvette", "at": list(at)}],
                {0: 20, 1: 1}, seed=seed)
    assert [a for who, _, a in got if who == "Wing"][:2] == ["move", "fire"], got


def test_rise_waits_in_the_movement_phase_for_the_strike_of_the_action_phase():
    """Bor moves next to Ana first; Ana, already in reach, stays (a move would gain nothing: the strike comes in the
    action phase either way) and strikes."""
    got = _turn(RISE, ["." * 8] * 4, [{"name": "Ana", "side": "pcs", "template": "warrior", "at": [1, 1]},
                                      {"name": "Bor", "side": "npcs", "template": "warrior", "at": [6, 1], "hp": 30}],
                {0: 1, 1: 20}, steps=4)
    assert got[0] == ("Bor", "movement", "move")
    assert got[1] == ("Ana", "movement", "end_turn") and ("Ana", "action", "strike") in got, got
