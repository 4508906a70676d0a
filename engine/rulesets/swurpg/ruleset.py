"""SWURPG combat ("Combat System", a 5e-style Star Wars system): the economy, legality and resolution of every action.

`legal_actions` is the one source of legality; `apply` pays an action's cost and resolves it through a small resolver
per catalogue entry (`_r_<key>`). Arithmetic lives in `combat.py`, conditions in `conditions.py`, stat blocks in
`stats.py`, estimates in `estimates.py`.

Turn structure: movement in feet up to Speed, split as the unit likes, before its Action (after it only with a trait,
or the extra movement of a Dash or the safe movement of a Disengage, which exist to be used after them); one Action;
one Bonus Action where something grants one (an off-hand attack, a frightened unit's Disengage); one free object
interaction (a further one costs the Action); one Reaction a round (opportunity attacks), kept in the unit's state.
The turn's budget is {action, bonus, object, feet}.
"""
from __future__ import annotations

from pathlib import Path


from engine.core import areas as A
from engine.core.decision import END, Decision, option_decision, square_decisions, target_decision
from engine.core.dice import Dice
from engine.core.economy import Economy
from engine.core.errors import InputError
from engine.core.events import Event, new_event
from engine.core.reaction import DECLINE, React, Trigger, ask_reaction
from engine.core.ruleset import Cost, Estimate, Ruleset, load_catalogues
from engine.core.state import Encounter
from engine.core.units import Unit

from . import combat as C
from . import conditions as K
from . import estimates as E
from . import narration as N
from . import stats as S

_HERE = Path(__file__).parent
OA = "opportunity_attack"
MEDPAC = "2d4+2"
STABILIZE_DC, BLEED_DC = 25, 12
FEAR_RANGE = 4      # squares: a frightened creature within 20 ft of the source must move away
AFTER_ACTION_MOVES = frozenset({"dash", "disengage"})  # movement may follow these Actions


_CATALOGUE, _REACTIONS = load_catalogues(_HERE / "actions.yaml")
_PLAIN = {k: Decision(k) for k in ("stand_up", "drop_prone", "dash", "disengage", "bonus_disengage", "dodge",
                                   "escape", "stow")}
_OA: dict[int, Decision] = {}


def oa_decision(target: int) -> Decision:
    got = _OA.get(target)
    if got is None:
        got = _OA[target] = Decision(OA, target)
    return got


def reach_squares(u: Unit, n: int | None) -> int:
    """Reach in squares with weapon n (None: unarmed): 1, or 2 with a reach weapon."""
    return 2 if n is not None and u.stats["weapons"][n]["reach"] else 1


adjacent, autofire_area = C.adjacent, C.autofire_area


class SwurpgRuleset(Ruleset):
    id = "swurpg"
    name = "SWURPG"
    env_name = "SWURPG"
    rules_file = "002_6f047de89c1fd7d3.txt"
    opens_doors = True
    metric = "chebyshev"     # every square 5 ft, diagonals too: the 5e default
    attack_defense = "AC"
    sides = ("pcs", "npcs")
    hp_scale = 30.0
    economy = Economy(slots={"action": 1, "bonus": 1, "object": 1, "feet": 30},
                      trades={"object": ("object", "action")})
    catalogue = _CATALOGUE
    reactions = _REACTIONS
    words_file = _HERE / "words.yaml"
    n_unit_features = E.N_FEATURES

    def __init__(self):
        self._resolvers = {key: getattr(self, f"_r_{key}") for key in self.catalogue if key != "end_turn"}
        self._reach: dict = {}  # `_reach_table`'s walks

    # ---- units ----------------------------------------------------------------------------------------------------
    def templates(self) -> dict[str, dict]:
        return S.templates()

    def make_unit(self, uid: int, spec: dict, where: str) -> Unit:
        return S.make_unit(uid, spec, where)

    def check_unit(self, unit: Unit, where: str) -> None:
        S.check_unit(unit, where)

    def initiative_bonus(self, unit: Unit) -> int:
        """d20 + Dex + proficiency (a stat block's `initiative` replaces the sum)."""
        got = unit.stats["initiative"]
        return got if got is not None else C.mod(unit, "dex") + unit.stats["prof"]

    def unit_summary(self, u: Unit) -> dict:
        s = u.state
        out = {"ac": C.armor_class(u), "hp": u.hp, "conditions": sorted(s["conds"]),
               "holding": [u.stats["weapons"][n]["name"] for n in s["wield"]]}
        if s["temp_hp"]:
            out["temp_hp"] = s["temp_hp"]
        if u.hp <= 0 and not u.dead:
            out["death_saves"] = "stable" if s["stable"] else f"{s['death'][0]} successes, {s['death'][1]} failures"
        return out

    # ---- turns ----------------------------------------------------------------------------------------------------
    def new_budget(self, enc: Encounter, unit: Unit) -> dict[str, int]:
        extra = 1 if "extra_interaction" in unit.stats["traits"] else 0
        return {"action": 1, "bonus": 1, "object": 1 + extra, "feet": C.speed_feet(unit)}

    def can_act(self, enc: Encounter, unit: Unit) -> bool:
        """Standing units act; a dying one (0 HP, not stable, not dead) takes its turn only for its death save; a
        surprised one does not act in round 1."""
        if unit.down:
            return not unit.dead and not unit.state["stable"] and unit.hp <= 0 and \
                unit.state["dead_round"] < enc.round
        return not (unit.state["surprised"] and enc.round == 1)

    def start_round(self, enc: Encounter, dice: Dice) -> list[Event]:
        ev: list[Event] = []
        if enc.round == 2:
            for u in enc.units:
                if u.state["surprised"]:
                    u.state["surprised"] = False
                    ev.append(new_event("condition_ends", None, u.id, {"condition": "surprised"}))
        return ev

    def start_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        """A dying unit rolls its death save; otherwise its reaction comes back, its Dodge and the help it gave end,
        regeneration heals, burning hurts, and a confused unit rolls for what it does."""
        s = u.state
        if u.down:
            return self._death_save(enc, u, dice)
        ev: list[Event] = []
        s["reaction"], s["dodging"], s["moved"] = True, False, False
        for other in enc.units:
            if other.state["helped"]:
                other.state["helped"] = [h for h in other.state["helped"] if h != u.id]
        if u.stats["regeneration"] and u.hp < u.max_hp:
            ev += C.heal(u, u.stats["regeneration"], "regeneration")
        if "burning" in s["conds"]:
            got, _ = dice.roll(C.dice("1d6"), f"{u.name}'s burning")
            ev.append(new_event("burning", None, u.id, {"amount": got}))
            ev += C.deal_damage(enc, None, u, got, "fire", "burning")
            if u.down:
                return ev
        if "confused" in s["conds"]:
            face = dice.face(6, f"{u.name}'s confusion")
            what = "attack" if face <= 2 else "wander" if face <= 4 else "normal"
            enc.flags["confusion"] = what
            ev.append(new_event("confusion", None, u.id, {"face": face, "what": what}))
            if what == "wander":
                ev += self._wander(enc, u, dice)
        return ev

    def end_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        """Bleeding hurts; conditions with a save are saved against (stunned, frightened, ...); dazed ends at the end of
        the turn after the one it began in."""
        ev: list[Event] = []
        if u.down:
            return ev
        s = u.state
        if "bleeding" in s["conds"]:
            got, _ = dice.roll(C.dice("1d8"), f"{u.name}'s bleeding")
            ev.append(new_event("bleeding", None, u.id, {"amount": got}))
            ev += C.deal_damage(enc, None, u, got, "kinetic", "bleeding")
            if u.down:
                return ev
        for c, (ends, save, dc, _src) in list(s["conds"].items()):
            if ends != K.UNTIL_SAVED and ends <= enc.round:
                K.remove(s, c)
                ev.append(new_event("condition_ends", None, u.id, {"condition": c}))
            elif save:  # a condition a save ends (bleeding, burning, prone and grappled carry none)
                ok, e = C.roll_save(dice, u, save, dc, f"to end {c}")
                ev.append(e)
                if ok:
                    K.remove(s, c)
                    ev.append(new_event("condition_ends", None, u.id, {"condition": c}))
        return ev

    def _death_save(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        """d20 at the start of the turn: 10+ a success, a 1 two failures, a 20 wakes with 1 HP; three successes stable,
        three failures dead."""
        s = u.state
        s["dead_round"] = enc.round
        face = dice.d20(f"{u.name}'s death save")
        d = s["death"]
        if face == 20:
            return [new_event("death_save", None, u.id, {"face": face, "ok": True}), *C.heal(u, 1, "a natural 20")]
        if face >= 10:
            d[0] += 1
        else:
            d[1] += 2 if face == 1 else 1
        ev = [new_event("death_save", None, u.id, {"face": face, "ok": face >= 10, "successes": d[0],
                                                   "failures": min(3, d[1])})]
        if d[1] >= 3:
            d[1] = 3
            ev += C.die(u, "three failed death saves")
        elif d[0] >= 3:
            s["stable"] = True
            ev.append(new_event("stable", None, u.id, {}))
        return ev

    def _wander(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        """A confused unit that rolled 3-4 moves one square in a random direction (if it can) and takes no Action."""
        dirs = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
        dx, dy = dirs[dice.face(8, f"{u.name}'s wandering direction") - 1]
        sq = (u.pos[0] + dx, u.pos[1] + dy)
        g = enc.grid
        enc.budget["action"] = enc.budget["bonus"] = 0
        if C.speed_feet(u) >= C.FEET and g.inside(*sq) and g.passable(g.index(*sq)) and \
                not any(o.pos == sq and not o.down for o in enc.units):
            enc.budget["feet"] = 0
            return self.walk(enc, u, [sq], dice, None, "wanders")
        enc.budget["feet"] = 0
        return []

    # ---- weapons, reach and sight -----------------------------------------------------------------------------------
    @staticmethod
    def main_weapon(u: Unit) -> int | None:
        w = u.state["wield"]
        return w[0] if w else None

    def can_hit(self, enc: Encounter, a: Unit, t: Unit, n: int | None) -> str | None:
        """How weapon n (None: unarmed) can attack t from where a stands: 'melee', 'ranged', 'thrown' or None."""
        w = C.weapon(a, n)
        g = enc.grid
        dist = g.distance(a.pos, t.pos)
        if w["kind"] == "melee":
            r = reach_squares(a, n)
            if dist <= r and (dist <= 1 or g.line_of_effect(a.pos, t.pos)):
                return "melee"
            if not w["thrown"]:
                return None
        elif w["kind"] != "ranged":
            return None
        if dist * C.FEET > (w["long"] or w["range"]):
            return None
        wd = g.width
        los, loe, _ = g.sight(a.pos[1] * wd + a.pos[0], t.pos[1] * wd + t.pos[0])
        if not (los and loe):
            return None  # full cover: cannot be targeted
        return "thrown" if w["kind"] == "melee" else "ranged"

    @staticmethod
    def _charmer(enc: Encounter, a: Unit) -> tuple[int, int] | None:
        """Where the creature that charmed a stands (None: a is not charmed)."""
        c = a.state["conds"].get("charmed")
        return None if c is None or c[3] is None else enc.units[c[3]].pos

    def _harmable(self, a: Unit, t: Unit) -> bool:
        c = a.state["conds"].get("charmed")
        return c is None or c[3] != t.id

    def _foes(self, enc: Encounter, a: Unit) -> list[Unit]:
        """The creatures a may attack: its standing enemies; a confused unit that rolled 1-2 only the nearest
        creature."""
        if enc.flags.get("confusion") == "attack":
            others = [u for u in enc.units if not u.down and u is not a]
            if not others:
                return []
            d = enc.grid.distance
            near = min(d(a.pos, u.pos) for u in others)
            return [u for u in others if d(a.pos, u.pos) == near]
        return [u for u in enc.units if not u.dead and u.side != a.side and self._harmable(a, u)]

    def _fear_source(self, enc: Encounter, a: Unit) -> Unit | None:
        c = a.state["conds"].get("frightened")
        if c is None or c[3] is None:
            return None
        src = enc.units[c[3]]
        return src if not src.down and enc.grid.line_of_sight(a.pos, src.pos) else None

    def _reach_table(self, enc: Encounter, a: Unit, budget_squares: int) -> dict[int, int]:
        """Squares a walk reaches within `budget_squares` (enemies block, allies may be passed), kept while the map,
        the doors and the units' squares stay as they are."""
        g = enc.grid
        w = g.width
        enemies = tuple(u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side != a.side)
        friends = tuple(u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side == a.side and u is not a)
        key = (g._geometry, g._door_key(), a.pos, budget_squares, enemies, friends)
        got = self._reach.get(key)
        if got is None:
            if len(self._reach) > 4096:
                self._reach.clear()
            got = self._reach[key] = g.reachable(a.pos, budget_squares, enemies, friends)
        return got

    # ---- legality -------------------------------------------------------------------------------------------------
    def legal_actions(self, enc: Encounter, a: Unit) -> list[Decision]:
        """Every decision the rules allow a now, END first."""
        out = [END]
        s = a.state
        if a.down:
            return out
        b = enc.budget
        conds = s["conds"]
        flags = enc.flags
        g = enc.grid
        w = g.width
        here = a.pos[1] * w + a.pos[0]
        prone = "prone" in conds
        no_act = bool(conds) and K.has(s, "no_act") or flags.get("confusion") == "wander"

        # ---- movement ----
        feet = b["feet"]
        if feet >= C.FEET and not (conds and K.has(s, "no_move")):
            if prone:
                half = C.speed_feet(a) // 2
                if feet >= half:
                    out.append(_PLAIN["stand_up"])
                table = square_decisions(g)["crawl"]
                squares = self._reach_table(enc, a, feet // (2 * C.FEET))
            else:
                table = square_decisions(g)["move"]
                squares = self._reach_table(enc, a, feet // C.FEET)
            src = self._fear_source(enc, a) if "frightened" in conds else None
            if src is None:
                out += [table[i] for i in squares if i != here]
            else:  # never closer to the source; within 20 ft, only away from it
                now = g.distance(a.pos, src.pos)
                xy = g.xy
                out += [table[i] for i in squares if i != here and
                        (g.distance(xy(i), src.pos) > now if now <= FEAR_RANGE else g.distance(xy(i), src.pos) >= now)]
        if not prone and not flags.get("acted") and not no_act:
            out.append(_PLAIN["drop_prone"])
        if no_act:
            return out

        # ---- the Action ----
        if b["action"] > 0:
            n = self.main_weapon(a)
            foes = self._foes(enc, a)
            allies = [u for u in enc.units if u.side == a.side and not u.dead]
            for e in foes:
                eid = e.id
                if self.can_hit(enc, a, e, n):
                    out.append(target_decision("attack", eid))
                if adjacent(a.pos, e.pos):
                    out.append(target_decision("unarmed", eid))
                    if e.down:
                        continue
                    if len(allies) > 1 and e.side != a.side:
                        out.append(target_decision("help", eid))
                    if s["grappling"] is None and S.SIZES[e.stats["size"]] >= S.SIZES[a.stats["size"]] - 1 and \
                            e.state["grappled_by"] is None:
                        out.append(target_decision("grapple", eid))
            if n is not None and a.stats["weapons"][n]["autofire"]:
                table = square_decisions(g)["autofire"]
                out += [table[i] for i in self._autofire_squares(enc, a, n)]
            gren = self.grenade(a)
            if gren is not None:
                table = square_decisions(g)["grenade"]
                out += [table[i] for i in self._grenade_squares(enc, a, gren)]
            out += [_PLAIN["dash"], _PLAIN["disengage"], _PLAIN["dodge"]]
            for u in allies:
                if not adjacent(a.pos, u.pos):
                    continue
                us = u.state
                if s["medpacs"] > 0 and u.hp < u.max_hp:
                    out.append(target_decision("medpac", u.id))
                if u.hp <= 0 and not us["stable"]:
                    out.append(target_decision("stabilize", u.id))
                if "bleeding" in us["conds"]:
                    out.append(target_decision("treat_bleeding", u.id))
                if "burning" in us["conds"]:
                    out.append(target_decision("extinguish", u.id))
            if s["grappled_by"] is not None:
                out.append(_PLAIN["escape"])

        # ---- the Bonus Action ----
        if b["bonus"] > 0:
            if flags.get("main_attack") and C.can_off_hand(a):
                off = s["wield"][1]
                for e in self._foes(enc, a):
                    if self.can_hit(enc, a, e, off):
                        out.append(target_decision("off_hand", e.id))
            if "frightened" in conds and not flags.get("disengaged"):
                out.append(_PLAIN["bonus_disengage"])

        # ---- object interactions ----
        if self.economy.can_pay(b, "object"):
            ws = a.stats["weapons"]
            for k, wpn in enumerate(ws):
                if k not in s["wield"] and k not in s["dropped"] and wpn["kind"] != "grenade" and not wpn["natural"] \
                        and s["ammo"][k] != 0:
                    out.append(option_decision("draw", k))
            if len(s["wield"]) == 2:
                out.append(_PLAIN["stow"])
            for k in s["dropped"]:
                out.append(option_decision("pick_up", k))
            if g.doors():
                table = square_decisions(g)["open_door"]
                out += [table[i] for i in g.doors_at_hand(a.pos, {u.pos[1] * w + u.pos[0] for u in enc.units
                                                                  if not u.down})]
        return out

    def grenade(self, u: Unit) -> int | None:
        """The first grenade the unit still carries."""
        for k, w in enumerate(u.stats["weapons"]):
            if w["kind"] == "grenade" and u.state["ammo"][k] != 0:
                return k
        return None

    def _autofire_squares(self, enc: Encounter, a: Unit, n: int) -> list[int]:
        """Top-left squares of the 2x2 areas in the weapon's range and line of effect that hold a creature."""
        g = enc.grid
        w = g.width
        reach = (a.stats["weapons"][n]["long"] or a.stats["weapons"][n]["range"]) // C.FEET
        occupied = {u.pos for u in enc.units if not u.down and u is not a}
        charmer = self._charmer(enc, a)
        out = set()
        for (x, y) in occupied:
            for sq in ((x, y), (x - 1, y), (x, y - 1), (x - 1, y - 1)):
                if sq[0] < 0 or sq[1] < 0 or sq[0] + 1 >= g.width or sq[1] + 1 >= g.height:
                    continue
                if a.pos in autofire_area(sq) or charmer is not None and charmer in autofire_area(sq):
                    continue
                if any(g.distance(a.pos, p) <= reach and g.line_of_effect(a.pos, p) for p in autofire_area(sq)):
                    out.add(sq[1] * w + sq[0])
        return sorted(out)

    def area_squares(self, enc: Encounter, a: Unit, w: dict, aim: tuple[int, int]) -> list[tuple[int, int]]:
        """The footprint of area weapon w aimed at `aim`: a burst of its radius centred there, a cone or a line of its
        size from the attacker towards it, or a square of its size with `aim` as the top-left."""
        g = enc.grid
        shape = w["shape"]
        if shape == "burst":
            return A.burst(g, aim, w["radius"] // C.FEET)
        if shape == "cone":
            return A.cone(g, a.pos, aim, w["size"] // C.FEET)
        if shape == "line":
            return A.line(g, a.pos, aim, w["size"] // C.FEET)
        return A.square(g, aim, w["size"] // C.FEET)

    def area_targets(self, enc: Encounter, a: Unit, w: dict, aim: tuple[int, int]) -> list[Unit]:
        """The creatures an area weapon catches: in its footprint and in line of effect of where it spreads from (the
        landing square of a burst or a square, the attacker for a cone or a line), so a blast may reach round full
        cover."""
        g = enc.grid
        squares = set(self.area_squares(enc, a, w, aim))
        origin = a.pos if w["shape"] in ("cone", "line") else aim
        return [u for u in enc.units if not u.dead and u.pos in squares
                and (u.pos == origin or g.line_of_effect(origin, u.pos))]

    def _aimed_squares(self, enc: Encounter, a: Unit, wpn: dict) -> list[int]:
        """A cone or line is aimed at a creature within its length and line of effect; a square is laid where it
        catches a creature, within range."""
        g = enc.grid
        w = g.width
        charmer = self._charmer(enc, a)
        others = [u.pos for u in enc.units if not u.down and u is not a]
        if wpn["shape"] == "square":
            size = wpn["size"] // C.FEET
            reach = (wpn["long"] or wpn["range"]) // C.FEET
            aims = {(x - dx, y - dy) for x, y in others for dx in range(size) for dy in range(size)}
            aims = {p for p in aims if g.inside(*p) and g.distance(a.pos, p) <= reach and g.line_of_effect(a.pos, p)}
        else:
            length = wpn["size"] // C.FEET
            aims = {p for p in others if g.distance(a.pos, p) <= length and g.line_of_effect(a.pos, p)}
        out = []
        for p in aims:
            foot = self.area_squares(enc, a, wpn, p)
            if a.pos in foot or charmer is not None and charmer in foot:
                continue
            out.append(p[1] * w + p[0])
        return sorted(out)

    def _grenade_squares(self, enc: Encounter, a: Unit, n: int) -> list[int]:
        """Squares in the grenade's range and line of effect within 10 ft of a creature (empty squares elsewhere
        change nothing and are left out); other shapes: `_aimed_squares`."""
        g = enc.grid
        w = g.width
        wpn = a.stats["weapons"][n]
        if wpn["shape"] != "burst":
            return self._aimed_squares(enc, a, wpn)
        reach = (wpn["long"] or wpn["range"]) // C.FEET
        r = wpn["radius"] // C.FEET
        charmer = self._charmer(enc, a)
        out = set()
        for u in enc.units:
            if u.down or u is a:
                continue
            ux, uy = u.pos
            for y in range(max(0, uy - r), min(g.height, uy + r + 1)):
                for x in range(max(0, ux - r), min(g.width, ux + r + 1)):
                    i = y * w + x
                    if i in out or not g.passable(i) and g.kind(i) != "low_cover":
                        continue
                    if charmer is not None and g.distance(charmer, (x, y)) <= r:
                        continue
                    if g.distance(a.pos, (x, y)) <= reach and g.line_of_effect(a.pos, (x, y)):
                        out.add(i)
        return sorted(out)

    def why_illegal(self, enc: Encounter, a: Unit, d: Decision) -> str:
        spec = self.catalogue.get(d.action)
        if spec is None:
            return f"'{d.action}' is not an action of {self.name}"
        s, b = a.state, enc.budget
        if a.down:
            return f"{a.name} is at 0 HP and cannot act"
        if s["conds"] and K.has(s, "no_act") and spec.cost in ("action", "bonus"):
            which = next(c for c in s["conds"] if K.CONDITIONS[c].get("no_act"))
            return f"{a.name} is {which} and cannot take actions"
        g = enc.grid
        if d.square is not None:
            if not g.inside(*d.square):
                return f"{d.square} is not on the map"
            i = g.index(*d.square)
            if spec.cost == "feet" and not g.passable(i):
                return f"{d.square} is {g.kind(i).replace('_', ' ')}, not a square anyone can stand in"
            if d.action == "open_door" and g.kind(i) != "door":
                return f"there is no door at {d.square}"
        if spec.cost == "feet":
            if b["feet"] < C.FEET:
                return f"{a.name} has no movement left" + (" (movement comes before the Action)"
                                                           if enc.flags.get("acted") else "")
            if d.action == "move" and "prone" in s["conds"]:
                return f"{a.name} is prone: crawl or stand up first"
            return f"{spec.name} to {d.square} is beyond {a.name}'s {b['feet']} ft of movement or blocked"
        if spec.cost == "action" and b["action"] <= 0:
            return f"{a.name} has already taken the Action this turn"
        if spec.cost == "bonus" and b["bonus"] <= 0:
            return f"{a.name} has already taken a Bonus Action this turn"
        if d.action == "off_hand":
            if not enc.flags.get("main_attack"):
                return "the off-hand attack follows a main-hand attack made with the Action this turn"
            if not C.can_off_hand(a):
                return f"{a.name} wields no light weapon in the off hand"
        if d.target is not None and d.target < len(enc.units):
            t = enc.units[d.target]
            if spec.target == "enemy" and t.side == a.side:
                return f"{t.name} is not an enemy of {a.name}"
            if spec.target == "ally" and t.side != a.side:
                return f"{t.name} is not an ally of {a.name}"
            if spec.target == "enemy" and t.dead:
                return f"{t.name} is dead"
            if spec.target == "enemy" and d.action in ("attack", "off_hand"):
                return f"{t.name} is out of range, out of sight or behind full cover"
            if spec.target in ("enemy", "ally") and not adjacent(a.pos, t.pos):
                return f"{t.name} is not within 5 ft"
        if spec.cost == "object" and not self.economy.can_pay(b, "object"):
            return f"{a.name} has used its object interaction this turn"
        return self.action_reason(enc, a, d)

    # the reasons of actions' own conditions (`Ruleset.action_reason` calls `_why_<action>`)

    def _why_stow(self, enc, a, d):
        return f"{a.name} holds fewer than two weapons: nothing to stow" if len(a.state["wield"]) < 2 else None

    def _why_escape(self, enc, a, d):
        return f"{a.name} is not grappled" if a.state["grappled_by"] is None else None

    def _why_drop_prone(self, enc, a, d):
        if "prone" in a.state["conds"]:
            return f"{a.name} is prone already"
        return f"{a.name} has taken its Action: dropping prone comes before it" if enc.flags.get("acted") else None

    def _why_open_door(self, enc, a, d):
        if d.square is None:
            return None
        if enc.grid.distance(a.pos, d.square) > 1:
            return f"the door at {d.square} is not next to {a.name}"
        occ = enc.occupant(d.square)
        return f"{occ.name} stands in the doorway at {d.square}" if occ is not None else None

    @staticmethod
    def _no_weapon(a: Unit, k) -> str | None:
        ws = a.stats["weapons"]
        if k is None or not 0 <= k < len(ws):
            return f"{a.name} has no weapon {k} (its weapons: " + \
                ", ".join(f"{i} {w['name']}" for i, w in enumerate(ws)) + ")"
        return None

    def _why_pick_up(self, enc, a, d):
        k = d.option
        return self._no_weapon(a, k) or (None if k in a.state["dropped"] else
                                         f"{a.name}'s {a.stats['weapons'][k]['name']} is not on the ground")

    def _why_draw(self, enc, a, d):
        k, s = d.option, a.state
        if self._no_weapon(a, k):
            return self._no_weapon(a, k)
        wpn = a.stats["weapons"][k]
        w = wpn["name"]
        if k in s["wield"]:
            return f"{a.name} already holds the {w}"
        if k in s["dropped"]:
            return f"the {w} is on the ground: pick it up"
        if wpn["kind"] == "grenade" or wpn["natural"]:
            return f"the {w} is not drawn (a grenade is thrown from the belt, natural weapons are always at hand)"
        return f"the {w} is spent" if s["ammo"][k] == 0 else None

    def _why_stabilize(self, enc, a, d):
        t = self.target_of(enc, d)
        if t is None:
            return None
        return f"{t.name} is not dying" if t.hp > 0 else f"{t.name} is stable already" if t.state["stable"] else None

    def _why_extinguish(self, enc, a, d):
        t = self.target_of(enc, d)
        return f"{t.name} is not burning" if t is not None and "burning" not in t.state["conds"] else None

    def _why_treat_bleeding(self, enc, a, d):
        t = self.target_of(enc, d)
        return f"{t.name} is not bleeding" if t is not None and "bleeding" not in t.state["conds"] else None

    def _why_help(self, enc, a, d):
        t = self.target_of(enc, d)
        if t is None:
            return None
        return f"{t.name} is down" if t.down else \
            f"{a.name} has no ally left for Help to give advantage against {t.name}"

    def _why_medpac(self, enc, a, d):
        t = self.target_of(enc, d)
        if a.state["medpacs"] <= 0:
            return f"{a.name} has no medpac left"
        return f"{t.name} is unhurt" if t is not None and t.hp >= t.max_hp else None

    def _why_bonus_disengage(self, enc, a, d):
        if enc.flags.get("disengaged"):
            return f"{a.name} has disengaged this turn"
        return f"Disengage as a Bonus Action is for a frightened creature; {a.name} is not frightened"

    def _why_autofire(self, enc, a, d):
        ws = a.stats["weapons"]
        n = self.main_weapon(a)
        if n is None or not ws[n]["autofire"]:
            return f"{a.name} holds no weapon with autofire"
        if d.square is None:
            return None
        area = " ".join(str(p) for p in autofire_area(d.square))
        return (f"autofire covers the 10-ft square of {area}: it must hold a creature, leave {a.name} out and lie "
                f"within the {ws[n]['name']}'s range and line of effect")

    def _why_grenade(self, enc, a, d):
        n = self.grenade(a)
        if n is None:
            return f"{a.name} has no grenade left"
        w = a.stats["weapons"][n]
        return (f"the {w['name']} lands within {(w['long'] or w['range'])} ft in line of effect, where its area "
                f"catches a creature: {d.square} is not such a square") if d.square is not None else None

    # ---- resolution -----------------------------------------------------------------------------------------------
    def effective_cost(self, enc: Encounter, unit: Unit, d: Decision) -> Cost:
        key = d.action
        if key in ("move", "crawl"):
            table = self._reach_table(enc, unit, enc.budget["feet"] // (C.FEET * (2 if key == "crawl" else 1)))
            steps = table.get(d.square[1] * enc.grid.width + d.square[0], 0)
            return Cost("feet", steps * C.FEET * (2 if key == "crawl" else 1))
        if key == "stand_up":
            return Cost("feet", max(C.FEET, C.speed_feet(unit) // 2))
        return Cost(self.catalogue[key].cost)

    def budget_after(self, enc: Encounter, unit: Unit, d: Decision) -> dict[str, int]:
        if d == END:
            return {}
        left = dict(enc.budget)
        cost = self.effective_cost(enc, unit, d)
        if self.economy.can_pay(left, *cost):
            self._spend(left, unit, d, cost)
        if d.action == "dash":
            left["feet"] += C.speed_feet(unit)
        return left

    def _spend(self, budget: dict[str, int], u: Unit, d: Decision, cost: Cost) -> bool:
        """Pay d's cost from budget; returns whether the Action paid. Spending the Action ends the movement (but for a
        Dash or a Disengage, whose movement comes after them, or a unit whose trait lets it move after acting)."""
        paid = self.economy.pay(budget, *cost) if cost.cost != "free" else []
        if "action" not in paid:
            return False
        if d.action not in AFTER_ACTION_MOVES and "move_after_action" not in u.stats["traits"]:
            budget["feet"] = 0
        return True

    def apply(self, enc: Encounter, a: Unit, d: Decision, dice: Dice, react: React | None = None) -> list[Event]:
        cost = self.effective_cost(enc, a, d)
        if self._spend(enc.budget, a, d, cost):
            enc.flags["acted"] = True
        enc.version += 1
        self._paid = cost.amount  # what a move's path may cost (`_r_move`)
        return self._resolvers[d.action](enc, a, d, dice, react)

    # ---- movement ---------------------------------------------------------------------------------------------------
    def threatens(self, e: Unit, square: tuple[int, int], g) -> bool:
        """Whether e could strike square with its melee weapon in hand (or unarmed)."""
        n = self.main_weapon(e)
        if n is not None and e.stats["weapons"][n]["kind"] != "melee":
            r = 1  # a ranged weapon in hand: an unarmed strike
        else:
            r = reach_squares(e, n)
        d = g.distance(e.pos, square)
        return d <= r and (d <= 1 or g.line_of_effect(e.pos, square))

    def can_react(self, e: Unit) -> bool:
        s = e.state
        return not e.down and s["reaction"] and not s["surprised"] and not (s["conds"] and K.has(s, "no_react"))

    def _path(self, enc: Encounter, a: Unit, goal: tuple[int, int], squares: int) -> list[tuple[int, int]]:
        g = enc.grid
        w = g.width
        enemies = [u for u in enc.units if not u.down and u.side != a.side]
        danger: dict[int, int] = {}
        if not enc.flags.get("disengaged"):
            for e in enemies:
                if self.can_react(e):
                    r = 2
                    for y in range(max(0, e.pos[1] - r), min(g.height, e.pos[1] + r + 1)):
                        for x in range(max(0, e.pos[0] - r), min(g.width, e.pos[0] + r + 1)):
                            if self.threatens(e, (x, y), g):
                                danger[y * w + x] = 1
        path = g.path(a.pos, goal, squares, [u.pos[1] * w + u.pos[0] for u in enemies], danger)
        return path or []

    def walk(self, enc: Encounter, a: Unit, path: list[tuple[int, int]], dice: Dice, react: React | None,
             how: str) -> list[Event]:
        """Move along path square by square: a step out of an enemy's reach provokes its opportunity attack (not
        after a Disengage), resolved before the step; a unit that drops stops where it is."""
        start = a.pos
        ev: list[Event] = []
        g = enc.grid
        for sq in path:
            if not enc.flags.get("disengaged"):
                for e in [u for u in enc.units if not u.down and u.side != a.side]:
                    if self.threatens(e, a.pos, g) and not self.threatens(e, sq, g):
                        ev += self._offer_oa(enc, e, a, dice, react)
                        if a.down:
                            break
            if a.down:
                break
            a.pos = sq
        if a.pos != start:
            a.state["moved"] = True
            a.state["dropped"] = []  # what it dropped stays behind
            ev += self._moved_away(enc, a)
        return [new_event("move", a.id, None, {"start": start, "end": a.pos, "squares": len(path), "how": how}), *ev]

    def _moved_away(self, enc: Encounter, a: Unit) -> list[Event]:
        """A grapple ends when the grappled creature is out of the grappler's reach, or the grappler moves away."""
        ev: list[Event] = []
        s = a.state
        if s["grappling"] is not None:
            t = enc.units[s["grappling"]]
            if not adjacent(a.pos, t.pos):
                ev += self.release(enc, a, "moved away")
        return ev

    @staticmethod
    def release(enc: Encounter, grappler: Unit, why: str) -> list[Event]:
        return C.release_grapple(enc, grappler, why)

    # ---- reactions ---------------------------------------------------------------------------------------------------
    def legal_reactions(self, enc: Encounter, unit: Unit, trigger: Trigger) -> list[Decision]:
        t = enc.units[trigger.provoker]
        if t.down or unit.side == t.side or not self.can_react(unit):
            return []
        if not enc.grid.line_of_sight(unit.pos, t.pos):
            return []
        return [oa_decision(t.id), DECLINE]

    def _offer_oa(self, enc: Encounter, e: Unit, t: Unit, dice: Dice, react: React | None) -> list[Event]:
        trigger = Trigger("leaves_reach", t.id, "leaving its reach", {"square": t.pos})
        choice = ask_reaction(self, enc, e, trigger, react)
        if choice is None:
            if self.can_react(e):
                return [new_event("aoo_declined", e.id, t.id, {"why": "leaving its reach"})]
            return []
        e.state["reaction"] = False
        n = self.main_weapon(e)
        if n is not None and e.stats["weapons"][n]["kind"] != "melee":
            n = None
        return [new_event("aoo", e.id, t.id, {"why": "leaving its reach"}), *self._strike(enc, e, t, n, dice, "opportunity attack", True)]

    # ---- attacks -------------------------------------------------------------------------------------------------------
    def _strike(self, enc: Encounter, a: Unit, t: Unit, n: int | None, dice: Dice, why: str, melee: bool,
                off_hand: bool = False) -> list[Event]:
        """One attack roll of weapon n (None: unarmed) on t, and its damage: a natural 20 always hits and is a critical
        hit, a natural 1 always misses; a melee hit from within 5 ft on a paralyzed or unconscious creature is
        critical; a stun weapon's hit stuns on a failed Con save instead of dealing damage."""
        w = C.weapon(a, n)
        bonus = C.attack_bonus(a, n)
        sit, cover = C.situational(enc, a, t, melee)
        adv, dis, notes = C.attack_mods(enc, a, t, w, melee)
        face, faces = C.roll_d20(dice, adv, dis, f"{a.name}'s {why} on {t.name}")
        total = face + bonus + sit
        ac = C.armor_class(t) + cover
        hit = face == 20 or (face != 1 and total >= ac)
        crit = face == 20 or hit and melee and adjacent(a.pos, t.pos) and K.has(t.state, "melee_crit")
        helped = [h for h in t.state["helped"] if h != a.id and enc.units[h].side == a.side]
        if helped:
            t.state["helped"] = [h for h in t.state["helped"] if h not in helped[:1]]
        ev: list[Event] = [new_event("attack", a.id, t.id, {
            "weapon": w["name"], "face": face, "faces": faces, "bonus": bonus + sit, "total": total, "defense": ac,
            "hit": hit, "crit": crit, "why": why, "notes": notes, "cover": cover})]
        dice.show(ev)  # the result, before a person at the table is asked for the damage or a save
        if not hit:
            return ev
        if w["stun_dc"]:
            dc = w["stun_dc"] + a.stats["prof"]
            ok, e = C.roll_save(dice, t, "con", dc, "against the stun")
            ev.append(e)
            if not ok and K.add(t.state, "stunned", K.UNTIL_SAVED, "con", dc, a.id):
                ev.append(new_event("condition", a.id, t.id, {"condition": "stunned", "why": w["name"]}))
                ev += C.release_grapple(enc, t, "incapacitated")
            return ev
        amount, _ = C.roll_damage(dice, C.dice(w["damage"]), C.damage_bonus(a, n, off_hand), crit,
                                  f"{a.name}'s {w['name']} damage")
        ev += C.deal_damage(enc, a.id, t, amount, w["type"], w["name"], crit)
        if w["condition"] and not t.down:
            ev += self._inflict(enc, a, t, w, dice)
        return ev

    def _inflict(self, enc: Encounter, a: Unit, t: Unit, w: dict, dice: Dice) -> list[Event]:
        """A weapon's condition on a hit, unless the target makes its save."""
        cond = w["condition"]
        ok, e = C.roll_save(dice, t, w["save"], w["condition_dc"], f"against {cond}")
        if ok:
            return [e]
        if cond in K.NEXT_TURN:  # the text gives these no save to end them: until the end of the target's next turn
            later = t.id in enc.order and enc.order.index(t.id) > enc.turn  # its turn in this round is still to come
            ends, save = (enc.round if later else enc.round + 1), ""
        else:
            ends, save = K.UNTIL_SAVED, "" if cond in ("prone", "bleeding", "burning") else w["save"]
        K.add(t.state, cond, ends, save, w["condition_dc"], a.id)
        ev = [e, new_event("condition", a.id, t.id, {"condition": cond, "why": w["name"]})]
        if K.CONDITIONS[cond].get("no_act"):
            ev += C.release_grapple(enc, t, "incapacitated")
        return ev

    def _r_attack(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n = self.main_weapon(a)
        how = self.can_hit(enc, a, t, n)
        enc.flags["main_attack"] = True
        if how == "thrown":
            self._throw_away(a, n)
        return self._strike(enc, a, t, n, dice, "attack" if how == "melee" else "shot" if how == "ranged" else "throw",
                            how == "melee")

    @staticmethod
    def _throw_away(a: Unit, n: int) -> None:
        """A thrown weapon leaves the hand for the rest of the encounter (its `ammo` 0: it cannot be drawn again)."""
        a.state["wield"] = [k for k in a.state["wield"] if k != n]
        a.state["ammo"][n] = 0

    def _r_unarmed(self, enc, a, d, dice, react):
        return self._strike(enc, a, enc.units[d.target], None, dice, "unarmed strike", True)

    def _r_off_hand(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n = a.state["wield"][1]
        how = self.can_hit(enc, a, t, n)
        if how == "thrown":
            self._throw_away(a, n)
        return self._strike(enc, a, t, n, dice, "off-hand attack", how == "melee", off_hand=True)

    def _area_save(self, enc: Encounter, a: Unit, targets: list[Unit], w: dict, dc: int, dice: Dice,
                   why: str) -> list[Event]:
        """Each creature makes a Dex save against dc: full damage on a failure, half on a success (one damage roll
        for all)."""
        amount, _ = C.roll_damage(dice, C.dice(w["damage"]), w["bonus_damage"], False, f"{a.name}'s {w['name']}")
        ev: list[Event] = [new_event("area_damage", a.id, None, {"amount": amount, "weapon": w["name"], "why": why})]
        for t in targets:
            if t.dead:
                continue
            ok, e = C.roll_save(dice, t, "dex", dc, f"against the {why}")
            ev.append(e)
            ev += C.deal_damage(enc, a.id, t, amount, w["type"], w["name"], halve=ok)
            if w["condition"] and not ok and not t.down:
                ev += self._inflict(enc, a, t, w, dice)
        return ev

    def _r_autofire(self, enc, a, d, dice, react):
        n = self.main_weapon(a)
        w = a.stats["weapons"][n]
        braced = "prone" in a.state["conds"] or not a.state["moved"]
        penalty = 2 if braced else 5
        face, faces = C.roll_d20(dice, 0, 0, f"{a.name}'s autofire")
        total = face + C.attack_bonus(a, n) - penalty
        area = set(autofire_area(d.square))
        targets = [u for u in enc.units if u.pos in area and not u.dead and u is not a]
        ev = [new_event("autofire", a.id, None, {"square": d.square, "face": face, "total": total,
                                                 "braced": braced, "weapon": w["name"]})]
        return ev + self._area_save(enc, a, targets, w, total, dice, "autofire")

    def _r_grenade(self, enc, a, d, dice, react):
        n = self.grenade(a)
        w = a.stats["weapons"][n]
        if a.state["ammo"][n] > 0:
            a.state["ammo"][n] -= 1
        targets = self.area_targets(enc, a, w, d.square)
        ev = [new_event("grenade", a.id, None, {"square": d.square, "weapon": w["name"], "dc": w["dc"],
                                                "shape": w["shape"]})]
        return ev + self._area_save(enc, a, targets, w, w["dc"], dice, "blast" if w["shape"] == "burst" else w["shape"])

    # ---- other actions -------------------------------------------------------------------------------------------------
    def _r_move(self, enc, a, d, dice, react):
        path = self._path(enc, a, d.square, self._paid // C.FEET)  # within the squares `apply` paid for
        return self.walk(enc, a, path, dice, react, "moves")

    def _r_crawl(self, enc, a, d, dice, react):
        path = self._path(enc, a, d.square, self._paid // (2 * C.FEET))
        return self.walk(enc, a, path, dice, react, "crawls")

    def _r_stand_up(self, enc, a, d, dice, react):
        K.remove(a.state, "prone")
        return [new_event("stands", a.id, None, {})]

    def _r_drop_prone(self, enc, a, d, dice, react):
        K.add(a.state, "prone")
        return [new_event("condition", a.id, a.id, {"condition": "prone", "why": "drops prone"})]

    def _r_dash(self, enc, a, d, dice, react):
        enc.budget["feet"] += C.speed_feet(a)
        return [new_event("dash", a.id, None, {"feet": enc.budget["feet"]})]

    def _r_disengage(self, enc, a, d, dice, react):
        enc.flags["disengaged"] = True
        return [new_event("disengage", a.id, None, {})]

    _r_bonus_disengage = _r_disengage

    def _r_dodge(self, enc, a, d, dice, react):
        a.state["dodging"] = True
        return [new_event("dodge", a.id, None, {})]

    def _r_help(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        if a.id not in t.state["helped"]:
            t.state["helped"].append(a.id)
        return [new_event("help", a.id, t.id, {})]

    def _r_grapple(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        mine = C.check_d20(dice, a, "str", f"{a.name}'s Athletics (grapple)") + C.skill_bonus(a, "athletics", "str")
        skill = "athletics" if C.skill_bonus(t, "athletics", "str") >= C.skill_bonus(t, "acrobatics", "dex") \
            else "acrobatics"
        theirs = C.check_d20(dice, t, "str" if skill == "athletics" else "dex",
                             f"{t.name}'s {skill.title()} (resist the grapple)") + \
            C.skill_bonus(t, skill, "str" if skill == "athletics" else "dex")
        if t.state["conds"] and K.has(t.state, "fail_phys"):
            theirs = -99
        ok = mine >= theirs
        ev = [new_event("contest", a.id, t.id, {"what": "grapple", "mine": mine, "theirs": theirs, "ok": ok})]
        if ok:
            a.state["grappling"] = t.id
            t.state["grappled_by"] = a.id
            K.add(t.state, "grappled", K.UNTIL_SAVED, "", 0, a.id)
            ev.append(new_event("condition", a.id, t.id, {"condition": "grappled", "why": "grapple"}))
        return ev

    def _r_escape(self, enc, a, d, dice, react):
        g = enc.units[a.state["grappled_by"]]
        skill = "athletics" if C.skill_bonus(a, "athletics", "str") >= C.skill_bonus(a, "acrobatics", "dex") \
            else "acrobatics"
        mine = C.check_d20(dice, a, "str" if skill == "athletics" else "dex", f"{a.name}'s {skill.title()} (escape)") + \
            C.skill_bonus(a, skill, "str" if skill == "athletics" else "dex")
        theirs = C.check_d20(dice, g, "str", f"{g.name}'s Athletics (hold on)") + C.skill_bonus(g, "athletics", "str")
        ok = mine > theirs
        ev = [new_event("contest", a.id, g.id, {"what": "escape", "mine": mine, "theirs": theirs, "ok": ok})]
        if ok:
            ev += self.release(enc, g, f"{a.name} escaped")
        return ev

    def _r_draw(self, enc, a, d, dice, react):
        """The weapon into the main hand; the one there is put away, and the off-hand one stays if both fit."""
        s = a.state
        n = d.option
        off = s["wield"][1:] if len(s["wield"]) == 2 else []
        new = [n] + [k for k in off if k != n]
        try:
            S.check_hands(a.stats, new, "")
        except InputError:
            new = [n]
        s["wield"] = new
        return [new_event("draw", a.id, None, {"weapon": a.stats["weapons"][n]["name"]})]

    def _r_stow(self, enc, a, d, dice, react):
        n = a.state["wield"].pop()
        return [new_event("stow", a.id, None, {"weapon": a.stats["weapons"][n]["name"]})]

    def _r_pick_up(self, enc, a, d, dice, react):
        s = a.state
        s["dropped"].remove(d.option)
        if len(s["wield"]) < 2:
            try:
                S.check_hands(a.stats, s["wield"] + [d.option], "")
                s["wield"].append(d.option)
            except InputError:
                s["wield"] = [d.option]
        else:
            s["wield"] = [d.option]
        return [new_event("pick_up", a.id, None, {"weapon": a.stats["weapons"][d.option]["name"]})]

    def _r_open_door(self, enc, a, d, dice, react):
        g = enc.grid
        return [new_event("door", a.id, None, {"square": d.square, "open": g.toggle_door(g.index(*d.square))})]

    def _r_medpac(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        a.state["medpacs"] -= 1
        got, _ = dice.roll(C.dice(MEDPAC), f"{a.name}'s medpac on {t.name}")
        K.remove(t.state, "bleeding")
        return [new_event("medpac", a.id, t.id, {"amount": got}), *C.heal(t, got, "medpac")]

    def _r_stabilize(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        total = C.check_d20(dice, a, "wis", f"{a.name}'s Treat Injury on {t.name}") + \
            C.skill_bonus(a, "treat_injury", "wis")
        ok = total >= STABILIZE_DC
        ev = [new_event("check", a.id, t.id, {"skill": "Treat Injury", "total": total, "dc": STABILIZE_DC, "ok": ok})]
        if ok:
            t.state["stable"] = True
            ev.append(new_event("stable", a.id, t.id, {}))
        return ev

    def _r_treat_bleeding(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        total = C.check_d20(dice, a, "wis", f"{a.name}'s Treat Injury on {t.name}") + \
            C.skill_bonus(a, "treat_injury", "wis")
        ok = total >= BLEED_DC
        ev = [new_event("check", a.id, t.id, {"skill": "Treat Injury", "total": total, "dc": BLEED_DC, "ok": ok})]
        if ok:
            K.remove(t.state, "bleeding")
            ev.append(new_event("condition_ends", a.id, t.id, {"condition": "bleeding"}))
        return ev

    def _r_extinguish(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        K.remove(t.state, "burning")
        return [new_event("condition_ends", a.id, t.id, {"condition": "burning"})]

    # ---- estimates, observation and narration --------------------------------------------------------------------------
    def estimate(self, enc: Encounter, actor: Unit, decision: Decision) -> Estimate:
        return E.estimate(self, enc, actor, decision)

    def threat_estimate(self, enc: Encounter, attacker: Unit, target: Unit) -> tuple[float, float]:
        return E.threat_estimate(self, enc, attacker, target)

    def unit_features(self, enc: Encounter, unit: Unit) -> list[float]:
        return E.unit_features(self, enc, unit)

    def threat_reach(self, unit: Unit) -> int:
        if unit.down:
            return 0
        n = self.main_weapon(unit)
        return 1 if n is None or unit.stats["weapons"][n]["kind"] != "melee" else reach_squares(unit, n)

    def tactics(self):
        from .tactics import SwurpgTactics
        return SwurpgTactics(self)

    def narrate(self, event: Event, enc: Encounter) -> str | None:
        return N.narrate(self, event, enc)

    def attack_words(self, event: Event, enc: Encounter) -> tuple[str, str] | None:
        return N.attack_verb(event, enc, self), "AC"

    def option_label(self, decision: Decision, enc: Encounter) -> str:
        u = enc.actor
        if decision.option is not None and u is not None and decision.option < len(u.stats["weapons"]):
            return u.stats["weapons"][decision.option]["name"]
        return f"option {decision.option}"

