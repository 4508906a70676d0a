"""Star Wars Saga Edition combat ("Types of Actions"): legality and resolution of every action.

`legal_actions` is the one source of legality; `apply` resolves a legal decision through a small
resolver per catalogue entry (`_r_<key>`). Arithmetic lives in `combat.py`, stat blocks in `stats.py`.
"""
from __future__ import annotations

from pathlib import Path

from engine.core.decision import END, Decision, option_decision, square_decisions, target_decision
from engine.core.dice import Dice
from engine.core.economy import Economy
from engine.core.events import Event, new_event
from engine.core.grid import DIRECTIONS, ENTER_COST, PASSABLE, TERRAINS, WALL_CODE, metric_distance
from engine.core.reaction import DECLINE, Trigger, ask_reaction
from engine.core.ruleset import Cost, Estimate, React, Ruleset, load_catalogue
from engine.core.state import Encounter
from engine.core.units import Unit

from . import combat as C
from . import narration as N
from . import observe as O
from . import stats as S
from .stats import RANGES

# Objects that can be attacked on the map (Statistics for Objects): DR, HP, damage threshold.
DOOR = {"dr": 10, "hp": 50, "threshold": 30, "reflex": 5}          # metal door (5 cm)
LOW_OBJECT = {"dr": 5, "hp": 10, "threshold": 20, "reflex": 4}     # large crate / bed-sized object
WEAPON_OBJECT = {"tiny": (5, 2, 10), "small": (5, 5, 12), "medium": (5, 10, 15), "large": (10, 10, 17),
                 "huge": (10, 20, 30)}  # DR, HP, threshold by weapon size
_LOW = TERRAINS.index("low_cover")  # its kind code (`Grid.kind_codes`)
_QUICK_DRAWN = frozenset(("draw", "holster"))  # swift actions with Quick Draw
_KEEPS_AIM = frozenset(("ranged_attack", "aim", "full_attack", "attack_held_object", "disarm"))
ATTACKS = {"melee_attack", "ranged_attack", "charge", "full_attack", "disarm", "coup_de_grace",
           "attack_held_object", "aid_attack", "suppress", "grab", "grapple", "attack_object"}


def _cache(enc: Encounter) -> dict:
    """Per-encounter memo of derived geometry (threat maps), keyed by state version.

    Owned by this encounter's unit list: a clone copies the attribute but not the ownership, so a clone
    never reads its source's entries.
    """
    try:
        got = enc._ruleset_cache
    except AttributeError:  # dropped with the other caches (agents.autopilot)
        got = None
    if got is None or got[0] is not enc.units:
        got = enc._ruleset_cache = (enc.units, {})
    elif len(got[1]) > 64:
        got[1].clear()
    return got[1]


# ---- interned decisions and per-map tables used by legal_actions -----------------------------------------------
_FIGHT_DEFENSIVELY, _TOTAL_DEFENSE, _BREAK_GRAB = (Decision("fight_defensively"), Decision("total_defense"),
                                                   Decision("break_grab"))
_STAND_UP, _STAND_UP_ACROBATICS, _AIM = Decision("stand_up"), Decision("stand_up_acrobatics"), Decision("aim")
_SECOND_WIND, _FALL_PRONE, _RECOVER = Decision("second_wind"), Decision("fall_prone"), Decision("recover")


def _run_rays(g, s: int) -> tuple:
    """From square s, per direction of DIRECTIONS: the squares a run can pass as (index, (x, y), cost so far),
    up to the map edge, a square nobody can stand in or a wall corner cut (other units are checked later)."""
    table = g.door_memo("saga_run_rays")
    got = table.get(s)
    if got is None:
        rays = []
        codes, w, h = g.kind_codes(), g.width, g.height
        x0, y0 = s % w, s // w
        for dx, dy in DIRECTIONS:
            ray, cost, parity, x, y = [], 0, 0, x0, y0
            while True:
                nx, ny = x + dx, y + dy
                if not (0 <= nx < w and 0 <= ny < h):
                    break
                i = ny * w + nx
                c = codes[i]
                if not PASSABLE[c]:
                    break
                if dx and dy:
                    if codes[y * w + nx] == WALL_CODE or codes[ny * w + x] == WALL_CODE:
                        break
                    step, parity = (2 if parity else 1), parity ^ 1
                else:
                    step = 1
                cost += step * ENTER_COST[c]
                ray.append((i, (nx, ny), cost))
                x, y = nx, ny
            rays.append(tuple(ray))
        got = table[s] = tuple(rays)
    return got


def _charge_lines(g) -> dict:
    """(start index * squares + end index) -> `_charge_line` result, per map and door state."""
    table = g.door_memo("saga_charge_lines")
    if len(table) > 100_000:
        table.clear()
    return table


class SagaRuleset(Ruleset):
    id = "saga"
    name = "Star Wars Saga Edition"
    env_name = "Saga"
    rules_file = "000_60d80ebe07ad66a0.txt"
    opens_doors = True
    metric = "alternating"
    attack_defense = "Reflex"  # what narration calls the defense an attack roll is against
    sides = ("pcs", "npcs")
    economy = Economy(slots={"standard": 1, "move": 1, "swift": 1},
                      trades={"standard": ("standard",), "move": ("move", "standard"),
                              "swift": ("swift", "move", "standard")},
                      full_round="full_round", full_round_needs=("standard", "move", "swift"))
    catalogue = load_catalogue(Path(__file__).parent / "actions.yaml")
    words_file = Path(__file__).parent / "words.yaml"  # the autopilot's table words

    # ---- units ----------------------------------------------------------------------------------------
    def templates(self) -> dict[str, dict]:
        return S.templates()

    def make_unit(self, uid: int, spec: dict, where: str) -> Unit:
        return S.make_unit(uid, spec, where)

    def check_unit(self, unit: Unit, where: str) -> None:
        S.check_unit(unit, where, C.CT_HELPLESS)

    def initiative_bonus(self, unit: Unit) -> int:
        return unit.stats["initiative"]

    def unit_summary(self, u: Unit) -> dict:
        s = u.state
        conds = []
        if s["ct"]:
            conds.append(f"CT {C.CT_PENALTY[s['ct']]}")
        for flag in ("prone", "aimed", "charged"):
            if s[flag]:
                conds.append(flag)
        if s["grabbed_by"]:
            conds.append("grabbed")
        if s["pinned_by"] is not None:
            conds.append("pinned")
        if s["defense"]:
            conds.append(f"defensive +{s['defense']}")
        held = [u.stats["weapons"][n]["name"] for n in s["hands"] if n not in s["lost"]]
        return {"reflex": C.reflex(u), "fortitude": C.fortitude(u), "will": C.will(u),
                "threshold": u.stats["threshold"], "conditions": conds, "holding": held}

    # ---- narration (Saga's sentences: narration.py) ------------------------------------------------------
    def narrate(self, event: Event, enc: Encounter) -> str | None:
        return N.narrate(event, enc, self)

    def attack_words(self, event: Event, enc: Encounter) -> tuple[str, str]:
        return N.attack_verb(event, enc, self), self.attack_defense

    def pronoun(self, unit: Unit) -> str:
        """'its' for droids and beasts (every weapon natural), 'their' for everyone else: Saga stat blocks name no
        pronoun."""
        w = unit.stats["weapons"]
        return "its" if unit.stats["droid"] or (w and all(x["natural"] for x in w)) else "their"

    # ---- turns -------------------------------------------------------------------------------------------
    def can_act(self, enc: Encounter, unit: Unit) -> bool:
        return not unit.down and unit.state["ct"] < C.CT_HELPLESS

    def start_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        s = u.state
        s["defense"], s["no_attacks"], s["attack_penalty"], s["charged"] = 0, False, 0, False
        s["aoo_used"] = False
        ev: list[Event] = []
        uid = u.id
        for other in enc.units:  # a pin lasts until the start of the pinner's next turn
            if other.state["pinned_by"] == uid:
                other.state["pinned_by"] = None
                ev.append(new_event("pin_ends", uid, other.id, {}))
        if enc.round - s["recover_round"] > 1:
            s["recover"] = 0
        if enc.extra.get("aid_until"):  # an aider skipped at its next turn: that turn has passed
            self._expire_aid(enc, False)
        return ev

    def end_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        u.state["aimed"] = False  # an aim not used this turn is lost (RULES.md, Aim)
        if enc.extra.get("aid_until"):
            self._expire_aid(enc, True)
        return []

    @staticmethod
    def _expire_aid(enc: Encounter, ending: bool) -> None:
        """Drop the aid bonuses (`state["aid"]`) whose aider's next turn is over: at the end of that turn (`ending`),
        or at the start of any later one. `enc.extra["aid_until"]` keeps, per "target id:side", the (round, slot
        in the order) of the aider's next turn."""
        until = enc.extra["aid_until"]
        now = [enc.round, enc.turn]
        for key, when in list(until.items()):
            if when < now or (ending and when == now):
                del until[key]
                tid, side = key.split(":", 1)
                enc.units[int(tid)].state["aid"].pop(side, None)

    # ---- legality -------------------------------------------------------------------------------------------
    def legal_actions(self, enc: Encounter, a: Unit) -> list[Decision]:
        """The rules of legality: every decision a may take now, END first, as interned Decision objects."""
        out = [END]
        b = enc.budget
        if not b or max(b.values()) <= 0:
            return out  # every action costs part of the budget
        if enc.flags.get("charged") or not self.can_act(enc, a):
            return out
        b, econ, s, g = enc.budget, self.economy, a.state, enc.grid
        std = b["standard"] > 0
        mv = econ.can_pay(b, "move")
        sw = econ.can_pay(b, "swift")
        full = econ.can_pay(b, "full_round")
        held = s["pinned_by"] is not None
        speed = C.speed(a)
        can_walk = not s["prone"] and not s["grabbed_by"] and not held and speed > 0
        side = a.side
        units = enc.units
        enemies = [u for u in units if u.active and u.side != side]
        melee_w = C.first_of(a, "melee")
        ranged_w = C.first_of(a, "ranged")
        may_attack = not s["no_attacks"] and not held
        w = g.width
        here = a.pos[1] * w + a.pos[0]
        decs = square_decisions(g)

        if mv and can_walk:
            reach = g.reachable(a.pos, speed, [e.pos[1] * w + e.pos[0] for e in enemies],
                                [u.pos[1] * w + u.pos[0] for u in units if u.active and u.side == side and u is not a])
            dm = decs["move"]
            out += [dm[i] for i in reach if i != here]
            if self._threats(enc, a).get(here):
                dw = decs["withdraw"]
                out += [dw[i] for i in self._withdraw_squares(enc, a)]
        occ = None
        if full and can_walk:
            occ = enc.occupied()
            dr = decs["run"]
            limit = self._run_limit(a)
            for ray in _run_rays(g, here):
                for i, xy, cost in ray:
                    if cost > limit:
                        break
                    who = occ.get(xy)
                    if who is None:
                        out.append(dr[i])
                    elif units[who].side != side:
                        break

        if std and may_attack:
            two_w = full and self._attack_count(a) >= 2
            can_grab = s["grabbing"] is None and not self._pinning(enc, a)
            feats = a.stats["feats"]
            grapple_feat = "pin" in feats or "trip" in feats
            ranged_disarm = "ranged_disarm" in feats
            a_reach = a.stats["reach"]
            ranges = RANGES[C.weapon(a, ranged_w)["group"]] if ranged_w is not None else None
            occ_idx = {u.pos[1] * w + u.pos[0] for u in units if u.active}
            charge = melee_w is not None and can_walk
            if charge and occ is None:
                occ = enc.occupied()
            for e in enemies:
                eid = e.id
                ie = e.pos[1] * w + e.pos[0]
                dist = g.distance(a.pos, e.pos)
                sight = g.sight(here, ie)
                m_ok = melee_w is not None and dist <= a_reach and (dist <= 1 or sight[1])
                r_ok = (ranges is not None and sight[0] and sight[1] and dist <= ranges[-1]
                        and not any(i in occ_idx for i in g._geometry.line(here, ie)))
                if m_ok:
                    out.append(target_decision("melee_attack", eid))
                if r_ok:
                    out.append(target_decision("ranged_attack", eid))
                if m_ok or r_ok:
                    out.append(target_decision("aid_attack", eid))
                    out.append(target_decision("suppress", eid))
                    if self._holding(e):
                        out.append(target_decision("attack_held_object", eid))
                        if m_ok or ranged_disarm:
                            out.append(target_decision("disarm", eid))
                    if two_w:
                        out.append(target_decision("full_attack", eid))
                if (charge and self._charge_in_range(g, a.pos, e.pos, speed, a_reach)
                        and self._can_charge(enc, a, e, occ, speed, a_reach)):
                    out.append(target_decision("charge", eid))
                if can_grab and dist <= 1 and C.size_steps(a, e) <= 1:
                    out.append(target_decision("grab", eid))
                    if grapple_feat:
                        out.append(target_decision("grapple", eid))
            da = decs["attack_object"]
            out += [da[i] for i in self._object_squares(enc, a, melee_w, ranged_w)]
        if full and may_attack:
            for u in units:
                if u.side != side and u.down and not u.dead and self._cdg_ok(enc, a, u):
                    out.append(target_decision("coup_de_grace", u.id))
        if std:
            out.append(_FIGHT_DEFENSIVELY)
            out.append(_TOTAL_DEFENSE)
            if s["grabbed_by"] or held:
                out.append(_BREAK_GRAB)

        # draw / holster / manipulate / stand up
        if econ.can_pay(b, self._draw_cost(a)):
            for n in self._drawable(a):
                out.append(option_decision("draw", n))
            for n in self._holsterable(a):
                out.append(option_decision("holster", n))
        if mv:
            dm = decs["manipulate"]
            out += [dm[i] for i in self._manipulable(enc, a)]
            if s["prone"]:
                out.append(_STAND_UP)
        if sw:
            if s["prone"] and "acrobatics" in a.stats["trained"]:
                out.append(_STAND_UP_ACROBATICS)
            for n in range(len(a.stats["items"])):
                out.append(option_decision("activate_item", n))
            if (not s["aimed"] and ranged_w is not None and may_attack and econ.can_pay(b, "swift", times=2)
                    and any(self._clear_shot(enc, a, e, ranged_w) for e in enemies)):
                out.append(_AIM)
            if self._wind_problem(a) is None:
                out.append(_SECOND_WIND)
            for n in self._holsterable(a):
                out.append(option_decision("drop_item", n))
            if not s["prone"]:
                out.append(_FALL_PRONE)
            if s["ct"] > 0 and not a.stats["persistent"]:
                out.append(_RECOVER)
            for n in self._holsterable(a):
                if len(a.stats["weapons"][n]["modes"]) > 1:
                    out.append(option_decision("switch_mode", n))
        return out

    def _can_charge(self, enc: Encounter, a: Unit, t: Unit, occ: dict, speed: int, reach: int) -> bool:
        """`_charge_end(enc, a, t) is not None`, from lines cached per map and door state."""
        return next(self._charges(enc, a, t, occ, speed, reach), None) is not None

    def _charges(self, enc: Encounter, a: Unit, t: Unit, occ: dict, speed: int, reach: int):
        """(walking cost, end square) of every legal charge at t, from lines cached per map and door state:
        (no terrain blocks it, squares touched, walking cost)."""
        g = enc.grid
        w, size = g.width, g._geometry.size
        ia = a.pos[1] * w + a.pos[0]
        table = _charge_lines(g)
        units, side = enc.units, a.side
        (ax, ay), (tx, ty), metric = a.pos, t.pos, g.metric
        start = metric_distance(metric, ax - tx, ay - ty)  # a charge moves toward its target: it ends nearer
        for end in g.within(t.pos, reach):
            ex, ey = end
            if end in occ or metric_distance(metric, ax - ex, ay - ey) < 2 \
                    or metric_distance(metric, ex - tx, ey - ty) >= start:
                continue
            key = ia * size + ey * w + ex
            line = table.get(key)
            if line is None:
                line = table[key] = self._charge_line(g, a.pos, end)
            ok, squares, cost = line
            if not ok or cost > speed:
                continue
            for xy in squares:
                who = occ.get(xy)
                if who is not None and units[who].side != side:
                    break  # an enemy in the way
            else:
                if reach <= 1 or g.line_of_effect(end, t.pos):
                    yield cost, end

    def _charge_line(self, g, start: tuple[int, int], end: tuple[int, int]) -> tuple[bool, tuple, int]:
        """(no terrain blocks it, the squares it touches from start on (end included), walking cost) of a
        charge line. Terrain blocks it when a square it touches is a wall, a low object or anything else not
        passable, or when a diagonal step of its walk cuts a wall's corner (as in movement)."""
        squares = self._line_squares(g, start, end)
        codes, w = g.kind_codes(), g.width
        for x, y in squares:
            c = codes[y * w + x]
            if c == _LOW or not PASSABLE[c]:
                return False, squares, 0
        path = self._line_path(g, start, end, squares)
        if self._corner_cut(g, start, path) is not None:
            return False, squares, 0
        return True, squares, g.path_cost(start, path)

    def why_illegal(self, enc: Encounter, a: Unit, d: Decision) -> str:
        spec = self.catalogue.get(d.action)
        if spec is None:
            return f"'{d.action}' is not a Saga action; see `tactician rules saga`"
        s, b, g = a.state, enc.budget, enc.grid
        if not self.can_act(enc, a):
            return f"{a.name} is helpless (bottom of the condition track) and cannot act"
        if enc.flags.get("charged"):
            return "after a charge you can take no further actions this turn"
        cost = self._draw_cost(a) if d.action in ("draw", "holster") else spec.cost
        if not self.economy.can_pay(b, cost, times=spec.times):
            left = self.economy.describe(b)
            if cost == "full_round":
                return (f"{spec.name} is a full-round action: it needs the whole turn, and {a.name} has already "
                        f"acted (left: {left})")
            n = "two" if spec.times == 2 else "a"
            return f"{spec.name} costs {n} {cost} action{'s' if spec.times > 1 else ''}; {a.name} has {left} left"
        tgt = None
        if spec.target in ("enemy", "unit", "ally"):
            if d.target is None or not 0 <= d.target < len(enc.units):
                return f"{spec.name} needs a target (a unit id from 0 to {len(enc.units) - 1})"
            tgt = enc.units[d.target]
        if spec.target == "square" and (d.square is None or not g.inside(*d.square)):
            return f"{spec.name} needs a square on the {g.width}x{g.height} map"
        if not 0 <= d.option < max(1, spec.options):
            return (f"{spec.name} has no option {d.option}" if spec.options > 1
                    else f"{spec.name} takes no option (got {d.option})")
        if spec.target == "none" and (d.target is not None or d.square is not None):
            return f"{spec.name} takes no target or square"
        if spec.target != "square" and d.square is not None:
            return f"{spec.name} targets a unit, not a square"
        if spec.target == "square" and d.target is not None:
            return f"{spec.name} targets a square, not a unit"
        if tgt is not None and spec.target == "enemy":
            if tgt.side == a.side:
                return f"{tgt.name} is on {a.name}'s side"
            if not tgt.active:
                return f"{tgt.name} is already out of the fight"
        if d.action in ATTACKS:
            if s["pinned_by"] is not None:
                return f"{a.name} is pinned by {enc.units[s['pinned_by']].name} and cannot attack"
            if s["no_attacks"]:
                return f"{a.name} chose to make no attacks until its next turn (fighting defensively)"
        why = getattr(self, f"_why_{d.action}", None)
        reason = why(enc, a, d, tgt) if why is not None else None
        return reason or f"{spec.name} is not possible for {a.name} right now"

    # specific reasons (only called for decisions outside legal_actions) ------------------------------------
    def _walk_problem(self, enc: Encounter, a: Unit) -> str | None:
        s = a.state
        if s["prone"]:
            return f"{a.name} is prone: stand up first (a move action)"
        if s["pinned_by"] is not None:
            return f"{a.name} is pinned by {enc.units[s['pinned_by']].name} and cannot move"
        if s["grabbed_by"]:
            who = ", ".join(enc.units[i].name for i in s["grabbed_by"])
            return f"{a.name} is grabbed by {who} and cannot move until it breaks the grab (a standard action)"
        if C.speed(a) <= 0:
            return f"{a.name} has speed 0"
        return None

    def _square_problem(self, enc: Encounter, sq: tuple[int, int]) -> str | None:
        g = enc.grid
        occ = enc.occupant(sq)
        if occ is not None:
            return f"{occ.name} is standing at {sq}"
        i = g.index(*sq)
        if not g.passable(i):
            return f"{sq} is {g.kind(i).replace('_', ' ')}, not a square anyone can stand in"
        return None

    def _why_move(self, enc, a, d, tgt):
        return (self._walk_problem(enc, a) or self._square_problem(enc, d.square)
                or f"{d.square} is not reachable within {a.name}'s speed of {C.speed(a)} squares from {a.pos} "
                   f"(enemies cannot be passed, difficult terrain and low objects cost double)")

    def _why_withdraw(self, enc, a, d, tgt):
        p = self._walk_problem(enc, a) or self._square_problem(enc, d.square)
        if p:
            return p
        if not self._threats(enc, a).get(enc.grid.index(*a.pos)):
            return f"{a.name} is not in a threatened square: just move"
        if not self._withdraw_firsts(enc, a):
            return f"no adjacent square takes {a.name} out of every threatened area in 1 square, so it cannot withdraw"
        return (f"{d.square} is not a withdrawal: the first square must leave every threatened area and the whole "
                f"move is at most half speed ({C.speed(a) // 2} squares)")

    def _why_run(self, enc, a, d, tgt):
        p = self._walk_problem(enc, a) or self._square_problem(enc, d.square)
        if p:
            return p
        dx, dy = d.square[0] - a.pos[0], d.square[1] - a.pos[1]
        if not (dx == 0 or dy == 0 or abs(dx) == abs(dy)):
            return f"run goes in a straight line (one of the 8 directions); {d.square} is not on one from {a.pos}"
        return (f"{d.square} is beyond {a.name}'s run of {self._run_limit(a)} squares or the line is blocked "
                f"(walls, enemies; difficult terrain costs double)")

    def _why_charge(self, enc, a, d, tgt):
        if C.first_of(a, "melee") is None:
            return f"{a.name} holds no melee weapon to charge with (draw one first)"
        return self._walk_problem(enc, a) or self._charge_problem(enc, a, tgt)

    def _why_melee_attack(self, enc, a, d, tgt):
        if C.first_of(a, "melee") is None:
            return f"{a.name} holds no melee weapon (draw one first, or grab)"
        dist = enc.grid.distance(a.pos, tgt.pos)
        if dist > a.stats["reach"]:
            return f"{tgt.name} is {dist} squares away, beyond {a.name}'s reach of {a.stats['reach']}"
        return f"a wall or closed door stands between {a.name} and {tgt.name}"

    def _why_ranged_attack(self, enc, a, d, tgt):
        w = C.first_of(a, "ranged")
        if w is None:
            return f"{a.name} holds no ranged weapon (draw one first)"
        return self._shot_problem(enc, a, tgt, w)

    def _reach_or_shot(self, enc, a, tgt) -> str:
        m, r = C.first_of(a, "melee"), C.first_of(a, "ranged")
        parts = []
        parts.append(f"{tgt.name} is not within melee reach" if m is not None else f"{a.name} holds no melee weapon")
        parts.append(self._shot_problem(enc, a, tgt, r) or "" if r is not None else "holds no ranged weapon")
        return f"{a.name} can neither strike nor shoot {tgt.name}: " + "; ".join(p for p in parts if p)

    def _why_aid_attack(self, enc, a, d, tgt):
        return self._reach_or_shot(enc, a, tgt)

    _why_suppress = _why_aid_attack

    def _why_attack_held_object(self, enc, a, d, tgt):
        if not self._holding(tgt):
            return f"{tgt.name} holds no weapon"
        return self._reach_or_shot(enc, a, tgt)

    def _why_disarm(self, enc, a, d, tgt):
        if not self._holding(tgt):
            return f"{tgt.name} holds nothing to disarm (natural weapons cannot be disarmed)"
        if C.first_of(a, "melee") is not None and self._in_reach(enc, a, tgt):
            return None
        if "ranged_disarm" not in a.stats["feats"]:
            return (f"{tgt.name} is not within {a.name}'s melee reach (or {a.name} holds no melee weapon); "
                    f"disarming at range needs the Ranged Disarm talent")
        return self._reach_or_shot(enc, a, tgt)

    def _why_full_attack(self, enc, a, d, tgt):
        if self._attack_count(a) < 2:
            return (f"{a.name} gains no extra attack: a full attack needs two weapons in hand, a double weapon, "
                    f"or Double Attack")
        return self._reach_or_shot(enc, a, tgt)

    def _why_grab(self, enc, a, d, tgt):
        s = a.state
        if s["grabbing"] is not None:
            return f"{a.name} is already grabbing {enc.units[s['grabbing']].name} (one opponent at a time)"
        if self._pinning(enc, a):
            return f"{a.name} is already grappling an opponent (one at a time)"
        if enc.grid.distance(a.pos, tgt.pos) > 1:
            return f"{tgt.name} is not adjacent to {a.name}"
        if C.size_steps(a, tgt) > 1:
            return f"{tgt.name} ({tgt.stats['size']}) is more than one size category larger than {a.name}"
        return None

    def _why_grapple(self, enc, a, d, tgt):
        if "pin" not in a.stats["feats"] and "trip" not in a.stats["feats"]:
            return f"grappling needs the Pin or Trip feat, and {a.name} has neither (grab instead)"
        return self._why_grab(enc, a, d, tgt)

    def _why_break_grab(self, enc, a, d, tgt):
        return f"{a.name} is neither grabbed nor pinned"

    def _why_attack_object(self, enc, a, d, tgt):
        g = enc.grid
        i = g.index(*d.square)
        kind = g.kind(i)
        if kind not in ("door", "low_cover"):
            return f"there is no object to attack at {d.square} ({kind.replace('_', ' ')}); closed doors and low objects can be"
        if C.first_of(a, "melee") is not None and d.square in g.within(a.pos, a.stats["reach"]):
            return None
        if kind == "door" and C.first_of(a, "ranged") is not None:
            return f"{a.name} has no line of sight to the door at {d.square}, or it is out of range"
        return (f"the {kind.replace('_', ' ')} at {d.square} is out of melee reach"
                + ("" if kind == "door" else " (low objects are attacked in melee)"))

    def _why_coup_de_grace(self, enc, a, d, tgt):
        if tgt.side == a.side:
            return f"{tgt.name} is on {a.name}'s side"
        if tgt.dead:
            return f"{tgt.name} is already dead"
        if not tgt.down:
            return f"{tgt.name} is not helpless (a coup de grace needs a helpless, unconscious or disabled target)"
        return (f"{tgt.name} is not within {a.name}'s melee reach, and a ranged coup de grace needs an adjacent "
                f"target")

    def _why_draw(self, enc, a, d, tgt):
        ws = a.stats["weapons"]
        if d.option >= len(ws):
            return f"{a.name} carries no weapon number {d.option}"
        w, s = ws[d.option], a.state
        if w["natural"]:
            return f"the {w['name']} is a natural weapon, always ready"
        if d.option in s["lost"]:
            return f"{a.name} no longer has the {w['name']} (dropped, disarmed or broken)"
        if d.option in s["hands"]:
            return f"the {w['name']} is already in hand"
        return f"{a.name}'s hands are full: holster or drop something first"

    def _why_holster(self, enc, a, d, tgt):
        ws = a.stats["weapons"]
        name = ws[d.option]["name"] if d.option < len(ws) else f"weapon {d.option}"
        return f"{a.name} is not holding the {name}"

    _why_drop_item = _why_holster

    def _why_switch_mode(self, enc, a, d, tgt):
        ws = a.stats["weapons"]
        if d.option < len(ws) and d.option in self._holsterable(a):
            return f"the {ws[d.option]['name']} has only one mode"
        return self._why_holster(enc, a, d, tgt)

    def _why_manipulate(self, enc, a, d, tgt):
        g = enc.grid
        i = g.index(*d.square)
        if d.square == a.pos:
            return f"nothing of {a.name}'s lies on its square to pick up"
        if g.terrain[i] != "door" or i in g.broken:
            return f"there is no door at {d.square} (and items are picked up from your own square)"
        if g.distance(a.pos, d.square) > 1:
            return f"the door at {d.square} is not adjacent to {a.name}"
        if self._object_state(enc, i).get("disabled"):
            return f"the door at {d.square} is disabled (jammed) and cannot be opened or closed"
        return f"someone stands in the doorway at {d.square}"

    def _why_stand_up(self, enc, a, d, tgt):
        return f"{a.name} is not prone"

    def _why_stand_up_acrobatics(self, enc, a, d, tgt):
        if not a.state["prone"]:
            return f"{a.name} is not prone"
        return f"{a.name} is not trained in Acrobatics: standing up is a move action"

    def _why_fall_prone(self, enc, a, d, tgt):
        return f"{a.name} is already prone"

    def _why_activate_item(self, enc, a, d, tgt):
        return f"{a.name} has no item number {d.option} ({len(a.stats['items'])} items)"

    def _why_aim(self, enc, a, d, tgt):
        if a.state["aimed"]:
            return f"{a.name} has already aimed; the next attack gets the benefit"
        r = C.first_of(a, "ranged")
        if r is None:
            return f"aiming lines up a ranged attack and {a.name} holds no ranged weapon"
        return f"{a.name} has no enemy in sight and range with a clear line of fire to aim at"

    def _why_second_wind(self, enc, a, d, tgt):
        return self._wind_problem(a)

    def _why_recover(self, enc, a, d, tgt):
        if a.stats["persistent"]:
            return f"{a.name} has a persistent condition: recovering does not help"
        return f"{a.name} is already at the top of the condition track"

    # ---- resolution -------------------------------------------------------------------------------------------
    def __init__(self):
        # apply's table: action -> (cost, times, Quick Draw may change its cost, it spends an aim, `_r_<action>`)
        self._actions = {key: (spec.cost, spec.times, key in _QUICK_DRAWN, key not in _KEEPS_AIM,
                               getattr(self, f"_r_{key}")) for key, spec in self.catalogue.items()}
        self._pay = self.economy.pay

    def apply(self, enc: Encounter, a: Unit, d: Decision, dice: Dice, react: React | None = None) -> list[Event]:
        action, target, square, option = d
        cost, times, drawn, spends_aim, resolve = self._actions[action]
        paid = self._pay(enc.budget, self._draw_cost(a) if drawn else cost, 1, times)
        if spends_aim:
            a.state["aimed"] = False
        ev = [new_event("action", a.id, target, {"action": action, "square": square, "option": option, "paid": paid})]
        ev += resolve(enc, a, d, dice, react)
        enc._ruleset_cache = None  # the state changed under the same version number
        return ev

    # attacks -----------------------------------------------------------------------------------
    def _attack(self, enc: Encounter, a: Unit, t: Unit, n: int | None, dice: Dice, *, bonus: int = 0,
                defense: int | None = None, damage: bool = True, why: str = "attack", ignore_cover: bool = False,
                auto_crit: bool = False, half_on_miss: bool = False) -> tuple[bool, list[Event]]:
        """One attack roll of a against t with weapon n (None: unarmed). Returns (hit, events).

        A ranged attack after Aim ignores cover (`ignore_cover`), gets Careful Shot's +1 and Deadeye's die;
        an autofire (area) attack gets none of it, as Aim gives no benefit to area attacks. Any attack spends the
        aim (a melee one, a disarm or an attack on a held weapon in melee included: another action than the shot).
        """
        g = enc.grid
        s = a.state
        w = None if n is None else a.stats["weapons"][n]
        mode = None if n is None else C.mode(a, n)
        melee = w is None or w["kind"] == "melee"
        ab = C.attack_bonus(a, n, t) + bonus
        notes = []
        aimed = not melee and s["aimed"] and mode != "autofire"
        if not aimed:
            ignore_cover = False
        if not melee:
            band = C.range_band(w, g.distance(a.pos, t.pos)) or 0
            ab += C.BAND_PENALTY[band]
            notes.append(C.BANDS[band])
            if aimed:
                notes.append("aimed")
                if "careful_shot" in a.stats["feats"]:
                    ab += 1
        if defense is None:
            defense = C.reflex(t, melee=melee)
            if not melee and not ignore_cover:
                cov = g.cover_between(a.pos, t.pos)
                if cov != "none":
                    defense += C.COVER_BONUS[cov]
                    notes.append(f"{cov} cover")
        aided = C.aid_bonus(a, t)
        if aided:
            notes.append("aided +2")
        face = 20 if auto_crit else dice.d20(f"{a.name}'s {why} on {t.name}")
        total = face + ab
        hit = face == 20 or (face != 1 and total >= defense)
        if aided:
            t.state["aid"].pop(a.side, None)
            enc.extra.get("aid_until", {}).pop(f"{t.id}:{a.side}", None)
        if s["suppressed"]:
            notes.append("suppressed -2")
            s["suppressed"] = 0
        ev = [new_event("attack", a.id, t.id,
                        {"face": face, "bonus": ab, "total": total, "defense": defense, "hit": hit, "why": why,
                         "weapon": "unarmed" if w is None else w["name"], "notes": notes})]
        if damage and (hit or half_on_miss):
            dice.show(ev)  # the attack's result, before a person at the table is asked for its damage
            expr = C.damage_expr(a, n, aimed)
            amount, faces = dice.roll(expr, f"{a.name}'s damage on {t.name}")
            if face == 20 or auto_crit:
                amount *= 2
            if not hit:
                amount //= 2
            ev.append(new_event("damage_roll", a.id, t.id, {"expr": str(expr), "faces": faces, "total": amount,
                                                            "crit": face == 20}))
            ev += C.deal_damage(enc, a, t, amount, mode == "stun", auto_crit)
        s["aimed"] = False  # any attack spends the aim: a ranged one takes its benefit, any other loses it
        return hit, ev

    def _r_end_turn(self, enc, a, d, dice, react):  # pragma: no cover - END is handled by the battle loop
        return []

    def _r_melee_attack(self, enc, a, d, dice, react):
        return self._attack(enc, a, enc.units[d.target], C.first_of(a, "melee"), dice, why="melee attack")[1]

    def _r_ranged_attack(self, enc, a, d, dice, react):
        t, n = enc.units[d.target], C.first_of(a, "ranged")
        ev = self._provoke_shot(enc, a, dice, react)
        if a.down:
            return ev
        auto = C.mode(a, n) == "autofire"
        hit, more = self._attack(enc, a, t, n, dice, why="ranged attack", ignore_cover=a.state["aimed"],
                                 half_on_miss=auto)
        return ev + more

    def _weapon_for(self, enc, a, t, dice, react) -> tuple[int | None, list[Event]]:
        """Melee weapon if t is in reach, else the ranged one (a shot in a threatened square provokes)."""
        m = C.first_of(a, "melee")
        if m is not None and self._in_reach(enc, a, t):
            return m, []
        return C.first_of(a, "ranged"), self._provoke_shot(enc, a, dice, react)

    def _r_aid_attack(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n, ev = self._weapon_for(enc, a, t, dice, react)
        if a.down:
            return ev
        hit, more = self._attack(enc, a, t, n, dice, defense=10, damage=False, why="aid another")
        if hit:  # for an ally's next attack on t made before the end of a's next turn (RULES.md)
            t.state["aid"][a.side] = a.id
            enc.extra.setdefault("aid_until", {})[f"{t.id}:{a.side}"] = [enc.round + 1, enc.turn]
            more.append(new_event("aided", a.id, t.id, {"bonus": 2}))
        return ev + more

    def _r_suppress(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n, ev = self._weapon_for(enc, a, t, dice, react)
        if a.down:
            return ev
        hit, more = self._attack(enc, a, t, n, dice, defense=10, damage=False, why="suppression")
        if hit:
            t.state["suppressed"] = 2
            more.append(new_event("suppressed", a.id, t.id, {"penalty": -2}))
        return ev + more

    def _r_charge(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        end, line = self._charge_end(enc, a, t)
        ev = self._walk(enc, a, line, dice, react, how="charges")
        enc.flags["charged"] = True
        a.state["charged"] = True
        if not a.down and a.pos == end:
            ev += self._attack(enc, a, t, C.first_of(a, "melee"), dice, bonus=2, why="charge")[1]
        return ev

    def _r_full_attack(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        seq, penalty = self._full_attack_plan(a)
        a.state["attack_penalty"] = penalty
        ev = [new_event("full_attack", a.id, t.id, {"attacks": len(seq), "penalty": penalty})]
        for n in seq:
            if a.down:
                break
            if t.down:
                t = next((e for e in enc.enemies(a) if self._can_hit(enc, a, e, n)), None)
                if t is None:
                    break
            if not self._can_hit(enc, a, t, n):
                continue
            if C.weapon(a, n)["kind"] == "ranged":
                ev += self._provoke_shot(enc, a, dice, react)
                if a.down:
                    break
            ev += self._attack(enc, a, t, n, dice, why="full attack", ignore_cover=a.state["aimed"])[1]
        return ev

    def _r_disarm(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n, ev = self._weapon_for(enc, a, t, dice, react)
        if a.down:
            return ev
        ranged = C.weapon(a, n)["kind"] == "ranged"
        victim = next(k for k in t.state["hands"] if k not in t.state["lost"])
        improved = "improved_disarm" in a.stats["feats"]
        bonus = (5 if improved and not ranged else 0) - (5 if C.weapon(t, victim)["hands"] >= 2 else 0)
        hit, more = self._attack(enc, a, t, n, dice, bonus=bonus, defense=C.reflex(t, melee=not ranged) + 10,
                                 damage=False, why="disarm")
        ev += more
        if hit:
            self._lose_weapon(enc, t, victim, "disarmed")
            ev.append(new_event("disarmed", a.id, t.id, {"weapon": C.weapon(t, victim)["name"]}))
        elif not ranged and not improved and not t.down and self._may_strike(t):
            m = C.first_of(t, "melee") if self._in_reach(enc, t, a) else None
            r = C.first_of(t, "ranged")
            use = m if m is not None else (r if r is not None and self._clear_shot(enc, t, a, r) else None)
            if use is not None:
                ev.append(new_event("free_attack", t.id, a.id, {"why": "failed disarm"}))
                ev += self._attack(enc, t, a, use, dice, why="free attack")[1]
        return ev

    def _may_strike(self, u: Unit) -> bool:
        """Whether u can make an attack outside its turn (free attack, attack of opportunity)."""
        s = u.state
        return not u.down and s["ct"] < C.CT_HELPLESS and not s["no_attacks"] and s["pinned_by"] is None

    def _r_attack_held_object(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n, ev = self._weapon_for(enc, a, t, dice, react)
        if a.down:
            return ev
        victim = next(k for k in t.state["hands"] if k not in t.state["lost"])
        w = C.weapon(t, victim)
        defense = 10 + S.OBJECT_SIZE_MOD[w["size"]] + C.reflex(t, with_armor=False)
        hit, more = self._attack(enc, a, t, n, dice, defense=defense, damage=False, why="attack on held weapon")
        ev += more
        if hit:
            dr, hp, thr = WEAPON_OBJECT.get(w["size"], (5, 5, 12))
            amount, faces = dice.roll(C.damage_expr(a, n), f"{a.name}'s damage on {w['name']}")
            if more[0].get("face") == 20:
                amount *= 2
            if n is None or not C.weapon(a, n)["lightsaber"]:
                amount = max(0, amount - dr)
            key = f"{t.id}:{victim}"
            left = max(0, enc.extra.setdefault("object_hp", {}).get(key, hp) - amount)
            enc.extra["object_hp"][key] = left
            ev.append(new_event("object_damage", a.id, t.id, {"object": w["name"], "amount": amount, "hp": left}))
            if left == 0:
                self._lose_weapon(enc, t, victim, "broken")
                ev.append(new_event("object_broken", a.id, t.id, {"object": w["name"], "destroyed": amount >= thr}))
        return ev

    def _r_attack_object(self, enc, a, d, dice, react):
        g = enc.grid
        i = g.index(*d.square)
        what = g.kind(i).replace("_", " ")
        obj = DOOR if g.terrain[i] == "door" else LOW_OBJECT
        m = C.first_of(a, "melee")
        ev: list[Event] = []
        notes = []
        if m is not None and d.square in g.within(a.pos, a.stats["reach"]):
            n, ab = m, C.attack_bonus(a, m)
        else:
            n = C.first_of(a, "ranged")
            ev += self._provoke_shot(enc, a, dice, react)
            if a.down:
                return ev
            band = C.range_band(C.weapon(a, n), g.distance(a.pos, d.square))
            ab = C.attack_bonus(a, n) + C.BAND_PENALTY[band]
            notes.append(C.BANDS[band])
        face = dice.d20(f"{a.name}'s attack on the {what}")
        if a.state["suppressed"]:  # the penalty was on this attack roll: spent (issue 24: it stayed)
            notes.append("suppressed -2")
            a.state["suppressed"] = 0
        hit = face == 20 or (face != 1 and face + ab >= obj["reflex"])
        ev.append(new_event("attack_object", a.id, None, {"square": d.square, "face": face, "bonus": ab,
                                                          "total": face + ab, "defense": obj["reflex"], "hit": hit,
                                                          "object": what, "notes": notes}))
        if not hit:
            return ev
        dice.show(ev[-1:])
        amount, _ = dice.roll(C.damage_expr(a, n), f"{a.name}'s damage on the {what}")
        if face == 20:
            amount *= 2
        if not C.weapon(a, n)["lightsaber"]:
            amount = max(0, amount - obj["dr"])
        st = enc.extra.setdefault("objects", {}).setdefault(str(i), {"hp": obj["hp"], "ct": 0, "disabled": False})
        st["hp"] = max(0, st["hp"] - amount)
        if amount >= obj["threshold"]:
            st["ct"] += 1
        ev.append(new_event("object_damage", a.id, None, {"square": d.square, "object": what, "amount": amount,
                                                          "hp": st["hp"]}))
        if st["hp"] == 0 and amount >= obj["threshold"]:
            g.broken.add(i)  # destroyed: the square is open floor from now on
            ev.append(new_event("object_broken", a.id, None, {"square": d.square, "object": what, "destroyed": True}))
        elif (st["hp"] == 0 or st["ct"] >= 5) and not st["disabled"]:
            st["disabled"] = True  # disabled: still there (a door stays as it is, jammed)
            ev.append(new_event("object_broken", a.id, None, {"square": d.square, "object": what, "destroyed": False}))
        return ev

    def _object_state(self, enc: Encounter, i: int) -> dict:
        return enc.extra.get("objects", {}).get(str(i), {})

    def _r_coup_de_grace(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        m = C.first_of(a, "melee")
        n = m if m is not None and self._in_reach(enc, a, t) else C.first_of(a, "ranged")
        amount, faces = dice.roll(C.damage_expr(a, n), f"{a.name}'s coup de grace on {t.name}")
        amount *= 2
        t.hp = max(0, t.hp - amount)
        t.dead = True
        C.release_holds(enc, t)
        return [new_event("coup_de_grace", a.id, t.id, {"amount": amount, "faces": faces}),
                new_event("down", a.id, t.id, {"dead": True, "why": "coup de grace"})]

    def _r_grab(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        hit, ev = self._attack(enc, a, t, None, dice, bonus=-5, damage=False, why="grab")
        if hit:
            t.state["grabbed_by"].append(a.id)
            a.state["grabbing"] = t.id
            ev.append(new_event("grabbed", a.id, t.id, {}))
        return ev

    def _r_grapple(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        hit, ev = self._attack(enc, a, t, None, dice, damage=False, why="grapple")
        if not hit:
            return ev
        mine = dice.d20(f"{a.name}'s grapple check") + self._grapple_bonus(a)
        theirs = dice.d20(f"{t.name}'s grapple check") + self._grapple_bonus(t)
        won = mine >= theirs
        ev.append(new_event("grapple_check", a.id, t.id, {"mine": mine, "theirs": theirs, "won": won}))
        if not won:
            return ev
        feats = a.stats["feats"]
        if "pin" in feats:
            t.state["pinned_by"] = a.id
            ev.append(new_event("pinned", a.id, t.id, {}))
        if "trip" in feats and "pin" not in feats:
            t.state["prone"] = True
            ev.append(new_event("prone", a.id, t.id, {"why": "tripped"}))
        light = next((n for n in C.usable_weapons(a) if C.weapon(a, n)["light"]
                      and C.weapon(a, n)["kind"] == "melee"), None)
        if light is not None:
            amount, faces = dice.roll(C.damage_expr(a, light), f"{a.name}'s damage in the grapple")
            ev.append(new_event("damage_roll", a.id, t.id, {"expr": str(C.damage_expr(a, light)), "faces": faces,
                                                            "total": amount, "crit": False}))
            ev += C.deal_damage(enc, a, t, amount)
        return ev

    def _r_break_grab(self, enc, a, d, dice, react):
        s = a.state
        ev = []
        clear = max(1, a.stats["level"])
        for g in list(s["grabbed_by"])[:clear]:
            s["grabbed_by"].remove(g)
            enc.units[g].state["grabbing"] = None
            ev.append(new_event("grab_broken", a.id, g, {}))
        if s["pinned_by"] is not None:
            other = enc.units[s["pinned_by"]]
            mine = dice.d20(f"{a.name}'s grapple check to escape") + self._grapple_bonus(a)
            theirs = dice.d20(f"{other.name}'s grapple check") + self._grapple_bonus(other)
            ev.append(new_event("grapple_check", a.id, other.id,
                                {"mine": mine, "theirs": theirs, "won": mine >= theirs}))
            if mine >= theirs:
                s["pinned_by"] = None
                ev.append(new_event("grab_broken", a.id, other.id, {}))
        return ev

    def _r_fight_defensively(self, enc, a, d, dice, react):
        a.state["defense"] = 5 if "acrobatics" in a.stats["trained"] else 2
        a.state["attack_penalty"] = -5
        return [new_event("defensive", a.id, None, {"bonus": a.state["defense"], "no_attacks": False})]

    def _r_total_defense(self, enc, a, d, dice, react):
        a.state["defense"] = 10 if "acrobatics" in a.stats["trained"] else 5
        a.state["no_attacks"] = True
        return [new_event("defensive", a.id, None, {"bonus": a.state["defense"], "no_attacks": True})]

    # movement --------------------------------------------------------------------------------------
    def _r_move(self, enc, a, d, dice, react):
        g = enc.grid
        path = g.path(a.pos, d.square, C.speed(a), self._enemy_squares(enc, a),
                      self._threats(enc, a))
        return self._walk(enc, a, path, dice, react, how="moves")

    def _r_withdraw(self, enc, a, d, dice, react):
        g = enc.grid
        firsts = self._withdraw_firsts(enc, a)
        path = g.path_from(g.seeds_after(a.pos, firsts), g.index(*d.square), C.speed(a) // 2,
                             self._enemy_squares(enc, a), self._threats(enc, a))
        origin = a.pos
        ev = self._walk(enc, a, path[:1], dice, react, how="withdraws", safe=True)
        if len(path) > 1 and not a.down:
            ev += self._walk(enc, a, path[1:], dice, react, how="moves on", origin=origin)
        return ev

    def _r_run(self, enc, a, d, dice, react):
        dx = (d.square[0] > a.pos[0]) - (d.square[0] < a.pos[0])
        dy = (d.square[1] > a.pos[1]) - (d.square[1] < a.pos[1])
        steps = max(abs(d.square[0] - a.pos[0]), abs(d.square[1] - a.pos[1]))
        path = enc.grid.ray(a.pos, (dx, dy), steps)
        return self._walk(enc, a, path, dice, react, how="runs")

    def _walk(self, enc, a, path, dice, react, how: str, safe: bool = False,
              origin: tuple[int, int] | None = None) -> list[Event]:
        """Move along path square by square; leaving a threatened square provokes (unless `safe`). The move event
        gives the squares of the path and the movement spent on those walked (`cost`: every second diagonal 2,
        difficult terrain double), counting the diagonals from `origin` when the walk goes on with a move begun
        there (a withdrawal after its first square)."""
        ev: list[Event] = []
        start = a.pos
        g = enc.grid
        if not safe:
            threatening = self._threatening(enc, a)
            safe = not threatening
        walked = len(path)
        if safe:  # nothing can provoke: straight to the end
            if path:
                a.pos = path[-1]
        else:
            struck: set[int] = set()
            for k, sq in enumerate(path):
                for eid in self._threatened_at(g, threatening, a.pos):
                    if eid in struck:
                        continue
                    struck.add(eid)
                    ev += self._aoo(enc, enc.units[eid], a, dice, react, "moving out of a threatened square")
                    if a.down:
                        break
                if a.down:
                    walked = k
                    break
                a.pos = sq
        if a.state["grabbing"] is not None and a.pos != start:
            other = enc.units[a.state["grabbing"]]
            if g.distance(a.pos, other.pos) > 1:
                other.state["grabbed_by"] = [x for x in other.state["grabbed_by"] if x != a.id]
                a.state["grabbing"] = None
        if origin is None:
            cost = g.path_cost(start, path[:walked])
        else:
            cost = g.path_cost(origin, [start, *path[:walked]]) - g.path_cost(origin, [start])
        moved = new_event("move", a.id, None, {"start": start, "end": a.pos, "squares": len(path), "cost": cost,
                                               "how": how})
        return [moved, *ev] if ev else [moved]

    def legal_reactions(self, enc: Encounter, unit: Unit, trigger: Trigger) -> list[Decision]:
        """An attack of opportunity on the provoker, then DECLINE, while the unit has this round's one left and a
        melee weapon in hand to take it with (the threat map that raised the trigger may predate this decision)."""
        t = enc.units[trigger.provoker]
        if unit.state["aoo_used"] or not self.threatens(unit) or t.down or unit.down:
            return []
        return [target_decision("attack_of_opportunity", t.id), DECLINE]

    def _aoo(self, enc, e: Unit, t: Unit, dice, react, why: str) -> list[Event]:
        if react is None:  # nobody to ask: the usual answer (take it), without building the question
            if e.state["aoo_used"] or not self.threatens(e) or t.down:
                return []
        else:
            trigger = Trigger("attack_of_opportunity", t.id, why)
            if not self.legal_reactions(enc, e, trigger):
                return []
            if ask_reaction(self, enc, e, trigger, react) is None:
                return [new_event("aoo_declined", e.id, t.id, {"why": why})]
        e.state["aoo_used"] = True
        ev = [new_event("aoo", e.id, t.id, {"why": why})]
        return ev + self._attack(enc, e, t, C.first_of(e, "melee"), dice, why="attack of opportunity")[1]

    def _provoke_shot(self, enc, a, dice, react) -> list[Event]:
        ev: list[Event] = []
        for eid in self._threatened_at(enc.grid, self._threatening(enc, a), a.pos):
            ev += self._aoo(enc, enc.units[eid], a, dice, react, "ranged attack in a threatened square")
            if a.down:
                break
        return ev

    # other actions -----------------------------------------------------------------------------------
    def _r_draw(self, enc, a, d, dice, react):
        a.state["hands"].append(d.option)
        return [new_event("draw", a.id, None, {"weapon": C.weapon(a, d.option)["name"]})]

    def _r_holster(self, enc, a, d, dice, react):
        a.state["hands"].remove(d.option)
        return [new_event("holster", a.id, None, {"weapon": C.weapon(a, d.option)["name"]})]

    def _r_drop_item(self, enc, a, d, dice, react):
        self._lose_weapon(enc, a, d.option, "dropped")
        return [new_event("drop", a.id, None, {"weapon": C.weapon(a, d.option)["name"], "square": a.pos})]

    def _r_manipulate(self, enc, a, d, dice, react):
        g = enc.grid
        i = g.index(*d.square)
        if g.terrain[i] == "door" and i not in g.broken and d.square != a.pos:
            return [new_event("door", a.id, None, {"square": d.square, "open": g.toggle_door(i)})]
        ground = enc.extra.get("ground", {}).get(f"{a.pos[0]},{a.pos[1]}", [])
        item = next(x for x in ground if x["owner"] == a.id)
        ground.remove(item)
        a.state["lost"].remove(item["weapon"])
        hands_used = sum(C.weapon(a, n)["hands"] for n in a.state["hands"] if n not in a.state["lost"])
        if hands_used + C.weapon(a, item["weapon"])["hands"] <= 2:
            a.state["hands"].append(item["weapon"])
        return [new_event("pick_up", a.id, None, {"weapon": C.weapon(a, item["weapon"])["name"]})]

    def _r_stand_up(self, enc, a, d, dice, react):
        a.state["prone"] = False
        return [new_event("stand", a.id, None, {})]

    def _r_stand_up_acrobatics(self, enc, a, d, dice, react):
        face = dice.d20(f"{a.name}'s Acrobatics check to stand")
        total = face + a.stats["acrobatics"] + C.ct_penalty(a)
        ok = total >= 15
        if ok:
            a.state["prone"] = False
        return [new_event("check", a.id, None, {"skill": "Acrobatics", "face": face, "total": total, "dc": 15,
                                                "success": ok}),
                *([new_event("stand", a.id, None, {})] if ok else [])]

    def _r_fall_prone(self, enc, a, d, dice, react):
        a.state["prone"] = True
        return [new_event("prone", a.id, a.id, {"why": "drops prone"})]

    def _r_activate_item(self, enc, a, d, dice, react):
        act = a.state["active_items"]
        on = d.option not in act
        if on:
            act.append(d.option)
        else:
            act.remove(d.option)
        return [new_event("item", a.id, None, {"item": a.stats["items"][d.option]["name"], "active": on})]

    def _r_aim(self, enc, a, d, dice, react):
        a.state["aimed"] = True
        return [new_event("aim", a.id, None, {})]

    def _r_second_wind(self, enc, a, d, dice, react):
        heal = max(a.max_hp // 4, a.stats["con"])
        old = a.hp
        a.hp = min(a.max_hp, a.hp + heal)
        a.state["winds_used"] += 1
        return [new_event("heal", a.id, a.id, {"amount": a.hp - old, "hp": a.hp, "why": "second wind"})]

    def _r_recover(self, enc, a, d, dice, react):
        s = a.state
        if enc.round - s["recover_round"] > 1:
            s["recover"] = 0
        s["recover"] += 1
        s["recover_round"] = enc.round
        ev = [new_event("recover_progress", a.id, None, {"done": s["recover"], "of": 3})]
        if s["recover"] >= 3:
            s["recover"] = 0
            s["ct"] -= 1
            ev.append(new_event("condition", a.id, a.id,
                                {"step": s["ct"], "penalty": C.CT_PENALTY[s["ct"]], "why": "recover"}))
        return ev

    def _r_switch_mode(self, enc, a, d, dice, react):
        a.state["modes"][d.option] += 1
        return [new_event("mode", a.id, None, {"weapon": C.weapon(a, d.option)["name"], "mode": C.mode(a, d.option)})]

    # ---- estimates --------------------------------------------------------------------------------------
    def estimate(self, enc: Encounter, a: Unit, d: Decision) -> Estimate:
        if d.target is None or d.action not in ("melee_attack", "ranged_attack", "charge", "full_attack",
                                                "coup_de_grace"):
            return Estimate()
        t = enc.units[d.target]
        if d.action == "coup_de_grace":
            return Estimate(1.0, t.hp, 1.0, ["automatic critical"])
        if d.action == "full_attack":
            seq, pen = self._full_attack_plan(a)
            est = Estimate(notes=[f"{len(seq)} attacks at {pen}"])
            miss_all = 1.0
            for n in seq:
                e1 = self.attack_estimate(enc, a, t, n, a.pos, extra=pen - a.state["attack_penalty"])
                est.expected_damage += e1.expected_damage
                miss_all *= 1 - e1.hit_chance
            est.hit_chance = 1 - miss_all
            est.kill_chance = min(1.0, est.expected_damage / max(1, t.hp)) ** 2
            return est
        kind = "ranged" if d.action == "ranged_attack" else "melee"
        n = C.first_of(a, kind)
        pos = a.pos
        bonus = 0
        if d.action == "charge":
            pos, _ = self._charge_end(enc, a, t)
            bonus = 2
        return self.attack_estimate(enc, a, t, n, pos, extra=bonus)

    def attack_estimate(self, enc: Encounter, a: Unit, t: Unit, n: int | None, pos: tuple[int, int],
                        extra: int = 0, aimed: bool | None = None) -> Estimate:
        """Hit chance, expected damage and kill chance of one attack of a (standing at pos) on t."""
        if n is None:
            return Estimate()
        aimed = a.state["aimed"] if aimed is None else aimed
        g = enc.grid
        w = C.weapon(a, n)
        melee = w["kind"] == "melee"
        ab = C.attack_bonus(a, n, t) + extra
        defense = C.reflex(t, melee=melee)
        notes = []
        if not melee:
            band = C.range_band(w, g.distance(pos, t.pos))
            if band is None:
                return Estimate(notes=["out of range"])
            ab += C.BAND_PENALTY[band]
            if aimed:
                ab += 1 if "careful_shot" in a.stats["feats"] else 0
            else:
                cov = g.cover_between(pos, t.pos)
                defense += C.COVER_BONUS[cov]
                if cov != "none":
                    notes.append(f"{cov} cover")
        p = C.hit_chance(ab, defense)
        expr = C.damage_expr(a, n, aimed=aimed and not melee)
        stun = C.mode(a, n) == "stun"
        mean = expr.mean / (2 if stun else 1)
        dmg = p * mean + 0.05 * mean  # a natural 20 doubles the damage
        if C.mode(a, n) == "autofire":
            dmg += (1 - p) * mean / 2
        kill = p * C.p_at_least(expr, t.hp * (2 if stun else 1))
        return Estimate(p, dmg, kill, notes)

    # ---- geometry helpers ----------------------------------------------------------------------------
    def _enemy_squares(self, enc: Encounter, a: Unit) -> list[int]:
        w, side = enc.grid.width, a.side
        return [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side != side]

    def _ally_squares(self, enc: Encounter, a: Unit) -> list[int]:
        g = enc.grid
        return [g.index(*u.pos) for u in enc.units if not u.down and u.side == a.side and u.id != a.id]

    def threat_reach(self, u: Unit) -> int:
        return u.stats.get("reach", 1) if self.threatens(u) else 0

    def threatens(self, u: Unit) -> bool:
        s = u.state
        return (not u.down and s["ct"] < C.CT_HELPLESS and not s["no_attacks"] and s["pinned_by"] is None
                and C.first_of(u, "melee") is not None)

    def _threats(self, enc: Encounter, a: Unit) -> dict[int, list[int]]:
        """Square index -> enemies that would take an attack of opportunity there against a (read-only: the
        map is shared by every state whose threatening enemies stand and reach alike)."""
        key = ("threats", enc.version, a.side)
        cache = _cache(enc)
        got = cache.get(key)
        if got is not None:
            return got
        g = enc.grid
        threat = self._threatening(enc, a)
        per_map = g._geometry.memo.setdefault("saga_threats", {})
        out = per_map.get(threat)
        if out is None:
            out = {}
            w = g.width
            for eid, pos, reach in threat:
                for x, y in g.within(pos, reach):
                    here = out.get(y * w + x)
                    if here is None:
                        out[y * w + x] = [eid]
                    else:
                        here.append(eid)
            if len(per_map) > 4096:
                per_map.clear()
            per_map[threat] = out
        cache[key] = out
        return out

    def _threatening(self, enc: Encounter, a: Unit) -> tuple[tuple[int, tuple[int, int], int], ...]:
        """(id, square, reach) of each enemy that would take an attack of opportunity on a where it reaches, in
        unit order: what `_threats` maps."""
        side = a.side
        return tuple([(e.id, e.pos, e.stats["reach"]) for e in enc.units
                      if e.side != side and not e.down and not e.state["aoo_used"] and self.threatens(e)])

    @staticmethod
    def _threatened_at(g, threatening: tuple, pos: tuple[int, int]) -> list[int]:
        """The ids of `threatening` (`_threatening`) that reach pos: `_threats` at pos without building the map."""
        return [eid for eid, xy, reach in threatening if 0 < g.distance(xy, pos) <= reach]

    def _withdraw_firsts(self, enc: Encounter, a: Unit) -> list[tuple[int, int]]:
        """(square index, cost) of each square a withdrawal's first step may enter: adjacent, open, out of every
        threatened area, no wall's corner cut, its cost (difficult terrain double) within half speed."""
        g = enc.grid
        half = C.speed(a) // 2
        threats = self._threats(enc, a)
        blocked = set(self._enemy_squares(enc, a))
        out = []
        for sq in g.within(a.pos, 1):
            i = g.index(*sq)
            c = g.enter_cost(i)
            if i in blocked or not g.passable(i) or threats.get(i) or c > half:
                continue
            if sq[0] != a.pos[0] and sq[1] != a.pos[1]:
                ax, ay = a.pos
                if g.kind(g.index(sq[0], ay)) == "wall" or g.kind(g.index(ax, sq[1])) == "wall":
                    continue
            out.append((i, c))
        return out

    def _withdraw_squares(self, enc: Encounter, a: Unit) -> list[int]:
        """Where a withdrawal can end: one move of at most half speed through one of `_withdraw_firsts` (its
        diagonals counted from the first step on), in the order the search reaches them, allies' squares and a's
        own left out."""
        g = enc.grid
        seeds = g.seeds_after(a.pos, self._withdraw_firsts(enc, a))
        reach = g.reach_from(seeds, C.speed(a) // 2, self._enemy_squares(enc, a))
        allies = set(self._ally_squares(enc, a))
        here = g.index(*a.pos)
        return [i for i in reach if i != here and i not in allies]

    def _run_limit(self, a: Unit) -> int:
        return C.speed(a) * (3 if a.stats["heavy_armor"] else 4)

    def _charge_end(self, enc: Encounter, a: Unit, t: Unit):
        """(end square, squares walked) of the cheapest legal charge at t, or None.

        The line runs centre to centre from a to a square from which a can strike t and nearer to t than a's own
        (the map's distance); every square it touches must be open (no walls, low objects or enemies; allies are
        fine), no diagonal step of the walk along it cuts a wall's corner, the walk costs 2 to speed squares
        (difficult terrain double), and the end square is free.
        """
        g = enc.grid
        speed = C.speed(a)
        reach = a.stats["reach"]
        if not self._charge_in_range(g, a.pos, t.pos, speed, reach):
            return None
        best = None
        for cost, end in self._charges(enc, a, t, enc.occupied(), speed, reach):
            if best is None or cost < best[0]:
                best = (cost, end)
        return None if best is None else (best[1], self._line_path(g, a.pos, best[1]))

    def _charge_block(self, enc: Encounter, a: Unit, end: tuple[int, int], occ: dict) -> str | None:
        """What stops a straight charge from a to end (naming it and its square), or None: the nearest obstacle
        met walking the line from a, each step's corner (a diagonal step cutting a wall's corner) before the
        square it steps into."""
        g = enc.grid
        sqs = self._line_squares(g, a.pos, end)
        cur, k = a.pos, 0
        for nxt in self._line_path(g, a.pos, end, sqs):
            j = sqs.index(nxt, k)
            for xy in sqs[k:j]:  # touched in passing (a line through a corner)
                block = self._square_block(enc, a, xy, occ)
                if block is not None:
                    return block
            corner = self._corner_cut(g, cur, (nxt,))
            if corner is not None:
                return f"the corner of the wall at {corner}"
            block = self._square_block(enc, a, nxt, occ)
            if block is not None:
                return block
            cur, k = nxt, j + 1
        return None

    @staticmethod
    def _square_block(enc: Encounter, a: Unit, xy: tuple[int, int], occ: dict) -> str | None:
        """What in square xy stops a charge through it (a low object, impassable terrain, an enemy), or None."""
        g = enc.grid
        i = g.index(*xy)
        k = g.kind(i)
        if k == "low_cover":
            return f"the low object at {xy}"
        if not g.passable(i):
            return f"the {k.replace('_', ' ')} at {xy}"
        who = occ.get(xy)
        if who is not None and enc.units[who].side != a.side:
            return f"{enc.units[who].name} (an enemy) at {xy}"
        return None

    @staticmethod
    def _corner_cut(g, start: tuple[int, int], path) -> tuple[int, int] | None:
        """The first wall whose corner a diagonal step of walking path from start cuts (movement's rule,
        engine/core/grid.py: the two squares beside a diagonal step must not be walls), or None."""
        px, py = start
        codes, w = g.kind_codes(), g.width
        for x, y in path:
            if x != px and y != py:
                if codes[py * w + x] == WALL_CODE:
                    return x, py
                if codes[y * w + px] == WALL_CODE:
                    return px, y
            px, py = x, y
        return None

    @staticmethod
    def _walk_floor(g, p: tuple[int, int], q: tuple[int, int]) -> int:
        """The least a walk from p to q can cost: the grid distance, but a diagonal step costs 1 under the
        manhattan metric (Grid.path_cost), so there the larger of the two offsets: Grid.walk_floor."""
        return g.walk_floor(p, q)

    @staticmethod
    def _charge_in_range(g, p: tuple[int, int], q: tuple[int, int], speed: int, reach: int) -> bool:
        """False only when no charge from p can end within reach of q (a quick bound before the lines are
        looked at, never refusing a charge `_charges` allows). A charge's walk costs at least the distance
        to its end (the larger offset under the manhattan metric, whose diagonal steps cost 1), and the end is
        within reach of q. The alternating distance is not additive (5,3 -> 6 and 1,1 -> 1 but 6,4 -> 8): a
        sum of two offsets is at most 1 over the sum of their distances, hence the + 1."""
        return g.walk_floor(p, q) <= speed + reach + (g.metric == "alternating")  # a manhattan reach covers no more

    @staticmethod
    def _line_squares(g, start: tuple[int, int], end: tuple[int, int]) -> tuple[tuple[int, int], ...]:
        """The squares the straight line start -> end touches, start excluded, end included, in the order met
        walking from start. `g.between` gives the same squares whichever way round (the line is symmetric), but
        traced from the lower-index end both ways, so backwards for a line going up or left: they are sorted by
        how far along the line each lies (each square the line meets lies strictly further along than the one
        before), which does not depend on how `between` orders them."""
        (sx, sy), (ex, ey) = start, end
        dx, dy, xys = ex - sx, ey - sy, g._geometry.xys
        along = sorted([((x - sx) * dx + (y - sy) * dy, k, (x, y))
                        for k, (x, y) in enumerate([xys[i] for i in g.between(start, end)])])
        return (*[xy for _, _, xy in along], end)

    @classmethod
    def _line_path(cls, g, start: tuple[int, int], end: tuple[int, int],
                   sqs: tuple[tuple[int, int], ...] | None = None) -> list[tuple[int, int]]:
        """The squares walked along the straight line start -> end: one king step at a time, each step to
        the furthest square of the line still adjacent (a line through a corner touches two squares).
        `sqs`: `_line_squares(g, start, end)` when already at hand."""
        if sqs is None:
            sqs = cls._line_squares(g, start, end)
        out, cur, k = [], start, 0
        while cur != end:
            j = k
            while j + 1 < len(sqs) and max(abs(sqs[j + 1][0] - cur[0]), abs(sqs[j + 1][1] - cur[1])) <= 1:
                j += 1
            cur = sqs[j]
            out.append(cur)
            k = j + 1
        return out

    def _charge_problem(self, enc: Encounter, a: Unit, t: Unit) -> str:
        """Why no charge at t is possible (for GMs): the nearest candidate line's problem."""
        g = enc.grid
        speed, reach = C.speed(a), a.stats["reach"]
        dist = g.distance(a.pos, t.pos)
        if all(self._walk_floor(g, a.pos, e) > speed for e in g.within(t.pos, reach)):  # truly out of range
            return (f"{t.name} is {dist} squares away: a charge moves at most {a.name}'s speed ({speed}) and then "
                    f"strikes at reach {reach}")
        if dist <= 1:
            return (f"{a.name} is already next to {t.name}: a charge moves toward its target and must end nearer to "
                    f"it than it starts")
        occ = enc.occupied()
        found = []
        for end in sorted(g.within(t.pos, reach), key=lambda e: g.distance(a.pos, e)):
            if g.distance(a.pos, end) < 2:
                continue
            if g.distance(end, t.pos) >= dist:
                found.append(f"{end} is no nearer to {t.name} than {a.name} is now ({dist} squares): a charge moves "
                             f"toward its target")
                continue
            if end in occ:
                found.append(f"{enc.units[occ[end]].name} stands at {end}")
                continue
            block = self._charge_block(enc, a, end, occ)
            if block is not None:
                found.append(f"{block} blocks the line to {end}")
                continue
            cost = g.path_cost(a.pos, self._line_path(g, a.pos, end))
            if cost > speed:
                found.append(f"the line to {end} costs {cost} squares (difficult terrain double), over speed {speed}")
        if not found:
            return (f"a charge needs at least 2 squares of movement in a straight line; {a.name} is too close to "
                    f"{t.name}")
        return "Charge needs a straight, clear line of 2 squares up to speed; " + found[0]

    def _in_reach(self, enc: Encounter, a: Unit, t: Unit) -> bool:
        d = enc.grid.distance(a.pos, t.pos)
        if d > a.stats["reach"]:
            return False
        return d <= 1 or enc.grid.line_of_effect(a.pos, t.pos)

    def _shot_problem(self, enc: Encounter, a: Unit, t: Unit, n: int) -> str | None:
        g = enc.grid
        if not g.line_of_sight(a.pos, t.pos):
            return f"{a.name} has no line of sight to {t.name}"
        if not g.line_of_effect(a.pos, t.pos):
            return f"something solid but see-through stands between {a.name} and {t.name}"
        if C.range_band(C.weapon(a, n), g.distance(a.pos, t.pos)) is None:
            return f"{t.name} is beyond the long range of the {C.weapon(a, n)['name']}"
        between = set(g.between(a.pos, t.pos))
        for u in enc.units:
            if u.active and u.id not in (a.id, t.id) and g.index(*u.pos) in between:
                return f"{u.name} stands in the line of fire"
        return None

    def _clear_shot(self, enc: Encounter, a: Unit, t: Unit, n: int) -> bool:
        return self._shot_problem(enc, a, t, n) is None

    def _can_hit(self, enc, a, t, n) -> bool:
        if C.weapon(a, n)["kind"] == "melee":
            return self._in_reach(enc, a, t)
        return self._clear_shot(enc, a, t, n)

    def _object_squares(self, enc: Encounter, a: Unit, melee_w, ranged_w) -> list[int]:
        """Objects a can attack: closed doors and low objects in melee reach, closed doors in sight and range."""
        g = enc.grid
        out = []
        if melee_w is not None:
            for sq in g.within(a.pos, a.stats["reach"]):
                i = g.index(*sq)
                if g.kind(i) in ("door", "low_cover"):
                    out.append(i)
        if ranged_w is not None:
            w = C.weapon(a, ranged_w)
            for i in g.doors():
                if g.kind(i) == "door" and i not in out:
                    sq = g.xy(i)
                    if C.range_band(w, g.distance(a.pos, sq)) is not None and g.line_of_sight(a.pos, sq):
                        out.append(i)
        return out

    def _holding(self, u: Unit) -> bool:
        return any(n not in u.state["lost"] for n in u.state["hands"])

    def _holsterable(self, a: Unit) -> list[int]:
        return [n for n in a.state["hands"] if n not in a.state["lost"]]

    def _drawable(self, a: Unit) -> list[int]:
        s = a.state
        used = sum(C.weapon(a, n)["hands"] for n in s["hands"] if n not in s["lost"])
        return [n for n, w in enumerate(a.stats["weapons"])
                if not w["natural"] and n not in s["hands"] and n not in s["lost"] and used + w["hands"] <= 2]

    def _manipulable(self, enc: Encounter, a: Unit) -> list[int]:
        g = enc.grid
        out = []
        doors = g.doors()  # the map's door squares (the terrain never changes; open or broken is checked below)
        if doors:
            for sq in g.within(a.pos, 1):
                i = g.index(*sq)
                if (i in doors and i not in g.broken and enc.occupant(sq) is None
                        and not self._object_state(enc, i).get("disabled")):
                    out.append(i)
        ground = enc.extra.get("ground", {}).get(f"{a.pos[0]},{a.pos[1]}", [])
        if any(x["owner"] == a.id for x in ground):
            out.append(g.index(*a.pos))
        return out

    def _lose_weapon(self, enc: Encounter, t: Unit, n: int, how: str) -> None:
        s = t.state
        if n in s["hands"]:
            s["hands"].remove(n)
        if how == "broken":
            s["lost"].append(n)
            return
        s["lost"].append(n)
        enc.extra.setdefault("ground", {}).setdefault(f"{t.pos[0]},{t.pos[1]}", []).append(
            {"owner": t.id, "weapon": n})

    def _cdg_ok(self, enc: Encounter, a: Unit, t: Unit) -> bool:
        if C.first_of(a, "melee") is not None and self._in_reach(enc, a, t):
            return True
        return C.first_of(a, "ranged") is not None and enc.grid.distance(a.pos, t.pos) <= 1

    def _draw_cost(self, a: Unit) -> str:
        return "swift" if "quick_draw" in a.stats["feats"] else "move"

    def _pinning(self, enc: Encounter, a: Unit) -> bool:
        """Whether a holds someone in a grapple (pinned) right now."""
        return any(u.state["pinned_by"] == a.id for u in enc.units)

    def _wind_problem(self, a: Unit) -> str | None:
        """Why a cannot catch a second wind now, or None. An encounter counts as the day: at most one."""
        if a.stats["second_winds"] <= 0:
            return f"{a.name} is not heroic and cannot catch a second wind"
        if a.state["winds_used"] >= 1 or a.state["winds_used"] >= a.stats["second_winds"]:
            return f"{a.name} has already caught its second wind (once per day, never twice in an encounter)"
        if a.hp > a.max_hp // 2:
            return f"{a.name} has {a.hp} of {a.max_hp} hit points: a second wind needs half or less"
        return None

    def _attack_count(self, a: Unit) -> int:
        return len(self._full_attack_plan(a)[0])

    def _full_attack_plan(self, a: Unit) -> tuple[list[int], int]:
        """Weapons of each attack of a full attack, and the penalty on all of them."""
        ws = C.usable_weapons(a)
        if not ws:
            return [], 0
        feats = a.stats["feats"]
        seq = [ws[0]]
        penalty = 0
        double = C.weapon(a, ws[0])["double"]
        if (len([n for n in ws if not C.weapon(a, n)["natural"]]) >= 2) or double or \
                len([n for n in ws if C.weapon(a, n)["natural"]]) >= 2:
            seq.append(ws[1] if len(ws) > 1 else ws[0])
            dwm = sum(f"dual_weapon_mastery_{k}" in feats for k in (1, 2, 3))
            penalty -= (10, 5, 2, 0)[dwm]
        if "double_attack" in feats:
            seq.append(ws[0])
            penalty -= 5
            if "triple_attack" in feats:
                seq.append(ws[0])
                penalty -= 5
        return (seq if len(seq) >= 2 else [ws[0]]), penalty

    def _grapple_bonus(self, u: Unit) -> int:
        return u.stats["bab"] + max(u.stats["str"], u.stats["dex"]) + C.size_mod(u) + C.ct_penalty(u)

    # ---- features for learning agents ------------------------------------------------------------------
    n_unit_features = 14
    hp_scale = 50.0  # what zoo:saga was trained with

    def unit_features(self, enc: Encounter, u: Unit) -> list[float]:
        return O.unit_features(u)

    def threat_estimate(self, enc: Encounter, a: Unit, t: Unit) -> tuple[float, float]:
        return O.threat_estimate(enc, a, t)

    # (enc, actor, units) -> for each unit u: (unit_features(u), threat_estimate(actor, u) + threat_estimate(u, actor)
    # when u is an active unit of another side, else None), sharing the work; the function itself, one call less
    observation_parts = staticmethod(O.observation_parts)

    # ---- what the heuristic policy asks ------------------------------------------------------------------------
    def effective_cost(self, enc: Encounter, a: Unit, d: Decision) -> Cost:
        """What `apply` pays for d: its catalogue cost, but a swift action to draw or holster with Quick Draw."""
        cost, times, drawn, _aim, _resolve = self._actions[d.action]
        return Cost(self._draw_cost(a) if drawn else cost, 1, times)

    def budget_after(self, enc: Encounter, a: Unit, d: Decision) -> dict[str, int]:
        """After a charge no further action this turn; else the base's (the budget less `effective_cost`)."""
        return {} if d.action == "charge" else super().budget_after(enc, a, d)

    def tactics(self):
        """Saga's tactics for the heuristic (`tactics.SagaTactics`)."""
        from .tactics import SagaTactics
        return SagaTactics(self)

    def option_label(self, d: Decision, enc: Encounter) -> str:
        a = enc.actor
        if a is None:
            return str(d.option)
        if d.action == "activate_item" and d.option < len(a.stats["items"]):
            return a.stats["items"][d.option]["name"]
        if d.option < len(a.stats["weapons"]):
            return a.stats["weapons"][d.option]["name"]
        return str(d.option)


RULESET = SagaRuleset()
