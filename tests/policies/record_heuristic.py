"""Record the heuristic's Saga play as hashes, to check that a change meant to leave its play alone does.

    python -m tests.policies.record_heuristic OUT.json      # record
    python -m tests.policies.record_heuristic OUT.json --compare BEFORE.json

Plays seeded Saga battles (random encounters of several sizes, mirrored or not, and the shipped encounter files)
heuristic against heuristic, heuristic against random in both seats, and hashes each battle's decisions and events;
for some battles also the raw scores `explain` gives at each decision (every square, the tie-breaking jitter
included). Two recordings of the same rules must agree battle by battle. To keep the rules fixed while they change
elsewhere, run it on a git worktree of a fixed commit (PYTHONPATH=<worktree>) before and after applying the change
there.

A battle's key is `name/matchup/py`. Recordings made while the heuristic also had a C kernel hold `.../c` keys too
(the same battles on that path, and the `py` ones on a third of them only): `--compare` leaves the `c` keys out, and
compares the battles BEFORE holds (a battle only the new recording has is counted, not compared).

The committed check is tests/recorded (the heuristic's choices in its recorded battles, its `explain` scores at
sampled decision points); this tool plays many more battles, for a change that needs more.
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.core.policy import RandomPolicy
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import get_ruleset

ROOT = Path(__file__).resolve().parents[2]
PREFER = ("nearest", "weakest", "strongest", "wounded", "most_dangerous")
SIZES = [(12, 12, (1, 3), True), (16, 16, (2, 4), True), (10, 8, (1, 2), False), (14, 10, (1, 4), False)]


def _battle(enc, seed: int, pcs, npcs, explainer: HeuristicPolicy | None, digest) -> int:
    rs = get_ruleset("saga")
    b = Battle(enc, rs, SeededDice(seed))
    digest.update(repr([e.kind for e in b.start()]).encode())
    policies = {"pcs": pcs, "npcs": npcs}
    steps = 0
    while not b.over and steps < 600:
        if explainer is not None and steps < 25:
            digest.update(repr(explainer.explain(b)).encode())
        d = policies[b.actor.side].choose(b)
        digest.update(repr((b.actor.id, tuple(d))).encode())
        for e in b.step(d):
            digest.update(repr((e.kind, e.actor, e.target, sorted(e.data.items()))).encode())
        steps += 1
    digest.update(repr((b.enc.winner, steps)).encode())
    return steps


def _with_tactics(enc, k: int):
    """Per-unit tactics on some of the random encounters: fleeing when wounded, or a target preference."""
    for u in enc.units:
        if k % 4 == 1 and u.side == "npcs":
            u.tactics = {"flee_below": 0.5}
        elif k % 4 == 2 and u.side == "pcs":
            u.tactics = {"prefer_targets": PREFER[k % len(PREFER)]}
    return enc


def battles():
    """(name, encounter factory, seed, matchup) of every recorded battle."""
    rs = get_ruleset("saga")
    out = []
    for k in range(200):
        w, h, sizes, mirrored = SIZES[k % len(SIZES)]
        out.append((f"random{k}", lambda k=k, w=w, h=h, s=sizes, m=mirrored: _with_tactics(random_encounter(
            rs, random.Random(k), w, h, sizes=s, mirrored=m), k), k, ("hh", "hr", "rh")[k % 3]))
    for path in sorted((ROOT / "configs/encounters/saga").glob("*.yaml")):
        enc = load_encounter(path)
        for seed in range(8):
            out.append((f"{path.stem}{seed}", enc.clone, seed, ("hh", "hr", "rh")[seed % 3]))
    return out


def record() -> dict[str, str]:
    out, steps = {}, 0
    for n, (name, make, seed, match) in enumerate(battles()):
        pcs = HeuristicPolicy(seed) if match[0] == "h" else RandomPolicy(seed)
        npcs = HeuristicPolicy(seed + 1) if match[1] == "h" else RandomPolicy(seed + 1)
        explainer = HeuristicPolicy(seed + 2) if n % 10 == 0 else None
        digest = hashlib.sha256()
        steps += _battle(make(), seed, pcs, npcs, explainer, digest)
        out[f"{name}/{match}/py"] = digest.hexdigest()
    print(f"{len(out)} battles, {steps} decisions")
    return out


def compare(before: dict[str, str], got: dict[str, str]) -> tuple[list[str], int, list[str]]:
    """(the battles of `before` whose digest `got` does not repeat, missing ones included; how many battles of
    `before` were compared; the battles only `got` holds), the `c` keys of an older recording (the C kernel's path)
    left out."""
    before = {k: v for k, v in before.items() if not k.endswith("/c")}
    differ = sorted(k for k in before if before[k] != got.get(k))
    return differ, len(before), sorted(got.keys() - before.keys())


def main(argv: list[str]) -> int:
    got = record()
    Path(argv[0]).write_text(json.dumps(got, indent=0, sort_keys=True))
    if len(argv) > 2 and argv[1] == "--compare":
        differ, compared, new = compare(json.loads(Path(argv[2]).read_text()), got)
        print(f"{len(differ)} of {compared} differ" + (": " + ", ".join(differ[:20]) if differ else "")
              + (f" ({len(new)} not in {argv[2]}, not compared)" if new else ""))
        return 1 if differ or not compared else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
