"""What the Saga tactics cache by unit signatures is shared by units of one template in one state, of either side,
while no unit is aided (`tactics._named`): these tests hold every such value to the ruleset's, and the heuristic's
scores on warm caches to its scores on cold ones, on states made to tell units apart only by their ids, sides and
squares (aid granted and taken back, two units of one template swapped). The scores themselves are recorded
(tests/recorded)."""
from __future__ import annotations

import copy
import random

from engine.policies import heuristic as H
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import get_ruleset
from engine.rulesets.saga import combat as C
from engine.rulesets.saga import tactics as T

from .test_fast_paths import _random_states

RS = get_ruleset("saga")


def _same_scores_as_cold(warm: HeuristicPolicy, b, seed: int) -> None:
    """`warm.explain(b)` (its memo and the shared tactics' caches as earlier states left them) is what a new policy
    with new tactics gives, the jitter drawn from one seed."""
    warm._rng.seed(seed)
    got = warm.explain(b)
    kept = H._TACTICS.pop(RS.id, None)
    try:
        want = HeuristicPolicy(seed).explain(b)
    finally:
        if kept is not None:
            H._TACTICS[RS.id] = kept
    assert got == want


def _toggle_aid(b, rng: random.Random) -> None:
    """Aid granted to one active unit against by a random unit, or every aid taken back (a new state version)."""
    units = [u for u in b.enc.units if u.active]
    if rng.random() < 0.5:
        for u in units:
            u.state["aid"] = {}
    else:
        t, aider = rng.choice(units), rng.choice(units)
        t.state["aid"] = {aider.side: aider.id}
    b.enc.version += 1


def test_estimates_with_aid_granted_and_taken_back_are_the_rulesets():
    """One warm tactics object, every unit's attack on every other with every usable weapon, and every unit's danger,
    as aid comes and goes: the figures are `rs.attack_estimate`'s and the danger is the one a cold cache computes."""
    tac = RS.tactics()
    rng = random.Random(41)
    n = aided = 0
    for b in _random_states(12, seed=43):
        e = b.enc
        for _ in range(2):
            _toggle_aid(b, rng)
            units = [u for u in e.units if u.active]
            aided += T._named(e.units)
            for a in units:
                v = tac.view(e, a)
                for t in units:
                    if t is a:
                        continue
                    if t.side != a.side:
                        assert v.danger(t) == RS.tactics().view(e, a).danger(t)
                    for wn in C.usable_weapons(a):
                        aimed = rng.random() < 0.5
                        got = v.estimate(a, t, wn, a.pos, t.pos, aimed)
                        want = RS.attack_estimate(e, a, t, wn, a.pos, aimed=aimed)
                        assert (got.hit_chance, got.expected_damage, got.kill_chance) == \
                            (want.hit_chance, want.expected_damage, want.kill_chance)
                        n += 1
    assert n > 5000 and aided > 200, (n, aided)


def test_aid_granted_and_taken_back_scores_as_on_cold_caches():
    """The heuristic on warm caches scores every state of random battles as on cold ones, aid granted and taken back
    at random before each."""
    warm = HeuristicPolicy(4)
    rng = random.Random(45)
    n = 0
    for b in _random_states(8, seed=47):
        _toggle_aid(b, rng)
        _same_scores_as_cold(warm, b, n)
        n += 1
    assert n > 300, n


def test_twins_swapped_keep_their_threats_and_scores():
    """Two enemies of the actor made twins (one stat block, one state) and swapped: their signatures are one (what is
    cached by them is shared), yet the squares where each takes an attack of opportunity are `rs._threats`'s and the
    heuristic on warm caches scores as on cold ones."""
    tac = RS.tactics()
    warm = HeuristicPolicy(6)
    rng = random.Random(49)
    n = 0
    for b in _random_states(12, seed=51):
        e = b.enc
        a = e.actor
        foes = [u for u in e.units if u.active and u.side != a.side]
        if len(foes) < 2 or rng.random() < 0.5:
            continue
        x, y = rng.sample(foes, 2)
        saved = y.stats, y.hp, y.max_hp, y.state
        y.stats, y.hp, y.max_hp = x.stats, x.hp, x.max_hp
        y.state = copy.deepcopy(x.state)
        for _ in range(2):
            x.pos, y.pos = y.pos, x.pos
            e.version += 1
            assert tac.view(e, a)._aoo_threats() == RS._threats(e, a)
            _same_scores_as_cold(warm, b, n)
            n += 1
        y.stats, y.hp, y.max_hp, y.state = saved
        e.version += 1
    assert n > 100, n
