"""engine.core.battle.Battle: initiative, turn order, rounds, victory, the round limit, legality."""
import json

import pytest

from engine.core.battle import Battle
from engine.core.dice import ScriptedDice, SeededDice
from engine.core.economy import Economy
from engine.core.errors import IllegalAction
from engine.core.events import Event
from engine.core.policy import RandomPolicy
from tests.toys.common import END, Decision, ToyRuleset, build, catalogue


class Duel(ToyRuleset):
    """Sequential turns: one move (up to speed) and one strike; the strike may be traded for a second move."""

    id = "core_duel"
    name = "Core test duel"
    economy = Economy(slots={"action": 1, "move": 1}, trades={"move": ("move", "action")})
    catalogue = catalogue({"key": "move", "name": "Move", "cost": "move", "target": "square"},
                          {"key": "strike", "name": "Strike", "cost": "action", "target": "enemy"})
    TEMPLATES = {"brute": {"hp": 6, "speed": 3, "attack": 3, "defense": 12, "damage": "1d6", "reach": 1,
                           "range": 0, "initiative": 2},
                 "scout": {"hp": 4, "speed": 5, "attack": 2, "defense": 11, "damage": "1d4", "reach": 1,
                           "range": 0, "initiative": 5}}

    def legal_actions(self, enc, a):
        out = [END]
        if not a.active:
            return out
        if self.economy.can_pay(enc.budget, "move"):
            out += [Decision("move", square=enc.grid.xy(i)) for i in self.move_squares(enc, a, a.stats["speed"])]
        if enc.budget["action"]:
            out += [Decision("strike", e.id) for e in enc.enemies(a) if self.in_reach(enc, a, e)]
        return out

    def apply(self, enc, a, d, dice, react=None):
        self.economy.pay(enc.budget, self.catalogue[d.action].cost)
        if d.action == "move":
            a.pos = d.square
            return [Event("moved", a.id, square=a.pos)]
        return self.strike(enc, a, enc.units[d.target], dice)


RS = Duel()
ROWS = ["......", "......", "......"]
UNITS = [{"name": "A", "side": "pcs", "template": "brute", "at": [0, 0]},
         {"name": "B", "side": "pcs", "template": "scout", "at": [0, 2]},
         {"name": "X", "side": "npcs", "template": "brute", "at": [5, 0]},
         {"name": "Y", "side": "npcs", "template": "scout", "at": [5, 2]}]


def new(faces=(), units=UNITS, **kw):
    enc = build(RS, ROWS, units, **kw)
    return Battle(enc, RS, ScriptedDice(list(faces)))


def test_initiative_typed_in_is_used_as_given():
    b = new()
    ev = b.start({0: 3, 1: 17, 2: 9, 3: 12})
    assert b.enc.order == [1, 3, 2, 0] and b.actor.name == "B"
    assert [e.get("value") for e in ev if e.kind == "initiative"] == [3, 17, 9, 12]
    assert b.dice.asked == []


def test_initiative_rolled_adds_the_bonus_and_breaks_ties_by_bonus():
    b = new(faces=[10, 7, 13, 7])
    b.start()
    # A 10+2=12, B 7+5=12, X 13+2=15, Y 7+5=12: X first, then the ties by bonus (scouts 5), then by order
    assert b.enc.initiative == {0: 12, 1: 12, 2: 15, 3: 12}
    assert b.enc.order == [2, 1, 3, 0]
    assert [s for s, _ in b.dice.asked] == [20] * 4


def test_initiative_partly_typed_rolls_the_rest():
    b = new(faces=[1])
    b.start({0: 20, 1: 19, 2: 18})
    assert b.enc.initiative[3] == 1 + 5 and b.enc.order == [0, 1, 2, 3]


def test_turn_order_and_rounds():
    b = new()
    b.start({0: 4, 1: 3, 2: 2, 3: 1})
    seen = []
    for _ in range(9):
        seen.append((b.enc.round, b.actor.name))
        ev = b.step(END)
    assert seen == [(1, "A"), (1, "B"), (1, "X"), (1, "Y"), (2, "A"), (2, "B"), (2, "X"), (2, "Y"), (3, "A")]
    assert b.enc.round == 3 and b.actor.name == "B"


def test_budget_refreshes_each_turn_and_turn_ends_when_only_end_is_left():
    b = new()
    b.start({0: 4, 1: 3, 2: 2, 3: 1})
    b.step(Decision("move", square=(1, 0)))
    assert b.enc.budget == {"action": 1, "move": 0} and b.actor.name == "A"
    ev = b.step(Decision("move", square=(2, 0)))  # second move paid by the action: nothing left
    assert b.actor.name == "B" and b.enc.budget == {"action": 1, "move": 1}
    kinds = [e.kind for e in ev]
    assert kinds.index("turn_end") < kinds.index("turn_start") and ev[kinds.index("turn_start")].actor == 1


def test_round_limit_is_a_draw():
    b = new(round_limit=2)
    b.start({0: 4, 1: 3, 2: 2, 3: 1})
    events = []
    while not b.over:
        events += b.step(END)
    assert b.enc.winner == "draw" and b.enc.round == 3
    assert [e.kind for e in events].count("round_limit") == 1
    assert b.actor is None and b.legal() == []
    with pytest.raises(IllegalAction, match="draw"):
        b.step(END)


def test_victory_when_the_last_enemy_goes_down():
    units = [{"name": "A", "side": "pcs", "template": "brute", "at": [0, 0]},
             {"name": "X", "side": "npcs", "template": "scout", "at": [1, 0], "hp": 2}]
    b = new(faces=[15, 3], units=units)
    b.start({0: 10, 1: 1})
    ev = b.step(Decision("strike", 1))
    assert b.over and b.enc.winner == "pcs"
    assert [e.kind for e in ev][-1] == "victory" and ev[-1].get("winner") == "pcs"
    with pytest.raises(IllegalAction, match="pcs won"):
        b.step(END)


def test_victory_is_seen_whichever_units_go_down():
    for order in ([2, 3], [3, 2], [0, 1], [1, 0]):  # the units of one side go down one after the other
        b = new()
        b.start({0: 4, 1: 3, 2: 2, 3: 1})
        b.step(END)
        first, last = (b.enc.units[i] for i in order)
        first.down = True
        b.step(END)
        assert not b.over
        last.down = True
        b.step(END)
        assert b.enc.winner == ("pcs" if first.side == "npcs" else "npcs")


def test_downed_units_are_skipped():
    b = new()
    b.start({0: 4, 1: 3, 2: 2, 3: 1})
    b.enc.units[1].down = True
    b.step(END)
    assert b.actor.name == "X"


def test_end_is_always_legal_and_illegal_decisions_change_nothing():
    for seed in range(4):
        b = Battle(build(RS, ROWS, UNITS), RS, SeededDice(seed))
        b.start()
        p = RandomPolicy(seed)
        probes = [Decision("strike", 0), Decision("strike", 3), Decision("move", square=(5, 0)),
                  Decision("move", square=(9, 9)), Decision("fly"), Decision("strike", 42), Decision("move")]
        while not b.over:
            legal = b.legal()
            assert END in legal
            for d in probes:
                if d not in legal:
                    before = json.dumps(b.enc.to_dict(), sort_keys=True)
                    state = b.dice.getstate()
                    with pytest.raises(IllegalAction) as e:
                        b.step(d)
                    assert e.value.reason
                    assert json.dumps(b.enc.to_dict(), sort_keys=True) == before
                    assert b.dice.getstate() == state
            b.step(p.choose(b))


def test_legal_is_recomputed_after_each_step():
    b = new(units=[dict(UNITS[0], at=[1, 0])] + UNITS[1:])
    b.start({0: 4, 1: 3, 2: 2, 3: 1})
    first = b.legal()
    assert Decision("strike", 2) not in first
    b.step(Decision("move", square=(4, 0)))
    assert b.legal() != first and Decision("strike", 2) in b.legal()
    assert b.is_legal(Decision("strike", 2)) and not b.is_legal(Decision("strike", 3))


def test_same_seed_same_battle():
    def run(seed):
        b = Battle(build(RS, ROWS, UNITS), RS, SeededDice(seed))
        ev = b.start()
        p = RandomPolicy(seed)
        while not b.over:
            ev += b.step(p.choose(b))
        return json.dumps([e.to_dict() for e in ev], default=str), json.dumps(b.enc.to_dict())

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_battle_refuses_a_state_of_another_ruleset_or_phase():
    from engine.core.errors import InputError

    enc = build(RS, ROWS, UNITS)
    enc.ruleset = "saga"
    with pytest.raises(InputError, match="saga"):
        Battle(enc, RS, SeededDice(0))
    enc = build(RS, ROWS, UNITS)
    enc.phase_index = 1
    with pytest.raises(InputError, match="phase"):
        Battle(enc, RS, SeededDice(0))
