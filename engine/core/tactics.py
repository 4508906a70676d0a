"""What the heuristic policy asks a ruleset's tactical knowledge, and the tactics every ruleset gets for free.

The heuristic (`engine/policies/heuristic.py`) is ruleset-neutral. It scores each legal decision as the best short
plan that starts with it, from what three parties tell it:

- the ruleset (`engine/core/ruleset.py`): the legal decisions, `estimate`, `can_act`, `budget_after` (what is left to
  spend after a decision: is an attack or a move still possible?) and `tactics()`, which makes the object below;
- a `Tactics` object, one per ruleset and kept for every battle (its caches may serve them all): each decision's
  role (`ROLES`, through `kind`, or as a table by action, `roles_by_action`, when the role depends on the action
  alone), the costs of an attack and of a move (`attack_cost`, `move_cost`), and per decision
  point a view;
- a `TacticsView` (`Tactics.view(enc, actor)`): what a square is worth to the actor (the attacks it could make from
  there, the damage the enemies could deal it there), what a decision provokes and where it leaves the actor.

Every query has a default here, so a ruleset overrides only what it knows better. `DefaultTactics` and
`DefaultView` are what a ruleset that writes no tactics gets (`Ruleset.tactics()`'s default): they use the Ruleset
interface alone (the catalogue, legal decisions, `estimate`, `threat_estimate`, `can_act`, the grid, the economy).
Saga's own tactics (`engine/rulesets/saga/tactics.py`) subclass these; so may any other ruleset's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .decision import END, Decision
from .ruleset import Cost, Estimate

if TYPE_CHECKING:
    from .ruleset import Ruleset
    from .state import Encounter
    from .units import Unit

# The roles of decisions (`Tactics.kind`): how the heuristic scores each.
ROLES = {
    "end": "end the turn: the worth of the square the actor stands on",
    "attack": "an attack, valued by its `estimate` on its target; then, if a move is still possible, the best square "
              "a move reaches (an attack that spends the whole turn simply leaves none)",
    "charge": "an attack made at the end of a move, from the view's `end_square` of the decision",
    "move": "a move to the decision's square: the attack then possible from it (if one still is), plus its worth",
    "withdraw": "a move that provokes nothing (a guarded step, a disengaging move): as 'move', never charged for "
                "provoking",
    "run": "a long move that leaves no attack this turn: only worth it to get much farther than a move",
    "aim": "prepares the next attack: the best attack from here with the view's `offense(pos, aimed=True)`",
    "misc": "anything else, valued by the view's `misc_value`",
}
WASTE = -0.5  # `DefaultView.misc_value` of a decision it knows no worth of: below ending the turn


class TacticsView:
    """Tactical queries for one actor at one decision point (the encounter does not change while it is used).

    Positions are (x, y) squares; values are in expected-damage units. `enemies` are the actor's active enemies.
    Subclasses override the queries they know; each default says what it assumes.
    """

    provoked_by_action = False  # whether `provoked(d)` depends on d's action alone (the heuristic then asks once)

    def __init__(self, tac: "Tactics", enc: "Encounter", a: "Unit"):
        self.tac, self.rs, self.enc, self.a = tac, tac.rs, enc, a
        self.enemies: list["Unit"] = enc.enemies(a)

    # -- required in spirit: a view that answers none of these plays without positional sense --
    def offense(self, pos, aimed: bool = False) -> list[tuple["Unit", Estimate, float]]:
        """The attacks one attack (`Tactics.attack_cost`) could make with the actor standing at pos, each as
        (target, estimate, expected damage of what making it provokes); `aimed`: after an 'aim' decision."""
        return []

    def threat(self, pos) -> float:
        """Expected damage the enemies can deal the actor standing at pos before its next turn."""
        return 0.0

    def provoked(self, d: Decision) -> float:
        """Expected damage of what the decision provokes (attacks of opportunity and other reactions)."""
        return 0.0

    def end_square(self, d: Decision):
        """Where the actor stands after the decision: the square of a move, withdrawal or run, else where it is."""
        if d.square is not None and self.tac.kind(d) in ("move", "withdraw", "run"):
            return d.square
        return self.a.pos

    def sees(self, e: "Unit", pos) -> bool:
        """Whether enemy e can see the actor standing at pos (a fleeing unit looks for squares none can)."""
        return self.enc.grid.line_of_sight(e.pos, pos)

    def misc_value(self, d: Decision, threat_here: float, can_strike) -> float:
        """Worth of a decision of role 'misc' (added to that of the square the actor stands on). `threat_here`: the
        enemies' threat on the actor here; `can_strike()`: whether it has an attack from here or after a move."""
        return WASTE

    # -- optional: defaults that change nothing --
    def danger(self, e: "Unit") -> float:
        """How much damage enemy e can deal the actor in a round (a kill of e is worth more; `prefer_targets:
        most_dangerous`)."""
        return 0.0

    def reach_value(self, pos) -> list[tuple["Unit", Estimate]]:
        """Enemies a melee attack could reach next turn from pos (a move and a blow), with estimates."""
        return []

    def approach(self, pos) -> int:
        """Steps from pos to the nearest enemy (the pull towards the enemies of a unit with nothing to hit)."""
        dist = self.enc.grid.distance
        return min([dist(pos, e.pos) for e in self.enemies], default=0)

    def decision_estimate(self, d: Decision) -> Estimate | None:
        """The ruleset's `estimate` of an attack decision from a cache of the view's, or None: the heuristic asks the
        ruleset."""
        return None

    def state_key(self):
        """A hashable key for everything square values depend on but the actor's own square and budget, so that the
        heuristic may share them between decision points; None: not shared."""
        return None

    def key_squares(self) -> set | None:
        """Squares worth a look beyond a coarse lattice when the heuristic prunes for speed (`choose`); None: all."""
        return None


class Tactics:
    """A ruleset's tactical knowledge for the heuristic policy (see the module docstring). `rs` is the ruleset."""

    kinds: dict[str, str] | None = None  # the role by action, when the role depends on the action alone
    constant_misc: dict[str, float] = {}  # actions whose `misc_value` is this whatever the state
    # What one attack spends, and the least move (is one still possible after a decision?); None: `_default_costs`
    attack_cost: Cost | None = None
    move_cost: Cost | None = None

    def __init__(self, ruleset: "Ruleset"):
        self.rs = ruleset
        if self.attack_cost is None or self.move_cost is None:
            attack, move = self._default_costs()
            self.attack_cost = self.attack_cost or attack
            self.move_cost = self.move_cost or move

    def _default_costs(self) -> tuple[Cost, Cost]:
        """The catalogue costs of its first action of role 'attack' and of its first of role 'move' (nothing to pay
        without one)."""
        first: dict[str, Cost] = {}
        for key, spec in self.rs.catalogue.items():
            role = self.kind(Decision(key, square=(0, 0) if spec.target == "square" else None))
            first.setdefault(role, Cost(spec.cost, 1, spec.times))
        free = Cost("free")
        return first.get("attack", free), first.get("move", free)

    def kind(self, d: Decision) -> str:
        """The decision's role (a key of `ROLES`)."""
        if d == END:
            return "end"
        kinds = self.kinds
        return kinds.get(d.action, "misc") if kinds is not None else "misc"

    def roles_by_action(self) -> dict[str, str] | None:
        """`kind` as a table, when the role depends on the action alone: `kind(d)` is `table.get(d.action, "misc")`
        (the heuristic classifies every legal decision of a decision point through it); None when a ruleset's `kind`
        looks at more of the decision."""
        got = self.__dict__.get("_roles_by_action", False)
        if got is False:
            got = None
            if type(self).kind is Tactics.kind and self.kinds is not None:
                got = {**self.kinds, END.action: "end"}
            self._roles_by_action = got
        return got

    def view(self, enc: "Encounter", a: "Unit") -> TacticsView:
        """The queries for actor a at this decision point."""
        return TacticsView(self, enc, a)

    def budget_key(self, enc: "Encounter", a: "Unit", d: Decision):
        """A hashable key for everything the ruleset's `budget_after(enc, a, d)` depends on, so that the heuristic may
        reuse what it learnt of it at other decision points; None (the default): asked afresh at each."""
        return None


def _role(ruleset: "Ruleset", key: str) -> str:
    """`DefaultTactics`' role of a catalogue action: by what it targets and costs."""
    spec = ruleset.catalogue[key]
    if key == END.action:
        return "end"
    if spec.target == "enemy":
        return "attack"
    if spec.target == "square":
        return "run" if spec.cost == ruleset.economy.full_round else "move"
    return "misc"


class DefaultTactics(Tactics):
    """The tactics of a ruleset that writes none. Roles by the catalogue: an action aimed at an enemy is an attack, one
    aimed at a square a move (a run when it costs the full round), anything else is 'misc' (worth its estimate's
    expected damage, else nothing). Squares are valued by the ruleset's `threat_estimate` with the actor placed on
    them (its `pos` set and restored, the encounter otherwise untouched): the attacks it could make from there, the
    enemies' attacks on it there (from where they stand: the default knows nothing of how far they move), and the walk
    to the nearest enemy round walls. It assumes `threat_estimate` depends on the units and the map, not on the turn's
    flags: the heuristic reuses square values while no unit but the actor moves or changes and no enemy's `danger` to it
    does (`DefaultView.state_key`).
    Every square a decision names is scored (no `key_squares`: the default cannot tell which squares matter, a shot's
    range for one)."""

    def __init__(self, ruleset: "Ruleset"):
        self.kinds = {key: _role(ruleset, key) for key in ruleset.catalogue}
        self._fields: dict = {}  # walking distances from a square, by map, door state and square
        super().__init__(ruleset)

    def view(self, enc: "Encounter", a: "Unit") -> "DefaultView":
        return DefaultView(self, enc, a)

    def walk_field(self, g, pos) -> dict[int, int]:
        """Squares (flat index -> cost in squares) a walk from pos reaches, round walls and through units."""
        key = (id(g._geometry), g._door_key(), pos)
        got = self._fields.get(key)
        if got is None or got[0] is not g._geometry:  # an id can be reused by a later map
            if len(self._fields) > 4096:
                self._fields.clear()
            got = self._fields[key] = (g._geometry, g.reachable(pos, g.width * g.height))
        return got[1]


def kill_guess(hit: float, damage: float, hp: int) -> float:
    """A kill chance from an attack's hit chance and expected damage alone (all a `threat_estimate` gives): the damage
    of a hit taken as spread evenly from half to one and a half times its mean."""
    if hp <= 0:
        return hit
    if hit <= 0 or damage <= 0:  # no damage (a target immune to it): no kill
        return 0.0
    mean = damage / hit
    return hit * min(1.0, max(0.0, (1.5 * mean - hp) / mean))


class DefaultView(TacticsView):
    """`DefaultTactics`' queries (see there), cached per square for the decision point."""

    tac: DefaultTactics

    def __init__(self, tac: DefaultTactics, enc: "Encounter", a: "Unit"):
        super().__init__(tac, enc, a)
        self._offense: dict = {}
        self._estimates: dict = {}  # `offense`'s estimates by enemy and figures
        self._threat: dict = {}
        self._danger: dict[int, float] = {}
        self._walk: list | None = None
        self._attackers = [e for e in self.enemies if self.rs.can_act(enc, e)]
        self._armed = self.rs.can_act(enc, a)

    def threat_of(self, attacker: "Unit", target: "Unit") -> tuple[float, float]:
        """(hit chance, expected damage) of attacker's best attack on target where both stand now: the ruleset's
        `threat_estimate`. A ruleset may answer from caches of the view's (the encounter does not change while the
        view is used; only the actor is placed on other squares)."""
        return self.rs.threat_estimate(self.enc, attacker, target)

    def offense(self, pos, aimed: bool = False) -> list[tuple["Unit", Estimate, float]]:
        got = self._offense.get(pos)
        if got is None:
            got = []
            if self._armed:
                a, threat_of, made = self.a, self.threat_of, self._estimates
                here = a.pos
                a.pos = pos  # the actor placed on pos, as `threat` does
                try:
                    for e in self.enemies:
                        p, dmg = threat_of(a, e)
                        if dmg > 0:
                            key = (e.id, p, dmg)  # many squares give an enemy the same figures: one Estimate for them
                            est = made.get(key)
                            if est is None:
                                est = made[key] = Estimate(p, dmg, kill_guess(p, dmg, e.hp))
                            got.append((e, est, 0.0))
                finally:
                    a.pos = here
            self._offense[pos] = got
        return got

    def threat(self, pos) -> float:
        got = self._threat.get(pos)
        if got is None:
            a, threat_of = self.a, self.threat_of
            here = a.pos
            a.pos = pos
            try:
                got = 0
                for e in self._attackers:
                    got += threat_of(e, a)[1]
            finally:
                a.pos = here
            self._threat[pos] = got
        return got

    def misc_value(self, d: Decision, threat_here: float, can_strike) -> float:
        est = self.rs.estimate(self.enc, self.a, d)
        return est.expected_damage if est.expected_damage > 0 else WASTE

    def danger(self, e: "Unit") -> float:
        """The expected damage of e's best attack on the actor from where both stand (`threat_estimate`)."""
        got = self._danger.get(e.id)
        if got is None:
            got = self._danger[e.id] = self.threat_of(e, self.a)[1]
        return got

    def state_key(self):
        """The actor, the map as its doors stand, every unit's side, template, square (but the actor's), hit points
        and play state, and each enemy's `danger` (which the actor's square enters)."""
        g, a = self.enc.grid, self.a
        return (a.id, g._geometry, g._door_key(), tuple([
            (u.id, u.side, u.template, None if u is a else u.pos, u.hp, u.max_hp, u.down, repr(u.state))
            for u in self.enc.units]), tuple([self.danger(e) for e in self.enemies]))

    def approach(self, pos) -> int:
        """The walk from pos to the nearest enemy (round walls, through units), or the distance where none reaches."""
        g = self.enc.grid
        if self._walk is None:
            self._walk = [self.tac.walk_field(g, e.pos) for e in self.enemies]
        i = g.index(*pos)
        best = None
        for e, walk in zip(self.enemies, self._walk):
            steps = walk.get(i)
            if steps is None:
                steps = 2 * g.distance(pos, e.pos)
            if best is None or steps < best:
                best = steps
        return 0 if best is None else best
