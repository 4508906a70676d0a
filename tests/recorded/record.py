"""Recorded battles: what the rules did, frozen as data that the code must reproduce.

A case is a battle fixed by its encounter, seed and players (the heuristic, or a seeded random walk). Replaying a
case takes the same decisions; at every decision point a digest covers everything the rules and the policy layers
compute there: the legal decisions in order, the estimate of each, the reason given for a decision outside them,
the observation of the actor, the decision the players take, and the events and state it leads to. A changed rule
changes a digest, and the replay names the case and the first decision point that differs.

    python -m tests.recorded.record saga      # rewrite tests/recorded/saga.jsonl.gz (after a deliberate change)

Recordings replace the frozen copies of old code that the fast paths were once checked against: the code as it is
must give what the rules gave when the recording was made (`git log tests/recorded/` says when and why).
"""
from __future__ import annotations

import gzip
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Iterator

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


def cases(rid: str) -> Iterator[dict]:
    """The recorded cases of a ruleset: its shipped encounters and random ones, each under every pairing."""
    files = sorted((ROOT / "configs" / "encounters" / rid).glob("*.yaml"))
    for f in files:
        for seed in range(3):
            for players in PLAYERS:
                yield {"encounter": f"configs/encounters/{rid}/{f.name}", "seed": seed, "players": players}
    for seed in range(24):
        yield {"encounter": "random 16x16", "seed": 1000 + seed, "players": PLAYERS[seed % len(PLAYERS)]}


def _start(rid: str, case: dict) -> Battle:
    rs = get_ruleset(rid)
    if case["encounter"].startswith("random"):
        enc = random_encounter(rs, random.Random(case["seed"]), 16, 16, sizes=(1, 4))
    else:
        enc = load_encounter(ROOT / case["encounter"])
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


def _encoder(rid: str):
    from envs.observation import ObservationEncoder
    return ObservationEncoder(get_ruleset(rid), 4, 16, 16)


def play(rid: str, case: dict) -> Iterator[tuple[str, str]]:
    """(decision, digest) of each decision point of a case, in order."""
    b = _start(rid, case)
    rs, enc = b.ruleset, b.enc
    encoder = _encoder(rid)
    rng = random.Random(case["seed"])
    heuristic = HeuristicPolicy(case["seed"])
    first, second = case["players"].split("-")
    for _ in range(MAX_STEPS):
        if b.over:
            return
        actor = enc.actor
        legal = b.legal()
        h = hashlib.sha1()
        h.update(repr(legal).encode())
        for d in legal:
            h.update(repr(rs.estimate(enc, actor, d).to_dict()).encode())
        probe = _probe(b, rng)
        if probe not in legal:
            h.update(rs.why_illegal(enc, actor, probe).encode())
        if enc.grid.width <= 16 and enc.grid.height <= 16:
            h.update(np.ascontiguousarray(encoder.encode(enc, actor)).tobytes())
        player = first if actor.side == rs.sides[0] else second
        d = heuristic.choose(b) if player == "heuristic" else rng.choice(legal)
        try:
            events = b.step(d)
        except IllegalAction as e:  # a recording of a player that broke the rules would be worthless
            raise AssertionError(f"{case}: the {player} player chose an illegal {d}: {e}") from None
        h.update(json.dumps([e.to_dict() for e in events], sort_keys=True, default=str).encode())
        h.update(json.dumps(enc.to_dict(), sort_keys=True, default=str).encode())
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
