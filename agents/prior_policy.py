"""PriorPolicy: a masked actor-critic whose action logits start from the heuristic's scores.

The observation ends with a prior block (`envs/prior.py`: per action index, the heuristic's score of that
decision minus its best score, floored). The actor's logits are

    logits = Linear(MLP(observation without the block)) + weight * block

with `weight` learned (starting at `prior_weight`) and the linear layer starting near zero (SB3's 0.01-gain
initialisation of the action layer), so the untrained policy already plays the heuristic's choices and PPO
learns corrections to them. The critic reads the observation without the block. Saved and loaded as any
MaskablePPO policy (the class is referenced from the zip).

With `prior_features` k > 0 the actor's MLP also reads the block, through a linear projection to k features
(of `block_features(block)`, in [0, 1]): its corrections can then depend on what the heuristic prefers, not only
on the state. A model trained without it is continued with it by `agents.train.init_weights`, which zeroes the
MLP's weights of the new features, so the continued policy starts out exactly as the old one.

With `square_head` c > 0 the corrections of the square actions (every action whose target is a square of the
window around the actor: move, withdraw, the blast's point, ...) also come from one small network shared by all
squares (`SquareHead`): per square of the window it reads the observation's map planes there, the prior's value of
every square action there and a projection of the actor's latent, through c hidden units, so that a correction
learnt on one square carries to every square that looks alike, where the linear head learns each action index's
correction on its own. Its last layer starts at zero, so a model continued with it plays as before at first.
"""
from __future__ import annotations

from typing import NamedTuple

import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from envs.prior import block_features


def _mlp(n_in: int, sizes: list[int], activation: type[nn.Module]) -> tuple[nn.Sequential, int]:
    layers: list[nn.Module] = []
    for n in sizes:
        layers += [nn.Linear(n_in, n), activation()]
        n_in = n
    return nn.Sequential(*layers), n_in


class PriorExtractor(nn.Module):
    """The actor's and critic's MLPs over the observation without its last `prior_dim` values (the actor's also
    over `prior_features` projected features of them, if any); the actor's latent carries the prior block on,
    after its features."""

    def __init__(self, features_dim: int, prior_dim: int, pi: list[int], vf: list[int],
                 activation: type[nn.Module], prior_features: int = 0, carry_observation: bool = False):
        super().__init__()
        self.base_dim = features_dim - prior_dim
        self.prior_proj = nn.Linear(prior_dim, prior_features) if prior_features else None
        self.policy_net, hidden_pi = _mlp(self.base_dim + prior_features, pi, activation)
        self.value_net, self.latent_dim_vf = _mlp(self.base_dim, vf, activation)
        self.hidden_pi = hidden_pi
        self.carry_observation = carry_observation  # for a square head: the observation after the block
        self.latent_dim_pi = hidden_pi + prior_dim + (self.base_dim if carry_observation else 0)

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        b = self.base_dim
        base, block = features[:, :b], features[:, b:]
        latent = [self.policy_net(base if self.prior_proj is None
                                  else th.cat([base, self.prior_proj(block_features(block))], dim=1)), block]
        if self.carry_observation:
            latent.append(base)
        return th.cat(latent, dim=1)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features[:, :self.base_dim])


class SquareLayout(NamedTuple):
    """Where a square head finds its inputs: the action indices' window (`side` squares a side, row-major) and the
    start of each square action's block of `side`^2 indices; the observation's map planes (`planes` planes of
    `obs_side`^2 squares from `planes_at`, the same window narrowed to an odd `obs_side` <= `side`, centred on the
    actor)."""

    blocks: tuple[int, ...]
    side: int
    planes_at: int
    planes: int
    obs_side: int


def square_layout(codec, encoder) -> SquareLayout:
    """The `SquareLayout` of an action codec (`envs.codec.ActionCodec`) and an observation encoder
    (`envs.observation.ObservationEncoder`): every option of every action that targets a square of the window."""
    from envs.observation import PLANES

    blocks = tuple(start + o * slots for start, kind, options, slots in codec.blocks.values() if kind == "square"
                   for o in range(options))
    if encoder.side > codec.side:
        raise ValueError(f"a square head needs the observation's window ({encoder.side}) within the actions' "
                         f"({codec.side})")
    return SquareLayout(blocks, codec.side, encoder.n_global + encoder.n_rows * encoder.unit_width, len(PLANES),
                        encoder.side)


class SquareHead(nn.Module):
    """(latent, prior block, observation) -> a correction per square action index (see the module docstring): per
    square of the window, one hidden layer over its inputs (the map planes there, the prior's features of the square
    actions there, plus a projection of the latent shared by every square), ReLU, and one value per square action;
    the last layer starts at zero."""

    def __init__(self, hidden: int, layout: SquareLayout, channels: int):
        super().__init__()
        self.layout = layout
        k = len(layout.blocks)
        self.state = nn.Linear(hidden, channels)
        self.local = nn.Linear(layout.planes + 1 + k, channels, bias=False)
        self.out = nn.Linear(channels, k)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)
        n = layout.side * layout.side
        self.register_buffer("index", th.tensor([i for b in layout.blocks for i in range(b, b + n)]),
                             persistent=False)
        pad = (layout.side - layout.obs_side) // 2
        rim = th.ones(layout.side, layout.side)  # the action window's rim, beyond the observation's window
        rim[pad:layout.side - pad, pad:layout.side - pad] = 0
        self.register_buffer("rim", rim.reshape(1, 1, -1), persistent=False)

    def forward(self, h: th.Tensor, block: th.Tensor, obs: th.Tensor) -> th.Tensor:
        """Corrections of shape (batch, len(blocks) * side^2), in `index`'s order."""
        lay = self.layout
        b, side, k, n = h.shape[0], lay.side, len(lay.blocks), lay.side * lay.side
        planes = obs[:, lay.planes_at:lay.planes_at + lay.planes * lay.obs_side ** 2]
        planes = planes.reshape(b, lay.planes, lay.obs_side, lay.obs_side)
        pad = (side - lay.obs_side) // 2
        planes = nn.functional.pad(planes, (pad, pad, pad, pad)).reshape(b, lay.planes, n)
        prior = block_features(block[:, self.index]).reshape(b, k, n)
        local = th.cat([planes, self.rim.expand(b, 1, n), prior], dim=1).transpose(1, 2)  # (batch, square, inputs)
        x = th.relu(self.local(local) + self.state(h)[:, None, :])
        return self.out(x).transpose(1, 2).reshape(b, k * n)


class PriorHead(nn.Module):
    """latent (features, prior block[, observation]) -> Linear(features) + weight * prior block (+ a square head's
    corrections of the square actions, which read the observation)."""

    def __init__(self, hidden: int, n_actions: int, weight: float, square: SquareHead | None = None):
        super().__init__()
        self.hidden, self.n_actions = hidden, n_actions
        self.linear = nn.Linear(hidden, n_actions)
        self.weight = nn.Parameter(th.tensor(float(weight)))
        self.square = square

    def forward(self, latent: th.Tensor) -> th.Tensor:
        h, end = latent[:, :self.hidden], self.hidden + self.n_actions
        block = latent[:, self.hidden:end]
        logits = self.linear(h) + self.weight * block
        if self.square is not None:
            logits = logits.index_add(1, self.square.index, self.square(h, block, latent[:, end:]))
        return logits


class PriorCategorical(MaskableCategoricalDistribution):
    """The masked categorical distribution, with `PriorHead` as its action layer."""

    def __init__(self, action_dim: int, prior_dim: int, prior_weight: float, carried: int = 0,
                 square: tuple[SquareLayout, int] | None = None):
        super().__init__(action_dim)
        self.prior_dim, self.prior_weight, self.carried, self.square = prior_dim, prior_weight, carried, square

    def proba_distribution_net(self, latent_dim: int) -> nn.Module:
        hidden = latent_dim - self.prior_dim - self.carried
        square = None if self.square is None else SquareHead(hidden, *self.square)
        return PriorHead(hidden, self.action_dim, self.prior_weight, square)


class PriorPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy over an observation that ends with a prior block of `prior_dim` values
    (one per action): see the module docstring. `net_arch` as `dict(pi=[...], vf=[...])` or a list;
    `prior_features`: how many projected features of the block the actor's MLP reads (0: none); `square_head`: the
    hidden units of a `SquareHead` (0: none), with `square_layout` (a `SquareLayout` as a tuple) saying where its
    inputs are."""

    def __init__(self, *args, prior_dim: int, prior_weight: float = 2.0, prior_features: int = 0,
                 square_head: int = 0, square_layout: tuple | None = None, **kwargs):
        self.prior_dim, self.prior_weight, self.prior_features = prior_dim, prior_weight, prior_features
        if square_head and square_layout is None:
            raise ValueError("a square head needs its square_layout")
        self.square_head = square_head
        self.square_layout = None if not square_head else tuple(SquareLayout(*square_layout))
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        pi, vf = (arch.get("pi", []), arch.get("vf", [])) if isinstance(arch, dict) else (list(arch), list(arch))
        self.mlp_extractor = PriorExtractor(self.features_dim, self.prior_dim, pi, vf, self.activation_fn,
                                            self.prior_features, carry_observation=bool(self.square_head))

    def _build(self, lr_schedule) -> None:
        square = (SquareLayout(*self.square_layout), self.square_head) if self.square_head else None
        carried = self.features_dim - self.prior_dim if square else 0  # the observation after the block
        self.action_dist = PriorCategorical(int(self.action_space.n), self.prior_dim, self.prior_weight, carried,
                                            square)
        super()._build(lr_schedule)
        if square:  # SB3's orthogonal initialisation has just redrawn it: the head starts with no say
            nn.init.zeros_(self.action_net.square.out.weight)
            nn.init.zeros_(self.action_net.square.out.bias)

    def _get_constructor_parameters(self) -> dict:
        out = {**super()._get_constructor_parameters(), "prior_dim": self.prior_dim,
               "prior_weight": self.prior_weight, "prior_features": self.prior_features}
        if self.square_head:  # (absent from older models' saved parameters, whose defaults they keep)
            out.update(square_head=self.square_head, square_layout=self.square_layout)
        return out
