"""The heuristic policy's fast paths choose exactly what it chose before its speed work.

`heuristic_reference.py` / `tactics_reference.py` are the policy and the Saga tactics as they were before,
unoptimised. Both play side by side on the same states (heuristic battles on the shipped encounters and on
random ones with random unit tactics, and random battles for odd states: prone, grabbed, out of ammo, ...):
`choose` must give the same decision and `explain` the same scores. Both keep their caches warm across
every battle, so a stale cache would show here too.
"""
from __future__ import annotations

import random
from pathlib import Path

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import get_ruleset

from .heuristic_reference import HeuristicPolicy as RefHeuristic
from .test_fast_paths import _random_states

RS = get_ruleset("saga")
FILES = sorted((Path(__file__).resolve().parents[2] / "configs" / "encounters" / "saga").glob("*.yaml"))
PREFER = ("nearest", "weakest", "strongest", "most_dangerous", "wounded")


def _encounters(n: int, seed: int):
    rng = random.Random(seed)
    for k in range(n):
        if k % 3 == 0:
            enc = load_encounter(FILES[(k // 3) % len(FILES)], RS)
        else:
            enc = random_encounter(RS, random.Random(seed * 100 + k), rng.choice([10, 12, 14, 16]), 16,
                                   sizes=(1, 4))
            for u in enc.units:  # unit tactics too
                r = rng.random()
                if r < 0.2:
                    u.tactics = {"flee_below": rng.choice([0.3, 0.5, 0.9])}
                elif r < 0.4:
                    u.tactics = {"prefer_targets": rng.choice(PREFER)}
        yield k, enc


def _same_scores(new, ref, b) -> None:
    got, want = dict(new.explain(b)), dict(ref.explain(b))
    assert got.keys() == want.keys()
    for d, s in want.items():
        assert abs(got[d] - s) < 1e-9, (d, got[d], s)


def test_heuristic_battles_choose_as_the_reference():
    new, ref = {}, {}
    n = 0
    for k, enc in _encounters(24, seed=5):
        b = Battle(enc, RS, SeededDice(k))
        b.start()
        steps = 0
        while not b.over and steps < 200:
            side = b.actor.side
            if side not in new:
                new[side], ref[side] = HeuristicPolicy(len(new)), RefHeuristic(len(ref))
            d = ref[side].choose(b)
            assert new[side].choose(b) == d, (k, steps)
            if steps % 7 == 0:
                _same_scores(new[side], ref[side], b)
            b.step(d)
            steps += 1
            n += 1
    assert n > 800


def test_random_battle_states_choose_as_the_reference():
    new, ref = HeuristicPolicy(3), RefHeuristic(3)
    n = 0
    for b in _random_states(10, seed=21):
        assert new.choose(b) == ref.choose(b)
        if n % 5 == 0:
            _same_scores(new, ref, b)
        n += 1
    assert n > 400
