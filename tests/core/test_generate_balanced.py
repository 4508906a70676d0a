"""Balanced sides (the generator's `balance`): each side's own stat blocks, a fair fight by the sides' strength."""
from __future__ import annotations

import math
import random

import pytest

from engine.core.balance import imbalance, strength, template_damage, template_hp
from engine.core.generate import random_encounter
from engine.rulesets import available, get_ruleset

RULESETS = sorted(r for r, rs in available().items()
                  if type(rs).__module__.startswith("engine.rulesets."))  # not the tests' toy rulesets
VARIED = dict(width=16, height=16, min_width=8, min_height=8, sizes=(1, 4), mirrored=False,
              layouts=("scatter", "open", "rooms", "corridors"), wounded=0.2)


def _sides(rs, enc):
    return [[(u.template, u.hp / u.max_hp) for u in enc.units if u.side == side] for side in rs.sides]


@pytest.mark.parametrize("rid", RULESETS)
def test_every_template_deals_damage_and_a_stronger_side_measures_stronger(rid):
    rs = get_ruleset(rid)
    names = sorted(rs.templates())
    for a in names:
        assert max(template_damage(rs, a, b) for b in names) > 0, f"{rid}: {a} can hurt no template"
    one = [(names[0], 1.0)]
    assert strength(rs, one * 2, [names[0]]) == pytest.approx(4 * strength(rs, one, [names[0]]))
    assert strength(rs, [(names[0], 0.5)], [names[0]]) == pytest.approx(strength(rs, one, [names[0]]) / 2)
    assert imbalance(rs, one, one) == 0
    assert strength(rs, one, []) == 0.0  # no enemies: nothing to measure against (no division by zero)
    assert imbalance(rs, one * 2, one) == pytest.approx(math.log(4)) == imbalance(rs, one, one * 2)


@pytest.mark.parametrize("rid", RULESETS)
def test_balanced_sides_are_within_the_ratio_where_free_draws_are_not(rid):
    rs = get_ruleset(rid)
    limit = math.log(1.1)
    free = [imbalance(rs, *_sides(rs, random_encounter(rs, random.Random(s), **VARIED))) for s in range(60)]
    fair = [imbalance(rs, *_sides(rs, random_encounter(rs, random.Random(s), balance=1.1, **VARIED)))
            for s in range(60)]
    assert sum(g <= limit for g in fair) >= 55
    assert sum(g <= limit for g in free) <= 40
    assert sorted(fair)[len(fair) // 2] < sorted(free)[len(free) // 2] / 2


def test_balanced_sides_keep_their_own_templates_and_share_their_wounds_rank_by_rank():
    rs = get_ruleset("starship")
    mixed = wounded = 0
    for seed in range(30):
        enc = random_encounter(rs, random.Random(seed), **{**VARIED, "wounded": 0.5}, balance=1.1)
        a, b = _sides(rs, enc)
        assert len(a) == len(b)
        mixed += sorted(t for t, _ in a) != sorted(t for t, _ in b)
        for (_, sa), (_, sb) in zip(a, b):
            assert sa == pytest.approx(sb, abs=0.05)  # the same share, rounded to each one's whole hit points
            wounded += sa < 1
    assert mixed >= 15 and wounded > 0


def test_balance_is_deterministic_changes_the_draw_and_needs_unmirrored_sides():
    """(That the generator without `balance` draws as before is tests/training/test_config.py's defaults test.)"""
    rs = get_ruleset("rise")
    one = random_encounter(rs, random.Random(7), balance=1.1, **VARIED).to_dict()
    assert one == random_encounter(rs, random.Random(7), balance=1.1, **VARIED).to_dict()
    assert random_encounter(rs, random.Random(7), **VARIED).to_dict() != one
    with pytest.raises(ValueError, match="balance needs mirrored off"):
        random_encounter(rs, random.Random(7), balance=1.1)
    assert template_hp(rs, "brute") > template_hp(rs, "goblin")


def test_uneven_balanced_sides_draw_the_second_sides_number_too():
    """With uneven sides a 4-against-1 draw cannot be made fair by stat blocks alone: the redraws draw the number of
    the second side's units as well, so the sides still come out within the ratio, by fewer or more units."""
    rs = get_ruleset("swurpg")
    limit = math.log(1.1)
    fair, counts = 0, set()
    for s in range(40):
        enc = random_encounter(rs, random.Random(s), **{**VARIED, "wounded": 0.3}, uneven=True, balance=1.1)
        a, b = _sides(rs, enc)
        counts.add((len(a), len(b)))
        fair += imbalance(rs, a, b) <= limit
    assert fair >= 30 and any(x != y for x, y in counts)  # 16 of 40 when only the stat blocks were redrawn
