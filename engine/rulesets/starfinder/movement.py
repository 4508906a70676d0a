"""Reach, threatened squares, attacks of opportunity and movement (walking, forced movement) for Starfinder.

A mixin of `StarfinderRuleset`: these methods need the ruleset's attack roll (`_attack`) and hand their reactions to
the core (`engine.core.reaction.ask_reaction`), so a reacting unit's side chooses whether to take its attack of
opportunity.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.decision import Decision
from engine.core.events import Event, new_event
from engine.core.grid import metric_distance
from engine.core.reaction import DECLINE, Trigger, ask_reaction

from . import conditions as K

if TYPE_CHECKING:
    from engine.core.dice import Dice
    from engine.core.reaction import React
    from engine.core.state import Encounter
    from engine.core.units import Unit

AOO = "attack_of_opportunity"
_AOO_DECISIONS: dict[int, Decision] = {}


def aoo_decision(target: int) -> Decision:
    got = _AOO_DECISIONS.get(target)
    if got is None:
        got = _AOO_DECISIONS[target] = Decision(AOO, target)
    return got


def speed_squares(u: "Unit") -> int:
    """Speed in squares: half speed while entangled or blinded."""
    sq = u.stats["speed"] // 5
    return sq // 2 if K.has(u.state, "slow") else sq


def reach_feet(u: "Unit", n: int | None) -> int:
    """Reach with a melee weapon (None: unarmed): the natural reach, or with a reach weapon 10 ft (5 ft more than
    the natural reach for creatures whose reach is already 10 ft or more)."""
    natural = u.stats["natural_reach"]
    if n is not None and u.stats["weapons"][n]["reach"]:
        return max(10, natural + 5)
    return natural


def within_reach(g, a: tuple[int, int], t: tuple[int, int], feet: int) -> bool:
    """Whether a square is within a reach: 5 ft the adjacent squares; 10 ft two squares in every direction,
    the second diagonal included (the Core Rulebook's exception); otherwise the alternating distance. Beyond the
    adjacent squares the line must be one of effect."""
    if feet <= 0:
        return False
    dx, dy = abs(a[0] - t[0]), abs(a[1] - t[1])
    if dx <= 1 and dy <= 1:
        return True
    if feet == 10:
        ok = dx <= 2 and dy <= 2
    else:
        ok = metric_distance("alternating", dx, dy) * 5 <= feet
    return ok and g.line_of_effect(a, t)


def reach_squares(g, pos: tuple[int, int], feet: int) -> tuple[int, ...]:
    """The squares (flat indices) within a reach of `pos` (`within_reach`), cached per map, door state, square and
    reach."""
    geo = g._geometry
    tables = geo.memo.setdefault("starfinder_reach", {})
    key = (g._door_key(), pos, feet)
    got = tables.get(key)
    if got is None:
        if len(tables) > 50_000:
            tables.clear()
        r = 2 if feet == 10 else feet // 5
        x0, y0 = pos
        got = tables[key] = tuple(y * g.width + x for y in range(max(0, y0 - r), min(g.height, y0 + r + 1))
                                  for x in range(max(0, x0 - r), min(g.width, x0 + r + 1))
                                  if (x, y) != pos and within_reach(g, pos, (x, y), feet))
    return got


class Movement:
    """Threat, reactions and movement (mixed into StarfinderRuleset)."""

    # ---- weapons in hand ----------------------------------------------------------------------------------------
    @staticmethod
    def melee_weapon(u: "Unit") -> int | None:
        """The melee weapon a unit attacks with: the first in hand, else its first natural weapon; None unarmed."""
        ws = u.stats["weapons"]
        for n in u.state["wield"]:
            if ws[n]["kind"] == "melee":
                return n
        lost = u.state["lost"]
        for n, w in enumerate(ws):
            if w["natural"] and n not in lost:
                return n
        return None

    def can_aoo(self, enc: "Encounter", e: "Unit") -> bool:
        """Whether a unit could take an attack of opportunity now: it has its reaction, has acted in this combat,
        is not flat-footed, staggered, grappled, pinned or in total defense, and holds a melee weapon (not unwieldy;
        unarmed strikes threaten nothing)."""
        s = e.state
        if e.down or not s["reaction"] or not s["acted"] or s["total_defense"]:
            return False
        if s["conds"] and (K.has(s, "flat") or K.has(s, "no_react") or K.has(s, "no_aoo")):
            return False
        n = self.melee_weapon(e)
        return n is not None and not e.stats["weapons"][n]["unwieldy"]

    def threatens(self, u: "Unit") -> bool:
        """Whether the unit threatens the squares around it (a melee weapon in hand or natural weapons)."""
        return not u.down and self.melee_weapon(u) is not None and u.stats["natural_reach"] > 0

    def threat_reach(self, u: "Unit") -> int:
        """The squares of reach the unit threatens with the melee weapon in hand (the observation's plane; a reach of
        10 ft is 2 squares, whose second diagonal the map's alternating distance leaves out, as the rules do)."""
        return reach_feet(u, self.melee_weapon(u)) // 5 if self.threatens(u) else 0

    def threatens_square(self, enc: "Encounter", e: "Unit", square: tuple[int, int]) -> bool:
        n = self.melee_weapon(e)
        return n is not None and within_reach(enc.grid, e.pos, square, reach_feet(e, n))

    def threat_map(self, enc: "Encounter", mover: "Unit", exclude: int | None = None) -> dict[int, list[int]]:
        """Square index -> the units that could take an attack of opportunity on `mover` leaving it."""
        g = enc.grid
        out: dict[int, list[int]] = {}
        for e in enc.units:
            if e.side == mover.side or e.id == exclude or not self.can_aoo(enc, e):
                continue
            for i in reach_squares(g, e.pos, reach_feet(e, self.melee_weapon(e))):
                out.setdefault(i, []).append(e.id)
        return out

    # ---- reactions ------------------------------------------------------------------------------------------------
    def legal_reactions(self, enc: "Encounter", unit: "Unit", trigger: Trigger) -> list[Decision]:
        """An attack of opportunity on the provoker (then DECLINE) when the unit can take one: it threatens the square
        the provoker leaves or acts in, and the provoker has no cover from it."""
        t = enc.units[trigger.provoker]
        if t.down or unit.side == t.side or not self.can_aoo(enc, unit):
            return []
        square = tuple(trigger.data.get("square", t.pos))
        if not self.threatens_square(enc, unit, square):
            return []
        if enc.grid.cover_between(unit.pos, square) != "none":
            return []
        return [aoo_decision(t.id), DECLINE]

    def provoke(self, enc: "Encounter", t: "Unit", kind: str, why: str, dice: "Dice", react: "React | None",
                square: tuple[int, int] | None = None, exclude: int | None = None,
                watchers: list[int] | None = None) -> tuple[list[Event], bool]:
        """Offer attacks of opportunity on t to the enemies that threaten it (in initiative order), each resolved
        before what t does. Returns the events and whether one of them damaged t."""
        ev: list[Event] = []
        damaged = False
        trigger = Trigger(kind, t.id, why, {"square": square or t.pos})
        order = watchers if watchers is not None else [enc.units[i].id for i in enc.order] or \
            [u.id for u in enc.units]
        for uid in order:
            e = enc.units[uid]
            if uid == exclude or e.side == t.side or e.down:
                continue
            choice = ask_reaction(self, enc, e, trigger, react)
            if choice is None:
                if self.can_aoo(enc, e) and self.threatens_square(enc, e, trigger.data["square"]):
                    ev.append(new_event("aoo_declined", e.id, t.id, {"why": why}))
                continue
            e.state["reaction"] = False
            ev.append(new_event("aoo", e.id, t.id, {"why": why}))
            before = t.hp
            _, _, more = self._attack(enc, e, t, self.melee_weapon(e), dice, "attack of opportunity")
            ev += more
            damaged = damaged or t.hp < before
            if t.down:
                break
        return ev, damaged

    # ---- walking ----------------------------------------------------------------------------------------------------
    def walk(self, enc: "Encounter", a: "Unit", path: list[tuple[int, int]], dice: "Dice", react: "React | None",
             how: str, safe_first: bool = False, safe: bool = False, cost: int | None = None,
             threats: dict[int, list[int]] | None = None) -> list[Event]:
        """Move along `path` square by square. Leaving a threatened square provokes (not with `safe`: a guarded step;
        not the first square with `safe_first`: a withdrawal); the attack comes before the step, and a unit that
        drops, or is knocked prone, stops where it is. A grappler that moves lets go. `threats`: the mover's threat
        map, if known."""
        start = a.pos
        ev: list[Event] = []
        if path:
            if safe:
                threats = {}
            elif threats is None:
                threats = self.threat_map(enc, a)
            struck: set[int] = set()
            w = enc.grid.width
            for k, sq in enumerate(path):
                here = a.pos[1] * w + a.pos[0]
                watchers = [i for i in threats.get(here, ()) if i not in struck]
                if watchers and not (safe_first and k == 0):
                    struck.update(watchers)
                    more, _ = self.provoke(enc, a, "leaves_threat", "moving out of a threatened square", dice, react,
                                           watchers=watchers)
                    ev += more
                    if a.down or self.halted(a):
                        break
                a.pos = sq
        if a.pos != start:
            ev += self.release_grapple(enc, a, "moved away")
        data = {"start": start, "end": a.pos, "squares": len(path), "how": how}
        if cost is not None:
            data["cost"] = cost
        return [new_event("move", a.id, None, data), *ev]

    @staticmethod
    def halted(u: "Unit") -> bool:
        """Whether a unit on the move is stopped where it is: knocked prone or held (grappled, pinned) on the way."""
        conds = u.state["conds"]
        return bool(conds) and ("prone" in conds or K.has(u.state, "stuck"))

    def release_grapple(self, enc: "Encounter", grappler: "Unit", why: str) -> list[Event]:
        """The grappler lets go: its target is no longer grappled or pinned."""
        tid = grappler.state["grappling"]
        if tid is None:
            return []
        t = enc.units[tid]
        grappler.state["grappling"] = None
        if t.state["grappled_by"] == grappler.id:
            t.state["grappled_by"] = None
            K.remove(t.state, "grappled")
            K.remove(t.state, "pinned")
        return [new_event("grapple_ends", grappler.id, t.id, {"why": why})]

    def forced_move(self, enc: "Encounter", by: "Unit", t: "Unit", path: list[tuple[int, int]], dice: "Dice",
                    react: "React | None", how: str) -> list[Event]:
        """Move t along `path` (a bull rush, a reposition): a creature moved out of a threatened square provokes
        from those threatening it (the one moving it excepted); a grappled creature moved breaks free."""
        start = t.pos
        ev: list[Event] = []
        threats = self.threat_map(enc, t, exclude=by.id)
        w = enc.grid.width
        struck: set[int] = set()
        for sq in path:
            watchers = [i for i in threats.get(t.pos[1] * w + t.pos[0], ()) if i not in struck]
            if watchers:
                struck.update(watchers)
                more, _ = self.provoke(enc, t, "leaves_threat", f"moved by {by.name}", dice, react, watchers=watchers)
                ev += more
                if t.down or self.halted(t):
                    break
            t.pos = sq
        if t.pos != start:
            if t.state["grappled_by"] is not None:
                ev += self.release_grapple(enc, enc.units[t.state["grappled_by"]], f"{t.name} was moved")
            ev += self.release_grapple(enc, t, "moved")
        return [new_event("move", t.id, None, {"start": start, "end": t.pos, "squares": len(path), "how": how,
                                               "by": by.id}), *ev]
