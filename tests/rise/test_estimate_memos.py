"""What Rise's estimates remember gives what computing afresh gives: a strike's estimate kept by the figures it depends
on (`estimates._FIGURES`), a creature's strikes kept by stat block, weapons in hand and grapple (`_STRIKES`), a pair's
best strikes by distance kept across views (`_ROWS`) and in a view's memo as the actor takes other squares, and the
movement phase's threat, which takes an enemy's strike from beside the creature once and leaves out a charge that
strike counts already (`RiseView.threat`), on the states of random battles (prone, grappling, wounded, fatigued,
disarmed creatures)."""
from __future__ import annotations

import random

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.rulesets import get_ruleset
from engine.rulesets.rise import estimates as E
from engine.rulesets.rise.tactics import RiseView
from tests.battle_walk import random_walk

RS = get_ruleset("rise")


def _states(n_battles: int, steps: int = 120):
    rng = random.Random(5)
    for k in range(n_battles):
        b = Battle(random_encounter(RS, random.Random(k), 12, 12, sizes=(2, 4)), RS, SeededDice(k))
        b.start()
        for _ in random_walk(b, rng, steps):
            yield b


def test_remembered_strikes_are_computed_ones():
    """With the memos warm from every state before, each strike's estimate and each creature's strikes are what
    empty memos give, and the warm memo did answer (entries kept from other states served)."""
    n = served = 0
    kept, warm_memo = E._FIGURES, {}
    try:
        for b in _states(6):
            enc = b.enc
            for a in enc.units:
                assert E._strikes_of(RS, a) == E._list_strikes(RS, a)
                for t in enc.units:
                    if t.side == a.side or a.down or t.down:
                        continue
                    for m, _, kinds in E._list_strikes(RS, a):
                        for kind, _, _ in kinds:
                            E._FIGURES = warm_memo
                            before = len(warm_memo)
                            warm = E.strike(enc, a, t, kind, m)
                            served += len(warm_memo) == before
                            E._FIGURES = {}
                            assert warm == E.strike(enc, a, t, kind, m), (a.name, t.name, kind, m)
                            n += 1
    finally:
        E._FIGURES = kept
    assert n > 2000 and served > n // 2, (n, served)


def _plain_estimate(enc, a, t, charge: bool = True) -> tuple[float, float]:
    """`threat_estimate` as its docstring defines it, with nothing remembered: the best of a's strikes that reach t
    with a line of effect, else (unless `charge` is False) the best melee strike a charge can end in, t within a's
    speed plus two squares by the map's distance."""
    if a.down or t.down:
        return 0.0, 0.0
    g = enc.grid
    best, melee = (0.0, 0.0), False
    for m, _, kinds in E._list_strikes(RS, a):
        for kind, far, _ in kinds:
            if g.distance(a.pos, t.pos) <= far and g.line_of_effect(a.pos, t.pos):
                melee = melee or kind == "strike"
                e = E.strike(enc, a, t, kind, m)
                if e.expected_damage > best[1]:
                    best = (e.hit_chance, e.expected_damage)
    if charge and not melee and not a.state["grapple"] and not a.state["prone"] \
            and g.distance(a.pos, t.pos) <= RS.speed(a) + 2:
        for m, _, kinds in E._list_strikes(RS, a):
            if kinds and kinds[0][0] == "strike":
                e = E.strike(enc, a, t, "strike", m)
                if e.expected_damage > best[1] and RS.charge_square(enc, a, t, kinds[0][1]) is not None:
                    best = (e.hit_chance, e.expected_damage)
    return best[0], min(best[1], float(t.hp) + 4)


def test_remembered_threat_estimates_are_computed_ones():
    """With `_ROWS` warm from every state before and a view's memo kept while the actor takes each key square, every
    threat estimate both ways between the actor and an enemy is the plain definition's, and `_ROWS` did answer."""
    tac = RS.tactics()
    n = served = 0
    for b in _states(8, steps=80):
        enc, a = b.enc, b.enc.actor
        if a is None or a.down:
            continue
        view, here = RiseView(tac, enc, a), a.pos
        g = enc.grid
        try:
            for pos in sorted(view.key_squares()):
                if not g.inside(*pos) or not g.passable(g.index(*pos)):
                    continue
                a.pos = pos
                for e in view.enemies:
                    before = len(E._ROWS)
                    assert view.threat_of(a, e) == _plain_estimate(enc, a, e), (pos, a.name, e.name)
                    assert view.threat_of(e, a) == _plain_estimate(enc, e, a), (pos, e.name, a.name)
                    assert E.threat_estimate(RS, enc, e, a, view._memo, charge=False) == \
                        _plain_estimate(enc, e, a, charge=False)
                    served += len(E._ROWS) == before
                    n += 1
        finally:
            a.pos = here
    assert n > 2000 and served > n // 2, (n, served)


def _plain_threat(view: RiseView, pos) -> float:
    """The movement phase's threat as its docstring defines it, with nothing remembered: per enemy, its best strike
    (a charge's included) from where it stands, or from the square beside pos towards it if its sprint gets there,
    whichever is worse."""
    enc, a, g = view.enc, view.a, view.enc.grid
    here = a.pos
    a.pos = pos
    total = 0.0
    try:
        for e in view._attackers:
            dmg = _plain_estimate(enc, e, a)[1]
            if not e.state["grapple"] and g.distance(e.pos, pos) - 1 <= 2 * RS.speed(e):
                dx, dy = (e.pos[0] > pos[0]) - (e.pos[0] < pos[0]), (e.pos[1] > pos[1]) - (e.pos[1] < pos[1])
                near = (pos[0] + dx, pos[1] + dy)
                if near != pos and g.inside(*near) and g.passable(g.index(*near)):
                    start = e.pos
                    e.pos = near
                    try:
                        dmg = max(dmg, _plain_estimate(enc, e, a)[1])
                    finally:
                        e.pos = start
            total += dmg
    finally:
        a.pos = here
    return total


def test_the_movement_phases_threat_is_its_plain_definition():
    """On every key square of movement-phase decision points, `RiseView.threat` (its memos, the strike from beside
    taken once, no charge beside it) is the plain definition's, and charges did count in some of them."""
    tac = RS.tactics()
    n = charged = 0
    for b in _states(12):
        enc, a = b.enc, b.enc.actor
        if enc.phase_index != 0 or a is None or len(b.legal()) < 2:
            continue
        view = RiseView(tac, enc, a)
        for pos in sorted(view.key_squares()):
            if not enc.grid.inside(*pos) or not enc.grid.passable(enc.grid.index(*pos)):
                continue
            want = _plain_threat(view, pos)
            assert view.threat(pos) == want, (pos, view.threat(pos), want)
            n += 1
        charged += any(E.threat_estimate(RS, enc, e, a, charge=False) != E.threat_estimate(RS, enc, e, a)
                       for e in view._attackers)
    assert n > 500 and charged > 0, (n, charged)
