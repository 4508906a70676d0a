"""The heuristic's declared interface (engine/core/tactics.py, `Ruleset.effective_cost` / `budget_after` /
`tactics`): what every ruleset gets by default, what Saga declares, that the declared economy agrees with what the
rules spend, and that the heuristic plays what a ruleset's `tactics()` says (no naming convention)."""
from __future__ import annotations

import random

import pytest

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.core.ruleset import Cost
from engine.core.tactics import ROLES, DefaultTactics, DefaultView, Tactics, TacticsView, kill_guess
from engine.policies.heuristic import HeuristicPolicy, tactics_for
from engine.rulesets import available, get_ruleset
from engine.rulesets.saga.tactics import SagaTactics
from tests.battle_walk import random_walk
from tests.saga.helpers import KNIFE, PISTOL, SWORD, floor, make, unit
from tests.toys.common import build
from tests.toys.toy_fifth import RULESET as FIFTH
from tests.toys.toy_fifth import Toy5e
from tests.toys.toy_rise import RULESET as RISE
from tests.toys.toy_starship import RULESET as SHIP

SAGA = get_ruleset("saga")


@pytest.mark.parametrize("rid", sorted(available()))
def test_every_ruleset_declares_its_tactics_and_their_roles(rid):
    rs = available()[rid]
    tac = rs.tactics()
    assert isinstance(tac, Tactics) and tac.rs is rs and tactics_for(rs) is tactics_for(rs)
    assert set(tac.kinds.values()) <= set(ROLES) and tac.kind(END) == "end"
    fresh = rs.economy.new_budget()
    assert rs.economy.can_pay(fresh, *tac.attack_cost) and rs.economy.can_pay(fresh, *tac.move_cost)
    enc = random_encounter(rs, random.Random(0), 12, 12, sizes=(1, 2))
    Battle(enc, rs, SeededDice(0)).start()
    assert isinstance(tac.view(enc, enc.actor), TacticsView)


def test_saga_has_its_own_tactics_the_toys_the_default():
    assert type(SAGA.tactics()) is SagaTactics
    assert (SAGA.tactics().attack_cost, SAGA.tactics().move_cost) == (Cost("standard"), Cost("move"))
    assert all(type(rs.tactics()) is DefaultTactics for rs in (FIFTH, SHIP, RISE))


@pytest.mark.parametrize("rs,roles,costs", [
    (FIFTH, {"attack": "attack", "offhand": "attack", "move": "move", "dash": "misc", "interact": "misc"},
     (Cost("action"), Cost("feet"))),
    (SHIP, {"fire": "attack", "broadside": "attack", "move": "move", "shift": "move", "surge": "run",
            "damage_control": "misc"}, (Cost("attack"), Cost("move"))),
    (RISE, {"strike": "attack", "shoot": "attack", "move": "move", "recover": "misc"}, (Cost("action"), Cost("move"))),
])
def test_default_roles_and_costs_come_from_the_catalogue(rs, roles, costs):
    tac = DefaultTactics(rs)
    assert {k: tac.kinds[k] for k in roles} == roles
    assert (tac.attack_cost, tac.move_cost) == costs


def _walk_states(rs, n_battles: int, steps: int = 80):
    """(battle, legal decisions) at the decision points of random battles."""
    rng = random.Random(1)
    for k in range(n_battles):
        b = Battle(random_encounter(rs, random.Random(k), 12, 12, sizes=(1, 3)), rs, SeededDice(k))
        b.start()
        for _ in random_walk(b, rng, steps):
            yield b, b.legal()


@pytest.mark.parametrize("rs", [SAGA, FIFTH, SHIP], ids=lambda rs: rs.id)
def test_budget_after_is_what_the_rules_leave(rs):
    """Within a turn, `budget_after(d)` is the budget `apply(d)` leaves (Quick Draw, feet walked, a Dash's feet...);
    ending the turn leaves nothing, a Saga charge no further action."""
    n = 0
    for b, legal in _walk_states(rs, 12):
        enc, a = b.enc, b.enc.actor
        for d in legal:
            left = rs.budget_after(enc, a, d)
            if d == END or d.action == "charge":
                assert left == {}
                continue
            after = enc.clone()
            rs.apply(after, after.units[a.id], d, SeededDice(0))
            assert left == after.budget, (d, enc.budget)
            n += 1
    assert n > 2000, n


def test_effective_cost_knows_quick_draw_and_the_feet_of_a_walk():
    for feats, cost in (([], "move"), (["quick_draw"], "swift")):
        b = make(floor(6, 1), [unit("A", "pcs", (0, 0), PISTOL, KNIFE, feats=feats), unit("T", "npcs", (5, 0), SWORD)])
        assert SAGA.effective_cost(b.enc, b.actor, Decision("draw", option=1)) == Cost(cost)
        assert SAGA.effective_cost(b.enc, b.actor, Decision("aim")) == Cost("swift", 1, 2)
    enc = build(FIFTH, ["." * 10] * 3, [{"name": "H", "side": "pcs", "template": "fighter", "at": [0, 1]},
                                        {"name": "G", "side": "npcs", "template": "goblin", "at": [9, 1]}])
    Battle(enc, FIFTH, SeededDice(0)).start({0: 20, 1: 1})
    assert FIFTH.effective_cost(enc, enc.actor, Decision("move", square=(3, 0))) == Cost("feet", 15)


def test_rise_movement_phase_leaves_the_action_phase_to_come():
    enc = build(RISE, ["." * 8] * 3, [{"name": "A", "side": "pcs", "template": "warrior", "at": [0, 1]},
                                      {"name": "B", "side": "npcs", "template": "warrior", "at": [7, 1]}])
    b = Battle(enc, RISE, SeededDice(0))
    b.start({0: 20, 1: 1})
    assert b.phase == "movement"
    for d in (Decision("move", square=(2, 1)), END):
        assert RISE.budget_after(enc, enc.actor, d) == {"move": 0, "action": 1}
    while b.phase == "movement":
        b.step(END)
    assert RISE.budget_after(enc, enc.actor, END) == {}


class _Dasher(DefaultTactics):
    """Tactics that make a Dash worth everything (to see the heuristic follow the ruleset's own tactics)."""

    def view(self, enc, a):
        return _DashView(self, enc, a)


class _DashView(DefaultView):
    def misc_value(self, d, threat_here, can_strike):
        return 100.0 if d.action == "dash" else super().misc_value(d, threat_here, can_strike)


class _DashingToy(Toy5e):
    id = "toy_5e_dashing"  # a ruleset no module is named after

    def tactics(self):
        return _Dasher(self)


def test_the_heuristic_plays_the_tactics_a_ruleset_declares():
    units = [{"name": "H", "side": "pcs", "template": "fighter", "at": [0, 1]},
             {"name": "G", "side": "npcs", "template": "goblin", "at": [9, 1]}]
    for rs, first in ((FIFTH, "move"), (_DashingToy(), "dash")):
        enc = build(rs, ["." * 10] * 3, units)
        b = Battle(enc, rs, SeededDice(0))
        b.start({0: 20, 1: 1})
        assert HeuristicPolicy(0).choose(b).action == first


def test_default_view_values_squares_by_the_rulesets_threat_estimate():
    """Offense and threat at a square are `threat_estimate`s with the actor placed there (and put back); the walk to
    the nearest enemy goes round walls."""
    rows = ["#########", "#...#...#", "#...#...#", "#.......#", "#########"]
    enc = build(SHIP, rows, [{"name": "W", "side": "pcs", "template": "fighter", "at": [1, 1]},
                             {"name": "R", "side": "npcs", "template": "corvette", "at": [7, 1]}])
    Battle(enc, SHIP, SeededDice(0)).start({0: 20, 1: 1})
    w, r = enc.units
    v = SHIP.tactics().view(enc, w)
    near, far = (5, 3), (1, 1)  # (5, 3) has a line past the wall to R; (1, 1) has none
    w.pos = near
    hit, dmg = SHIP.threat_estimate(enc, w, r)
    theirs = SHIP.threat_estimate(enc, r, w)[1]
    w.pos = far
    assert dmg > 0 and theirs > 0
    assert [(t, e.hit_chance, e.expected_damage) for t, e, _ in v.offense(near)] == [(r, hit, dmg)]
    assert v.offense(far) == [] and v.threat(far) == 0.0 and v.threat(near) == theirs
    assert w.pos == far
    assert v.approach((3, 1)) > enc.grid.distance((3, 1), r.pos)  # round the wall, not through it


@pytest.mark.parametrize("hit,damage,hp,want", [(0.5, 5.0, 30, 0.0), (0.5, 5.0, 10, 0.25), (0.5, 5.0, 5, 0.5),
                                                (0.0, 0.0, 5, 0.0), (0.4, 2.0, 0, 0.4),
                                                (0.6, 0.0, 5, 0.0)])  # hits that deal nothing (immune): no kill
def test_kill_guess(hit, damage, hp, want):
    assert kill_guess(hit, damage, hp) == pytest.approx(want)


@pytest.mark.parametrize("rs", [FIFTH, SHIP, RISE], ids=lambda rs: rs.id)
def test_default_square_values_shared_between_decision_points_change_no_score(rs):
    """The heuristic reuses square values across decision points by `DefaultView.state_key`: scores with a warm
    policy are a cold one's, on random battle states, and the key did repeat (the actor moved, nothing else did)."""
    warm, seen, repeats, n = HeuristicPolicy(0), set(), 0, 0
    tac = tactics_for(rs)
    for b, legal in _walk_states(rs, 6, 60):
        if len(legal) == 1:
            continue
        key = tac.view(b.enc, b.enc.actor).state_key()
        repeats += key in seen
        seen.add(key)
        assert warm.scores(b, seed=n) == HeuristicPolicy(0).scores(b, seed=n)
        n += 1
    assert n > 150 and repeats > 20, (n, repeats)
