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
"""
from __future__ import annotations

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
                 activation: type[nn.Module], prior_features: int = 0):
        super().__init__()
        self.base_dim = features_dim - prior_dim
        self.prior_proj = nn.Linear(prior_dim, prior_features) if prior_features else None
        self.policy_net, hidden_pi = _mlp(self.base_dim + prior_features, pi, activation)
        self.value_net, self.latent_dim_vf = _mlp(self.base_dim, vf, activation)
        self.hidden_pi = hidden_pi
        self.latent_dim_pi = hidden_pi + prior_dim

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        b = self.base_dim
        base, block = features[:, :b], features[:, b:]
        if self.prior_proj is not None:
            base = th.cat([base, self.prior_proj(block_features(block))], dim=1)
        return th.cat([self.policy_net(base), block], dim=1)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features[:, :self.base_dim])


class PriorHead(nn.Module):
    """latent (features, prior block) -> Linear(features) + weight * prior block."""

    def __init__(self, hidden: int, n_actions: int, weight: float):
        super().__init__()
        self.hidden = hidden
        self.linear = nn.Linear(hidden, n_actions)
        self.weight = nn.Parameter(th.tensor(float(weight)))

    def forward(self, latent: th.Tensor) -> th.Tensor:
        return self.linear(latent[:, :self.hidden]) + self.weight * latent[:, self.hidden:]


class PriorCategorical(MaskableCategoricalDistribution):
    """The masked categorical distribution, with `PriorHead` as its action layer."""

    def __init__(self, action_dim: int, prior_dim: int, prior_weight: float):
        super().__init__(action_dim)
        self.prior_dim, self.prior_weight = prior_dim, prior_weight

    def proba_distribution_net(self, latent_dim: int) -> nn.Module:
        return PriorHead(latent_dim - self.prior_dim, self.action_dim, self.prior_weight)


class PriorPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy over an observation that ends with a prior block of `prior_dim` values
    (one per action): see the module docstring. `net_arch` as `dict(pi=[...], vf=[...])` or a list;
    `prior_features`: how many projected features of the block the actor's MLP reads (0: none)."""

    def __init__(self, *args, prior_dim: int, prior_weight: float = 2.0, prior_features: int = 0, **kwargs):
        self.prior_dim, self.prior_weight, self.prior_features = prior_dim, prior_weight, prior_features
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        pi, vf = (arch.get("pi", []), arch.get("vf", [])) if isinstance(arch, dict) else (list(arch), list(arch))
        self.mlp_extractor = PriorExtractor(self.features_dim, self.prior_dim, pi, vf, self.activation_fn,
                                            self.prior_features)

    def _build(self, lr_schedule) -> None:
        self.action_dist = PriorCategorical(int(self.action_space.n), self.prior_dim, self.prior_weight)
        super()._build(lr_schedule)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "prior_dim": self.prior_dim,
                "prior_weight": self.prior_weight, "prior_features": self.prior_features}
