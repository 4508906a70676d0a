"""Recorded battles: what the rules did, frozen as data that the code must reproduce.

A case is a battle fixed by its encounter, seed and players (the heuristic, or a seeded random walk); random
encounters come in several widths, half of them with unit tactics (fleeing when wounded, a target preference).
Replaying a case takes the same decisions; at every decision point a digest covers what the rules and the policy
layers compute there:

- the actor's legal decisions in order and the estimate of each (its numbers unrounded); the legal decisions every
  other active unit would have in this state (its position and conditions, the actor's budget);
- the reasons given for decisions outside the legal set: a catalogue action at a random target, square or option,
  and decisions of the action codec's slots;
- the observation of every unit (`ObservationEncoder(rs, 4, W, H)`, W x H the map at least 16 x 16) and the actor's
  through a small window (`ObservationEncoder(rs, 2, 12, 12, radius=3)`);
- the decision the players take, its events, the state it leads to (`Encounter.to_dict`'s fields) and the dice's
  state;
- at every `SAMPLE`-th point: every unit's `unit_features` and every ordered pair's `threat_estimate` as numbers, up
  to three other legal decisions applied to copies with seeded dice (events, state, dice, the next legal
  decisions), and the heuristic's `explain` (every legal decision's score, rounded to 1e-9) whoever plays;
- at every other of those: the ruleset's own figures where it has some (`FIGURES`: Saga's combat arithmetic for
  every unit with every weapon on every target, its attack estimates with the actor and an enemy on other squares,
  its map of the attacks of opportunity each unit would provoke).

A changed rule changes a digest, and the replay names the case and the first decision point that differs.

    python -m tests.recorded.record saga      # rewrite tests/recorded/saga.jsonl.gz (after a deliberate change)
    python -m tests.recorded.record starfinder
    python -m tests.recorded.record swurpg
    python -m tests.recorded.record starship
    python -m tests.recorded.record rise

Recordings replace the frozen copies of old code that the fast paths were once checked against: the code as it is
must give what the rules gave when the recording was made (`git log tests/recorded/` says when and why).
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.errors import IllegalAction
from engine.core.generate import random_encounter
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import get_ruleset

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MAX_STEPS = 400
PLAYERS = ("heuristic-heuristic", "heuristic-random", "random-random")
WIDTHS = (16, 10, 12, 14)
PREFER = ("nearest", "weakest", "strongest", "most_dangerous", "wounded")
SAMPLE = 6          # the costlier parts of a digest at every SAMPLE-th decision point
CODEC_PROBES = 6    # codec slots tried as decisions per decision point


def cases(rid: str) -> Iterator[dict]:
    """The recorded cases of a ruleset: its shipped encounters and random ones, each under every pairing."""
    files = sorted((ROOT / "configs" / "encounters" / rid).glob("*.yaml"))
    for f in files:
        for seed in range(3):
            for players in PLAYERS:
                yield {"encounter": f"configs/encounters/{rid}/{f.name}", "seed": seed, "players": players}
    for seed in range(24):
        yield {"encounter": f"random {WIDTHS[seed % len(WIDTHS)]}x16", "seed": 1000 + seed,
               "players": PLAYERS[seed % len(PLAYERS)], "unit_tactics": seed % 6 >= 3}


@functools.lru_cache(maxsize=None)
def _load(path: str):
    return load_encounter(ROOT / path)


def _start(rid: str, case: dict) -> Battle:
    rs = get_ruleset(rid)
    if case["encounter"].startswith("random"):
        w, h = map(int, case["encounter"].split()[1].split("x"))
        enc = random_encounter(rs, random.Random(case["seed"]), w, h, sizes=(1, 4))
        if case.get("unit_tactics"):
            rng = random.Random(-case["seed"])
            for u in enc.units:
                r = rng.random()
                if r < 0.3:
                    u.tactics = {"flee_below": rng.choice([0.3, 0.5, 0.9])}
                elif r < 0.6:
                    u.tactics = {"prefer_targets": rng.choice(PREFER)}
    else:
        enc = _load(case["encounter"]).clone()
    b = Battle(enc, rs, SeededDice(case["seed"]))
    b.start()
    return b


def _probe(b: Battle, rng: random.Random) -> Decision:
    """A decision the actor might try: a catalogue action at a random target, square or option."""
    spec = rng.choice(list(b.ruleset.catalogue.values()))
    units = b.enc.units
    return Decision(spec.key,
                    rng.randrange(len(units)) if spec.target not in ("none", "square") else None,
                    (rng.randrange(b.enc.grid.width), rng.randrange(b.enc.grid.height))
                    if spec.target == "square" else None,
                    rng.randrange(spec.options) if spec.target == "none" else 0)


@functools.lru_cache(maxsize=None)
def _encoders(rid: str, w: int, h: int):
    """The observation encoders (a map's size, a small window) and the action codec of a map's size."""
    from envs.codec import ActionCodec
    from envs.observation import ObservationEncoder
    rs = get_ruleset(rid)
    w, h = max(16, w), max(16, h)
    return (ObservationEncoder(rs, 4, w, h), ObservationEncoder(rs, 2, 12, 12, radius=3),
            ActionCodec(rs, 4, w, h, radius=4))


class _State:
    """What `Encounter.to_dict` holds, as text, for a digest at every step: the stat blocks and unit tactics (replaced,
    never changed in place, during play) written once per object, the rest each time."""

    def __init__(self):
        self._blocks: dict[int, tuple[object, str]] = {}  # id -> (the object, kept alive; its JSON)

    def _block(self, obj) -> str:
        got = self._blocks.get(id(obj))
        if got is None:
            got = self._blocks[id(obj)] = (obj, json.dumps(obj, sort_keys=True))
        return got[1]

    def __call__(self, enc) -> str:
        g, block = enc.grid, self._block
        units = [(u.id, u.name, u.side, u.template, u.pos, u.hp, u.max_hp, u.down, u.dead, block(u.stats), u.state,
                  block(u.tactics)) for u in enc.units]
        return json.dumps([enc.ruleset, enc.name, g.rows, g.legend, g.metric, sorted(g.open_doors), sorted(g.broken),
                           units, enc.round, enc.order, sorted(enc.initiative.items()), enc.turn, enc.phase_index,
                           sorted((k, [d.to_dict() for d in v]) for k, v in enc.pending.items()), enc.budget, enc.flags,
                           enc.extra, enc.round_limit, enc.winner], sort_keys=True, default=str)


class _Texts(dict):
    """Each decision as JSON (`Decision.to_dict`), made once: legal lists are long and their decisions recur."""

    def __missing__(self, d) -> str:
        got = self[d] = json.dumps(d.to_dict(), separators=(",", ":"))
        return got

    def of(self, decisions) -> bytes:
        return ",".join(map(self.__getitem__, decisions)).encode()


def _events(events) -> str:
    return json.dumps([e.to_dict() for e in events], sort_keys=True, default=str)


def _dice(b: Battle) -> bytes:
    return hash(b.dice.getstate()[1]).to_bytes(8, "little", signed=True)


def _what_ifs(b: Battle, legal: list, rng: random.Random, state: _State, texts: _Texts, h) -> None:
    """Other legal decisions applied to copies of the state with seeded dice: their events, states, next decisions."""
    moves = [d for d in legal if b.ruleset.catalogue[d.action].target == "square"]
    others = [d for d in legal if b.ruleset.catalogue[d.action].target != "square"]
    for d in rng.sample(moves, min(1, len(moves))) + rng.sample(others, min(2, len(others))):
        alt = Battle(b.enc.clone(), b.ruleset, SeededDice(rng.randrange(1 << 30)))
        h.update(_events(alt.step(d)).encode())
        h.update(state(alt.enc).encode())
        h.update(_dice(alt))
        if not alt.over:
            h.update(texts.of(alt.legal()))


def _saga_figures(b: Battle, rng: random.Random, h) -> None:
    """Saga's combat arithmetic for every unit (with every weapon, on every target), its attack estimates from other
    squares, and its map of attacks of opportunity for every unit."""
    from engine.rulesets.saga import combat as C

    rs, enc = b.ruleset, b.enc
    units = enc.units
    out = []
    for u in units:
        out.append([C.reflex(u, melee=m) for m in (None, True, False)] + [C.reflex(u, with_armor=False)])
        out.append([C.aid_bonus(u, t) for t in units])
        for w in [None, *range(len(u.stats["weapons"]))]:
            out.append([C.attack_bonus(u, w, t) for t in (None, *units)])
            for aimed in (False, True):
                expr = C.damage_expr(u, w, aimed)
                out.append((repr(expr), [C.p_at_least(expr, hp) for hp in range(-1, expr.maximum + 2)]))
        out.append(sorted(rs._threats(enc, u).items()))
    twin = enc.clone()  # the actor and each enemy put on other squares (the heuristic's question), in a copy
    g, a = twin.grid, twin.actor
    open_sq = [g.xy(i) for i in range(g.width * g.height) if g.passable(i)]
    for t in twin.enemies(a):
        oa, ot = a.pos, t.pos
        a.pos, t.pos = rng.choice(open_sq), rng.choice(open_sq)
        twin.version += 1
        for n in range(len(a.stats["weapons"])):
            for aimed in (None, True, False):
                e = rs.attack_estimate(twin, a, t, n, a.pos, aimed=aimed)
                out.append((e.hit_chance, e.expected_damage, e.kill_chance, e.notes))
        out.append(rs.threat_estimate(twin, a, t) + rs.threat_estimate(twin, t, a))
        a.pos, t.pos = oa, ot
    h.update(repr(out).encode())


FIGURES: dict[str, Callable] = {"saga": _saga_figures}


def play(rid: str, case: dict, seen: Counter | None = None) -> Iterator[tuple[str, str]]:
    """(decision, digest) of each decision point of a case, in order; `seen` counts the decisions' actions and the
    events' kinds."""
    b = _start(rid, case)
    rs, enc = b.ruleset, b.enc
    big, small, codec = _encoders(rid, enc.grid.width, enc.grid.height)
    figures = FIGURES.get(rid)
    rng = random.Random(case["seed"])                   # the random player's decisions and the catalogue probes
    look = random.Random(f"look {case['seed']}")        # everything else drawn for the digest
    heuristic = HeuristicPolicy(case["seed"])
    explainer = HeuristicPolicy(case["seed"] + 2)
    state, texts = _State(), _Texts()
    first, second = case["players"].split("-")
    for k in range(MAX_STEPS):
        if b.over:
            return
        actor = enc.actor
        legal = b.legal()
        h = hashlib.sha1()
        h.update(texts.of(legal))
        estimates = [rs.estimate(enc, actor, d) for d in legal]
        h.update(repr([(e.hit_chance, e.expected_damage, e.kill_chance, e.notes) for e in estimates]).encode())
        for u in enc.units:
            if u.active and u is not actor:
                h.update(texts.of(rs.legal_actions(enc, u)))
        probe = _probe(b, rng)
        probes = [probe] + [codec.decode(i, enc, actor) for i in look.sample(range(codec.n), CODEC_PROBES)]
        legal_set = set(legal)
        for d in probes:
            if d is not None and d not in legal_set:
                h.update(rs.why_illegal(enc, actor, d).encode())
        for u in enc.units:
            h.update(big.encode(enc, u).tobytes())
        h.update(small.encode(enc, actor).tobytes())
        if k % SAMPLE == 0:
            for u in enc.units:
                h.update(repr(rs.unit_features(enc, u)).encode())
                h.update(repr([rs.threat_estimate(enc, u, t) for t in enc.units if t is not u]).encode())
            _what_ifs(b, legal, look, state, texts, h)
            h.update(repr([(texts[d], round(s, 9)) for d, s in explainer.explain(b)]).encode())
            if figures is not None and k % (2 * SAMPLE) == 0:
                figures(b, look, h)
        player = first if actor.side == rs.sides[0] else second
        d = heuristic.choose(b) if player == "heuristic" else rng.choice(legal)
        try:
            events = b.step(d)
        except IllegalAction as e:  # a recording of a player that broke the rules would be worthless
            raise AssertionError(f"{case}: the {player} player chose an illegal {d}: {e}") from None
        h.update(_events(events).encode())
        h.update(state(enc).encode())
        h.update(_dice(b))
        if b.over or k == MAX_STEPS - 1:  # the whole state once, should `_State` miss a field
            h.update(json.dumps(enc.to_dict(), sort_keys=True, default=str).encode())
        if seen is not None:
            seen[d.action] += 1
            seen.update(f"event {e.kind}" for e in events)
        yield json.dumps(d.to_dict(), separators=(",", ":")), h.hexdigest()[:10]


def path(rid: str) -> Path:
    return HERE / f"{rid}.jsonl.gz"


def record(rid: str) -> int:
    """Write the recording of a ruleset; returns the number of decision points."""
    n = 0
    with gzip.open(path(rid), "wt", compresslevel=9) as f:
        for case in cases(rid):
            steps = [f"{d} {digest}" for d, digest in play(rid, case)]
            n += len(steps)
            f.write(json.dumps({**case, "steps": steps}, separators=(",", ":")) + "\n")
    return n


def load(rid: str) -> list[dict]:
    with gzip.open(path(rid), "rt") as f:
        return [json.loads(line) for line in f]


if __name__ == "__main__":
    for rid in sys.argv[1:] or ["saga"]:
        print(f"{rid}: {record(rid)} decision points recorded in {path(rid).relative_to(ROOT)}")
