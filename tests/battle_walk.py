"""Random play through a battle, for the tests that compare two implementations on many battle states."""
from __future__ import annotations

import random
from typing import Iterator

from engine.core.battle import Battle


def random_walk(b: Battle, rng: random.Random, max_steps: int | None = None, redraw_end: float = 0.7
                ) -> Iterator[None]:
    """Yield before each decision of the started battle `b`, then play a random legal decision drawn from `rng`.

    An end of turn drawn while other decisions are legal is drawn again with probability `redraw_end`, so units
    act more (aim, charge, grab, go prone) before their turns end. Stops when the battle is over or after
    `max_steps` decisions. Whatever the caller draws from `rng` between two yields comes before the next
    decision's draws, so a seed gives the same states whatever the caller does with them."""
    steps = 0
    while not b.over and (max_steps is None or steps < max_steps):
        yield
        legal = b.legal()
        d = rng.choice(legal)
        if d.action == "end_turn" and len(legal) > 1 and rng.random() < redraw_end:
            d = rng.choice(legal)
        b.step(d)
        steps += 1
