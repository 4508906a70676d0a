"""A toy ruleset whose catalogue uses every target kind the codec knows, options combined with targets included:
which weapon on which foe, which spell on which square, which salve on which ally, a grenade at a grid
intersection. Its rules are deliberately small; it exists for the codec's tests (tests/envs/test_codec.py) and is
registered only by the tests that need a ruleset id (`registered`)."""
from __future__ import annotations

from contextlib import contextmanager

from engine.core.economy import Economy
from engine.core.dice import parse_dice
from tests.toys.common import END, Decision, Event, ToyRuleset, catalogue

WEAPONS = ("1d4", "1d6", "1d8+1")  # shoot's options: damage of each weapon
SPELLS = ("1d6", "2d4")            # bolt's options: damage on whoever stands on the square
SALVES = (2, 4)                    # mend's options: hit points restored


class ToyTargets(ToyRuleset):
    id = "toy_targets"
    name = "Toy of every target kind"
    env_name = "ToyTargets"
    economy = Economy(slots={"action": 1, "move": 1})
    catalogue = catalogue(
        {"key": "move", "name": "Move", "cost": "move", "target": "square"},
        {"key": "shoot", "name": "Shoot", "cost": "action", "target": "enemy", "options": len(WEAPONS)},
        {"key": "grenade", "name": "Throw a grenade", "cost": "action", "target": "intersection"},
        {"key": "bolt", "name": "Cast a bolt", "cost": "action", "target": "square", "options": len(SPELLS)},
        {"key": "mend", "name": "Apply a salve", "cost": "action", "target": "ally", "options": len(SALVES)},
        {"key": "shove", "name": "Shove", "cost": "action", "target": "unit"},
        {"key": "wait", "name": "Wait", "cost": "action", "options": 2},
    )
    TEMPLATES = {
        "scout": {"hp": 9, "speed": 4, "attack": 4, "defense": 12, "damage": "1d6", "reach": 1, "range": 6,
                  "initiative": 2},
        "brute": {"hp": 14, "speed": 3, "attack": 3, "defense": 11, "damage": "1d8", "reach": 1, "range": 4,
                  "initiative": 0},
    }

    def legal_actions(self, enc, a):
        out = [END]
        if not a.active:
            return out
        b, g = enc.budget, enc.grid
        if b["move"]:
            out += [Decision("move", square=g.xy(i)) for i in self.move_squares(enc, a, a.stats["speed"])]
        if not b["action"]:
            return out
        foes = [e for e in enc.enemies(a) if self.in_range(enc, a, e)]
        out += [Decision("shoot", e.id, None, w) for w in range(len(WEAPONS)) for e in foes]
        x0, y0 = a.pos
        out += [Decision("grenade", square=(x, y)) for y in range(max(0, y0 - 3), min(g.height, y0 + 4) + 1)
                for x in range(max(0, x0 - 3), min(g.width, x0 + 4) + 1)]
        near = [xy for xy in g.within(a.pos, 3) if g.line_of_effect(a.pos, xy)]
        out += [Decision("bolt", None, xy, s) for s in range(len(SPELLS)) for xy in near]
        out += [Decision("mend", u.id, None, s) for s in range(len(SALVES)) for u in enc.units
                if u.side == a.side and u.active and u.hp < u.max_hp and g.distance(a.pos, u.pos) <= 1]
        out += [Decision("shove", e.id) for e in enc.enemies(a) if self.in_reach(enc, a, e)]
        out += [Decision("wait", option=k) for k in range(2)]
        return out

    def apply(self, enc, a, d, dice, react=None):
        g = enc.grid
        ev = [Event("action", a.id, d.target, action=d.action, square=d.square, option=d.option)]
        self.economy.pay(enc.budget, self.catalogue[d.action].cost)
        if d.action == "move":
            a.pos = d.square
        elif d.action == "shoot":
            ev += self._hit(enc, a, enc.units[d.target], WEAPONS[d.option], dice)
        elif d.action == "grenade":  # the four squares that share the corner
            x, y = d.square
            for u in [u for u in enc.units if u.active and u.pos in {(x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y)}]:
                ev += self._hit(enc, a, u, "1d4", dice)
        elif d.action == "bolt":
            for u in [u for u in enc.units if u.active and u.pos == d.square]:
                ev += self._hit(enc, a, u, SPELLS[d.option], dice)
        elif d.action == "mend":
            t = enc.units[d.target]
            t.hp = min(t.max_hp, t.hp + SALVES[d.option])
            ev.append(Event("healed", a.id, t.id, hp=t.hp))
        elif d.action == "shove":
            t = enc.units[d.target]
            x, y = 2 * t.pos[0] - a.pos[0], 2 * t.pos[1] - a.pos[1]
            if g.inside(x, y) and g.passable(g.index(x, y)) and (x, y) not in enc.occupied():
                t.pos = (x, y)
        return ev

    def _hit(self, enc, a, t, damage, dice):
        face = dice.d20(f"{a.name}'s attack on {t.name}")
        if face != 20 and (face == 1 or face + a.stats["attack"] < t.stats["defense"]):
            return [Event("attack", a.id, t.id, face=face, hit=False)]
        amount, _ = dice.roll(parse_dice(damage), f"{a.name}'s damage on {t.name}")
        return [Event("attack", a.id, t.id, face=face, hit=True)] + self.damage(enc, a, t, amount)


RULESET = ToyTargets()


@contextmanager
def registered():
    """The toy in the ruleset registry for the duration (the env takes ruleset ids)."""
    from engine import rulesets

    rulesets._EXTRA[RULESET.id] = RULESET
    try:
        yield RULESET
    finally:
        rulesets._EXTRA.pop(RULESET.id, None)
