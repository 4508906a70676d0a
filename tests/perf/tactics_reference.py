"""SLOW REFERENCE for tests/perf: the Saga tactics module as it was before its speed work (commit a7dff28), kept
unoptimised so the live one can be checked against it. Do not optimise this file.

Saga tactical knowledge for the heuristic policy: what each action is for, and how good a square is.

The heuristic (`engine/policies/heuristic.py`) is ruleset-neutral; it looks up
`engine.rulesets.<id>.tactics.make(ruleset)` and asks the object it returns:

- `kind(decision)`: the role of a decision ('end', 'attack', 'full_attack', 'charge', 'move', 'withdraw',
  'run', 'aim', 'misc');
- `offense(enc, a, pos, aimed)`: the attacks one standard action can make standing at `pos`, each as
  (target, Estimate, cost of the attacks of opportunity it provokes);
- `threat(enc, a, pos)`: expected damage the enemies can deal to `a` standing at `pos` on their next turns;
- `provoked(enc, a, decision)`: expected damage of the attacks of opportunity a decision provokes;
- `reach_value(enc, a, pos)`: the melee potential next turn (best enemy within a move and reach);
- `sees(enc, e, pos)`, `danger(enc, e, a)`, `end_square(enc, a, d)`, `misc_value(enc, a, d, threat_here)`.

Estimates come from the ruleset (`attack_estimate`); this module only places units hypothetically (a
unit's `pos` is swapped and restored, never a clone of the encounter) and caches what does not change
between decisions: the threat on a square depends on the enemies only, so it survives the actor's own
moves and attacks.
"""
from __future__ import annotations

import heapq
import itertools

from engine.core.decision import Decision
from engine.core.ruleset import Estimate
from engine.core.state import Encounter
from engine.core.units import Unit

from . import saga_reference_combat as C

KINDS = {"end_turn": "end", "melee_attack": "attack", "ranged_attack": "attack", "full_attack": "full_attack",
         "charge": "charge", "move": "move", "withdraw": "withdraw", "run": "run", "aim": "aim"}
# Never worth a turn for this policy (or only by accident): scored below ending the turn.
WASTE = {"fall_prone", "drop_item", "holster", "switch_mode", "attack_object", "attack_held_object", "grab",
         "grapple", "disarm", "coup_de_grace", "aid_attack", "suppress"}
_NO_LOS_SHARE = 0.5      # a shooter without a line to the square may still move and find one
_LATER_MELEE_SHARE = 0.2  # a melee enemy two moves away threatens next-next turn


class SagaTactics:
    """Position and action scoring helpers for Saga Edition (see the module docstring).

    Caches survive between decisions and are keyed by what they depend on, never by `enc.version`:
    sight lines by the map's door state, attack estimates by the two units' state and the range band and
    cover between them (the only ways the attacker's and target's squares enter an estimate), threat and
    offense per square by the units' positions and state.
    """

    attack_cost = "standard"

    def __init__(self, ruleset):
        self.rs = ruleset
        self._vis: dict = {}
        self._est: dict = {}
        self._threat: dict = {}
        self._offense: dict = {}
        self._tokens: dict = {}
        self._counter = itertools.count()
        self._keys: dict = {}

    def token(self, key) -> int:
        """A small int standing for a (large, hashable) key, so per-square caches hash cheaply."""
        got = self._tokens.get(key)
        if got is None:
            if len(self._tokens) > 50000:
                self._tokens.clear()
                self._est.clear()
                self._threat.clear()
                self._offense.clear()
            got = self._tokens[key] = next(self._counter)  # never reused, even after a clear
        return got

    # ---- classification ------------------------------------------------------------------------------
    def kind(self, d: Decision) -> str:
        return KINDS.get(d.action, "misc")

    def view(self, enc: Encounter, a: Unit) -> "_View":
        """Per-decision-point helper: signatures computed once, queries cached across decisions."""
        return _View(self, enc, a)

    @staticmethod
    def _trim(cache: dict, limit: int = 20000) -> None:
        if len(cache) > limit:
            cache.clear()

    def sight_table(self, g) -> dict:
        """The cache of `sight` for this map as its doors stand now."""
        key = (id(g._geometry), frozenset(g.open_doors), frozenset(g.broken))
        got = self._vis.get(key)
        if got is None or got[0] is not g._geometry:  # an id can be reused by a later map
            if len(self._vis) > 32:
                self._vis.clear()
            got = self._vis[key] = (g._geometry, {})
        return got[1]

    def cover_squares(self, g, kinds=("low_cover", "heavy_cover")) -> frozenset[tuple[int, int]]:
        """Squares next to terrain of the given kinds (low or heavy cover, where a shooter can stand
        behind it; doors, to open them), cached per map."""
        key = (kinds, id(g._geometry), frozenset(g.broken))
        got = self._keys.get(key)
        if got is None or got[0] is not g._geometry:
            out = set()
            for i, t in enumerate(g.terrain):
                if t in kinds and i not in g.broken:
                    out.update(g.within(g.xy(i), 1))
            got = self._keys[key] = (g._geometry, frozenset(out))
        return got[1]

    def step_costs(self, g) -> list[int]:
        """Price of entering each square when walking towards an enemy: 0 for walls and solid cover, 3 for
        a closed door (stop, open it, go on), else 1; cached per map and door state."""
        key = ("steps", id(g._geometry), frozenset(g.open_doors), frozenset(g.broken))
        got = self._keys.get(key)
        if got is None or got[0] is not g._geometry:
            costs = []
            for i in range(len(g.terrain)):
                t = g.kind(i)
                costs.append(0 if t in ("wall", "heavy_cover", "window") else 3 if t == "door" else 1)
            got = self._keys[key] = (g._geometry, costs)
        return got[1]

    @staticmethod
    def sight(g, table: dict, i: int, j: int) -> tuple[bool, bool, int, int]:
        """(line of sight, line of effect, cover bonus, distance) between flat squares i and j."""
        key = (i, j) if i <= j else (j, i)
        got = table.get(key)
        if got is None:
            los = loe = True
            cover = "none"
            kind = g.kind
            for k in g._geometry.line(*key):
                t = kind(k)
                if t == "wall" or t == "door":
                    los = loe = False
                elif t == "window":
                    loe = False
                elif t == "heavy_cover":
                    cover = "heavy"
                elif t == "low_cover" and cover == "none":
                    cover = "low"
            got = table[key] = (los, loe, C.COVER_BONUS[cover], g.distance(g.xy(i), g.xy(j)))
        return got


def _distance_field(g, starts, costs: list) -> dict[int, int]:
    """Steps (8 directions, no corner cutting) from the nearest start square; `costs[i]` is the price of
    entering square i (0: impassable)."""
    dist: dict[int, int] = {}
    heap = [(0, g.index(*p)) for p in starts]
    heapq.heapify(heap)
    neighbours = g._geometry.neighbours
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        d, i = pop(heap)
        if i in dist:
            continue
        dist[i] = d
        for j, _diag in neighbours[i]:
            c = costs[j]
            if c and j not in dist:
                push(heap, (d + c, j))
    return dist


_MISSING = object()
_OUT_OF_RANGE = Estimate(notes=["out of range"])


def _field(store: dict, key) -> dict:
    got = store.get(key)
    if got is None:
        if len(store) > 4096:
            store.clear()
        got = store[key] = {}
    return got


def _attacker_sig(u: Unit) -> tuple:
    """What of a unit's state enters its attack bonus and damage (not its square, not its aim).

    `id(u.stats)` tells units of different encounters apart (stat blocks are shared by clones)."""
    s = u.state
    return (u.id, u.name, id(u.stats), s["ct"], s["prone"], s["charged"], tuple(s["hands"]), tuple(s["lost"]), tuple(s["modes"]),
            s["suppressed"], len(s["grabbed_by"]), s["attack_penalty"], s["pinned_by"], s["no_attacks"])


def _target_sig(u: Unit) -> tuple:
    """What of a unit's state enters the defense and kill chance against it."""
    s = u.state
    return (u.id, u.name, id(u.stats), u.hp, s["ct"], s["prone"], s["defense"], s["charged"], tuple(s["active_items"]),
            tuple(sorted(s["aid"].items())))


class _View:
    """Tactical queries for actor `a` at one decision point.

    Per-square results are kept in fields keyed by one unit pair's state and squares (an enemy's threat
    on the actor, the actor's attack on one enemy), so they survive every decision that changes neither.
    """

    def __init__(self, tac: SagaTactics, enc: Encounter, a: Unit):
        self.tac, self.rs, self.enc, self.a, self.g = tac, tac.rs, enc, a, enc.grid
        g = self.g
        live = [u for u in enc.units if u.active]
        self.att = {u.id: tac.token(_attacker_sig(u)) for u in live}
        self.tgt = {u.id: tac.token(_target_sig(u)) for u in live}
        self.enemies = enc.enemies(a)
        self.world = tac.token((frozenset(g.open_doors), frozenset(g.broken)))
        self.occupied = {g.index(*u.pos): u.id for u in live if u.id != a.id}
        self._table = tac.sight_table(g)
        self.first = {u.id: (C.first_of(u, "melee"), C.first_of(u, "ranged")) for u in live}
        rs = self.rs
        attackers = [e for e in self.enemies if rs.can_act(enc, e) and e.state["pinned_by"] is None
                     and not e.state["no_attacks"]]
        me = tac.token(_target_sig(a)[:3] + _target_sig(a)[4:])  # expected damage does not depend on hp
        self._threat_fields = [(e, _field(tac._threat, (self.att[e.id], e.pos, me, self.world)))
                               for e in attackers]
        mine = self.att[a.id]
        self._offense_fields = [(e, _field(tac._offense, (mine, self.tgt[e.id], e.pos, self.world)))
                                for e in self.enemies]
        self._threat: dict = {}
        self._offense: dict = {}
        self._danger: dict[int, float] = {}
        self._aoo: dict = {}
        self._melee: list | None = None
        self._approach: dict | None = None

    def _sight(self, i: int, j: int) -> tuple[bool, bool, int, int]:
        got = self._table.get((i, j) if i <= j else (j, i))
        return got if got is not None else SagaTactics.sight(self.g, self._table, i, j)

    def pair(self, apos, tpos) -> tuple[bool, bool, int, int]:
        """(sight, effect, cover bonus, distance) between two squares."""
        w = self.g.width
        return self._sight(apos[1] * w + apos[0], tpos[1] * w + tpos[0])

    def state_key(self) -> int:
        """Everything square values depend on: every unit's state and square (but the actor's square), and which
        enemies have spent their attack of opportunity (a shot's worth counts the ones it provokes)."""
        a = self.a
        return self.tac.token((a.id, self.world, tuple(
            (u.id, self.att[u.id], self.tgt[u.id], u.pos if u.id != a.id else None)
            for u in self.enc.units if u.active), tuple(e.id for e in self.enemies if e.state["aoo_used"])))

    def key_squares(self) -> set[tuple[int, int]]:
        """Squares worth a look beyond a coarse lattice: next to cover, within reach of an enemy, next to
        the actor (a policy that prunes squares for speed keeps these)."""
        g, a = self.g, self.a
        melee, ranged = self.first[a.id]
        key = ("keys", id(g._geometry), a.pos, melee is None, ranged is None, a.stats["reach"],
               tuple(e.pos for e in self.enemies), frozenset(g.broken))
        got = self.tac._keys.get(key)
        if got is not None and got[0] is g._geometry:
            return got[1]
        if len(self.tac._keys) > 512:
            self.tac._keys.clear()
        out = set(self.tac.cover_squares(g, ("door",)))
        if ranged is not None:
            out.update(self.tac.cover_squares(g))
        out.update(g.within(a.pos, 1))
        if melee is not None:
            reach = max(1, a.stats["reach"])
            for e in self.enemies:
                out.update(g.within(e.pos, reach))
        self.tac._keys[key] = (g._geometry, out)
        return out

    # -- estimates --
    def estimate(self, att: Unit, tgt: Unit, n: int, apos, tpos, aimed: bool = False, pair=None) -> Estimate:
        """rs.attack_estimate of att at apos on tgt at tpos, cached by state, band and cover."""
        w = att.stats["weapons"][n]
        if w["kind"] == "melee":
            band, cover = -1, 0
        else:
            if pair is None:
                pair = self.pair(apos, tpos)
            band = C.range_band(w, pair[3])
            if band is None:
                return _OUT_OF_RANGE
            cover = pair[2]
        key = (self.att[att.id], self.tgt[tgt.id], n, band, cover, aimed)
        cache = self.tac._est
        got = cache.get(key)
        if got is None:
            self.tac._trim(cache)
            oa, ot = att.pos, tgt.pos
            att.pos, tgt.pos = apos, tpos
            try:
                got = cache[key] = self.rs.attack_estimate(self.enc, att, tgt, n, apos, aimed=aimed)
            finally:
                att.pos, tgt.pos = oa, ot
        return got

    # -- offense --
    def _strike(self, e: Unit, pos, aimed: bool):
        """(estimate, needs a clear line) of a's best single attack on e from pos, ignoring other units."""
        a = self.a
        melee, ranged = self.first[a.id]
        best = None
        pair = self.pair(pos, e.pos)
        if melee is not None:
            d = pair[3]
            if d <= 1 or (d <= a.stats["reach"] and pair[1]):
                best = (self.estimate(a, e, melee, pos, e.pos), False)
        if ranged is not None:
            if pair[0] and pair[1] and C.range_band(C.weapon(a, ranged), pair[3]) is not None:
                est = self.estimate(a, e, ranged, pos, e.pos, aimed, pair)
                if best is None or est.expected_damage > best[0].expected_damage:
                    best = (est, True)
        return best

    def offense(self, pos, aimed: bool = False) -> list[tuple[Unit, Estimate, float]]:
        """Attacks one standard action can make from pos: (target, estimate, AoO cost of making it)."""
        key = (pos, aimed)
        got = self._offense.get(key)
        if got is not None:
            return got
        a, g = self.a, self.g
        s = a.state
        out: list[tuple[Unit, Estimate, float]] = []
        if not (s["no_attacks"] or s["pinned_by"] is not None or not self.rs.can_act(self.enc, a)):
            occ = self.occupied.keys()
            line = g._geometry.line
            i = g.index(*pos)
            for e, field in self._offense_fields:
                got = field.get(key, _MISSING)
                if got is _MISSING:
                    got = field[key] = self._strike(e, pos, aimed)
                if got is None:
                    continue
                est, ranged = got
                cost = 0.0
                if ranged:
                    if not occ.isdisjoint(line(i, g.index(*e.pos))):  # someone in the line of fire
                        melee = self.first[a.id][0]
                        if melee is None or g.distance(pos, e.pos) > 1:
                            continue
                        est = self.estimate(a, e, melee, pos, e.pos)
                    else:
                        cost = self.aoo_cost(pos)
                if est.expected_damage > 0:
                    out.append((e, est, cost))
        self._offense[key] = out
        return out

    def reach_value(self, pos) -> list[tuple[Unit, Estimate]]:
        """Enemies a melee unit at pos can reach and strike next turn (a move plus reach), with estimates."""
        a = self.a
        melee = self.first[a.id][0]
        if melee is None:
            return []
        if self._melee is None:
            self._melee = [(e, self.estimate(a, e, melee, e.pos, e.pos)) for e in self.enemies]
        dist = self.g.distance
        limit = a.stats["speed"] + a.stats["reach"]
        if self.approach(pos) > limit:  # walls (and closed doors) in the way of even the nearest
            return []
        return [(e, est) for e, est in self._melee if dist(pos, e.pos) <= limit]

    # -- defence --
    def _threat_of(self, e: Unit, pos) -> float:
        a = self.a
        best = 0.0
        m, r = self.first[e.id]
        pair = self.pair(e.pos, pos)
        if m is not None:
            dist = pair[3]
            lim = e.stats["speed"] + e.stats["reach"]
            if dist <= lim + e.stats["speed"]:
                est = self.estimate(e, a, m, e.pos, pos).expected_damage
                best = est if dist <= lim else _LATER_MELEE_SHARE * est
        if r is not None:
            est = self.estimate(e, a, r, e.pos, pos, False, pair).expected_damage
            if not pair[0]:
                est *= _NO_LOS_SHARE
            best = max(best, est)
        return best

    def threat(self, pos) -> float:
        """Expected damage the enemies can deal to a standing at pos on their next turn."""
        got = self._threat.get(pos)
        if got is None:
            got = 0.0
            for e, field in self._threat_fields:
                v = field.get(pos)
                if v is None:
                    v = field[pos] = self._threat_of(e, pos)
                got += v
            self._threat[pos] = got
        return got

    def aoo_cost(self, pos) -> float:
        """Expected damage of the attacks of opportunity taken when a acts provokingly at pos."""
        got = self._aoo.get(pos)
        if got is None:
            g, a = self.g, self.a
            got = 0.0
            for eid in self.rs._threats(self.enc, a).get(g.index(*pos), ()):
                e = self.enc.units[eid]
                m = self.first[e.id][0]
                if m is not None:
                    got += self.estimate(e, a, m, e.pos, pos).expected_damage
            self._aoo[pos] = got
        return got

    def provoked(self, d: Decision) -> float:
        """Expected damage of the attacks of opportunity the decision provokes (leaving its square)."""
        a = self.a
        if d.action in ("move", "run", "charge", "ranged_attack"):
            return self.aoo_cost(a.pos)
        if d.action == "full_attack":
            if any(C.weapon(a, n)["kind"] == "ranged" for n in self.rs._full_attack_plan(a)[0]):
                return self.aoo_cost(a.pos)
        return 0.0

    def end_square(self, d: Decision) -> tuple[int, int]:
        """Where the actor stands after the decision."""
        a = self.a
        if d.square is not None and d.action in ("move", "withdraw", "run"):
            return d.square
        if d.action == "charge":
            got = self.rs._charge_end(self.enc, a, self.enc.units[d.target])
            if got is not None:
                return got[0]
        return a.pos

    def approach(self, pos) -> int:
        """Steps from pos to the nearest enemy walking round walls, closed doors counted as passable (at
        a cost: one must stop and open them); cached per enemy positions and door state."""
        g = self.g
        field = self._approach
        if field is None:
            key = ("approach", id(g._geometry), tuple(e.pos for e in self.enemies), self.world)
            got = self.tac._keys.get(key)
            if got is None or got[0] is not g._geometry:
                if len(self.tac._keys) > 512:
                    self.tac._keys.clear()
                got = self.tac._keys[key] = (g._geometry, _distance_field(g, [e.pos for e in self.enemies],
                                                                          self.tac.step_costs(g)))
            field = self._approach = got[1]
        return field.get(pos[1] * g.width + pos[0], 99)

    def sees(self, e: Unit, pos) -> bool:
        return self.pair(e.pos, pos)[0]

    def danger(self, e: Unit) -> float:
        """How much damage e can deal the actor in a round, wherever they stand (for `most_dangerous`)."""
        got = self._danger.get(e.id)
        if got is None:
            a = self.a
            got = 0.0
            for n in C.usable_weapons(e):
                w = C.weapon(e, n)
                p = C.hit_chance(C.attack_bonus(e, n, a), C.reflex(a, melee=w["kind"] == "melee"))
                got = max(got, p * C.damage_expr(e, n).mean)
            if len(self.rs._full_attack_plan(e)[0]) >= 2:
                got *= 1.3
            self._danger[e.id] = got
        return got

    # ---- everything else -----------------------------------------------------------------------------------
    def misc_value(self, d: Decision, threat_here: float, can_strike) -> float:
        """Value (in expected-damage units) of a decision that is neither an attack nor a move.

        `can_strike()`: whether the actor has any attack from where it stands or after a move (lazy).
        """
        enc, a = self.enc, self.a
        act, s = d.action, a.state
        if act in WASTE:
            return -1.0
        if act == "second_wind":
            heal = max(a.max_hp // 4, a.stats["con"])
            return min(heal, a.max_hp - a.hp) * (1.5 if a.hp <= a.max_hp // 4 else 1.0)
        if act in ("stand_up", "stand_up_acrobatics"):
            return 6.0 + (1.0 if act == "stand_up_acrobatics" else 0.0)
        if act == "recover":
            return 1.5 * s["ct"]
        if act == "break_grab":
            return 4.0
        if act == "activate_item":
            item = a.stats["items"][d.option]
            bonus = item.get("reflex", 0) + item.get("fortitude", 0) + item.get("will", 0)
            if d.option in s["active_items"]:
                return -1.0
            swift_free = enc.budget.get("swift", 0) > 0
            return (0.05 * bonus * threat_here + 0.3) if (bonus > 0 and swift_free) else -0.5
        if act == "draw":
            w = C.weapon(a, d.option)
            if not C.usable_weapons(a):
                return 8.0 if w["kind"] == "ranged" else 7.0
            if C.first_of(a, w["kind"]) is None and not can_strike():
                return 3.0
            return -0.5
        if act == "manipulate":
            ground = enc.extra.get("ground", {}).get(f"{a.pos[0]},{a.pos[1]}", [])
            if d.square == a.pos and any(x["owner"] == a.id for x in ground):
                return 6.0 if not C.usable_weapons(a) else 1.0
            g = enc.grid
            i = g.index(*d.square)
            if g.terrain[i] == "door" and i not in g.open_doors and not can_strike():
                return 3.0  # open the way to an enemy out of reach
            return -0.5
        if act == "fight_defensively":
            return -0.5 if can_strike() else 0.1 * threat_here
        if act == "total_defense":
            return -0.5 if can_strike() else 0.25 * threat_here
        return -0.5


def make(ruleset) -> SagaTactics:
    """The tactics object of the Saga ruleset (looked up by the heuristic policy by convention)."""
    return SagaTactics(ruleset)
