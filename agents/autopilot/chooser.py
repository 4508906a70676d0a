"""How the autopilot picks an NPC's decision: the policy's ranking, the GM's vetoes, the unit's tactics
from the encounter file, and the difficulty the GM pitched the fight at.

- deadly: the policy's best choice (exact ties, as in random play, broken with the seeded generator);
- hard:   sampled from the top 2, sharpened (p^2);
- normal: sampled from the top 4 as ranked (p);
- easy:   sampled loosely from the top 8 (p^0.5), and 1 time in 5 any of those 8 uniformly.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Iterable

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.policy import Policy
from engine.core.ruleset import Estimate

from .policies import honours_tactics

# difficulty -> (how many of the ranking it samples from, exponent on probabilities, chance of uniform pick)
DIFFICULTY = {"deadly": (1, 1.0, 0.0), "hard": (2, 2.0, 0.0), "normal": (4, 1.0, 0.0), "easy": (8, 0.5, 0.2)}
MOVES = ("move", "withdraw", "run")


@dataclass
class Proposal:
    """A proposed decision with why: its estimate and the alternatives considered (with probabilities)."""

    decision: Decision
    prob: float
    ranked: list[tuple[Decision, float]]
    estimate: Estimate | None = None
    notes: list[str] = field(default_factory=list)

    def alternatives(self, n: int = 3) -> list[tuple[Decision, float]]:
        return [(d, p) for d, p in self.ranked if d != self.decision][:n]


class Chooser:
    """Turns a policy's ranking into proposals, honouring vetoes, tactics and difficulty."""

    def __init__(self, policy: Policy, difficulty: str = "deadly", seed: int | None = 0):
        if difficulty not in DIFFICULTY:
            raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTY)}")
        self.policy, self.difficulty = policy, difficulty
        self.rng = random.Random(seed)
        self.apply_tactics = not honours_tactics(policy)
        self.dealt: dict[int, int] = {}  # damage dealt so far by unit id (the session keeps it current)

    # ---- ranking -----------------------------------------------------------------------------------
    def ranked(self, battle: Battle, exclude: Iterable[Decision] = ()) -> tuple[list[tuple[Decision, float]], list[str]]:
        """Legal, non-vetoed decisions with probabilities, best first; plus notes on tactics applied."""
        ex = set(exclude)
        try:
            raw = self.policy.rank(battle)
        except Exception:  # a policy that cannot rank still gets its own choice proposed
            raw = [(self.policy.choose(battle), 1.0)]
        seen: set[Decision] = set()
        out = []
        for d, p in raw:
            if d in ex or d in seen or not battle.is_legal(d):
                continue
            seen.add(d)
            out.append((d, max(0.0, float(p))))
        if not out:
            rest = [d for d in battle.legal() if d not in ex]
            out = [(d, 1.0 / len(rest)) for d in rest] if rest else [(END, 1.0)]
        notes: list[str] = []
        if self.apply_tactics:
            out, notes = apply_tactics(battle, out, self.dealt)
        total = sum(p for _, p in out) or 1.0
        out = [(d, p / total) for d, p in out]
        out.sort(key=lambda dp: -dp[1])
        return out, notes

    def propose(self, battle: Battle, exclude: Iterable[Decision] = ()) -> Proposal:
        ex = set(exclude)
        ranked, notes = self.ranked(battle, ex)
        k, power, uniform = DIFFICULTY[self.difficulty]
        pick: Decision
        if self.difficulty == "deadly":
            top = ranked[0][1]
            tied = [d for d, p in ranked if p >= top * (1 - 1e-6)]
            pick = tied[0] if len(tied) == 1 else self.rng.choice(tied)
        else:
            pool = ranked[:k]
            if uniform and self.rng.random() < uniform:
                pick = self.rng.choice(pool)[0]
            else:
                weights = [max(p, 1e-9) ** power for _, p in pool]
                pick = self.rng.choices([d for d, _ in pool], weights=weights)[0]
        prob = next((p for d, p in ranked if d == pick), 0.0)
        return Proposal(pick, prob, ranked, estimate_of(battle, pick), notes)


def estimate_of(battle: Battle, d: Decision) -> Estimate | None:
    """The ruleset's estimate of the acting unit's decision `d` now (hit chance, expected damage, ...), or None when
    it has none for it: it gives the empty Estimate (a move, aim, the end of the turn) or cannot estimate it."""
    try:
        est = battle.ruleset.estimate(battle.enc, battle.enc.actor, d)
    except Exception:  # a ruleset that cannot estimate a decision still gets it proposed
        return None
    return None if est is None or est == _NO_ESTIMATE else est


_NO_ESTIMATE = Estimate()


# ---- unit tactics ------------------------------------------------------------------------------------
def _min_enemy_distance(battle: Battle, square) -> int:
    enc = battle.enc
    actor = enc.actor
    ds = [enc.grid.distance(square, e.pos) for e in enc.enemies(actor)]
    return min(ds) if ds else 0


def preferred_target(battle: Battle, how: str, dealt: dict[int, int] | None = None) -> int | None:
    """The enemy a `prefer_targets` tactic points at (nearest, weakest, strongest, most_dangerous, wounded)."""
    enc = battle.enc
    actor = enc.actor
    enemies = enc.enemies(actor)
    if not enemies:
        return None
    dist = lambda u: enc.grid.distance(actor.pos, u.pos)  # noqa: E731
    if how == "nearest":
        key = lambda u: (dist(u), u.id)  # noqa: E731
    elif how == "weakest":
        key = lambda u: (u.hp, dist(u))  # noqa: E731
    elif how == "strongest":
        key = lambda u: (-u.hp, dist(u))  # noqa: E731
    elif how == "wounded":
        key = lambda u: (u.hp / max(1, u.max_hp), dist(u))  # noqa: E731
    elif how == "most_dangerous":
        done = dealt or {}
        key = lambda u: (-done.get(u.id, 0), -u.max_hp, dist(u))  # noqa: E731
    else:
        return None
    return min(enemies, key=key).id


def apply_tactics(battle: Battle, ranked: list[tuple[Decision, float]], dealt: dict[int, int] | None = None
                  ) -> tuple[list[tuple[Decision, float]], list[str]]:
    """Bias a ranking by the acting unit's tactics: flee below a fraction of HP, prefer some targets.
    `dealt` (unit id -> damage dealt so far) tells who is most dangerous."""
    actor = battle.enc.actor
    tactics = getattr(actor, "tactics", None) or {}
    notes: list[str] = []
    if not tactics or not ranked:
        return ranked, notes
    flee = tactics.get("flee_below")
    if flee is not None and actor.hp < flee * actor.max_hp:
        here = _min_enemy_distance(battle, actor.pos)
        away = []
        for d, p in ranked:
            if d.action in MOVES and d.square is not None:
                gain = _min_enemy_distance(battle, d.square) - here
                if gain > 0:
                    away.append((d, p, gain))
        if away:
            best_gain = max(g for _, _, g in away)
            flee_mass = {d: 0.8 * g / sum(g2 for _, _, g2 in away) for d, _, g in away}
            ranked = [(d, flee_mass.get(d, 0.2 * p)) for d, p in ranked]
            notes.append(f"{actor.name} is below {round(flee * 100)}% HP and tries to get away "
                         f"(up to {best_gain} squares further from the enemy)")
    pref = tactics.get("prefer_targets")
    if pref:
        tid = preferred_target(battle, pref, dealt)
        if tid is not None and any(d.target == tid for d, _ in ranked):
            ranked = [(d, p * 4 if d.target == tid else p) for d, p in ranked]
            notes.append(f"{actor.name} prefers the {pref.replace('_', ' ')} target: {battle.enc.units[tid].name}")
    return ranked, notes
