"""Saga tactical knowledge for the heuristic policy: what each action is for, and how good a square is.

The heuristic (`engine/policies/heuristic.py`) is ruleset-neutral; `SagaRuleset.tactics()` gives it a `SagaTactics`,
an `engine.core.tactics.Tactics` (see there for the interface), whose views (`_View`, a `TacticsView`) answer every
query: `offense` (the attacks one standard action can make from a square, with the attacks of opportunity a shot
there provokes), `threat` (the enemies' melee after a move and their shots), `provoked`, `reach_value`, `approach`
(walks round walls and through doors), `danger`, `sees`, `end_square` (a charge's), `misc_value` (second wind,
standing up, drawing, doors, the defensive stances), and for speed `decision_estimate`, `state_key` and
`key_squares`. The roles come by action (`KINDS`), the wasteful actions' constant value too (`constant_misc`); an
attack costs a standard action and a move a move action.

Estimates come from the ruleset (`attack_estimate`); this module only places units hypothetically (a
unit's `pos` is swapped and restored, never a clone of the encounter) and caches what does not change
between decisions: the threat on a square depends on the enemies only, so it survives the actor's own
moves and attacks.
"""
from __future__ import annotations

import itertools

from engine.core.decision import Decision
from engine.core.grid import metric_distance
from engine.core.ruleset import Cost, Estimate
from engine.core.state import Encounter
from engine.core.tactics import Tactics, TacticsView
from engine.core.units import Unit

from . import combat as C
from .ruleset import _QUICK_DRAWN

KINDS = {"end_turn": "end", "melee_attack": "attack", "ranged_attack": "attack", "full_attack": "attack",
         "charge": "charge", "move": "move", "withdraw": "withdraw", "run": "run", "aim": "aim"}
# Never worth a turn for this policy (or only by accident): scored below ending the turn.
WASTE = {"fall_prone", "drop_item", "holster", "switch_mode", "attack_object", "attack_held_object", "grab",
         "grapple", "disarm", "coup_de_grace", "aid_attack", "suppress"}
_NO_LOS_SHARE = 0.5      # a shooter without a line to the square may still move and find one
_LATER_MELEE_SHARE = 0.2  # a melee enemy two moves away threatens next-next turn


_SERIALS = itertools.count()


class SagaTactics(Tactics):
    """Position and action scoring helpers for Saga Edition (see the module docstring).

    Caches survive between decisions and are keyed by what they depend on, never by `enc.version`:
    sight lines by the map's door state, attack estimates by the two units' state and the range band and
    cover between them (the only ways the attacker's and target's squares enter an estimate), threat and
    offense per square by the units' positions and state and the map (`map_token`) with its doors.
    """

    attack_cost = Cost("standard")
    move_cost = Cost("move")
    kinds = KINDS  # `kind(d)` is kinds.get(d.action, "misc")
    constant_misc = {act: -1.0 for act in WASTE}  # `misc_value` of these actions, whatever the state

    def __init__(self, ruleset):
        super().__init__(ruleset)
        self._vis: dict = {}
        self._est: dict = {}
        self._threat: dict = {}
        self._offense: dict = {}
        self._by_pair: dict = {}  # per unit pair's state: (sight, effect, cover, distance) -> threat / strike
        self._tokens: dict = {}
        self._counter = itertools.count()
        self._keys: dict = {}
        self._key_sets: dict = {}  # `_View.key_squares` by map, squares and weapons
        self._fields: dict = {}  # walking-distance fields to the enemies, by map and enemy squares
        self._first: dict = {}  # attacker token -> (first melee weapon, first ranged weapon)
        self._danger: dict = {}  # (attacker token, target token) -> `_View.danger`
        self._classes: dict = {}  # strikes and threats by what they depend on (`_View._strike`, `_threat_of`)
        self._aoo_maps: dict = {}  # `_View._aoo_threats` by the enemies' signatures and squares
        self._plans: dict = {}  # `_View.plan` by attacker signature
        self._serial = next(_SERIALS)  # this object's key in the maps' `saga_map_tokens`

    def map_token(self, g) -> int:
        """A number standing for the map g is (its shared geometry), never reused for another map."""
        geo = g._geometry.memo  # kept with the map's geometry: per tactics object, its number for the map
        tokens = geo.get("saga_map_tokens")
        if tokens is None:
            tokens = geo["saga_map_tokens"] = {}
        got = tokens.get(self._serial)
        if got is None:
            got = tokens[self._serial] = next(self._counter)
        return got

    def token(self, key) -> int:
        """A small int standing for a (large, hashable) key, so per-square caches hash cheaply."""
        got = self._tokens.get(key)
        if got is None:
            if len(self._tokens) > 50000:
                self._tokens.clear()
                self._est.clear()
                self._threat.clear()
                self._offense.clear()
                self._by_pair.clear()
                self._first.clear()
                self._danger.clear()
                self._classes.clear()
            got = self._tokens[key] = next(self._counter)  # never reused, even after a clear
        return got

    # ---- classification ------------------------------------------------------------------------------
    def view(self, enc: Encounter, a: Unit) -> "_View":
        """Per-decision-point helper: signatures computed once, queries cached across decisions."""
        return _View(self, enc, a)

    def budget_key(self, enc: Encounter, a: Unit, d: Decision):
        """What `SagaRuleset.budget_after` depends on: the action, the budget and, to draw or holster, Quick Draw."""
        act = d.action
        return act, tuple(enc.budget.items()), act in _QUICK_DRAWN and "quick_draw" in a.stats["feats"]

    @staticmethod
    def _trim(cache: dict, limit: int = 20000) -> None:
        if len(cache) > limit:
            cache.clear()

    def sight_table(self, g) -> dict:
        """The cache of `sight` for this map as its doors stand now."""
        return self.world(g)[1]

    def world(self, g) -> tuple[int, dict]:
        """(a token for the map g as its doors and broken objects stand, which tells apart what squares mean where
        unit tokens cannot: units of one template share a stat block across encounters; the `sight_table` of that
        state), in one lookup."""
        geo = g._geometry
        key = (id(geo), g._door_key())
        got = self._vis.get(key)
        if got is None or got[0] is not geo:  # an id can be reused by a later map
            if len(self._vis) > 32:
                self._vis.clear()
            got = self._vis[key] = (geo, self.token((self.map_token(g), frozenset(g.open_doors), frozenset(g.broken))),
                                    {})
        return got[1], got[2]

    def _map_table(self, key, value):
        """Keep a per-map table (`_keys`, a few per map: emptied when maps pile up)."""
        if len(self._keys) > 256:
            self._keys.clear()
        self._keys[key] = value
        return value

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
            got = self._map_table(key, (g._geometry, frozenset(out)))
        return got[1]

    def step_costs(self, g) -> bytes:
        """Price of entering each square when walking towards an enemy: 0 for walls and solid cover, 3 for
        a closed door (stop, open it, go on), else 1; cached per map and door state."""
        key = ("steps", id(g._geometry), frozenset(g.open_doors), frozenset(g.broken))
        got = self._keys.get(key)
        if got is None or got[0] is not g._geometry:
            costs = bytearray()
            for i in range(len(g.terrain)):
                t = g.kind(i)
                costs.append(0 if t in ("wall", "heavy_cover", "window") else 3 if t == "door" else 1)
            got = self._map_table(key, (g._geometry, bytes(costs)))
        return got[1]

    def distance_field(self, g, starts) -> list[int]:
        """`Grid.distance_field` from the squares `starts` over `step_costs(g)`."""
        return g.distance_field(starts, self.step_costs(g))

    @staticmethod
    def sight(g, table: dict, i: int, j: int) -> tuple[bool, bool, int, int]:
        """(line of sight, line of effect, cover bonus, distance) between flat squares i and j, by `Grid.sight`,
        kept in `table` (a `sight_table`)."""
        key = (i, j) if i <= j else (j, i)
        got = table.get(key)
        if got is None:
            los, loe, cover = g.sight(i, j)  # shared with the ruleset's own lookups
            xys = g._geometry.xys
            (ax, ay), (bx, by) = xys[i], xys[j]
            got = (los, loe, C.COVER_BONUS[cover], metric_distance(g.metric, ax - bx, ay - by))  # `Grid.distance`
            table[key] = got
        return got


_MISSING = object()
_OUT_OF_RANGE = Estimate(notes=["out of range"])


def _attacker_sig(u: Unit, named: bool = True) -> tuple:
    """What of a unit's state enters its attack bonus and damage (not its square, not its aim).

    `id(u.stats)` stands for the stat block (blocks are replaced, never changed in place); units of one template
    share theirs across encounters, and what depends on the map is keyed by `_View.world` too. The unit's id and
    name lead it only when `named` (see `_named`); else they are None, so that units of one template in one state,
    of either side, share what is cached by their signatures."""
    s = u.state
    return (u.id if named else None, u.name if named else None, id(u.stats), s["ct"], s["prone"], s["charged"], tuple(s["hands"]), tuple(s["lost"]), tuple(s["modes"]),
            s["suppressed"], len(s["grabbed_by"]), s["attack_penalty"], s["pinned_by"], s["no_attacks"])


def _target_sig(u: Unit, named: bool = True) -> tuple:
    """What of a unit's state enters the defense and kill chance against it (id and name as in `_attacker_sig`;
    item 3 is the hit points)."""
    s = u.state
    aid = s["aid"]
    return (u.id if named else None, u.name if named else None, id(u.stats), u.hp, s["ct"], s["prone"], s["defense"], s["charged"], tuple(s["active_items"]),
            tuple(sorted(aid.items())) if aid else ())


def _first_weapons(u: Unit) -> tuple[int | None, int | None]:
    """The first usable melee and ranged weapons of u (they depend on its hands, its losses and its stat block)."""
    return C.first_of(u, "melee"), C.first_of(u, "ranged")


def _named(units: list[Unit]) -> bool:
    """Whether the signatures of these units must name them (`_attacker_sig`): when an active unit is aided
    (`combat.aid_bonus` depends on the attacker's side and id), else an attack's figures depend on the signatures'
    other items only."""
    return any(u.state["aid"] for u in units if u.active)


def _view_units(units: list[Unit], actor_id: int, side, width: int, token, tokens: dict, firsts: dict,
                first_weapons=_first_weapons) -> tuple:
    """The loop of `_View.__init__` over the active units: their attacker and target tokens, first weapons (by
    attacker token, cached in `firsts`; tokens by `token`, looked up in `tokens` first), the squares of the others,
    the actor's target signature without hp (expected damage does not depend on it), and per unit (id, attacker
    token, target token, square or None for the actor) for `state_key`, the enemies of a unit of `side`
    (`Encounter.enemies`), and whether the signatures name the units (`_named`)."""
    att, tgt, first, occupied = {}, {}, {}, {}
    me = None
    out = []
    enemies = []
    named = _named(units)
    for u in units:
        if not u.active:
            continue
        if u.side != side:
            enemies.append(u)
        uid = u.id
        sig = _attacker_sig(u, named)
        t = att[uid] = tokens.get(sig) or token(sig)
        sig = _target_sig(u, named)
        tt = tgt[uid] = tokens.get(sig) or token(sig)
        got = firsts.get(t)
        if got is None:
            got = firsts[t] = first_weapons(u)
        first[uid] = got
        if uid != actor_id:
            occupied[u.pos[1] * width + u.pos[0]] = uid
            out.append((uid, t, tt, u.pos))
        else:
            me = sig[:3] + sig[4:]
            out.append((uid, t, tt, None))
    return att, tgt, first, occupied, me, tuple(out), enemies, named


class _View(TacticsView):
    """Tactical queries for actor `a` at one decision point.

    Per-square results are kept in fields keyed by one unit pair's state and squares (an enemy's threat
    on the actor, the actor's attack on one enemy), so they survive every decision that changes neither.
    """

    provoked_by_action = True  # `provoked(d)` depends on d's action only (the heuristic caches it per action)

    def __init__(self, tac: SagaTactics, enc: Encounter, a: Unit):
        self.tac, self.rs, self.enc, self.a, self.g = tac, tac.rs, enc, a, enc.grid
        g = self.g
        token, firsts = tac.token, tac._first
        w = g.width
        att, tgt, first, occupied, me, units, self.enemies, self._named = _view_units(
            enc.units, a.id, a.side, w, token, tac._tokens, firsts, _first_weapons)
        self.att, self.tgt, self.first = att, tgt, first
        self._units = units  # per active unit (id, attacker token, target token, square; None for the actor)
        self.world, self._table = tac.world(g)  # the map and its doors; the sight lines over them
        self.occupied = occupied
        rs = self.rs
        # the actor's target signature without its hit points: what the damage dealt to it depends on
        if me is None:
            me = _target_sig(a, self._named)
            me = me[:3] + me[4:]
        self._me = me = token(me)
        # per enemy: its threat on the actor by square (for its square and the doors as they are) and by the sight
        # line between them (whatever the squares); the actor's strike on it likewise
        world, mine = self.world, att[a.id]
        threats, offense, pairs = tac._threat, tac._offense, tac._by_pair
        for store in (threats, offense, pairs):
            if len(store) > 4096:
                store.clear()
        self._threat_fields, self._offense_fields = tf, of = [], []
        for e in self.enemies:
            ea, et, ep = att[e.id], tgt[e.id], e.pos
            ei = ep[1] * w + ep[0]
            s = e.state
            if rs.can_act(enc, e) and s["pinned_by"] is None and not s["no_attacks"]:
                tf.append((e, threats.setdefault((ea, ep, me, world), {}), pairs.setdefault(("threat", ea, me), {}),
                           ei))
            of.append((e, offense.setdefault((mine, et, ep, world), {}), ei, pairs.setdefault(("strike", mine, et), {})))
        s = a.state
        self._armed = not (s["no_attacks"] or s["pinned_by"] is not None or not rs.can_act(enc, a))
        self._threat: dict = {}
        self._offense: dict = {}
        self._danger: dict[int, float] = {}
        self._aoo: dict = {}
        self._charges: dict = {}
        self._threats: dict | None = None
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
        enemies have spent their attack of opportunity this round (`aoo_used`, in neither signature): a shot's worth
        from a square (`best_attack`, and `pos_value` through it) counts the attacks of opportunity it provokes
        there (`aoo_cost`), and an enemy that took one on the actor's move no longer takes one on its shot."""
        spent = tuple([e.id for e in self.enemies if e.state["aoo_used"]])
        return self.tac.token((self.a.id, self.world, self._units, spent))

    def key_squares(self) -> set[tuple[int, int]]:
        """Squares worth a look beyond a coarse lattice: next to cover, within reach of an enemy, next to
        the actor (a policy that prunes squares for speed keeps these)."""
        g, a = self.g, self.a
        melee, ranged = self.first[a.id]
        key = ("keys", id(g._geometry), a.pos, melee is None, ranged is None, a.stats["reach"],
               tuple(e.pos for e in self.enemies), frozenset(g.broken))
        store = self.tac._key_sets  # apart from the per-map tables of `_keys`, which a clear here would drop
        got = store.get(key)
        if got is not None and got[0] is g._geometry:
            return got[1]
        if len(store) > 512:
            store.clear()
        out = set(self.tac.cover_squares(g, ("door",)))
        if ranged is not None:
            out.update(self.tac.cover_squares(g))
        out.update(g.within(a.pos, 1))
        if melee is not None:
            reach = max(1, a.stats["reach"])
            for e in self.enemies:
                out.update(g.within(e.pos, reach))
        store[key] = (g._geometry, out)
        return out

    # -- estimates --
    def estimate(self, att: Unit, tgt: Unit, n: int, apos, tpos, aimed: bool = False, pair=None,
                 target=None) -> Estimate:
        """rs.attack_estimate of att at apos on tgt at tpos, cached by state, band and cover. With `target` (the
        actor's `_me` token, which leaves its hit points out), only its expected damage is right: the hit points
        enter the kill chance only."""
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
        mine = self.att[att.id]
        key = (mine, self.tgt[tgt.id] if target is None else target, n, band, cover, aimed)
        cache = self.tac._est
        got = cache.get(key)
        if got is None:
            self.tac._trim(cache)
            # the same attack on the target at other hit points differs in its kill chance only
            sig = _target_sig(tgt, self._named)
            base_key = ("hp", mine, sig[:3] + sig[4:], n, band, cover, aimed)
            base = cache.get(base_key)
            if base is None:
                oa, ot = att.pos, tgt.pos
                att.pos, tgt.pos = apos, tpos
                try:
                    got = self.rs.attack_estimate(self.enc, att, tgt, n, apos, aimed=aimed)
                finally:
                    att.pos, tgt.pos = oa, ot
                cache[base_key] = (got, C.damage_expr(att, n, aimed=aimed and w["kind"] != "melee"),
                                   2 if C.mode(att, n) == "stun" else 1)
            else:  # `rs.attack_estimate`'s kill chance at these hit points
                est, expr, stun = base
                p = est.hit_chance
                got = Estimate(p, est.expected_damage, p * C.p_at_least(expr, tgt.hp * stun), est.notes)
            cache[key] = got
        return got

    def decision_estimate(self, d: Decision) -> Estimate | None:
        """`rs.estimate` of an attack, full attack or charge decision from the estimate cache (None for others)."""
        act = d.action
        if act == "full_attack" or act == "charge":
            return self._whole_estimate(d)
        if act != "melee_attack" and act != "ranged_attack":
            return None
        a = self.a
        n = self.first[a.id][act == "ranged_attack"]
        if n is None or d.target is None:
            return None
        t = self.enc.units[d.target]
        return self.estimate(a, t, n, a.pos, t.pos, aimed=a.state["aimed"])

    def _whole_estimate(self, d: Decision) -> Estimate | None:
        """`rs.estimate` of a full attack or a charge, cached by what enters it: the two units' signatures, aim
        and the sight line between them for a full attack (its ranged attacks' band and cover); for a charge,
        a melee attack with +2 from where the charge ends, the signatures and the weapon only."""
        a, enc = self.a, self.enc
        if d.target is None:
            return None
        t = enc.units[d.target]
        mine, theirs = self.att.get(a.id), self.tgt.get(t.id)
        if mine is None or theirs is None:
            return None
        if d.action == "charge":
            end = self.charge_end(t)
            if end is None:
                return None
            key = ("charge", mine, theirs, C.first_of(a, "melee"))
        else:
            key = ("full_attack", mine, theirs, a.state["aimed"], self.pair(a.pos, t.pos))
        cache = self.tac._est
        got = cache.get(key)
        if got is None:
            self.tac._trim(cache)
            # the same attack on the target at other hit points differs in its kill chance only
            sig = _target_sig(t, self._named)
            base_key = ("hp", key[0], mine, sig[:3] + sig[4:]) + key[3:]
            base = cache.get(base_key)
            if d.action == "charge":  # `rs.estimate` of a charge, its end square already known
                if base is None:
                    got = self.rs.attack_estimate(enc, a, t, key[3], end[0], extra=2)
                    cache[base_key] = (got, C.damage_expr(a, key[3], aimed=False),
                                       2 if C.mode(a, key[3]) == "stun" else 1)
                else:  # `rs.attack_estimate`'s kill chance at these hit points
                    est, expr, stun = base
                    p = est.hit_chance
                    got = Estimate(p, est.expected_damage, p * C.p_at_least(expr, t.hp * stun), est.notes)
            elif base is None:
                got = cache[base_key] = self.rs.estimate(enc, a, d)
            else:  # `rs.estimate`'s kill chance of a full attack at these hit points
                ed = base.expected_damage
                got = Estimate(base.hit_chance, ed, min(1.0, ed / max(1, t.hp)) ** 2, base.notes)
            cache[key] = got
        return got

    def plan(self, u: Unit) -> tuple[list[int], int]:
        """`rs._full_attack_plan(u)`, cached by u's attacker signature (its usable weapons and feats)."""
        key = self.att.get(u.id)
        got = self.tac._plans.get(key) if key is not None else None
        if got is None:
            got = self.rs._full_attack_plan(u)
            if key is not None:
                self.tac._trim(self.tac._plans)
                self.tac._plans[key] = got
        return got

    def charge_end(self, t: Unit):
        """`rs._charge_end` of the actor at t (end square, squares walked) or None, once per view."""
        got = self._charges.get(t.id, _MISSING)
        if got is _MISSING:
            got = self.rs._charge_end(self.enc, self.a, t)
            self._charges[t.id] = got
        return got

    # -- offense --
    def _strike(self, e: Unit, pos, aimed: bool):
        """(estimate, needs a clear line) of a's best single attack on e from pos, ignoring other units.

        Cached by what it depends on: whether the melee weapon reaches, the ranged weapon's band and the cover
        (the estimates' keys), for the two units' states; many sight lines share these."""
        a = self.a
        melee, ranged = self.first[a.id]
        pair = self.pair(pos, e.pos)
        los, loe, cover, d = pair
        reach = melee is not None and (d <= 1 or (d <= a.stats["reach"] and loe))
        band = C.range_band(C.weapon(a, ranged), d) if ranged is not None and los and loe else None
        key = ("strike", self.att[a.id], self.tgt[e.id], reach, band, cover if band is not None else None, aimed)
        classes = self.tac._classes
        got = classes.get(key, _MISSING)
        if got is _MISSING:
            best = None
            if reach:
                best = (self.estimate(a, e, melee, pos, e.pos), False)
            if band is not None:
                est = self.estimate(a, e, ranged, pos, e.pos, aimed, pair)
                if best is None or est.expected_damage > best[0].expected_damage:
                    best = (est, True)
            self.tac._trim(classes)
            got = classes[key] = best
        return got

    def offense(self, pos, aimed: bool = False) -> list[tuple[Unit, Estimate, float]]:
        """Attacks one standard action can make from pos: (target, estimate, AoO cost of making it)."""
        key = (pos, aimed)
        got = self._offense.get(key)
        if got is not None:
            return got
        out: list[tuple[Unit, Estimate, float]] = []
        if self._armed:
            a, g = self.a, self.g
            occ = self.occupied.keys()
            line = g._geometry.line
            i = pos[1] * g.width + pos[0]
            table = self._table
            for e, field, ei, by_pair in self._offense_fields:
                got = field.get(key, _MISSING)
                if got is _MISSING:
                    # a strike depends on the squares only through the sight line between them
                    pk = table.get((i, ei) if i <= ei else (ei, i))
                    if pk is None:
                        pk = SagaTactics.sight(g, table, i, ei)
                    pk = (pk, aimed)
                    got = by_pair.get(pk, _MISSING)
                    if got is _MISSING:
                        got = by_pair[pk] = self._strike(e, pos, aimed)
                    field[key] = got
                if got is None:
                    continue
                est, ranged = got
                cost = 0.0
                if ranged:
                    if not occ.isdisjoint(line(i, ei)):  # someone in the line of fire
                        melee = self.first[a.id][0]
                        if melee is None or g.distance(pos, e.pos) > 1:
                            continue
                        est = self.estimate(a, e, melee, pos, e.pos)
                    else:
                        cost = self._aoo.get(pos)
                        if cost is None:
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
        """Expected damage e can deal a standing at pos next turn (a melee blow after a move, a little after two;
        a shot, halved without a line of sight). Cached by what it depends on: how near e is, its ranged
        weapon's band, the cover and the sight, for the two units' states; many sight lines share these."""
        a = self.a
        m, r = self.first[e.id]
        pair = self.pair(e.pos, pos)
        los, _loe, cover, dist = pair
        near = 0
        if m is not None:
            lim = e.stats["speed"] + e.stats["reach"]
            near = 2 if dist <= lim else 1 if dist <= lim + e.stats["speed"] else 0
        band = C.range_band(C.weapon(e, r), dist) if r is not None else None
        me = self._me  # expected damage does not depend on the actor's hit points
        key = ("threat", self.att[e.id], me, near, r is not None, band, cover if band is not None else None, los)
        classes = self.tac._classes
        best = classes.get(key)
        if best is None:
            best = 0.0
            if near:
                est = self.estimate(e, a, m, e.pos, pos).expected_damage
                best = est if near == 2 else _LATER_MELEE_SHARE * est
            if r is not None:
                est = self.estimate(e, a, r, e.pos, pos, False, pair).expected_damage
                if not los:
                    est *= _NO_LOS_SHARE
                best = max(best, est)
            self.tac._trim(classes)
            classes[key] = best
        return best

    def threat(self, pos) -> float:
        """Expected damage the enemies can deal to a standing at pos on their next turn."""
        got = self._threat.get(pos)
        if got is None:
            got = 0.0
            i = -1
            table = self._table
            for e, field, by_pair, ei in self._threat_fields:
                v = field.get(pos)
                if v is None:
                    # a threat depends on the squares only through the sight line between them
                    if i < 0:
                        i = self.g.index(*pos)
                    pk = table.get((ei, i) if ei <= i else (i, ei))
                    if pk is None:
                        pk = SagaTactics.sight(self.g, table, ei, i)
                    v = by_pair.get(pk)
                    if v is None:
                        v = by_pair[pk] = self._threat_of(e, pos)
                    field[pos] = v
                got += v
            self._threat[pos] = got
        return got

    def aoo_cost(self, pos) -> float:
        """Expected damage of the attacks of opportunity taken when a acts provokingly at pos."""
        got = self._aoo.get(pos)
        if got is None:
            g, a = self.g, self.a
            got = 0.0
            if self._threats is None:
                self._threats = self._aoo_threats()
            for eid in self._threats.get(pos[1] * g.width + pos[0], ()):
                e = self.enc.units[eid]
                m = self.first[e.id][0]
                if m is not None:
                    got += self.estimate(e, a, m, e.pos, pos).expected_damage
            self._aoo[pos] = got
        return got

    def _aoo_threats(self) -> dict:
        """`rs._threats(enc, a)` (square -> the enemies that take an attack of opportunity there), cached by what it
        depends on: the map, and per enemy its attacker signature (whether it threatens, its reach), its id (what the
        answer names), its square and whether its reaction is spent."""
        att = self.att
        key = (self.world, tuple([(att[e.id], e.id, e.pos, e.state["aoo_used"]) for e in self.enemies]))
        store = self.tac._aoo_maps
        got = store.get(key)
        if got is None:
            if len(store) > 4096:
                store.clear()
            got = store[key] = self.rs._threats(self.enc, self.a)
        return got

    def provoked(self, d: Decision) -> float:
        """Expected damage of the attacks of opportunity the decision provokes (leaving its square)."""
        a = self.a
        if d.action in ("move", "run", "charge", "ranged_attack"):
            return self.aoo_cost(a.pos)
        if d.action == "full_attack":
            if any(C.weapon(a, n)["kind"] == "ranged" for n in self.plan(a)[0]):
                return self.aoo_cost(a.pos)
        return 0.0

    def end_square(self, d: Decision) -> tuple[int, int]:
        """Where the actor stands after the decision."""
        a = self.a
        if d.square is not None and d.action in ("move", "withdraw", "run"):
            return d.square
        if d.action == "charge":
            got = self.charge_end(self.enc.units[d.target])
            if got is not None:
                return got[0]
        return a.pos

    def approach(self, pos) -> int:
        """Steps from pos to the nearest enemy walking round walls, closed doors counted as passable (at
        a cost: one must stop and open them); cached per enemy positions and door state."""
        g = self.g
        field = self._approach
        if field is None:
            key = (id(g._geometry), tuple(e.pos for e in self.enemies), self.world)
            store = self.tac._fields
            got = store.get(key)
            if got is None or got[0] is not g._geometry:
                if len(store) > 512:
                    store.clear()
                got = store[key] = (g._geometry, self.tac.distance_field(g, [e.pos for e in self.enemies]))
            field = self._approach = got[1]
        return field[pos[1] * g.width + pos[0]]

    def sees(self, e: Unit, pos) -> bool:
        return self.pair(e.pos, pos)[0]

    def danger(self, e: Unit) -> float:
        """How much damage e can deal the actor in a round, wherever they stand (for `most_dangerous`)."""
        got = self._danger.get(e.id)
        if got is None:
            a = self.a
            # it depends on e's weapons and attack and on a's reflex defense: on their unit signatures (not on a's
            # hit points)
            key = (self.att.get(e.id), self._me)
            got = self.tac._danger.get(key) if key[0] is not None and key[1] is not None else None
            if got is not None:
                self._danger[e.id] = got
                return got
            got = 0.0
            for n in C.usable_weapons(e):
                w = C.weapon(e, n)
                p = C.hit_chance(C.attack_bonus(e, n, a), C.reflex(a, melee=w["kind"] == "melee"))
                got = max(got, p * C.damage_expr(e, n).mean)
            if len(self.plan(e)[0]) >= 2:
                got *= 1.3
            self._danger[e.id] = got
            if key[0] is not None and key[1] is not None:
                self.tac._danger[key] = got
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
