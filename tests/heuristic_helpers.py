"""The heuristic against random for any ruleset's heuristic tests: battles to their end in both seats, every decision
checked legal, the win rate and what the heuristic chose."""
from __future__ import annotations

from collections import Counter

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.policy import RandomPolicy
from engine.policies.heuristic import HeuristicPolicy


def play(rs, enc, seed: int, seat: str, actions: Counter) -> Battle:
    """A battle to its end, the heuristic playing `seat` and random the other side; every decision legal."""
    other = next(s for s in rs.sides if s != seat)
    pols = {seat: HeuristicPolicy(seed), other: RandomPolicy(seed)}
    b = Battle(enc, rs, SeededDice(seed))
    b.start()
    while not b.over:
        side = b.actor.side
        d = pols[side].choose(b)
        assert b.is_legal(d), d
        if side == seat:
            actions[d.action] += 1
        b.step(d)
    return b


def rate(rs, encounters, seeds) -> tuple[float, Counter]:
    """The heuristic's win rate against random over both seats (encounter k % len for seed k), and its actions."""
    wins = n = 0
    actions: Counter = Counter()
    for seat in rs.sides:
        for k, seed in enumerate(seeds):
            b = play(rs, encounters[k % len(encounters)].clone(), seed, seat, actions)
            wins += b.enc.winner == seat
            n += 1
    return wins / n, actions
