"""legal_actions is the one source of legality: everything in it applies, everything else is refused
with a specific reason; every Saga encounter file loads and plays to the end with random decisions."""
import random
from pathlib import Path

import pytest

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.errors import IllegalAction
from engine.core.policy import RandomPolicy
from engine.rulesets import get_ruleset

RS = get_ruleset("saga")
ENCOUNTERS = sorted((Path(__file__).parents[2] / "configs" / "encounters" / "saga").glob("*.yaml"))


def test_there_are_the_encounters_we_ship():
    names = {p.stem for p in ENCOUNTERS}
    assert {"cantina_ambush", "droid_factory", "canyon_beast", "skirmish_4v4"} <= names


@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: p.stem)
def test_encounter_plays_to_the_end(path):
    for seed in range(3):
        enc = load_encounter(path)
        b = Battle(enc, RS, SeededDice(seed))
        b.start()
        pol = RandomPolicy(seed)
        for _ in range(20000):
            if b.over:
                break
            b.step(pol.choose(b))
        assert b.over and b.enc.winner is not None


def _candidates(b: Battle, rng: random.Random) -> list[Decision]:
    enc, a = b.enc, b.actor
    g = enc.grid
    squares = [a.pos, (a.pos[0] + 1, a.pos[1]), (a.pos[0], a.pos[1] + 2), (-1, 0), (g.width, g.height)]
    squares += [(rng.randrange(g.width), rng.randrange(g.height)) for _ in range(4)]
    out = []
    for key, spec in RS.catalogue.items():
        if key == "end_turn":
            continue
        if spec.target in ("enemy", "unit", "ally"):
            out += [Decision(key, t) for t in range(len(enc.units))] + [Decision(key), Decision(key, 99)]
        elif spec.target == "square":
            out += [Decision(key, square=sq) for sq in squares] + [Decision(key)]
        else:
            out += [Decision(key, option=o) for o in range(spec.options + 1)]
    return out


@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: p.stem)
def test_legal_applies_and_illegal_is_refused_with_a_reason(path):
    rng = random.Random(path.stem)
    generic = 0
    checked = 0
    for seed in range(2):
        b = Battle(load_encounter(path), RS, SeededDice(seed))
        moves = ("move", "run", "withdraw")
        b.start()
        pol = RandomPolicy(seed)
        n = 0
        while not b.over and n < 240:
            if n % 20 == 0:
                legal = b.legal()
                assert END in legal and len(set(legal)) == len(legal)
                walks = [d for d in legal if d.action in moves]
                for d in [d for d in legal if d.action not in moves] + rng.sample(walks, min(6, len(walks))):
                    c = Battle(b.enc.clone(), RS, SeededDice(n))
                    c.step(d)  # must not raise
                legal_set = set(legal)
                for d in _candidates(b, rng):
                    if d in legal_set:
                        continue
                    v = b.enc.version
                    with pytest.raises(IllegalAction) as e:
                        b.step(d)
                    assert b.enc.version == v  # refused without a state change
                    reason = str(e.value)
                    assert len(reason) > 15, reason
                    checked += 1
                    generic += "right now" in reason
            b.step(pol.choose(b))
            n += 1
    assert checked > 100
    assert generic == 0, "some refusals fell back to the generic reason"
