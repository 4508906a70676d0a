"""Policies by name: `random`, `heuristic`, a MaskablePPO checkpoint path, or `zoo:<ruleset>`.

A checkpoint is a MaskablePPO `.zip` with a `<name>.meta.json` beside it recording the encoding it was
trained on (env id, ruleset, maximum units per side, map size, encoding signature). A model trained on
another encoding is refused with a message, never run on the wrong inputs. `ModelPolicy` plays a live model (the
one being trained) the same way.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.errors import InputError
from engine.core.policy import Policy
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.policies import RULE_POLICIES, rule_policy
from engine.rulesets import get_ruleset
from envs import env_id
from envs.codec import ActionCodec
from envs.observation import ObservationEncoder
from envs.prior import PRIORS, block_features
from envs.tactics_env import ENCODING_VERSION

ZOO = Path(__file__).parent / "zoo"


def meta_path(model_path: str | Path) -> Path:
    p = Path(model_path)
    return p.with_name(p.name.removesuffix(".zip") + ".meta.json")


def write_meta(model_path: str | Path, ruleset: Ruleset, max_per_side: int, map_size: tuple[int, int],
               prior: str | None = None, intent: bool = False, **extra) -> dict:
    codec = ActionCodec(ruleset, max_per_side, *map_size)
    enc = ObservationEncoder(ruleset, max_per_side, *map_size, prior=prior, intent=intent)
    meta = {"env_id": env_id(ruleset), "ruleset": ruleset.id, "max_per_side": max_per_side,
            "map_size": list(map_size), "encoding_signature": f"v{ENCODING_VERSION}-{codec.signature}-{enc.size}",
            **({"prior": prior} if prior else {}), **({"intent": True} if intent else {}), **extra}
    meta_path(model_path).write_text(json.dumps(meta, indent=2))
    return meta


def checked_meta(path: str | Path, ruleset: Ruleset | None = None
                 ) -> tuple[dict, Ruleset, ActionCodec, ObservationEncoder]:
    """(meta, ruleset, codec, encoder) of the model at `path`, from the .meta.json beside it, checked against this
    version's encoding without loading the model; InputError says what is missing or differs."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"no model at {path}", str(path), "give a .zip saved by `tactician train`")
    mp = meta_path(path)
    if not mp.exists():
        raise InputError(f"{mp.name} is missing beside the model", str(path),
                         "models need the .meta.json written by `tactician train`")
    meta = json.loads(mp.read_text())
    ruleset = ruleset or get_ruleset(meta["ruleset"])
    if meta["ruleset"] != ruleset.id:
        raise InputError(f"the model plays {meta['ruleset']}, not {ruleset.id}", str(path))
    (w, h) = meta["map_size"]
    codec = ActionCodec(ruleset, meta["max_per_side"], w, h)
    prior = meta.get("prior")
    if prior not in PRIORS:
        raise InputError(f"the model's observation has a '{prior}' prior this version does not know", str(path),
                         "retrain the model with this version (tactician train)")
    intent = meta.get("intent", False)
    if intent not in (False, True):
        raise InputError(f"the model's meta has intent {intent!r}; this version knows true or false", str(path),
                         "retrain the model with this version (tactician train)")
    encoder = ObservationEncoder(ruleset, meta["max_per_side"], w, h, prior=prior, intent=intent)
    mine = f"v{ENCODING_VERSION}-{codec.signature}-{encoder.size}"
    if meta["encoding_signature"] != mine:
        raise InputError(f"the model was trained on encoding {meta['encoding_signature']} "
                         f"({meta['env_id']}), this version encodes {mine} ({env_id(ruleset)})",
                         str(path), "retrain the model with this version (tactician train)")
    return meta, ruleset, codec, encoder


class MaskablePolicy(Policy):
    """A trained MaskablePPO model as an engine Policy. It always predicts with the action mask."""

    def __init__(self, path: str | Path, ruleset: Ruleset | None = None, deterministic: bool = True,
                 seed: int | None = 0):
        import torch
        from sb3_contrib import MaskablePPO

        path = Path(path)
        meta, self.ruleset, self.codec, self.encoder = checked_meta(path, ruleset)
        self.max_per_side = meta["max_per_side"]
        torch.set_num_threads(1)
        self.model = MaskablePPO.load(str(path), device="cpu")
        if self.model.action_space.n != self.codec.n or self.model.observation_space.shape != (self.encoder.size,):
            raise InputError("the model's spaces do not match its recorded encoding", str(path))
        self.meta, self.deterministic, self.name = meta, deterministic, str(path)
        self._rng = np.random.default_rng(seed)
        self._obs = np.zeros(self.encoder.size, dtype=np.float32)
        self._layers: list | None = None
        self._prior: tuple | None = None  # `_prior_part`

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def why_unfit(self, enc: Encounter) -> str | None:
        """Why this model cannot see `enc` (a map larger than its encoding's, more units a side than its slots), or
        None: its observation and actions would leave those squares and units out."""
        g = enc.grid
        w, h = self.meta["map_size"]
        if g.width > w or g.height > h:
            return f"the map is {g.width}x{g.height}; the model takes maps up to {w}x{h}"
        for side in enc.sides():
            n = sum(u.side == side for u in enc.units)
            if n > self.max_per_side:
                return f"side {side} has {n} units; the model takes up to {self.max_per_side} a side"
        return None

    def probabilities(self, battle: Battle) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities over the action space, mask) for the acting unit, with the mask applied."""
        enc, actor = battle.enc, battle.enc.actor
        mask = self.codec.mask(battle.legal(), enc, actor)
        obs = self.encoder.encode(enc, actor, self._obs, battle)
        logits = self.logits(obs)
        logits = np.where(mask, logits, -np.inf)
        logits -= logits.max()
        probs = np.exp(logits)
        return probs / probs.sum(), mask

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The policy network's action logits for one observation.

        A small MLP on one observation is faster in numpy than through torch's per-call overhead, so the
        layers are copied out once; any other architecture goes through torch."""
        if self._numpy_path():
            _, w, b = self._layers[-1]
            out = w @ self._hidden(obs) + b
            if self._prior is not None:  # PriorPolicy: + its weight times the observation's prior block
                base, k, _ = self._prior
                out += k * obs[base:]
            return out.astype(np.float64)
        import torch

        pol = self.model.policy
        with torch.no_grad():
            t = torch.as_tensor(obs[None, :])
            features = pol.extract_features(t, pol.pi_features_extractor)
            return pol.action_net(pol.mlp_extractor.forward_actor(features))[0].numpy().astype(np.float64)

    def legal_logits(self, battle: Battle) -> tuple[list[Decision], np.ndarray, np.ndarray]:
        """(decisions, their action indices, their logits) for the encodable legal decisions, in the legal
        enumeration's order: what `choose` needs, with the output layer computed for those actions only (on the
        numpy path)."""
        enc, actor = battle.enc, battle.enc.actor
        legal = battle.legal()
        pairs = [(i, d) for i, d in zip(self.codec.indices(legal, enc, actor), legal) if i is not None]
        rows = np.array([i for i, _ in pairs], dtype=np.intp)
        decisions = [d for _, d in pairs]
        obs = self.encoder.encode(enc, actor, self._obs, battle)
        if self._numpy_path():
            _, w, b = self._layers[-1]
            logits = w[rows] @ self._hidden(obs) + b[rows]
            if self._prior is not None:
                base, k, _ = self._prior
                logits += k * obs[base:][rows]
            logits = logits.astype(np.float64)
        else:
            logits = self.logits(obs)[rows]
        return decisions, rows, logits

    def _numpy_path(self) -> bool:
        """Whether the actor is a plain MLP, copied out as numpy layers (`_numpy_layers`)."""
        if self._layers is None:
            self._layers = _numpy_layers(self.model.policy) or []
            self._prior = _prior_part(self.model.policy)
        return bool(self._layers)

    def _hidden(self, obs: np.ndarray) -> np.ndarray:
        """The numpy actor up to (not including) its output layer."""
        if self._prior is not None:
            base, _, proj = self._prior
            if proj is None:
                obs = obs[:base]
            else:  # PriorPolicy with prior_features: the projected block after the observation
                w, b = proj
                obs = np.concatenate([obs[:base], w @ block_features(obs[base:]) + b])
        x = obs.astype(np.float32, copy=False)
        for kind, w, b in self._layers[:-1]:
            if kind == "linear":
                x = w @ x + b
            elif kind == "relu":
                np.maximum(x, 0, out=x)
            else:
                x = np.tanh(x)
        return x

    def rank(self, battle: Battle) -> list[tuple[Decision, float]]:
        probs, mask = self.probabilities(battle)
        order = np.argsort(-probs, kind="stable")
        out = []
        for i in order:
            if not mask[i]:
                break
            d = self.codec.decode(int(i), battle.enc, battle.enc.actor)
            if d is not None:
                out.append((d, float(probs[i])))
        return out

    def choose(self, battle: Battle) -> Decision:
        """The policy's decision: its most probable legal action, or one sampled when not deterministic
        (the same draw as sampling over the whole masked action space: the actions come in index order)."""
        decisions, rows, logits = self.legal_logits(battle)
        if self.deterministic:  # the lowest index among equal best, as argmax over the whole space picks
            best = np.flatnonzero(logits == logits.max())
            return decisions[int(best[np.argmin(rows[best])])]
        order = np.argsort(rows)
        probs = np.exp(logits[order] - logits.max())
        return decisions[int(order[self._rng.choice(len(probs), p=probs / probs.sum())])]


class ModelPolicy(MaskablePolicy):
    """A live (in-memory) MaskablePPO model as a masked engine Policy, for evaluation during training."""

    def __init__(self, model, ruleset: Ruleset, max_per_side: int, map_size: tuple[int, int],
                 deterministic: bool = True, seed: int | None = 0, prior: str | None = None, intent: bool = False):
        self.ruleset, self.model, self.max_per_side = ruleset, model, max_per_side
        self.codec = ActionCodec(ruleset, max_per_side, *map_size)
        self.encoder = ObservationEncoder(ruleset, max_per_side, *map_size, prior=prior, intent=intent)
        self.meta = {"map_size": list(map_size), "max_per_side": max_per_side}
        self.deterministic, self.name = deterministic, "learner"
        self._rng = np.random.default_rng(seed)
        self._obs = np.zeros(self.encoder.size, dtype=np.float32)
        self._layers = []  # the live model keeps training: always read its current weights through torch
        self._prior = None


def refuse_unfit(policy: Policy, enc: Encounter) -> None:
    """Raise InputError (naming the model) when `policy` is a model whose encoding is smaller than `enc` (its map,
    its units a side), as TacticsEnv refuses such an encounter; rule policies play any encounter."""
    if isinstance(policy, MaskablePolicy):
        why = policy.why_unfit(enc)
        if why is not None:
            raise InputError(f"the model cannot see encounter '{enc.name}': {why}", policy.name,
                             "use a model trained with a large enough env.map_size and env.max_per_side, or a rule "
                             "policy (heuristic)")


def _numpy_layers(policy) -> list[tuple[str, np.ndarray | None, np.ndarray | None]] | None:
    """The actor as [(kind, weight, bias)] if it is a plain flatten + Linear/ReLU/Tanh MLP, else None."""
    import torch.nn as nn
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from .prior_policy import PriorHead

    if not isinstance(policy.pi_features_extractor, FlattenExtractor):
        return None
    head = policy.action_net
    if isinstance(head, PriorHead):  # its linear part; the prior block is added apart (`_prior_part`)
        if head.square is not None:  # a square head: through torch
            return None
        head = head.linear
    out = []
    for m in [*policy.mlp_extractor.policy_net, head]:
        if isinstance(m, nn.Linear):
            out.append(("linear", m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()))
        elif isinstance(m, nn.ReLU):
            out.append(("relu", None, None))
        elif isinstance(m, nn.Tanh):
            out.append(("tanh", None, None))
        else:
            return None
    return out


def _prior_part(policy) -> tuple[int, float, tuple[np.ndarray, np.ndarray] | None] | None:
    """(where the prior block starts in the observation, its weight, the (weight, bias) of the actor's projection
    of it or None) for a PriorPolicy, else None."""
    from .prior_policy import PriorHead

    head = policy.action_net
    if not isinstance(head, PriorHead):
        return None
    proj = policy.mlp_extractor.prior_proj
    return (policy.mlp_extractor.base_dim, float(head.weight.detach()),
            None if proj is None else (proj.weight.detach().numpy().copy(), proj.bias.detach().numpy().copy()))


def shipped() -> list[str]:
    """Rulesets with a policy in the zoo."""
    return sorted(p.parent.name for p in ZOO.glob("*/model.zip")) if ZOO.is_dir() else []


def zoo_model(ruleset_id: str) -> Path:
    return ZOO / ruleset_id / "model.zip"


def load_policy(spec: str, ruleset: Ruleset | str | None = None, seed: int | None = 0,
                deterministic: bool = True) -> Policy:
    """Resolve a POLICY: 'random', 'heuristic', 'anticipating', 'zoo:<ruleset>' or a path to a checkpoint .zip."""
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if spec in RULE_POLICIES:
        return rule_policy(spec, seed)
    if spec.startswith("zoo:"):
        rid = spec[4:] or (rs.id if rs else "")
        path = zoo_model(rid)
        if not path.exists():
            raise InputError(f"no shipped policy for '{rid}'", spec,
                             f"zoo policies: {', '.join(shipped()) or 'none'}")
        return MaskablePolicy(path, rs, deterministic, seed)
    if spec.endswith(".zip") or Path(spec).exists():
        return MaskablePolicy(spec, rs, deterministic, seed)
    raise InputError(f"unknown policy '{spec}'", "POLICY",
                     f"use {', '.join(RULE_POLICIES)}, zoo:<ruleset> or a model .zip")
