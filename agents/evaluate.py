"""Masked evaluation: a policy against random / heuristic / another policy on fixed seeds, both seats.

Battles are driven directly through the engine (`Battle`), so a trained policy always sees its action mask
(`MaskablePolicy`); SB3's own `evaluate_policy` would ignore the mask. Episode `i` plays encounter
`seed + i // 2` from seat `sides[i % 2]`: every encounter is played from both sides with the same dice,
which cancels the advantage of a map or of the initiative order.

Metrics (per episode, averaged): win / draw / loss with 95% Wilson intervals, rounds, damage dealt and
taken, own units lost; and how the policy fights: `tactics/<action>_rate` (share of its decisions per
action), `tactics/cover_rate` (its units' turns ended in cover from the nearest active enemy),
`tactics/focus_fire` (share of its damage that went to the enemy it damaged most), `tactics/illegal_rate`
(decisions outside the legal set; a masked policy keeps this at 0). With a `probe` policy (the heuristic in
`tactician eval --agreement`), `agreement`: how often the policy's decision is the probe's at the same point (the
probe's choice is asked, never played), and the commonest departures.
"""
from __future__ import annotations

import math
import multiprocessing as mp
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from engine.core.battle import Battle
from engine.core.decision import END, END_TURN
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.core.policy import Policy
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.rulesets import get_ruleset

from .forked import forked_map
from .policies import MaskablePolicy, load_policy, refuse_unfit

EncounterSource = Callable[[int], Encounter]
DEFAULT_ROUND_LIMIT = 20  # rounds before a draw in `tactician eval` and `publish`, for every player (the engine's)
ROOT = Path(__file__).resolve().parent.parent
CARD_KEYS = ("episodes", "win_rate", "win_rate_ci95", "draw_rate", "draws_by_kind", "loss_rate", "mean_rounds",
             "by_size")
# why a battle is drawn: the round limit came with both sides standing, or the last units of both sides left the
# fight at once (in Rise's simultaneous phases the last two creatures can down each other)
DRAW_KINDS = ("round_limit", "none_standing")
SAME_ACTION = "same action"  # a departure from the probe in its square or target only


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k / n (0..1); (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def encounter_source(ruleset: Ruleset, encounters: list[str | Path] | None = None,
                     generator: dict[str, Any] | None = None,
                     round_limit: int | None = DEFAULT_ROUND_LIMIT) -> EncounterSource:
    """seed -> a fresh Encounter: the files in turn, or a random encounter generated from the seed; every one with
    `round_limit` rounds before a draw (None: each encounter's own)."""
    files = [load_encounter(p, ruleset) for p in encounters or []]
    gen = dict(generator or {})

    def make(seed: int) -> Encounter:
        if files:
            enc = files[seed % len(files)].clone()
        else:
            enc = random_encounter(ruleset, random.Random(seed), **gen)
        if round_limit:
            enc.round_limit = round_limit
        return enc

    return make


def source_for(policy: Policy, ruleset: Ruleset, encounters: list[Path] | None = None,
               round_limit: int = DEFAULT_ROUND_LIMIT, train_env: dict[str, Any] | None = None) -> EncounterSource:
    """Encounters to evaluate on: the given files, else those of `train_env` ({"encounters", "generator"}, as a
    model's meta records them: a training config's), else those a trained model was trained on (its meta's files or
    generator), else random encounters with the generator's defaults; all with `round_limit` rounds, whoever
    plays them."""
    gen: dict[str, Any] = {}
    te = train_env if train_env is not None else (getattr(policy, "meta", None) or {}).get("train_env") or {}
    if te:
        gen = {k: (tuple(v) if k in ("sizes", "layouts") else v) for k, v in (te.get("generator") or {}).items()}
        if not encounters and te.get("encounters"):
            encounters = [Path(p) for p in te["encounters"] if Path(p).exists()]
    return encounter_source(ruleset, encounters, gen, round_limit)


@dataclass
class EpisodeStats:
    winner: str
    side: str
    rounds: int
    size: str  # units a side at the start, the learner's side first: "2v2"
    damage_dealt: int = 0
    damage_taken: int = 0
    units_lost: int = 0
    decisions: int = 0
    illegal: int = 0
    actions: dict[str, int] = field(default_factory=dict)
    turns: int = 0
    turns_in_cover: int = 0
    focus_fire: float | None = None
    narration: list[str] = field(default_factory=list)
    final: Encounter | None = None
    draw_kind: str = ""  # a draw's cause, one of DRAW_KINDS
    probed: int = 0  # decisions where the probe was asked its choice
    agreed: int = 0  # ... and the policy made the same decision
    departures: dict = field(default_factory=dict)  # (the policy's action, the probe's or SAME_ACTION) -> count


def _in_cover(enc: Encounter, unit) -> bool:
    enemies = [u for u in enc.units if u.side != unit.side and u.active]
    if not enemies:
        return False
    g = enc.grid
    nearest = min(enemies, key=lambda e: (g.distance(e.pos, unit.pos), e.id))
    return g.cover_between(nearest.pos, unit.pos) != "none"


def play_episode(ruleset: Ruleset, enc: Encounter, learner: Policy, opponent: Policy, side: str, seed: int,
                 narrate: bool = False, probe: Policy | None = None) -> EpisodeStats:
    """One battle; `learner` plays `side`, `opponent` every other side. Dice and policies seeded by `seed`. A model
    that cannot see the encounter (`refuse_unfit`) raises InputError. With `probe`, each of the learner's decisions
    is set beside the probe's choice at the same point (asked, not played: the battle is the same without it)."""
    refuse_unfit(learner, enc)
    refuse_unfit(opponent, enc)
    b = Battle(enc, ruleset, SeededDice(seed))
    learner.reset(seed)
    opponent.reset(seed + 1)
    if probe is not None:
        probe.reset(seed + 2)
    events = b.start()
    mine = sum(u.side == side for u in b.enc.units)
    st = EpisodeStats(winner="", side=side, rounds=0, size=f"{mine}v{len(b.enc.units) - mine}")
    narrate_fn = _narrator() if narrate else None
    if narrate_fn:
        st.narration += narrate_fn(events, b.enc, ruleset)
    dealt_to: dict[int, int] = {}
    units = b.enc.units
    while not b.over:
        actor = b.enc.actor
        mine = actor.side == side
        d = (learner if mine else opponent).choose(b)
        if mine:
            st.decisions += 1
            if d is None or not b.is_legal(d):
                st.illegal += 1
                d = END
            st.actions[d.action] = st.actions.get(d.action, 0) + 1
            if probe is not None:
                h = probe.choose(b)
                st.probed += 1
                if h == d:
                    st.agreed += 1
                else:
                    key = (d.action, SAME_ACTION if h.action == d.action else h.action)
                    st.departures[key] = st.departures.get(key, 0) + 1
        elif d is None or not b.is_legal(d):
            d = END
        events = b.step(d)
        for e in events:
            if e.kind == "damage" and e.target is not None:
                amount = e.data.get("amount", 0)
                if units[e.target].side == side:
                    st.damage_taken += amount
                else:
                    st.damage_dealt += amount
                    dealt_to[e.target] = dealt_to.get(e.target, 0) + amount
            elif e.kind == "turn_end" and e.actor is not None and units[e.actor].side == side:
                u = units[e.actor]
                if u.active:
                    st.turns += 1
                    st.turns_in_cover += _in_cover(b.enc, u)
        if narrate_fn:
            st.narration += narrate_fn(events, b.enc, ruleset)
    st.winner = b.enc.winner or "draw"
    if st.winner == "draw":
        standing = {u.side for u in units if u.active}
        st.draw_kind = "round_limit" if len(standing) > 1 else "none_standing"
    st.rounds = min(b.enc.round, b.enc.round_limit)
    st.units_lost = sum(1 for u in units if u.side == side and not u.active)
    total = sum(dealt_to.values())
    st.focus_fire = max(dealt_to.values()) / total if total > 0 else None
    st.final = b.enc
    return st


def _narrator():
    try:
        from engine.core.narration import narrate_events
    except ImportError:  # narration not available: a terse fallback from the raw events
        def narrate_events(events, enc, ruleset):
            return [f"{e.kind} {e.actor}->{e.target} {e.data}" for e in events if e.kind not in ("action",)]
    return narrate_events


def summarise(stats: list[EpisodeStats], catalogue: list[str] | None = None) -> dict[str, Any]:
    """Aggregate episodes into the metrics dict (also what `tactician eval --json` prints)."""
    n = len(stats)
    wins = sum(s.winner == s.side for s in stats)
    draws = sum(s.winner == "draw" for s in stats)
    losses = n - wins - draws
    decisions = sum(s.decisions for s in stats)
    actions: dict[str, int] = {k: 0 for k in catalogue or []}
    for s in stats:
        for k, v in s.actions.items():
            actions[k] = actions.get(k, 0) + v
    turns = sum(s.turns for s in stats)
    focus = [s.focus_fire for s in stats if s.focus_fire is not None]
    by_seat: dict[str, dict[str, float]] = {}
    for side in sorted({s.side for s in stats}):
        mine = [s for s in stats if s.side == side]
        by_seat[side] = {"episodes": len(mine), "win_rate": sum(s.winner == side for s in mine) / len(mine)}
    by_size: dict[str, dict[str, Any]] = {}
    for size in sorted({s.size for s in stats}, key=lambda z: tuple(int(k) for k in z.split("v"))):
        these = [s for s in stats if s.size == size]
        won = sum(s.winner == s.side for s in these)
        by_size[size] = {"episodes": len(these), "win_rate": won / len(these),
                         "win_rate_ci95": list(wilson(won, len(these))),
                         "draw_rate": sum(s.winner == "draw" for s in these) / len(these)}

    def mean(xs):
        xs = list(xs)
        return float(np.mean(xs)) if xs else 0.0

    tactics = {f"{k}_rate": (v / decisions if decisions else 0.0) for k, v in sorted(actions.items())}
    tactics["cover_rate"] = sum(s.turns_in_cover for s in stats) / turns if turns else 0.0
    tactics["focus_fire"] = mean(focus)
    tactics["illegal_rate"] = sum(s.illegal for s in stats) / decisions if decisions else 0.0
    out = {
        "episodes": n, "wins": wins, "draws": draws, "losses": losses,
        "win_rate": wins / n if n else 0.0, "draw_rate": draws / n if n else 0.0,
        "loss_rate": losses / n if n else 0.0,
        "win_rate_ci95": list(wilson(wins, n)), "draw_rate_ci95": list(wilson(draws, n)),
        "loss_rate_ci95": list(wilson(losses, n)),
        "mean_rounds": mean(s.rounds for s in stats),
        "damage_dealt": mean(s.damage_dealt for s in stats), "damage_taken": mean(s.damage_taken for s in stats),
        "units_lost": mean(s.units_lost for s in stats),
        "draws_by_kind": {kind: sum(s.draw_kind == kind for s in stats) for kind in DRAW_KINDS},
        "decisions": decisions, "by_seat": by_seat, "by_size": by_size, "tactics": tactics,
    }
    if any(s.probed for s in stats):
        out["agreement"] = agreement(stats)
    return out


def agreement(stats: list[EpisodeStats], top: int = 8) -> dict[str, Any]:
    """How often the policy decided as the probe would have: {"decisions", "rate" (the same decision),
    "same_action_rate" (the same action, whatever its square or target), "departures": the `top` commonest
    [{"policy": action, "probe": action or SAME_ACTION, "share": of all probed decisions}]}."""
    counts: dict[tuple[str, str], int] = {}
    for s in stats:
        for k, v in s.departures.items():
            counts[k] = counts.get(k, 0) + v
    probed, agreed = sum(s.probed for s in stats), sum(s.agreed for s in stats)
    same = agreed + sum(v for (_, h), v in counts.items() if h == SAME_ACTION)
    common = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {"decisions": probed, "rate": agreed / probed, "same_action_rate": same / probed,
            "departures": [{"policy": a, "probe": h, "share": v / probed} for (a, h), v in common]}


def evaluate(policy: Policy, opponent: Policy, ruleset: Ruleset | str, episodes: int = 40, seed: int = 0,
             source: EncounterSource | None = None, narrate_first: bool = False,
             progress: Callable[[int], None] | None = None,
             workers: int = 1, probe: Policy | None = None) -> tuple[dict[str, Any], list[EpisodeStats]]:
    """Play `episodes` battles (both seats of each encounter); returns (summary, per-episode stats).

    With `narrate_first`, the first episode's narration and final encounter are kept (`stats[0]`). With
    `workers` > 1 the episodes are shared out over that many forked processes: each episode depends only on
    its seed (the policies are reset with it), so the results are the same as with one. With `probe`, the
    summary's `agreement` sets the policy's decisions beside the probe's (`play_episode`).
    """
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    source = source or encounter_source(rs)
    sides = rs.sides

    def one(i: int) -> EpisodeStats:
        s = seed + i // 2
        return play_episode(rs, source(s), policy, opponent, sides[i % 2], s, narrate=narrate_first and i == 0,
                            probe=probe)

    stats: list[EpisodeStats] = []
    for i in range(episodes if workers <= 1 or "fork" not in mp.get_all_start_methods() else 1):
        stats.append(one(i))  # in this process: all of them, or the first (narrated, its final map kept)
        if progress:
            progress(i + 1)
    if len(stats) < episodes:
        global _EPISODE
        _EPISODE = one
        try:
            for st in forked_map(_play_forked, range(1, episodes), min(workers, episodes - 1),
                                 chunksize=max(1, episodes // (8 * workers))):
                stats.append(st)
                if progress:
                    progress(len(stats))
        finally:
            _EPISODE = None
    return summarise(stats, list(rs.catalogue)), stats


def card_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The figures of an `evaluate` summary that a zoo card keeps (`CARD_KEYS`)."""
    return {k: summary[k] for k in CARD_KEYS if k in summary}


def shipped_encounters(ruleset: Ruleset) -> list[Path]:
    """The ruleset's own encounters, `configs/encounters/<id>/*.yaml`: fights a GM of the system wrote, which no
    generator draws."""
    return sorted((ROOT / "configs" / "encounters" / ruleset.id).glob("*.yaml"))


def held_out(policy: Policy, ruleset: Ruleset, episodes: int, seed: int = 0,
             round_limit: int | None = None, workers: int = 1) -> dict[str, Any]:
    """`policy` against the heuristic on the ruleset's shipped encounters it never trained on, and the heuristic
    against itself on the same episodes (the control: what the heuristic's own play makes of those fights). Each
    file is played to its own `round_limit` (a GM wrote it for that fight), unless `round_limit` overrides them.

    Returns {"encounters": the files played, "left_out": {file: why} (trained on, or too large for the model's
    encoding), "round_limits": {file: rounds played to}}, and when any file is played "vs_heuristic", "control"
    (`card_summary`s) and "margin" (the policy's win rate minus the control's)."""
    trained = {(ROOT / p).resolve() for p in (((getattr(policy, "meta", None) or {}).get("train_env") or {})
                                             .get("encounters") or [])}
    files, left_out = [], {}
    for path in shipped_encounters(ruleset):
        name = str(path.relative_to(ROOT))
        why = "trained on" if path.resolve() in trained else (
            policy.why_unfit(load_encounter(path, ruleset)) if isinstance(policy, MaskablePolicy) else None)
        if why is None:
            files.append(path)
        else:
            left_out[name] = why
    names = [str(p.relative_to(ROOT)) for p in files]
    limits = {n: round_limit or load_encounter(p, ruleset).round_limit for n, p in zip(names, files)}
    out: dict[str, Any] = {"encounters": names, "left_out": left_out, "round_limits": limits}
    if not files:
        return out
    source = encounter_source(ruleset, files, None, round_limit)
    mine, _ = evaluate(policy, load_policy("heuristic", ruleset, seed=seed + 1), ruleset, episodes, seed, source,
                       workers=workers)
    control, _ = evaluate(load_policy("heuristic", ruleset, seed=seed), load_policy("heuristic", ruleset, seed=seed + 1),
                          ruleset, episodes, seed, source, workers=workers)
    out.update(vs_heuristic=card_summary(mine), control=card_summary(control),
               margin=round(mine["win_rate"] - control["win_rate"], 4))
    return out


_EPISODE: Callable[[int], EpisodeStats] | None = None  # the episode function that forked workers inherit


def _play_forked(i: int) -> EpisodeStats:
    st = _EPISODE(i)
    st.final = None  # the final encounter (and its map's caches) is only kept for the first episode
    return st


def opponent_policy(spec: str, ruleset: Ruleset, seed: int = 0) -> Policy:
    """random / heuristic / a model path / zoo:<ruleset>, as an opponent (deterministic models)."""
    return load_policy(spec, ruleset, seed=seed)


__all__ = ["wilson", "DEFAULT_ROUND_LIMIT", "encounter_source", "play_episode", "summarise", "evaluate",
           "opponent_policy", "END_TURN"]
