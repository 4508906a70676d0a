"""The Saga heuristic's per-map and per-view caches (`SagaTactics.world`, the estimates and threats it keeps) give
what the ruleset computes afresh, on random maps of every size the training uses and on the shipped encounters,
doors open and closed, objects broken."""
from __future__ import annotations

import random
from pathlib import Path

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.rulesets import get_ruleset
from engine.rulesets.saga import combat as C
from tests.battle_walk import random_walk

RS = get_ruleset("saga")
FILES = sorted((Path(__file__).resolve().parents[2] / "configs" / "encounters" / "saga").glob("*.yaml"))


def _maps(n: int, seed: int):
    """Encounters on random maps (training sizes and others) and shipped ones, some doors opened, objects broken."""
    rng = random.Random(seed)
    for k in range(n):
        if k % 5 == 0:
            enc = load_encounter(FILES[(k // 5) % len(FILES)], RS)
        else:
            enc = random_encounter(RS, random.Random(seed * 1000 + k), rng.choice([8, 12, 14, 14, 16]),
                                   rng.choice([10, 14, 16]), sizes=(1, 4))
        g = enc.grid
        doors = [i for i, t in enumerate(g.terrain) if t == "door"]
        if doors and rng.random() < 0.5:
            g.open_doors.add(rng.choice(doors))
        objects = [i for i, t in enumerate(g.terrain) if t in ("low_cover", "heavy_cover", "door")]
        if objects and rng.random() < 0.3:
            g.broken.add(rng.choice(objects))
        yield rng, enc


def _battles(rng: random.Random, n_maps: int, map_seed: int, steps: int):
    """The Battle at every state of a random walk of up to `steps` decisions (drawn from `rng`) through a battle on
    each of `_maps(n_maps, map_seed)`."""
    for k, (_, enc) in enumerate(_maps(n_maps, seed=map_seed)):
        b = Battle(enc, RS, SeededDice(k))
        b.start()
        yield from (b for _ in random_walk(b, rng, steps))


def test_worlds_are_the_map_and_door_tokens():
    """`SagaTactics.world` (one lookup per view) gives the token of (map, open doors, broken objects) the view computed
    before, and the sight table of that door state, on maps with objects broken as doors open and close."""
    n = 0
    for rng, enc in _maps(40, seed=6):
        tac = RS.tactics()  # its store of door states is trimmed past 32 (new tables then)
        g = enc.grid
        doors = [i for i, t in enumerate(g.terrain) if t == "door"]
        seen = {}
        for _ in range(6):
            world, table = tac.world(g)
            state = (frozenset(g.open_doors), frozenset(g.broken))
            assert world == tac.token((tac.map_token(g), *state))
            assert table is tac.sight_table(g)
            was = seen.setdefault(state, (world, table))
            assert was[0] == world and was[1] is table
            if doors:
                g.open_doors ^= {rng.choice(doors)}
            n += 1
        assert len({w for w, _ in seen.values()}) == len(seen)
    assert n > 200


def test_estimates_at_other_hit_points_are_the_rulesets():
    """`_View.estimate` derives an attack's estimate on a target at new hit points from the one at other hit points
    (only the kill chance differs): on warm caches, targets hurt and healed at random, every figure is
    `rs.attack_estimate`'s."""
    tac = RS.tactics()
    rng = random.Random(9)
    n = derived = 0
    for b in _battles(rng, 20, 8, 60):
        e = b.enc
        units = [u for u in e.units if u.active]
        for a in units:
            for t in units:
                if t is a:
                    continue
                hp = t.hp
                t.hp = rng.randint(1, t.max_hp)
                v = tac.view(e, a)
                for wn in C.usable_weapons(a):
                    aimed = rng.random() < 0.3
                    before = len(tac._est)
                    got = v.estimate(a, t, wn, a.pos, t.pos, aimed)
                    want = RS.attack_estimate(e, a, t, wn, a.pos, aimed=aimed)
                    assert (got.hit_chance, got.expected_damage, got.kill_chance) == \
                        (want.hit_chance, want.expected_damage, want.kill_chance)
                    n += 1
                    derived += len(tac._est) == before + 1
                t.hp = hp
    assert n > 3000 and derived > 500, (n, derived)


def test_whole_estimates_at_other_hit_points_are_the_rulesets():
    """Full attacks and charges at targets hurt and healed at random (their kill chance derived from the estimate at
    other hit points) are `rs.estimate`'s."""
    tac = RS.tactics()
    rng = random.Random(10)
    n = derived = 0
    kinds = set()
    for b in _battles(rng, 30, 9, 80):
        e, a = b.enc, b.enc.actor
        for d in b.legal():
            if d.action not in ("full_attack", "charge"):
                continue
            t = e.units[d.target]
            hp = t.hp
            for _ in range(3):
                t.hp = rng.randint(1, t.max_hp)
                before = len(tac._est)
                got = tac.view(e, a).decision_estimate(d)
                want = RS.estimate(e, a, d)
                assert (got.hit_chance, got.expected_damage, got.kill_chance) == \
                    (want.hit_chance, want.expected_damage, want.kill_chance), d
                n += 1
                derived += len(tac._est) == before + 1
                kinds.add(d.action)
            t.hp = hp
    assert n > 300 and derived > 100 and kinds == {"full_attack", "charge"}, (n, derived, kinds)


def test_cached_aoo_threats_are_the_rulesets():
    """`_View._aoo_threats` (cached across states by the enemies' signatures, squares and spent reactions) is
    `rs._threats` at every decision of random battles."""
    tac = RS.tactics()
    rng = random.Random(11)
    n = 0
    for b in _battles(rng, 16, 10, 100):
        e = b.enc
        for a in e.units:
            if a.active:
                assert tac.view(e, a)._aoo_threats() == RS._threats(e, a)
                n += 1
    assert n > 2000, n


