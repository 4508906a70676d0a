"""Starfinder tactical knowledge for the heuristic policy (`engine/policies/heuristic.py`, interface in
`engine/core/tactics.py`): what each action is for, what it is worth, and how good a square is.

Roles (`KINDS`): weapon attacks, full attacks and their second attack are attacks, valued by the ruleset's `estimate`
(two rolls at -4 for a full attack, which leaves no move). A charge attacks from the end of its straight line. A
guarded step is a withdrawal (it provokes nothing); the full-action withdraw and the run are runs (they leave no
attack). The standard actions that deal no weapon damage (grenades at an intersection, combat maneuvers, feints,
covering and harrying fire, abilities, spells and items, and the choices of their targets) are attacks too: their
`decision_estimate` is an expected-damage equivalent of what they do (a blast's damage to foes less that to allies
and the grenade spent; a maneuver's chance times what its condition takes from the foe; a heal's hit points where
they are needed), so the heuristic weighs them against a plain attack and still plans the move after them. The rest
(standing up, reloading, drawing, shaking off a dirty trick, total defense, fighting defensively, escaping a grapple,
concentrating, a coup de grace, where a repositioned foe goes) are valued in `misc_value`.

Squares are valued from the stat blocks' numbers (`estimates.strikes` over the units' cached profiles): the actor's
attacks from a square (a shot from a threatened square charged the attacks of opportunity it provokes), the
enemies' attacks on it there before its next turn (melee after a walk of their speed, a full attack when they need
not move, shots through the cover between; a shooter without a line to the square half counted), and for a melee
unit the foes a move and a blow reach next turn. Moving out of a threatened square, shooting or casting in one are
charged the expected damage of the attacks of opportunity.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.decision import Decision
from engine.core.ruleset import Cost, Estimate
from engine.core.tactics import WASTE, DefaultTactics, DefaultView, kill_guess

from . import area as A
from . import combat as C
from . import conditions as K
from . import estimates as E
from .maneuvers import _KEYS as MANEUVERS, held_item
from .movement import speed_squares, within_reach

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

_ATTACKS = ("melee_attack", "ranged_attack", "throw", "full_attack_melee", "full_attack_ranged", "next_melee",
            "next_ranged", "explode_attack", "feint", "harrying_fire", "covering_fire", "use_ability",
            "activate_item", "pick_target", "pick_ally", "pick_point", *MANEUVERS)
KINDS = {"end_turn": "end", **dict.fromkeys(_ATTACKS, "attack"), "charge": "charge", "move": "move", "crawl": "move",
         "guarded_step": "withdraw", "withdraw": "run", "run": "run"}
# Ranged actions that provoke attacks of opportunity when made in a threatened square
_SHOTS = frozenset({"ranged_attack", "full_attack_ranged", "next_ranged", "throw", "explode_attack", "harrying_fire",
                    "covering_fire"})
_PROVOKING_MOVES = frozenset({"move", "crawl", "run"})

GRENADE_COST = 1.0     # a grenade thrown is gone: worth throwing when its blast beats a shot by this much
USE_COST = 0.8         # a limited use of an ability or item spent
NO_LINE_SHARE = 0.5    # a shooter without a line to a square may still move and find one
# What a condition takes from a foe, in rounds of its damage (a round of its damage: `danger`), while it lasts
CONDITION_WORTH = {"dazed": 1.0, "stunned": 1.2, "blinded": 0.5, "pinned": 0.6, "grappled": 0.35,
                   "entangled": 0.25, "off_target": 0.12, "shaken": 0.12, "sickened": 0.15, "staggered": 0.3,
                   "off_kilter": 0.3, "prone": 0.25, "flat_footed": 0.1, "deafened": 0.0, "burning": 0.1,
                   "bleeding": 0.1}
# A dirty trick's condition is shaken off with a move action: it costs the foe that and the condition until then
TRICK_MOVE = 0.3
# What being rid of a condition is worth to the actor (shake off a dirty trick, escape a grapple)
RID_OF = {"blinded": 2.0, "entangled": 1.0, "off_target": 0.6, "shaken": 0.6, "sickened": 0.7, "deafened": 0.05}


class StarfinderTactics(DefaultTactics):
    """Roles by action (`KINDS`), an attack a standard action and a move a move action; views are `StarfinderView`."""

    attack_cost = Cost("standard")
    move_cost = Cost("move")
    constant_misc = {"drop_prone": -1.0, "dismiss": -1.0}

    def __init__(self, ruleset):
        super().__init__(ruleset)
        self.kinds = {key: KINDS.get(key, "misc") for key in ruleset.catalogue}
        self._sides: dict = {}

    def view(self, enc: "Encounter", a: "Unit") -> "StarfinderView":
        return StarfinderView(self, enc, a)

    def cover_sides(self, g) -> set:
        """The squares beside (not diagonal to) low or heavy cover or a door, by map and door state."""
        key = (g._geometry, g._door_key())
        got = self._sides.get(key)
        if got is None:
            if len(self._sides) > 256:
                self._sides.clear()
            got = set()
            w, h = g.width, g.height
            for i in range(w * h):
                if g.kind(i) in ("low_cover", "heavy_cover", "door"):
                    x, y = g.xy(i)
                    got.update((x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                               if 0 <= x + dx < w and 0 <= y + dy < h)
            self._sides[key] = got
        return got

    def budget_key(self, enc: "Encounter", a: "Unit", d: Decision):
        """The budget, the action and whether the unit is staggered (an ability's cost is its own: not shared)."""
        if d.action in ("use_ability", "activate_item"):
            return None
        b = enc.budget
        return (d.action, b.get("standard", 0), b.get("move", 0), b.get("swift", 0), "staggered" in a.state["conds"])


class StarfinderView(DefaultView):
    """`StarfinderTactics`' queries for one actor at one decision point (see the module docstring)."""

    provoked_by_action = False

    def __init__(self, tac: StarfinderTactics, enc: "Encounter", a: "Unit"):
        super().__init__(tac, enc, a)
        rs = self.rs
        self.me = E.profile(rs, enc, a)
        self.foes = [(e, E.profile(rs, enc, e)) for e in self.enemies]
        self._aoo: dict[int, float] | None = None   # per enemy that may take an attack of opportunity, its damage
        self._tmap: dict | None = None
        self._est: dict = {}
        self._reach: dict = {}
        self._walks: list | None = None
        self._threat_parts: list | None = None
        self._aoo_at: dict = {}
        self._odds: dict = {}
        self._blasts: dict[int, float] = {}   # best_blast by weapon

    def state_key(self):
        """The actor, the map as its doors stand, and per unit its hit points, square (not the actor's), combat
        numbers (`estimates.profile`) and whether it may take an attack of opportunity: all square values read."""
        enc, rs, a = self.enc, self.rs, self.a
        g = enc.grid
        return (a.id, g._geometry, g._door_key(), tuple([
            (u.id, u.hp, None if u is a else u.pos, E.profile(rs, enc, u), u.side != a.side and rs.can_aoo(enc, u))
            for u in enc.units]))

    def key_squares(self) -> set | None:
        """Next to the actor; next to an enemy (within 2 for a reach weapon); on a side of cover or a door; all of
        them while an action's choice is pending (its squares are few)."""
        enc = self.enc
        if enc.flags.get("pending") is not None:
            return None
        g = enc.grid
        tac = self.tac
        out = set(tac.cover_sides(g))
        out.update(g.within(self.a.pos, 1))
        r = 2 if self.me.m is not None and self.me.m_feet >= 10 else 1
        for e in self.enemies:
            out.update(g.within(e.pos, r))
        return out

    # ---- the numbers --------------------------------------------------------------------------------------------
    def _walk_fields(self) -> list:
        if self._walks is None:
            g = self.enc.grid
            self._walks = [self.tac.walk_field(g, e.pos) for e, _ in self.foes]
        return self._walks

    def _aoo_damage(self) -> dict[int, float]:
        """Per enemy able to take an attack of opportunity on the actor, the expected damage of it."""
        if self._aoo is None:
            self._aoo = {}
            for e, p in self.foes:
                if p.m is not None and self.rs.can_aoo(self.enc, e):
                    self._aoo[e.id] = self._melee_on_me(p)
        return self._aoo

    def _melee_on_me(self, p) -> float:
        """Expected damage of one melee blow of an enemy (profile p) on the actor, wherever they stand."""
        me = self.me
        ac = me.ac[(p.m_energy, True)]
        return (E.p_hit(p.m_bonus, ac) + E.p_crit(p.m_bonus, ac)) * p.miss * E._damage(p.m_mean, me, p.m_types)

    def threat_map(self) -> dict:
        if self._tmap is None:
            self._tmap = self.rs.threat_map(self.enc, self.a)
        return self._tmap

    def aoo_at(self, pos) -> float:
        """Expected damage of the attacks of opportunity provoked at (or by leaving) pos."""
        got = self._aoo_at.get(pos)
        if got is None:
            watchers = self.threat_map().get(pos[1] * self.enc.grid.width + pos[0])
            got = 0.0
            if watchers:
                aoo = self._aoo_damage()
                got = sum(aoo.get(i, 0.0) for i in watchers)
            self._aoo_at[pos] = got
        return got

    # ---- squares ------------------------------------------------------------------------------------------------
    def offense(self, pos, aimed: bool = False) -> list[tuple["Unit", Estimate, float]]:
        got = self._offense.get(pos)
        if got is None:
            got = self._offense[pos] = self._attacks(self.me, pos) if self._armed else []
        return got

    def _attacks(self, me, pos) -> list[tuple["Unit", Estimate, float]]:
        """`offense` of the actor with the combat numbers `me` (its profile) at pos."""
        out = []
        enc = self.enc
        shot_cost = None
        for e, p in self.foes:
            mp, md, rp, rd = E.strikes(enc, me, p, pos, e.pos)
            if rd > 0:
                if shot_cost is None:
                    shot_cost = self.aoo_at(pos)
                if rd - shot_cost > md:
                    out.append((e, Estimate(rp, rd, kill_guess(rp, rd, e.hp)), shot_cost))
                    continue
            if md > 0:
                out.append((e, Estimate(mp, md, kill_guess(mp, md, e.hp)), 0.0))
        return out

    def _threats(self) -> list:
        """Per enemy that can act: (its place in `foes`, its square and flat index, its numbers on the actor
        (`estimates.pair`), its melee reach or 0, the walk it can make before a blow, its blow or full attack from
        where it stands, one blow, its shot from an unseen square)."""
        if self._threat_parts is None:
            me = self.me
            w = self.enc.grid.width
            out = []
            for k, (e, p) in enumerate(self.foes):
                if e.state["conds"] and K.has(e.state, "helpless"):
                    continue
                pp = E.pair(p, me)
                full = max(pp.md, 2 * pp.md * max(0.0, pp.mp - 0.2) / pp.mp) if pp.mp > 0 else pp.md
                hidden = NO_LINE_SHARE * pp.shot(0, "none")[1] if pp.r_pens is not None else 0.0
                walk = speed_squares(e) + max(1, p.m_feet // 5) if pp.m_feet else -1
                out.append((k, e.pos, e.pos[1] * w + e.pos[0], pp, pp.m_feet, walk, full, pp.md, hidden))
            self._threat_parts = out
        return self._threat_parts

    def threat(self, pos) -> float:
        got = self._threat.get(pos)
        if got is None:
            g = self.enc.grid
            i = pos[1] * g.width + pos[0]
            walks = None
            got = 0.0
            for k, epos, ei, pp, feet, walk, full, blow, hidden in self._threats():
                best = 0.0
                if feet:
                    if within_reach(g, epos, pos, feet):
                        best = full   # in reach without moving: a full attack if it pays
                    else:
                        if walks is None:
                            walks = self._walk_fields()
                        steps = walks[k].get(i)
                        if steps is not None and steps <= walk:
                            best = blow
                pens = pp.r_pens
                if pens is not None:
                    d = g.distance(epos, pos)
                    pen = pens[d] if d < len(pens) else None
                    rd = 0.0
                    if pen is not None:
                        los, loe, cover = g.sight(ei, i)
                        if los and loe:
                            rp, rd = pp.shot(pen, cover)
                            if rp > 0.2:
                                rd = max(rd, 2 * rd * (rp - 0.2) / rp)
                            if rd > best:
                                best = rd
                    if rd <= 0 and best == 0.0:
                        best = hidden
                got += best
            self._threat[pos] = got
        return got

    def reach_value(self, pos) -> list[tuple["Unit", Estimate]]:
        """Foes a move and a melee blow reach next turn from pos (by the walk from them)."""
        me = self.me
        if me.m is None:
            return []
        got = self._reach.get(pos)
        if got is None:
            got = []
            g = self.enc.grid
            i = pos[1] * g.width + pos[0]
            limit = speed_squares(self.a) + max(1, me.m_feet // 5)
            for (e, p), walk in zip(self.foes, self._walk_fields()):
                steps = walk.get(i)
                if steps is not None and steps <= limit:
                    pp = E.pair(me, p)
                    if pp.m_feet:
                        got.append((e, Estimate(pp.mp, pp.md, kill_guess(pp.mp, pp.md, e.hp))))
            self._reach[pos] = got
        return got

    def danger(self, e: "Unit") -> float:
        got = self._danger.get(e.id)
        if got is None:
            mp, md, rp, rd = E.strikes(self.enc, E.profile(self.rs, self.enc, e), self.me, e.pos, self.a.pos)
            got = max(md, rd)
            if got <= 0:  # not in reach now: what one blow or shot would do
                p = E.profile(self.rs, self.enc, e)
                got = self._melee_on_me(p) if p.m is not None else 0.0
                if p.r is not None:
                    got = max(got, E.strikes(self.enc, p, self.me, self.a.pos, self.a.pos)[3])
            self._danger[e.id] = got
        return got

    # ---- decisions ------------------------------------------------------------------------------------------------
    def provoked(self, d: Decision) -> float:
        action = d.action
        if action in _PROVOKING_MOVES or action in _SHOTS:
            return self.aoo_at(self.a.pos)
        if action == "charge":
            got = self.rs.charge_end(self.enc, self.a, self.enc.units[d.target])
            if got is None:
                return 0.0
            tmap, aoo, g = self.threat_map(), self._aoo_damage(), self.enc.grid
            seen: set = set()
            for sq in [self.a.pos, *got[1][:-1]]:
                seen.update(tmap.get(sq[1] * g.width + sq[0], ()))
            return sum(aoo.get(i, 0.0) for i in seen)
        return 0.0

    def end_square(self, d: Decision):
        if d.action == "charge":
            got = self.rs.charge_end(self.enc, self.a, self.enc.units[d.target])
            return got[0] if got is not None else self.a.pos
        return super().end_square(d)

    def decision_estimate(self, d: Decision) -> Estimate | None:
        """An expected-damage equivalent of what the non-weapon 'attack' decisions do (see the module docstring);
        None for the weapon attacks (the ruleset's `estimate`)."""
        action = d.action
        if action in ("melee_attack", "ranged_attack", "throw", "full_attack_melee", "full_attack_ranged",
                      "next_melee", "next_ranged"):
            return None
        got = self._est.get(d)
        if got is None:
            got = self._est[d] = self._effect_estimate(d)
        return got

    def _effect_estimate(self, d: Decision) -> Estimate:
        rs, enc, a = self.rs, self.enc, self.a
        action = d.action
        t = enc.units[d.target] if d.target is not None else None
        if action == "explode_attack":
            n = rs.explode_weapon(a)
            return self._blast(n, d.square) if n is not None else Estimate()
        if action in MANEUVERS:
            p = self._maneuver_odds(d, t)
            return Estimate(p, p * self._maneuver_worth(action, t))
        if action == "feint":
            p = rs.estimate(enc, a, d).hit_chance
            mp, md, rp, rd = E.strikes(enc, self.me, E.profile(rs, enc, t), a.pos, t.pos)
            return Estimate(p, p * 0.1 * max(md, rd, 1.0))
        if action == "harrying_fire":
            p = rs.estimate(enc, a, d).hit_chance
            helpers = sum(1 for u in enc.allies(a) if not u.down)
            return Estimate(p, p * 0.1 * min(helpers, 1) * 3.0)
        if action == "covering_fire":
            p = rs.estimate(enc, a, d).hit_chance
            near = sum(self.danger(e) for e in self.enemies if enc.grid.distance(e.pos, t.pos) <= 6)
            return Estimate(p, p * 0.1 * near)
        if action in ("use_ability", "activate_item"):
            ab = rs.ability(a, action, d.option)
            uses = a.state["item_uses" if action == "activate_item" else "uses"][d.option]
            best = self._ability_best(ab)
            spoil = self._spoil(ab)
            worth = best * (1 - spoil) - (USE_COST if uses > 0 else 0.0) - spoil * 0.5
            return Estimate(1.0, worth)
        if action in ("pick_target", "pick_ally", "pick_point"):
            p = enc.flags.get("pending") or {}
            if p.get("kind") != "ability":
                return Estimate()
            ab = a.stats[p["book"]][p["index"]]
            if action == "pick_point":
                return Estimate(1.0, self._area_worth(ab, d.square))
            return Estimate(1.0, self._ability_worth(ab, t))
        return Estimate()

    # -- what effects are worth --
    def _blast(self, n: int, point) -> Estimate:
        """A grenade's blast at an intersection, less the grenade; nothing in it: the grenade wasted."""
        w = self.a.stats["weapons"][n]
        r = w["explode"] // 5 + 1
        px, py = point
        if not any(abs(e.pos[0] - px) <= r and abs(e.pos[1] - py) <= r for e in self.enemies):
            return Estimate(0.0, -GRENADE_COST)
        est = E.blast_estimate(self.rs, self.enc, self.a, n, point)
        return Estimate(est.hit_chance, est.expected_damage - GRENADE_COST, est.kill_chance, est.notes)

    def best_blast(self, n: int | None = None) -> float:
        """The best blast value of grenade or explode weapon n (default: the one the actor holds) from where the
        actor stands, at a corner of a foe's square (0: none)."""
        if n is None:
            n = self.rs.explode_weapon(self.a)
            if n is None:
                return 0.0
        got = self._blasts.get(n)
        if got is None:
            got = self._blasts[n] = self._best_blast(n)
        return got

    def _best_blast(self, n: int) -> float:
        w = self.a.stats["weapons"][n]
        reach = w["range"] * w["increments"] // 5
        g, here = self.enc.grid, self.a.pos
        best = 0.0
        seen = set()
        for e in self.enemies:
            for pt in A.corners((e.pos[0] + 1, e.pos[1] + 1)):
                if pt in seen or pt[0] >= g.width or pt[1] >= g.height:
                    continue
                seen.add(pt)
                if A.point_distance(here, pt) <= reach and A.reaches(g, here, pt):
                    best = max(best, self._blast(n, pt).expected_damage)
        return best

    def _maneuver_odds(self, d: Decision, t: "Unit") -> float:
        """The ruleset's hit chance of a maneuver on t, asked once per target and whether the weapon is made for the
        maneuver (every maneuver rolls the same attack against KAC + 8 but for that +2)."""
        rs, enc, a = self.rs, self.enc, self.a
        _, n = rs.maneuver_weapon(enc, a, t)
        kind = "dirty_trick" if d.action.startswith("dirty_trick") else d.action
        key = (t.id, kind in C.weapon(a, n)["maneuvers"])
        got = self._odds.get(key)
        if got is None:
            got = self._odds[key] = rs.estimate(enc, a, d).hit_chance
        return got

    def _cluster(self, radius_ft: int) -> bool:
        """Whether two foes stand close enough for one blast of this radius to catch both."""
        span = 2 * (radius_ft // 5)
        es = self.enemies
        return any(max(abs(e.pos[0] - f.pos[0]), abs(e.pos[1] - f.pos[1])) <= span
                   for k, e in enumerate(es) for f in es[k + 1:])

    def _maneuver_worth(self, action: str, t: "Unit") -> float:
        """What a successful maneuver takes from foe t, in damage."""
        danger = self.danger(t)
        if action.startswith("dirty_trick_"):
            cond = action[len("dirty_trick_"):]
            return CONDITION_WORTH.get(cond, 0.0) * danger + (TRICK_MOVE if cond != "deafened" else 0.0)
        if action == "trip":
            return CONDITION_WORTH["prone"] * danger + 0.3
        if action == "disarm":
            n = held_item(t)
            if n is None:
                return 0.0
            return 0.6 * danger + 0.3
        if action == "grapple":
            two = any(t.stats["weapons"][n]["hands"] == 2 for n in t.state["wield"])
            return (0.6 if two else CONDITION_WORTH["grappled"]) * danger + 0.2
        if action == "sunder":
            return 0.15 * danger
        return 0.2  # bull rush, reposition: moving a foe

    def _spoil(self, ab: dict) -> float:
        """The chance a spell cast here is spoilt by an attack of opportunity that hits."""
        if not ab["provokes"]:
            return 0.0
        dmg = self.aoo_at(self.a.pos)
        return min(0.9, dmg / 4.0) if dmg > 0 else 0.0

    def _ability_best(self, ab: dict) -> float:
        """The best a use of the ability can do now: on its best target (times its targets), or its best area."""
        rs, enc, a = self.rs, self.enc, self.a
        if ab["target"] == "self":
            return self._ability_worth(ab, a)
        if ab["target"] == "area":
            pts = rs._targets_of(enc, a, ab)
            r = ab["radius"] // 5 + 1
            near = [pt for pt in pts if any(abs(e.pos[0] - pt[0]) <= r and abs(e.pos[1] - pt[1]) <= r
                                            for e in self.enemies)]
            return max((self._area_worth(ab, pt) for pt in near), default=0.0)
        best = max((self._ability_worth(ab, u) for u in rs._targets_of(enc, a, ab)), default=0.0)
        return best * ab["targets"]

    def _ability_worth(self, ab: dict, t: "Unit") -> float:
        """An ability's worth on one unit: damage and condition on a foe, healing where it is needed on an ally."""
        a = self.a
        if t.side == a.side:
            worth = 0.0
            if ab["heal"]:
                missing = t.max_hp - t.hp
                heal = C.dice(ab["heal"]).mean
                need = 1.0 + 2.0 * (1.0 - t.hp / max(1, t.max_hp))  # the lower the ally, the more it is worth
                worth += min(heal, missing) * need * (0.5 if missing < heal / 2 else 1.0)
            if ab["condition"] and ab["condition"] not in CONDITION_WORTH:
                worth += 0.5
            return worth
        est = E.ability_on(self.rs, self.enc, a, ab, t)
        worth = min(est.expected_damage, t.hp) + (2.0 if est.expected_damage >= t.hp else 0.0) * est.hit_chance
        if ab["condition"] and est.hit_chance > 0:
            worth += est.hit_chance * CONDITION_WORTH.get(ab["condition"], 0.1) * ab["rounds"] * self.danger(t)
        return worth

    def _area_worth(self, ab: dict, point) -> float:
        squares = A.blast(self.enc.grid, point, ab["radius"])
        total = 0.0
        for u in self.enc.units:
            if not u.down and u.pos in squares:
                w = self._ability_worth(ab, u) if u.side != self.a.side else \
                    -(self._harm(ab, u) if ab["damage"] else -self._ability_worth(ab, u))
                total += w
        return total

    def _harm(self, ab: dict, u: "Unit") -> float:
        return E.ability_on(self.rs, self.enc, self.a, ab, u).expected_damage

    # -- everything else --
    def misc_value(self, d: Decision, threat_here: float, can_strike) -> float:
        action = d.action
        a, s = self.a, self.a.state
        here = self.a.pos
        if action == "stand_up":
            return max(0.0, self._best_here()) + 1.0 + 0.25 * threat_here
        if action in ("reload", "draw", "pick_up"):
            return self._arming_gain(d)
        if action == "shake_off":
            return sum(RID_OF.get(c, 0.3) for c in s["tricks"][:1])
        if action == "total_defense":
            return 0.17 * threat_here - (2.0 if can_strike() else 0.0)
        if action == "fight_defensively":  # the attack to come at -4, and +2 AC (about a fifth of the hits) after
            best = max(self.offense(here), key=lambda x: x[1].expected_damage - x[2], default=None)
            if best is None:
                return WASTE
            p, dmg = best[1].hit_chance, best[1].expected_damage - best[2]
            return dmg * max(0.05, p - 0.2) / max(p, 1e-6) + 0.1 * threat_here - 0.15
        if action == "escape":
            p = 0.5
            return p * (3.0 if "pinned" in s["conds"] else 1.0)
        if action == "concentrate":
            return sum(0.5 + CONDITION_WORTH.get(x[2], 0.1) * self.danger(self.enc.units[x[1]])
                       for x in s["sustained"] if x[3] == "concentration" and not self.enc.units[x[1]].down)
        if action == "coup_de_grace":
            return 0.3
        if action == "open_door":  # open the way when no foe is in reach, toward the nearest one; never close
            g = self.enc.grid
            if g.index(*d.square) in g.open_doors or can_strike():
                return WASTE
            foes = [u.pos for u in self.enemies]
            if not foes or min(g.distance(d.square, p) for p in foes) >= min(g.distance(here, p) for p in foes):
                return WASTE
            return 1.5
        if action == "reposition_to":
            g = self.enc.grid
            friends = sum(1 for u in self.enc.allies(a) if g.distance(u.pos, d.square) <= 1)
            return 0.2 + 0.3 * friends + 0.02 * g.distance(here, d.square)
        return WASTE

    def _best_here(self) -> float:
        """The best single attack from where the actor stands (by `offense`, its cost deducted)."""
        return max((est.expected_damage - cost for _, est, cost in self.offense(self.a.pos)), default=0.0)

    def _arming_gain(self, d: Decision) -> float:
        """Draw, reload or pick up: the gain in the best attack from here once done (a grenade's best blast for
        one), a standard action being left after it; a little for topping up a magazine."""
        rs, a = self.rs, self.a
        s = a.state
        ws = a.stats["weapons"]
        w = ws[d.option]
        if d.action == "reload" and s["ammo"][d.option] > 0 and s["ammo"][d.option] >= w["usage"]:
            return 0.1 * (1 - s["ammo"][d.option] / max(1, w["capacity"])) - 0.05
        before = max(self._best_here(), self.best_blast())
        if w["explode"] and d.action != "reload":
            if not self._cluster(w["explode"]):
                return WASTE   # no two foes in one blast: a grenade does not beat a shot by its cost
            return self.best_blast(d.option) - before - 0.2
        saved = (s["wield"], s["ammo"], s["dropped"])
        try:
            if d.action == "reload":
                s["ammo"] = list(s["ammo"])
                s["ammo"][d.option] = w["capacity"]
            else:
                if d.action == "pick_up":
                    s["dropped"] = [x for x in s["dropped"] if x != d.option]
                keep = []
                for n in s["wield"]:
                    if sum(ws[k]["hands"] for k in keep) + ws[n]["hands"] + w["hands"] <= 2:
                        keep.append(n)
                s["wield"] = keep + [d.option]
            me = E.profile(rs, self.enc, a)
        finally:
            s["wield"], s["ammo"], s["dropped"] = saved
        after = max((est.expected_damage - cost for _, est, cost in self._attacks(me, a.pos)), default=0.0)
        return after - before - 0.2
