"""The Saga ruleset's caches and interned decisions on the states of random battles.

What the ruleset computes (legal decisions, estimates, reasons, observations, events and states, its combat
arithmetic) is held to recorded battles (tests/recorded/record.py), which replaced the frozen copy of the ruleset
from before its speed work; here, the threat maps once a GM's edit has dropped the encounter's caches, and the
decisions' type.
"""
from __future__ import annotations

import random

from engine.core.decision import Decision
from engine.rulesets import get_ruleset

from .test_fast_paths import _random_states

RS = get_ruleset("saga")


def _plain_threats(enc, a) -> dict[int, list[int]]:
    """Square index -> the enemies of a that would take an attack of opportunity there, built square by square."""
    g = enc.grid
    out: dict[int, list[int]] = {}
    for e in enc.units:
        if e.side != a.side and not e.down and not e.state["aoo_used"] and RS.threatens(e):
            for i in range(g.width * g.height):
                if 0 < g.distance(e.pos, g.xy(i)) <= e.stats["reach"]:
                    out.setdefault(i, []).append(e.id)
    return out


def test_threat_maps_after_the_caches_are_dropped():
    """A GM's edit (here a unit moved, the state's version kept) drops the encounter's cache attributes
    (agents.autopilot `_touched`): the threat maps are made again, as the rules make them."""
    rng = random.Random(17)
    n = 0
    for k, b in enumerate(_random_states(6, seed=17)):
        if k % 5:
            continue
        enc = b.enc.clone()
        for u in enc.units:
            assert RS._threats(enc, u) == _plain_threats(enc, u)
        g = enc.grid
        moved = rng.choice([u for u in enc.units if u.active])
        free = [i for i in range(g.width * g.height) if g.passable(i) and enc.occupant(g.xy(i)) is None]
        moved.pos = g.xy(rng.choice(free))
        for key in [key for key in enc.__dict__ if key.startswith("_") and "cache" in key]:
            del enc.__dict__[key]
        for u in enc.units:
            assert RS._threats(enc, u) == _plain_threats(enc, u)
        n += 1
    assert n > 50


def test_decision_lists_are_plain_decisions():
    """Interned decisions are still plain `Decision` tuples equal to freshly built ones."""
    for b in _random_states(2, seed=17):
        for d in b.legal():
            assert type(d) is Decision and Decision(*d) == d
