"""`check_unit`: a unit read from a saved state (or corrected by the GM) that the rules cannot play is refused, naming
the field; every unit of real play passes."""
from __future__ import annotations

import copy
import random

import pytest

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.errors import InputError
from engine.core.generate import random_encounter
from engine.core.policy import RandomPolicy
from engine.core.state import Encounter
from engine.policies import rule_policy
from engine.rulesets import get_ruleset

RS = get_ruleset("saga")


def _played_states(n: int):
    """Encounters at every decision point of `n` battles, random and heuristic play."""
    for ep in range(n):
        enc = random_encounter(RS, random.Random(ep), 12, 12, sizes=(1, 4))
        b = Battle(enc, RS, SeededDice(ep))
        b.start()
        p = RandomPolicy(ep) if ep % 2 else rule_policy("heuristic", ep)
        while not b.over:
            yield enc
            b.step(p.choose(b))
        yield enc


def test_every_unit_of_real_play_passes_before_and_after_a_save():
    checked = 0
    for enc in _played_states(40):
        again = Encounter.from_dict(enc.to_dict())
        for e in (enc, again):
            for n, u in enumerate(e.units):
                RS.check_unit(u, f"units[{n}]")
                checked += 1
    assert checked > 5_000


def _unit():
    enc = random_encounter(RS, random.Random(3), 12, 12, sizes=(2, 2))
    Battle(enc, RS, SeededDice(0)).start()
    return Encounter.from_dict(enc.to_dict()).units[0]


CORRUPTIONS = [  # (the field the error must name, what breaks it)
    ("state.ct", lambda u: u.state.__setitem__("ct", 99)),
    ("state.ct", lambda u: u.state.__setitem__("ct", -1)),
    ("state", lambda u: u.state.pop("prone")),
    ("state", lambda u: u.state.__setitem__("flying", True)),
    ("state.prone", lambda u: u.state.__setitem__("prone", 1)),
    ("state.grabbing", lambda u: u.state.__setitem__("grabbing", "Kira")),
    ("state.hands", lambda u: u.state.__setitem__("hands", [len(u.stats["weapons"])])),
    ("state.hands", lambda u: u.state.__setitem__("hands", [0, 0])),
    ("state.modes", lambda u: u.state.__setitem__("modes", [0] * (len(u.stats["weapons"]) + 1))),
    ("state.lost", lambda u: u.state.__setitem__("lost", [-1])),
    ("state.recover", lambda u: u.state.__setitem__("recover", 3)),
    ("state.active_items", lambda u: u.state.__setitem__("active_items", [9])),
    ("hp", lambda u: setattr(u, "hp", u.max_hp + 1)),
    ("stats", lambda u: u.stats.__setitem__("speed", "fast")),
]


@pytest.mark.parametrize("field, corrupt", CORRUPTIONS, ids=[f"{f}-{n}" for n, (f, _) in enumerate(CORRUPTIONS)])
def test_a_unit_the_rules_cannot_play_is_refused_naming_the_field(field, corrupt):
    u = _unit()
    u.stats = copy.deepcopy(u.stats)
    RS.check_unit(u, "units[0]")
    corrupt(u)
    with pytest.raises(InputError) as e:
        RS.check_unit(u, "units[0]")
    assert e.value.where == f"units[0].{field}", str(e.value)
