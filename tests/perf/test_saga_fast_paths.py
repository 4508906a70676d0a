"""The Saga ruleset's fast paths give exactly what its plain version gave.

`saga_reference.py` / `saga_reference_combat.py` are the ruleset and its arithmetic as they were before the
speed work, unoptimised. On every decision point of random battles (the shipped encounters and random
ones), the engine's ruleset must agree with them on: the legal decisions (same list, same order), the
observation (unit features, threat estimates, whole vectors), the estimates of each legal decision, the
reasons given for illegal decisions, and what applying a decision does with the same dice (events and the
resulting state). The states come from the live battles, so stale caches would show here too.
"""
from __future__ import annotations

import random

import numpy as np

from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.dice import SeededDice
from engine.rulesets import get_ruleset

from .saga_reference import RULESET as REF
from .test_fast_paths import _random_states, ref_encode

RS = get_ruleset("saga")


def _events(ev) -> list[dict]:
    return [e.to_dict() for e in ev]


def test_legal_actions_match_reference_in_order():
    n = 0
    for b in _random_states(12, seed=11):
        enc = b.enc
        for u in enc.units:  # every unit, not only the actor: other budgets and positions are states too
            if u.active:
                assert RS.legal_actions(enc, u) == REF.legal_actions(enc, u)
        assert b.legal() == REF.legal_actions(enc, enc.actor)
        n += 1
    assert n > 500


def test_features_and_threat_estimates_match_reference():
    n = 0
    for b in _random_states(15, seed=12):
        enc = b.enc
        for u in enc.units:
            assert RS.unit_features(enc, u) == REF.unit_features(enc, u)
            for t in enc.units:
                if t is not u:
                    assert RS.threat_estimate(enc, u, t) == REF.threat_estimate(enc, u, t)
        n += 1
    assert n > 600


def test_observation_matches_reference_ruleset():
    from envs.observation import ObservationEncoder

    pairs = [(ObservationEncoder(RS, 4, 16, 16), ObservationEncoder(REF, 4, 16, 16)),
             (ObservationEncoder(RS, 2, 12, 12, radius=3), ObservationEncoder(REF, 2, 12, 12, radius=3))]
    n = 0
    for b in _random_states(12, seed=13):
        for fast, slow in pairs:
            got = fast.encode(b.enc, b.enc.actor, np.full(fast.size, 3.0, dtype=np.float32))
            np.testing.assert_array_equal(got, ref_encode(slow, b.enc, b.enc.actor))
        n += 1
    assert n > 400


def test_combat_arithmetic_matches_reference():
    from engine.rulesets.saga import combat as C

    from . import saga_reference_combat as RC

    n = 0
    for b in _random_states(10, seed=16):
        for u in b.enc.units:
            for t in b.enc.units:
                assert C.aid_bonus(u, t) == RC.aid_bonus(u, t)
            for melee in (None, True, False):
                assert C.reflex(u, melee=melee) == RC.reflex(u, melee=melee)
            assert C.reflex(u, with_armor=False) == RC.reflex(u, with_armor=False)
            for w in [None, *range(len(u.stats["weapons"]))]:
                for t in (None, *b.enc.units):
                    assert C.attack_bonus(u, w, t) == RC.attack_bonus(u, w, t)
                for aimed in (False, True):
                    expr = C.damage_expr(u, w, aimed)
                    assert expr == RC.damage_expr(u, w, aimed=aimed)
                    for hp in range(-1, expr.maximum + 2):
                        assert C.p_at_least(expr, hp) == RC.p_at_least(expr, hp)
                n += 1
    assert n > 5000


def test_threat_maps_after_the_caches_are_dropped():
    """A GM's edit drops the encounter's cache attributes (agents.autopilot `_touched`): the threat maps are
    made again, as the reference makes them."""
    n = 0
    for k, b in enumerate(_random_states(6, seed=17)):
        if k % 5:
            continue
        enc = b.enc
        for u in enc.units:
            assert RS._threats(enc, u) == REF._threats(enc, u)
        for key in [key for key in enc.__dict__ if key.startswith("_") and "cache" in key]:
            del enc.__dict__[key]
        for u in enc.units:
            assert RS._threats(enc, u) == REF._threats(enc, u)
        n += 1
    assert n > 50


def test_estimates_and_reasons_match_reference():
    from envs.codec import ActionCodec

    codec = ActionCodec(RS, 4, 16, 16, radius=4)
    rng = random.Random(5)
    n = 0
    for b in _random_states(12, seed=14):
        enc, a = b.enc, b.enc.actor
        legal = b.legal()
        for d in legal:
            e1, e2 = RS.estimate(enc, a, d), REF.estimate(enc, a, d)
            assert (e1.hit_chance, e1.expected_damage, e1.kill_chance, e1.notes) == \
                   (e2.hit_chance, e2.expected_damage, e2.kill_chance, e2.notes)
        legal_set = set(legal)
        for i in rng.sample(range(codec.n), 25):
            d = codec.decode(i, enc, a)
            if d is not None and d not in legal_set:
                assert RS.why_illegal(enc, a, d) == REF.why_illegal(enc, a, d), d
        n += 1
    assert n > 400


def test_applying_decisions_matches_reference():
    rng = random.Random(9)
    n = 0
    for k, b in enumerate(_random_states(15, seed=15)):
        if k % 3:
            continue
        legal = b.legal()
        moves = [d for d in legal if d.action in ("move", "withdraw", "run")]
        others = [d for d in legal if d.action not in ("move", "withdraw", "run")]
        picks = rng.sample(moves, min(3, len(moves))) + rng.sample(others, min(3, len(others)))
        for d in picks:
            seed = rng.randrange(1 << 30)
            fast = Battle(b.enc.clone(), RS, SeededDice(seed))
            slow = Battle(b.enc.clone(), REF, SeededDice(seed))
            assert _events(fast.step(d)) == _events(slow.step(d)), d
            assert fast.enc.to_dict() == slow.enc.to_dict()
            if not fast.enc.over:
                assert fast.legal() == REF.legal_actions(slow.enc, slow.enc.actor)
            n += 1
    assert n > 2000


def test_attack_estimate_from_other_squares_matches_reference():
    """The heuristic's pattern: units moved to candidate squares for an estimate, then put back."""
    rng = random.Random(3)
    n = 0
    for b in _random_states(6, seed=16):
        enc = b.enc
        g = enc.grid
        live = [u for u in enc.units if u.active]
        open_sq = [g.xy(i) for i in range(g.width * g.height) if g.passable(i)]
        for a in live:
            for t in live:
                if t.side == a.side:
                    continue
                for n_w in range(len(a.stats["weapons"])):
                    oa, ot = a.pos, t.pos
                    a.pos, t.pos = rng.choice(open_sq), rng.choice(open_sq)
                    try:
                        for aimed in (None, True, False):
                            e1 = RS.attack_estimate(enc, a, t, n_w, a.pos, aimed=aimed)
                            e2 = REF.attack_estimate(enc, a, t, n_w, a.pos, aimed=aimed)
                            assert (e1.hit_chance, e1.expected_damage, e1.kill_chance, e1.notes) == \
                                   (e2.hit_chance, e2.expected_damage, e2.kill_chance, e2.notes)
                        assert RS.threat_estimate(enc, a, t) == REF.threat_estimate(enc, a, t)
                    finally:
                        a.pos, t.pos = oa, ot
                    n += 1
    assert n > 500


def test_decision_lists_are_plain_decisions():
    """Interned decisions are still plain `Decision` tuples equal to freshly built ones."""
    for b in _random_states(2, seed=17):
        for d in b.legal():
            assert type(d) is Decision and Decision(*d) == d
