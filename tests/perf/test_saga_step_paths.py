"""Saga's fast paths in `Battle.step` against the rules they stand for.

Whole battles, their events, states, dice and next legal decisions, are held to recorded battles
(tests/recorded/record.py), which replaced the lockstep play against the frozen copy of the ruleset. Here the
charge paths (the C twin of `_charge_end` used when a charge is resolved, against `_charge_end`, the rules) and the
enemies a shot or a step provokes (`_threatened_at`, against the ruleset's threat map) on states of random battles,
also with units shuffled about the map and other reaches, speeds and spent attacks of opportunity.
"""
from __future__ import annotations

import random

from engine.rulesets import get_ruleset
from engine.rulesets.saga import terrain as saga_terrain

from .test_fast_paths import _random_states

RS = get_ruleset("saga")


def _charge_states():
    """(encounter, charger, target) at decisions of random battles, also with the units shuffled about the map
    (charges through allies, past enemies, from afar) and with other reaches and speeds."""
    rng = random.Random(4)
    for k, b in enumerate(_random_states(8, seed=21)):
        if k % 3:
            continue
        enc = b.enc
        live = [u for u in enc.units if u.active]
        for a in live:
            for t in enc.enemies(a):
                yield enc, a, t
        if rng.random() < 0.3:
            g = enc.grid
            free = [i for i in range(len(g.terrain)) if g.passable(i) and g.kind(i) != "low_cover"]
            saved = [(u, u.pos, u.stats) for u in live]
            for u, xy in zip(live, rng.sample(free, len(live))):
                u.pos = g.xy(xy)
                if rng.random() < 0.3:
                    u.stats = dict(u.stats, reach=rng.choice([1, 2, 3]), speed=rng.choice([4, 6, 8, 12]))
            for a in live:
                for t in enc.enemies(a):
                    yield enc, a, t
            for u, pos, stats in saved:
                u.pos, u.stats = pos, stats


def test_charge_paths_match_rules(monkeypatch):
    n = found = 0
    for enc, a, t in _charge_states():
        want = RS._charge_end(enc, a, t)
        assert RS._charge_to(enc, a, t) == want, (enc.grid.rows, a.pos, t.pos)
        n += 1
        found += want is not None
    assert n > 3000 and found > 1000, (n, found)
    monkeypatch.setattr(saga_terrain, "_legal", None)  # without the C module: the rules themselves
    for enc, a, t in _charge_states():
        assert saga_terrain.charge_end_native(enc, a, t) is NotImplemented
        assert RS._charge_to(enc, a, t) == RS._charge_end(enc, a, t)
        break


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
