"""A fixed training-env workload for speed work, without torch: 32 envs of `configs/saga/skirmish.yaml`'s env section,
opponents heuristic (90%) or random (10%) by a seeded draw per episode (the skirmish's first stage), random legal
learner actions. Run from the repository root:

    python -m tests.perf.env_workload [STEPS] [--time] [--instructions]

It prints a digest of everything the envs returned (observations, rewards, ends): a change meant to leave the battles
alone must leave it alone (100 steps: compare with the code before the change). `--time`: the CPU µs per env step (the
host's speed drifts by up to ~1.75x within minutes; alternate old and new code). `--instructions`: instructions per env
step, counted by callgrind (valgrind) over the steps of two runs (10 and 40 steps a env, the start-up cancelling out):
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


def _envs():
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

    env = yaml.safe_load((ROOT / "configs" / "saga" / "skirmish.yaml").read_text())["env"]
    g = env["generator"]
    kw = dict(ruleset="saga", generator={"width": g["width"], "height": g["height"], "sizes": tuple(g["sizes"]),
                                         "pools": None, "mirrored": g["mirrored"]},
              learner_side="random", max_per_side=env["max_per_side"], map_size=tuple(env["map_size"]),
              round_limit=env["round_limit"], rewards=env["rewards"])
    return [TacticsEnv(**kw, opponent=Mix(i)) for i in range(32)]


def run(steps: int) -> tuple[str, float]:
    """(digest, CPU µs per env step) of `steps` steps of each of the 32 envs."""
    import numpy as np

    envs = _envs()
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


def instructions() -> int:
    """Instructions per env step: callgrind's totals of 40 and 10 steps a env, their difference over 30 x 32 steps."""
    totals = []
    for steps in (10, 40):
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m",
                              "tests.perf.env_workload", str(steps)], cwd=ROOT, capture_output=True, text=True,
                             check=True, env={**os.environ, **QUIET})
        totals.append(int(re.search(r"Collected : (\d+)", out.stderr).group(1)))
    return (totals[1] - totals[0]) // (30 * 32)


def main(argv: list[str]) -> None:
    if "--instructions" in argv:
        print(f"instructions per env step: {instructions():,}")
        return
    steps = int(next((a for a in argv if a.isdigit()), "100"))
    digest, us = run(steps)
    print("digest", digest)
    if "--time" in argv:
        print(f"{us:.1f} us CPU per env step")


if __name__ == "__main__":
    main(sys.argv[1:])
