"""Rise ("5.8 Universal Abilities"): rounds of two simultaneous phases, legality and resolution of every ability.

A round is a movement phase, then an action phase. In each, every creature commits its choice without seeing the
others' (`Ruleset.commit`: the core keeps it hidden in `enc.pending`), and the phase resolves when all have chosen
(`resolve_simultaneous`): choices are checked against the state the phase began with, so what one creature does in a
phase never stops another's choice in it. The action phase resolves in three steps: Swift abilities (total defense,
recover, maintain grapple, ready reaction) take effect first; then strikes and the other acts that stay in place, on
the positions of the phase's start; then the acts that move (charge, sprint, overrun, shove, throw) in initiative
order, each followed by any readied strike it sets off. Damage, vital wounds and conditions land when the phase ends.

`legal_actions` is the one source of legality; resolvers are `_r_<key>`. Arithmetic lives in `combat.py`, stat blocks
in `stats.py`, estimates in `estimates.py`.
"""
from __future__ import annotations

from pathlib import Path

from engine.core.decision import END, Decision, square_decisions, target_decision
from engine.core.dice import Dice
from engine.core.economy import Economy
from engine.core.events import Event, new_event
from engine.core.grid import PASSABLE, metric_distance
from engine.core.reaction import DECLINE, React, Trigger, ask_reaction
from engine.core.ruleset import Estimate, Ruleset, load_catalogues
from engine.core.state import Encounter
from engine.core.units import Unit

from . import combat as C
from . import estimates as E
from . import narration as N
from . import stats as S

_HERE = Path(__file__).parent
_CATALOGUE, _REACTIONS = load_catalogues(_HERE / "actions.yaml")
_DIRS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
_PLAIN = {k: Decision(k) for k in ("stand", "escape", "release", "total_defense", "recover", "ready", "maintain")}
STRIKES = ("strike", "shoot", "hurl")
SWIFT = ("total_defense", "recover", "maintain", "ready")
MOVING = ("charge", "sprint_action", "overrun", "shove", "throw", "shove_move")
FATIGUE = {"sprint": 1, "overrun_move": 1, "recover": 2}
_OPT: dict = {}


def _near_steps(d: int, c: int, reach: int, lo: int, hi: int) -> tuple[int, int]:
    """[lo, hi] narrowed to the steps k of a line moving d (-1, 0 or 1) a step along an axis whose coordinate is then
    within reach of c (an offset from the start); empty (lo > hi) when there is none."""
    if d == 0:
        return (lo, hi) if -reach <= c <= reach else (1, 0)
    c *= d
    return max(lo, c - reach), min(hi, c + reach)


_NEAR_LINES: dict = {}


def _near_lines(u: int, v: int, reach: int, speed: int) -> tuple[tuple[int, int, int, int], ...]:
    """(dx, dy, lo, hi) of each line of `_DIRS`, in order, whose steps lo..hi (from 1 to `speed`) bring a square within
    `reach` of the offset (u, v) in both x and y (`_near_steps` per axis); remembered per offset, reach and speed."""
    key = (u, v, reach, speed)
    got = _NEAR_LINES.get(key)
    if got is None:
        out = []
        for dx, dy in _DIRS:
            lo, hi = _near_steps(dy, v, reach, *_near_steps(dx, u, reach, 1, speed))
            if lo <= hi:
                out.append((dx, dy, lo, hi))
        if len(_NEAR_LINES) > 100_000:
            _NEAR_LINES.clear()
        got = _NEAR_LINES[key] = tuple(out)
    return got


def opt_target(action: str, option: int, target: int) -> Decision:
    """An interned decision naming a weapon mode and a target."""
    key = (action, option, target)
    got = _OPT.get(key)
    if got is None:
        got = _OPT[key] = Decision(action, target, None, option)
    return got


def step_towards(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return (b[0] > a[0]) - (b[0] < a[0]), (b[1] > a[1]) - (b[1] < a[1])


class Phase:
    """What a phase's resolution gathers before it lands: damage, conditions, readied strikes."""

    def __init__(self):
        self.damage: list[tuple[int, int, int, str, bool]] = []   # (source, target, amount, why, subdual)
        self.later: list[tuple] = []                              # conditions: (kind, unit id, ...)
        self.ready: list[int] = []                                # creatures with a readied strike not yet used
        self.paths: dict[int, list[tuple[int, int]]] = {}         # movement paths, chosen on the phase-start squares


class RiseRuleset(Ruleset):
    id = "rise"
    name = "Rise"
    env_name = "Rise"
    rules_file = "004_0e9e4fd78c5aafd6.txt"
    metric = "alternating"
    attack_defense = "Armor"
    sides = ("pcs", "npcs")
    hp_scale = 40.0
    phases = ("movement", "action")
    simultaneous = frozenset({"movement", "action"})
    economy = Economy(slots={"movement": 1, "standard": 1, "grapple": 1})
    catalogue = _CATALOGUE
    reactions = _REACTIONS
    words_file = _HERE / "words.yaml"
    n_unit_features = E.N_FEATURES

    def __init__(self):
        self._resolvers = {key: getattr(self, f"_r_{key}") for key in self.catalogue
                           if key not in ("end_turn", "split_target") + STRIKES}

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
        """The damage already taken comes off the damage resistance first."""
        lost = unit.max_hp - hp
        unit.state["dr"] = max(0, unit.state["dr"] - lost)
        unit.hp = hp

    def unit_summary(self, u: Unit) -> dict:
        s = u.state
        out = {"hp": u.hp - s["dr"], "dr": s["dr"], "fatigue": s["fatigue"], "vital": s["vital"]}
        if s["prone"]:
            out["prone"] = True
        if s["grapple"]:
            out["grappling"] = list(s["grapple"])
        return out

    # ---- turns ----------------------------------------------------------------------------------------------------
    def new_budget(self, enc: Encounter, unit: Unit) -> dict[str, int]:
        if enc.phase_index == 0:
            return {"movement": 1, "standard": 0, "grapple": 0}
        return {"movement": 0, "standard": 1, "grapple": int(bool(unit.state["grapple"]))}

    def budget_after(self, enc: Encounter, unit: Unit, decision: Decision) -> dict[str, int]:
        """The movement phase is followed by the action phase of the same round: its standard action is still to
        come."""
        if enc.phase_index == 0:
            return {"movement": 0, "standard": 1, "grapple": 0}
        return super().budget_after(enc, unit, decision)

    def can_act(self, enc: Encounter, unit: Unit) -> bool:
        return not unit.down and not (unit.state["surprised"] and enc.round == 1)

    def start_round(self, enc: Encounter, dice: Dice) -> list[Event]:
        """This round's total defense and maintain grapple results lapse; brief effects of two rounds ago end."""
        for u in enc.units:
            s = u.state
            s["total_defense"] = False
            s["maintain"] = -1
            if s["brief"]:
                s["brief"] = [b for b in s["brief"] if b[2] >= enc.round]
        return []

    # ---- where a creature can go and strike -------------------------------------------------------------------------
    @staticmethod
    def speed(u: Unit) -> int:
        """Speed in squares (half while prone)."""
        sq = u.stats["speed"] // 5
        return max(1, sq // 2) if u.state["prone"] else sq

    def _blockers(self, enc: Encounter, a: Unit) -> tuple[list[int], list[int]]:
        w = enc.grid.width
        foes = [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side != a.side]
        friends = [u.pos[1] * w + u.pos[0] for u in enc.units if not u.down and u.side == a.side and u is not a]
        return foes, friends

    def _reach(self, enc: Encounter, a: Unit, squares: int) -> dict[int, int]:
        foes, friends = self._blockers(enc, a)
        return enc.grid.reachable(a.pos, squares, foes, friends)

    def line_squares(self, enc: Encounter, a: Unit, through_enemies: bool) -> list[tuple[int, int]]:
        """Ends of straight lines (the eight directions) up to the creature's speed, stopping at walls and wall
        corners; an overrun passes through enemies (`through_enemies`: only lines that cross one), never ends in an
        occupied square."""
        g = enc.grid
        occupied = {u.pos: u for u in enc.units if not u.down and u is not a}
        out = []
        for dx, dy in _DIRS:
            x, y = a.pos
            crossed = False
            for _ in range(self.speed(a)):
                nx, ny = x + dx, y + dy
                if not g.inside(nx, ny) or not g.passable(g.index(nx, ny)):
                    break
                if dx and dy and (not g.passable(g.index(nx, y)) or not g.passable(g.index(x, ny))):
                    break
                x, y = nx, ny
                other = occupied.get((x, y))
                if other is not None:
                    if other.side == a.side:
                        continue
                    if not through_enemies:
                        break
                    crossed = True
                    continue
                if crossed or not through_enemies:
                    out.append((x, y))
        return out

    def charge_square(self, enc: Encounter, a: Unit, t: Unit, reach: int = 1) -> tuple[int, int] | None:
        """The nearest square within the speed along a straight, clear line from which t is within reach (at least
        one square away from the start)."""
        g = enc.grid
        ax, ay = a.pos
        tx, ty = t.pos
        speed = self.speed(a)
        u, v = tx - ax, ty - ay
        # what `_near_steps` below finds for each line, for all eight at once (most calls end here): t beyond the speed
        # and reach, or near none of the lines (along x, along y, along either diagonal)
        if max(abs(u), abs(v)) > speed + reach or (abs(u) > reach and abs(v) > reach and abs(u - v) > 2 * reach
                                                    and abs(u + v) > 2 * reach):
            return None
        occupied = {w.pos for w in enc.units if not w.down and w is not a}
        best = None
        codes, width, height, metric = g.kind_codes(), g.width, g.height, g.metric
        ti = ty * width + tx
        # the lines with steps k whose square is within `reach` of t in both x and y (the map's distance is never less
        # than that): a line with none never comes near enough, and its walk ends after the last
        for dx, dy, lo, hi in _near_lines(u, v, reach, speed):
            x, y = ax, ay
            for k in range(1, hi + 1):
                nx, ny = x + dx, y + dy
                if not (0 <= nx < width and 0 <= ny < height) or not PASSABLE[codes[ny * width + nx]] \
                        or (nx, ny) in occupied:
                    break
                if dx and dy and (not PASSABLE[codes[y * width + nx]] or not PASSABLE[codes[ny * width + x]]):
                    break
                x, y = nx, ny
                # within reach (`Grid.distance`) and a line of effect to t (`Grid.line_of_effect`)
                if k >= lo and metric_distance(metric, x - tx, y - ty) <= reach and g.sight(y * width + x, ti)[1]:
                    if best is None or k < best[0]:
                        best = (k, (x, y))
                    break
        return None if best is None else best[1]

    def can_strike(self, enc: Encounter, a: Unit, t: Unit, kind: str, mode: int, pos=None) -> bool:
        """Whether a can make this strike on t from pos (its own square by default)."""
        w = C.weapon_for(a, mode)
        if w is None:
            return False
        pos = a.pos if pos is None else pos
        g = enc.grid
        if kind == "strike":
            return C.can_melee(w) and g.distance(pos, t.pos) <= C.melee_reach(w) and g.line_of_effect(pos, t.pos)
        r = C.ranges(w, kind)
        return r is not None and g.distance(pos, t.pos) <= r[1] and g.line_of_effect(pos, t.pos)

    def modes(self, a: Unit) -> tuple[int, ...]:
        if C.can_dual(a):
            return (C.MAIN, C.OFF, C.DUAL, C.SPLIT)
        return (C.MAIN, C.OFF) if len(a.stats["weapons"]) > 1 else (C.MAIN,)

    # ---- legality -------------------------------------------------------------------------------------------------
    def legal_actions(self, enc: Encounter, a: Unit) -> list[Decision]:
        """Every decision the rules allow a now, END first."""
        out = [END]
        if a.down:
            return out
        s, b, flags = a.state, enc.budget, enc.flags
        enemies = [u for u in enc.units if not u.down and u.side != a.side]
        split = flags.get("split")
        if split is not None:
            kind, first = split
            return out + [target_decision("split_target", e.id) for e in enemies
                          if e.id != first and self.can_strike(enc, a, e, kind, C.SPLIT)]
        g = enc.grid
        w = g.width
        here = a.pos[1] * w + a.pos[0]
        held = bool(s["grapple"])
        if b["movement"]:
            if held:
                out += [target_decision("shove_move", e.id) for e in enemies
                        if e.id in s["grapple"] and all(C.pushes(a, enc.units[i]) for i in s["grapple"])]
            else:
                table = square_decisions(g)
                moves, sprints = table["move"], table["sprint"]
                out += [moves[i] for i in self._reach(enc, a, self.speed(a)) if i != here]
                out += [sprints[i] for i in self._reach(enc, a, 2 * self.speed(a)) if i != here]
                if not s["prone"]:
                    overruns = table["overrun_move"]
                    out += [overruns[y * w + x] for x, y in self.line_squares(enc, a, True)]
            if s["prone"]:
                out.append(_PLAIN["stand"])
            return out
        if b["grapple"] and held and s["maintain"] < 0:
            out.append(_PLAIN["maintain"])
        if held and s["control"] and not flags.get("released"):
            out.append(_PLAIN["release"])
        if not b["standard"]:
            return out
        modes = self.modes(a)
        hand = C.free_hand(a)
        for e in enemies:
            for kind in STRIKES:
                for m in modes:
                    if self.can_strike(enc, a, e, kind, m):
                        out.append(opt_target(kind, m, e.id))
            if not held and not s["prone"] and not C.adjacent(a.pos, e.pos):
                ends: dict = {}  # the charge's square by the weapon's reach
                for m in modes[:3]:
                    wpn = C.weapon_for(a, m)
                    if wpn is not None and C.can_melee(wpn):
                        reach = C.melee_reach(wpn)
                        if reach not in ends:
                            ends[reach] = self.charge_square(enc, a, e, reach)
                        if ends[reach] is not None:
                            out.append(opt_target("charge", m, e.id))
            if C.adjacent(a.pos, e.pos):
                if hand:
                    out.append(target_decision("grapple", e.id))
                    out.append(target_decision("trip", e.id))
                if (not held and C.pushes(a, e)) or e.id in s["grapple"]:
                    out.append(target_decision("shove", e.id))
                if e.id in s["grapple"] and C.carries(a, e):
                    out.append(target_decision("throw", e.id))
        if held:
            out.append(_PLAIN["escape"])
        else:
            table = square_decisions(g)
            sprints = table["sprint_action"]
            out += [sprints[i] for i in self._reach(enc, a, 2 * self.speed(a)) if i != here]
            if not s["prone"]:
                overruns = table["overrun"]
                out += [overruns[y * w + x] for x, y in self.line_squares(enc, a, True)]
        out.append(_PLAIN["total_defense"])
        if not s["recovered"]:
            out.append(_PLAIN["recover"])
        if any(C.weapon_for(a, m) is not None and C.can_melee(C.weapon_for(a, m)) for m in modes[:2]):
            out.append(_PLAIN["ready"])
        return out

    def why_illegal(self, enc: Encounter, a: Unit, d: Decision) -> str:
        spec = self.catalogue.get(d.action)
        if spec is None:
            return f"'{d.action}' is not an action of {self.name}"
        if a.down:
            return f"{a.name} is out of the fight"
        phase = self.phases[enc.phase_index]
        b, s = enc.budget, a.state
        if enc.flags.get("split") is not None and d.action != "split_target":
            return "the split strike needs its second target first (split_target NAME), or end"
        if d.action == "split_target":
            return "a second target only follows a split strike, and must be another enemy the strike can reach"
        if spec.cost == "movement" and phase != "movement":
            return f"{spec.name} is taken in the movement phase; this is the action phase"
        if spec.cost in ("standard", "grapple") and phase != "action":
            return f"{spec.name} is taken in the action phase; this is the movement phase"
        if spec.cost in ("movement", "standard") and not b.get(spec.cost):
            return f"{a.name} has already committed its {spec.cost.replace('standard', 'standard action')} this phase"
        if d.action in ("move", "sprint", "overrun_move", "sprint_action", "overrun", "charge") and s["grapple"]:
            return f"{a.name} is grappling: it cannot move without shoving every creature grappling it"
        if d.action in ("grapple", "trip") and not C.free_hand(a):
            return f"{spec.name} needs a free hand; {a.name} has none"
        if d.action == "recover" and s["recovered"]:
            return f"{a.name} has recovered already (once per short rest)"
        if d.action in ("maintain", "escape", "release", "throw", "shove_move") and not s["grapple"]:
            return f"{a.name} is not in a grapple"
        if d.square is not None and not enc.grid.inside(*d.square):
            return f"{d.square} is not on the map"
        if d.action == "stand" and not s["prone"]:
            return f"{a.name} is not prone"
        if d.square is not None and spec.target == "square":
            return self._why_not_square(enc, a, d, spec.name)
        if d.target is not None and d.target < len(enc.units):
            t = enc.units[d.target]
            if t.side == a.side:
                return f"{t.name} is not an enemy of {a.name}"
            if d.action in STRIKES or d.action == "charge":
                if C.weapon_for(a, d.option) is None:
                    return ("a dual strike needs two weapons in hand, Dexterity 2, no shield, no bow and no hand in a "
                            "grapple") if d.option >= C.DUAL else f"{a.name} holds no such weapon"
                if d.action == "charge":
                    return (f"no straight, clear line within {a.name}'s speed ends within reach of {t.name} "
                            "(and a charge needs at least one square of movement)")
                return f"{t.name} is out of reach or range of that weapon, or out of line of effect"
        return f"{spec.name} is not possible for {a.name} now"

    def _why_not_square(self, enc: Encounter, a: Unit, d: Decision, name: str) -> str:
        """Why a movement cannot end on d.square: the creature's own square, a wall, a creature there, not a
        straight line (overruns), or beyond how far it goes."""
        g, sq = enc.grid, tuple(d.square)
        if sq == a.pos:
            return f"{a.name} already stands on {sq}"
        if not g.passable(g.index(*sq)):
            return f"{sq} is a {g.kind(g.index(*sq)).replace('_', ' ')}: nothing can stand there"
        for u in enc.units:
            if not u.down and u.pos == sq:
                return f"{sq} is {u.name}'s square"
        speed = self.speed(a)
        if d.action in ("overrun", "overrun_move"):
            return (f"{name} goes in a straight line (one of the eight directions) up to {speed} squares, through at "
                    f"least one enemy and no wall, and ends on a free square; {sq} is not such a square")
        far = 2 * speed if d.action in ("sprint", "sprint_action") else speed
        return (f"{sq} is beyond {a.name}'s {name.split(' (')[0].lower()} of {far} squares ({5 * far} ft), walking round "
                "walls and enemies" + (" (half speed while prone)" if a.state["prone"] else ""))

    # ---- committing -------------------------------------------------------------------------------------------------
    def commit(self, enc: Encounter, actor: Unit, decision: Decision) -> list[Event]:
        """Record the choice hidden (the core's commit); a split strike waits for its second target."""
        ev = super().commit(enc, actor, decision)
        if decision.action in STRIKES and decision.option == C.SPLIT:
            enc.flags["split"] = (decision.action, decision.target)
        elif decision.action == "split_target":
            enc.flags["split"] = None
        elif decision.action == "release":
            enc.flags["released"] = True
        return ev

    def apply(self, enc: Encounter, actor: Unit, decision: Decision, dice: Dice, react: React | None = None
              ) -> list[Event]:
        """One decision resolved on its own, as a phase in which nobody else acts."""
        return self.resolve_simultaneous(enc, self.phases[enc.phase_index], {actor.id: [decision]}, dice, react)

    # ---- resolution -------------------------------------------------------------------------------------------------
    def resolve_simultaneous(self, enc: Encounter, phase: str, pending: dict[int, list[Decision]], dice: Dice,
                             react: React | None = None) -> list[Event]:
        acts: list[tuple[Unit, Decision, int | None]] = []
        rank = {uid: n for n, uid in enumerate(enc.order)}
        for uid in sorted(pending, key=lambda i: rank.get(i, i)):
            ds = pending[uid]
            for n, d in enumerate(ds):
                if d.action == "split_target":
                    continue
                second = None
                if d.action in STRIKES and d.option == C.SPLIT and n + 1 < len(ds) and \
                        ds[n + 1].action == "split_target":
                    second = ds[n + 1].target
                acts.append((enc.units[uid], d, second))
        ph = Phase()
        ev: list[Event] = []
        for a, d, _ in acts:   # every walk is planned on the squares the phase began with
            if d.action in ("move", "sprint", "sprint_action"):
                ph.paths[a.id] = self._path(enc, a, d.square, self.speed(a) * (1 if d.action == "move" else 2))
        if phase == "action":
            steps = (lambda d: d.action in SWIFT, lambda d: d.action not in SWIFT and d.action not in MOVING,
                     lambda d: d.action in MOVING)
        else:
            steps = (lambda d: True,)
        for belongs in steps:
            for a, d, second in acts:
                if belongs(d):
                    ev += self._act(enc, a, d, second, dice, react, ph)
        return ev + self._land(enc, ph, dice)

    def foresee(self, enc: Encounter, unit: Unit, decision: Decision) -> bool:
        """A total defense or a recover (Swift, no roll) takes effect before the phase's strikes land."""
        if decision.action not in ("total_defense", "recover"):
            return False
        self._resolvers[decision.action](enc, unit, decision, None, None, None)
        return True

    def _act(self, enc, a, d, second, dice, react, ph) -> list[Event]:
        ev = [new_event("action", a.id, d.target, {"action": d.action, "square": d.square, "option": d.option})]
        cost = FATIGUE.get(d.action)
        if cost:
            a.state["fatigue"] += cost
            ev.append(new_event("fatigue", a.id, None, {"levels": cost, "now": a.state["fatigue"]}))
        if d.action in STRIKES:
            return ev + self._strike(enc, a, d, second, dice, ph)
        ev += self._resolvers[d.action](enc, a, d, dice, react, ph)
        if d.action in MOVING:
            ev += self._readied(enc, a, dice, ph)
        return ev

    def _land(self, enc: Encounter, ph: Phase, dice: Dice) -> list[Event]:
        """The end of the phase: damage (resistance first, then hit points; vital wounds and their rolls), then the
        conditions the phase's acts inflicted."""
        ev: list[Event] = []
        for src, tid, amount, why, subdual in ph.damage:
            t = enc.units[tid]
            if t.down:
                continue
            got, wound = C.take_damage(enc, src, t, amount, why, subdual)
            ev += got
            if wound:
                ev += C.vital_wound(enc, dice, src, t, subdual)
        for item in ph.later:
            kind, uid = item[0], item[1]
            u = enc.units[uid]
            if kind == "brief":
                u.state["brief"].append([item[2], item[3], enc.round + 1])
                continue
            if u.down:
                continue
            if kind == "prone":
                u.state["prone"] = True
                ev.append(new_event("condition", None, uid, {"condition": "prone"}))
            elif kind == "grapple":
                t, control = enc.units[item[2]], item[3]
                if t.down:
                    continue
                if t.id not in u.state["grapple"]:
                    u.state["grapple"].append(t.id)
                    t.state["grapple"].append(u.id)
                    ev.append(new_event("grappled", uid, t.id, {"control": control}))
                if control:
                    for other in [u] + [enc.units[i] for i in u.state["grapple"]]:
                        other.state["control"] = other is u
                elif t.state["control"]:
                    t.state["control"] = False
                    ev.append(new_event("control_lost", uid, t.id, {}))
            elif kind == "free":
                t = enc.units[item[2]]
                if t.id in u.state["grapple"]:
                    C.end_grapple(enc, u, t)
                    ev.append(new_event("grapple_ends", uid, t.id, {"why": item[3]}))
        return ev

    # ---- attacks ----------------------------------------------------------------------------------------------------
    def _roll(self, enc, a, t, bonus, dfn, w, why, dice, reactive=False) -> tuple[dict, list[Event]]:
        """An accuracy roll (exploding d10) against a defense, with desperate exertion after a miss when the creature
        can afford it without a fatigue penalty (its `tactics: {exertion: false}` turns it off; never on a reactive
        attack)."""
        total, faces = C.roll_accuracy(dice, f"{a.name}'s {why} against {t.name}")
        total += bonus
        res = C.outcome(total, dfn, w)
        data = {"why": why, "faces": faces, "bonus": bonus, "total": total, "defense": dfn, "result": res}
        ev: list[Event] = []
        s = a.state
        if res in ("miss", "glance") and not reactive and a.tactics.get("exertion", True) and \
                s["fatigue"] + 2 <= a.stats["fatigue_tolerance"]:
            s["fatigue"] += 2
            again, faces2 = C.roll_accuracy(dice, f"{a.name}'s desperate exertion")
            again += bonus + 2
            ev.append(new_event("exertion", a.id, t.id, {"total": again, "faces": faces2, "was": total,
                                                         "why": why}))
            if again > total:
                data.update(total=again, result=C.outcome(again, dfn, w), exerted=True)
        ev.append(new_event("attack", a.id, t.id, data))
        dice.show(ev)  # the result, before a person at the table is asked for the damage (or the next roll)
        return data, ev

    def _strike(self, enc, a, d, second, dice, ph, reactive=False) -> list[Event]:
        kind = d.action
        w = C.weapon_for(a, d.option)
        if w is None:  # a weapon gone since the phase began (thrown in this same phase cannot happen: one action)
            return []
        targets = [enc.units[d.target]] + ([enc.units[second]] if second is not None else [])
        ev: list[Event] = []
        for n, t in enumerate(targets):
            if kind != "strike" and C.ranges(w, kind) is None:
                break
            bonus, notes = C.accuracy(enc, a, t, w, kind)
            dfn = C.defense(enc, t, "armor")
            data, got = self._roll(enc, a, t, bonus, dfn, w, {"strike": "melee strike", "shoot": "projectile strike",
                                                              "hurl": "thrown strike"}[kind], dice, reactive)
            data["weapon"], data["notes"] = w["name"], notes
            ev += got
            ev += self._damage(enc, a, t, w, data["result"], dice, ph, half=d.option == C.SPLIT)
            if kind == "strike" and data["result"] in ("hit", "crit") and w["tags"].get("sweeping"):
                ev += self._sweep(enc, a, t, w, dice, ph)
        if kind == "hurl" and not w.get("unarmed"):   # the weapons leave the hand
            slots = (0, 1) if d.option >= C.DUAL else (d.option,)
            for n in slots:
                a.state["held"][n] = False
        for n in w["ammunition"]:
            slot = n if d.option >= C.DUAL else d.option
            a.state["held"][slot] = False
        return ev

    def _damage(self, enc, a, t, w, result, dice, ph, half=False) -> list[Event]:
        """Weapon damage of a strike's result: dice and power once; a critical hit rolls the dice twice; a glancing
        blow and a split strike deal half (rounded down). Lands at the end of the phase."""
        if result == "miss":
            return []
        total, faces = 0, []
        for expr in w["dice"]:
            got, f = dice.roll(C.dice(expr), f"{a.name}'s {w['name']} damage")
            total += got
            faces += list(f)
            if result == "crit":
                got, f = dice.roll(C.dice(expr), f"{a.name}'s {w['name']} damage (critical hit)")
                total += got
                faces += list(f)
        total += a.stats["power"]
        if result == "glance":
            total //= 2
        if half:
            total //= 2
        ph.damage.append((a.id, t.id, total, w["name"], bool(w["tags"].get("subdual"))))
        if w["tags"].get("resonating") and total > 0:
            ph.later.append(("brief", t.id, "armor", 2 * w["tags"]["resonating"]))
        return [new_event("damage_roll", a.id, t.id, {"faces": faces, "amount": total, "result": result,
                                                      "weapon": w["name"]})]

    def _sweep(self, enc, a, t, w, dice, ph) -> list[Event]:
        """Sweeping (N): a glancing blow on up to N other enemies next to the attacker [Rise]."""
        others = [u for u in enc.units if not u.down and u.side != a.side and u is not t and C.adjacent(a.pos, u.pos)]
        others.sort(key=lambda u: (u.hp, u.id))
        ev = []
        for u in others[:w["tags"]["sweeping"]]:
            ev.append(new_event("sweep", a.id, u.id, {}))
            ev += self._damage(enc, a, u, w, "glance", dice, ph)
        return ev

    def _brawl(self, enc, a, t, which, dice, why, flex=False) -> tuple[dict, list[Event]]:
        bonus = C.brawling(a)
        if flex and a.stats["flexibility"] is not None:
            bonus = max(bonus, a.stats["flexibility"] - C.fatigue_penalty(a) - C.vital_penalty(a))
        dfn = max(C.defense(enc, t, k) for k in which) if which else 0
        return self._roll(enc, a, t, bonus, dfn, None, why, dice)

    # ---- resolvers: the movement phase ------------------------------------------------------------------------------
    def _walk(self, enc: Encounter, a: Unit, path: list[tuple[int, int]], how: str) -> list[Event]:
        """Move along a path chosen at the phase's start: stop before a square an enemy now holds, and never end on
        an occupied square (back to the last free one)."""
        start = a.pos
        taken = {u.pos: u for u in enc.units if not u.down and u is not a}
        went = [start]
        for sq in path:
            other = taken.get(sq)
            if other is not None and other.side != a.side:
                break
            went.append(sq)
        while len(went) > 1 and went[-1] in taken:
            went.pop()
        a.pos = went[-1]
        return [new_event("move", a.id, None, {"start": start, "end": a.pos, "squares": len(went) - 1, "how": how,
                                               "planned": path[-1] if path else start})]

    def _path(self, enc: Encounter, a: Unit, goal, squares: int) -> list[tuple[int, int]]:
        foes, _ = self._blockers(enc, a)
        return enc.grid.path(a.pos, goal, squares, foes) or []

    def _r_move(self, enc, a, d, dice, react, ph):
        return self._walk(enc, a, ph.paths[a.id], "moves")

    def _r_sprint(self, enc, a, d, dice, react, ph):
        return self._walk(enc, a, ph.paths[a.id], "sprints")

    _r_sprint_action = _r_sprint

    def _r_stand(self, enc, a, d, dice, react, ph):
        a.state["prone"] = False
        return [new_event("stand", a.id, None, {})]

    def _r_overrun(self, enc, a, d, dice, react, ph):
        """A straight line through the enemies in the way: each may avoid (let the creature pass) or block, and a
        blocker must be beaten with a brawling attack vs. Fortitude or the overrun stops before it."""
        dx, dy = step_towards(a.pos, d.square)
        steps = max(abs(d.square[0] - a.pos[0]), abs(d.square[1] - a.pos[1]))
        start = a.pos
        went = [start]
        ev: list[Event] = []
        g = enc.grid
        for k in range(1, steps + 1):
            sq = (start[0] + dx * k, start[1] + dy * k)
            if not g.passable(g.index(*sq)):
                break
            here = next((u for u in enc.units if not u.down and u is not a and u.pos == sq), None)
            if here is not None and here.side != a.side:
                choice = ask_reaction(self, enc, here, Trigger("overrun", a.id, f"{a.name}'s overrun"), react)
                if choice is not None:
                    data, got = self._brawl(enc, a, here, ("fortitude",), dice, "overrun")
                    ev += got
                    if data["result"] not in ("hit", "crit"):
                        break
                else:
                    ev.append(new_event("avoid", here.id, a.id, {}))
            went.append(sq)
        taken = {u.pos for u in enc.units if not u.down and u is not a}
        while len(went) > 1 and went[-1] in taken:
            went.pop()
        a.pos = went[-1]
        return [new_event("move", a.id, None, {"start": start, "end": a.pos, "squares": len(went) - 1,
                                               "how": "overruns", "planned": d.square}), *ev]

    _r_overrun_move = _r_overrun

    def legal_reactions(self, enc: Encounter, unit: Unit, trigger: Trigger) -> list[Decision]:
        if trigger.kind != "overrun" or unit.down:
            return []
        return [target_decision("block", trigger.provoker), DECLINE]

    def describe_reaction(self, decision: Decision, enc: Encounter) -> str:
        if decision == DECLINE:
            return "avoid the overrun (let it pass)"
        return super().describe_reaction(decision, enc)

    def _push(self, enc, a, t, squares, direction) -> int:
        """Move t up to `squares` along direction while the way is free; returns the squares moved."""
        g = enc.grid
        moved = 0
        for _ in range(squares):
            nx, ny = t.pos[0] + direction[0], t.pos[1] + direction[1]
            if not g.inside(nx, ny) or not g.passable(g.index(nx, ny)) or \
                    any(not u.down and u.pos == (nx, ny) for u in enc.units):
                break
            t.pos = (nx, ny)
            moved += 1
        return moved

    def _r_shove(self, enc, a, d, dice, react, ph):
        """A brawling attack vs. Fortitude against the target (every creature grappling with a grappler); on a hit the
        shover moves up to half its speed (its full speed on a critical hit if it can carry them), pushing them 5 ft
        for each 5 ft, straight away from it."""
        targets = [enc.units[i] for i in a.state["grapple"]] if a.state["grapple"] else [enc.units[d.target]]
        ev: list[Event] = []
        results = []
        for t in targets:
            data, got = self._brawl(enc, a, t, ("fortitude",), dice, "shove")
            ev += got
            results.append(data["result"])
        if not all(r in ("hit", "crit") for r in results):
            return ev
        crit = all(r == "crit" for r in results) and all(C.carries(a, t) for t in targets)
        squares = self.speed(a) if crit else max(1, self.speed(a) // 2)
        main = enc.units[d.target]
        direction = step_towards(a.pos, main.pos)
        moved = 0
        for _ in range(squares):
            if not all(self._push(enc, a, t, 1, direction) for t in targets):
                break
            a.pos = (a.pos[0] + direction[0], a.pos[1] + direction[1])
            moved += 1
        ev.append(new_event("shoved", a.id, main.id, {"squares": moved}))
        return ev

    _r_shove_move = _r_shove

    # ---- resolvers: the action phase ----------------------------------------------------------------------------------
    def _r_charge(self, enc, a, d, dice, react, ph):
        """Move in a straight line, then a melee strike if the target is within reach when the charge ends; -2 to all
        defenses briefly, from the end of this phase."""
        t = enc.units[d.target]
        w = C.weapon_for(a, d.option)
        sq = self.charge_square(enc, a, t, C.melee_reach(w)) if w is not None else None
        ph.later.append(("brief", a.id, "all", 2))
        if sq is None:
            return [new_event("charge_fails", a.id, t.id, {})]
        dx, dy = step_towards(a.pos, sq)
        steps = max(abs(sq[0] - a.pos[0]), abs(sq[1] - a.pos[1]))
        path = [(a.pos[0] + dx * k, a.pos[1] + dy * k) for k in range(1, steps + 1)]
        ev = self._walk(enc, a, path, "charges")
        if not t.down and enc.grid.distance(a.pos, t.pos) <= C.melee_reach(w):
            ev += self._strike(enc, a, opt_target("strike", d.option, t.id), None, dice, ph)
        return ev

    def _r_grapple(self, enc, a, d, dice, react, ph):
        t = enc.units[d.target]
        data, ev = self._brawl(enc, a, t, ("fortitude", "reflex"), dice, "grapple")
        if data["result"] in ("hit", "crit"):
            ph.later.append(("grapple", a.id, t.id, data["result"] == "crit"))
        return ev

    def _r_maintain(self, enc, a, d, dice, react, ph):
        bonus = C.brawling(a)
        total, faces = C.roll_accuracy(dice, f"{a.name}'s maintain grapple")
        a.state["maintain"] = total + bonus
        return [new_event("maintain", a.id, None, {"total": total + bonus, "faces": faces})]

    def _r_escape(self, enc, a, d, dice, react, ph):
        """A brawling (or Flexibility) attack against each grappler; its defense is its maintain grapple result."""
        ev: list[Event] = []
        bonus = C.brawling(a)
        if a.stats["flexibility"] is not None:
            bonus = max(bonus, a.stats["flexibility"] - C.fatigue_penalty(a) - C.vital_penalty(a))
        for gid in list(a.state["grapple"]):
            g = enc.units[gid]
            dfn = max(0, g.state["maintain"])
            data, got = self._roll(enc, a, g, bonus, dfn, None, "escape grapple", dice)
            ev += got
            if data["result"] in ("hit", "crit"):
                ph.later.append(("free", a.id, gid, f"{a.name} escaped"))
        return ev

    def _r_release(self, enc, a, d, dice, react, ph):
        for gid in list(a.state["grapple"]):
            ph.later.append(("free", a.id, gid, f"{a.name} lets go"))
        return []

    def _r_trip(self, enc, a, d, dice, react, ph):
        t = enc.units[d.target]
        data, ev = self._brawl(enc, a, t, ("fortitude",), dice, "trip")
        if data["result"] in ("hit", "crit"):
            ph.later.append(("prone", t.id))
        return ev

    def _r_throw(self, enc, a, d, dice, react, ph):
        """Throw a grappled creature: a brawling attack vs. Fortitude; on a hit it flies up to 10 ft + 5 ft per 2
        Strength straight away from the thrower and the grapple ends."""
        t = enc.units[d.target]
        data, ev = self._brawl(enc, a, t, ("fortitude",), dice, "throw")
        if data["result"] not in ("hit", "crit") or t.id not in a.state["grapple"]:
            return ev
        C.end_grapple(enc, a, t)
        feet = 10 + 5 * (max(0, a.stats["strength"]) // 2)
        moved = self._push(enc, a, t, feet // 5, step_towards(a.pos, t.pos))
        return ev + [new_event("thrown", a.id, t.id, {"squares": moved})]

    def _r_total_defense(self, enc, a, d, dice, react, ph):
        a.state["total_defense"] = True
        return [new_event("total_defense", a.id, None, {})]

    def _r_recover(self, enc, a, d, dice, react, ph):
        """Remove all conditions, regain all damage resistance and half the hit points (at once: Swift)."""
        s = a.state
        s["recovered"] = True
        s["prone"] = False
        s["brief"] = []
        hp_part = a.hp - s["dr"]
        gain = min(a.stats["hp"] - hp_part, a.stats["hp"] // 2)
        s["dr"] = a.stats["dr"]
        a.hp = hp_part + gain + s["dr"]
        return [new_event("recover", a.id, a.id, {"hp": gain, "dr": s["dr"]})]

    def _r_ready(self, enc, a, d, dice, react, ph):
        ph.ready.append(a.id)
        return [new_event("ready", a.id, None, {})]

    def _readied(self, enc, mover, dice, ph) -> list[Event]:
        """Readied strikes on a creature that has just moved next to their makers (after its act is complete)."""
        ev: list[Event] = []
        for rid in list(ph.ready):
            r = enc.units[rid]
            if r.down or r.side == mover.side or mover.down:
                continue
            for m in (C.MAIN, C.OFF):
                if self.can_strike(enc, r, mover, "strike", m):
                    ph.ready.remove(rid)
                    ev.append(new_event("readied", r.id, mover.id, {}))
                    ev += self._strike(enc, r, opt_target("strike", m, mover.id), None, dice, ph, reactive=True)
                    break
        return ev

    # ---- estimates, observation and narration -------------------------------------------------------------------------
    def estimate(self, enc: Encounter, actor: Unit, decision: Decision) -> Estimate:
        return E.estimate(self, enc, actor, decision)

    def threat_estimate(self, enc: Encounter, attacker: Unit, target: Unit) -> tuple[float, float]:
        return E.threat_estimate(self, enc, attacker, target)

    def observation_parts(self, enc: Encounter, actor: Unit, units: list[Unit]) -> list:
        """The core's rows, their threat estimates sharing one memo (`estimates.threat_estimate`: the state does not
        change between them)."""
        memo: dict = {}
        side = actor.side
        return [(E.unit_features(self, enc, u), E.threat_estimate(self, enc, actor, u, memo)
                 + E.threat_estimate(self, enc, u, actor, memo) if u.side != side and u.active else None)
                for u in units]

    def unit_features(self, enc: Encounter, unit: Unit) -> list[float]:
        return E.unit_features(self, enc, unit)

    def tactics(self):
        from .tactics import RiseTactics
        return RiseTactics(self)

    def narrate(self, event: Event, enc: Encounter) -> str | None:
        return N.narrate(self, event, enc)

    def attack_words(self, event: Event, enc: Encounter) -> tuple[str, str] | None:
        return N.attack_verb(event, enc, self), "Armor"

    def option_label(self, decision: Decision, enc: Encounter) -> str:
        u = enc.actor
        if decision.action in STRIKES + ("charge",) and u is not None:
            if decision.option >= C.DUAL:
                return "split strike" if decision.option == C.SPLIT else "dual strike"
            if decision.option < len(u.stats["weapons"]):
                return u.stats["weapons"][decision.option]["name"]
        return f"option {decision.option}"
