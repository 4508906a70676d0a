"""Units made from a template as it is share its validated stat block (training makes units every episode), so
play must never change a stat block in place: whole battles leave every template's block as loaded."""
import copy
import random

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.rulesets import get_ruleset
from engine.rulesets.saga import stats as S
from tests.battle_walk import random_walk

RS = get_ruleset("saga")


def test_units_share_the_template_block_and_battles_leave_it_unchanged():
    names = sorted(S.templates())
    before = {n: copy.deepcopy(S._template_stats(n)) for n in names}
    shared = 0
    for seed in range(12):
        enc = random_encounter(RS, random.Random(seed), 12, 12, sizes=(3, 4))
        shared += sum(u.stats is S._template_stats(u.template) for u in enc.units)
        b = Battle(enc, RS, SeededDice(seed))
        b.start()
        for _ in random_walk(b, random.Random(seed), 400):
            pass
    assert shared > 50
    assert {n: S._template_stats(n) for n in names} == before
