"""`Battle.step` with the Saga ruleset's fast paths plays the very battles the frozen reference plays.

The states of `test_saga_fast_paths.py` come from random play; training plays the heuristic, which charges,
shoots and moves with purpose. Here whole battles are played in lockstep by the engine's ruleset and by
`saga_reference.py` (the ruleset before the speed work) with the same dice: after every decision the events,
the state, the dice's state and the next legal decisions must be the same. The charge paths (the C twin of
`_charge_end` used when a charge is resolved) and the enemies a shot provokes are checked against the rules on
their own too.
"""
from __future__ import annotations

import random

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.policies import rule_policy
from engine.rulesets import get_ruleset
from engine.rulesets.saga import terrain as saga_terrain

from .saga_reference import RULESET as REF
from .test_fast_paths import _random_states

RS = get_ruleset("saga")


def _lockstep(k: int, players: tuple[str, str], steps: int = 400):
    """Yield (decision, fast events, slow events, fast battle, slow battle) through one battle on a random map,
    the pcs and the npcs played by the named rule policies (chosen on the fast battle)."""
    enc = random_encounter(RS, random.Random(1000 + k), random.Random(k).choice([10, 12, 14, 16]), 16,
                           sizes=(1, 4))
    fast, slow = Battle(enc, RS, SeededDice(k)), Battle(enc.clone(), REF, SeededDice(k))
    ev_f, ev_s = fast.start(), slow.start()
    assert [e.to_dict() for e in ev_f] == [e.to_dict() for e in ev_s]
    policies = {"pcs": rule_policy(players[0], k), "npcs": rule_policy(players[1], k + 1)}
    for _ in range(steps):
        if fast.over:
            return
        d = policies[fast.enc.actor.side].choose(fast)
        yield d, fast.step(d), slow.step(d), fast, slow


def test_played_battles_match_reference():
    n = charges = aoos = 0
    kinds = [("heuristic", "heuristic"), ("random", "heuristic"), ("heuristic", "random")]
    for k in range(36):
        for d, ev_f, ev_s, fast, slow in _lockstep(k, kinds[k % 3]):
            assert [e.to_dict() for e in ev_f] == [e.to_dict() for e in ev_s], (k, d)
            assert fast.enc.to_dict() == slow.enc.to_dict(), (k, d)
            assert fast.dice.getstate() == slow.dice.getstate(), (k, d)
            if not fast.over:
                assert fast.legal() == REF.legal_actions(slow.enc, slow.enc.actor), (k, d)
            n += 1
            charges += d.action == "charge"
            aoos += sum(e.kind == "aoo" for e in ev_f)
    assert n > 1200 and charges > 50 and aoos > 50, (n, charges, aoos)


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
        want = REF._charge_end(enc, a, t)
        assert RS._charge_end(enc, a, t) == want
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
    """The enemies a shot or a step from a square provokes: the reference's threat map at that square."""
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
            threats = REF._threats(enc, a)  # a's side's map: a may stand anywhere on it
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
