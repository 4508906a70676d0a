"""A fixed training-env workload for speed work, without torch: 32 envs of `configs/<ruleset>/skirmish.yaml`'s env
section (Saga's unless `--ruleset` names another; its generator and observation prior), opponents heuristic (90%) or
random (10%) by a seeded draw per episode (the skirmish's first stage), random legal learner actions. Run from the
repository root:

    python -m tests.perf.env_workload [STEPS] [--ruleset R] [--time] [--instructions]

It prints a digest of everything the envs returned (observations, rewards, ends): a change meant to leave the battles
alone must leave it alone (100 steps: compare with the code before the change). `--time`: the CPU µs per env step (the
host's speed drifts by up to ~1.75x within minutes; alternate old and new code). `--instructions`: instructions per env
step, counted by callgrind (valgrind) over the steps of two runs (10 and 40 steps a env, 3 and 9 for a ruleset other
than Saga, whose steps cost more; the start-up cancelling out):
the same count for the same code whatever else the machine is doing, so small changes can be told apart (session 9).
The garbage collector is off while the envs step: where its full collections fall moves with any change, by more than
a small change saves (the env workers collect rarely, `agents/heap.py`).
"""
from __future__ import annotations

import gc
import hashlib
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# what else moves the count from run to run: str hashes, and the spinning of numpy's BLAS threads
QUIET = {"PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def _envs(ruleset: str):
    import yaml

    from engine.core.policy import RandomPolicy
    from engine.policies.heuristic import HeuristicPolicy
    from envs.tactics_env import TacticsEnv

    class Mix(RandomPolicy):
        """The heuristic or a random policy, drawn per episode."""

        def __init__(self, seed: int):
            self.draw = random.Random(seed)
            self.heuristic, self.random = HeuristicPolicy(seed), RandomPolicy(seed)
            self.now = self.heuristic

        def reset(self, seed: int | None = None) -> None:
            self.now = self.heuristic if self.draw.random() < 0.9 else self.random
            self.now.reset(seed)

        def choose(self, battle):
            return self.now.choose(battle)

    env = yaml.safe_load((ROOT / "configs" / ruleset / "skirmish.yaml").read_text())["env"]
    g = {"pools": None, **{k: tuple(v) if isinstance(v, list) else v for k, v in env["generator"].items()}}
    prior = env.get("prior", "none")
    kw = dict(ruleset=ruleset, generator=g, learner_side="random", max_per_side=env["max_per_side"],
              map_size=tuple(env["map_size"]), round_limit=env["round_limit"], rewards=env["rewards"],
              prior=None if prior == "none" else prior)
    return [TacticsEnv(**kw, opponent=Mix(i)) for i in range(32)]


def run(steps: int, ruleset: str = "saga") -> tuple[str, float]:
    """(digest, CPU µs per env step) of `steps` steps of each of the 32 envs."""
    import numpy as np

    envs = _envs(ruleset)
    h = hashlib.sha256()
    for i, e in enumerate(envs):
        h.update(e.reset(seed=i)[0].tobytes())
    rng = np.random.default_rng(0)
    gc.collect()
    gc.disable()  # full collections at allocation counts that move with any change would swamp small differences
    t0 = time.process_time()
    for _ in range(steps):
        for e in envs:
            legal = np.flatnonzero(e.action_masks())
            obs, r, term, trunc, _ = e.step(int(legal[rng.integers(len(legal))]))
            h.update(obs.tobytes())
            h.update(np.float64(r).tobytes() + bytes([term, trunc]))
            if term or trunc:
                h.update(e.reset()[0].tobytes())
    return h.hexdigest()[:16], (time.process_time() - t0) / max(1, steps * len(envs)) * 1e6


def instructions(ruleset: str = "saga") -> int:
    """Instructions per env step: callgrind's totals of two runs (40 and 10 steps a env; 9 and 3 for another
    ruleset), their difference over the steps between them."""
    totals = []
    few, many = (10, 40) if ruleset == "saga" else (3, 9)
    for steps in (few, many):
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m",
                              "tests.perf.env_workload", str(steps), "--ruleset", ruleset], cwd=ROOT,
                             capture_output=True, text=True, check=True, env={**os.environ, **QUIET})
        totals.append(int(re.search(r"Collected : (\d+)", out.stderr).group(1)))
    return (totals[1] - totals[0]) // ((many - few) * 32)


def main(argv: list[str]) -> None:
    ruleset = argv[argv.index("--ruleset") + 1] if "--ruleset" in argv else "saga"
    if "--instructions" in argv:
        print(f"instructions per env step: {instructions(ruleset):,}")
        return
    steps = int(next((a for a in argv if a.isdigit()), "100"))
    digest, us = run(steps, ruleset)
    print("digest", digest)
    if "--time" in argv:
        print(f"{us:.1f} us CPU per env step")


if __name__ == "__main__":
    main(sys.argv[1:])
