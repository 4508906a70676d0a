"""Special abilities, spells and activated items as stat-block data (Core Rulebook p. 244, "Use a Special Ability",
"Cast a Spell", "Activate an Item"), resolved by one small interpreter, in the manner of Avrae's automation effects.

An ability (`stats._ABILITY_KEYS`) names its action cost, target (a foe, an ally or oneself, or an area centred on a
grid intersection), range, an optional attack roll (against EAC or KAC), damage, a saving throw with its DC and
what a success does (half damage, or negates), a condition and its rounds, healing, how many targets (missiles) and
whether it is kept up by concentration or can be dismissed. Using it is one decision (`use_ability` / `activate_item`,
option = its place in the stat block), then one `pick_target` / `pick_ally` / `pick_point` per target. Casting a
spell or using a spell-like ability provokes attacks of opportunity first; one that hits and damages spoils it
and the use is lost.

A mixin of `StarfinderRuleset`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.decision import Decision
from engine.core.events import Event, new_event

from . import area as A
from . import combat as C
from . import conditions as K

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

_PICK = {"enemy": "pick_target", "ally": "pick_ally", "area": "pick_point"}
_DECISIONS: dict[tuple, Decision] = {}


def _dec(action: str, target: int | None = None, square=None, option: int = 0) -> Decision:
    key = (action, target, square, option)
    got = _DECISIONS.get(key)
    if got is None:
        if len(_DECISIONS) > 100_000:
            _DECISIONS.clear()
        got = _DECISIONS[key] = Decision(action, target, square, option)
    return got


def spell_weapon(ab: dict) -> dict:
    """The attack roll of an ability as a weapon: melee (touch, range 0) or ranged, no range increments within its
    range, no ability modifier to damage."""
    melee = ab["range"] == 0
    return {**C.UNARMED, "name": ab["name"], "kind": "melee" if melee else "ranged", "damage": ab["damage"] or "0",
            "type": ab["type"], "attack": ab["attack_bonus"], "range": max(5, ab["range"]), "increments": 1,
            "natural": False, "spell": True}


class Abilities:
    """Abilities, spells and items (mixed into StarfinderRuleset)."""

    @staticmethod
    def ability(a: "Unit", action: str, option: int) -> dict:
        return a.stats["items" if action == "activate_item" else "abilities"][option]

    def _ability_choices(self, enc: "Encounter", a: "Unit", budget: dict, pinned: bool) -> list[Decision]:
        out = []
        s = a.state
        econ = self.economy
        for action, book, uses in (("use_ability", "abilities", "uses"), ("activate_item", "items", "item_uses")):
            for k, ab in enumerate(a.stats[book]):
                if s[uses][k] == 0 or pinned and ab["kind"] not in ("spell", "sla"):
                    continue
                cost = ab["cost"]
                if cost == "full":
                    if "staggered" in s["conds"] or not econ.can_pay(budget, "full"):
                        continue
                elif not econ.can_pay(budget, cost):
                    continue
                if ab["target"] == "self" or self._targets_of(enc, a, ab, first=True):
                    out.append(_dec(action, option=k))
        return out

    def _why_use_ability(self, enc: "Encounter", a: "Unit", d: Decision) -> str | None:
        """Why `_ability_choices` leaves the ability (or item) out."""
        item = d.action == "activate_item"
        book, what = a.stats["items" if item else "abilities"], "item" if item else "ability"
        k = d.option
        if k is None or not 0 <= k < len(book):
            have = ", ".join(f"{i} {ab['name']}" for i, ab in enumerate(book)) or "none"
            return f"{a.name} has no {what} {k} (its {'items' if item else 'abilities'}: {have})"
        ab, s = book[k], a.state
        if s["item_uses" if item else "uses"][k] == 0:
            return f"{a.name} has used up its {ab['name']}"
        if "pinned" in s["conds"] and ab["kind"] not in ("spell", "sla"):
            return f"{a.name} is pinned: only spells and spell-like abilities"
        cost, b = ab["cost"], enc.budget
        if cost == "full" and "staggered" in s["conds"]:
            return f"{a.name} is staggered: no full actions ({ab['name']} takes one)"
        if not self.economy.can_pay(b, cost):
            return f"{ab['name']} needs a {cost} action; {a.name} has {self.economy.describe(b) or 'nothing'} left"
        if ab["target"] != "self" and not self._targets_of(enc, a, ab, first=True):
            reach = "touch" if ab["range"] == 0 else f"{ab['range']} ft"
            aim = {"area": "point", "enemy": "foe", "ally": "ally"}.get(ab["target"], "target")
            return f"{ab['name']} has no {aim} to aim at within {reach} (and in sight)"
        return None

    _why_activate_item = _why_use_ability

    def _in_ability_range(self, enc: "Encounter", a: "Unit", t: "Unit", ab: dict) -> bool:
        g = enc.grid
        if ab["range"] == 0:  # touch: yourself or an adjacent creature
            return t is a or g.distance(a.pos, t.pos) <= 1
        return g.distance(a.pos, t.pos) * C.FEET <= ab["range"] and (t is a or g.line_of_effect(a.pos, t.pos)
                                                                      and g.line_of_sight(a.pos, t.pos))

    def _targets_of(self, enc: "Encounter", a: "Unit", ab: dict, first: bool = False) -> list:
        """The units (or intersections) an ability can be aimed at now; with `first`, stop at the first found."""
        kind = ab["target"]
        if kind == "area":
            pts = A.targetable(enc.grid, a.pos, ab["range"] // 5)
            return [p for p, _ in pts[:1]] if first else [p for p, _ in pts]
        out = []
        for u in enc.units:
            if u.down or (u.side == a.side) != (kind == "ally") or kind == "enemy" and u is a:
                continue
            if self._in_ability_range(enc, a, u, ab):
                out.append(u)
                if first:
                    break
        return out

    def _ability_targets(self, enc: "Encounter", a: "Unit", p: dict) -> list[Decision]:
        ab = a.stats[p["book"]][p["index"]]
        action = _PICK[ab["target"]]
        if ab["target"] == "area":
            return [_dec(action, square=pt) for pt in self._targets_of(enc, a, ab)]
        return [_dec(action, u.id) for u in self._targets_of(enc, a, ab)]

    def _r_use_ability(self, enc, a, d, dice, react, book: str = "abilities", uses: str = "uses"):
        ab = a.stats[book][d.option]
        s = a.state
        if s[uses][d.option] > 0:
            s[uses][d.option] -= 1
        verb = "casts" if ab["kind"] == "spell" else ("activates" if ab["kind"] == "item" else "uses")
        ev = [new_event("ability", a.id, None, {"ability": ab["name"], "kind": ab["kind"], "verb": verb,
                                                "left": s[uses][d.option]})]
        if ab["provokes"]:
            more, damaged = self.provoke(enc, a, "casts", f"{verb} {ab['name']} in a threatened square", dice, react)
            ev += more
            if damaged or a.down:
                return ev + [new_event("spoiled", a.id, None, {"ability": ab["name"]})]
        if ab["sustain"] == "concentration":
            s["concentrated"] = enc.round
        if ab["target"] == "self":
            return ev + self._ability_on(enc, a, ab, a, dice)
        enc.flags["pending"] = {"kind": "ability", "book": book, "index": d.option, "left": ab["targets"],
                                "name": ab["name"]}
        return ev

    def _r_activate_item(self, enc, a, d, dice, react):
        return self._r_use_ability(enc, a, d, dice, react, "items", "item_uses")

    def _picked(self, enc: "Encounter", a: "Unit") -> dict:
        p = enc.flags["pending"]
        p["left"] -= 1
        if p["left"] <= 0:
            enc.flags.pop("pending")
        return a.stats[p["book"]][p["index"]]

    def _r_pick_target(self, enc, a, d, dice, react):
        ab = self._picked(enc, a)
        return self._ability_on(enc, a, ab, enc.units[d.target], dice)

    _r_pick_ally = _r_pick_target

    def _r_pick_point(self, enc, a, d, dice, react):
        ab = self._picked(enc, a)
        squares = A.blast(enc.grid, d.square, ab["radius"])
        caught = [u for u in enc.units if not u.down and u.pos in squares]
        ev = [new_event("blast", a.id, None, {"point": d.square, "radius": ab["radius"], "squares": len(squares),
                                              "caught": [u.id for u in caught], "weapon": ab["name"]})]
        rolled = None
        if ab["damage"] and caught:
            expr = C.dice(ab["damage"])
            rolled, faces = dice.roll(expr, f"{ab['name']} damage")
            ev.append(new_event("damage_roll", a.id, None, {"expr": str(expr), "faces": faces, "total": rolled,
                                                            "crit": False, "why": ab["name"]}))
        for u in caught:
            ev += self._ability_on(enc, a, ab, u, dice, rolled)
        return ev

    def _ability_on(self, enc: "Encounter", a: "Unit", ab: dict, t: "Unit", dice,
                    rolled: int | None = None) -> list[Event]:
        """One target's share of an ability: the attack roll, the save, damage, the condition, healing."""
        if "mind" in ab["tags"] and "mind" in t.stats["immune"]:
            return [new_event("immune", a.id, t.id, {"ability": ab["name"], "why": "mind-affecting"})]
        ev: list[Event] = []
        crit = False
        if ab["attack"] != "none":
            w = spell_weapon(ab)
            hit, _, more = self._attack(enc, a, t, w, dice, ab["name"], damage=False,
                                        energy=ab["attack"] == "eac")
            ev += more
            if not hit:
                return ev
            crit = bool(more) and more[0].get("crit")
        saved = False
        if ab["save"] != "none":
            saved, e = C.roll_save(dice, t, ab["save"], ab["dc"], ab["name"])
            ev.append(e)
            if saved and ab["on_save"] == "negates":
                return ev
        if ab["damage"]:
            if rolled is None:
                amount, roll = C.roll_damage(dice, a, t, C.dice(ab["damage"]), crit, ab["name"])
                ev.append(roll)
            else:
                amount = rolled
            if saved:
                amount //= 2
            ev += C.deal_damage(enc, a.id, t, C.reduce_damage(t, amount, ab["type"]), ab["type"], ab["name"])
        if ab["condition"] and not t.down and not saved:
            slot = K.slot_of(enc, a.id)
            end = K.FOREVER if ab["sustain"] == "concentration" else K.ends(enc.round, slot, ab["rounds"])
            K.add(t.state, ab["condition"], end, ab["rounds"])
            ev.append(new_event("condition", a.id, t.id, {"condition": ab["condition"], "rounds": ab["rounds"],
                                                         "why": ab["name"]}))
            if ab["sustain"] != "none":
                a.state["sustained"].append([ab["name"], t.id, ab["condition"], ab["sustain"]])
        if ab["heal"]:
            got, _ = dice.roll(C.dice(ab["heal"]), f"{ab['name']} on {t.name}")
            ev += C.heal(t, max(0, got), ab["name"])
        return ev

    def _r_concentrate(self, enc, a, d, dice, react):
        a.state["concentrated"] = enc.round
        return [new_event("concentrate", a.id, None, {"spells": [x[0] for x in a.state["sustained"]]})]

    def _r_dismiss(self, enc, a, d, dice, react):
        return self.end_sustained(enc, a, "dismissed", "dismissible")

    def end_sustained(self, enc: "Encounter", u: "Unit", why: str, kind: str | None = None) -> list[Event]:
        """End the unit's sustained spells (of one kind: 'concentration', 'dismissible'; all with None)."""
        ev: list[Event] = []
        keep = []
        for entry in u.state["sustained"]:
            name, tid, cond, how = entry
            if kind is not None and how != kind:
                keep.append(entry)
                continue
            if K.remove(enc.units[tid].state, cond):
                ev.append(new_event("condition_ends", u.id, tid, {"condition": cond, "why": f"{name} {why}"}))
        u.state["sustained"] = keep
        return ev
