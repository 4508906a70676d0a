"""The heuristic policy: a rule-based tactician, the yardstick a trained policy must beat.

Ruleset-neutral. Every legal decision is scored in expected-damage units as the best short plan that
starts with it, using the ruleset's estimates, its economy (`Ruleset.budget_after`: is an attack or a move
still possible after a decision?) and its tactics (`Ruleset.tactics()`, the interface of
`engine/core/tactics.py`: each decision's role, and per decision point a view valuing squares):

- an attack: the value of its estimate on the target (expected damage up to the target's hit points,
  plus a bonus for the kill chance, weighted towards wounded targets and by the unit's
  `prefer_targets`), minus what it provokes, plus the best square still reachable after it (when a
  move remains);
- a move (or a withdrawal, which provokes nothing): the best attack from the destination (when an attack
  remains after it), plus the destination's worth, minus what leaving the square provokes;
- a square's worth: minus the threat the enemies pose there (their expected damage against the unit,
  cover included), plus a share of the attacks it allows next turn, plus a pull towards the enemies;
- a charge: its attack from where it ends; a run: the worth of a square far away, when no attack is in reach;
- aim: the best aimed attack from here (Saga: aiming ignores cover, so it pays against a target in cover);
- ending the turn: the worth of the square (plus the attack still to come this round, where a later phase
  brings one);
- everything else (second wind, standing up, drawing a weapon, ...) through the view's `misc_value`;
  actions that waste a turn score below ending it.

Below its `flee_below` fraction of max HP a unit tries to get away instead: squares far from the
enemies and out of their sight, a withdrawal when threatened, attacks only as a last resort.
Ties are broken by a tiny seeded jitter, so the policy is deterministic given its seed.
"""
from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from engine.core.decision import END, Decision
from engine.core.policy import Policy
from engine.core.tactics import Tactics

if TYPE_CHECKING:
    from engine.core.battle import Battle
    from engine.core.state import Encounter
    from engine.core.units import Unit

THREAT_WEIGHT = 0.5      # enemy expected damage against us, relative to ours against them
NEXT_TURN_SHARE = 0.35   # a square's attacks next turn, relative to an attack now
APPROACH = 0.25          # pull (per square) towards the nearest enemy, for units with no attack from a square
KILL_BONUS = 6.0         # worth of taking an enemy out, on top of its damage, plus its danger
PREFER_WEIGHT = 2.0      # how strongly `prefer_targets` biases target choice
TEMPERATURE = 2.0        # softmax temperature of `rank`'s probabilities
FLEE_DISTANCE = 1.0      # per square of distance from the nearest enemy, when fleeing
FLEE_HIDDEN = 4.0        # bonus for a square no enemy can see, when fleeing
CLOSE_IN = 0.1           # pull (per square) towards the enemies for a melee unit already within a move
RUN_COST = 0.5           # a run spends the whole turn: only worth it to get much farther than a move
MOVE_COST = 0.05         # a move that gains nothing is not worth making
RUN_IN_REACH = 5.0       # below staying, a run when an attack is in reach (running only pays to flee or close in)

_TACTICS: dict[str, Tactics] = {}


def tactics_for(ruleset) -> Tactics:
    """The ruleset's tactics object (`ruleset.tactics()`), made once per ruleset and kept: its caches serve every
    battle."""
    got = _TACTICS.get(ruleset.id)
    if got is None:
        got = _TACTICS[ruleset.id] = ruleset.tactics()
    return got


class HeuristicPolicy(Policy):
    """Scores every legal decision with the ruleset's estimates and tactics; plays the best one."""

    name = "heuristic"

    def __init__(self, seed: int | None = 0):
        self._seed = seed
        self._rng = random.Random(seed)
        # square values shared by decision points whose units stand and fare alike (the actor's own square
        # and the budget left do not enter them)
        self._memo: dict = {}
        self._budgets: dict = {}  # per ruleset id, what an action leaves of a budget (`_Turn._left`) by `budget_key`

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._seed = seed
        self._rng = random.Random(self._seed)
        self._memo = {}
        self._budgets = {}

    # ---- Policy -----------------------------------------------------------------------------------------
    def choose(self, battle: "Battle") -> Decision:
        """The best decision. For speed, squares off a coarse lattice that are not key squares (next to
        cover, to an enemy, to the actor) are not considered; `rank` considers them all."""
        scored = self._scores(battle, prune=True, best=True)
        return max(scored, key=lambda x: x[1])[0]

    def rank(self, battle: "Battle") -> list[tuple[Decision, float]]:
        """Legal decisions best first, with softmax(score / TEMPERATURE) as a probability."""
        scored = sorted(self._scores(battle), key=lambda x: -x[1])
        top = scored[0][1]
        w = [math.exp((s - top) / TEMPERATURE) for _, s in scored]
        z = sum(w)
        return [(d, x / z) for (d, _), x in zip(scored, w)]

    def scores(self, battle: "Battle", seed: int | None = None) -> list[tuple[Decision, float]]:
        """The decisions `choose` weighs with their raw scores (expected-damage units; squares off its lattice
        left out). With `seed`, the tie-breaking jitter restarts from it, so the scores depend on the state only."""
        if seed is not None:
            self._rng.seed(seed)
        return self._scores(battle, prune=True)

    def explain(self, battle: "Battle") -> list[tuple[Decision, float]]:
        """Legal decisions with their raw scores (expected-damage units), best first."""
        return sorted(self._scores(battle), key=lambda x: -x[1])

    # ---- scoring ------------------------------------------------------------------------------------------
    def _scores(self, battle: "Battle", prune: bool = False, best: bool = False) -> list[tuple[Decision, float]]:
        """(decision, score) for the legal decisions not pruned, in their order; `best`: only `max` of them is
        wanted (when ending the turn beats every other decision, it alone is returned)."""
        legal = battle.legal()
        if len(legal) == 1:
            return [(legal[0], 0.0)]
        tac = tactics_for(battle.ruleset)
        if best and _end_beats_all(tac, legal):
            # what the loop below picks, without its work: the same jitter draws, one per legal decision
            if type(self._rng) is random.Random:
                self._rng.getrandbits(64 * len(legal))  # as many words as len(legal) random() calls take
            else:
                for _ in legal:
                    self._rng.random()
            return [(END, 0.0)]
        t = _Turn(battle, tac, prune, self._memo, self._budgets)
        jitter = self._rng.random
        score = t.score
        out = []
        for d, kind in zip(legal, t.kinds):
            j = jitter()  # one draw per legal decision, scored or not, so rank() and choose() stay in step
            if kind is not None:
                out.append((d, score(d, kind) + 1e-6 * j))
        return out


def _end_beats_all(tac: Tactics, legal: list[Decision]) -> bool:
    """Whether ending the turn outscores every other legal decision whatever the square values: all the others are
    actions of a constant value below 0 (`constant_misc`, added to the same `pos_value(here)` that ending the turn
    scores at least; the jitter is 1e-6 at most), as when a unit that has acted may only drop or holster something."""
    constant = tac.constant_misc
    if not constant:
        return False
    kind = tac.kind
    for d in legal:
        if d != END and not (constant.get(d.action, 0.0) < -1e-3 and kind(d) == "misc"):
            return False
    return END in legal


class _Turn:
    """Everything about one decision point of one unit, computed lazily and once."""

    lattice = 3  # choose() looks at every lattice-th square in x and y, plus the key squares

    def __init__(self, battle: "Battle", tac: Tactics, prune: bool = False, memo: dict | None = None,
                 budgets: dict | None = None):
        self.b, self.tac, self.rs = battle, tac, battle.ruleset
        self.enc: "Encounter" = battle.enc
        self.a: "Unit" = battle.enc.actor
        a = self.a
        self.v = v = tac.view(self.enc, a)
        self.enemies = v.enemies
        flee = (a.tactics or {}).get("flee_below")
        self.fleeing = flee is not None and a.hp < float(flee) * a.max_hp
        self._weights: dict[int, float] | None = None
        self._pos: dict = {}
        self._offense: dict = {}
        self._targets: dict[int, tuple] = {}
        self._approach = v.approach
        by_action = v.provoked_by_action
        self._provoked: dict | None = {} if by_action else None
        skey = v.state_key() if memo is not None else None
        if skey is not None:
            pref = (a.tactics or {}).get("prefer_targets")
            key = (skey, self.fleeing, a.pos if pref == "nearest" else None)
            got = memo.get(key)
            if got is None:
                if len(memo) > 512:
                    memo.clear()
                got = memo[key] = ({}, {})
            self._pos, self._offense = got
        self._best_reposition: float | None = None
        self._after: dict[str, tuple[bool, bool]] = {}
        # what `_left` learnt at other decision points, of this ruleset
        self._budgets = None
        if budgets is not None:
            self._budgets = budgets.get(self.rs.id)
            if self._budgets is None:
                self._budgets = budgets[self.rs.id] = {}
        self._can_strike: bool | None = None
        self._threat_here: float | None = None
        # per legal decision its kind, or None when pruned (choose() looks at every lattice-th square in x
        # and y, plus the key squares); the moves; the squares of the moves, withdrawals and runs by action
        self.keep = None
        if prune:
            self.keep = v.key_squares()
        self.kinds = kinds = []
        self.moves = moves = []
        self._squares = squares = {}
        keep, step, kind_of, roles = self.keep, self.lattice, tac.kind, tac.roles_by_action()
        add = kinds.append
        for d in battle.legal():
            sq = d.square
            if keep is not None and sq is not None and (sq[0] % step or sq[1] % step) and sq not in keep:
                add(None)
                continue
            k = roles.get(d.action, "misc") if roles is not None else kind_of(d)
            add(k)
            if k == "move" or k == "withdraw" or k == "run":
                if k != "run":
                    moves.append(d)
                got = squares.get(d.action)
                if got is None:
                    got = squares[d.action] = (k, [])
                got[1].append(sq)

    # -- targets --
    @property
    def weights(self) -> dict[int, float]:
        """Per enemy id, the weight of its damage: focus fire on the wounded, and the unit's `prefer_targets`."""
        if self._weights is None:
            self._weights = self._target_weights()
        return self._weights

    def _target_weights(self) -> dict[int, float]:
        enc, a = self.enc, self.a
        pref = (a.tactics or {}).get("prefer_targets")
        w: dict[int, float] = {}
        keys: dict[int, float] = {}
        for e in self.enemies:
            w[e.id] = 1.0 + 0.5 * (1.0 - e.hp / max(1, e.max_hp))  # focus fire on the wounded
            if pref == "nearest":
                keys[e.id] = -enc.grid.distance(a.pos, e.pos)
            elif pref == "weakest":
                keys[e.id] = -e.hp
            elif pref == "strongest":
                keys[e.id] = e.hp
            elif pref == "wounded":
                keys[e.id] = -e.hp / max(1, e.max_hp)
            elif pref == "most_dangerous":
                keys[e.id] = self.v.danger(e)
        if keys:
            lo, hi = min(keys.values()), max(keys.values())
            for eid, k in keys.items():
                x = 1.0 if hi == lo else (k - lo) / (hi - lo)
                w[eid] *= 1.0 + PREFER_WEIGHT * x * x
        return w

    def _target(self, t: "Unit") -> tuple:
        """(hit points, worth of a kill, weight) of target t."""
        got = self._targets.get(t.id)
        if got is None:
            got = self._targets[t.id] = (t.hp, KILL_BONUS + 2.0 * self.v.danger(t), self.weights.get(t.id, 1.0))
        return got

    def value(self, t: "Unit", est) -> float:
        """Worth of an attack estimate on target t."""
        hp, kill, w = self._targets.get(t.id) or self._target(t)
        return (min(est.expected_damage, hp) + est.kill_chance * kill) * w

    def best_attack(self, pos, aimed: bool = False) -> float:
        key = (pos, aimed)
        got = self._offense.get(key)
        if got is None:
            best = 0.0
            targets = self._targets
            for t, est, cost in self.v.offense(pos, aimed):
                hp, kill, w = targets.get(t.id) or self._target(t)
                x = (min(est.expected_damage, hp) + est.kill_chance * kill) * w - cost
                if x > best:
                    best = x
            got = self._offense[key] = best
        return got

    # -- squares --
    def pos_value(self, pos) -> float:
        """Worth of ending the turn on pos (threat faced, next turn's attacks, pull to the enemies)."""
        got = self._pos.get(pos)
        if got is not None:
            return got
        v = self.v
        threat = v.threat(pos)
        if self.fleeing:
            hidden = not any(v.sees(e, pos) for e in self.enemies)
            val = FLEE_DISTANCE * self._near(pos) + (FLEE_HIDDEN if hidden else 0.0) \
                - 1.5 * THREAT_WEIGHT * threat
        else:
            shot = self.best_attack(pos)
            melee = 0.0
            for t, est in v.reach_value(pos):
                x = self.value(t, est)
                if x > melee:
                    melee = x
            later = shot if shot >= melee else melee
            val = -THREAT_WEIGHT * threat + NEXT_TURN_SHARE * later
            if later <= 0 or melee > shot:  # nothing to hit from here, or closing in for a melee blow
                val -= (APPROACH if later <= 0 else CLOSE_IN) * self._approach(pos)
        self._pos[pos] = val
        return val

    def _near(self, pos) -> int:
        """Distance from pos to the nearest enemy (0 when there is none)."""
        dist = self.enc.grid.distance
        return min([dist(pos, e.pos) for e in self.enemies], default=0)

    def provoked(self, d: Decision) -> float:
        """The view's `provoked(d)`, once per action when the view says only the action matters."""
        cache = self._provoked
        if cache is None:
            return self.v.provoked(d)
        got = cache.get(d.action)
        if got is None:
            got = cache[d.action] = self.v.provoked(d)
        return got

    def best_reposition(self) -> float:
        """Best square reachable by a move after acting here (or staying), provocations included."""
        if self._best_reposition is None:
            best = self.pos_value(self.a.pos)
            squares = self._squares
            if self.moves and self._provoked is None:  # what a move provokes depends on more than its action
                for d in self.moves:
                    c = MOVE_COST + (0.0 if squares[d.action][0] == "withdraw" else self.provoked(d))
                    best = max(best, self.pos_value(d.square) - c)
            elif self.moves:  # one cost per action
                cost = {}
                for act, (kind, sq) in squares.items():
                    if kind != "run":
                        cost[act] = MOVE_COST + (0.0 if kind == "withdraw" else
                                                 self.provoked(Decision(act, square=sq[0])))
                for d in self.moves:
                    best = max(best, self.pos_value(d.square) - cost[d.action])
            self._best_reposition = best
        return self._best_reposition

    def _left(self, d: Decision) -> tuple[bool, bool]:
        """(an attack, a move) still payable after d (`Ruleset.budget_after`, asked once per action at a decision
        point), and across decision points per the tactics' `budget_key`."""
        got = self._after.get(d.action)
        if got is None:
            key = None
            if self._budgets is not None:
                key = self.tac.budget_key(self.enc, self.a, d)
                if key is not None:
                    got = self._budgets.get(key)
            if got is None:
                left = self.rs.budget_after(self.enc, self.a, d)
                econ, tac = self.rs.economy, self.tac
                got = (econ.can_pay(left, *tac.attack_cost), econ.can_pay(left, *tac.move_cost))
                if key is not None:
                    if len(self._budgets) > 4096:
                        self._budgets.clear()
                    self._budgets[key] = got
            self._after[d.action] = got
        return got

    def can_attack_after(self, d: Decision) -> bool:
        return self._left(d)[0]

    def can_move_after(self, d: Decision) -> bool:
        return self._left(d)[1]

    # -- decisions --
    def score(self, d: Decision, kind: str | None = None) -> float:
        """Worth of decision d (of the given kind, the tactics' `kind(d)` when not given)."""
        if kind is None:
            kind = self.tac.kind(d)
        if kind == "move" or kind == "withdraw":
            cache = self._provoked  # `provoked(d)`, its cache read here (every move is scored)
            p = cache.get(d.action) if cache is not None else None
            v = -(self.provoked(d) if p is None else p) - MOVE_COST
            if not self.fleeing and (self._after.get(d.action) or self._left(d))[0]:  # `can_attack_after(d)`
                # an attack from the new square still leaves the turn's end there
                v += max(self.best_attack(d.square), 0.0)
            return v + self.pos_value(d.square)
        a = self.a
        if kind == "end":
            v = self.pos_value(a.pos)
            if not self.fleeing and self.can_attack_after(d):  # a later phase of the round brings an attack
                v += max(self.best_attack(a.pos), 0.0)
            return v
        attack_scale = 0.1 if self.fleeing else 1.0
        if kind == "attack":
            est = self.estimate(d)  # `attack_value(d)`, inline (many attacks are scored)
            t = d.target
            v = attack_scale * (self.value(self.enc.units[t], est) if t is not None else est.expected_damage) \
                - self.provoked(d)
            if self.fleeing:  # a fleeing unit attacks only when it has nowhere better to go
                return v + self.pos_value(a.pos)
            v += self.best_reposition() if self.can_move_after(d) else self.pos_value(a.pos)
            return v
        if kind == "charge":
            v = attack_scale * self.attack_value(d)
            end = self.v.end_square(d)
            return v - self.provoked(d) + self.pos_value(end)
        if kind == "run" and not self.fleeing and self.can_strike():
            return self.pos_value(a.pos) - RUN_IN_REACH
        if kind == "run":
            return -self.provoked(d) - RUN_COST + self.pos_value(d.square)
        if kind == "aim":
            if not self.can_attack_after(d) or self.fleeing:
                return self.pos_value(a.pos) - 0.5
            return self.best_attack(a.pos, aimed=True) + self.pos_value(a.pos)
        threat = self._threat_here
        if threat is None:
            threat = self._threat_here = self.v.threat(a.pos)
        return self.v.misc_value(d, threat, self.can_strike) + self.pos_value(a.pos)

    def estimate(self, d: Decision):
        """The ruleset's estimate of d, through the view's cache when it has one."""
        got = self.v.decision_estimate(d)
        return got if got is not None else self.rs.estimate(self.enc, self.a, d)

    def attack_value(self, d: Decision) -> float:
        """Worth of attack decision d's estimate: on its target (`value`), or its expected damage when it names none
        (an attack on a square)."""
        est = self.estimate(d)
        if d.target is None:
            return est.expected_damage
        return self.value(self.enc.units[d.target], est)

    def can_strike(self) -> bool:
        """Whether any attack is possible from here, or from a square a move away."""
        if self._can_strike is None:
            self._can_strike = self.best_attack(self.a.pos) > 0 or (
                self.rs.economy.can_pay(self.enc.budget, *self.tac.attack_cost)
                and any(self.best_attack(m.square) > 0 for m in self.moves if self.can_attack_after(m)))
        return self._can_strike
