"""Behaviour cloning from a rule-based teacher: a warm start for MaskablePPO.

`collect` plays TacticsEnv episodes in which the teacher (the heuristic) chooses the learner's decisions
and records (observation, mask, action, discounted return). `clone` then fits the policy network to the
teacher's choices (masked cross-entropy) and the value network to the returns, so PPO starts from the
teacher's level of play and only has to learn where it can do better.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .forked import forked_map


@dataclass
class Demonstrations:
    obs: np.ndarray        # float32 (N, obs)
    masks: np.ndarray      # bool (N, actions)
    actions: np.ndarray    # int64 (N,)
    returns: np.ndarray    # float32 (N,)
    episodes: int

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def join(parts: list["Demonstrations"]) -> "Demonstrations":
        return Demonstrations(np.concatenate([p.obs for p in parts]), np.concatenate([p.masks for p in parts]),
                              np.concatenate([p.actions for p in parts]), np.concatenate([p.returns for p in parts]),
                              sum(p.episodes for p in parts))


def teacher_action(env, teacher) -> int:
    """The env action of the teacher's choice (its next best encodable one if that is outside the window)."""
    b = env.battle
    enc, actor = b.enc, b.enc.actor
    mask = env.action_masks()
    i = env.codec.encode(teacher.choose(b), enc, actor)
    if i is not None and mask[i]:
        return i
    for d, _ in teacher.rank(b):  # the teacher's choice is beyond the action window (a long run)
        i = env.codec.encode(d, enc, actor)
        if i is not None and mask[i]:
            return i
    return 0


def collect(env_kwargs: dict[str, Any], samples: int, seed: int = 0, gamma: float = 0.99,
            teacher: str = "heuristic") -> Demonstrations:
    """Play until `samples` learner decisions are recorded (whole episodes)."""
    from engine.policies import rule_policy
    from envs import TacticsEnv

    env = TacticsEnv(**env_kwargs)
    pol = rule_policy(teacher, seed)
    obs_l, mask_l, act_l, ret_l = [], [], [], []
    episodes, ep = 0, 0
    while len(act_l) < samples:
        obs, _ = env.reset(seed=seed * 100_003 + ep)
        pol.reset(seed * 100_003 + ep)
        ep += 1
        rewards: list[float] = []
        done = False
        while not done:
            a = teacher_action(env, pol)
            obs_l.append(obs)
            mask_l.append(env.action_masks())
            act_l.append(a)
            obs, r, term, trunc, _ = env.step(a)
            rewards.append(r)
            done = term or trunc
        g, rets = 0.0, []
        for r in reversed(rewards):
            g = r + gamma * g
            rets.append(g)
        ret_l += rets[::-1]
        episodes += 1
    return Demonstrations(np.asarray(obs_l, np.float32), np.asarray(mask_l, bool), np.asarray(act_l, np.int64),
                          np.asarray(ret_l, np.float32), episodes)


def _collect_job(args):
    return collect(*args)


def collect_parallel(env_kwargs: dict[str, Any], samples: int, seed: int = 0, gamma: float = 0.99,
                     teacher: str = "heuristic", workers: int = 1) -> Demonstrations:
    """`collect` split over worker processes (each with its own seed)."""
    if workers <= 1:
        return collect(env_kwargs, samples, seed, gamma, teacher)
    share = -(-samples // workers)
    jobs = [(env_kwargs, share, seed * 1000 + k, gamma, teacher) for k in range(workers)]
    return Demonstrations.join(list(forked_map(_collect_job, jobs, workers)))


def clone(model, demos: Demonstrations, epochs: int = 8, batch_size: int = 1024, learning_rate: float = 1e-3,
          value_coef: float = 0.5, seed: int = 0, log=None) -> dict[str, float]:
    """Fit the model's policy to the teacher's actions and its value to the returns; returns final figures."""
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    n = len(demos)
    rng = np.random.default_rng(seed)
    obs = torch.as_tensor(demos.obs)
    masks = demos.masks
    actions = torch.as_tensor(demos.actions)
    returns = torch.as_tensor(demos.returns)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        order = rng.permutation(n)
        tot_pi = tot_v = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            pi_loss = -log_prob.mean()
            v_loss = torch.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = pi_loss + value_coef * v_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            tot_pi += pi_loss.item() * len(idx)
            tot_v += v_loss.item() * len(idx)
        stats = {"policy_loss": tot_pi / n, "value_loss": tot_v / n}
        if log is not None:
            log(epoch, stats)
    policy.set_training_mode(False)
    with torch.no_grad():
        k = min(n, 20000)
        dist = policy.get_distribution(obs[:k], action_masks=masks[:k])
        pred = dist.distribution.probs.argmax(dim=1)
        stats["accuracy"] = float((pred == actions[:k]).float().mean())
    return stats
