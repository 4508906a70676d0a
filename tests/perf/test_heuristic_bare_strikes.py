"""The C kernel keeps the actor's strikes by the target's signature without its hit points (`_View.bare`) and makes
their kill chance at the target's hit points as the hit chance times `_View.kill_factor`: on random battles, targets
hurt and healed at random over warm caches, that product is the kill chance of `_strike`'s estimate and of
`rs.attack_estimate`, and the kernel's best attacks are the Python path's (which keeps strikes by the target's whole
signature)."""
from __future__ import annotations

import random

from engine.policies import heuristic as H
from engine.rulesets import get_ruleset
from engine.rulesets.saga import tactics as T
from tests.perf.test_heuristic_map_queries import _battles

RS = get_ruleset("saga")


def _hurt(rng: random.Random, units) -> list:
    """Give some units other hit points at random; the old ones, to put back."""
    old = [(u, u.hp) for u in units]
    for u in units:
        if rng.random() < 0.5:
            u.hp = rng.randint(1, u.max_hp)
    return old


def test_kill_factors_make_the_strikes_kill_chances():
    """hit chance x `kill_factor` == `_strike`'s kill chance == the ruleset's, at hit points changed at random."""
    tac = T.make(RS)
    rng = random.Random(31)
    n = 0
    for b in _battles(rng, 16, 41, 60):
        enc, a = b.enc, b.enc.actor
        old = _hurt(rng, [u for u in enc.units if u.active])
        v = tac.view(enc, a)
        g = enc.grid
        for e in v.enemies:
            for _ in range(3):
                pos = (rng.randrange(g.width), rng.randrange(g.height))
                aimed = rng.random() < 0.3
                got = v._strike(e, pos, aimed)
                if got is None:
                    continue
                est, ranged = got
                n_weapon = v.first[a.id][1 if ranged else 0]
                want = RS.attack_estimate(enc, a, e, n_weapon, pos, aimed=aimed and ranged)
                kc = est.hit_chance * v.kill_factor(e, ranged, aimed)
                assert kc == est.kill_chance == want.kill_chance, (pos, e.id, aimed)
                n += 1
        for u, hp in old:
            u.hp = hp
    assert n > 1000, n


def test_kernel_best_attacks_at_changed_hit_points_are_the_pythons():
    """Over one warm tactics object, the kernel's `best_attack` (bare strike rows, kill chances per hit points) on
    random squares equals the Python path's, with a tactics object of its own, as targets' hit points change."""
    warm = T.make(RS)
    rng = random.Random(32)
    n = 0
    for b in _battles(rng, 12, 42, 60):
        enc, a = b.enc, b.enc.actor
        if not a.active:
            continue
        old = _hurt(rng, [u for u in enc.units if u.active])
        g = enc.grid
        squares = [(rng.randrange(g.width), rng.randrange(g.height)) for _ in range(8)]
        native = H._Turn(b, warm, native=True)
        cold = T.make(RS)
        cold.native = False
        python = H._Turn(b, cold, native=False)
        if native.k is None:
            continue
        for pos in squares:
            for aimed in (False, True):
                assert native.best_attack(pos, aimed) == python.best_attack(pos, aimed), (pos, aimed)
                n += 1
        native.k = None
        for u, hp in old:
            u.hp = hp
    assert n > 2000, n
