"""FastMaskablePPO: sb3-contrib's MaskablePPO (same algorithm, same loss, masks always applied) without its
per-step and per-minibatch overheads, which bound the trainer when the envs are cheap.

What differs from `sb3_contrib.MaskablePPO`, and why it learns the same thing:
  * the masked categorical over the ~1,500 actions is computed directly from the logits
    (`masked_log_prob_entropy`, with its gradient in closed form; `masked_sample`) instead of through
    `MaskableCategorical`, which normalises the logits three times per distribution and samples with
    `torch.multinomial` (~1.3 ms for 32 envs). Same masking (masked logits set to -1e8), same
    log-probabilities, entropy and gradients (to float rounding; tests/training/test_fast_ppo.py), the same
    distribution sampled (by its cumulative sum);
  * the updates' first layers (the actor's and the critic's) run over the observations' non-zeros when the
    rollout's observations are mostly zeros (`SparseFirstLayers` over the buffer's `sparse_observations`, in C:
    agents/_kernels.c): the same products and gradients, to float rounding, at about a third of their cost on
    Saga skirmishes (~225 non-zeros in 2,247); the masked categorical's statistics run in C too when few actions
    are legal;
  * the updates compute logits only for the actions legal in some state of the rollout (buffer
    `legal_columns`, `get(legal_only=True)`, `legal_logits`; with a plain Linear action head): a masked action has probability 0
    and no gradient, so the loss and its gradients are the same, at about a quarter of the action head's cost
    on Saga skirmishes (~420 of 1,519 actions);
  * rollouts run a plain MLP policy on transposed copies of its weights taken at the start of each rollout
    (`_acting_net`; the same products, ~2x faster for 32 rows);
  * action masks come from the vec env as one array collected while stepping (`vec_action_masks`) instead
    of one `env_method` call per env per step (a pipe round trip per step for worker processes);
  * the rollout buffer (`FastMaskableRolloutBuffer`) is allocated once, stores observations and masks
    env-major (so the flattening before the update is a view, not a 37 MB copy) and masks as booleans,
    and cuts minibatches with `index_select` on tensors (the same `np.random.permutation` draw as SB3);
  * Adam runs fused (one kernel per step instead of ~10 ops per parameter tensor; the same update);
  * optionally (`update_threads`, a ThreadChooser) the updates' torch thread count is picked from timed
    minibatches, since on a shared machine a second thread can make them several times slower;
  * with env worker processes (`pipeline`, ShardedVecEnv `set_prefetch`) each group of envs gets its next
    actions as soon as its step is read: the same samples from the same generator (a step's uniforms are drawn
    for all envs at once), so the same rollouts, with less waiting for the slower worker (with several groups a
    worker, the network runs on fewer rows at a time, and its floats round differently);
  * with `worker_rollouts` and a plain MLP policy the env workers play the whole rollout themselves with a copy of
    the policy (`WorkerActor`, frozen for the rollout as PPO has it; ShardedVecEnv `start_rollout`) and stream the
    steps back, which the callbacks and the buffer take one at a time: the same algorithm without a round trip per
    step; the samples come from uniforms drawn at the rollout's start, so they differ from lockstep's. The copy acts
    in C (`agents/_kernels.c`: layers summed over their non-zero inputs, logits for the legal actions only; the same
    draws, log-probabilities and values to float rounding), ~0.5 ms a step of 32 envs against ~3 ms in torch. A
    prior policy without a square head is played there too (`PriorWorkerActor`, in torch on one thread): its envs
    cost more than its network, and the round trips left the workers waiting a fifth of each rollout.

The policy is the standard `MaskableActorCriticPolicy` (`"MlpPolicy"`) and nothing of this class goes into a
saved zip: models save and load as plain MaskablePPO models (`MaskablePPO.load` reads them, and
`FastMaskablePPO.load` reads theirs). Anything outside the fast path (another action space or distribution,
`use_masking=False`, a vec env without collected masks) falls back to the sb3-contrib code.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Generator
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.buffers import RolloutBuffer
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.torch_layers import FlattenExtractor, MlpExtractor
from stable_baselines3.common.utils import explained_variance, obs_as_tensor
from stable_baselines3.common.vec_env import VecEnv
from torch.nn import functional as F

from envs.prior import FLOOR, block_features

from .prior_policy import PriorExtractor, PriorHead
from .vec_env import ShardedVecEnv

try:  # the policy's hot loops in C (agents/_kernels.c), built by `pip install`; torch otherwise
    from . import _kernels
except ImportError:  # pragma: no cover - only without a C compiler
    _kernels = None

MASKED_LOGIT = -1e8  # what sb3-contrib's MaskableCategorical puts in place of a masked logit
SUBSET_SHARE = 0.75  # updates compute only the legal actions' logits when they are at most this share of them
# updates compute the first layers over the observations' non-zeros when those are at most this share of their
# entries, and the masked categorical in C when at most this share of the actions are legal
SPARSE_SHARE = 0.25


# ---- the masked categorical ------------------------------------------------------------------------
class _MaskedCategoricalStats(th.autograd.Function):
    """log-probability of the taken actions and entropy of the masked categorical, with the gradient written
    out (four passes over the batch x n logits instead of autograd's ten through where / log_softmax /
    softmax / mul / sum / gather):
        d log p_a / dz_k = [k = a] - p_k,        dH / dz_k = -p_k (log p_k + H).
    A masked action has p_k = 0 exactly, so its logit gets no gradient, as through sb3-contrib's `where`."""

    @staticmethod
    def forward(ctx, logits: th.Tensor, masks: th.Tensor, actions: th.Tensor):  # type: ignore[override]
        index = actions.long().view(-1, 1)
        # in C (agents/_kernels.c) when few actions are legal: it computes only theirs; torch's vectorised
        # softmax is faster when most are (as in the do-nothing env of `tactician bench`)
        if (_kernels is not None and logits.dtype == th.float32
                and masks[:64].sum().item() <= SPARSE_SHARE * masks[:64].numel()):
            z = logits.detach().contiguous()
            p, log_p = th.empty_like(z), th.empty_like(z)
            log_prob, entropy = th.empty(len(z)), th.empty(len(z))
            _kernels.masked_stats(z.numpy(), masks.to(th.bool).contiguous().numpy(),
                                  index.view(-1).contiguous().numpy(), log_prob.numpy(), entropy.numpy(), p.numpy(),
                                  log_p.numpy())
            ctx.save_for_backward(p, log_p, entropy, index)
            ctx.in_c = True
            return log_prob, entropy
        ctx.in_c = False
        masked = th.where(masks, logits, th.tensor(MASKED_LOGIT, dtype=logits.dtype))
        log_p = th.log_softmax(masked, dim=-1)
        # softmax, not exp(log_p): torch's CPU exp is ~20x slower on the huge negative numbers of masked actions
        p = th.softmax(masked, dim=-1)
        entropy = -th.linalg.vecdot(p, log_p)  # a masked action: 0 * (-1e8) = 0
        ctx.save_for_backward(p, log_p, entropy, index)
        return log_p.gather(1, index).squeeze(1), entropy

    @staticmethod
    def backward(ctx, g_log_prob: th.Tensor, g_entropy: th.Tensor):  # type: ignore[override]
        p, log_p, entropy, index = ctx.saved_tensors
        if ctx.in_c:
            grad = th.empty_like(p)
            _kernels.masked_stats_backward(p.numpy(), log_p.numpy(), entropy.numpy(), index.view(-1).numpy(),
                                           g_log_prob.contiguous().numpy(), g_entropy.contiguous().numpy(),
                                           grad.numpy())
            return grad, None, None
        grad = log_p + entropy.unsqueeze(1)
        grad.mul_(-g_entropy.unsqueeze(1)).sub_(g_log_prob.unsqueeze(1)).mul_(p)
        grad.scatter_add_(1, index, g_log_prob.unsqueeze(1))
        return grad, None, None


def masked_log_prob_entropy(logits: th.Tensor, masks: th.Tensor, actions: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
    """(log-probability of `actions`, entropy) of the categorical over `logits` (batch x n) with the
    actions where `masks` (bool, batch x n) is False masked out, as sb3-contrib's MaskableCategorical
    computes them (masked logits -1e8; masked actions add nothing to the entropy). Differentiable in
    `logits` (with the gradient in closed form, `_MaskedCategoricalStats`)."""
    return _MaskedCategoricalStats.apply(logits, masks, actions)


def legal_logits(head: th.nn.Module, latent: th.Tensor, kept: th.Tensor | None) -> th.Tensor:
    """The action head's logits for the actions `kept` only (all of them if None), for a minibatch whose masks
    and actions are restricted and renumbered the same way (FastMaskableRolloutBuffer `legal_columns`): a plain
    Linear, or a PriorPolicy's PriorHead (its linear part and prior block for those actions; with a square head, all
    its logits and then those actions')."""
    if kept is None:
        return head(latent)
    if isinstance(head, PriorHead):
        if head.square is not None:
            return head(latent).index_select(1, kept)
        block = latent[:, head.hidden:head.hidden + head.n_actions].index_select(1, kept)
        return legal_logits(head.linear, latent[:, :head.hidden], kept) + head.weight * block
    bias = None if head.bias is None else head.bias.index_select(0, kept)
    return F.linear(latent, head.weight.index_select(0, kept), bias)


def subset_head(head: th.nn.Module) -> bool:
    """Whether `legal_logits` computes this action head's logits for a subset of the actions."""
    return type(head) is th.nn.Linear or isinstance(head, PriorHead)


class SparseRows:
    """Observations as their non-zero entries: `csr` (indptr, indices, values: `_kernels.csr`'s) of a matrix and
    the rows of it taken (`rows`, int64; None for all), for `SparseFirstLayers`. `of(x)` converts a dense batch (on
    torch's thread count); the rollout buffer converts its observations once a rollout and hands out minibatches of
    rows of them."""

    def __init__(self, csr: tuple[np.ndarray, np.ndarray, np.ndarray], cols: int, rows: np.ndarray | None = None):
        self.csr, self.cols, self.rows = csr, cols, rows
        self.dense: th.Tensor | None = None  # the same rows as they are, where a layer needs them (`PriorFirstLayers`)

    @classmethod
    def of(cls, x: np.ndarray) -> SparseRows:
        x = np.ascontiguousarray(x, dtype=np.float32).reshape(len(x), -1)
        indptr, indices, values = _kernels.csr(x, th.get_num_threads())
        return cls((np.frombuffer(indptr, np.int32), np.frombuffer(indices, np.int32),
                    np.frombuffer(values, np.float32)), x.shape[1])

    def take(self, rows: np.ndarray) -> SparseRows:
        return SparseRows(self.csr, self.cols, np.ascontiguousarray(rows, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.csr[0]) - 1 if self.rows is None else len(self.rows)


class SparseFirstLayers(th.autograd.Function):
    """The first Linear layers of the nets that read the observations (the actor's and the critic's), side by side:
    `apply(obs, threads, w1, b1, w2, b2, ...)` -> the layers' outputs concatenated (rows x their widths), computed in
    C over the observations' non-zero entries (obs: SparseRows, or a dense tensor converted here), with the weight
    gradient g^T x over them too (`_kernels.linear_forward` / `linear_backward`) and the bias gradient the sum
    of g. The same products as `F.linear` (to float rounding: the sums run in another order) at a fraction of their
    cost for observations that are mostly zeros; the observations get no gradient (they are data). A weight may
    read a range of the columns only: `threads` as (threads, column offsets per layer), each weight then reading
    the columns from its offset on, as many as it has."""

    @staticmethod
    def forward(ctx, obs: SparseRows | th.Tensor, threads: int | tuple[int, tuple[int, ...]],  # type: ignore[override]
                *params: th.Tensor) -> th.Tensor:
        x = obs if isinstance(obs, SparseRows) else SparseRows.of(obs.detach().numpy())
        weights, biases = params[0::2], params[1::2]
        threads, offsets = threads if isinstance(threads, tuple) else (threads, (0,) * len(weights))
        widths = [p.shape[0] for p in weights]
        whole = all(o == 0 and p.shape[1] == x.cols for o, p in zip(offsets, weights))
        w = (th.empty if whole else th.zeros)((x.cols, sum(widths)))  # inputs x outputs: one row per input
        start = 0
        for p, o in zip(weights, offsets):
            w[o:o + p.shape[1], start:start + p.shape[0]].copy_(p.detach().t())
            start += p.shape[0]
        b = th.cat([p.detach() for p in biases]).numpy()
        y = np.empty((len(x), w.shape[1]), np.float32)
        _kernels.linear_forward(*x.csr, x.rows, w.numpy(), b, y, threads)
        ctx.x, ctx.threads, ctx.widths = x, threads, widths
        ctx.columns = [(o, p.shape[1]) for p, o in zip(weights, offsets)]
        return th.from_numpy(y)

    @staticmethod
    def backward(ctx, grad: th.Tensor):  # type: ignore[override]
        x = ctx.x
        g = np.ascontiguousarray(grad.numpy(), dtype=np.float32)
        dw = th.empty((g.shape[1], x.cols))  # outputs x inputs: the layers' weights stacked
        _kernels.linear_backward(*x.csr, x.rows, g, dw.numpy(), ctx.threads)
        db = grad.sum(dim=0)
        out: list[th.Tensor | None] = [None, None]
        start = 0
        for width, (o, n) in zip(ctx.widths, ctx.columns):
            out += [dw[start:start + width, o:o + n], db[start:start + width]]
            start += width
        return tuple(out)


class PriorFirstLayers:
    """A PriorPolicy's first layers (agents/prior_policy.py PriorExtractor) in the updates, by `SparseFirstLayers`
    over the rollout's observations minus their background (`prior_background`): the actor's first Linear reads the
    observation without its prior block and (with `prior_features`) the block's projection, the critic's the
    observation without the block. Most of the block sits at the prior's FLOOR, where `block_features` is 0, so the
    projection of `block_features(block)` is that of (block - FLOOR) / -FLOOR over the entries above the floor, plus
    its bias: the same products as the policy's modules (to float rounding) over the non-zeros only."""

    def __init__(self, extractor):
        self.ext = extractor

    def latents(self, obs: SparseRows) -> tuple[th.Tensor, th.Tensor]:
        """(actor latent, critic latent) as `PriorExtractor.forward_actor` / `forward_critic` give them, for a
        minibatch of SparseRows carrying its dense rows (`dense`: the actor's latent carries the block on)."""
        ext = self.ext
        base = ext.base_dim
        pi, vf, proj = ext.policy_net[0], ext.value_net[0], ext.prior_proj

        params, offsets = [pi.weight[:, :base], pi.bias, vf.weight, vf.bias], [0, 0]
        if proj is not None:  # the block's columns only
            params += [proj.weight / -FLOOR, proj.bias]
            offsets.append(base)
        h = SparseFirstLayers.apply(obs, (th.get_num_threads(), tuple(offsets)), *params)
        a, c = pi.out_features, vf.out_features
        h_pi, h_vf = h[:, :a], h[:, a:a + c]
        if proj is not None:
            h_pi = h_pi + F.linear(h[:, a + c:], pi.weight[:, base:])
        for m in list(ext.policy_net)[1:]:
            h_pi = m(h_pi)
        for m in list(ext.value_net)[1:]:
            h_vf = m(h_vf)
        latent = [h_pi, obs.dense[:, base:]]
        if ext.carry_observation:
            latent.append(obs.dense[:, :base])
        return th.cat(latent, dim=1), h_vf


def prior_background(extractor, cols: int) -> np.ndarray:
    """The value most entries of a PriorPolicy's observation hold: 0, and the prior's FLOOR in its block."""
    out = np.zeros(cols, dtype=np.float32)
    out[extractor.base_dim:] = FLOOR
    return out


def masked_sample(logits: th.Tensor, masks: th.Tensor, u: th.Tensor | None = None) -> tuple[th.Tensor, th.Tensor]:
    """(actions, their log-probabilities): one action per row drawn from the masked categorical.

    Inverse transform sampling: the first action whose cumulative probability exceeds u * total, with u
    uniform in [0, 1) (rows x 1: `u`, else drawn from torch's global generator, seeded by the model's seed); what
    torch.multinomial does with replacement, without its overhead (~1.4 ms for 32 rows of 1,519). An action of
    probability 0 (a masked one) never comes out: the cumulative sum does not rise at it."""
    masked = th.where(masks, logits, th.tensor(MASKED_LOGIT, dtype=logits.dtype))
    cdf = th.softmax(masked, dim=-1).cumsum(dim=-1)
    if u is None:
        u = th.rand((cdf.shape[0], 1), dtype=cdf.dtype)
    u = u * cdf[:, -1:]
    actions = th.searchsorted(cdf, u, right=True).squeeze(1)
    past = actions >= cdf.shape[1]
    if bool(past.any()):  # u * total rounded up to the total: the last action of non-zero probability
        last = (cdf >= cdf[:, -1:]).int().argmax(dim=-1)  # where the sum reaches its total
        actions = th.where(past, last, actions)
    log_prob = th.log_softmax(masked, dim=-1).gather(1, actions.view(-1, 1)).squeeze(1)
    return actions, log_prob


def vec_action_masks(env: VecEnv) -> np.ndarray:
    """The action masks of every env of `env` (n_envs x n, bool): the array the vec env collected while
    stepping (`stacked_action_masks`, agents/vec_env.py) if it offers one, else one `action_masks` call
    per env (sb3-contrib's `get_action_masks`)."""
    stacked = getattr(env.unwrapped, "stacked_action_masks", None)
    masks = stacked() if stacked is not None else None
    return masks if masks is not None else get_action_masks(env)


# ---- the rollout buffer -----------------------------------------------------------------------------
class FastMaskableRolloutBuffer(MaskableRolloutBuffer):
    """MaskableRolloutBuffer for Box observations and a Discrete action space, with the same samples.

    Observations and masks (bool) live in env-major arrays allocated once: `observations[step]` and
    `action_masks[step]` are strided views into them, and the flattening that SB3 does before the update
    (`swap_and_flatten`, index = env * n_steps + step) is then a reshape without a copy. Minibatches are
    the same index sets as SB3's (one `np.random.permutation` per `get`), cut with `index_select`."""

    def reset(self) -> None:
        n, steps = self.n_envs, self.buffer_size
        self.mask_dims = int(self.action_space.n)
        if getattr(self, "_obs_env_major", None) is None:
            self._obs_env_major = np.zeros((n, steps, *self.obs_shape), dtype=self.observation_space.dtype)
            self._masks_env_major = np.ones((n, steps, self.mask_dims), dtype=bool)
        self.observations = self._obs_env_major.swapaxes(0, 1)
        self.action_masks = self._masks_env_major.swapaxes(0, 1)
        for name in ("rewards", "returns", "episode_starts", "values", "log_probs", "advantages"):
            setattr(self, name, np.zeros((steps, n), dtype=np.float32))
        self.actions = np.zeros((steps, n, self.action_dim), dtype=self.action_space.dtype)
        self.generator_ready = False
        self._tensors: dict[str, th.Tensor] = {}
        self._legal_only: tuple[th.Tensor | None, dict[str, th.Tensor]] | None = None  # `legal_columns`
        self._density: float | None = None  # `input_density`
        self._sparse: SparseRows | None = None  # `sparse_observations`
        # per observation entry, the value most entries hold (zeros if None): subtracted before `sparse_observations`
        self.background: np.ndarray | None = None
        self.pos, self.full = 0, False

    def add(self, obs: np.ndarray, action: np.ndarray, reward: np.ndarray, episode_start: np.ndarray,
            value: th.Tensor, log_prob: th.Tensor, action_masks: np.ndarray | None = None) -> None:
        """One step of every env (the arguments of RolloutBuffer.add, and the masks used to act)."""
        p = self.pos
        self.observations[p] = obs
        self.actions[p] = action.reshape(self.n_envs, self.action_dim)
        self.rewards[p] = reward
        self.episode_starts[p] = episode_start
        self.values[p] = value.detach().cpu().numpy().reshape(-1)
        self.log_probs[p] = log_prob.detach().cpu().numpy().reshape(-1)
        # the arrays are reused from rollout to rollout: no masks means every action allowed, as in SB3
        self.action_masks[p] = True if action_masks is None else action_masks.reshape(self.n_envs, self.mask_dims)
        self.pos += 1
        if self.pos == self.buffer_size:
            self.full = True

    def get(self, batch_size: int | None = None,  # type: ignore[override]
            legal_only: bool = False, sparse: bool = False) -> Generator[MaskableRolloutBufferSamples, None, None]:
        """Minibatches as SB3 cuts them. With `legal_only`, the samples' masks hold only the columns of
        `legal_columns()` and the actions are numbered among them (the same samples when that is None). With
        `sparse`, the samples' observations are a SparseRows: their rows of `sparse_observations()`."""
        assert self.full, ""
        total = self.buffer_size * self.n_envs
        indices = np.random.permutation(total)
        kept = self.legal_columns() if legal_only else None  # also flattens the buffer, once
        self._flatten()
        tensors = self._tensors if kept is None else {**self._tensors, **self._legal_only[1]}
        rows = self.sparse_observations() if sparse else None
        if batch_size is None:
            batch_size = total
        order = th.from_numpy(indices)
        for start in range(0, total, batch_size):
            idx = order[start:start + batch_size]
            sparse = None if rows is None else rows.take(indices[start:start + batch_size])
            if sparse is not None and self.background is not None:  # (a PriorPolicy's logits read the block itself)
                sparse.dense = tensors["observations"].index_select(0, idx)
            yield self._take(idx, tensors, sparse)

    def sparse_observations(self) -> SparseRows:
        """The rollout's observations (in the order of the update's indices) as their non-zeros (minus `background`
        when set), converted once a rollout."""
        self._flatten()
        if self._sparse is None:
            x = self.observations.reshape(len(self.observations), -1)
            self._sparse = SparseRows.of(x if self.background is None else x - self.background)
        return self._sparse

    def legal_columns(self) -> th.Tensor | None:
        """The actions legal in some state of the rollout, if they are at most `SUBSET_SHARE` of them, else None
        (every action): the columns `get(legal_only=True)` keeps, for `legal_logits`. Worked out once a rollout."""
        self._flatten()
        if self._legal_only is None:
            kept = np.flatnonzero(self.action_masks.any(axis=0))
            if len(kept) > SUBSET_SHARE * self.mask_dims:
                self._legal_only = (None, {})
            else:
                renumber = np.zeros(self.mask_dims, dtype=np.float32)
                renumber[kept] = np.arange(len(kept))
                self._legal_only = (th.from_numpy(kept), {
                    "action_masks": th.from_numpy(np.ascontiguousarray(self.action_masks[:, kept])),
                    "actions": th.from_numpy(renumber[self.actions.astype(np.int64)])})
        return self._legal_only[0]

    def input_density(self) -> float:
        """The share of the rollout's observation entries that are not zero (not their `background`), in every 8th
        step of each env (worked out once a rollout)."""
        if self._density is None:
            sample = self._obs_env_major[:, ::8]
            if self.background is not None:
                sample = sample.reshape(-1, self.background.size) - self.background
            self._density = np.count_nonzero(sample) / max(1, sample.size)
        return self._density

    def _flatten(self) -> None:
        """Once a rollout: the arrays flattened as SB3 does before an update, and their tensors."""
        if self.generator_ready:
            return
        total = self.buffer_size * self.n_envs
        for name in ("actions", "values", "log_probs", "advantages", "returns"):
            setattr(self, name, self.swap_and_flatten(getattr(self, name)))
        self.observations = self._obs_env_major.reshape(total, *self.obs_shape)
        self.action_masks = self._masks_env_major.reshape(total, self.mask_dims)
        self._tensors = {
            "observations": th.from_numpy(self.observations),
            "actions": th.from_numpy(self.actions.astype(np.float32)),
            "old_values": th.from_numpy(self.values.reshape(-1)),
            "old_log_prob": th.from_numpy(self.log_probs.reshape(-1)),
            "advantages": th.from_numpy(self.advantages.reshape(-1)),
            "returns": th.from_numpy(self.returns.reshape(-1)),
            "action_masks": th.from_numpy(self.action_masks),
        }
        self._legal_only = self._density = self._sparse = None
        self.generator_ready = True

    def _take(self, idx: th.Tensor, tensors: dict[str, th.Tensor] | None = None,
              sparse_obs: SparseRows | None = None) -> MaskableRolloutBufferSamples:
        t = self._tensors if tensors is None else tensors
        return MaskableRolloutBufferSamples(*(
            sparse_obs if k == "observations" and sparse_obs is not None else t[k].index_select(0, idx)
            for k in MaskableRolloutBufferSamples._fields))

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableRolloutBufferSamples:  # type: ignore[override]
        return self._take(th.as_tensor(batch_inds))


# ---- torch threads for the updates ------------------------------------------------------------------
class ThreadChooser:
    """The torch thread count for the gradient updates, of `choices`, picked from measured minibatch times.

    More threads make the big matrix products faster on idle cores, but on a shared machine where another
    process keeps a core busy, every parallel region waits for that core and an update can run 5-10x
    slower than on one thread. So: time every minibatch (seconds per sample; for the count in use, an average
    over the recent ones), use the fastest count, and every `explore_every`-th update time each other count
    on one minibatch (at the start of the update) to notice when the machine changes. A count is first timed
    on its second minibatch (the first one starts its threads). The thread count changes nothing but the
    float rounding order of the products."""

    def __init__(self, choices: tuple[int, ...], explore_every: int = 3, memory: float = 0.5):
        self.choices = sorted(set(choices))
        self.explore_every, self.memory = explore_every, memory
        self.cost: dict[int, float | None] = {c: None for c in self.choices}
        self.updates = 0
        self._trials: list[tuple[int, bool]] = []  # (count, whether its time counts)
        self._current: tuple[int, bool] | None = None

    @property
    def best(self) -> int:
        known = {c: v for c, v in self.cost.items() if v is not None}
        return min(known, key=known.__getitem__) if known else self.choices[-1]

    def start_update(self) -> None:
        """Called at the start of each update: plans the minibatches that try the other counts."""
        unknown = [c for c, v in self.cost.items() if v is None]
        if unknown:
            self._trials = [(c, timed) for c in unknown for timed in (False, True)]
        elif self.updates % self.explore_every == 0:
            self._trials = [(c, True) for c in self.choices if c != self.best]
        else:
            self._trials = []
        self.updates += 1

    def next(self) -> int:
        """The thread count for the next minibatch."""
        self._current = self._trials.pop(0) if self._trials else (self.best, True)
        return self._current[0]

    def record(self, threads: int, seconds_per_sample: float) -> None:
        """The time of the minibatch just run with `threads` threads (as returned by `next`)."""
        trial = self._current is not None and self._current[0] == threads and threads != self.best
        if self._current is not None and not self._current[1]:
            return  # a warm-up minibatch
        old = self.cost[threads]
        # a trial replaces the old figure (it is rare, the machine may have changed); the count in use averages
        self.cost[threads] = seconds_per_sample if old is None or trial else \
            self.memory * old + (1 - self.memory) * seconds_per_sample


# ---- the algorithm ----------------------------------------------------------------------------------
class FastMaskablePPO(MaskablePPO):
    """MaskablePPO with the fast paths above; constructed, saved and loaded exactly as MaskablePPO.

    `update_threads`: None (the updates run with whatever torch thread count is set), or a ThreadChooser
    that picks the count for each minibatch (not saved with the model)."""

    update_threads: ThreadChooser | None = None
    pipeline: bool = False  # with env workers (ShardedVecEnv), act for each worker's envs as soon as they step
    worker_rollouts: bool = False  # with env workers and a policy they can run (`_worker_actor`), they play rollouts

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "update_threads", "pipeline", "worker_rollouts"]

    def _setup_model(self) -> None:
        super()._setup_model()
        if self._fast_ok():
            self.rollout_buffer = FastMaskableRolloutBuffer(
                self.n_steps, self.observation_space, self.action_space, self.device, gamma=self.gamma,
                gae_lambda=self.gae_lambda, n_envs=self.n_envs, **self.rollout_buffer_kwargs)
        fuse_adam(self.policy.optimizer)

    def set_parameters(self, *args, **kwargs) -> None:  # load() restores the optimizer's saved settings
        super().set_parameters(*args, **kwargs)
        fuse_adam(self.policy.optimizer)

    def _fast_ok(self) -> bool:
        """Whether the fast paths compute what sb3-contrib would: a Discrete action space, Box observations,
        the masked categorical over `action_net`'s output, the policy's own ways to get there not overridden,
        and the standard rollout buffer. Otherwise everything runs sb3-contrib's code."""
        pol, base = type(self.policy), MaskableActorCriticPolicy
        dist = type(self.policy.action_dist)
        return (isinstance(self.action_space, spaces.Discrete) and isinstance(self.observation_space, spaces.Box)
                and isinstance(self.policy.action_dist, MaskableCategoricalDistribution)
                and dist.proba_distribution is MaskableCategoricalDistribution.proba_distribution
                and all(getattr(pol, m) is getattr(base, m)
                        for m in ("forward", "evaluate_actions", "_get_action_dist_from_latent", "extract_features"))
                and self.rollout_buffer_class in (None, MaskableRolloutBuffer))

    # -- acting ----------------------------------------------------------------------------------------
    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        pol = self.policy
        features = pol.extract_features(obs)
        if pol.share_features_extractor:
            return pol.mlp_extractor(features)
        pi_features, vf_features = features
        return pol.mlp_extractor.forward_actor(pi_features), pol.mlp_extractor.forward_critic(vf_features)

    def _sparse_first_layers(self) -> tuple[th.nn.Linear, th.nn.Linear] | PriorFirstLayers | None:
        """The actor's and critic's first Linear layers, for `SparseFirstLayers` in the updates, when the policy is
        a plain MLP (one flatten of the observations, SB3's MlpExtractor with a hidden layer in each net), the C
        module is built and the rollout's observations are mostly zeros (`SPARSE_SHARE`); for a PriorPolicy, its
        `PriorFirstLayers` when its observations are mostly their background (`prior_background`); else None."""
        pol, buffer = self.policy, self.rollout_buffer
        prior = type(pol.mlp_extractor) is PriorExtractor
        if not (_kernels is not None and isinstance(buffer, FastMaskableRolloutBuffer)
                and (type(pol.mlp_extractor) is MlpExtractor or prior) and pol.share_features_extractor
                and isinstance(pol.features_extractor, FlattenExtractor)
                and self.observation_space.dtype == np.float32):
            return None
        nets = pol.mlp_extractor.policy_net, pol.mlp_extractor.value_net
        if not all(len(net) and type(net[0]) is th.nn.Linear and net[0].bias is not None for net in nets):
            return None
        if prior:
            if buffer.background is None:
                buffer.background = prior_background(pol.mlp_extractor, int(np.prod(self.observation_space.shape)))
            return PriorFirstLayers(pol.mlp_extractor) if buffer.input_density() <= SPARSE_SHARE else None
        return (nets[0][0], nets[1][0]) if buffer.input_density() <= SPARSE_SHARE else None

    def _update_latents(self, obs: th.Tensor | SparseRows,
                        first: tuple[th.nn.Linear, th.nn.Linear] | PriorFirstLayers | None
                        ) -> tuple[th.Tensor, th.Tensor]:
        """`_latents` for a minibatch of the update; the first layers by `SparseFirstLayers` when `first` (from
        `_sparse_first_layers`) is given, obs then the minibatch's SparseRows (flattened: the policy's features)."""
        if first is None:
            return self._latents(obs)
        if isinstance(first, PriorFirstLayers):
            return first.latents(obs)
        pi, vf = first
        h = SparseFirstLayers.apply(obs, th.get_num_threads(), pi.weight, pi.bias, vf.weight, vf.bias)
        latent_pi, latent_vf = h[:, :pi.out_features], h[:, pi.out_features:]
        for m in list(self.policy.mlp_extractor.policy_net)[1:]:
            latent_pi = m(latent_pi)
        for m in list(self.policy.mlp_extractor.value_net)[1:]:
            latent_vf = m(latent_vf)
        return latent_pi, latent_vf

    def _plain_acting_layers(self) -> tuple[list, list] | None:
        """The actor's and critic's layers (`_plain_layers`) of a plain MLP policy (flatten, SB3's MlpExtractor,
        Linear / ReLU / Tanh) on Box observations, else None."""
        pol = self.policy
        plain_mlp = type(pol.mlp_extractor) is MlpExtractor and all(
            isinstance(e, FlattenExtractor) for e in (pol.pi_features_extractor, pol.vf_features_extractor))
        actor = _plain_layers([*pol.mlp_extractor.policy_net, pol.action_net]) if plain_mlp else None
        critic = _plain_layers([*pol.mlp_extractor.value_net, pol.value_net]) if plain_mlp else None
        return None if actor is None or critic is None else (actor, critic)

    def _worker_actor(self) -> "WorkerActor | PriorWorkerActor | None":
        """The acting half of the policy as env workers run it: a plain MLP policy's (`WorkerActor`), a PriorPolicy's
        without a square head (`PriorWorkerActor`), else None."""
        with th.no_grad():
            layers = self._plain_acting_layers()
            if layers is not None:
                return WorkerActor(*layers)
            return PriorWorkerActor.of(self.policy)

    def plays_in_workers(self, env: VecEnv) -> bool:
        """Whether `collect_rollouts` has the env workers play its rollouts (`worker_rollouts`, env workers, the fast
        path and a policy they can run: `_worker_actor`), else the learner acts."""
        return (self.worker_rollouts and isinstance(env.unwrapped, ShardedVecEnv)
                and isinstance(self.rollout_buffer, FastMaskableRolloutBuffer)
                and self._worker_actor() is not None)

    def _acting_net(self) -> Callable[[th.Tensor], tuple[th.Tensor, th.Tensor]]:
        """obs -> (action logits, values) without gradients, for one rollout (the weights do not change
        during it). A plain MLP policy (flatten, SB3's MlpExtractor, Linear / ReLU / Tanh) runs on copies of
        its weights stored transposed, which makes the small-batch products ~2x faster (MKL's x @ W for x of
        32 rows and a row-major W, against x @ W.T for torch's layout); anything else (e.g. PriorPolicy) runs
        through the policy's modules."""
        pol = self.policy
        layers = self._plain_acting_layers()
        actor, critic = layers if layers is not None else (None, None)
        if actor is None or critic is None:
            def through_modules(obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
                latent_pi, latent_vf = self._latents(obs)
                return pol.action_net(latent_pi), pol.value_net(latent_vf)
            return through_modules

        def plain(obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
            features = pol.extract_features(obs)  # preprocessing + flatten
            pi, vf = (features, features) if pol.share_features_extractor else features
            return _run_layers(actor, pi), _run_layers(critic, vf)
        return plain

    def collect_rollouts(self, env: VecEnv, callback: BaseCallback, rollout_buffer: RolloutBuffer,
                         n_rollout_steps: int, use_masking: bool = True) -> bool:
        """MaskablePPO.collect_rollouts (same steps, callbacks, time-limit bootstrap and buffer contents),
        with the masks read in one array, the masked distribution computed directly, and pipelined stepping over
        env workers. A callback stopping the rollout keeps the envs' latest observations (sb3-contrib keeps the
        ones before that step, which the envs have left)."""
        if not (use_masking and isinstance(rollout_buffer, FastMaskableRolloutBuffer)):
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        assert self._last_obs is not None, "No previous observation was provided"
        self.policy.set_training_mode(False)
        n_steps = 0
        rollout_buffer.reset()
        if not is_masking_supported(env):
            raise ValueError("Environment does not support action masking. Consider using ActionMasker wrapper")
        callback.on_rollout_start()
        if self.plays_in_workers(env):
            return self._collect_in_workers(env, env.unwrapped, self._worker_actor(), callback, rollout_buffer,
                                            n_rollout_steps)
        with th.no_grad():
            act = self._acting_net()

        def choose(obs: np.ndarray, masks: np.ndarray, u: th.Tensor | None = None
                   ) -> tuple[np.ndarray, th.Tensor, th.Tensor, np.ndarray]:
            with th.no_grad():
                logits, values = act(obs_as_tensor(obs, self.device))
                actions_t, log_probs = masked_sample(logits, th.as_tensor(masks, dtype=th.bool), u)
            return actions_t.numpy(), values, log_probs, masks

        # pipelined: each group of envs gets its next actions as soon as it has stepped (ShardedVecEnv
        # `set_prefetch`), so its worker steps on while the learner waits for the others
        sharded = env.unwrapped if self.pipeline else None
        if not (isinstance(sharded, ShardedVecEnv) and len(sharded.shards) > 1):
            sharded = None
        # the actions of steps under way: left by a rollout that a callback stopped after they were sent
        prefetched: dict[int, tuple] = self.__dict__.pop("_prefetched", None) or {}
        # a step's uniforms, drawn for all envs at once when its first group is acted for: what the lockstep
        # `choose` draws, whatever order the groups come in
        uniforms: list[th.Tensor] = []

        def prefetch(k: int, obs: np.ndarray, masks: np.ndarray | None):
            if n_steps + 1 >= n_rollout_steps or masks is None:  # the rollout's last step: nothing after it
                return None
            if not prefetched:
                uniforms[:] = [th.rand((env.num_envs, 1))]
            group = sharded.shards[k]
            prefetched[k] = choose(obs, masks, uniforms[0][group[0]:group[-1] + 1])
            return prefetched[k][0]

        if sharded is not None:
            sharded.set_prefetch(prefetch)
        try:
            while n_steps < n_rollout_steps:
                if sharded is not None and len(prefetched) == len(sharded.shards):
                    parts = [prefetched.pop(k) for k in range(len(sharded.shards))]
                    actions = np.concatenate([p[0] for p in parts])
                    values, log_probs = th.cat([p[1] for p in parts]), th.cat([p[2] for p in parts])
                    action_masks = np.concatenate([p[3] for p in parts])
                else:
                    actions, values, log_probs, action_masks = choose(self._last_obs, vec_action_masks(env))
                new_obs, rewards, dones, infos = env.step(actions)
                self.num_timesteps += env.num_envs
                callback.update_locals(locals())
                if not callback.on_step():
                    if prefetched:  # steps under way: the next rollout acts with these
                        self._prefetched = prefetched
                    self._last_obs, self._last_episode_starts = new_obs, dones
                    return False
                n_steps += 1
                self._record_step(rollout_buffer, actions, values, log_probs, action_masks, new_obs, rewards, dones,
                                  infos)
        finally:
            if sharded is not None:
                sharded.set_prefetch(None)
        self._end_rollout(rollout_buffer, callback, new_obs, dones)
        return True

    def _record_step(self, rollout_buffer: RolloutBuffer, actions: np.ndarray, values: th.Tensor, log_probs: th.Tensor,
                     action_masks: np.ndarray, new_obs: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
                     infos: list[dict]) -> None:
        """What MaskablePPO.collect_rollouts does with a step the callbacks let through: the episode infos, the
        time-limit bootstrap, the buffer, the last observation."""
        self._update_info_buffer(infos, dones)
        for idx in np.flatnonzero(dones):  # time-limit ends: bootstrap with the value (SB3 issue #633)
            if (infos[idx].get("terminal_observation") is not None
                    and infos[idx].get("TimeLimit.truncated", False)):
                terminal_obs = self.policy.obs_to_tensor(infos[idx]["terminal_observation"])[0]
                with th.no_grad():
                    terminal_value = self.policy.predict_values(terminal_obs)[0]
                rewards[idx] += self.gamma * terminal_value
        rollout_buffer.add(self._last_obs, actions.reshape(-1, 1), rewards, self._last_episode_starts, values,
                           log_probs, action_masks=action_masks)
        self._last_obs = new_obs
        self._last_episode_starts = dones

    def _end_rollout(self, rollout_buffer: RolloutBuffer, callback: BaseCallback, new_obs: np.ndarray,
                     dones: np.ndarray) -> None:
        with th.no_grad():
            values = self.policy.predict_values(obs_as_tensor(new_obs, self.device))
        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=dones)
        callback.on_rollout_end()

    def _collect_in_workers(self, env: VecEnv, sharded: ShardedVecEnv, actor: WorkerActor, callback: BaseCallback,
                            rollout_buffer: RolloutBuffer, n_rollout_steps: int) -> bool:
        """`collect_rollouts` with the env workers playing the rollout themselves (`ShardedVecEnv.start_rollout`,
        acting with `actor`, a copy of the policy; its uniforms drawn here at the start, from the model's generator);
        each step then goes through the vec env's wrappers, the callbacks and the buffer as in lockstep. Steps of a
        rollout a callback stopped, played with the same policy, are taken first."""
        n_steps = 0
        new_obs = dones = None
        while n_steps < n_rollout_steps:
            if not sharded.queued_steps():
                sharded.start_rollout(actor, th.rand((n_rollout_steps - n_steps, env.num_envs, 1)).numpy())
            action_masks = vec_action_masks(env)
            actions, values, log_probs = sharded.next_acted()
            new_obs, rewards, dones, infos = env.step(actions)
            self.num_timesteps += env.num_envs
            callback.update_locals(locals())
            if not callback.on_step():
                self._last_obs, self._last_episode_starts = new_obs, dones
                return False
            n_steps += 1
            self._record_step(rollout_buffer, actions, th.from_numpy(values), th.from_numpy(log_probs), action_masks,
                              new_obs, rewards, dones, infos)
        self._end_rollout(rollout_buffer, callback, new_obs, dones)
        return True

    # -- learning --------------------------------------------------------------------------------------
    def train(self) -> None:
        """MaskablePPO.train: the same epochs, minibatches, clipped surrogate, value and entropy losses,
        KL early stop, gradient clipping and logged values."""
        if not isinstance(self.rollout_buffer, FastMaskableRolloutBuffer):
            return super().train()
        pol = self.policy
        pol.set_training_mode(True)
        self._update_learning_rate(pol.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)  # type: ignore[operator]
        entropy_losses, pg_losses, value_losses, clip_fractions = [], [], [], []
        chooser = self.update_threads
        if chooser is not None:
            chooser.start_update()
            threads_before = th.get_num_threads()
        continue_training = True
        # with a head `legal_logits` can cut, only the logits of actions legal somewhere
        kept = self.rollout_buffer.legal_columns() if subset_head(pol.action_net) else None
        first = self._sparse_first_layers()
        for epoch in range(self.n_epochs):
            approx_kl_divs = []
            for rollout_data in self.rollout_buffer.get(self.batch_size, legal_only=kept is not None,
                                                        sparse=first is not None):
                if chooser is not None:
                    threads = chooser.next()
                    th.set_num_threads(threads)
                    started = time.perf_counter()
                latent_pi, latent_vf = self._update_latents(rollout_data.observations, first)
                values = pol.value_net(latent_vf).flatten()
                log_prob, entropy = masked_log_prob_entropy(
                    legal_logits(pol.action_net, latent_pi, kept), rollout_data.action_masks,
                    rollout_data.actions.long().flatten())
                advantages = rollout_data.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                ratio = th.exp(log_prob - rollout_data.old_log_prob)
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()
                pg_losses.append(policy_loss.item())
                clip_fractions.append(th.mean((th.abs(ratio - 1) > clip_range).float()).item())
                if self.clip_range_vf is None:
                    values_pred = values
                else:
                    values_pred = rollout_data.old_values + th.clamp(values - rollout_data.old_values,
                                                                     -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(rollout_data.returns, values_pred)
                value_losses.append(value_loss.item())
                entropy_loss = -th.mean(entropy)
                entropy_losses.append(entropy_loss.item())
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                with th.no_grad():
                    log_ratio = log_prob - rollout_data.old_log_prob
                    approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio).cpu().numpy()
                    approx_kl_divs.append(approx_kl_div)
                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    if self.verbose >= 1:
                        print(f"Early stopping at step {epoch} due to reaching max kl: {approx_kl_div:.2f}")
                    break
                pol.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(pol.parameters(), self.max_grad_norm)
                pol.optimizer.step()
                if chooser is not None:
                    chooser.record(threads, (time.perf_counter() - started) / len(log_prob))
            self._n_updates += 1
            if not continue_training:
                break
        if chooser is not None:
            th.set_num_threads(threads_before)
        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if self.clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)


class WorkerActor:
    """The acting half of a plain MLP policy (`_plain_layers` of its actor and critic), frozen for one rollout and
    sent to the env workers (ShardedVecEnv `start_rollout`): `act(obs, masks, u)` -> (actions, values,
    log-probabilities) as the learner's rollout loop computes them (the same layers, `masked_sample` with the
    uniforms u), in numpy. It runs in C (`agents/_kernels.c`: each layer summed over its non-zero inputs, logits
    only for the legal actions; ~0.5 ms for 32 rows against ~3 ms in torch), else torch on one thread (its
    process's setting): the workers are one per core."""

    def __init__(self, actor: list, critic: list):
        self.layers = [_layers_as(net, th.Tensor.numpy) for net in (actor, critic)]
        self._torch: list | None = None
        self._native: tuple | None = None

    def __getstate__(self) -> dict:
        return {"layers": self.layers, "_torch": None, "_native": None}

    def act(self, obs: np.ndarray, masks: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if _kernels is not None:
            return self._act_native(obs, masks, u)
        if self._torch is None:
            _one_thread()
            self._torch = [_layers_as(net, th.from_numpy) for net in self.layers]
        actor, critic = self._torch
        with th.no_grad():
            x = th.from_numpy(np.asarray(obs, dtype=np.float32))
            actions, log_probs = masked_sample(_run_layers(actor, x), th.from_numpy(masks), th.from_numpy(u))
            values = _run_layers(critic, x)
        return actions.numpy(), values.numpy(), log_probs.numpy()

    def _act_native(self, obs: np.ndarray, masks: np.ndarray, u: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._native is None:
            actor, critic = (_native_layers(net) for net in self.layers)
            head_w, head_b, _ = actor.pop()  # the action head by rows: each legal action's logit is one dot product
            self._native = (tuple(actor), np.ascontiguousarray(head_w.T), head_b, tuple(critic))
        actor, head_w, head_b, critic = self._native
        rows = len(obs)
        actions, values = np.empty(rows, np.int64), np.empty((rows, 1), np.float32)
        log_probs = np.empty(rows, np.float32)
        _kernels.act(np.ascontiguousarray(obs, dtype=np.float32), np.ascontiguousarray(masks, dtype=bool),
                     np.ascontiguousarray(u, dtype=np.float32), actor, head_w, head_b, critic, actions, values,
                     log_probs)
        return actions, values, log_probs


class PriorWorkerActor:
    """The acting half of a PriorPolicy without a square head (agents/prior_policy.py: the actor's MLP over the
    observation without its prior block and the block's projected features, logits = Linear(latent) + weight *
    block; the critic's MLP over the observation without the block), frozen for one rollout and sent to the env
    workers as `WorkerActor` is: `act(obs, masks, u)` -> (actions, values, log-probabilities), in torch on one
    thread, sampled by `masked_sample` as the learner samples."""

    def __init__(self, base: int, proj: tuple | None, actor: list, head: tuple, critic: list):
        self.base, self.proj, self.actor, self.head, self.critic = base, proj, actor, head, critic
        self._torch: tuple | None = None

    @classmethod
    def of(cls, policy) -> "PriorWorkerActor | None":
        """The actor of `policy`, or None when it is not a PriorPolicy this class runs (flattened observations, no
        square head)."""
        ext, head = getattr(policy, "mlp_extractor", None), getattr(policy, "action_net", None)
        if not (isinstance(ext, PriorExtractor) and isinstance(head, PriorHead) and head.square is None
                and not ext.carry_observation
                and all(isinstance(e, FlattenExtractor) for e in (policy.pi_features_extractor,
                                                                  policy.vf_features_extractor))):
            return None
        actor = _plain_layers(list(ext.policy_net))
        critic = _plain_layers([*ext.value_net, policy.value_net])
        if actor is None or critic is None:
            return None
        numpy = th.Tensor.numpy
        proj = None if ext.prior_proj is None else _layers_as(_plain_layers([ext.prior_proj]), numpy)[0][1:]
        (_, head_w, head_b), = _layers_as(_plain_layers([head.linear]), numpy)
        return cls(ext.base_dim, proj, _layers_as(actor, numpy), (head_w, head_b, float(head.weight.detach())),
                   _layers_as(critic, numpy))

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_torch": None}

    def act(self, obs: np.ndarray, masks: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._torch is None:
            _one_thread()
            proj = None if self.proj is None else tuple(th.from_numpy(a) for a in self.proj)
            self._torch = (proj, _layers_as(self.actor, th.from_numpy), th.from_numpy(self.head[0]),
                           th.from_numpy(self.head[1]), self.head[2], _layers_as(self.critic, th.from_numpy))
        proj, actor, head_w, head_b, weight, critic = self._torch
        with th.no_grad():
            x = th.from_numpy(np.asarray(obs, dtype=np.float32))
            base, block = x[:, :self.base], x[:, self.base:]
            seen = base if proj is None else th.cat([base, th.addmm(proj[1], block_features(block), proj[0])], dim=1)
            logits = th.addmm(head_b, _run_layers(actor, seen), head_w) + weight * block
            actions, log_probs = masked_sample(logits, th.from_numpy(masks), th.from_numpy(u))
            values = _run_layers(critic, base)
        return actions.numpy(), values.numpy(), log_probs.numpy()


def _layers_as(net: list, convert: Callable) -> list:
    """`_plain_layers`' (kind, weight, bias) with the weights and biases converted (numpy for a message to the
    workers, since torch tensors would travel through shared memory; torch again where they act)."""
    return [(kind, None if w is None else convert(w), None if b is None else convert(b)) for kind, w, b in net]


def _one_thread() -> None:
    """Torch on one thread, in an env worker (one per core)."""
    if th.get_num_threads() != 1:
        th.set_num_threads(1)


_ACTIVATION_CODES = {"ReLU": 1, "Tanh": 2}


def _native_layers(net: list) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """`_plain_layers` as `_kernels.act` takes them: [(weight (in, out), bias, activation code after it)]."""
    out: list[tuple[np.ndarray, np.ndarray, int]] = []
    for kind, w, b in net:
        if kind == "linear":
            out.append((np.ascontiguousarray(w, dtype=np.float32), np.ascontiguousarray(b, dtype=np.float32), 0))
        else:
            w_prev, b_prev, _ = out[-1]
            out[-1] = (w_prev, b_prev, _ACTIVATION_CODES[kind])
    return out


def _plain_layers(modules: list[th.nn.Module]) -> list[tuple[str, th.Tensor | None, th.Tensor | None]] | None:
    """[(kind, weight transposed and contiguous, bias)] of a Linear / ReLU / Tanh chain, else None."""
    out: list[tuple[str, th.Tensor | None, th.Tensor | None]] = []
    for m in modules:
        if isinstance(m, th.nn.Linear):
            bias = m.bias.detach().clone() if m.bias is not None else th.zeros(m.out_features)
            out.append(("linear", m.weight.detach().t().contiguous(), bias))
        elif isinstance(m, (th.nn.ReLU, th.nn.Tanh)):
            out.append((type(m).__name__, None, None))
        else:
            return None
    return out


def _run_layers(layers: list[tuple[str, th.Tensor | None, th.Tensor | None]], x: th.Tensor) -> th.Tensor:
    for kind, w, b in layers:
        if kind == "linear":
            x = th.addmm(b, x, w)
        elif kind == "ReLU":
            x = th.relu(x)
        else:
            x = th.tanh(x)
    return x


def fuse_adam(optimizer: Any) -> None:
    """Switch a CPU torch Adam to its fused kernel (the same update in one pass over each tensor)."""
    if not isinstance(optimizer, th.optim.Adam):
        return
    for group in optimizer.param_groups:
        if all(p.device.type == "cpu" and p.dtype in (th.float32, th.float64) for p in group["params"]) \
                and not group.get("differentiable", False):
            group["foreach"], group["fused"] = None, True
