"""The heuristic's square values in C (`engine/rulesets/saga/_tactics.c`, through `_View.kernel`) are exactly those
of its Python methods (`_Turn.pos_value`, `best_attack`, `score`), the reference: on thousands of states from random
battles (shipped encounters and random ones, units with random tactics), every score `explain` gives is the same
double, and whole seeded heuristic battles play out the same.

The Python side plays with a tactics object of its own, so a wrong value the C code left in a shared cache could not
make both sides agree. The C module is built by `pip install` (bootstrap.py); the policy falls back to Python only
where no C compiler exists, so here it must be built.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.policies import heuristic as H
from engine.rulesets import get_ruleset
from engine.rulesets.saga import tactics as T
from tests.battle_walk import random_walk

RS = get_ruleset("saga")
FILES = sorted((Path(__file__).resolve().parents[2] / "configs" / "encounters" / "saga").glob("*.yaml"))
PREFER = ("nearest", "weakest", "strongest", "most_dangerous", "wounded")


class _Python:
    """A heuristic on the Python path, over tactics of its own."""

    def __init__(self, seed: int):
        self.policy = H.HeuristicPolicy(seed)
        self.policy.native = False
        self.tac = RS.tactics()
        self.tac.native = False  # charges, approach fields and key squares in Python too

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


def test_the_c_module_is_built_and_used():
    assert T._native is not None, \
        "engine/rulesets/saga/_tactics.c was not built: reinstall with `python3 bootstrap.py setup`"
    b = Battle(load_encounter(FILES[0], RS), RS, SeededDice(0))
    b.start()
    assert H._Turn(b, H.tactics_for(RS), native=True).k is not None
    assert H._Turn(b, H.tactics_for(RS), native=False).k is None


def test_random_states_score_alike():
    native, python = H.HeuristicPolicy(7), _Python(7)
    n = kernel = 0
    for b in _states(30, seed=3):
        if len(b.legal()) == 1:
            continue
        got, want = native.explain(b), python.explain(b)
        assert got == want, (n, [(d, x, y) for (d, x), (_, y) in zip(got, want) if x != y][:3])
        assert native.choose(b) == python.choose(b), n
        kernel += H._Turn(b, H.tactics_for(RS), native=True).k is not None
        n += 1
    assert n > 2000 and kernel > n // 2, (n, kernel)


def test_rank_alike():
    native, python = H.HeuristicPolicy(1), _Python(1)
    for n, b in enumerate(_states(6, seed=11)):
        if n % 4 == 0:
            assert native.rank(b) == python.rank(b)


@pytest.mark.parametrize("source", range(4))
def test_seeded_heuristic_battles_play_alike(source):
    def play(make):
        rng = random.Random(source)
        enc = _encounter(source, 40 + source, rng)
        b = Battle(enc, RS, SeededDice(source))
        b.start()
        pols = {side: make(k) for k, side in enumerate(RS.sides)}
        out = []
        while not b.over and len(out) < 400:
            d = pols[b.actor.side].choose(b)
            out.append((b.actor.id, d))
            b.step(d)
        return out, b.enc.winner

    (got, winner), (want, winner_py) = play(H.HeuristicPolicy), play(_Python)
    assert got == want and winner == winner_py
    assert len(got) > 3


def test_without_the_c_module_the_python_path_plays(monkeypatch):
    b = Battle(load_encounter(FILES[1], RS), RS, SeededDice(2))
    b.start()
    want = H.HeuristicPolicy(0).explain(b)
    monkeypatch.setattr(T, "_native", None)
    assert H._Turn(b, H.tactics_for(RS), native=True).k is None
    assert H.HeuristicPolicy(0).explain(b) == want


def test_distance_fields_alike():
    """`SagaTactics.distance_field` (C `approach_field` on the native path) gives `_distance_field`'s steps (doors
    closed and open, random starts)."""
    tac = RS.tactics()
    rng = random.Random(4)
    n = 0
    for k in range(40):
        enc = _encounter(k, 9, rng) if k % 4 else load_encounter(FILES[k % len(FILES)], RS)
        g = enc.grid
        doors = [i for i, t in enumerate(g.terrain) if t == "door"]
        if doors and rng.random() < 0.5:
            g.open_doors.add(rng.choice(doors))
        starts = [u.pos for u in enc.units if rng.random() < 0.6] or [enc.units[0].pos]
        want = T._distance_field(g, starts, tac.step_costs(g))
        assert tac.distance_field(g, starts) == want
        n += sum(0 < d < 99 for d in want)
    assert n > 2000


def test_sight_lines_the_c_kernel_traced_are_the_python_ones():
    """Every sight line in the tactics' tables after native play (the kernel traces the ones it lacks) is
    `SagaTactics.sight` of a fresh table."""
    native = H.HeuristicPolicy(2)
    checked = 0
    for b in _states(12, seed=8):
        if len(b.legal()) > 1:
            native.choose(b)
        g = b.enc.grid
        table = H.tactics_for(RS).sight_table(g)
        for (i, j), got in list(table.items())[:200]:
            assert got == T.SagaTactics.sight(g, {}, i, j), (i, j)
            checked += 1
    assert checked > 5000


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


def test_the_kernel_computes_strikes_and_threats_from_the_pairs_parts():
    """The C kernel works out the strikes and threats of the classes it meets itself, from each unit pair's estimate
    parts (`_View.strike_parts`, `threat_parts`), instead of asking `_strike` / `_threat_of`: on random states, with
    the kernel's caches warm across them, its threat on a square and best attack from it (aimed and not) are the
    Python path's, from cold caches; and the parts were read."""
    warm = RS.tactics()
    rng = random.Random(8)
    n = 0
    for k, b in enumerate(_states(12, seed=29)):
        if k % 2:
            continue
        t = H._Turn(b, warm, native=True)
        if t.k is None:
            continue
        g = b.enc.grid
        for _ in range(4):
            pos = (rng.randrange(g.width), rng.randrange(g.height))
            ref = H._Turn(b, RS.tactics(), native=False)
            ref.tac.native = False
            assert t.k.threat(pos) == ref.v.threat(pos), (k, pos)
            for aimed in (False, True):
                assert t.k.best_attack(pos, aimed) == ref.best_attack(pos, aimed), (k, pos, aimed)
            n += 1
    read = [key for pair in warm._by_pair.values() for key in pair if isinstance(key, int)]
    assert n > 300 and len(read) > 100, (n, len(read))


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


class _Fresh(_Python):
    """A heuristic on the C path with tactics of its own."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.policy.native = True
        self.tac.native = True


def test_training_maps_score_alike():
    """The training's encounters (a fresh random 14x14 map every battle, 1 to 4 units a side), played by the
    heuristic on the C path: at every decision the Python path scores every decision alike, charges included."""
    native, python = H.HeuristicPolicy(4), _Python(4)
    rng = random.Random(12)
    n = charges = 0
    for k in range(14):
        b = Battle(random_encounter(RS, rng, 14, 14, sizes=(1, 4)), RS, SeededDice(k))
        b.start()
        steps = 0
        while not b.over and steps < 80:
            if len(b.legal()) > 1:
                native._rng, python.policy._rng = random.Random(steps), random.Random(steps)  # the same jitter
                got, want = native.explain(b), python.explain(b)
                assert got == want, (k, steps, [(d, x, y) for (d, x), (_, y) in zip(got, want) if x != y][:3])
                charges += any(d.action == "charge" for d, _ in got)
                n += 1
            b.step(native.choose(b))
            steps += 1
    assert n > 300 and charges > 30, (n, charges)
