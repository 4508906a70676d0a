"""The Saga per-map queries in C (`_legal.c`: `charge_end`; `_tactics.c`: `approach_field`, `key_mask`) give what their
Python twins give (`SagaRuleset._charge_end`, `tactics._distance_field`, `_View.key_squares`) on fresh random maps
of every size the training uses and on the shipped encounters, doors open and closed, objects broken, every unit
charging every other from many squares."""
from __future__ import annotations

import random
from pathlib import Path

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.rulesets import get_ruleset
from engine.rulesets.saga import combat as C
from engine.rulesets.saga import tactics as T
from engine.rulesets.saga import terrain
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


def test_charge_ends_alike():
    n = found = 0
    for rng, enc in _maps(60, seed=1):
        g = enc.grid
        units = [u for u in enc.units if u.active]
        for _ in range(6):  # the units moved about, their reach and speed varied
            free = [i for i, t in enumerate(g.terrain) if g.passable(i) and g.kind(i) != "low_cover"]
            taken = set()
            for u in units:
                i = rng.choice(free)
                if i not in taken:
                    u.pos = g.xy(i)
                    taken.add(i)
            for a in units:
                saved = a.stats
                if rng.random() < 0.3:
                    a.stats = dict(a.stats, reach=rng.choice([1, 2, 3]), speed=rng.choice([4, 6, 8, 12]))
                for t in units:
                    if t is not a and len({u.pos for u in units}) == len(units):
                        want = RS._charge_end(enc, a, t)
                        assert terrain.charge_end_native(enc, a, t) == want, (g.rows, a.pos, t.pos, a.stats["reach"])
                        n += 1
                        found += want is not None
                a.stats = saved
    assert n > 2000 and found > 500, (n, found)


def test_charge_ends_of_battle_states_alike():
    """Charges at every decision of random battles (prone, slowed, allies and enemies in the way)."""
    rng = random.Random(3)
    n = found = 0
    for b in _battles(rng, 12, 2, 120):
        a = b.enc.actor
        for t in b.enc.enemies(a):
            want = RS._charge_end(b.enc, a, t)
            assert terrain.charge_end_native(b.enc, a, t) == want
            n += 1
            found += want is not None
    assert n > 1000 and found > 100, (n, found)


def test_approach_fields_alike():
    tac = RS.tactics()
    n = 0
    for rng, enc in _maps(60, seed=4):
        g = enc.grid
        starts = [u.pos for u in enc.units if rng.random() < 0.6] or [enc.units[0].pos]
        want = T._distance_field(g, starts, tac.step_costs(g))
        assert T._native.approach_field(terrain.terrain_codes(g), g.width, [g.index(*p) for p in starts]) == want
        n += sum(0 < d < 99 for d in want)
    assert n > 5000


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


def test_key_masks_are_the_key_squares():
    n = 0
    for rng, enc in _maps(60, seed=5):
        g = enc.grid
        for a in enc.units:
            tac = RS.tactics()
            if rng.random() < 0.3:
                a.stats = dict(a.stats, reach=rng.choice([1, 2, 3]))
            v = tac.view(enc, a)
            mask = v.key_mask()
            assert {g.xy(i) for i, m in enumerate(mask) if m} == v.key_squares(), (g.rows, a.pos)
            tac.native = False
            assert tac.view(enc, a).key_mask() is None
            n += 1
    assert n > 150


def test_sight_memo_lines_the_kernel_traced_are_the_grids():
    """The kernel reads and fills _sight.h's sight memo (shared with _legal.c and _observe.c): after heuristic play on
    fresh maps every line known there is `Grid.sight` (line of sight, line of effect, cover)."""
    from engine.policies.heuristic import HeuristicPolicy

    cover = {"none": 0, "low": 1, "heavy": 2}
    policy = HeuristicPolicy(3)
    n = 0
    for k, (rng, enc) in enumerate(_maps(10, seed=6)):
        b = Battle(enc, RS, SeededDice(k))
        b.start()
        for _ in range(25):
            if b.over:
                break
            b.step(policy.choose(b))
        g = b.enc.grid
        size = g.width * g.height
        memo = g._geometry.memo.get("saga_sight", {}).get(g.line_codes())
        assert memo is not None
        for i in range(size):
            for j in range(i, size):
                got = memo[i * size + j]
                if got:
                    los, loe, cov = g.sight(i, j)
                    assert got == 0x80 | los | loe << 1 | cover[cov] << 2, (i, j)
                    n += 1
    assert n > 2500, n


def test_view_units_alike():
    """`_native.view_units` gives `_view_units`'s signature tokens, first weapons, occupied squares and unit keys at
    every decision of random battles (tokens from one shared table, so equal tokens mean equal signatures), the
    units named in their signatures exactly when one is aided."""
    tac = RS.tactics()
    rng = random.Random(8)
    n = named = 0
    for b in _battles(rng, 12, 7, 120):
        e = b.enc
        for a in e.units:
            args = (e.units, a.id, a.side, e.grid.width, tac.token, tac._tokens, tac._first, T._first_weapons)
            got = T._native.view_units(*args)
            assert got == T._view_units(*args)
            assert got[-2] == e.enemies(a)
            assert got[-1] == any(u.state["aid"] for u in e.units if u.active)
            named += got[-1]
            if a.active:
                assert tac.view(e, a).plan(a) == RS._full_attack_plan(a)  # cached by attacker signature
            n += 1
    assert n > 3000 and named > 50, (n, named)


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


def test_attack_estimates_are_the_rulesets():
    """`_View._attack_estimate` (the ruleset's arithmetic over parts cached per attacker signature) gives
    `rs.attack_estimate`'s figures and notes for every unit on every other with every usable weapon, aimed or not,
    from random squares, with bonuses, at every decision of random battles."""
    tac = RS.tactics()
    rng = random.Random(13)
    n = 0
    modes = set()
    for b in _battles(rng, 20, 11, 60):
        g = b.enc.grid
        e = b.enc
        units = [u for u in e.units if u.active]
        for a in units:
            v = tac.view(e, a)
            for t in units:
                if t is a:
                    continue
                for wn in C.usable_weapons(a):
                    w = C.weapon(a, wn)
                    pos = (rng.randrange(g.width), rng.randrange(g.height)) if rng.random() < 0.5 else a.pos
                    aimed, extra = rng.random() < 0.4, rng.choice([0, 0, 2])
                    if w["kind"] == "melee":
                        band, cover = -1, 0
                    else:
                        pair = v.pair(pos, t.pos)
                        band, cover = C.range_band(w, pair[3]), pair[2]
                        if band is None:
                            continue
                    got = v._attack_estimate(a, t, wn, w, band, cover, aimed, extra)
                    saved = a.pos
                    a.pos = pos
                    want = RS.attack_estimate(e, a, t, wn, pos, extra=extra, aimed=aimed)
                    a.pos = saved
                    assert (got.hit_chance, got.expected_damage, got.kill_chance, got.notes) == \
                        (want.hit_chance, want.expected_damage, want.kill_chance, want.notes), (w, aimed)
                    modes.add(C.mode(a, wn))
                    n += 1
    assert n > 5000 and len(modes) > 1, (n, modes)


def test_terrain_codes_are_each_squares_kind():
    """`terrain_codes` (by terrain, the squares of open doors and broken objects apart) is the byte per square its
    docstring gives from `Grid.kind`, on random maps and the shipped ones, doors opened and objects broken."""
    n = 0
    for rng, enc in _maps(60, seed=12):
        g = enc.grid
        for _ in range(3):
            want = bytes(
                (k in ("low_cover", "wall", "heavy_cover", "window", "door")) | (k == "wall") << 1
                | (k in ("difficult", "low_cover")) << 2 | (k in ("wall", "heavy_cover", "window")) << 3
                | (k == "door") << 4 | (t == "wall") << 5 | (i not in g.broken and t == "door") << 6
                | (i not in g.broken and t in ("low_cover", "heavy_cover")) << 7
                for i, t, k in ((i, t, g.kind(i)) for i, t in enumerate(g.terrain)))
            assert terrain.terrain_codes(g) == want
            n += len(g.open_doors) + len(g.broken)
            objects = [i for i, t in enumerate(g.terrain) if t in ("low_cover", "heavy_cover", "door", "wall")]
            if objects:
                g.broken.add(rng.choice(objects))
            doors = [i for i, t in enumerate(g.terrain) if t == "door"]
            if doors:
                g.open_doors ^= {rng.choice(doors)}
    assert n > 100, n


def test_sight_lines_traced_in_c_are_the_grids():
    """`_tactics.sight_line` (the tactics' sight lines on a table miss) gives `SagaTactics.sight` by `Grid.sight`:
    sight, effect, cover bonus and distance, on random maps and the shipped ones, doors open and closed, objects
    broken, every distance metric."""
    rng = random.Random(17)
    n = blocked = covered = 0
    for _, enc in _maps(40, seed=19):
        g = enc.grid
        for metric in T.METRICS:
            g.metric = metric
            codes = g.line_codes()
            for _ in range(150):
                i, j = sorted(rng.randrange(len(g.terrain)) for _ in range(2))
                got = T._native.sight_line(codes, g.width, T.METRICS[metric], i, j)
                assert got == T.SagaTactics.sight(g, {}, i, j), (metric, g.xy(i), g.xy(j))
                n += 1
                blocked += not got[0]
                covered += got[2] > 0
        g.metric = "alternating"
    assert n > 15000 and blocked > 1000 and covered > 1000, (n, blocked, covered)
