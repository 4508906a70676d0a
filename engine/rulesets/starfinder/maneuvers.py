"""Combat maneuvers (Core Rulebook p. 246): a melee attack roll against the target's KAC + 8 with the melee weapon in
hand (or an unarmed strike), the target within reach; the result's margin decides how far, how long or how bad.

A mixin of `StarfinderRuleset`. Combat maneuvers provoke no attack of opportunity in Starfinder (the Core Rulebook
lists none among the triggers); a weapon with a maneuver's special property (trip, disarm, ...) adds +2.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.decision import Decision
from engine.core.events import Event, new_event

from . import combat as C
from . import conditions as K
from .movement import reach_feet, within_reach

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

KAC_PLUS = 8          # a combat maneuver's target: KAC + 8
PIN_PLUS = 13         # a grapple meeting KAC + 13 pins
_KEYS = ("bull_rush", "dirty_trick_blinded", "dirty_trick_deafened", "dirty_trick_entangled",
         "dirty_trick_off_target", "dirty_trick_shaken", "dirty_trick_sickened", "disarm", "grapple", "reposition",
         "sunder", "trip")
_DECISIONS: dict[tuple[str, int], Decision] = {}


def _d(key: str, target: int) -> Decision:
    got = _DECISIONS.get((key, target))
    if got is None:
        got = _DECISIONS[(key, target)] = Decision(key, target)
    return got


def free_hand(u: "Unit") -> bool:
    ws = u.stats["weapons"]
    return sum(ws[n]["hands"] for n in u.state["wield"]) < 2


def held_item(u: "Unit") -> int | None:
    """The weapon a disarm or sunder goes for: the first carried weapon in the target's hands."""
    ws = u.stats["weapons"]
    for n in u.state["wield"]:
        if not ws[n]["natural"]:
            return n
    return None


class Maneuvers:
    """Bull rush, dirty trick, disarm, grapple, reposition, sunder, trip (mixed into StarfinderRuleset)."""

    def maneuver_weapon(self, enc: "Encounter", a: "Unit", t: "Unit") -> tuple[bool, int | None]:
        """(t within reach, the weapon used): the melee weapon in hand when it reaches t, else an unarmed strike
        within the natural reach."""
        n = self.attack_weapon(a)
        if n is not None and within_reach(enc.grid, a.pos, t.pos, reach_feet(a, n)):
            return True, n
        return within_reach(enc.grid, a.pos, t.pos, a.stats["natural_reach"]), None

    def _maneuvers(self, enc: "Encounter", a: "Unit", t: "Unit", m: int | None, melee_ok: bool) -> list[Decision]:
        """The maneuvers a may attempt on t now (a standard action is left; a is not pinned); `m`, `melee_ok`: a's
        melee weapon (`attack_weapon`) and whether it reaches t."""
        if not melee_ok and not within_reach(enc.grid, a.pos, t.pos, a.stats["natural_reach"]):
            return []
        out = []
        tid, ts = t.id, t.state
        holds = held_item(t) is not None
        grappling = a.state["grappling"]
        for key in _KEYS:
            if key in ("disarm", "sunder") and not holds:
                continue
            if key == "grapple" and (not free_hand(a) or grappling is not None and grappling != tid):
                continue
            if key == "trip" and "prone" in ts["conds"] and not ts["zero_g"] and not ts["altitude"]:
                continue
            out.append(_d(key, tid))
        return out

    def _why_maneuver(self, enc, a, d):
        if "pinned" in a.state["conds"]:
            return f"{a.name} is pinned: only escaping or grappling back"
        problem = self._foe_problem(enc, a, d)
        if problem:
            return problem
        t = enc.units[d.target]
        if not self.maneuver_weapon(enc, a, t)[0]:
            return f"{t.name} is beyond {a.name}'s reach"
        if d.action in ("disarm", "sunder") and held_item(t) is None:
            return f"{t.name} holds no weapon"
        if d.action == "grapple":
            if not free_hand(a):
                return f"{a.name} needs a free hand to grapple"
            return f"{a.name} is already grappling {enc.units[a.state['grappling']].name}"
        if d.action == "trip":
            return f"{t.name} is already prone"
        return None

    _why_bull_rush = _why_disarm = _why_grapple = _why_reposition = _why_sunder = _why_trip = _why_maneuver
    # the dirty tricks, one action a condition (conditions.DIRTY_TRICKS)
    _why_dirty_trick_blinded = _why_dirty_trick_deafened = _why_dirty_trick_entangled = _why_maneuver
    _why_dirty_trick_off_target = _why_dirty_trick_shaken = _why_dirty_trick_sickened = _why_maneuver

    def _maneuver(self, enc: "Encounter", a: "Unit", t: "Unit", key: str, dice) -> tuple[int | None, list[Event]]:
        """The maneuver's attack roll: (the margin over KAC + 8, or None on a miss; events)."""
        _, n = self.maneuver_weapon(enc, a, t)
        w = C.weapon(a, n)
        bonus = 2 if key in w["maneuvers"] else 0
        notes = [f"{key.replace('_', ' ')} weapon +2"] if bonus else []
        hit, margin, ev = self._attack(enc, a, t, n, dice, key.replace("_", " "), bonus=bonus, notes=notes,
                                       plus=KAC_PLUS, damage=False, maneuver=True)
        return (margin if hit else None), ev

    def _r_bull_rush(self, enc, a, d, dice, react):
        """Knocked back 5 ft, +5 per 5 over, directly away; it stops at an obstacle (a wall, a creature)."""
        t = enc.units[d.target]
        margin, ev = self._maneuver(enc, a, t, "bull_rush", dice)
        if margin is None:
            return ev
        g = enc.grid
        dx = (t.pos[0] > a.pos[0]) - (t.pos[0] < a.pos[0])
        dy = (t.pos[1] > a.pos[1]) - (t.pos[1] < a.pos[1])
        occupied = {u.pos for u in enc.units if not u.down}
        path = []
        x, y = t.pos
        for _ in range(1 + max(0, margin) // 5):
            nx, ny = x + dx, y + dy
            if not g.inside(nx, ny) or not g.passable(g.index(nx, ny)) or (nx, ny) in occupied:
                break
            if dx and dy and (g.kind(g.index(nx, y)) == "wall" or g.kind(g.index(x, ny)) == "wall"):
                break
            path.append((nx, ny))
            x, y = nx, ny
        if not path:
            return ev + [new_event("pushed", a.id, t.id, {"squares": 0, "why": "an obstacle"})]
        return ev + self.forced_move(enc, a, t, path, dice, react, "is bull rushed")

    def _r_dirty_trick(self, enc, a, d, dice, react):
        """The chosen condition for 1 round, +1 per 5 over; the target can remove it as a move action."""
        t = enc.units[d.target]
        cond = d.action[len("dirty_trick_"):]
        margin, ev = self._maneuver(enc, a, t, "dirty_trick", dice)
        if margin is None:
            return ev
        rounds = 1 + margin // 5
        K.add(t.state, cond, K.ends(enc.round, K.slot_of(enc, a.id), rounds), rounds)
        if cond not in t.state["tricks"]:
            t.state["tricks"].append(cond)
        return ev + [new_event("condition", a.id, t.id, {"condition": cond, "rounds": rounds, "why": "dirty trick"})]

    def _r_disarm(self, enc, a, d, dice, react):
        """The held weapon falls to the ground in the target's square; with a hand free the disarmer catches it (the
        target has lost it for the encounter)."""
        t = enc.units[d.target]
        margin, ev = self._maneuver(enc, a, t, "disarm", dice)
        if margin is None:
            return ev
        n = held_item(t)
        ts = t.state
        ts["wield"] = [x for x in ts["wield"] if x != n]
        taken = free_hand(a)
        if taken:
            ts["lost"].append(n)
        else:
            ts["dropped"].append(n)
            enc.extra.setdefault("ground", {})[f"{t.id}:{n}"] = list(t.pos)
        return ev + [new_event("disarmed", a.id, t.id, {"weapon": t.stats["weapons"][n]["name"], "taken": taken})]

    def _r_grapple(self, enc, a, d, dice, react):
        """Grappled (pinned at KAC + 13) until the end of a's next turn unless renewed. Grappling one's own grappler
        breaks its hold and turns it around."""
        t = enc.units[d.target]
        margin, ev = self._maneuver(enc, a, t, "grapple", dice)
        if margin is None:
            return ev
        s, ts = a.state, t.state
        if s["grappled_by"] == t.id:
            ev += self.release_grapple(enc, t, f"{a.name} turned the grapple")
        pin = margin >= PIN_PLUS - KAC_PLUS
        renewed = s["grappling"] == t.id
        s["grappling"], s["grapple_round"] = t.id, enc.round
        ts["grappled_by"] = a.id
        K.add(ts, "grappled", K.FOREVER)
        if pin:
            K.add(ts, "pinned", K.FOREVER)
        else:
            K.remove(ts, "pinned")
        return ev + [new_event("pinned" if pin else "grappled", a.id, t.id, {"renewed": renewed})]

    def _r_reposition(self, enc, a, d, dice, react):
        """On a success the target can be moved 5 ft (+5 per 5 over) to a square within a's reach: the next choice
        (`reposition_to`) names the square."""
        t = enc.units[d.target]
        margin, ev = self._maneuver(enc, a, t, "reposition", dice)
        if margin is None:
            return ev
        feet = 5 + 5 * (margin // 5)
        if self.reposition_squares(enc, a, t, feet):
            enc.flags["pending"] = {"kind": "reposition", "target": t.id, "feet": feet}
        else:
            ev.append(new_event("pushed", a.id, t.id, {"squares": 0, "why": "no room within reach"}))
        return ev

    def reposition_squares(self, enc: "Encounter", a: "Unit", t: "Unit", feet: int) -> list[tuple[int, int]]:
        """Open squares within `feet` of the target's (a walk past no obstacle or creature) that a's maneuver still
        reaches."""
        g = enc.grid
        w = g.width
        others = [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u is not t]
        _, n = self.maneuver_weapon(enc, a, t)
        reach = reach_feet(a, n) if n is not None else a.stats["natural_reach"]
        here = t.pos[1] * w + t.pos[0]
        return [g.xy(i) for i in g.reachable(t.pos, feet // 5, others) if i != here
                and within_reach(g, a.pos, g.xy(i), reach)]

    def _r_reposition_to(self, enc, a, d, dice, react):
        p = enc.flags.pop("pending")
        t = enc.units[p["target"]]
        g = enc.grid
        w = g.width
        others = [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u is not t]
        path = g.path(t.pos, d.square, p["feet"] // 5, others) or [d.square]
        return self.forced_move(enc, a, t, path, dice, react, "is repositioned")

    def _r_sunder(self, enc, a, d, dice, react):
        """The held weapon takes the maneuver weapon's damage less its hardness (5 + 2 x item level): broken past
        half its Hit Points (15 + 3 x item level), destroyed at 0."""
        t = enc.units[d.target]
        margin, ev = self._maneuver(enc, a, t, "sunder", dice)
        if margin is None:
            return ev
        n = held_item(t)
        item = t.stats["weapons"][n]
        _, m = self.maneuver_weapon(enc, a, t)
        expr = C.damage_expr(a, m)
        got, _ = dice.roll(expr, f"{a.name}'s sunder damage")
        amount = max(0, got - C.item_hardness(item))
        ts = t.state
        was_broken = C.broken(t, n)
        ts["weapon_damage"][n] += amount
        ev.append(new_event("object_damage", a.id, t.id, {"object": item["name"], "roll": got, "amount": amount,
                                                         "hardness": C.item_hardness(item),
                                                         "hp": max(0, C.item_hp(item) - ts["weapon_damage"][n])}))
        if ts["weapon_damage"][n] >= C.item_hp(item):
            ts["wield"] = [x for x in ts["wield"] if x != n]
            ts["lost"].append(n)
            ev.append(new_event("object_broken", a.id, t.id, {"object": item["name"], "destroyed": True}))
        elif C.broken(t, n) and not was_broken:
            ev.append(new_event("object_broken", a.id, t.id, {"object": item["name"], "destroyed": False}))
        return ev

    def _r_trip(self, enc, a, d, dice, react):
        """Prone; a target in the air descends 10 ft instead (prone if that lands it); in zero gravity off-kilter."""
        t = enc.units[d.target]
        margin, ev = self._maneuver(enc, a, t, "trip", dice)
        if margin is None:
            return ev
        ts = t.state
        if ts["zero_g"]:
            K.add(ts, "off_kilter", K.FOREVER)
            return ev + [new_event("condition", a.id, t.id, {"condition": "off_kilter", "why": "tripped"})]
        if ts["altitude"] > 0:
            ts["altitude"] = max(0, ts["altitude"] - 10)
            ev.append(new_event("descends", a.id, t.id, {"feet": 10, "altitude": ts["altitude"]}))
            if ts["altitude"]:
                return ev
        return ev + C.knock_prone(t, a.id, "tripped")
