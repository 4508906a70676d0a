"""The heuristic's square memo (`HeuristicPolicy._memo`, by `_View.state_key`) holds values that depend on the state
of every unit, including whether an enemy has spent its attack of opportunity this round (`aoo_used`, in neither unit
signature): a shot's worth from a square (`best_attack`, and `pos_value` through it) counts the attacks of
opportunity it provokes there. An actor whose move provoked one that missed meets the same unit signatures and
squares (its own square is left out of the key) on its next decision, with that enemy's reaction spent: a warm memo
must not answer with the cost it counted before.

Such a stale answer stays hidden behind a reference policy that memoizes alike (it showed only once a trimmed token
table happened to force a memo miss between the two decisions), so these tests compare warm policies with cold ones.
"""
from __future__ import annotations

import random

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.policies import heuristic as H
from engine.rulesets import get_ruleset
from engine.rulesets.saga import combat as C

from .test_fast_paths import _random_states
from .test_heuristic_caches import FILES, _Fresh

RS = get_ruleset("saga")


def _scores(p, b, jitter: int) -> dict:
    (p.policy if isinstance(p, _Fresh) else p)._rng = random.Random(jitter)  # the same jitter for every policy
    return dict(p.explain(b))


def _diff(got: dict, want: dict) -> list:
    return [(d, got[d], s) for d, s in want.items() if got[d] != s][:3]


def test_an_enemys_spent_attack_of_opportunity_is_not_served_from_the_memo():
    """A warm policy scores a state, then an enemy next to the actor spends its attack of opportunity (nothing else
    changes): it scores it again as a cold one does, and the scores changed."""
    n = changed = 0
    warm = H.HeuristicPolicy(3)
    for k, b in enumerate(_random_states(12, seed=61)):
        e, a = b.enc, b.enc.actor
        if k % 3 or len(b.legal()) < 2 or C.first_of(a, "ranged") is None:
            continue
        foes = [u for u in e.enemies(a) if not u.state["aoo_used"] and RS.threatens(u)]
        if not foes:
            continue
        before = _scores(warm, b, k)
        foes[0].state["aoo_used"] = True
        e.version += 1
        try:
            got, want = _scores(warm, b, k), _scores(_Fresh(3), b, k)
            assert got == want, (k, _diff(got, want))
            changed += got != before
        finally:
            foes[0].state["aoo_used"] = False
            e.version += 1
        n += 1
    assert n > 50 and changed > 10, (n, changed)


def test_a_missed_attack_of_opportunity_on_a_move_scores_as_cold_caches():
    """Heuristic battles on the shipped encounters, dice that often miss: at every decision after an attack of
    opportunity (most of them misses, so only the enemy's `aoo_used` tells the states apart) the warm heuristic
    scores every decision as a cold one."""
    warm = H.HeuristicPolicy(7)
    n = after_aoo = 0
    for k in range(10):
        b = Battle(load_encounter(FILES[k % len(FILES)], RS), RS, SeededDice(100 + k))
        b.start()
        steps = 0
        while not b.over and steps < 120:
            spent = sum(u.state["aoo_used"] for u in b.enc.units)
            if len(b.legal()) > 1 and spent:
                got, want = _scores(warm, b, steps), _scores(_Fresh(7), b, steps)
                assert got == want, (k, steps, _diff(got, want))
                after_aoo += 1
            warm._rng = random.Random(steps)
            b.step(warm.choose(b))
            steps += 1
            n += 1
    assert n > 300 and after_aoo > 20, (n, after_aoo)
