"""Saga's fast paths in `Battle.step` against the rules they stand for.

Whole battles, their events, states, dice and next legal decisions, are held to recorded battles
(tests/recorded/record.py), which replaced the lockstep play against the frozen copy of the ruleset. Here the
enemies a shot or a step provokes (`_threatened_at`, against the ruleset's threat map) on states of random battles,
also with other reaches and spent attacks of opportunity.
"""
from __future__ import annotations

import random

from engine.rulesets import get_ruleset

from .test_fast_paths import _random_states

RS = get_ruleset("saga")


def test_threatened_at_matches_threat_map():
    """The enemies a shot or a step from a square provokes: the ruleset's threat map at that square."""
    rng = random.Random(8)
    n = found = 0
    for k, b in enumerate(_random_states(10, seed=22)):
        if k % 2:
            continue
        enc = b.enc.clone()
        for u in enc.units:  # attacks of opportunity used, reaches from 1 to 3
            if rng.random() < 0.2:
                u.state["aoo_used"] = not u.state["aoo_used"]
            if rng.random() < 0.3:
                u.stats = dict(u.stats, reach=rng.choice([1, 2, 3]))
        g = enc.grid
        for a in enc.units:
            threats = RS._threats(enc, a)  # a's side's map: a may stand anywhere on it
            home = a.pos
            for xy in [home] + [g.xy(i) for i in rng.sample(sorted(threats), min(3, len(threats)))]:
                a.pos = xy
                want = threats.get(g.index(*xy), [])
                assert RS._threatened_at(g, RS._threatening(enc, a), xy) == want, (a.id, xy)
                n += 1
                found += bool(want)
            a.pos = home
    assert n > 5000 and found > 2000, (n, found)


def test_new_event_is_the_keyword_event():
    from engine.core.events import Event, new_event

    data = {"face": 20, "bonus": 3, "notes": ["aimed"], "hit": True}
    fast, slow = new_event("attack", 1, 2, dict(data)), Event("attack", 1, 2, **data)
    assert type(fast) is Event
    assert (fast.kind, fast.actor, fast.target, fast.data) == (slow.kind, slow.actor, slow.target, slow.data)
    assert fast.to_dict() == slow.to_dict() and list(fast.to_dict()) == list(slow.to_dict())
    assert repr(fast) == repr(slow) and fast.get("face") == 20
