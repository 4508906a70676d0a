"""Training configs: YAML validated by pydantic before anything trains.

Every section forbids unknown keys; a bad value fails with its dotted key path and what is allowed
(`ConfigError`). Numbers written as strings (`3e-4`, which YAML 1.1 reads as a string) are accepted.

    ruleset (required)  the ruleset id: there is no default
    env                 where the learner fights (encounter source, sizes, opponent schedule, rewards)
    ppo                 MaskablePPO hyperparameters
    train               length, seed, vectorisation, checkpoint cadence
    eval                evaluation cadence and size (during training and at the end)
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator)


class ConfigError(ValueError):
    """A config that cannot be used; the message names every bad key path and what is allowed."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_from_strings(cls, v: Any, info) -> Any:
        # YAML 1.1 reads `3e-4` as a string; accept any string that is a plain number.
        if isinstance(v, str):
            field = cls.model_fields.get(info.field_name)
            ann = str(field.annotation) if field is not None else ""
            if ("float" in ann or "int" in ann) and "str" not in ann:
                try:
                    f = float(v.replace("_", ""))
                except ValueError:
                    return v
                return int(f) if "int" in ann and "float" not in ann and f.is_integer() else f
        return v


class GeneratorConfig(_Section):
    """Random encounters (engine.core.generate.random_encounter). The variety a policy should generalise over
    (layouts, map sizes, wounded starts, uneven sides) is opt-in: the defaults draw what they always drew."""

    width: int = Field(16, ge=6, le=64, description="map width in squares (at most env.map_size[0])")
    height: int = Field(16, ge=6, le=64, description="map height in squares (at most env.map_size[1])")
    sizes: tuple[int, int] = Field((2, 4), description="[min, max] units per side")
    pools: dict[str, list[str]] | None = Field(
        None, description="templates to draw from per side, e.g. {pcs: [trooper], npcs: [trooper]}; all if unset")
    mirrored: bool = Field(True, description="point-symmetric map and the same templates on both sides")
    layouts: list[str] = Field(default_factory=lambda: ["scatter"],
                               description="map layouts to draw from (engine.core.generate.LAYOUTS): scatter (walls "
                                           "and cover scattered), open (a field), rooms (walls with doors), corridors")
    min_width: int | None = Field(None, ge=6, description="draw the map's width from min_width..width (unset: always "
                                                          "width)")
    min_height: int | None = Field(None, ge=6, description="draw the map's height from min_height..height (unset: "
                                                           "always height)")
    wounded: float = Field(0.0, ge=0, le=1, description="chance that a unit starts with 25-90% of its hit points")
    uneven: bool = Field(False, description="draw each side's number of units on its own (needs mirrored: false)")
    balance: float | None = Field(
        None, ge=1, description="sides of their own stat blocks that are still a fair fight (needs mirrored: false): "
                                "the strength ratio allowed between the sides, e.g. 1.25 (engine.core.balance); "
                                "unset: the sides are drawn on their own, however lopsided")

    @field_validator("sizes")
    @classmethod
    def _sizes(cls, v: tuple[int, int]) -> tuple[int, int]:
        if not 1 <= v[0] <= v[1]:
            raise ValueError("sizes is [min, max] with 1 <= min <= max")
        return v

    @field_validator("layouts")
    @classmethod
    def _layouts(cls, v: list[str]) -> list[str]:
        from engine.core.generate import LAYOUTS
        if not v:
            raise ValueError(f"layouts needs at least one layout, e.g. [scatter]; layouts: {', '.join(LAYOUTS)}")
        for name in v:
            if name not in LAYOUTS:
                raise ValueError(f"layouts: unknown layout '{name}'; layouts: {', '.join(LAYOUTS)}")
        return v

    @model_validator(mode="after")
    def _ranges(self) -> "GeneratorConfig":
        for key, low, high in (("min_width", self.min_width, "width"), ("min_height", self.min_height, "height")):
            if low is not None and low > getattr(self, high):
                raise ValueError(f"{key} {low} is larger than {high} {getattr(self, high)}: the map's {high} is drawn "
                                 f"from {key}..{high}; lower {key} or raise {high}")
        if self.uneven and self.mirrored:
            raise ValueError("uneven draws each side's units on its own, which a mirrored map cannot place: set "
                             "mirrored: false or uneven: false")
        if self.balance is not None and self.mirrored:
            raise ValueError("balance draws each side's stat blocks on its own (mirrored sides are already even): set "
                             "mirrored: false or remove balance")
        return self

    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments of `random_encounter` (the env's `generator`, the evaluation's source)."""
        return {"width": self.width, "height": self.height, "sizes": tuple(self.sizes), "pools": self.pools,
                "mirrored": self.mirrored, "layouts": tuple(self.layouts), "min_width": self.min_width,
                "min_height": self.min_height, "wounded": self.wounded, "uneven": self.uneven,
                "balance": self.balance}


class RewardConfig(_Section):
    """Reward weights (see envs.tactics_env.TacticsEnv)."""

    win: float = Field(1.0, description="reward for winning")
    loss: float = Field(-1.0, description="reward for losing")
    draw: float = Field(0.0, description="reward for a draw (both down or the round limit)")
    damage_dealt: float = Field(0.5, ge=0, description="per share of the enemy side's total HP dealt")
    damage_taken: float = Field(0.5, ge=0, description="penalty per share of the own side's total HP taken")
    downed: float = Field(0.25, ge=0, description="per enemy unit put out of the fight")
    lost: float = Field(0.25, ge=0, description="penalty per own unit put out of the fight")
    escaped: float = Field(0.0, ge=0, description="per share of the own side's total HP that left the battle alive "
                           "(a starship's jump to cruising speed): what got away is worth something")
    illegal: float = Field(0.01, ge=0, description="penalty for a masked-out action (never happens with masks)")


class OpponentStage(_Section):
    """Share of episodes played against each kind of opponent, until a step count."""

    until: int | None = Field(None, ge=1, description="this stage ends at this many timesteps (unset: last stage)")
    random: float = Field(0.0, ge=0, description="weight of the random policy")
    heuristic: float = Field(0.0, ge=0, description="weight of the heuristic policy")
    league: float = Field(0.0, ge=0, description="weight of frozen snapshots of the learner itself")
    checkpoint: float = Field(0.0, ge=0, description="weight of the fixed checkpoint in opponent.checkpoint")

    @model_validator(mode="after")
    def _weights(self) -> "OpponentStage":
        total = self.random + self.heuristic + self.league + self.checkpoint
        if total <= 0:
            raise ValueError("a stage needs a positive weight on random, heuristic, league or checkpoint")
        if self.league > 0 and self.heuristic <= 0:
            raise ValueError("a stage with league games needs heuristic > 0 (the heuristic share never drops to 0)")
        return self

    def shares(self) -> dict[str, float]:
        total = self.random + self.heuristic + self.league + self.checkpoint
        return {k: getattr(self, k) / total for k in ("random", "heuristic", "league", "checkpoint")
                if getattr(self, k) > 0}


class OpponentConfig(_Section):
    """Who the learner fights: a schedule of stages mixing random, heuristic, league and a checkpoint.

    Shorthands: `opponent: random`, `heuristic`, `league` (70% snapshots, 30% heuristic) or a path to a
    model .zip.
    """

    stages: list[OpponentStage] = Field(default_factory=lambda: [OpponentStage(random=1.0)],
                                        description="stages in order; the last one has no `until`")
    checkpoint: str | None = Field(None, description="a model .zip played when a stage weights `checkpoint`")
    snapshot_every: int = Field(50_000, ge=1, description="save a frozen league snapshot every this many steps")
    max_snapshots: int = Field(8, ge=1, description="league opponents are sampled from the newest this many")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, v: Any) -> Any:
        if isinstance(v, str):
            if v in ("random", "heuristic"):
                return {"stages": [{v: 1.0}]}
            if v == "league":
                return {"stages": [{"heuristic": 0.3, "league": 0.7}]}
            return {"stages": [{"checkpoint": 1.0}], "checkpoint": v}
        return v

    @model_validator(mode="after")
    def _order(self) -> "OpponentConfig":
        if not self.stages:
            raise ValueError("stages needs at least one stage")
        last = 0
        for i, s in enumerate(self.stages):
            if i < len(self.stages) - 1:
                if s.until is None:
                    raise ValueError(f"stages[{i}] needs `until` (only the last stage may leave it unset)")
                if s.until <= last:
                    raise ValueError(f"stages[{i}].until must be larger than the previous stage's")
                last = s.until
        if any(s.checkpoint > 0 for s in self.stages) and not self.checkpoint:
            raise ValueError("a stage weights `checkpoint` but opponent.checkpoint (a model .zip) is unset")
        if self.checkpoint and not Path(self.checkpoint).exists():
            raise ValueError(f"checkpoint {self.checkpoint} does not exist")
        return self

    def stage_at(self, step: int) -> OpponentStage:
        for s in self.stages:
            if s.until is None or step < s.until:
                return s
        return self.stages[-1]

    @property
    def uses_league(self) -> bool:
        return any(s.league > 0 for s in self.stages)


class EnvConfig(_Section):
    """The environment the learner trains in (`tactician/<Ruleset>-v0`)."""

    encounters: list[str] = Field(default_factory=list,
                                  description="encounter files to sample from; random generation if empty")
    generator: GeneratorConfig = Field(default_factory=GeneratorConfig, description="random encounter settings")
    max_per_side: int = Field(4, ge=1, le=16, description="unit slots per side in the observation and actions")
    map_size: tuple[int, int] = Field((16, 16), description="largest map [width, height] the encoding takes")
    learner_side: str = Field("random", description="side the learner plays, or 'random' each episode")
    round_limit: int = Field(20, ge=1, description="rounds before a draw")
    opponent: OpponentConfig = Field(default_factory=OpponentConfig, description="opponent schedule")
    rewards: RewardConfig = Field(default_factory=RewardConfig, description="reward weights")
    prior: Literal["none", "heuristic", "anticipating"] = Field(
        "none", description="'heuristic': the observation ends with the heuristic's score of every action and "
                            "the policy adds it to its logits (agents/prior_policy.py); no imitation is needed; "
                            "'anticipating': the anticipating heuristic's scores (in a simultaneous phase, where the "
                            "others' movements will leave them: engine/policies/anticipating.py)")

    intent: bool = Field(False, description="true: the observation also holds what the heuristic would have each "
                                            "enemy do now, a model of the other side (envs/intent.py; slower steps)")

    @property
    def observation_prior(self) -> str | None:
        """The observation's prior block (the encoder's `prior`, envs/prior.py), or None."""
        return None if self.prior == "none" else self.prior

    def trained_on(self) -> dict[str, Any]:
        """The encounters this env trains on, as a model's meta records them (`train_env`) and the evaluation reads
        them (`agents.evaluate.source_for`): its files, its generator, its round limit."""
        return {"encounters": list(self.encounters), "generator": self.generator.model_dump(mode="json"),
                "round_limit": self.round_limit}

    @model_validator(mode="after")
    def _fits(self) -> "EnvConfig":
        w, h = self.map_size
        if w < 4 or h < 4:
            raise ValueError("map_size must be at least [4, 4]")
        if not self.encounters and (self.generator.width > w or self.generator.height > h):
            raise ValueError(f"generator is {self.generator.width}x{self.generator.height} but map_size is "
                             f"{w}x{h}; raise map_size or shrink the generator")
        if not self.encounters and self.generator.sizes[1] > self.max_per_side:
            raise ValueError(f"generator.sizes allows {self.generator.sizes[1]} units a side but max_per_side "
                             f"is {self.max_per_side}")
        for p in self.encounters:
            if not Path(p).exists():
                raise ValueError(f"encounter file {p} does not exist")
        return self


class PPOConfig(_Section):
    """MaskablePPO hyperparameters (names as in stable-baselines3)."""

    learning_rate: float = Field(3e-4, gt=0, le=1, description="Adam step size")
    lr_schedule: Literal["constant", "linear"] = Field("constant", description="constant, or linear decay to 0")
    n_steps: int = Field(256, ge=1, description="steps per env per rollout (rollout = n_envs * n_steps)")
    batch_size: int = Field(1024, ge=2, description="minibatch size")
    n_epochs: int = Field(4, ge=1, description="passes over each rollout")
    gamma: float = Field(0.99, gt=0, le=1, description="discount")
    gae_lambda: float = Field(0.95, ge=0, le=1, description="GAE lambda")
    clip_range: float = Field(0.2, gt=0, description="PPO clip")
    ent_coef: float = Field(0.01, ge=0, description="entropy bonus")
    vf_coef: float = Field(0.5, ge=0, description="value loss weight")
    max_grad_norm: float = Field(0.5, gt=0, description="gradient clipping")
    target_kl: float | None = Field(None, gt=0, description="stop an update early past this KL")
    net_arch: list[int] = Field(default_factory=lambda: [128, 128],
                                description="hidden layer sizes of the policy and the value networks")
    activation: Literal["tanh", "relu"] = Field("tanh", description="activation function")
    prior_features: int = Field(0, ge=0, le=512, description="with env.prior: the actor's MLP also reads the prior "
                                "block, projected to this many features, so that its corrections can depend on "
                                "what the heuristic prefers (0: it reads the observation only)")
    square_head: int = Field(0, ge=0, le=256, description="with env.prior: hidden units of a network shared by "
                             "every square of the actions' window that adds its correction to each square action "
                             "(agents/prior_policy.py SquareHead), reading the map there and the prior's scores of "
                             "the square actions there (0: none; a run from train.init_from without one starts "
                             "with it silent)")
    prior_weight: float = Field(2.0, gt=0, description="with env.prior: the starting weight of the prior block in "
                                "the action logits of a new model (learned from there; a run from train.init_from "
                                "keeps its model's); lower samples more of the heuristic's alternatives at the start")


class TrainSection(_Section):
    """Training length, seed, vectorisation and checkpoints."""

    total_timesteps: int = Field(1_000_000, ge=1, description="learner steps to train for")
    seed: int = Field(0, ge=0, description="seed of the model and the envs")
    n_envs: int = Field(16, ge=1, description="envs stepped together")
    workers: int = Field(1, ge=1, le=64, description="processes stepping the envs: 1 = all in the learner's process "
                                                      "(DummyVecEnv); more = n_envs split over that many worker "
                                                      "processes (agents/vec_env.py), for machines with cores to "
                                                      "spare (the learner's own work needs one)")
    pipeline: bool = Field(True, description="with workers > 1: act for each worker's envs as soon as they have "
                                             "stepped, so that a worker steps on while the learner waits for the "
                                             "others (~1.1x faster on 2 cores; the same samples, in the same order)")
    worker_rollouts: bool = Field(True, description="with workers > 1 and a plain MLP policy or a prior policy "
                                                    "without a square head: each worker plays its envs' whole "
                                                    "rollout with a copy of the policy (which does not change during "
                                                    "a rollout) and streams the steps back, instead of a round trip "
                                                    "to the learner per step (training ~1.1x faster on 2 cores; the "
                                                    "same algorithm, other random draws)")
    worker_groups: int = Field(2, ge=1, le=64, description="with workers > 1 and rollouts not played in them: groups "
                                                          "of envs per worker, stepped in turn, so that with the "
                                                          "pipeline a worker steps one group while the learner acts "
                                                          "for another (~1.05x faster on 2 cores; the same samples, "
                                                          "the network's floats rounded differently)")
    torch_threads: int = Field(1, ge=1, le=64, description="torch.set_num_threads while collecting rollouts")
    update_threads: int | None = Field(None, ge=1, le=64,
                                       description="torch threads for the gradient updates, when in-process envs are "
                                                   "idle (None: torch_threads); on 2 cores, 2 makes the updates ~40% "
                                                   "faster, which shows end to end only when the envs are cheap")
    adaptive_threads: bool = Field(True, description="with update_threads above torch_threads: time the updates' "
                                                     "minibatches with both counts and use the faster (another "
                                                     "process keeping a core busy makes 2 threads 5-10x slower than "
                                                     "1); false: always update_threads")
    checkpoint_freq: int = Field(100_000, ge=1, description="save checkpoints/step_<N>.zip every this many steps")
    progress_bar: bool = Field(True, description="show a progress bar")
    init_from: str | None = Field(
        None, description="a model .zip (e.g. agents/zoo/saga/model.zip) whose policy and value weights PPO starts "
                          "from, with a fresh optimizer and step count; needs the same encoding, net_arch and "
                          "activation, and imitation.samples 0")

    @field_validator("init_from")
    @classmethod
    def _init_from(cls, v: str | None) -> str | None:
        if v is not None and not Path(v).exists():
            raise ValueError(f"init_from {v} does not exist")
        return v


class EvalSection(_Section):
    """Masked evaluation on fixed seeds, both seats of each encounter."""

    freq: int = Field(50_000, ge=1, description="evaluate every this many timesteps")
    episodes: int = Field(40, ge=2, description="episodes per opponent during training (even: both seats)")
    final_episodes: int = Field(200, ge=2, description="episodes per opponent for eval.json at the end")
    opponents: list[str] = Field(default_factory=lambda: ["random", "heuristic"],
                                 description="random, heuristic, or model .zip paths")
    seed: int = Field(10_000, ge=0, description="first evaluation seed (fixed across evaluations)")
    sample_battle: bool = Field(True, description="log a narrated sample battle and its final map")
    workers: int = Field(1, ge=1, le=64, description="processes playing the evaluation episodes (forked; the same "
                                                      "results); 2 on 2 cores halves the evaluations' time")


class ImitationSection(_Section):
    """Behaviour cloning from a rule-based teacher before PPO (a warm start; 0 samples = off)."""

    samples: int = Field(0, ge=0, description="teacher decisions to record (0 = no warm start)")
    teacher: Literal["heuristic"] = Field("heuristic", description="who demonstrates")
    opponent: Literal["random", "heuristic"] = Field("heuristic", description="the other side while recording")
    epochs: int = Field(10, ge=1, description="passes over the demonstrations")
    batch_size: int = Field(1024, ge=2, description="minibatch size")
    learning_rate: float = Field(1e-3, gt=0, le=1, description="Adam step size for cloning")
    value_coef: float = Field(0.5, ge=0, description="weight of fitting the value net to the returns")
    workers: int = Field(2, ge=1, le=64, description="processes recording demonstrations")


class TrainConfig(_Section):
    """A whole training run."""

    name: str = Field("run", pattern=r"^[A-Za-z0-9_.-]+$", description="run name (runs/<name>__<timestamp>/)")
    ruleset: str = Field(..., description="ruleset id (required: there is no default ruleset)")
    env: EnvConfig = Field(default_factory=EnvConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    train: TrainSection = Field(default_factory=TrainSection)
    eval: EvalSection = Field(default_factory=EvalSection)
    imitation: ImitationSection = Field(default_factory=ImitationSection)

    @model_validator(mode="after")
    def _cross(self) -> "TrainConfig":
        from engine.rulesets import available
        rulesets = sorted(available())
        if self.ruleset not in rulesets:
            raise ValueError(f"ruleset '{self.ruleset}' is unknown; available: {', '.join(rulesets)}")
        from engine.rulesets import get_ruleset
        rs = get_ruleset(self.ruleset)
        side = self.env.learner_side
        if side != "random" and side not in rs.sides:
            raise ValueError(f"env.learner_side '{side}': use 'random' or one of {', '.join(rs.sides)}")
        pools = self.env.generator.pools or {}
        names = set(rs.templates())
        for s, templates in pools.items():
            if s not in rs.sides:
                raise ValueError(f"env.generator.pools: unknown side '{s}' (sides: {', '.join(rs.sides)})")
            for t in templates:
                if t not in names:
                    raise ValueError(f"env.generator.pools.{s}: unknown template '{t}' "
                                     f"(templates: {', '.join(sorted(names))})")
        if self.train.init_from and self.imitation.samples > 0:
            raise ValueError("train.init_from starts from a trained model's weights: set imitation.samples to 0 "
                             "(the two warm starts exclude each other)")
        for key in ("prior_features", "square_head"):
            if getattr(self.ppo, key) and self.env.prior == "none":
                raise ValueError(f"ppo.{key} reads the observation's prior block: set env.prior (e.g. "
                                 f"'heuristic') or set ppo.{key} to 0")
        rollout = self.ppo.n_steps * self.train.n_envs
        if self.ppo.batch_size > rollout:
            raise ValueError(f"ppo.batch_size {self.ppo.batch_size} is larger than the rollout "
                             f"(ppo.n_steps * train.n_envs = {rollout})")
        return self

    # ---- helpers -----------------------------------------------------------------------------------
    def dump(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def _format(err: ValidationError) -> str:
    lines = []
    for e in err.errors():
        path = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
            parent = _model_at(TrainConfig, e["loc"][:-1])
            if parent is not None:
                msg += f"; allowed here: {', '.join(parent.model_fields)}"
        elif e["type"] == "literal_error":
            msg = msg.replace("Input should be", "allowed:")
        if e["type"] == "missing" and tuple(e["loc"]) == ("ruleset",):
            from engine.rulesets import available
            msg += f"; set `ruleset:` to one of {', '.join(sorted(available()))}"
        lines.append(f"  {path}: {msg} (got {e.get('input')!r})" if e["type"] != "missing" else f"  {path}: {msg}")
    return "invalid config:\n" + "\n".join(lines)


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        ann = field.annotation
        inner = getattr(ann, "__args__", None)
        cand = [ann] + list(inner or [])
        nxt = None
        for c in cand:
            for cc in [c] + list(getattr(c, "__args__", None) or []):
                if isinstance(cc, type) and issubclass(cc, BaseModel):
                    nxt = cc
        if nxt is None:
            return None
        model = nxt
    return model


def parse_value(text: str) -> Any:
    """A --set value: YAML scalar / list / mapping (so `3e-4`, `[64, 64]`, `true` and `heuristic` all work)."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """Apply `key.path=value` overrides to a raw config mapping (validated afterwards with the rest)."""
    data = copy.deepcopy(data)
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"--set {item!r}: write key.path=value, e.g. ppo.learning_rate=1e-4")
        key, value = item.split("=", 1)
        parts = key.strip().split(".")
        node = data
        model: type[BaseModel] | None = TrainConfig
        for i, p in enumerate(parts[:-1]):
            if model is not None and p not in model.model_fields:
                raise ConfigError(f"--set {key}: unknown key '{'.'.join(parts[:i + 1])}'; allowed here: "
                                  f"{', '.join(model.model_fields)}")
            model = _model_at(model, (p,)) if model is not None else None
            nxt = node.get(p)
            if not isinstance(nxt, dict):
                nxt = node[p] = {} if nxt is None or model is not None else nxt
            node = nxt
        if model is not None and parts[-1] not in model.model_fields:
            raise ConfigError(f"--set {key}: unknown key '{key}'; allowed here: {', '.join(model.model_fields)}")
        node[parts[-1]] = parse_value(value)
    return data


def load_config(path: str | Path | None = None, overrides: list[str] | None = None,
                data: dict | None = None) -> TrainConfig:
    """Read, override and validate a config; raises ConfigError with key paths on any problem (read from a file:
    the message starts with the file, once; bad YAML: its line and column)."""
    if data is None:
        p = Path(path)
        if not p.exists():
            raise ConfigError(f"no config file at {p}")
        try:
            data = yaml.safe_load(p.read_text()) or {}
        except yaml.YAMLError as e:
            raise ConfigError(_yaml_error(p, e)) from None
        if not isinstance(data, dict):
            raise ConfigError(f"{p}: the config must be a mapping of sections (name, ruleset, env, ppo, train, eval)")
        try:
            return _validated(data, overrides)
        except ConfigError as e:
            raise ConfigError(f"{p}: {e}") from None
    return _validated(data, overrides)


def _validated(data: dict, overrides: list[str] | None) -> TrainConfig:
    data = apply_overrides(data, overrides or [])
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(_format(e)) from None


def _yaml_error(path: Path, err: yaml.YAMLError) -> str:
    """'PATH line L, column C: not valid YAML: what (where it started)': the file once, where the parser stopped."""
    mark, ctx = getattr(err, "problem_mark", None), getattr(err, "context_mark", None)
    where = f"{path} line {mark.line + 1}, column {mark.column + 1}" if mark is not None else str(path)
    what = getattr(err, "problem", None) or str(err).splitlines()[0]
    if ctx is not None and (mark is None or (ctx.line, ctx.column) != (mark.line, mark.column)):
        what += f" ({getattr(err, 'context', None) or 'started'} on line {ctx.line + 1}, column {ctx.column + 1})"
    return f"{where}: not valid YAML: {what}; check the indentation, colons, brackets and quotes there"
