"""d20 starship combat ("Starship Actions"): the economy, legality and resolution of every action.

`legal_actions` is the one source of legality; `apply` pays an action's cost and resolves it through a small resolver
per catalogue entry (`_r_<key>`). Arithmetic lives in `combat.py`, stat blocks in `stats.py`, estimates in
`estimates.py`.

Turn structure: two move actions and one attack action in any order, or one full-round action (which needs all three
untouched), and a single 500-ft shift in a round the ship moves no distance. The attack action fires the ship's
weapons one after another, each at a target chosen after the earlier results (`enc.flags["pending"]`: only the next
shots and ceasing fire are legal until it is over); an aid asks for the ally who gains it. Ships with point defense
threaten the squares next to them: leaving one, ramming the ship or jumping away beside it provokes its attack of
opportunity. A ship that jumps to cruising speed has left the fight (down, not destroyed: `state["fled"]`).
"""
from __future__ import annotations

from pathlib import Path


from engine.core.decision import END, Decision, square_decisions, target_decision
from engine.core.dice import Dice
from engine.core.economy import Economy
from engine.core.events import Event, new_event
from engine.core.reaction import DECLINE, React, Trigger, ask_reaction
from engine.core.ruleset import Estimate, Ruleset, load_catalogues
from engine.core.state import Encounter
from engine.core.units import Unit

from . import combat as C
from . import estimates as E
from . import narration as N
from . import stats as S

_HERE = Path(__file__).parent
FULL = "full_round"
PD = "point_defense"
FIRING = "firing"
_DIRS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))


_CATALOGUE, _REACTIONS = load_catalogues(_HERE / "actions.yaml")
_PLAIN = {k: Decision(k) for k in ("cease_fire", "fight_defensively", "total_defense", "escape", "damage_control",
                                   "operate_sensors", "start_jump", "complete_jump", "jump")}
_PD_DECISIONS: dict[int, Decision] = {}


def pd_decision(target: int) -> Decision:
    got = _PD_DECISIONS.get(target)
    if got is None:
        got = _PD_DECISIONS[target] = Decision(PD, target)
    return got


class StarshipRuleset(Ruleset):
    id = "starship"
    name = "Starship combat"
    env_name = "Starship"
    rules_file = "003_c8fbce84a63f5f95.txt"
    metric = "alternating"
    attack_defense = "Defense"
    sides = ("pcs", "npcs")
    hp_scale = 100.0
    economy = Economy(slots={"move": 2, "attack": 1, "shift": 1}, full_round=FULL, full_round_needs=("move", "attack"))
    catalogue = _CATALOGUE
    reactions = _REACTIONS
    words_file = _HERE / "words.yaml"
    n_unit_features = E.N_FEATURES

    def __init__(self):
        self._resolvers = {key: getattr(self, f"_r_{key}") for key in self.catalogue if key != "end_turn"}

    # ---- units ----------------------------------------------------------------------------------------------------
    def templates(self) -> dict[str, dict]:
        return S.templates()

    def make_unit(self, uid: int, spec: dict, where: str) -> Unit:
        return S.make_unit(uid, spec, where)

    def check_unit(self, unit: Unit, where: str) -> None:
        S.check_unit(unit, where)

    def initiative_bonus(self, unit: Unit) -> int:
        return unit.stats["initiative"]

    def start_wounded(self, unit: Unit, hp: int) -> None:
        """The damage already taken comes off the shields first."""
        lost = unit.max_hp - hp
        unit.state["sp"] = max(0, unit.state["sp"] - lost)
        unit.hp = hp

    def unit_summary(self, u: Unit) -> dict:
        s = u.state
        out = {"defense": C.defense(u), "hull": u.hp - s["sp"], "shields": s["sp"]}
        if s["grappled_by"] is not None:
            out["held_by"] = s["grappled_by"]
        if s["fled"]:
            out["fled"] = True
        return out

    # ---- turns ----------------------------------------------------------------------------------------------------
    def new_budget(self, enc: Encounter, unit: Unit) -> dict[str, int]:
        if unit.state["limited"] and enc.round == 1:
            return {"move": 1, "attack": 1, "shift": 0}   # the surprise round: one move or attack action
        return self.economy.new_budget()

    def can_act(self, enc: Encounter, unit: Unit) -> bool:
        return not unit.down

    def start_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        s = u.state
        s["reaction"], s["dodge"], s["surging"] = True, 0, False
        return []

    def end_turn(self, enc: Encounter, u: Unit, dice: Dice) -> list[Event]:
        """The aid it was given was for this turn; its old feints lapse; a jump started this turn carries on into the
        next, one not completed is abandoned."""
        s = u.state
        s["aid"] = []
        for other in enc.units:
            if other.state["feinted"]:
                other.state["feinted"] = [f for f in other.state["feinted"] if f[0] != u.id or f[1] == enc.round]
        if s["jumping"] and not enc.flags.get("jump_started"):
            s["jumping"] = False
        return []

    # ---- what a ship can reach ------------------------------------------------------------------------------------
    @staticmethod
    def in_range(enc: Encounter, a: Unit, t: Unit, n: int) -> bool:
        """Weapon n can fire at t: shots left, within range (beams 10 increments) and in line of sight."""
        if a.state["ammo"][n] == 0:
            return False
        w = a.stats["weapons"][n]
        if C.increments(enc, a, t, w) is None:
            return False
        g = enc.grid
        wd = g.width
        los, loe, _ = g.sight(a.pos[1] * wd + a.pos[0], t.pos[1] * wd + t.pos[0])
        return los and loe

    def _blockers(self, enc: Encounter, a: Unit) -> tuple[list[int], list[int]]:
        w = enc.grid.width
        foes = [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side != a.side]
        friends = [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side == a.side and u is not a]
        return foes, friends

    def _reach(self, enc: Encounter, a: Unit, squares: int) -> dict[int, int]:
        foes, friends = self._blockers(enc, a)
        return enc.grid.reachable(a.pos, squares, foes, friends)

    def surge_squares(self, enc: Encounter, a: Unit) -> list[tuple[int, int]]:
        """The squares a surge ends on: along each of the eight directions, up to four times the tactical speed, up to
        the first obstacle, ship or wall corner."""
        g = enc.grid
        taken = {u.pos for u in enc.units if not u.down and u is not a}
        out = []
        for dx, dy in _DIRS:
            x, y = a.pos
            for _ in range(4 * a.stats["speed"]):
                nx, ny = x + dx, y + dy
                if not g.inside(nx, ny) or not g.passable(g.index(nx, ny)) or (nx, ny) in taken or \
                        g.distance(a.pos, (nx, ny)) > 4 * a.stats["speed"]:
                    break
                if dx and dy and (not g.passable(g.index(nx, y)) or not g.passable(g.index(x, ny))):
                    break
                x, y = nx, ny
                if (x, y) not in out:
                    out.append((x, y))
        return out

    def ram_square(self, enc: Encounter, a: Unit, t: Unit, reach: dict[int, int] | None = None
                   ) -> tuple[int, int] | None:
        """The square next to t a ram reaches first within the tactical speed (a's own when already beside it);
        `reach`: a's walk within its speed, when the caller has it."""
        if C.adjacent(a.pos, t.pos):
            return a.pos
        if reach is None:
            reach = self._reach(enc, a, a.stats["speed"])
        g = enc.grid
        best = None
        tx, ty = t.pos
        for dx, dy in _DIRS:
            x, y = tx + dx, ty + dy
            if g.inside(x, y):
                cost = reach.get(y * g.width + x)
                if cost is not None and (best is None or cost < best[0]):
                    best = (cost, (x, y))
        return None if best is None else best[1]

    # ---- legality -------------------------------------------------------------------------------------------------
    def legal_actions(self, enc: Encounter, a: Unit) -> list[Decision]:
        """Every decision the rules allow a now, END first."""
        out = [END]
        if a.down:
            return out
        s, b, flags = a.state, enc.budget, enc.flags
        pending = flags.get("pending")
        enemies = [u for u in enc.units if not u.down and u.side != a.side]
        ws = a.stats["weapons"]
        if pending == FIRING:
            fired = flags["fired"]
            for e in enemies:
                for n in range(len(ws)):
                    if n not in fired and self.in_range(enc, a, e, n):
                        out.append(_opt_target("fire_next", n, e.id))
            out.append(_PLAIN["cease_fire"])
            return out
        if isinstance(pending, list):   # an aid: who gains it
            return out + [target_decision("aid_ally", u.id) for u in enc.units
                          if u.side == a.side and u is not a and not u.down]
        if flags.get("jump_started"):
            return out
        mv, atk = b["move"] > 0, b["attack"] > 0
        held = s["grappled_by"] is not None
        if s["jumping"]:  # a jump begun last turn: completing it comes first (not while held by a tractor beam)
            return out + [_PLAIN["complete_jump"]] if mv and not held else out
        g = enc.grid
        w = g.width
        here = a.pos[1] * w + a.pos[0]

        # ---- move actions ----
        if mv:
            if not held and not flags.get("shifted"):
                table = square_decisions(g)["move"]
                reach = self._reach(enc, a, a.stats["speed"])
                out += [table[i] for i in reach if i != here]
                rammed = flags.get("rammed", ())
                for e in enemies:
                    if e.id not in rammed and self.ram_square(enc, a, e, reach) is not None:
                        out.append(target_decision("ram", e.id))
            if a.stats["damage_control"] and a.hp - s["sp"] < a.stats["hp"] and not flags.get("repaired"):
                out.append(_PLAIN["damage_control"])
            if not flags.get("sensors"):
                out.append(_PLAIN["operate_sensors"])
            if not held:
                out.append(_PLAIN["start_jump"])
        if b["shift"] > 0 and not flags.get("moved") and not held:
            taken = {u.pos for u in enc.units if not u.down}
            table = square_decisions(g)["shift"]
            x, y = a.pos
            for dx, dy in _DIRS:
                sq = (x + dx, y + dy)
                if g.inside(*sq) and g.passable(g.index(*sq)) and sq not in taken and \
                        (not (dx and dy) or g.passable(g.index(x + dx, y)) and g.passable(g.index(x, y + dy))):
                    out.append(table[g.index(*sq)])

        # ---- the attack action ----
        if atk:
            fires = len(out)
            for e in enemies:
                shots = [n for n in range(len(ws)) if self.in_range(enc, a, e, n)]
                out += [_opt_target("fire", n, e.id) for n in shots]
                if shots and any(u.side == a.side and u is not a and not u.down for u in enc.units):
                    out += [_opt_target("aid", 0, e.id), _opt_target("aid", 1, e.id)]
                if g.line_of_sight(a.pos, e.pos):
                    out.append(target_decision("feint", e.id))
                tb = a.stats["tractor"]
                if tb is not None and s["grappling"] is None and e.state["grappled_by"] is None and \
                        g.distance(a.pos, e.pos) <= tb["range"] and g.line_of_sight(a.pos, e.pos):
                    out.append(target_decision("tractor_beam", e.id))
            if len(out) > fires and not flags.get("defensive"):
                out.append(_PLAIN["fight_defensively"])
            out.append(_PLAIN["total_defense"])
            if held:
                out.append(_PLAIN["escape"])

        # ---- full-round actions ----
        if self.economy.can_pay(b, FULL) and not held:
            out.append(_PLAIN["jump"])
        if self.economy.can_pay(b, FULL) and not held and not flags.get("shifted"):  # no shift with these
            table = square_decisions(g)["surge"]
            out += [table[sq[1] * w + sq[0]] for sq in self.surge_squares(enc, a)]
            table = square_decisions(g)["withdraw"]
            out += [table[i] for i in self._reach(enc, a, 2 * a.stats["speed"]) if i != here]
        return out

    def why_illegal(self, enc: Encounter, a: Unit, d: Decision) -> str:
        spec = self.catalogue.get(d.action)
        if spec is None:
            return f"'{d.action}' is not an action of {self.name}"
        if a.down:
            return f"{a.name} is out of the fight"
        b, flags, s = enc.budget, enc.flags, a.state
        pending = flags.get("pending")
        if pending == FIRING and d.action not in ("fire_next", "cease_fire"):
            return f"{a.name} is in the middle of its attack action: fire another weapon or cease fire"
        if isinstance(pending, list) and d.action != "aid_ally":
            return "the aid succeeded: choose the ally who gains it (aid_ally)"
        if d.action == "fire_next" and pending != FIRING:
            return "firing another weapon only follows a shot of this attack action"
        if s["jumping"] and d.action != "complete_jump":
            return f"{a.name} began a jump last turn: completing it comes first"
        if d.action in ("jump", "start_jump", "complete_jump") and s["grappled_by"] is not None:
            return f"{a.name} is held by a tractor beam: no jump"
        g = enc.grid
        if d.square is not None and not g.inside(*d.square):
            return f"{d.square} is not on the map"
        if d.target is not None and d.target < len(enc.units):
            t = enc.units[d.target]
            if spec.target == "enemy" and t.side == a.side:
                return f"{t.name} is not an enemy of {a.name}"
            if spec.target == "ally" and t.side != a.side:
                return f"{t.name} is not an ally of {a.name}"
            if d.action == "fire_next" and d.option in flags.get("fired", ()):
                return f"the {a.stats['weapons'][d.option]['name']} has fired in this attack action"
            if d.action in ("fire", "fire_next") and d.option is not None and d.option < len(a.stats["weapons"]):
                return f"{t.name} is beyond the {a.stats['weapons'][d.option]['name']}'s range or out of sight" \
                    if a.state["ammo"][d.option] != 0 else f"the {a.stats['weapons'][d.option]['name']} is empty"
        if spec.cost in ("move", "attack") and b.get(spec.cost, 0) <= 0:
            return f"{a.name} has no {spec.cost} action left this round"
        if spec.cost == FULL and not self.economy.can_pay(b, FULL):
            if s["limited"] and enc.round == 1:
                return f"in the surprise round {a.name} takes a single move or attack action: no full-round action"
            return "a full-round action needs the whole round (both move actions and the attack action unused)"
        if d.action == "shift" and s["limited"] and enc.round == 1:
            return f"in the surprise round {a.name} takes a single move or attack action: no 500-ft shift"
        if d.action == "shift" and flags.get("moved"):
            return f"{a.name} has moved this round: no 500-ft shift"
        if d.action in ("move", "ram") and flags.get("shifted"):
            return f"{a.name} took its 500-ft shift: it moves no farther this round"
        if s["grappled_by"] is not None and spec.cost in ("move", FULL, "shift"):
            return f"{a.name} is held by a tractor beam"
        if d.square is not None:
            return self._why_square(enc, a, d)
        t = self.target_of(enc, d)
        if t is not None and t.down and d.action != "aid_ally":
            return f"{t.name} is out of the fight"
        return self.action_reason(enc, a, d)

    # the reasons of actions' own conditions (`Ruleset.action_reason` calls `_why_<action>`)

    def _why_fire(self, enc, a, d):
        ws = a.stats["weapons"]
        if d.option is None or not 0 <= d.option < len(ws):
            have = ", ".join(f"{i} {w['name']}" for i, w in enumerate(ws)) or "none"
            return f"{a.name} has no weapon {d.option} (its weapons: {have})"
        return None

    _why_fire_next = _why_fire

    def _why_cease_fire(self, enc, a, d):
        return f"{a.name} is not firing: ceasing fire ends an attack action's shots"

    def _why_aid(self, enc, a, d):
        t = self.target_of(enc, d)
        if d.option not in (0, 1):
            return "aid another gives an ally +2 on attacks (0) or to Defense (1) against the target"
        if not any(u.side == a.side and u is not a and not u.down for u in enc.units):
            return f"{a.name} has no ally left to aid"
        return f"aid another needs one of {a.name}'s weapons able to fire at {t.name}" if t is not None else None

    def _why_aid_ally(self, enc, a, d):
        t = self.target_of(enc, d)
        if not isinstance(enc.flags.get("pending"), list):
            return "choosing the ally who gains the bonus follows a successful aid another"
        if t is a:
            return f"{a.name} aids another ship, not itself"
        return f"{t.name} is out of the fight" if t is not None and t.down else None

    def _why_feint(self, enc, a, d):
        t = self.target_of(enc, d)
        return f"{a.name} cannot see {t.name}" if t is not None else None

    def _why_tractor_beam(self, enc, a, d):
        t, tb, s = self.target_of(enc, d), a.stats["tractor"], a.state
        if tb is None:
            return f"{a.name} has no tractor beam"
        if s["grappling"] is not None:
            return f"{a.name}'s tractor beam already holds {enc.units[s['grappling']].name}"
        if t is None:
            return None
        if t.state["grappled_by"] is not None:
            return f"{t.name} is held by another tractor beam"
        return f"{t.name} is beyond the tractor beam's {tb['range']} squares or out of sight"

    def _why_escape(self, enc, a, d):
        return f"{a.name} is not held by a tractor beam"

    def _why_ram(self, enc, a, d):
        t = self.target_of(enc, d)
        if t is None:
            return None
        if t.id in enc.flags.get("rammed", ()):
            return f"{a.name} has rammed {t.name} this round (once a target a round)"
        return (f"{a.name} cannot reach a square next to {t.name} within its tactical speed of "
                f"{a.stats['speed']} squares")

    def _why_damage_control(self, enc, a, d):
        if not a.stats["damage_control"]:
            return f"{a.name} has no damage control system"
        if enc.flags.get("repaired"):
            return f"{a.name} has made its damage control this round"
        return f"{a.name}'s hull is undamaged (damage control repairs hull, not shields)"

    def _why_operate_sensors(self, enc, a, d):
        return f"{a.name} has operated its sensors this round"

    def _why_complete_jump(self, enc, a, d):
        return f"{a.name} has begun no jump (begin jump first)"

    def _why_fight_defensively(self, enc, a, d):
        if enc.flags.get("defensive"):
            return f"{a.name} is fighting defensively already"
        return f"{a.name} has nothing to attack: fighting defensively goes with an attack"

    def _why_square(self, enc: Encounter, a: Unit, d: Decision) -> str:
        """Why a move, shift, withdrawal or surge cannot end on its square (the other checks passed)."""
        sq, g, speed = d.square, enc.grid, a.stats["speed"]
        occ = enc.occupant(sq)
        if occ is not None and occ is not a:
            return f"{occ.name} is at {sq}"
        if sq == a.pos:
            return f"{a.name} is already at {sq}"
        i = g.index(*sq)
        if not g.passable(i):
            return f"{sq} is {g.kind(i).replace('_', ' ')}, not a square a ship can enter"
        if d.action == "shift":
            return (f"a 500-ft shift moves {a.name} to an open square next to {a.pos} (not round a corner); {sq} is "
                    f"{g.distance(a.pos, sq)} squares away")
        if d.action == "surge":
            return (f"a surge flies straight along one of the eight directions from {a.pos}, up to {4 * speed} "
                    f"squares, and stops at the first wall or ship: {sq} is not on such a line")
        far = 2 * speed if d.action == "withdraw" else speed
        return (f"{sq} is not reachable within {far} squares from {a.pos} ({'twice ' if far > speed else ''}"
                f"{a.name}'s tactical speed of {speed}; walls and enemy ships block the way)")

    # ---- resolution -----------------------------------------------------------------------------------------------
    def apply(self, enc: Encounter, a: Unit, d: Decision, dice: Dice, react: React | None = None) -> list[Event]:
        spec = self.catalogue[d.action]
        self.economy.pay(enc.budget, spec.cost)
        if a.state["limited"] and enc.round == 1 and spec.cost in ("move", "attack"):
            enc.budget["move"] = enc.budget["attack"] = 0
        enc.version += 1
        return self._resolvers[d.action](enc, a, d, dice, react)

    # ---- point defense --------------------------------------------------------------------------------------------
    def can_pd(self, e: Unit) -> bool:
        return not e.down and e.stats["point_defense"] is not None and e.state["reaction"]

    def threat_reach(self, unit: Unit) -> int:
        return 1 if not unit.down and unit.stats["point_defense"] is not None else 0

    def legal_reactions(self, enc: Encounter, unit: Unit, trigger) -> list[Decision]:
        t = enc.units[trigger.provoker]
        if t.down or unit.side == t.side or not self.can_pd(unit):
            return []
        if not C.adjacent(unit.pos, tuple(trigger.data.get("square", t.pos))):
            return []
        return [pd_decision(t.id), DECLINE]

    def provoke(self, enc: Encounter, t: Unit, why: str, dice: Dice, react: React | None,
                watchers: list[Unit] | None = None) -> list[Event]:
        """Offer point-defense attacks of opportunity on t to the enemies next to it (or `watchers`)."""
        ev: list[Event] = []
        trigger = Trigger("point_defense", t.id, why, {"square": t.pos})
        for e in watchers if watchers is not None else [u for u in enc.units if u.side != t.side and not u.down]:
            if t.down:
                break
            choice = ask_reaction(self, enc, e, trigger, react)
            if choice is None:
                continue
            e.state["reaction"] = False
            pd = e.stats["point_defense"]
            ev.append(new_event("aoo", e.id, t.id, {"why": why}))
            ev += self._shot(enc, e, t, {"name": pd["name"], "attack": pd["attack"], "damage": pd["damage"],
                                         "multiplier": 1, "linked": 1, "critical": 20, "range": 1, "kind": "beam"},
                             dice, "point defense")
        return ev

    def walk(self, enc: Encounter, a: Unit, path: list[tuple[int, int]], dice: Dice, react: React | None, how: str,
             safe_first: bool = False) -> list[Event]:
        """Move along path: leaving a square next to an enemy with point defense provokes its attack (once a move); a
        ship that is destroyed stops. A grappler that moves lets go."""
        start = a.pos
        ev: list[Event] = []
        struck: set[int] = set()
        for k, sq in enumerate(path):
            if not (safe_first and k == 0):
                watchers = [e for e in enc.units if e.side != a.side and e.id not in struck and self.can_pd(e)
                            and C.adjacent(e.pos, a.pos)]
                if watchers:
                    struck.update(e.id for e in watchers)
                    ev += self.provoke(enc, a, "leaving a square its point defense covers", dice, react, watchers)
                    if a.down:
                        break
            a.pos = sq
        if a.pos != start:
            enc.flags["moved"] = True
            ev += C.release(enc, a, "moved away")
        return [new_event("move", a.id, None, {"start": start, "end": a.pos, "squares": len(path), "how": how}), *ev]

    def _path(self, enc: Encounter, a: Unit, goal: tuple[int, int], squares: int) -> list[tuple[int, int]]:
        g = enc.grid
        w = g.width
        foes, _ = self._blockers(enc, a)
        danger = {}
        for e in enc.units:
            if e.side != a.side and self.can_pd(e):
                for dx, dy in _DIRS + ((0, 0),):
                    x, y = e.pos[0] + dx, e.pos[1] + dy
                    if g.inside(x, y):
                        danger[y * w + x] = 1
        return g.path(a.pos, goal, squares, foes, danger) or []

    # ---- attacks ----------------------------------------------------------------------------------------------------
    def _shot(self, enc: Encounter, a: Unit, t: Unit, w: dict, dice: Dice, why: str) -> list[Event]:
        """One attack roll of weapon w on t: a natural 20 always hits and a natural 1 misses; a threat (the weapon's
        critical range) that a second roll confirms doubles the damage dice. Damage: the dice (one more per extra
        fire-linked gun) times the weapon's multiplier, less damage reduction, on the shields first."""
        bonus, notes = C.attack_bonus(enc, a, t, w) if why != "point defense" else (w["attack"], [])
        face = dice.d20(f"{a.name}'s {w['name']} at {t.name}")
        total = face + bonus
        dfn = C.defense(t, a)
        hit = face == 20 or face != 1 and total >= dfn
        crit = False
        if hit and face >= w["critical"]:
            crit = dice.d20(f"{a.name}'s {w['name']}: confirm the critical hit") + bonus >= dfn
        t.state["feinted"] = [f for f in t.state["feinted"] if f[0] != a.id]
        ev: list[Event] = [new_event("attack", a.id, t.id, {"weapon": w["name"], "face": face, "bonus": bonus,
                                                           "total": total, "defense": dfn, "hit": hit, "crit": crit,
                                                           "why": why, "notes": notes})]
        dice.show(ev)  # the result, before a person at the table is asked for the damage
        if not hit:
            return ev
        expr = C.damage_expr(w)
        rolled, faces = dice.roll(expr, f"{a.name}'s {w['name']} damage")
        if crit:
            more, f2 = dice.roll(expr, f"{a.name}'s {w['name']} damage (critical)")
            rolled += more
            faces = list(faces) + list(f2)
        amount = max(0, rolled) * w["multiplier"]
        ev.append(new_event("damage_roll", a.id, t.id, {"expr": str(expr), "faces": list(faces), "crit": crit,
                                                        "multiplier": w["multiplier"]}))
        return ev + C.deal_damage(enc, a.id, t, amount, w["name"])

    def _fire(self, enc: Encounter, a: Unit, d: Decision, dice: Dice) -> list[Event]:
        n = d.option
        t = enc.units[d.target]
        w = a.stats["weapons"][n]
        if a.state["ammo"][n] > 0:
            a.state["ammo"][n] -= 1
        flags = enc.flags
        flags.setdefault("fired", []).append(n)
        flags["pending"] = FIRING
        if flags.get("defensive"):  # fighting defensively pays off once the ship attacks
            a.state["dodge"] = max(a.state["dodge"], 2)
        ev = self._shot(enc, a, t, w, dice, "shot")
        if not self._more_shots(enc, a):
            flags.pop("pending", None)
        return ev

    def _more_shots(self, enc: Encounter, a: Unit) -> bool:
        fired = enc.flags.get("fired", ())
        return any(n not in fired and self.in_range(enc, a, e, n) for e in enc.units
                   if not e.down and e.side != a.side for n in range(len(a.stats["weapons"])))

    def _r_fire(self, enc, a, d, dice, react):
        return self._fire(enc, a, d, dice)

    _r_fire_next = _r_fire

    def _r_cease_fire(self, enc, a, d, dice, react):
        enc.flags.pop("pending", None)
        return [new_event("cease_fire", a.id, None, {})]

    def _r_fight_defensively(self, enc, a, d, dice, react):
        enc.flags["defensive"] = True
        return [new_event("fight_defensively", a.id, None, {})]

    def _r_total_defense(self, enc, a, d, dice, react):
        a.state["dodge"] = max(a.state["dodge"], 4)
        return [new_event("total_defense", a.id, None, {})]

    def _r_aid(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        best = max(C.attack_bonus(enc, a, t, a.stats["weapons"][n])[0] for n in range(len(a.stats["weapons"]))
                   if self.in_range(enc, a, t, n))
        face = dice.d20(f"{a.name}'s aid against {t.name}")
        ok = face != 1 and (face == 20 or face + best >= 10)
        ev = [new_event("aid", a.id, t.id, {"face": face, "total": face + best, "ok": ok,
                                            "kind": "attack" if d.option == 0 else "defense"})]
        if ok:
            enc.flags["pending"] = [t.id, "attack" if d.option == 0 else "defense"]
        return ev

    def _r_aid_ally(self, enc, a, d, dice, react):
        foe, kind = enc.flags.pop("pending")
        ally = enc.units[d.target]
        ally.state["aid"].append([foe, kind, enc.round])
        return [new_event("aided", a.id, ally.id, {"foe": foe, "kind": kind})]

    def _r_feint(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        mine = dice.d20(f"{a.name}'s Bluff (feint)") + a.stats["bluff"]
        theirs = dice.d20(f"{t.name}'s Sense Motive") + t.stats["sense_motive"]
        ok = mine > theirs
        if ok:
            t.state["feinted"].append([a.id, enc.round])
        return [new_event("feint", a.id, t.id, {"mine": mine, "theirs": theirs, "ok": ok})]

    def _r_tractor_beam(self, enc, a, d, dice, react):
        t = enc.units[d.target]
        tb = a.stats["tractor"]
        face = dice.d20(f"{a.name}'s {tb['name']} at {t.name}")
        dfn = C.defense(t, a)
        ok = face == 20 or face != 1 and face + tb["attack"] >= dfn
        ev = [new_event("attack", a.id, t.id, {"weapon": tb["name"], "face": face, "bonus": tb["attack"],
                                               "total": face + tb["attack"], "defense": dfn, "hit": ok,
                                               "crit": False, "why": "tractor beam", "notes": []})]
        if ok:
            a.state["grappling"] = t.id
            t.state["grappled_by"] = a.id
            ev.append(new_event("grappled", a.id, t.id, {}))
        return ev

    def _r_escape(self, enc, a, d, dice, react):
        g = enc.units[a.state["grappled_by"]]
        mine = dice.d20(f"{a.name}'s Pilot check (escape)") + a.stats["pilot"]
        theirs = dice.d20(f"{g.name}'s tractor beam (hold)") + g.stats["tractor"]["attack"]
        ok = mine > theirs
        ev = [new_event("escape", a.id, g.id, {"mine": mine, "theirs": theirs, "ok": ok})]
        return ev + (C.release(enc, g, f"{a.name} broke free") if ok else [])

    # ---- move actions -------------------------------------------------------------------------------------------------
    def _r_move(self, enc, a, d, dice, react):
        return self.walk(enc, a, self._path(enc, a, d.square, a.stats["speed"]), dice, react, "moves")

    def _r_shift(self, enc, a, d, dice, react):
        start = a.pos
        a.pos = d.square
        enc.flags["shifted"] = True
        return [new_event("move", a.id, None, {"start": start, "end": a.pos, "squares": 1,
                                               "how": "makes a 500-ft shift"}), *C.release(enc, a, "moved away")]

    def _r_ram(self, enc, a, d, dice, react):
        """Close with the target, its point defense first, then the Pilot check against 5 + its Defense; on a success
        both take the smaller ship's collision damage, less damage reduction."""
        t = enc.units[d.target]
        enc.flags.setdefault("rammed", []).append(t.id)
        ev: list[Event] = []
        sq = self.ram_square(enc, a, t)
        if sq != a.pos:
            ev += self.walk(enc, a, self._path(enc, a, sq, a.stats["speed"]), dice, react, "closes to ram")
        if a.down or not C.adjacent(a.pos, t.pos):
            return ev
        if self.can_pd(t):
            ev += self.provoke(enc, a, "ramming a ship with point defense", dice, react, [t])
            if a.down:
                return ev
        total = dice.d20(f"{a.name}'s Pilot check (ram)") + a.stats["pilot"]
        dc = 5 + C.defense(t, a)
        ok = total >= dc
        ev.append(new_event("ram", a.id, t.id, {"total": total, "dc": dc, "ok": ok}))
        if ok:
            smaller = min((a, t), key=lambda u: -S.SIZES[u.stats["size"]])
            rolled, _ = dice.roll(C.dice(S.COLLISION[smaller.stats["size"]]), "collision damage")
            ev += C.deal_damage(enc, a.id, t, rolled, "collision")
            ev += C.deal_damage(enc, t.id, a, rolled, "collision")
        return ev

    def _r_damage_control(self, enc, a, d, dice, react):
        enc.flags["repaired"] = True  # one repair a round
        got, _ = dice.roll(C.dice(a.stats["damage_control"]), f"{a.name}'s damage control")
        hull = a.hp - a.state["sp"]
        fixed = min(got, a.stats["hp"] - hull)
        a.hp += fixed
        return [new_event("damage_control", a.id, a.id, {"amount": fixed})]

    def _r_operate_sensors(self, enc, a, d, dice, react):
        enc.flags["sensors"] = True
        return [new_event("sensors", a.id, None, {})]

    def _r_start_jump(self, enc, a, d, dice, react):
        a.state["jumping"] = True
        enc.flags["jump_started"] = True
        return [new_event("jump_started", a.id, None, {})]

    def _leave(self, enc: Encounter, a: Unit, dice: Dice, react: React | None) -> list[Event]:
        """Jump to cruising speed: point defense beside the ship fires first; a ship still flying has left the fight."""
        watchers = [e for e in enc.units if e.side != a.side and self.can_pd(e) and C.adjacent(e.pos, a.pos)]
        ev = self.provoke(enc, a, "jumping to cruising speed", dice, react, watchers) if watchers else []
        if a.down:
            return ev
        a.state["jumping"] = False
        a.state["fled"] = True
        a.down = True
        return ev + C.release_all(enc, a) + [new_event("escaped", a.id, None, {})]

    def _r_complete_jump(self, enc, a, d, dice, react):
        return self._leave(enc, a, dice, react)

    _r_jump = _r_complete_jump

    def _r_surge(self, enc, a, d, dice, react):
        dx = (d.square[0] > a.pos[0]) - (d.square[0] < a.pos[0])
        dy = (d.square[1] > a.pos[1]) - (d.square[1] < a.pos[1])
        steps = max(abs(d.square[0] - a.pos[0]), abs(d.square[1] - a.pos[1]))
        path = [(a.pos[0] + dx * k, a.pos[1] + dy * k) for k in range(1, steps + 1)]
        a.state["surging"] = True
        return self.walk(enc, a, path, dice, react, "surges forward")

    def _r_withdraw(self, enc, a, d, dice, react):
        path = self._path(enc, a, d.square, 2 * a.stats["speed"])
        return self.walk(enc, a, path, dice, react, "withdraws", safe_first=True)

    # ---- estimates, observation and narration ---------------------------------------------------------------------------
    def estimate(self, enc: Encounter, actor: Unit, decision: Decision) -> Estimate:
        return E.estimate(self, enc, actor, decision)

    def threat_estimate(self, enc: Encounter, attacker: Unit, target: Unit) -> tuple[float, float]:
        return E.threat_estimate(self, enc, attacker, target)

    def unit_features(self, enc: Encounter, unit: Unit) -> list[float]:
        return E.unit_features(self, enc, unit)

    def tactics(self):
        from .tactics import StarshipTactics
        return StarshipTactics(self)

    def narrate(self, event: Event, enc: Encounter) -> str | None:
        return N.narrate(self, event, enc)

    def attack_words(self, event: Event, enc: Encounter) -> tuple[str, str] | None:
        return N.attack_verb(event, enc, self), "Defense"

    def option_label(self, decision: Decision, enc: Encounter) -> str:
        if decision.action == "aid":
            return "attack bonus" if decision.option == 0 else "defense bonus"
        u = enc.actor
        if decision.option is not None and u is not None and decision.option < len(u.stats["weapons"]):
            return u.stats["weapons"][decision.option]["name"]
        return f"option {decision.option}"


_OPT_TARGET: dict = {}


def _opt_target(action: str, option: int, target: int) -> Decision:
    """An interned decision naming a weapon (or a choice) and a target."""
    key = (action, option, target)
    got = _OPT_TARGET.get(key)
    if got is None:
        got = _OPT_TARGET[key] = Decision(action, target, None, option)
    return got
