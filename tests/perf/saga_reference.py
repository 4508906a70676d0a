"""SLOW REFERENCE for tests/perf: the Saga ruleset as it was before the speed work (commit b04f36e), kept
unoptimised so the engine's fast paths can be checked against it. Do not optimise this file.

Star Wars Saga Edition combat ("Types of Actions"): legality and resolution of every action.

`legal_actions` is the one source of legality; `apply` resolves a legal decision through a small
resolver per catalogue entry (`_r_<key>`). Arithmetic lives in `combat.py`, stat blocks in `stats.py`.
"""
from __future__ import annotations

from pathlib import Path

from engine.core.decision import END, Decision
from engine.core.dice import Dice
from engine.core.economy import Economy
from engine.core.events import Event
from engine.core.grid import DIRECTIONS
from engine.core.ruleset import Estimate, React, Ruleset, load_catalogue
from engine.core.state import Encounter
from engine.core.units import Unit

from engine.rulesets.saga import movement as M
from engine.rulesets.saga import stats as S

from . import saga_reference_combat as C

# Objects that can be attacked on the map (Statistics for Objects): DR, HP, damage threshold.
DOOR = {"dr": 10, "hp": 50, "threshold": 30, "reflex": 5}          # metal door (5 cm)
LOW_OBJECT = {"dr": 5, "hp": 10, "threshold": 20, "reflex": 4}     # large crate / bed-sized object
WEAPON_OBJECT = {"tiny": (5, 2, 10), "small": (5, 5, 12), "medium": (5, 10, 15), "large": (10, 10, 17),
                 "huge": (10, 20, 30)}  # DR, HP, threshold by weapon size
ATTACKS = {"melee_attack", "ranged_attack", "charge", "full_attack", "disarm", "coup_de_grace",
           "attack_held_object", "aid_attack", "suppress", "grab", "grapple", "attack_object"}


def _doors(g) -> tuple[int, ...]:
    """Door squares of a map (static; kept with the map's shared geometry)."""
    geo = g._geometry
    got = geo.__dict__.get("saga_doors")
    if got is None:
        got = geo.__dict__["saga_doors"] = tuple(i for i, t in enumerate(g.terrain) if t == "door")
    return got


def _cache(enc: Encounter) -> dict:
    """Per-encounter memo of derived geometry (threat maps), keyed by state version.

    Owned by this encounter's unit list: a clone copies the attribute but not the ownership, so a clone
    never reads its source's entries.
    """
    got = enc.__dict__.get("_saga_ref_cache")
    if got is None or got[0] is not enc.units:
        got = (enc.units, {})
        enc.__dict__["_saga_ref_cache"] = got
    elif len(got[1]) > 64:
        got[1].clear()
    return got[1]


class ReferenceSagaRuleset(Ruleset):
    id = "saga"
    name = "Star Wars Saga Edition"
    env_name = "Saga"
    rules_file = "000_60d80ebe07ad66a0.txt"
    metric = "alternating"
    attack_defense = "Reflex"  # what narration calls the defense an attack roll is against
    sides = ("pcs", "npcs")
    economy = Economy(slots={"standard": 1, "move": 1, "swift": 1},
                      trades={"standard": ("standard",), "move": ("move", "standard"),
                              "swift": ("swift", "move", "standard")},
                      full_round="full_round", full_round_needs=("standard", "move", "swift"))
    catalogue = load_catalogue(Path(S.__file__).parent / "actions.yaml")

    # ---- units ----------------------------------------------------------------------------------------
    def templates(self) -> dict[str, dict]:
        return S.templates()

    def make_unit(self, uid: int, spec: dict, where: str) -> Unit:
        return S.make_unit(uid, spec, where)

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

    # ---- turns -------------------------------------------------------------------------------------------
    def can_act(self, enc: Encounter, unit: Unit) -> bool:
        return unit.active and unit.state["ct"] < C.CT_HELPLESS

    def start_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        s = u.state
        s["defense"], s["no_attacks"], s["attack_penalty"], s["charged"] = 0, False, 0, False
        s["aoo_used"] = False
        ev: list[Event] = []
        if s["pinned_by"] is not None:  # a pin lasts until the start of the pinner's next turn
            pass
        for other in enc.units:
            if other.state["pinned_by"] == u.id:
                other.state["pinned_by"] = None
                ev.append(Event("pin_ends", u.id, other.id))
        if enc.round - s["recover_round"] > 1:
            s["recover"] = 0
        self._expire_aid(enc, False)
        return ev

    def end_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        u.state["aimed"] = False  # issue 24: an aim not used this turn is lost
        self._expire_aid(enc, True)
        return []

    def _expire_aid(self, enc: Encounter, ending: bool) -> None:
        """issue 24: an aid lasts until the end of the aider's next turn ((round, slot) in extra["aid_until"])."""
        until = enc.extra.get("aid_until", {})
        for key in list(until):
            r, slot = until[key]
            if (r, slot) < (enc.round, enc.turn) or (ending and (r, slot) == (enc.round, enc.turn)):
                del until[key]
                tid, side = key.split(":")
                enc.units[int(tid)].state["aid"].pop(side, None)

    # ---- legality -------------------------------------------------------------------------------------------
    def legal_actions(self, enc: Encounter, a: Unit) -> list[Decision]:
        out = [END]
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
        enemies = enc.enemies(a)
        melee_w = C.first_of(a, "melee")
        ranged_w = C.first_of(a, "ranged")
        may_attack = not s["no_attacks"] and not held

        if mv and can_walk:
            for i in self._move_squares(enc, a, speed):
                out.append(Decision("move", square=g.xy(i)))
            if self._threats(enc, a).get(g.index(*a.pos)):
                for i in self._withdraw_squares(enc, a):
                    out.append(Decision("withdraw", square=g.xy(i)))
        if full and can_walk:
            for sq in self._run_squares(enc, a):
                out.append(Decision("run", square=sq))

        if std and may_attack:
            two_w = full and self._attack_count(a) >= 2
            can_grab = s["grabbing"] is None and not self._pinning(enc, a)
            grapple_feat = "pin" in a.stats["feats"] or "trip" in a.stats["feats"]
            for e in enemies:
                m_ok = melee_w is not None and self._in_reach(enc, a, e)
                r_ok = ranged_w is not None and self._clear_shot(enc, a, e, ranged_w)
                if m_ok:
                    out.append(Decision("melee_attack", e.id))
                if r_ok:
                    out.append(Decision("ranged_attack", e.id))
                if m_ok or r_ok:
                    out.append(Decision("aid_attack", e.id))
                    out.append(Decision("suppress", e.id))
                    if self._holding(e):
                        out.append(Decision("attack_held_object", e.id))
                        if m_ok or "ranged_disarm" in a.stats["feats"]:
                            out.append(Decision("disarm", e.id))
                    if two_w:
                        out.append(Decision("full_attack", e.id))
                if melee_w is not None and can_walk and self._charge_end(enc, a, e) is not None:
                    out.append(Decision("charge", e.id))
                if can_grab and g.distance(a.pos, e.pos) <= 1 and C.size_steps(a, e) <= 1:
                    out.append(Decision("grab", e.id))
                    if grapple_feat:
                        out.append(Decision("grapple", e.id))
            for i in self._object_squares(enc, a, melee_w, ranged_w):
                out.append(Decision("attack_object", square=g.xy(i)))
        if full and may_attack:
            for u in enc.units:
                if u.side != a.side and u.down and not u.dead and self._cdg_ok(enc, a, u):
                    out.append(Decision("coup_de_grace", u.id))
        if std:
            out.append(Decision("fight_defensively"))
            out.append(Decision("total_defense"))
            if s["grabbed_by"] or held:
                out.append(Decision("break_grab"))

        # draw / holster / manipulate / stand up
        if econ.can_pay(b, self._draw_cost(a)):
            for n in self._drawable(a):
                out.append(Decision("draw", option=n))
            for n in self._holsterable(a):
                out.append(Decision("holster", option=n))
        if mv:
            for i in self._manipulable(enc, a):
                out.append(Decision("manipulate", square=g.xy(i)))
            if s["prone"]:
                out.append(Decision("stand_up"))
        if sw:
            if s["prone"] and "acrobatics" in a.stats["trained"]:
                out.append(Decision("stand_up_acrobatics"))
            for n in range(len(a.stats["items"])):
                out.append(Decision("activate_item", option=n))
            if (not s["aimed"] and ranged_w is not None and may_attack and econ.can_pay(b, "swift", times=2)
                    and any(self._clear_shot(enc, a, e, ranged_w) for e in enemies)):
                out.append(Decision("aim"))
            if self._wind_problem(a) is None:
                out.append(Decision("second_wind"))
            for n in self._holsterable(a):
                out.append(Decision("drop_item", option=n))
            if not s["prone"]:
                out.append(Decision("fall_prone"))
            if s["ct"] > 0 and not a.stats["persistent"]:
                out.append(Decision("recover"))
            for n in self._holsterable(a):
                if len(a.stats["weapons"][n]["modes"]) > 1:
                    out.append(Decision("switch_mode", option=n))
        return out

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
        parts.append(self._shot_problem(enc, a, tgt, r) or "" if r is not None else f"holds no ranged weapon")
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
    def apply(self, enc: Encounter, a: Unit, d: Decision, dice: Dice, react: React | None = None) -> list[Event]:
        spec = self.catalogue[d.action]
        cost = self._draw_cost(a) if d.action in ("draw", "holster") else spec.cost
        paid = self.economy.pay(enc.budget, cost, times=spec.times)
        if d.action not in ("ranged_attack", "aim", "full_attack", "attack_held_object", "disarm"):
            a.state["aimed"] = False
        ev = [Event("action", a.id, d.target, action=d.action, square=d.square, option=d.option, paid=paid)]
        ev += getattr(self, f"_r_{d.action}")(enc, a, d, dice, react)
        enc.__dict__.pop("_saga_ref_cache", None)  # the state changed under the same version number
        return ev

    # attacks -----------------------------------------------------------------------------------
    def _attack(self, enc: Encounter, a: Unit, t: Unit, n: int | None, dice: Dice, *, bonus: int = 0,
                defense: int | None = None, damage: bool = True, why: str = "attack", ignore_cover: bool = False,
                auto_crit: bool = False, half_on_miss: bool = False) -> tuple[bool, list[Event]]:
        """One attack roll of a against t with weapon n (None: unarmed). Returns (hit, events).

        A ranged attack after Aim ignores cover (`ignore_cover`), gets Careful Shot's +1 and Deadeye's die;
        an autofire (area) attack gets none of it, as Aim gives no benefit to area attacks.
        """
        g = enc.grid
        melee = n is None or C.weapon(a, n)["kind"] == "melee"
        ab = C.attack_bonus(a, n, t) + bonus
        notes = []
        aimed = not melee and a.state["aimed"] and C.mode(a, n) != "autofire"
        if not aimed:
            ignore_cover = False
        if not melee and n is not None:
            band = C.range_band(C.weapon(a, n), g.distance(a.pos, t.pos)) or 0
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
        if a.state["suppressed"]:
            notes.append("suppressed -2")
            a.state["suppressed"] = 0
        ev = [Event("attack", a.id, t.id, face=face, bonus=ab, total=total, defense=defense, hit=hit, why=why,
                    weapon=C.weapon(a, n)["name"] if n is not None else "unarmed", notes=notes)]
        if damage and (hit or half_on_miss):
            stun = n is not None and C.mode(a, n) == "stun"
            expr = C.damage_expr(a, n, aimed=aimed)
            amount, faces = dice.roll(expr, f"{a.name}'s damage on {t.name}")
            if face == 20 or auto_crit:
                amount *= 2
            if not hit:
                amount //= 2
            ev.append(Event("damage_roll", a.id, t.id, expr=str(expr), faces=faces, total=amount, crit=face == 20))
            ev += C.deal_damage(enc, a, t, amount, stun=stun, lethal_always=auto_crit)
        a.state["aimed"] = False  # issue 24: any attack spends the aim
        return hit, ev

    def _r_end_turn(self, enc, a, d, dice, react):  # pragma: no cover - END is handled by the battle loop
        return []

    def _r_melee_attack(self, enc, a, d, dice, react):
        return self._attack(enc, a, enc.units[d.target], C.first_of(a, "melee"), dice, why="melee attack")[1]

    def _r_ranged_attack(self, enc, a, d, dice, react):
        t, n = enc.units[d.target], C.first_of(a, "ranged")
        ev = self._provoke_shot(enc, a, dice, react)
        if not a.active:
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
        if not a.active:
            return ev
        hit, more = self._attack(enc, a, t, n, dice, defense=10, damage=False, why="aid another")
        if hit:
            t.state["aid"][a.side] = a.id
            enc.extra.setdefault("aid_until", {})[f"{t.id}:{a.side}"] = [enc.round + 1, enc.turn]
            more.append(Event("aided", a.id, t.id, bonus=2))
        return ev + more

    def _r_suppress(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n, ev = self._weapon_for(enc, a, t, dice, react)
        if not a.active:
            return ev
        hit, more = self._attack(enc, a, t, n, dice, defense=10, damage=False, why="suppression")
        if hit:
            t.state["suppressed"] = 2
            more.append(Event("suppressed", a.id, t.id, penalty=-2))
        return ev + more

    def _r_charge(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        end, line = self._charge_end(enc, a, t)
        ev = self._walk(enc, a, line, dice, react, how="charges")
        enc.flags["charged"] = True
        a.state["charged"] = True
        if a.active and a.pos == end:
            ev += self._attack(enc, a, t, C.first_of(a, "melee"), dice, bonus=2, why="charge")[1]
        return ev

    def _r_full_attack(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        seq, penalty = self._full_attack_plan(a)
        a.state["attack_penalty"] = penalty
        ev = [Event("full_attack", a.id, t.id, attacks=len(seq), penalty=penalty)]
        for n in seq:
            if not a.active:
                break
            if not t.active:
                t = next((e for e in enc.enemies(a) if self._can_hit(enc, a, e, n)), None)
                if t is None:
                    break
            if not self._can_hit(enc, a, t, n):
                continue
            if C.weapon(a, n)["kind"] == "ranged":
                ev += self._provoke_shot(enc, a, dice, react)
                if not a.active:
                    break
            ev += self._attack(enc, a, t, n, dice, why="full attack", ignore_cover=a.state["aimed"])[1]
        return ev

    def _r_disarm(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n, ev = self._weapon_for(enc, a, t, dice, react)
        if not a.active:
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
            ev.append(Event("disarmed", a.id, t.id, weapon=C.weapon(t, victim)["name"]))
        elif not ranged and not improved and t.active and self._may_strike(t):
            m = C.first_of(t, "melee") if self._in_reach(enc, t, a) else None
            r = C.first_of(t, "ranged")
            use = m if m is not None else (r if r is not None and self._clear_shot(enc, t, a, r) else None)
            if use is not None:
                ev.append(Event("free_attack", t.id, a.id, why="failed disarm"))
                ev += self._attack(enc, t, a, use, dice, why="free attack")[1]
        return ev

    def _may_strike(self, u: Unit) -> bool:
        """Whether u can make an attack outside its turn (free attack, attack of opportunity)."""
        s = u.state
        return u.active and s["ct"] < C.CT_HELPLESS and not s["no_attacks"] and s["pinned_by"] is None

    def _r_attack_held_object(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        n, ev = self._weapon_for(enc, a, t, dice, react)
        if not a.active:
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
            ev.append(Event("object_damage", a.id, t.id, object=w["name"], amount=amount, hp=left))
            if left == 0:
                self._lose_weapon(enc, t, victim, "broken")
                ev.append(Event("object_broken", a.id, t.id, object=w["name"], destroyed=amount >= thr))
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
            if not a.active:
                return ev
            band = C.range_band(C.weapon(a, n), g.distance(a.pos, d.square))
            ab = C.attack_bonus(a, n) + C.BAND_PENALTY[band]
            notes.append(C.BANDS[band])
        face = dice.d20(f"{a.name}'s attack on the {what}")
        if a.state["suppressed"]:  # the penalty was on this attack roll: spent (issue 24: it stayed)
            notes.append("suppressed -2")
            a.state["suppressed"] = 0
        hit = face == 20 or (face != 1 and face + ab >= obj["reflex"])
        ev.append(Event("attack_object", a.id, None, square=d.square, face=face, bonus=ab, total=face + ab,
                        defense=obj["reflex"], hit=hit, object=what, notes=notes))
        if not hit:
            return ev
        amount, _ = dice.roll(C.damage_expr(a, n), f"{a.name}'s damage on the {what}")
        if face == 20:
            amount *= 2
        if not C.weapon(a, n)["lightsaber"]:
            amount = max(0, amount - obj["dr"])
        st = enc.extra.setdefault("objects", {}).setdefault(str(i), {"hp": obj["hp"], "ct": 0, "disabled": False})
        st["hp"] = max(0, st["hp"] - amount)
        if amount >= obj["threshold"]:
            st["ct"] += 1
        ev.append(Event("object_damage", a.id, None, square=d.square, object=what, amount=amount, hp=st["hp"]))
        if st["hp"] == 0 and amount >= obj["threshold"]:
            g.broken.add(i)  # destroyed: the square is open floor from now on
            ev.append(Event("object_broken", a.id, None, square=d.square, object=what, destroyed=True))
        elif (st["hp"] == 0 or st["ct"] >= 5) and not st["disabled"]:
            st["disabled"] = True  # disabled: still there (a door stays as it is, jammed)
            ev.append(Event("object_broken", a.id, None, square=d.square, object=what, destroyed=False))
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
        return [Event("coup_de_grace", a.id, t.id, amount=amount, faces=faces),
                Event("down", a.id, t.id, dead=True, why="coup de grace")]

    def _r_grab(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        hit, ev = self._attack(enc, a, t, None, dice, bonus=-5, damage=False, why="grab")
        if hit:
            t.state["grabbed_by"].append(a.id)
            a.state["grabbing"] = t.id
            ev.append(Event("grabbed", a.id, t.id))
        return ev

    def _r_grapple(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        hit, ev = self._attack(enc, a, t, None, dice, damage=False, why="grapple")
        if not hit:
            return ev
        mine = dice.d20(f"{a.name}'s grapple check") + self._grapple_bonus(a)
        theirs = dice.d20(f"{t.name}'s grapple check") + self._grapple_bonus(t)
        won = mine >= theirs
        ev.append(Event("grapple_check", a.id, t.id, mine=mine, theirs=theirs, won=won))
        if not won:
            return ev
        feats = a.stats["feats"]
        if "pin" in feats:
            t.state["pinned_by"] = a.id
            ev.append(Event("pinned", a.id, t.id))
        if "trip" in feats and "pin" not in feats:
            t.state["prone"] = True
            ev.append(Event("prone", a.id, t.id, why="tripped"))
        light = next((n for n in C.usable_weapons(a) if C.weapon(a, n)["light"]
                      and C.weapon(a, n)["kind"] == "melee"), None)
        if light is not None:
            amount, faces = dice.roll(C.damage_expr(a, light), f"{a.name}'s damage in the grapple")
            ev.append(Event("damage_roll", a.id, t.id, expr=str(C.damage_expr(a, light)), faces=faces,
                            total=amount, crit=False))
            ev += C.deal_damage(enc, a, t, amount)
        return ev

    def _r_break_grab(self, enc, a, d, dice, react):
        s = a.state
        ev = []
        clear = max(1, a.stats["level"])
        for g in list(s["grabbed_by"])[:clear]:
            s["grabbed_by"].remove(g)
            enc.units[g].state["grabbing"] = None
            ev.append(Event("grab_broken", a.id, g))
        if s["pinned_by"] is not None:
            other = enc.units[s["pinned_by"]]
            mine = dice.d20(f"{a.name}'s grapple check to escape") + self._grapple_bonus(a)
            theirs = dice.d20(f"{other.name}'s grapple check") + self._grapple_bonus(other)
            ev.append(Event("grapple_check", a.id, other.id, mine=mine, theirs=theirs, won=mine >= theirs))
            if mine >= theirs:
                s["pinned_by"] = None
                ev.append(Event("grab_broken", a.id, other.id))
        return ev

    def _r_fight_defensively(self, enc, a, d, dice, react):
        a.state["defense"] = 5 if "acrobatics" in a.stats["trained"] else 2
        a.state["attack_penalty"] = -5
        return [Event("defensive", a.id, bonus=a.state["defense"], no_attacks=False)]

    def _r_total_defense(self, enc, a, d, dice, react):
        a.state["defense"] = 10 if "acrobatics" in a.stats["trained"] else 5
        a.state["no_attacks"] = True
        return [Event("defensive", a.id, bonus=a.state["defense"], no_attacks=True)]

    # movement --------------------------------------------------------------------------------------
    def _r_move(self, enc, a, d, dice, react):
        g = enc.grid
        path = g.path(a.pos, d.square, C.speed(a), self._enemy_squares(enc, a),
                      self._threats(enc, a))
        return self._walk(enc, a, path, dice, react, how="moves")

    def _r_withdraw(self, enc, a, d, dice, react):  # issue 24: one move, diagonals counted from the first step on
        g = enc.grid
        path = M.seeded_path(g, M.seeds_after(g, a.pos, self._withdraw_firsts(enc, a)), g.index(*d.square),
                             C.speed(a) // 2, self._enemy_squares(enc, a), self._threats(enc, a))
        origin = a.pos
        ev = self._walk(enc, a, path[:1], dice, react, how="withdraws", safe=True)
        if len(path) > 1 and a.active:
            ev += self._walk(enc, a, path[1:], dice, react, how="moves on", origin=origin)
        return ev

    def _r_run(self, enc, a, d, dice, react):
        dx = (d.square[0] > a.pos[0]) - (d.square[0] < a.pos[0])
        dy = (d.square[1] > a.pos[1]) - (d.square[1] < a.pos[1])
        steps = max(abs(d.square[0] - a.pos[0]), abs(d.square[1] - a.pos[1]))
        path = enc.grid.ray(a.pos, (dx, dy), steps)
        return self._walk(enc, a, path, dice, react, how="runs")

    def _walk(self, enc, a, path, dice, react, how: str, safe: bool = False, origin=None) -> list[Event]:
        """Move along path square by square; leaving a threatened square provokes (unless `safe`)."""
        ev: list[Event] = []
        start = a.pos
        struck: set[int] = set()
        threats = self._threats(enc, a)
        g = enc.grid
        walked = []  # issue 24: the movement spent on the squares walked, diagonals counted from origin
        for sq in path:
            if not safe:
                for eid in threats.get(g.index(*a.pos), ()):
                    if eid in struck:
                        continue
                    struck.add(eid)
                    ev += self._aoo(enc, enc.units[eid], a, dice, react, "moving out of a threatened square")
                    if not a.active:
                        break
            if not a.active:
                break
            a.pos = sq
            walked.append(sq)
        cost = g.path_cost(origin or start, ([start] if origin else []) + walked) - (
            g.path_cost(origin, [start]) if origin else 0)
        if a.state["grabbing"] is not None and a.pos != start:
            other = enc.units[a.state["grabbing"]]
            if g.distance(a.pos, other.pos) > 1:
                other.state["grabbed_by"] = [x for x in other.state["grabbed_by"] if x != a.id]
                a.state["grabbing"] = None
        ev.insert(0, Event("move", a.id, None, start=start, end=a.pos, squares=len(path), cost=cost, how=how))
        ev[0].data["end"] = a.pos
        return ev

    def _aoo(self, enc, e: Unit, t: Unit, dice, react, why: str) -> list[Event]:
        if e.state["aoo_used"] or not self.threatens(e) or not t.active:
            return []  # one attack of opportunity per round; the threat map may predate this decision
        if react is not None and not react(enc, e, f"attack of opportunity on {t.name} ({why})"):
            return [Event("aoo_declined", e.id, t.id, why=why)]
        e.state["aoo_used"] = True
        ev = [Event("aoo", e.id, t.id, why=why)]
        return ev + self._attack(enc, e, t, C.first_of(e, "melee"), dice, why="attack of opportunity")[1]

    def _provoke_shot(self, enc, a, dice, react) -> list[Event]:
        ev: list[Event] = []
        for eid in self._threats(enc, a).get(enc.grid.index(*a.pos), ()):
            ev += self._aoo(enc, enc.units[eid], a, dice, react, "ranged attack in a threatened square")
            if not a.active:
                break
        return ev

    # other actions -----------------------------------------------------------------------------------
    def _r_draw(self, enc, a, d, dice, react):
        a.state["hands"].append(d.option)
        return [Event("draw", a.id, weapon=C.weapon(a, d.option)["name"])]

    def _r_holster(self, enc, a, d, dice, react):
        a.state["hands"].remove(d.option)
        return [Event("holster", a.id, weapon=C.weapon(a, d.option)["name"])]

    def _r_drop_item(self, enc, a, d, dice, react):
        self._lose_weapon(enc, a, d.option, "dropped")
        return [Event("drop", a.id, weapon=C.weapon(a, d.option)["name"], square=a.pos)]

    def _r_manipulate(self, enc, a, d, dice, react):
        g = enc.grid
        i = g.index(*d.square)
        if g.terrain[i] == "door" and i not in g.broken and d.square != a.pos:
            if i in g.open_doors:
                g.open_doors.discard(i)
                return [Event("door", a.id, square=d.square, open=False)]
            g.open_doors.add(i)
            return [Event("door", a.id, square=d.square, open=True)]
        ground = enc.extra.get("ground", {}).get(f"{a.pos[0]},{a.pos[1]}", [])
        item = next(x for x in ground if x["owner"] == a.id)
        ground.remove(item)
        a.state["lost"].remove(item["weapon"])
        hands_used = sum(C.weapon(a, n)["hands"] for n in a.state["hands"] if n not in a.state["lost"])
        if hands_used + C.weapon(a, item["weapon"])["hands"] <= 2:
            a.state["hands"].append(item["weapon"])
        return [Event("pick_up", a.id, weapon=C.weapon(a, item["weapon"])["name"])]

    def _r_stand_up(self, enc, a, d, dice, react):
        a.state["prone"] = False
        return [Event("stand", a.id)]

    def _r_stand_up_acrobatics(self, enc, a, d, dice, react):
        face = dice.d20(f"{a.name}'s Acrobatics check to stand")
        total = face + a.stats["acrobatics"] + C.ct_penalty(a)
        ok = total >= 15
        if ok:
            a.state["prone"] = False
        return [Event("check", a.id, skill="Acrobatics", face=face, total=total, dc=15, success=ok),
                *([Event("stand", a.id)] if ok else [])]

    def _r_fall_prone(self, enc, a, d, dice, react):
        a.state["prone"] = True
        return [Event("prone", a.id, a.id, why="drops prone")]

    def _r_activate_item(self, enc, a, d, dice, react):
        act = a.state["active_items"]
        on = d.option not in act
        if on:
            act.append(d.option)
        else:
            act.remove(d.option)
        return [Event("item", a.id, item=a.stats["items"][d.option]["name"], active=on)]

    def _r_aim(self, enc, a, d, dice, react):
        a.state["aimed"] = True
        return [Event("aim", a.id)]

    def _r_second_wind(self, enc, a, d, dice, react):
        heal = max(a.max_hp // 4, a.stats["con"])
        old = a.hp
        a.hp = min(a.max_hp, a.hp + heal)
        a.state["winds_used"] += 1
        return [Event("heal", a.id, a.id, amount=a.hp - old, hp=a.hp, why="second wind")]

    def _r_recover(self, enc, a, d, dice, react):
        s = a.state
        if enc.round - s["recover_round"] > 1:
            s["recover"] = 0
        s["recover"] += 1
        s["recover_round"] = enc.round
        ev = [Event("recover_progress", a.id, done=s["recover"], of=3)]
        if s["recover"] >= 3:
            s["recover"] = 0
            s["ct"] -= 1
            ev.append(Event("condition", a.id, a.id, step=s["ct"], penalty=C.CT_PENALTY[s["ct"]], why="recover"))
        return ev

    def _r_switch_mode(self, enc, a, d, dice, react):
        a.state["modes"][d.option] += 1
        return [Event("mode", a.id, weapon=C.weapon(a, d.option)["name"], mode=C.mode(a, d.option))]

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
        g = enc.grid
        return [g.index(*u.pos) for u in enc.units if u.active and u.side != a.side]

    def _ally_squares(self, enc: Encounter, a: Unit) -> list[int]:
        g = enc.grid
        return [g.index(*u.pos) for u in enc.units if u.active and u.side == a.side and u.id != a.id]

    def threatens(self, u: Unit) -> bool:
        s = u.state
        return (u.active and s["ct"] < C.CT_HELPLESS and not s["no_attacks"] and s["pinned_by"] is None
                and C.first_of(u, "melee") is not None)

    def _threats(self, enc: Encounter, a: Unit) -> dict[int, list[int]]:
        """Square index -> enemies that would take an attack of opportunity there against a."""
        key = ("threats", enc.version, a.side)
        cache = _cache(enc)
        got = cache.get(key)
        if got is not None:
            return got
        g = enc.grid
        out: dict[int, list[int]] = {}
        for e in enc.units:
            if e.side == a.side or not self.threatens(e) or e.state["aoo_used"]:
                continue
            for sq in g.within(e.pos, e.stats["reach"]):
                out.setdefault(g.index(*sq), []).append(e.id)
        cache[key] = out
        return out

    def _move_squares(self, enc: Encounter, a: Unit, budget: int) -> list[int]:
        g = enc.grid
        reach = g.reachable(a.pos, budget, self._enemy_squares(enc, a), self._ally_squares(enc, a))
        reach.pop(g.index(*a.pos), None)
        return list(reach)

    def _withdraw_firsts(self, enc: Encounter, a: Unit) -> list[tuple[int, int]]:
        g = enc.grid
        half = C.speed(a) // 2
        threats = self._threats(enc, a)
        blocked = set(self._enemy_squares(enc, a))
        out = []
        for sq in g.within(a.pos, 1):
            i = g.index(*sq)
            c = g.enter_cost(i) * (1 if g.metric != "alternating" else 1)
            if i in blocked or not g.passable(i) or threats.get(i) or c > half:
                continue
            if sq[0] != a.pos[0] and sq[1] != a.pos[1]:
                ax, ay = a.pos
                if g.kind(g.index(sq[0], ay)) == "wall" or g.kind(g.index(ax, sq[1])) == "wall":
                    continue
            out.append((i, c))
        return out

    def _withdraw_squares(self, enc: Encounter, a: Unit) -> list[int]:  # issue 24: one search from the firsts
        g = enc.grid
        seeds = M.seeds_after(g, a.pos, self._withdraw_firsts(enc, a))
        reach = M.seeded_reach(g, seeds, C.speed(a) // 2, self._enemy_squares(enc, a))
        allies = set(self._ally_squares(enc, a))
        return [i for i in reach if i != g.index(*a.pos) and i not in allies]

    def _run_limit(self, a: Unit) -> int:
        return C.speed(a) * (3 if a.stats["heavy_armor"] else 4)

    def _run_squares(self, enc: Encounter, a: Unit) -> list[tuple[int, int]]:
        g = enc.grid
        limit = self._run_limit(a)
        occ = enc.occupied()
        out = []
        for dx, dy in DIRECTIONS:
            cost, parity, (x, y) = 0, 0, a.pos
            while True:
                nx, ny = x + dx, y + dy
                if not g.inside(nx, ny):
                    break
                i = g.index(nx, ny)
                if not g.passable(i):
                    break
                if dx and dy:
                    if g.kind(g.index(nx, y)) == "wall" or g.kind(g.index(x, ny)) == "wall":
                        break
                    step, parity = (2 if parity else 1), parity ^ 1
                else:
                    step = 1
                cost += step * g.enter_cost(i)
                if cost > limit:
                    break
                who = occ.get((nx, ny))
                if who is not None and enc.units[who].side != a.side:
                    break
                if who is None:
                    out.append((nx, ny))
                x, y = nx, ny
        return out

    def _charge_end(self, enc: Encounter, a: Unit, t: Unit):
        """(end square, squares walked) of the cheapest legal charge at t, or None.

        The line runs centre to centre from a to a square from which a can strike t; every square it touches
        must be open (no walls, low objects or enemies; allies are fine), no diagonal step of the walk along it
        cuts a wall's corner, the walk costs 2 to speed squares (difficult terrain double), and the end square
        is free.
        """
        g = enc.grid
        speed = C.speed(a)
        reach = a.stats["reach"]
        occ = enc.occupied()
        best = None
        for end in g.within(t.pos, reach):
            if end in occ or g.distance(a.pos, end) < 2 or self._charge_block(enc, a, end, occ) is not None:
                continue
            if g.distance(end, t.pos) >= g.distance(a.pos, t.pos):  # issue 24: it must end nearer the target
                continue
            path = self._line_path(g, a.pos, end)
            cost = g.path_cost(a.pos, path)
            if cost > speed:
                continue
            if reach > 1 and not g.line_of_effect(end, t.pos):
                continue
            if best is None or cost < best[0]:
                best = (cost, end, path)
        return None if best is None else (best[1], best[2])

    def _charge_block(self, enc: Encounter, a: Unit, end: tuple[int, int], occ: dict) -> str | None:
        """What stops a straight charge from a to end (naming it and its square), or None: the nearest obstacle
        met walking the line from a, each step's corner (a diagonal step may not cut a wall's corner, as in
        movement) before the square it steps into."""
        g = enc.grid
        sqs = self._line_squares(g, a.pos, end)
        walked = self._line_path(g, a.pos, end)
        prev = a.pos
        for xy in sqs:
            if xy in walked:
                if xy[0] != prev[0] and xy[1] != prev[1]:
                    for corner in ((xy[0], prev[1]), (prev[0], xy[1])):
                        if g.kind(g.index(*corner)) == "wall":
                            return f"the corner of the wall at {corner}"
                prev = xy
            i = g.index(*xy)
            k = g.kind(i)
            if k == "low_cover":
                return f"the low object at {g.xy(i)}"
            if not g.passable(i):
                return f"the {k.replace('_', ' ')} at {g.xy(i)}"
            who = occ.get(g.xy(i))
            if who is not None and enc.units[who].side != a.side:
                return f"{enc.units[who].name} (an enemy) at {g.xy(i)}"
        return None

    @staticmethod
    def _line_squares(g, start: tuple[int, int], end: tuple[int, int]) -> list[tuple[int, int]]:
        """The squares the straight line start -> end touches, start excluded, end included, in the order met
        walking from start (`g.between` lists them traced from one end whichever way round)."""
        dx, dy = end[0] - start[0], end[1] - start[1]
        sqs = sorted((g.xy(i) for i in g.between(start, end)),
                     key=lambda xy: (xy[0] - start[0]) * dx + (xy[1] - start[1]) * dy)
        sqs.append(end)
        return sqs

    @classmethod
    def _line_path(cls, g, start: tuple[int, int], end: tuple[int, int]) -> list[tuple[int, int]]:
        """The squares walked along the straight line start -> end: one king step at a time, each step to
        the furthest square of the line still adjacent (a line through a corner touches two squares)."""
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

        def walk_floor(p, q):  # the least a walk from p to q costs (a diagonal step costs 1 under manhattan)
            return max(abs(p[0] - q[0]), abs(p[1] - q[1])) if g.metric == "manhattan" else g.distance(p, q)

        if all(walk_floor(a.pos, e) > speed for e in g.within(t.pos, reach)):
            return (f"{t.name} is {dist} squares away: a charge moves at most {a.name}'s speed ({speed}) and then "
                    f"strikes at reach {reach}")
        if dist <= 1:  # issue 24
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
            for i in _doors(g):
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
        for sq in g.within(a.pos, 1):
            i = g.index(*sq)
            if (g.terrain[i] == "door" and i not in g.broken and enc.occupant(sq) is None
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

    def unit_features(self, enc: Encounter, u: Unit) -> list[float]:
        s = u.state
        return [C.reflex(u) / 30, C.fortitude(u) / 30, s["ct"] / 5, float(s["prone"]), float(s["aimed"]),
                float(bool(s["grabbed_by"]) or s["pinned_by"] is not None), s["defense"] / 10,
                float(C.first_of(u, "melee") is not None), float(C.first_of(u, "ranged") is not None),
                s["attack_penalty"] / 10, float(s["charged"]), float(s["aoo_used"]),
                float(u.stats["second_winds"] > s["winds_used"]), u.stats["speed"] / 12]

    def threat_estimate(self, enc: Encounter, a: Unit, t: Unit) -> tuple[float, float]:
        if not t.active or not self.can_act(enc, a):
            return 0.0, 0.0
        best = (0.0, 0.0)
        m = C.first_of(a, "melee")
        if m is not None and self._in_reach(enc, a, t):
            e = self.attack_estimate(enc, a, t, m, a.pos)
            best = (e.hit_chance, e.expected_damage)
        r = C.first_of(a, "ranged")
        if r is not None and self._clear_shot(enc, a, t, r):
            e = self.attack_estimate(enc, a, t, r, a.pos)
            if e.expected_damage > best[1]:
                best = (e.hit_chance, e.expected_damage)
        return best

    def option_label(self, d: Decision, enc: Encounter) -> str:
        a = enc.actor
        if a is None:
            return str(d.option)
        if d.action == "activate_item" and d.option < len(a.stats["items"]):
            return a.stats["items"][d.option]["name"]
        if d.option < len(a.stats["weapons"]):
            return a.stats["weapons"][d.option]["name"]
        return str(d.option)


RULESET = ReferenceSagaRuleset()
