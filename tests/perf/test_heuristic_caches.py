"""The Saga tactics' caches, shared across decisions, states and battles, answer as cold ones do: the view's estimates
of attack decisions (cached by unit signatures, aim and sight line) are the ruleset's, its strikes and threats by the
class of a sight line are those computed for that very square, and a policy whose caches have seen other maps scores
as one with caches of its own (on states of random battles: shipped encounters and random ones, units with random
tactics)."""
from __future__ import annotations

import random
from pathlib import Path

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.policies import heuristic as H
from engine.rulesets import get_ruleset
from tests.battle_walk import random_walk

RS = get_ruleset("saga")
FILES = sorted((Path(__file__).resolve().parents[2] / "configs" / "encounters" / "saga").glob("*.yaml"))
PREFER = ("nearest", "weakest", "strongest", "most_dangerous", "wounded")


class _Fresh:
    """A heuristic with a memo and tactics of its own."""

    def __init__(self, seed: int):
        self.policy = H.HeuristicPolicy(seed)
        self.tac = RS.tactics()

    def __getattr__(self, name):
        method = getattr(self.policy, name)

        def call(*args):
            saved = H._TACTICS.get(RS.id)
            H._TACTICS[RS.id] = self.tac
            try:
                return method(*args)
            finally:
                H._TACTICS[RS.id] = saved
        return call


def _encounter(k: int, seed: int, rng: random.Random):
    if k % 3 == 0:
        enc = load_encounter(FILES[(k // 3) % len(FILES)], RS)
    else:
        enc = random_encounter(RS, random.Random(seed * 100 + k), rng.choice([8, 12, 14, 16]), 16, sizes=(1, 4))
    for u in enc.units:
        r = rng.random()
        if r < 0.2:
            u.tactics = {"flee_below": rng.choice([0.3, 0.5, 0.9])}
        elif r < 0.45:
            u.tactics = {"prefer_targets": rng.choice(PREFER)}
    return enc


def _states(n: int, seed: int):
    """Battles at every decision of random play (units aim, charge, grab, go prone, get hurt)."""
    rng = random.Random(seed)
    for k in range(n):
        b = Battle(_encounter(k, seed, rng), RS, SeededDice(seed + k))
        b.start()
        for _ in random_walk(b, rng, 150):
            yield b


def test_cached_attack_estimates_are_the_rulesets():
    """The view's estimates of attack, full attack and charge decisions (cached by unit signatures, aim and sight
    line across states) are `rs.estimate`'s, on every such legal decision of random battles."""
    tac = RS.tactics()
    n = 0
    kinds = set()
    for b in _states(30, seed=17):
        enc, a = b.enc, b.enc.actor
        v = tac.view(enc, a)
        for d in b.legal():
            if d.action in ("melee_attack", "ranged_attack", "full_attack", "charge"):
                got = v.decision_estimate(d)
                if got is None:
                    continue
                want = RS.estimate(enc, a, d)
                assert (got.hit_chance, got.expected_damage, got.kill_chance) == \
                    (want.hit_chance, want.expected_damage, want.kill_chance), (d, got, want)
                kinds.add(d.action)
                n += 1
    assert n > 1000 and kinds == {"melee_attack", "ranged_attack", "full_attack", "charge"}, (n, kinds)


def _figures(strike):
    return None if strike is None else (strike[0].hit_chance, strike[0].expected_damage, strike[0].kill_chance,
                                        strike[1])


def test_strikes_and_threats_by_class_are_computed_ones():
    """`_View._strike` and `_threat_of` answer from caches keyed by the class of the sight line (melee reach,
    range band, cover, sight) across squares and states; each answer equals one computed from cold caches for
    that very square."""
    warm = RS.tactics()
    rng = random.Random(6)
    n = 0
    for k, b in enumerate(_states(10, seed=23)):
        if k % 3:
            continue
        enc, a = b.enc, b.enc.actor
        v = warm.view(enc, a)
        g = enc.grid
        squares = [(rng.randrange(g.width), rng.randrange(g.height)) for _ in range(6)]
        for pos in squares:
            if g.terrain[g.index(*pos)] != "floor":
                continue
            for e in v.enemies:
                aimed = rng.random() < 0.3
                cold = RS.tactics().view(enc, a)
                assert _figures(v._strike(e, pos, aimed)) == _figures(cold._strike(e, pos, aimed)), (k, pos, e.id)
                cold = RS.tactics().view(enc, a)
                assert v._threat_of(e, pos) == cold._threat_of(e, pos), (k, pos, e.id)
                n += 1
    assert n > 300, n


def test_caches_do_not_carry_values_across_maps():
    """Units of one template share their stat block across encounters, so the same units can stand on the same
    squares of different maps: the tactics caches (and the policy's square memo) must tell the maps apart. A
    policy whose caches have seen other maps scores every decision as one with fresh caches does."""
    seen = H.HeuristicPolicy(5)
    n = 0
    for k in range(16):
        enc = random_encounter(RS, random.Random(700 + k % 8), 12, 12, sizes=(2, 3))
        if k >= 8:  # the same units again, on other maps
            other = random_encounter(RS, random.Random(900 + k), 12, 12, sizes=(2, 3))
            enc.grid = other.grid
            if any(enc.grid.terrain[enc.grid.index(*u.pos)] != "floor" for u in enc.units):
                continue
        b = Battle(enc, RS, SeededDice(k))
        b.start()
        fresh = _Fresh(5)
        steps = 0
        while not b.over and steps < 60:
            seen._rng, fresh.policy._rng = random.Random(steps), random.Random(steps)  # the same jitter
            got, want = seen.explain(b), fresh.explain(b)
            assert got == want, (k, steps)
            b.step(max(want, key=lambda x: x[1])[0])
            steps += 1
            n += 1
    assert n > 300, n
