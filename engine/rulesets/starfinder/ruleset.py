"""Starfinder combat (Core Rulebook ch. 8, "Actions in Combat"): the economy, legality and resolution of every action.

`legal_actions` is the one source of legality; `apply` pays an action's cost and resolves it through a small resolver
per catalogue entry (`_r_<key>`). Arithmetic lives in `combat.py`, conditions in `conditions.py`, stat blocks in
`stats.py`, grid intersections and blasts in `area.py`, reach / reactions / movement in `movement.py`, combat
maneuvers in `maneuvers.py`, special abilities, spells and items in `abilities.py`.

Turn structure: a standard, a move and a swift action (the standard may be spent as a move or a swift action, the
move as a swift action) or one full action, which needs all three untouched. Some actions leave a choice to make
before the turn goes on (a full attack's second attack, an ability's targets, where a repositioned foe goes): it is
kept in `enc.flags["pending"]` and only its choices (and ending the turn) are legal until it is made.
"""
from __future__ import annotations

from pathlib import Path


from engine.core.decision import END, Decision, option_decision, square_decisions, target_decision
from engine.core.dice import Dice
from engine.core.economy import Economy
from engine.core.events import Event, new_event
from engine.core.reaction import React
from engine.core.ruleset import Cost, Estimate, Ruleset, load_catalogues
from engine.core.state import Encounter
from engine.core.units import Unit

from . import area as A
from . import combat as C
from . import conditions as K
from . import estimates as E
from . import narration as N
from . import stats as S
from .abilities import Abilities
from .maneuvers import Maneuvers
from .movement import Movement, reach_feet, reach_squares, speed_squares, within_reach

FULL = "full"
_HERE = Path(__file__).parent
TRICKS = {f"dirty_trick_{c}": c for c in K.DIRTY_TRICKS}
FEINT_RANGE = 6  # squares: a feint needs the foe within 30 ft and in sight (the text gives no range)


_CATALOGUE, _REACTIONS = load_catalogues(_HERE / "actions.yaml")

# ---- interned decisions (legal_actions returns the same objects each time) ------------------------------------------
_PLAIN = {k: Decision(k) for k in ("fight_defensively", "total_defense", "concentrate", "dismiss", "escape",
                                   "stand_up", "shake_off", "drop_prone")}


def charge_ends(g, start: tuple[int, int], target: tuple[int, int], feet: int) -> list[tuple[int, tuple[int, int]]]:
    """(distance, end square) of the squares from which a reach of `feet` attacks `target`, closest to `start` first
    (ties: the straightest); cached per map, door state, squares and reach."""
    geo = g._geometry
    tables = geo.memo.setdefault("starfinder_charge_ends", {})
    key = (g._door_key(), start, target, feet)
    got = tables.get(key)
    if got is None:
        if len(tables) > 50_000:
            tables.clear()
        ax, ay = start
        out = [(g.distance(start, end), (end[0] - ax) ** 2 + (end[1] - ay) ** 2, end[1], end[0], end)
               for end in map(g.xy, reach_squares(g, target, feet))]
        out.sort()
        got = tables[key] = [(x[0], x[4]) for x in out]
    return got


def charge_line(g, start: tuple[int, int], end: tuple[int, int]) -> list[tuple[int, int]] | None:
    """The squares of the straight line from start to end (end included) when none of them blocks or slows
    movement; None otherwise. Cached per map, door state and pair of squares."""
    geo = g._geometry
    tables = geo.memo.setdefault("starfinder_charge", {})
    key = (g._door_key(), start, end)
    if key in tables:
        return tables[key]
    if len(tables) > 100_000:
        tables.clear()
    w = g.width
    line = [g.xy(i) for i in g.between(start, end)] + [end]
    ok = all(g.passable(y * w + x) and g.enter_cost(y * w + x) == 1 for x, y in line)
    got = tables[key] = line if ok else None
    return got


def run_rays(g, start: tuple[int, int], limit: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per direction of the 8, the squares a run from `start` passes within `limit` squares of movement, up to the
    map's edge, difficult terrain, anything solid or a wall's corner (creatures are checked by the caller). Cached
    per map, door state, square and limit."""
    geo = g._geometry
    tables = geo.memo.setdefault("starfinder_run", {})
    key = (g._door_key(), start, limit)
    got = tables.get(key)
    if got is None:
        if len(tables) > 50_000:
            tables.clear()
        rays = []
        for dx, dy in ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)):
            (x, y), cost, parity, ray = start, 0, 0, []
            while True:
                nx, ny = x + dx, y + dy
                if not g.inside(nx, ny):
                    break
                i = g.index(nx, ny)
                if not g.passable(i) or g.enter_cost(i) > 1:
                    break
                if dx and dy:
                    if g.kind(g.index(nx, y)) == "wall" or g.kind(g.index(x, ny)) == "wall":
                        break
                    cost += 2 if parity else 1
                    parity ^= 1
                else:
                    cost += 1
                if cost > limit:
                    break
                ray.append((nx, ny))
                x, y = nx, ny
            rays.append(tuple(ray))
        got = tables[key] = tuple(rays)
    return got


class StarfinderRuleset(Movement, Maneuvers, Abilities, Ruleset):
    id = "starfinder"
    name = "Starfinder"
    env_name = "Starfinder"
    rules_file = "001_1f90b4465986659c.txt"
    opens_doors = True
    metric = "alternating"
    attack_defense = "AC"
    sides = ("pcs", "npcs")
    hp_scale = 30.0
    economy = Economy(slots={"standard": 1, "move": 1, "swift": 1},
                      trades={"standard": ("standard",), "move": ("move", "standard"),
                              "swift": ("swift", "move", "standard")},
                      full_round=FULL, full_round_needs=("standard", "move", "swift"))
    catalogue = _CATALOGUE
    reactions = _REACTIONS
    words_file = _HERE / "words.yaml"  # the autopilot's table words

    def __init__(self):
        self._resolvers = {key: self._r_dirty_trick if key in TRICKS else getattr(self, f"_r_{key}")
                           for key in self.catalogue if key != "end_turn"}

    # ---- units ----------------------------------------------------------------------------------------
    def templates(self) -> dict[str, dict]:
        return S.templates()

    def make_unit(self, uid: int, spec: dict, where: str) -> Unit:
        return S.make_unit(uid, spec, where)

    def check_unit(self, unit: Unit, where: str) -> None:
        S.check_unit(unit, where)

    def initiative_bonus(self, unit: Unit) -> int:
        return unit.stats["initiative"]

    def unit_summary(self, u: Unit) -> dict:
        s = u.state
        held = [u.stats["weapons"][n]["name"] for n in s["wield"]]
        conds = sorted(s["conds"])
        if s["defense"]:
            conds.append(f"{'total defense' if s['total_defense'] else 'defensive'} +{s['defense']}")
        return {"eac": C.armor_class(u, True, False)[0], "kac": C.armor_class(u, False, False)[0],
                "sp": s["sp"], "hp": u.hp - s["sp"], "conditions": conds, "holding": held}

    # ---- turns -------------------------------------------------------------------------------------------
    def can_act(self, enc: Encounter, unit: Unit) -> bool:
        return not unit.down

    def start_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        """Timed effects end (just before the initiative count they began on); the unit's own stances end and its
        reaction comes back; what it gave its allies (covering, harrying fire) lapses; burning and bleeding hurt."""
        ev: list[Event] = []
        now = K.time_key(enc.round, enc.turn)
        for other in enc.units:
            os = other.state
            if os["conds"]:
                for c in K.expired(os, now):
                    K.remove(os, c)
                    ev.append(new_event("condition_ends", None, other.id, {"condition": c}))
            if os["covered"]:
                os["covered"] = [x for x in os["covered"] if x[0] != u.id]
            if os["harried"]:
                os["harried"] = [x for x in os["harried"] if x[0] != u.id]
            if os["sustained"]:  # a sustained spell whose condition ran out on its own is over
                os["sustained"] = [x for x in os["sustained"] if x[2] in enc.units[x[1]].state["conds"]]
        s = u.state
        s["reaction"], s["acted"] = True, True
        s["defense"], s["total_defense"], s["charged"] = 0, False, False
        if "burning" in s["conds"]:
            total = 0
            for part in s["burn"]:  # "1d6 F": fire (burn), "1d4 A": acid (corrode); each source adds
                expr, typ = part.split()
                got, _ = dice.roll(C.dice(expr), f"{u.name}'s burning")
                total += C.reduce_damage(u, got, typ)
            enc.flags["burn_damage"] = total
            ev.append(new_event("burning", None, u.id, {"amount": total}))
            ev += C.deal_damage(enc, None, u, total, "F", "burning")
        if "bleeding" in s["conds"] and not u.down:
            got, _ = dice.roll(C.dice(s["bleed"]), f"{u.name}'s bleeding")
            ev.append(new_event("bleeding", None, u.id, {"amount": got}))
            ev += C.deal_damage(enc, None, u, got, "bleed", "bleeding")
        if u.down:
            ev += self.on_down(enc, u)
        return ev

    def end_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        """A grapple not renewed this turn ends; a feint not used by now lapses; a concentration spell not
        concentrated on this turn ends; a burning unit may try its Reflex save (DC 10 + the fire damage it took)."""
        ev: list[Event] = []
        s = u.state
        if s["grappling"] is not None and s["grapple_round"] < enc.round:
            ev += self.release_grapple(enc, u, "not renewed")
        for other in enc.units:
            if other.state["feinted"]:
                other.state["feinted"] = [x for x in other.state["feinted"] if x[0] != u.id or x[1] == enc.round]
        if s["sustained"] and s["concentrated"] < enc.round:
            ev += self.end_sustained(enc, u, "no concentration", "concentration")
        if "burning" in s["conds"] and not u.down:
            dc = 10 + enc.flags.get("burn_damage", 0)
            ok, e = C.roll_save(dice, u, "ref", dc, "to put out the flames")
            ev.append(e)
            if ok:
                K.remove(s, "burning")
                ev.append(new_event("condition_ends", None, u.id, {"condition": "burning"}))
        return ev

    def on_down(self, enc: Encounter, u: Unit) -> list[Event]:
        """A unit out of the fight lets go of its grapple and its sustained spells."""
        ev = self.release_grapple(enc, u, "down")
        if u.state["grappled_by"] is not None:
            ev += self.release_grapple(enc, enc.units[u.state["grappled_by"]], f"{u.name} is down")
        if u.state["sustained"]:
            ev += self.end_sustained(enc, u, "down")
        return ev

    # ---- weapons in hand ------------------------------------------------------------------------------------------
    @staticmethod
    def ammo_ok(u: Unit, n: int, shots: int = 1) -> bool:
        left = u.state["ammo"][n]
        return left == -1 or left >= u.stats["weapons"][n]["usage"] * shots

    def _held(self, u: Unit, kind: str, explode: bool = False, shots: int = 1) -> int | None:
        """The first weapon in hand of a kind ('ranged': not an explode weapon unless `explode`) that can fire."""
        ws = u.stats["weapons"]
        two_hands = "grappled" in u.state["conds"]
        for n in u.state["wield"]:
            w = ws[n]
            if w["kind"] != kind or bool(w["explode"]) != explode or two_hands and w["hands"] == 2:
                continue
            if self.ammo_ok(u, n, shots):
                return n
        return None

    def ranged_weapon(self, u: Unit, shots: int = 1) -> int | None:
        return self._held(u, "ranged", shots=shots)

    def explode_weapon(self, u: Unit) -> int | None:
        got = self._held(u, "grenade", True)
        return got if got is not None else self._held(u, "ranged", True)

    def attack_weapon(self, u: Unit) -> int | None:
        """The melee weapon a unit attacks with now (a two-handed one not while grappled)."""
        n = self.melee_weapon(u)
        if n is not None and "grappled" in u.state["conds"] and u.stats["weapons"][n]["hands"] == 2:
            return None
        return n

    def can_shoot(self, enc: Encounter, a: Unit, t: Unit, n: int) -> bool:
        """A ranged or thrown attack on t: within the weapon's maximum range, in sight and line of effect."""
        g = enc.grid
        wpn = a.stats["weapons"][n]
        if g.distance(a.pos, t.pos) > C.max_range(wpn) // C.FEET:
            return False
        w = g.width
        los, loe, _ = g.sight(a.pos[1] * w + a.pos[0], t.pos[1] * w + t.pos[0])
        return los and loe

    def can_melee(self, enc: Encounter, a: Unit, t: Unit, n: int | None) -> bool:
        return within_reach(enc.grid, a.pos, t.pos, reach_feet(a, n))

    # ---- legality -----------------------------------------------------------------------------------------------
    def legal_actions(self, enc: Encounter, a: Unit) -> list[Decision]:
        """Every decision the rules allow a now, END first."""
        out = [END]
        s = a.state
        if a.down or s["conds"] and K.has(s, "helpless"):
            return out
        flags = enc.flags
        pending = flags.get("pending")
        if pending is not None and a is enc.actor:  # the acting unit's choice within its action
            return out + self._follow_ups(enc, a, pending)
        b = enc.budget
        econ = self.economy
        std = b.get("standard", 0) > 0
        mv = econ.can_pay(b, "move")
        sw = econ.can_pay(b, "swift")
        conds = s["conds"]
        staggered = "staggered" in conds
        full = econ.can_pay(b, FULL) and not staggered
        pinned = "pinned" in conds
        stuck = bool(conds) and K.has(s, "stuck")
        prone = "prone" in conds
        g = enc.grid
        w = g.width
        here = a.pos[1] * w + a.pos[0]
        enemies = [u for u in enc.units if not u.down and u.side != a.side]
        speed = speed_squares(a)
        ws = a.stats["weapons"]

        # ---- move actions ----
        if mv and not pinned:
            if not stuck and speed > 0:
                blockers = [u.pos[1] * w + u.pos[0] for u in enemies]
                friends = [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side == a.side and u is not a]
                if not prone:
                    table = square_decisions(g)["move"]
                    out += [table[i] for i in g.reachable(a.pos, speed, blockers, friends) if i != here]
                table = square_decisions(g)["crawl" if prone else "guarded_step"]
                out += [table[i] for i in g.reachable(a.pos, 1, blockers, friends) if i != here]
            if prone or "off_kilter" in conds:
                out.append(_PLAIN["stand_up"])
            for n in self._drawable(a):
                out.append(option_decision("draw", n))
            for n in s["wield"]:
                if ws[n]["capacity"] and s["ammo"][n] < ws[n]["capacity"]:
                    out.append(option_decision("reload", n))
            for n in self._on_ground(enc, a):
                out.append(option_decision("pick_up", n))
            if g.doors():
                table = square_decisions(g)["open_door"]
                out += [table[i] for i in self._doors_at_hand(enc, a)]
        if mv and s["tricks"]:
            out.append(_PLAIN["shake_off"])
        if sw and not prone and not pinned:
            out.append(_PLAIN["drop_prone"])

        # ---- attacks: standard and full actions ----
        attacks_before = len(out)
        if (std or full) and not pinned:
            m = self.attack_weapon(a)
            r = self.ranged_weapon(a)
            th = self._held(a, "thrown")
            m_full = m is not None and not ws[m]["unwieldy"]
            r_full = r is not None and not ws[r]["unwieldy"]
            can_charge = full and m is not None and not (conds and (K.has(s, "no_run") or stuck or prone))
            occupied = {u.pos for u in enc.units if not u.down and u is not a} if can_charge else None
            for e in enemies:
                eid = e.id
                melee_ok = m is not None and self.can_melee(enc, a, e, m)
                shot_ok = r is not None and self.can_shoot(enc, a, e, r)
                if std:
                    if melee_ok:
                        out.append(target_decision("melee_attack", eid))
                    if shot_ok:
                        out.append(target_decision("ranged_attack", eid))
                        out.append(target_decision("harrying_fire", eid))
                    if th is not None and self.can_shoot(enc, a, e, th):
                        out.append(target_decision("throw", eid))
                    out += self._maneuvers(enc, a, e, m, melee_ok)
                if full:
                    if melee_ok and m_full:
                        out.append(target_decision("full_attack_melee", eid))
                    if shot_ok and r_full:
                        out.append(target_decision("full_attack_ranged", eid))
                    if can_charge and self.charge_end(enc, a, e, occupied) is not None:
                        out.append(target_decision("charge", eid))
            if std:
                x = self.explode_weapon(a)
                if x is not None:
                    wx = ws[x]
                    reach = wx["range"] * wx["increments"] // 5
                    table = square_decisions(g)["explode_attack"]
                    out += [table[p[1] * w + p[0]] for p, _ in A.targetable(g, a.pos, reach)]
                if r is not None:
                    out += [target_decision("covering_fire", u.id) for u in enc.units
                            if not u.down and u.side == a.side and u is not a]
            if full:
                out += [target_decision("coup_de_grace", u.id) for u in self._helpless_foes(enc, a)]
        elif std and pinned and s["grappled_by"] is not None:
            out += [target_decision("grapple", s["grappled_by"])]
        if len(out) > attacks_before and not flags.get("defensive") and not flags.get("attacked"):
            out.append(_PLAIN["fight_defensively"])

        # ---- other standard actions ----
        if std:
            if not pinned:
                for e in enemies:
                    if self._can_feint(enc, a, e):
                        out.append(target_decision("feint", e.id))
            out.append(_PLAIN["total_defense"])
            if s["concentrated"] < enc.round and any(x[3] == "concentration" for x in s["sustained"]):
                out.append(_PLAIN["concentrate"])
            if any(x[3] == "dismissible" for x in s["sustained"]):
                out.append(_PLAIN["dismiss"])
            if s["grappled_by"] is not None:
                out.append(_PLAIN["escape"])
        out += self._ability_choices(enc, a, b, pinned)

        # ---- full-action movement ----
        if full and not stuck and not prone and speed > 0:
            if not K.has(s, "no_run"):
                table = square_decisions(g)["run"]
                out += [table[sq[1] * w + sq[0]] for sq in self.run_squares(enc, a)]
            if "blinded" not in conds:
                blockers = [u.pos[1] * w + u.pos[0] for u in enemies]
                friends = [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side == a.side and u is not a]
                table = square_decisions(g)["withdraw"]
                out += [table[i] for i in g.reachable(a.pos, 2 * speed, blockers, friends) if i != here]
        return out

    def _follow_ups(self, enc: Encounter, a: Unit, p: dict) -> list[Decision]:
        kind = p["kind"]
        if kind == "second":
            m, r = self.attack_weapon(a), self.ranged_weapon(a)
            out = []
            for e in enc.units:
                if e.down or e.side == a.side:
                    continue
                if m is not None and not a.stats["weapons"][m]["unwieldy"] and self.can_melee(enc, a, e, m):
                    out.append(target_decision("next_melee", e.id))
                if r is not None and not a.stats["weapons"][r]["unwieldy"] and self.can_shoot(enc, a, e, r):
                    out.append(target_decision("next_ranged", e.id))
            return out
        if kind == "ability":
            return self._ability_targets(enc, a, p)
        if kind == "reposition":
            table = square_decisions(enc.grid)["reposition_to"]
            w = enc.grid.width
            return [table[y * w + x] for x, y in self.reposition_squares(enc, a, enc.units[p["target"]], p["feet"])]
        return []

    @staticmethod
    def _drawable(a: Unit) -> list[int]:
        """Carried weapons not in hand, not on the ground or gone, and not used up (a grenade or thrown weapon with
        none left; an empty gun can be drawn and reloaded)."""
        s = a.state
        return [n for n, w in enumerate(a.stats["weapons"]) if not w["natural"] and n not in s["wield"]
                and n not in s["lost"] and n not in s["dropped"] and (s["ammo"][n] != 0 or w["capacity"])]

    @staticmethod
    def _on_ground(enc: Encounter, a: Unit) -> list[int]:
        ground = enc.extra.get("ground", {})
        return [n for n in a.state["dropped"] if tuple(ground.get(f"{a.id}:{n}", ())) == a.pos]

    @staticmethod
    def _doors_at_hand(enc: Encounter, a: Unit) -> list[int]:
        g = enc.grid
        return g.doors_at_hand(a.pos, {u.pos[1] * g.width + u.pos[0] for u in enc.units if not u.down})

    def _can_feint(self, enc: Encounter, a: Unit, e: Unit) -> bool:
        return (e.stats["intelligent"] and enc.grid.distance(a.pos, e.pos) <= FEINT_RANGE
                and enc.grid.line_of_sight(a.pos, e.pos))

    def _helpless_foes(self, enc: Encounter, a: Unit) -> list[Unit]:
        """Adjacent foes at 0 HP but not dead (dying characters), for a coup de grace with a weapon in hand."""
        if not a.state["wield"] and self.melee_weapon(a) is None:
            return []
        return [u for u in enc.units if u.down and not u.dead and u.side != a.side
                and enc.grid.distance(a.pos, u.pos) <= 1]

    def charge_end(self, enc: Encounter, a: Unit, t: Unit, occupied: set | None = None
                   ) -> tuple[tuple[int, int], list[tuple[int, int]]] | None:
        """(end square, path) of a legal charge at t, or None. The end is the square closest to a's start from which
        its melee weapon reaches t; at least 2 squares away and at most double a's speed; every square of the
        straight line there open, not difficult terrain and free of creatures (helpless ones excepted); t in sight."""
        s = a.state
        if s["conds"] and (K.has(s, "no_run") or K.has(s, "stuck") or "prone" in s["conds"]):
            return None
        n = self.attack_weapon(a)
        if n is None:
            return None
        g = enc.grid
        feet = reach_feet(a, n)
        limit = 2 * speed_squares(a)
        dist = g.distance(a.pos, t.pos)
        if dist < 2 or dist > limit + (2 if feet == 10 else feet // 5) or not g.line_of_sight(a.pos, t.pos):
            return None
        if occupied is None:
            occupied = {u.pos for u in enc.units if not u.down and u is not a}
        best: int | None = None
        found = None
        for d, end in charge_ends(g, a.pos, t.pos, feet):
            if best is not None and d > best:
                break
            best = d
            if d < 2 or d > limit or end in occupied:
                continue
            line = charge_line(g, a.pos, end)
            if line is not None and not any(sq in occupied for sq in line):
                found = (end, line)
                break
        return found

    def run_squares(self, enc: Encounter, a: Unit) -> list[tuple[int, int]]:
        """Squares a run can end on: along one of the 8 straight lines, up to four times the speed, stopping at
        difficult terrain, anything solid or an enemy; not on another creature."""
        occupied = {u.pos: u for u in enc.units if not u.down and u is not a}
        out = []
        for ray in run_rays(enc.grid, a.pos, 4 * speed_squares(a)):
            for sq in ray:
                who = occupied.get(sq)
                if who is None:
                    out.append(sq)
                elif who.side != a.side:
                    break
        return out

    def why_illegal(self, enc: Encounter, a: Unit, d: Decision) -> str:
        """A GM-readable reason a decision outside `legal_actions` is refused."""
        spec = self.catalogue.get(d.action)
        if spec is None:
            if d.action in self.reactions:
                return f"{self.reactions[d.action].name} is a reaction, taken on another creature's turn"
            return f"'{d.action}' is not a Starfinder action"
        s, b, flags = a.state, enc.budget, enc.flags
        if a.down:
            return f"{a.name} is down"
        if s["conds"] and K.has(s, "helpless"):
            return f"{a.name} is {' and '.join(c for c in s['conds'] if K.CONDITIONS[c].get('helpless'))}: no actions"
        pending = flags.get("pending") if a is enc.actor else None
        follow = spec.key in ("next_melee", "next_ranged", "pick_target", "pick_ally", "pick_point", "reposition_to")
        if pending is not None and not follow:
            return f"{a.name} must first finish {self._pending_words(enc, pending)} (or end the turn)"
        if follow:
            if pending is None:
                return f"{spec.name} only follows the action it belongs to"
            return f"that is not a possible choice for {self._pending_words(enc, pending)}"
        if d.target is not None and not 0 <= d.target < len(enc.units):
            return f"there is no unit number {d.target}"
        if spec.cost == FULL:
            if "staggered" in s["conds"]:
                return f"{a.name} is staggered: no full actions"
            if not self.economy.can_pay(b, FULL):
                return f"{spec.name} is a full action and {a.name} has already acted this turn"
        elif spec.cost != "free" and spec.key not in ("use_ability", "activate_item") and \
                not self.economy.can_pay(b, spec.cost):
            return f"{spec.name} needs a {spec.cost} action; {a.name} has {self.economy.describe(b) or 'nothing'} left"
        return self.action_reason(enc, a, d)

    def _pending_words(self, enc: Encounter, p: dict) -> str:
        if p["kind"] == "second":
            return "the full attack (its second attack)"
        if p["kind"] == "reposition":
            return f"repositioning {enc.units[p['target']].name} (choose the square)"
        return f"the {p['name']} (choose its target)"

    def _foe_problem(self, enc, a, d) -> str | None:
        t = self.target_of(enc, d)
        if t is None:
            return "name a target"
        if t.side == a.side:
            return f"{t.name} is not an enemy"
        if t.down:
            return f"{t.name} is already down"
        return None

    def _why_melee_attack(self, enc, a, d):
        if "pinned" in a.state["conds"]:
            return f"{a.name} is pinned: only escaping or grappling back"
        n = self.attack_weapon(a)
        if n is None:
            return f"{a.name} holds no melee weapon (an unarmed strike is a combat maneuver's only use here)"
        t = self.target_of(enc, d)
        return self._foe_problem(enc, a, d) or \
            f"{t.name} is beyond {a.name}'s reach of {reach_feet(a, n)} ft (or past a wall)"

    def _why_ranged_attack(self, enc, a, d, kind: str = "ranged"):
        if "pinned" in a.state["conds"]:
            return f"{a.name} is pinned: only escaping or grappling back"
        n = self.ranged_weapon(a) if kind == "ranged" else self._held(a, "thrown")
        if n is None:
            return f"{a.name} holds no {kind} weapon that can fire (draw one, or reload)"
        problem = self._foe_problem(enc, a, d)
        if problem:
            return problem
        t = self.target_of(enc, d)
        w = a.stats["weapons"][n]
        if not enc.grid.line_of_effect(a.pos, t.pos) or not enc.grid.line_of_sight(a.pos, t.pos):
            return f"{a.name} has no line of sight and effect to {t.name}"
        return (f"{t.name} is beyond the {w['name']}'s maximum range of {w['range'] * w['increments']} ft "
                f"({w['increments']} increments of {w['range']} ft)")

    def _why_throw(self, enc, a, d):
        return self._why_ranged_attack(enc, a, d, "thrown")

    _why_harrying_fire = _why_ranged_attack

    def _why_full_attack_melee(self, enc, a, d):
        n = self.attack_weapon(a)
        if n is not None and a.stats["weapons"][n]["unwieldy"]:
            return f"the {a.stats['weapons'][n]['name']} is unwieldy: no full attack with it"
        return self._why_melee_attack(enc, a, d)

    def _why_full_attack_ranged(self, enc, a, d):
        n = self.ranged_weapon(a)
        if n is not None and a.stats["weapons"][n]["unwieldy"]:
            return f"the {a.stats['weapons'][n]['name']} is unwieldy: no full attack with it"
        return self._why_ranged_attack(enc, a, d)

    def _why_explode_attack(self, enc, a, d):
        n = self.explode_weapon(a)
        if n is None:
            return f"{a.name} holds no grenade or explode weapon (draw one first)"
        if d.square is None:
            return "name the grid intersection (the top-left corner of a square)"
        w = a.stats["weapons"][n]
        if not enc.grid.inside(*d.square):
            return f"{d.square} is not on the map"
        return (f"the intersection at {d.square} is beyond the {w['name']}'s range of "
                f"{w['range'] * w['increments']} ft or out of {a.name}'s line of effect")

    def _why_covering_fire(self, enc, a, d):
        if self.ranged_weapon(a) is None:
            return f"{a.name} holds no ranged weapon that can fire"
        t = self.target_of(enc, d)
        if t is None or t.side != a.side or t is a or t.down:
            return "covering fire is given to an ally (not yourself) who is still up"
        return None

    def _why_feint(self, enc, a, d):
        problem = self._foe_problem(enc, a, d)
        if problem:
            return problem
        t = self.target_of(enc, d)
        if not t.stats["intelligent"]:
            return f"{t.name} has no Intelligence score and cannot be feinted"
        return f"{t.name} must be within 30 ft and in {a.name}'s sight"

    def _why_total_defense(self, enc, a, d):
        return None

    def _why_charge(self, enc, a, d):
        problem = self._foe_problem(enc, a, d)
        if problem:
            return problem
        s = a.state
        if K.has(s, "no_run") or K.has(s, "stuck") or "prone" in s["conds"]:
            return f"{a.name} cannot charge while {', '.join(sorted(s['conds']))}"
        if self.attack_weapon(a) is None:
            return f"{a.name} holds no melee weapon to charge with"
        return ("a charge needs a straight, clear line (no creatures, difficult terrain or obstacles) of 10 ft to "
                f"double {a.name}'s speed to the closest square from which it can attack, and the foe in sight")

    def _why_move(self, enc, a, d):
        s = a.state
        if "prone" in s["conds"] and d.action in ("move", "run", "withdraw", "guarded_step"):
            return f"{a.name} is prone: stand up (a move action) or crawl 5 ft"
        if s["conds"] and K.has(s, "stuck"):
            return f"{a.name} cannot move while {' and '.join(c for c in s['conds'] if K.CONDITIONS[c].get('stuck'))}"
        if d.square is None:
            return "name the square to move to"
        if not enc.grid.inside(*d.square):
            return f"{d.square} is not on the map"
        feet = {"move": speed_squares(a), "guarded_step": 1, "crawl": 1, "withdraw": 2 * speed_squares(a),
                "run": 4 * speed_squares(a)}.get(d.action, 0) * 5
        extra = " in a straight line, not across difficult terrain," if d.action == "run" else ""
        if d.action == "guarded_step":
            extra = " (not into difficult terrain)"
        return (f"{d.square} is not reachable{extra} within {feet} ft (walls, occupied squares, enemies in the way)")

    _why_guarded_step = _why_crawl = _why_run = _why_withdraw = _why_move

    def _why_stand_up(self, enc, a, d):
        conds = a.state["conds"]
        return f"{a.name} is not prone" if "prone" not in conds and "off_kilter" not in conds else \
            f"{a.name} is pinned"

    def _why_drop_prone(self, enc, a, d):
        return f"{a.name} is already prone" if "prone" in a.state["conds"] else None

    def _why_draw(self, enc, a, d):
        ws = a.stats["weapons"]
        if not 0 <= d.option < len(ws):
            return f"{a.name} has no weapon number {d.option} ({len(ws)} weapons)"
        w, s = ws[d.option], a.state
        if w["natural"]:
            return f"the {w['name']} is a natural weapon: always ready"
        if d.option in s["wield"]:
            return f"{a.name} already holds the {w['name']}"
        if d.option in s["lost"] or d.option in s["dropped"]:
            return f"the {w['name']} is on the ground or gone"
        return f"{a.name} has no {w['name']} left"

    def _why_reload(self, enc, a, d):
        ws = a.stats["weapons"]
        if not 0 <= d.option < len(ws) or d.option not in a.state["wield"]:
            return "reload a weapon in hand"
        return f"the {ws[d.option]['name']} takes no reloading or is full"

    def _why_pick_up(self, enc, a, d):
        return f"none of {a.name}'s weapons lies in its square"

    def _why_open_door(self, enc, a, d):
        g = enc.grid
        if d.square is None or not g.inside(*d.square):
            return "name the door's square (x, y) on the map"
        i = g.index(*d.square)
        if g.terrain[i] != "door" or i in g.broken:
            return f"there is no door at {d.square}"
        if g.distance(a.pos, d.square) > 1:
            return f"the door at {d.square} is not next to {a.name}"
        if "pinned" in a.state["conds"]:
            return f"{a.name} is pinned"
        return f"someone stands in the doorway at {d.square}: the door cannot be closed"

    def _why_shake_off(self, enc, a, d):
        return f"{a.name} has no condition from a dirty trick"

    def _why_escape(self, enc, a, d):
        return f"{a.name} is not grappled"

    def _why_concentrate(self, enc, a, d):
        return f"{a.name} has no spell to concentrate on (or has already concentrated this round)"

    def _why_dismiss(self, enc, a, d):
        return f"{a.name} has no dismissible spell going"

    def _why_coup_de_grace(self, enc, a, d):
        t = self.target_of(enc, d)
        if t is None or t.side == a.side:
            return "a coup de grace is dealt to a foe"
        if not t.down or t.dead:
            return f"{t.name} is not helpless (dying)" if not t.down else f"{t.name} is already dead"
        return f"{t.name} is not adjacent to {a.name}, or {a.name} holds no weapon"

    def _why_fight_defensively(self, enc, a, d):
        if enc.flags.get("defensive"):
            return f"{a.name} is already fighting defensively this turn"
        if enc.flags.get("attacked"):
            return "fighting defensively is declared before the turn's attacks"
        return f"{a.name} has no attack to make this turn"

    # ---- resolution -------------------------------------------------------------------------------------------------
    def apply(self, enc: Encounter, a: Unit, d: Decision, dice: Dice, react: React | None = None) -> list[Event]:
        action = d.action
        spec = self.catalogue[action]
        cost = spec.cost
        if action in ("use_ability", "activate_item"):
            cost = self.ability(a, action, d.option)["cost"]
        paid = self.economy.pay(enc.budget, cost) if cost != "free" else []
        if "staggered" in a.state["conds"] and ("standard" in paid or "move" in paid):
            enc.budget["standard"] = enc.budget["move"] = 0  # a single move or standard action a round
        ev = [new_event("action", a.id, d.target, {"action": action, "square": d.square, "option": d.option,
                                                   "paid": paid})]
        ev += self._resolvers[action](enc, a, d, dice, react)
        for u in enc.units:
            if u.down and (u.state["grappling"] is not None or u.state["grappled_by"] is not None
                           or u.state["sustained"]):
                ev += self.on_down(enc, u)
        return ev

    # attacks -------------------------------------------------------------------------------------------------------
    def attack_numbers(self, enc: Encounter, a: Unit, t: Unit, n, why: str, *, bonus: int = 0,
                       fixed_ac: int | None = None, plus: int = 0, maneuver: bool = False,
                       energy: bool | None = None) -> tuple[int, int, str, list[str], list[tuple[list, int]]]:
        """(attack bonus, AC, AC name, notes, the one-use bonuses it would spend) of an attack of a on t with weapon n
        (an index, None unarmed, or an ability's weapon dict), without rolling or changing anything.

        The bonus is the weapon's (`combat.weapon_bonus`) + `bonus`, with the attacker's conditions, -4 prone in
        melee, -4 fighting defensively and -4 in a full attack (on a's own turn), +2 flanking in melee, +2 from an
        ally's harrying fire, the range increments' penalty. The AC is EAC when the weapon deals only energy damage,
        else KAC (+ `plus`: 8 for a combat maneuver), or a fixed AC (covering / harrying fire 15), with the target's
        conditions and stance, cover, an ally's covering fire and a's feint (flat-footed)."""
        g = enc.grid
        w = C.weapon(a, n)
        melee = w["kind"] == "melee"
        s, ts = a.state, t.state
        notes: list[str] = []
        spent: list[tuple[list, int]] = []
        ab = C.weapon_bonus(a, n) + bonus
        if s["conds"]:
            ab += K.effect(s, "attack") + (K.effect(s, "melee") if melee else 0)
        if enc.actor is a:
            if enc.flags.get("defensive"):
                ab -= 4
                notes.append("fighting defensively -4")
            if enc.flags.get("full"):
                ab -= 4
                notes.append("full attack -4")
        if melee and C.flanked(enc, a, t, self.threatens_unit):
            ab += 2
            notes.append("flanking +2")
        for k, (giver, side, _) in enumerate(ts["harried"]):
            if side == a.side and giver != a.id:
                ab += 2
                notes.append("harried +2")
                spent.append((ts["harried"], k))
                break
        if not melee and (fixed_ac is None or why == "harrying fire"):
            pen = C.range_penalty(w, g.distance(a.pos, t.pos) * C.FEET) or 0
            if pen:
                ab += pen
                notes.append(f"range {pen}")
        if energy is None:
            energy = C.is_energy(w["type"]) and not maneuver
        if fixed_ac is not None:
            return ab, fixed_ac, "AC", notes, spent
        ac, more = C.armor_class(t, energy, melee)
        notes += more
        cov = C.cover(enc, a, t, not melee)
        if cov != "none" and not (cov == "soft" and melee):
            ac += C.COVER_AC[cov]
            notes.append({"low": "cover +4", "heavy": "improved cover +8", "soft": "soft cover +4"}[cov])
        for k, (giver, _, __) in enumerate(ts["covered"]):
            if g.line_of_effect(enc.units[giver].pos, a.pos):
                ac += 2
                notes.append("covering fire +2")
                spent.append((ts["covered"], k))
                break
        for k, (feinter, _) in enumerate(ts["feinted"]):
            if feinter == a.id:
                if not K.has(ts, "flat"):
                    ac -= 2
                notes.append("feinted: flat-footed")
                spent.append((ts["feinted"], k))
                break
        return ab, ac + plus, "EAC" if energy else "KAC", notes, spent

    def _attack(self, enc: Encounter, a: Unit, t: Unit, n, dice: Dice, why: str, *, bonus: int = 0,
                notes: list[str] | None = None, fixed_ac: int | None = None, plus: int = 0, damage: bool = True,
                maneuver: bool = False, energy: bool | None = None) -> tuple[bool, int, list[Event]]:
        """One attack roll of a on t with weapon n (`attack_numbers`). Returns (hit, total - AC, events).

        A natural 1 misses; a natural 20 hits, and is a critical hit (damage rolled twice, the weapon's critical
        effect) when the total also meets the AC. A blinded attacker misses half its hits (50% miss chance). An
        attack on a's own turn spends its declared fighting defensively (+2 AC until a's next turn)."""
        ab, ac, dname, more, spent = self.attack_numbers(enc, a, t, n, why, bonus=bonus, fixed_ac=fixed_ac,
                                                         plus=plus, maneuver=maneuver, energy=energy)
        notes = list(notes or ()) + more
        s = a.state
        if enc.actor is a:
            enc.flags["attacked"] = True
            if enc.flags.get("defensive") and not s["total_defense"]:
                s["defense"] = max(s["defense"], 2)
        for bucket, k in spent:
            del bucket[k]
        w = C.weapon(a, n)
        face = dice.d20(f"{a.name}'s {why} on {t.name}")
        total = face + ab
        hit = face == 20 or (face != 1 and total >= ac)
        crit = hit and face == 20 and total >= ac and not maneuver and fixed_ac is None \
            and "critical" not in t.stats["immune"]
        miss = K.effect(s, "miss") if hit and s["conds"] else 0
        if miss:
            roll = dice.face(100, f"{a.name}'s miss chance")
            if roll <= miss:
                hit = crit = False
                notes.append(f"miss chance: d% {roll} <= {miss}")
        ev = [new_event("attack", a.id, t.id, {"face": face, "bonus": ab, "total": total, "defense": ac,
                                               "defense_name": dname, "hit": hit, "crit": crit, "why": why,
                                               "weapon": w["name"], "notes": notes})]
        dice.show(ev)  # the result, before a person at the table is asked for the damage
        if damage and hit:
            amount, roll = C.roll_damage(dice, a, t, C.damage_expr(a, n), crit, why)
            ev.append(roll)
            ev += C.deal_damage(enc, a.id, t, C.reduce_damage(t, amount, w["type"]), w["type"], why)
            if crit:
                ev += C.critical_effect(enc, a, t, n, dice, K.slot_of(enc, a.id))
        return hit, total - ac, ev

    def threatens_unit(self, enc: Encounter, u: Unit, t: Unit) -> bool:
        """Whether u threatens t's square (for flanking: a melee weapon in hand reaching it)."""
        n = self.melee_weapon(u)
        return n is not None and not u.down and within_reach(enc.grid, u.pos, t.pos, reach_feet(u, n))

    def _use_ammo(self, a: Unit, n: int) -> None:
        left = a.state["ammo"][n]
        if left > 0:
            a.state["ammo"][n] = max(0, left - a.stats["weapons"][n]["usage"])

    def _shot_provokes(self, enc, a, dice, react) -> tuple[list[Event], bool]:
        return self.provoke(enc, a, "ranged", "ranged attack in a threatened square", dice, react)

    def _r_melee_attack(self, enc, a, d, dice, react):
        return self._attack(enc, a, enc.units[d.target], self.attack_weapon(a), dice, "melee attack")[2]

    def _r_ranged_attack(self, enc, a, d, dice, react, why: str = "ranged attack"):
        n = self.ranged_weapon(a)
        ev, _ = self._shot_provokes(enc, a, dice, react)
        if a.down:
            return ev
        self._use_ammo(a, n)
        return ev + self._attack(enc, a, enc.units[d.target], n, dice, why)[2]

    def _r_throw(self, enc, a, d, dice, react):
        n = self._held(a, "thrown")
        ev, _ = self._shot_provokes(enc, a, dice, react)
        if a.down:
            return ev
        ev += self._attack(enc, a, enc.units[d.target], n, dice, "thrown attack")[2]
        self._thrown_away(a, n)
        return ev

    def _thrown_away(self, a: Unit, n: int) -> None:
        """A thrown weapon or grenade leaves the hand: one fewer left (recovering it is not modelled)."""
        s = a.state
        if s["ammo"][n] > 0:
            s["ammo"][n] -= 1
        s["wield"] = [x for x in s["wield"] if x != n]

    def _r_full_attack_melee(self, enc, a, d, dice, react):
        enc.flags["full"] = True
        enc.flags["pending"] = {"kind": "second"}
        return self._r_melee_attack(enc, a, d, dice, react)

    def _r_full_attack_ranged(self, enc, a, d, dice, react):
        enc.flags["full"] = True
        enc.flags["pending"] = {"kind": "second"}
        return self._r_ranged_attack(enc, a, d, dice, react)

    def _r_next_melee(self, enc, a, d, dice, react):
        enc.flags.pop("pending", None)
        return self._r_melee_attack(enc, a, d, dice, react)

    def _r_next_ranged(self, enc, a, d, dice, react):
        enc.flags.pop("pending", None)
        return self._r_ranged_attack(enc, a, d, dice, react)

    def _r_fight_defensively(self, enc, a, d, dice, react):
        enc.flags["defensive"] = True
        return [new_event("defensive", a.id, None, {"bonus": 2, "penalty": -4, "no_attacks": False})]

    def _r_total_defense(self, enc, a, d, dice, react):
        s = a.state
        s["defense"], s["total_defense"] = 4, True
        return [new_event("defensive", a.id, None, {"bonus": 4, "no_attacks": True})]

    def _r_covering_fire(self, enc, a, d, dice, react):
        return self._fire_vs_15(enc, a, d, dice, react, "covering fire", "covered")

    def _r_harrying_fire(self, enc, a, d, dice, react):
        return self._fire_vs_15(enc, a, d, dice, react, "harrying fire", "harried")

    def _fire_vs_15(self, enc, a, d, dice, react, why: str, mark: str):
        """Covering / harrying fire: a shot vs AC 15 that deals no damage; a hit marks the target (an ally covered,
        an enemy harried) with +2 for this round (its `mark` list of [source, side, round])."""
        t = enc.units[d.target]
        n = self.ranged_weapon(a)
        ev, _ = self._shot_provokes(enc, a, dice, react)
        if a.down:
            return ev
        self._use_ammo(a, n)
        hit, _, more = self._attack(enc, a, t, n, dice, why, fixed_ac=15, damage=False)
        ev += more
        if hit:
            t.state[mark].append([a.id, a.side, enc.round])
            ev.append(new_event(mark, a.id, t.id, {"bonus": 2}))
        return ev

    def _r_feint(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        dc = max(10 + t.stats["sense_motive"], 15 + int(1.5 * t.stats["cr"]))
        ok, e = C.check(dice, a, "Bluff", a.stats["bluff"], dc)
        ev = [e]
        if ok:
            t.state["feinted"].append([a.id, enc.round])
            ev.append(new_event("feinted", a.id, t.id, {}))
        return ev

    def _r_coup_de_grace(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        t.dead = True
        return [new_event("coup_de_grace", a.id, t.id, {}), new_event("down", a.id, t.id, {"dead": True,
                                                                                          "why": "coup de grace"})]

    def _r_explode_attack(self, enc, a, d, dice, react):
        """A grenade or explode weapon at an intersection: a ranged attack vs AC 5 with the range penalty; a miss
        scatters (1d8 direction, 1d4 squares); the blast then hits everyone in its radius, each with a Reflex save
        for half; a critical hit doubles the damage to the creature closest to the intersection."""
        n = self.explode_weapon(a)
        w = a.stats["weapons"][n]
        g = enc.grid
        ev, _ = self._shot_provokes(enc, a, dice, react)
        if a.down:
            return ev
        point = d.square
        thrown = w["kind"] == "grenade"
        if thrown:
            self._thrown_away(a, n)
        else:
            self._use_ammo(a, n)
        s = a.state
        ab = C.weapon_bonus(a, n) + (K.effect(s, "attack") if s["conds"] else 0)
        notes = []
        if enc.flags.get("defensive"):
            ab -= 4
            notes.append("fighting defensively -4")
            if not s["total_defense"]:
                s["defense"] = max(s["defense"], 2)
        enc.flags["attacked"] = True
        pen = C.range_penalty(w, A.point_distance(a.pos, point) * C.FEET) or 0
        if pen:
            ab += pen
            notes.append(f"range {pen}")
        face = dice.d20(f"{a.name}'s attack on the intersection {point}")
        total = face + ab
        hit = face == 20 or (face != 1 and total >= 5)
        crit = face == 20
        ev.append(new_event("attack_point", a.id, None, {"face": face, "bonus": ab, "total": total, "defense": 5,
                                                         "hit": hit, "crit": crit, "point": point,
                                                         "weapon": w["name"], "notes": notes}))
        if not hit:
            dir_roll = dice.face(8, f"{w['name']} scatter direction")
            dist_roll = dice.face(4, f"{w['name']} scatter distance")
            landed = A.scatter(point, a.pos, dir_roll, dist_roll, g.width, g.height)
            ev.append(new_event("scatter", a.id, None, {"from": point, "to": landed, "direction": dir_roll,
                                                        "squares": dist_roll}))
            point = landed
        return ev + self.blast(enc, a, n, point, dice, crit)

    def blast(self, enc: Encounter, a: Unit, n: int, point: tuple[int, int], dice: Dice, crit: bool) -> list[Event]:
        """An explosion at an intersection: damage rolled once; each creature in the radius saves (Reflex) for half;
        a critical hit rolls again for the creature closest to the intersection and gives it the critical effect."""
        w = a.stats["weapons"][n]
        squares = A.blast(enc.grid, point, w["explode"])
        caught = [u for u in enc.units if not u.down and u.pos in squares]
        ev = [new_event("blast", a.id, None, {"point": point, "radius": w["explode"], "squares": len(squares),
                                              "caught": [u.id for u in caught], "weapon": w["name"]})]
        if not caught or dice is None:
            return ev
        expr = C.dice(w["damage"])
        base, faces = dice.roll(expr, f"{w['name']} damage")
        ev.append(new_event("damage_roll", a.id, None, {"expr": str(expr), "faces": faces, "total": base,
                                                        "crit": False, "why": "blast"}))
        closest = A.closest_to(point, [(u.id, u.pos) for u in caught]) if crit else None
        dc = C.special_dc(a, n)
        for u in caught:
            amount = base
            if u.id == closest and "critical" not in u.stats["immune"]:
                more, faces2 = dice.roll(expr, f"{w['name']} critical damage on {u.name}")
                amount += more
                ev.append(new_event("damage_roll", a.id, u.id, {"expr": str(expr), "faces": faces2, "total": more,
                                                                "crit": True, "why": "blast critical"}))
            ok, e = C.roll_save(dice, u, "ref", dc, w["name"])
            ev.append(e)
            if ok:
                amount //= 2
            ev += C.deal_damage(enc, a.id, u, C.reduce_damage(u, max(0, amount), w["type"]), w["type"], "blast")
            if u.id == closest and not u.down:
                ev += C.critical_effect(enc, a, u, n, dice, K.slot_of(enc, a.id))
        return ev

    # movement ------------------------------------------------------------------------------------------------------
    def _blockers(self, enc: Encounter, a: Unit) -> list[int]:
        w = enc.grid.width
        return [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side != a.side]

    def _path(self, enc: Encounter, a: Unit, goal: tuple[int, int], budget: int) -> tuple[list, dict]:
        """The walk to `goal` that leaves the fewest threatened squares, then is cheapest; and the threat map."""
        threats = self.threat_map(enc, a)
        danger = dict.fromkeys(threats, 1)
        return enc.grid.path(a.pos, goal, budget, self._blockers(enc, a), danger) or [], threats

    def _r_move(self, enc, a, d, dice, react):
        path, threats = self._path(enc, a, d.square, speed_squares(a))
        return self.walk(enc, a, path, dice, react, "moves", cost=enc.grid.path_cost(a.pos, path), threats=threats)

    def _r_guarded_step(self, enc, a, d, dice, react):
        return self.walk(enc, a, [d.square], dice, react, "takes a guarded step", safe=True)

    def _r_crawl(self, enc, a, d, dice, react):
        return self.walk(enc, a, [d.square], dice, react, "crawls")

    def _r_withdraw(self, enc, a, d, dice, react):
        path, threats = self._path(enc, a, d.square, 2 * speed_squares(a))
        return self.walk(enc, a, path, dice, react, "withdraws", safe_first=True,
                         cost=enc.grid.path_cost(a.pos, path), threats=threats)

    def _r_run(self, enc, a, d, dice, react):
        dx = (d.square[0] > a.pos[0]) - (d.square[0] < a.pos[0])
        dy = (d.square[1] > a.pos[1]) - (d.square[1] < a.pos[1])
        steps = max(abs(d.square[0] - a.pos[0]), abs(d.square[1] - a.pos[1]))
        path = enc.grid.ray(a.pos, (dx, dy), steps)
        K.add(a.state, "flat_footed", K.ends(enc.round, K.slot_of(enc, a.id), 1), 1)
        ev = self.walk(enc, a, path, dice, react, "runs")
        return ev + [new_event("condition", a.id, a.id, {"condition": "flat_footed", "why": "running"})]

    def _r_charge(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        end, line = self.charge_end(enc, a, t)
        ev = self.walk(enc, a, line, dice, react, "charges")
        a.state["charged"] = True
        if a.down or t.down or a.pos != end:  # stopped on the way (knocked prone): no attack
            return ev
        return ev + self._attack(enc, a, t, self.attack_weapon(a), dice, "charge", bonus=-2, notes=["charge -2"])[2]

    def _r_stand_up(self, enc, a, d, dice, react):
        """Stand up from prone; off-kilter in zero gravity, right yourself (grab something, use a thruster)."""
        if K.remove(a.state, "off_kilter"):
            return [new_event("condition_ends", a.id, a.id, {"condition": "off_kilter", "why": "righted"})]
        K.remove(a.state, "prone")
        return [new_event("stand", a.id, None, {})]

    def _r_drop_prone(self, enc, a, d, dice, react):
        K.add(a.state, "prone", K.FOREVER)
        return [new_event("prone", a.id, None, {"why": "drops prone"})]

    def _r_draw(self, enc, a, d, dice, react):
        """Draw a weapon; what it no longer leaves room for is put away as part of the same action."""
        s, ws = a.state, a.stats["weapons"]
        hands = ws[d.option]["hands"]
        keep = []
        for n in s["wield"]:
            if sum(ws[k]["hands"] for k in keep) + ws[n]["hands"] + hands <= 2:
                keep.append(n)
        s["wield"] = keep + [d.option]
        return [new_event("draw", a.id, None, {"weapon": ws[d.option]["name"]})]

    def _r_reload(self, enc, a, d, dice, react):
        w = a.stats["weapons"][d.option]
        a.state["ammo"][d.option] = w["capacity"]
        return [new_event("reload", a.id, None, {"weapon": w["name"]})]

    def _r_pick_up(self, enc, a, d, dice, react):
        s = a.state
        s["dropped"].remove(d.option)
        enc.extra.get("ground", {}).pop(f"{a.id}:{d.option}", None)
        return [new_event("pick_up", a.id, None, {"weapon": a.stats["weapons"][d.option]["name"]}),
                *self._r_draw(enc, a, d, dice, react)]

    def _r_open_door(self, enc, a, d, dice, react):
        g = enc.grid
        return [new_event("door", a.id, None, {"square": d.square, "open": g.toggle_door(g.index(*d.square))})]

    def _r_shake_off(self, enc, a, d, dice, react):
        c = a.state["tricks"][0]
        K.remove(a.state, c)
        return [new_event("condition_ends", a.id, a.id, {"condition": c, "why": "shaken off"})]

    def _r_escape(self, enc, a, d, dice, react):
        grappler = enc.units[a.state["grappled_by"]]
        ok, e = C.check(dice, a, "Acrobatics", a.stats["acrobatics"], 13 + C.armor_class(grappler, False, True)[0],
                        dex_based=True)
        ev = [e]
        if ok:
            ev += self.release_grapple(enc, grappler, f"{a.name} escaped")
        return ev

    # ---- the heuristic's hooks ---------------------------------------------------------------------------------------
    def effective_cost(self, enc: Encounter, unit: Unit, decision: Decision) -> Cost:
        """An ability's or item's cost is its stat block's (swift, move, standard or full), not the catalogue's."""
        if decision.action in ("use_ability", "activate_item"):
            book = unit.stats["items" if decision.action == "activate_item" else "abilities"]
            if 0 <= decision.option < len(book):
                return Cost(book[decision.option]["cost"])
        return super().effective_cost(enc, unit, decision)

    def budget_after(self, enc: Encounter, unit: Unit, decision: Decision) -> dict[str, int]:
        """As the core works it out; a staggered unit that spends its standard or move action has neither left."""
        left = super().budget_after(enc, unit, decision)
        if left and "staggered" in unit.state["conds"]:
            cost = self.effective_cost(enc, unit, decision).cost
            if cost in ("standard", "move"):
                left["standard"] = left["move"] = 0
        return left

    def tactics(self):
        """`StarfinderTactics` (tactics.py): the heuristic's roles, values and square sense for this ruleset."""
        from .tactics import StarfinderTactics
        return StarfinderTactics(self)

    # ---- estimates and observation features --------------------------------------------------------------------
    def estimate(self, enc: Encounter, actor: Unit, decision: Decision) -> Estimate:
        return E.estimate(self, enc, actor, decision)

    n_unit_features = 8

    def unit_features(self, enc: Encounter, u: Unit) -> list[float]:
        return E.unit_features(self, enc, u)

    def threat_estimate(self, enc: Encounter, attacker: Unit, target: Unit) -> tuple[float, float]:
        return E.threat_estimate(self, enc, attacker, target)

    def observation_parts(self, enc: Encounter, actor: Unit, units: list[Unit]) -> list:
        return E.observation_parts(self, enc, actor, units)

    # ---- words for a decision ---------------------------------------------------------------------------------------
    def describe(self, decision: Decision, enc: Encounter) -> str:
        """As the core says it; an intersection is named as one, and a weapon, ability or item by its name."""
        if decision.action in ("explode_attack", "pick_point") and decision.square is not None:
            return f"{self.catalogue[decision.action].name} at the intersection {decision.square}"
        return super().describe(decision, enc)

    def option_label(self, decision: Decision, enc: Encounter) -> str:
        a = enc.actor
        book = {"draw": "weapons", "reload": "weapons", "pick_up": "weapons", "use_ability": "abilities",
                "activate_item": "items"}.get(decision.action)
        if a is not None and book is not None and 0 <= decision.option < len(a.stats[book]):
            return a.stats[book][decision.option]["name"]
        return super().option_label(decision, enc)

    # ---- narration ------------------------------------------------------------------------------------------------
    def narrate(self, event: Event, enc: Encounter) -> str | None:
        return N.narrate(event, enc, self)

    def attack_words(self, event: Event, enc: Encounter) -> tuple[str, str] | None:
        return N.attack_verb(event, enc, self), str(event.get("defense_name", "AC"))
