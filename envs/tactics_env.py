"""TacticsEnv: one Gymnasium environment for every ruleset of the engine."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.events import Event
from engine.core.generate import random_encounter
from engine.core.policy import Policy
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.policies import rule_policy
from engine.rulesets import available, get_ruleset

from .codec import ActionCodec
from .observation import ObservationEncoder
from .render import map_picture, markers, picture_shape

ENCODING_VERSION = 0
DEFAULT_REWARDS = {"win": 1.0, "loss": -1.0, "draw": 0.0, "damage_dealt": 0.5, "damage_taken": 0.5,
                   "downed": 0.25, "lost": 0.25, "escaped": 0.0, "illegal": 0.01}


def _ruleset(rid: str | None) -> Ruleset:
    """The registered ruleset `rid`; ValueError naming the registered ids when it is missing or unknown."""
    known = ", ".join(sorted(available()))
    if not rid:
        raise ValueError(f"TacticsEnv needs a ruleset, e.g. TacticsEnv(ruleset='{min(available())}'); registered: "
                         f"{known}")
    if rid not in available():
        raise ValueError(f"unknown ruleset '{rid}'; registered: {known}")
    return get_ruleset(rid)


class TacticsEnv(gym.Env):
    """Tactical combat under one ruleset; the learner plays one side, `step()` plays everyone else.

    ## Action Space
    `Discrete(n)`: end turn, then for each action of the ruleset's catalogue its options x target slots (a
    unit, a square or a grid intersection near the actor; see `envs.codec.ActionCodec`). Only the slots in
    `action_masks()` (also in `info["action_mask"]`) are legal now; the mask is derived from the ruleset's
    `legal_actions`. An action outside the mask changes nothing and returns a small penalty with
    `info["illegal"] = True`.

    ## Observation Space
    `Box(-5, 5, (size,), float32)`: globals (round, budget left, phase), a row per unit (the acting unit,
    its allies, the other side; position, HP, the ruleset's features, attack estimates both ways) and map
    planes around the acting unit (see `envs.observation.ObservationEncoder`); optionally the enemies' predicted
    plans (`intent`) and the heuristic's score of every action (`prior`).

    ## Rewards
    +`win` / `loss` / `draw` at the end; shaping from events: `damage_dealt` and `damage_taken` (as a share
    of the other / own side's total HP), `downed` / `lost` per unit put out of the fight, `escaped` per share of
    the own side's total HP that left the battle alive (an `escaped` event: a starship's jump); `-illegal` for a
    masked-out action. Weights are configurable (`rewards=`).

    ## Episode End
    Terminated when one side (or none) is left standing; truncated when the round limit is reached. The
    last step's info has `winner`, `rounds` and `opponent` (the opponent policy's kind or name).

    ## Arguments
    `ruleset` (a registered ruleset's id, required: there is no default ruleset), `encounters` (paths or
    Encounter objects; otherwise random ones from `generator` kwargs of `engine.core.generate.random_encounter`),
    `learner_side` (a side or "random"), `opponent` ("random", "heuristic", a Policy, or a callable returning one),
    `max_per_side`, `map_size`, `rewards`, `prior` ("heuristic": the observation ends with the heuristic's score
    of every action, `envs/prior.py`; "anticipating": the anticipating heuristic's), `intent` (True: the
    observation holds what the heuristic would have each enemy do now, `envs/intent.py`).

    ## Rendering
    `render_mode="rgb_array"`: `render()` is the map picture (`envs.render.map_picture`: squares, units with
    their markers and HP bars, the acting unit outlined, column and row numbers, a legend), uint8 H x W x 3, one
    size for every frame of the env (its `map_size` and `max_per_side`), so Gymnasium's `RecordVideo` can film
    episodes (it needs moviepy). `render_mode="ansi"` (or None): the map as text with unit markers.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    CELL = 24  # pixels a square in rgb_array frames

    def __init__(self, ruleset: str | None = None, encounters: list[str | Path | Encounter] | None = None,
                 generator: dict[str, Any] | None = None, learner_side: str = "random",
                 opponent: str | Policy | Callable[[], Policy] = "heuristic", max_per_side: int = 4,
                 map_size: tuple[int, int] = (16, 16), round_limit: int | None = None,
                 rewards: dict[str, float] | None = None, record_events: bool = False,
                 render_mode: str | None = None, prior: str | None = None, intent: bool = False):
        super().__init__()
        self.rs = _ruleset(ruleset)
        self.map_w, self.map_h = map_size
        self.max_per_side = max_per_side
        self.codec = ActionCodec(self.rs, max_per_side, self.map_w, self.map_h)
        self.encoder = ObservationEncoder(self.rs, max_per_side, self.map_w, self.map_h, prior=prior, intent=intent)
        self.encounters = [e if isinstance(e, Encounter) else load_encounter(e, self.rs) for e in encounters or []]
        for e in self.encounters:
            self._check_fits(e)
        self.generator = dict(generator or {})
        self.generator.setdefault("width", self.map_w)
        self.generator.setdefault("height", self.map_h)
        self.learner_side = learner_side
        if learner_side != "random" and learner_side not in self.rs.sides:
            raise ValueError(f"learner_side '{learner_side}': use 'random' or one of {self.rs.sides}")
        self.set_opponent(opponent)
        self.round_limit = round_limit
        self.rewards = {**DEFAULT_REWARDS, **(rewards or {})}
        self.record_events = record_events
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode '{render_mode}': use one of {', '.join(self.metadata['render_modes'])} "
                             "or None")
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(self.codec.n)
        self.observation_space = spaces.Box(-5.0, 5.0, (self.encoder.size,), np.float32)
        self.battle: Battle | None = None
        self.side = self.rs.sides[0]
        self._mask = np.zeros(self.codec.n, dtype=bool)
        self._mask[0] = True
        self._obs = np.zeros(self.encoder.size, dtype=np.float32)
        self.events: list[Event] = []

    # ---- configuration ----------------------------------------------------------------------------
    @property
    def encoding_signature(self) -> str:
        return f"v{ENCODING_VERSION}-{self.codec.signature}-{self.encoder.size}"

    def set_opponent(self, opponent: str | Policy | Callable[[], Policy]) -> None:
        """Replace the policy of the other side (takes effect at once; league training swaps it per episode)."""
        if isinstance(opponent, str):
            opponent = rule_policy(opponent)
        elif not isinstance(opponent, Policy) and callable(opponent):
            opponent = opponent()
        self.opponent = opponent

    def _check_fits(self, enc: Encounter) -> None:
        g = enc.grid
        if g.width > self.map_w or g.height > self.map_h:
            raise ValueError(f"encounter '{enc.name}' is {g.width}x{g.height}; this env takes maps up to "
                             f"{self.map_w}x{self.map_h} (raise map_size)")
        per_side: dict[str, int] = {}
        for u in enc.units:
            per_side[u.side] = per_side.get(u.side, 0) + 1
        for side, n in per_side.items():
            if n > self.max_per_side:
                raise ValueError(f"encounter '{enc.name}' has {n} units on side {side}; max_per_side is "
                                 f"{self.max_per_side}")

    # ---- gymnasium API -------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        r = self.np_random
        for _ in range(20):  # re-roll the rare battle the learner loses before it acts (nothing to step)
            sub = int(r.integers(2**31))
            if self.encounters:
                enc = self.encounters[int(r.integers(len(self.encounters)))].clone()
            else:
                enc = random_encounter(self.rs, random.Random(sub), **self.generator)
                self._check_fits(enc)
            if self.round_limit:
                enc.round_limit = self.round_limit
            if options and "learner_side" in options:
                self.side = options["learner_side"]
            elif self.learner_side == "random":
                self.side = self.rs.sides[int(r.integers(len(self.rs.sides)))]
            else:
                self.side = self.learner_side
            self.battle = Battle(enc, self.rs, SeededDice(sub))
            self.opponent.reset(sub)
            self.events = self.battle.start()
            totals: dict[str, int] = {}  # max HP per side
            for u in enc.units:
                totals[u.side] = totals.get(u.side, 0) + u.max_hp
            self._totals = totals
            self._reward_from(self.events)
            self._play_others()
            if not self.battle.over:
                break
        return self._observe(), self._info()

    def step(self, action: int):
        b = self.battle
        action = int(action)
        if b is None:
            raise RuntimeError("call reset() before step()")
        enc = b.enc
        if enc.winner is not None:  # only if every re-roll in reset() ended before the learner acted
            return self._obs.copy(), 0.0, True, False, self._info()
        if not (0 <= action < self.codec.n) or not self._mask[action]:
            info = self._info()
            info["illegal"] = True
            return self._obs.copy(), -self.rewards["illegal"], False, False, info
        events = b.step(self.codec.decode(action, enc, enc.actor))
        self.events = list(events) if self.record_events else []
        reward = self._reward_from(events) + self._play_others()
        w = enc.winner
        if w is None:
            return self._observe(), float(reward), False, False, self._info()
        truncated = w == "draw" and enc.round > enc.round_limit
        reward += self.rewards["win"] if w == self.side else self.rewards["draw"] if w == "draw" \
            else self.rewards["loss"]
        return self._observe(), float(reward), not truncated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions now (MaskablePPO reads this from the env class itself)."""
        return self._mask.copy()

    def sync_opponent(self, state: dict) -> None:
        """Hand a trainer's state (e.g. its league of snapshots) to an opponent that follows it (one with a
        `sync` method); others ignore it. The trainer calls this through `VecEnv.env_method`."""
        sync = getattr(self.opponent, "sync", None)
        if sync is not None:
            sync(state)

    def render(self):
        """The map: an RGB picture with `render_mode="rgb_array"` (a blank one of the same size before `reset`),
        else text."""
        if self.render_mode == "rgb_array":
            squares, units = (self.map_w, self.map_h), self.max_per_side * len(self.rs.sides)
            if self.battle is None:
                return np.zeros(picture_shape(squares, units, self.CELL), dtype=np.uint8)
            return map_picture(self.battle.enc, self.CELL, squares, units)
        if self.battle is None:
            return ""
        enc = self.battle.enc
        rows = [list(r) for r in enc.grid.to_rows()]
        marks = markers(enc)
        for u in enc.units:
            if u.active:
                x, y = u.pos
                rows[y][x] = marks[u.id]
        return "\n".join("".join(r) for r in rows) + f"\nround {enc.round}, learner {self.side}\n"

    # ---- internals ------------------------------------------------------------------------------------
    def _play_others(self) -> float:
        """Let every non-learner unit act until it is a learner unit's turn or the battle ends."""
        b = self.battle
        enc, side = b.enc, self.side
        reward = 0.0
        while enc.winner is None and enc.actor.side != side:
            events = b.step(self.opponent.choose(b))
            if self.record_events:
                self.events += events
            reward += self._reward_from(events)
        return reward

    def _reward_from(self, events: list[Event]) -> float:
        r = 0.0
        for e in events:
            kind = e.kind
            if kind == "damage":
                if e.target is not None:
                    t = self.battle.enc.units[e.target]
                    total = max(1, self._totals.get(t.side, 1))
                    amount = e.data.get("amount", 0)
                    w = self.rewards
                    r += (-w["damage_taken"] if t.side == self.side else w["damage_dealt"]) * amount / total
            elif kind == "down" and e.target is not None:
                w = self.rewards
                r += -w["lost"] if self.battle.enc.units[e.target].side == self.side else w["downed"]
            elif kind == "escaped" and e.actor is not None:
                u = self.battle.enc.units[e.actor]
                if u.side == self.side:
                    r += self.rewards["escaped"] * u.hp / max(1, self._totals.get(u.side, 1))
        return r

    def _observe(self) -> np.ndarray:
        enc = self.battle.enc
        actor = enc.actor
        if actor is None:  # the battle is over
            actor = next((u for u in enc.units if u.side == self.side and u.active),
                         next(u for u in enc.units if u.side == self.side))
            self._mask = np.zeros(self.codec.n, dtype=bool)
            self._mask[0] = True
        else:
            self._mask = self.codec.mask(self.battle.legal(), enc, actor)
        self.encoder.encode(enc, actor, self._obs, self.battle)
        return self._obs.copy()

    def _info(self) -> dict:
        b = self.battle
        info = {"action_mask": self._mask.copy(), "learner_side": self.side}
        if b is not None and b.enc.winner is not None:
            info["winner"] = b.enc.winner
            info["rounds"] = b.enc.round
            info["opponent"] = getattr(self.opponent, "kind", None) or getattr(self.opponent, "name", "opponent")
        if self.record_events:
            info["events"] = self.events
        return info
