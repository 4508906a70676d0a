"""The C mirror of the Saga legality rules (engine/rulesets/saga/_legal.c) gives exactly what the Python rules
(`SagaRuleset.legal_actions_py`) give: the same Decision objects, in the same order.

The states come from random battles (the shipped encounters, random encounters, random maps with doors,
windows and cover) and from copies of them with rare conditions set at random (prone, aimed, grabbed,
grabbing, pinned, charged, no attacks left, the condition track, lost and dropped weapons, spent budgets,
downed units, open doors and broken or jammed objects, other distance metrics), checked for every unit, not
only the one acting. The C module is built by `pip install` (bootstrap.py); the ruleset falls back to Python
only where no C compiler exists, so here it must be built.
"""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import yaml

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.generate import random_encounter
from engine.core.grid import Grid
from engine.rulesets import get_ruleset
from engine.rulesets.saga import ruleset as R
from tests.battle_walk import random_walk

RS = get_ruleset("saga")
ENCOUNTERS = sorted((Path(__file__).parents[2] / "configs" / "encounters" / "saga").glob("*.yaml"))
TEMPLATES = ("trooper", "battle_droid", "bounty_hunter", "smuggler", "jedi_knight", "beast", "thug")


def test_the_c_module_is_built_and_used():
    assert R._legal is not None, \
        "engine/rulesets/saga/_legal.c was not built: reinstall with `python3 bootstrap.py setup`"
    assert callable(R._legal.legal) and callable(R._legal.setup)
    enc = load_encounter(ENCOUNTERS[0], RS)
    b = Battle(enc, RS, SeededDice(0))
    b.start()
    got = R._legal.legal(b.enc, b.enc.actor)
    assert got is not None and got == RS.legal_actions_py(b.enc, b.enc.actor)


def _door_map(rng: random.Random) -> str:
    """A walled map with doors (some open), windows, heavy and low cover and difficult terrain."""
    w, h = rng.randint(8, 16), rng.randint(6, 14)
    rows = ["#" * w]
    for _ in range(h - 2):
        rows.append("#" + "".join(rng.choices("..........c~C=+/#", k=w - 2)) + "#")
    rows.append("#" * w)
    return "\n".join(rows)


def _door_encounter(rng: random.Random):
    rows = _door_map(rng).split("\n")
    free = [(x, y) for y, r in enumerate(rows) for x, ch in enumerate(r) if ch in ".~c/"]
    rng.shuffle(free)
    n = min(len(free), rng.randint(2, 8))
    units = [{"name": f"u{k}", "side": "pcs" if k % 2 else "npcs", "template": rng.choice(TEMPLATES),
              "at": list(free[k])} for k in range(n)]
    text = yaml.safe_dump({"ruleset": "saga", "name": "doors", "map": "\n".join(rows) + "\n", "units": units},
                          sort_keys=False)
    return parse_encounter(text, "doors.yaml", RS)


def _encounters(seed: int):
    """Shipped encounters, random encounters, random maps with doors and windows, in turn."""
    rng = random.Random(seed)
    k = 0
    while True:
        kind = k % 3
        if kind == 0:
            yield load_encounter(ENCOUNTERS[(k // 3) % len(ENCOUNTERS)], RS)
        elif kind == 1:
            yield random_encounter(RS, random.Random(seed * 1000 + k), rng.choice([8, 12, 16]), rng.choice([8, 16]),
                                   sizes=(1, 4))
        else:
            yield _door_encounter(rng)
        k += 1


def _states(seed: int, n: int):
    """n states of random battles (random legal decisions, END less often), one per decision point."""
    rng = random.Random(seed)
    made = 0
    for k, enc in enumerate(_encounters(seed)):
        b = Battle(enc, RS, SeededDice(seed * 100 + k))
        b.start()
        for _ in random_walk(b, rng, 200, redraw_end=0.8):
            yield b.enc
            made += 1
            if made >= n:
                return


def _perturbed(enc, rng: random.Random):
    """A copy of enc with rare conditions set at random on its units, budget, map and flags."""
    enc = enc.clone()
    units = enc.units
    p = rng.random
    for u in units:
        s, ws = u.state, u.stats["weapons"]
        foes = [v.id for v in units if v.side != u.side]
        if p() < 0.2:
            s["prone"] = not s["prone"]
        if p() < 0.15:
            s["aimed"] = True
        if p() < 0.1:
            s["no_attacks"] = True
        if p() < 0.1:
            s["charged"] = True
        if p() < 0.15:
            s["ct"] = rng.randint(1, 5)
        if foes and p() < 0.08:
            s["grabbed_by"] = [rng.choice(foes)]
        if foes and p() < 0.08:
            s["grabbing"] = rng.choice(foes)
        if foes and p() < 0.08:
            s["pinned_by"] = rng.choice(foes)
        if ws and p() < 0.15:
            n = rng.randrange(len(ws))
            s["lost"].append(n)
            if n in s["hands"] and p() < 0.5:
                s["hands"].remove(n)
        if ws and p() < 0.15:
            s["hands"] = rng.sample(range(len(ws)), rng.randint(0, min(2, len(ws))))
        if p() < 0.1:
            key = f"{u.pos[0]},{u.pos[1]}"
            enc.extra.setdefault("ground", {}).setdefault(key, []).append(
                {"owner": u.id if p() < 0.7 else (u.id + 1) % len(units), "weapon": 0})
        if p() < 0.15:
            u.hp = max(1, u.max_hp // rng.choice([2, 3]))
        if p() < 0.1:
            s["winds_used"] = 1
        if p() < 0.05:
            u.down = True
            u.dead = p() < 0.5
    for k in ("standard", "move", "swift"):
        if p() < 0.25:
            enc.budget[k] = 0
    if p() < 0.03:
        enc.flags["charged"] = True
    g = enc.grid
    for i, t in enumerate(g.terrain):
        if t == "door":
            if p() < 0.3:
                g.open_doors.add(i)
            elif p() < 0.1:
                g.broken.add(i)
            elif p() < 0.2:
                enc.extra.setdefault("objects", {})[str(i)] = {"hp": 0, "disabled": p() < 0.7}
        elif t in ("low_cover", "heavy_cover") and p() < 0.1:
            g.broken.add(i)
    if p() < 0.1:  # the same map under another distance metric
        other = Grid(g.rows, g.legend, rng.choice(["chebyshev", "manhattan"]))
        other.open_doors, other.broken = set(g.open_doors), set(g.broken)
        enc.grid = other
    return enc


def _note(counts: Counter, enc, u, got) -> None:
    """Count the rare conditions and decisions this check covered."""
    s, g = u.state, enc.grid
    for flag in ("prone", "aimed", "charged", "no_attacks"):
        counts[flag] += bool(s[flag])
    counts["grabbed"] += bool(s["grabbed_by"])
    counts["grabbing"] += s["grabbing"] is not None
    counts["pinned"] += s["pinned_by"] is not None
    counts["turn charged"] += bool(enc.flags.get("charged"))
    counts["condition track"] += s["ct"] > 0
    counts["half speed"] += s["ct"] == 4
    counts["helpless"] += s["ct"] >= 5
    counts["full round"] += all(enc.budget.get(k, 0) >= 1 for k in ("standard", "move", "swift"))
    counts["no full round"] += not all(enc.budget.get(k, 0) >= 1 for k in ("standard", "move", "swift"))
    counts["no standard"] += enc.budget["standard"] <= 0
    counts["quick draw"] += "quick_draw" in u.stats["feats"]
    counts["items"] += bool(u.stats["items"])
    counts["reach 2"] += u.stats["reach"] > 1
    counts["weapons lost"] += bool(s["lost"])
    counts["empty hands"] += not s["hands"]
    counts["dropped under it"] += bool(enc.extra.get("ground", {}).get(f"{u.pos[0]},{u.pos[1]}"))
    counts["downed units"] += any(v.down for v in enc.units)
    counts["dead units"] += any(v.dead for v in enc.units)
    counts["open doors"] += bool(g.open_doors)
    counts["broken objects"] += bool(g.broken)
    counts["jammed objects"] += bool(enc.extra.get("objects"))
    counts["windows"] += "window" in g.terrain
    counts[f"metric {g.metric}"] += 1
    counts["actor down"] += u.down
    counts["empty budget"] += not any(enc.budget.get(k, 0) > 0 for k in ("standard", "move", "swift"))
    for d in got:
        counts[d.action] += 1


def _check(enc, u, counts: Counter) -> None:
    got = R._legal.legal(enc, u)
    want = RS.legal_actions_py(enc, u)
    assert got is not None, f"the C mirror declined a plain state ({u.name})"
    assert got == want, (u.name, [d for d in got if d not in want], [d for d in want if d not in got])
    assert all(x is y for x, y in zip(got, want)), "not the interned Decision objects"
    assert RS.legal_actions(enc, u) == want
    counts["checks"] += 1
    _note(counts, enc, u, got)


RARE = ("prone", "aimed", "charged", "no_attacks", "grabbed", "grabbing", "pinned", "turn charged",
        "condition track", "half speed", "helpless", "full round", "no full round", "no standard", "quick draw",
        "items", "reach 2", "weapons lost", "empty hands", "dropped under it", "downed units", "dead units",
        "open doors", "broken objects", "jammed objects", "windows", "metric alternating", "metric chebyshev",
        "metric manhattan", "actor down", "empty budget")
DECISIONS = ("move", "withdraw", "run", "melee_attack", "ranged_attack", "aid_attack", "suppress",
             "attack_held_object", "disarm", "full_attack", "charge", "grab", "grapple", "coup_de_grace",
             "attack_object", "fight_defensively", "total_defense", "break_grab", "draw", "holster", "manipulate",
             "stand_up", "stand_up_acrobatics", "activate_item", "aim", "second_wind", "drop_item", "fall_prone",
             "recover", "switch_mode")


def test_c_matches_python_on_random_battles():
    counts: Counter = Counter()
    for seed in range(3):
        rng = random.Random(seed)
        for enc in _states(seed, 1000):
            for u in enc.units:
                _check(enc, u, counts)
            other = _perturbed(enc, rng)
            for u in other.units:
                _check(other, u, counts)
    assert counts["checks"] > 20_000
    missing = [k for k in RARE + DECISIONS if counts[k] == 0]
    assert not missing, f"never covered: {missing} ({dict(counts)})"


def test_clones_sharing_a_map_keep_their_own_doors_and_units():
    """Clones share the map's geometry (where the mirror keeps the terrain) but not its doors or units."""
    enc = load_encounter(next(p for p in ENCOUNTERS if p.stem == "cantina_ambush"), RS)
    b = Battle(enc, RS, SeededDice(1))
    b.start()
    a = b.enc.actor
    first = R._legal.legal(b.enc, a)
    clone = b.enc.clone()
    door = clone.grid.terrain.index("door")
    clone.grid.open_doors.add(door)
    x, y = door % clone.grid.width, door // clone.grid.width
    ca = clone.units[a.id]
    assert clone.occupant((x - 1, y)) is None
    ca.pos = (x - 1, y)  # next to the door, which is open now
    ca.state["prone"] = True
    clone.version += 1
    assert clone.grid._geometry is b.enc.grid._geometry
    got = R._legal.legal(clone, ca)
    assert got == RS.legal_actions_py(clone, ca) and got != first
    assert R._legal.legal(b.enc, a) == first == RS.legal_actions_py(b.enc, a)


def test_unusual_states_are_left_to_python():
    """What the mirror does not read (here, hands as a tuple) makes it decline: Python decides."""
    enc = load_encounter(ENCOUNTERS[0], RS)
    b = Battle(enc, RS, SeededDice(2))
    b.start()
    a = b.enc.actor
    a.state["hands"] = tuple(a.state["hands"])
    assert R._legal.legal(b.enc, a) is None
    assert RS.legal_actions(b.enc, a) == RS.legal_actions_py(b.enc, a)


def test_the_sight_memo_follows_the_doors_per_map_and_state():
    """The sight memo kept with a map's shared geometry (one per state of its doors and broken objects, shared with
    the observation's C code) never answers for another state: a clone opening a door or breaking a window mid-battle
    sees through it, the original still does not, and each agrees with the Python rules throughout."""
    from engine.rulesets.saga import observe as O
    from tests.saga.helpers import PISTOL, RIFLE, make, unit

    rows = ["#########",
            "#...#...#",
            "#...+...#",
            "#...#...#",
            "#...=...#",
            "#########"]
    b = make(rows, [unit("A", "pcs", (2, 2), RIFLE), unit("B", "npcs", (6, 2), PISTOL),
                    unit("C", "npcs", (6, 4), RIFLE), unit("D", "npcs", (2, 4), PISTOL)])
    enc = b.enc
    g = enc.grid

    def check(e):
        for u in e.units:
            got = R._legal.legal(e, u)
            assert got is not None and got == RS.legal_actions_py(e, u)
            O.observation_parts(e, u, e.units)  # fills the shared memo too
            assert R._legal.legal(e, u) == got

    def ranged(e):
        return {d.target for d in R._legal.legal(e, e.unit("A")) if d.action == "ranged_attack"}

    check(enc)
    closed = ranged(enc)
    twin = enc.clone()  # shares the map's geometry, not its doors
    twin.grid.open_doors.add(g.index(4, 2))
    check(twin)
    assert ranged(twin) != closed
    check(enc)
    assert ranged(enc) == closed  # the original's door is still closed
    twin.grid.broken.add(g.index(4, 4))  # the window
    check(twin)
    twin.grid.open_doors.clear()
    check(twin)
    assert "saga_sight" in g._geometry.memo and len(g._geometry.memo["saga_sight"]) >= 2


def test_move_masks_match_the_python_threat_map_and_enemy_squares():
    """`_legal.move_masks` (what a move or a run reads instead of building `_threats`) flags exactly the squares of
    `_threats` and of `_enemy_squares`, for every unit of random and perturbed states."""
    seen_threat = seen_none = 0
    for seed in range(2):
        rng = random.Random(seed)
        for enc in _states(seed, 600):
            for e in (enc, _perturbed(enc, rng)):
                size = e.grid.width * e.grid.height
                for u in e.units:
                    got = R._legal.move_masks(e, u)
                    assert got is not None
                    blocked, danger, any_danger = got
                    threats = RS._threats(e, u)
                    assert {j for j in range(size) if danger[j]} == {j for j, v in threats.items() if v}
                    assert {j for j in range(size) if blocked[j]} == set(RS._enemy_squares(e, u))
                    assert any_danger == bool(threats)
                    seen_threat += bool(threats)
                    seen_none += not threats
    assert seen_threat > 500 and seen_none > 500
