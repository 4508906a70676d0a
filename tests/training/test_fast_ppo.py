"""FastMaskablePPO learns what sb3-contrib's MaskablePPO learns: the same masked distribution, the same
minibatches, the same update, legal actions only, and models saved as plain MaskablePPO zips."""
from __future__ import annotations

import zipfile

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from stable_baselines3.common.torch_layers import MlpExtractor

import agents.fast_ppo as fast_ppo
from agents.fast_ppo import (SUBSET_SHARE, FastMaskablePPO, FastMaskableRolloutBuffer, legal_logits,
                             masked_log_prob_entropy, masked_sample, vec_action_masks)
from agents.vec_env import MaskedDummyVecEnv
from envs import TacticsEnv
from tests.compiler import needs_c

# the sparse first layers (not `dense`) run in C, agents/_kernels.c
SPARSE = needs_c(fast_ppo._kernels is not None, "agents/_kernels.c")


def _random_case(rng, rows=64, n=300, scale=5.0):
    logits = torch.as_tensor(rng.normal(0, scale, (rows, n)), dtype=torch.float32)
    masks = torch.as_tensor(rng.random((rows, n)) < rng.uniform(0.005, 0.3, (rows, 1)))
    masks[np.arange(rows), rng.integers(0, n, rows)] = True  # at least one legal action a row
    masks[0] = False
    masks[0, 7] = True  # a row with a single legal action
    actions = torch.as_tensor([rng.choice(np.flatnonzero(m)) for m in masks.numpy()])
    return logits, masks, actions


@pytest.mark.parametrize("in_c", [True, False])
def test_log_prob_and_entropy_equal_sb3_contrib_with_their_gradients(in_c, monkeypatch):
    """In C (agents/_kernels.c `masked_stats`) and in torch (without the C module)."""
    if not in_c:
        monkeypatch.setattr(fast_ppo, "_kernels", None)
    rng = np.random.default_rng(0)
    for _ in range(5):
        logits, masks, actions = _random_case(rng)
        a = logits.clone().requires_grad_(True)
        b = logits.clone().requires_grad_(True)
        lp, ent = masked_log_prob_entropy(a, masks, actions)
        ref = MaskableCategorical(logits=b, masks=masks)
        lp_ref, ent_ref = ref.log_prob(actions), ref.entropy()
        torch.testing.assert_close(lp, lp_ref, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(ent, ent_ref, rtol=1e-5, atol=1e-5)
        assert ent[0].item() == pytest.approx(0.0, abs=1e-6) and lp[0].item() == pytest.approx(0.0, abs=1e-6)
        w = torch.as_tensor(rng.normal(size=len(actions)), dtype=torch.float32)
        ((lp * w).sum() + 0.3 * (ent * w).sum()).backward()
        ((lp_ref * w).sum() + 0.3 * (ent_ref * w).sum()).backward()
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)
        assert (a.grad[~masks] == 0).all()  # masked actions get no gradient
    no_legal = torch.zeros((1, 5), dtype=torch.bool)  # uniform over every action, as sb3-contrib has it
    lp, ent = masked_log_prob_entropy(torch.randn(1, 5), no_legal, torch.tensor([2]))
    torch.testing.assert_close(lp, torch.tensor([-np.log(5.0)], dtype=torch.float32))
    torch.testing.assert_close(ent, torch.tensor([np.log(5.0)], dtype=torch.float32))


def test_sampling_draws_legal_actions_with_the_masked_probabilities():
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    logits, masks, _ = _random_case(rng, rows=8, n=50, scale=1.0)
    draws = 20_000  # a row
    counts = np.zeros(logits.shape, dtype=np.int64)
    for _ in range(draws // 500):
        rows = torch.arange(8).repeat(500)
        actions, lp = masked_sample(logits[rows], masks[rows])
        assert masks[rows, actions].all(), "a masked action was sampled"
        ref = MaskableCategorical(logits=logits[rows], masks=masks[rows]).log_prob(actions)
        torch.testing.assert_close(lp, ref, rtol=1e-5, atol=1e-5)
        np.add.at(counts, (rows.numpy(), actions.numpy()), 1)
    probs = MaskableCategorical(logits=logits, masks=masks).probs.numpy()
    expected = probs * draws
    # within 5 standard deviations of a binomial everywhere, and the masked ones never
    sd = np.sqrt(expected * (1 - probs)) + 1e-9
    assert (np.abs(counts - expected) <= 5 * sd + 1).all()
    assert counts[~masks.numpy()].sum() == 0
    assert counts[0, 7] == draws  # the single legal action of row 0


def test_sampling_never_runs_past_the_last_legal_action(monkeypatch):
    # u * total rounding up to the total must still give an action of non-zero probability
    logits = torch.zeros(1, 6)
    masks = torch.tensor([[False, True, False, True, False, False]])
    monkeypatch.setattr(torch, "rand", lambda *a, **k: torch.full((1, 1), 1.0))  # the extreme draw
    actions, lp = masked_sample(logits, masks)
    assert actions.tolist() == [3]
    assert lp.item() == pytest.approx(np.log(0.5))


def _obs_space():
    return spaces.Box(-1, 1, (5,), dtype=np.float32)


def test_rollout_buffer_gives_sb3s_minibatches():
    steps, n_envs, n = 8, 3, 7
    kw = dict(observation_space=_obs_space(), action_space=spaces.Discrete(n), device="cpu", gamma=0.9,
              gae_lambda=0.8, n_envs=n_envs)
    ours, ref = FastMaskableRolloutBuffer(steps, **kw), MaskableRolloutBuffer(steps, **kw)
    for _ in range(2):  # twice: the second fill reuses our arrays
        ours.reset()
        ref.reset()
        rng = np.random.default_rng(3)
        for _ in range(steps):
            obs = rng.normal(size=(n_envs, 5)).astype(np.float32)
            masks = rng.random((n_envs, n)) < 0.5
            args = (obs, rng.integers(0, n, (n_envs, 1)), rng.normal(size=n_envs).astype(np.float32),
                    rng.random(n_envs) < 0.2, torch.as_tensor(rng.normal(size=(n_envs, 1)), dtype=torch.float32),
                    torch.as_tensor(rng.normal(size=n_envs), dtype=torch.float32))
            ours.add(*args, action_masks=masks)
            ref.add(*args, action_masks=masks)
        last, dones = torch.as_tensor(rng.normal(size=(n_envs, 1)), dtype=torch.float32), rng.random(n_envs) < 0.5
        ours.compute_returns_and_advantage(last, dones)
        ref.compute_returns_and_advantage(last, dones)
        np.random.seed(11)
        got = list(ours.get(5))
        np.random.seed(11)
        want = list(ref.get(5))
        assert len(got) == len(want) == 5
        for g, w in zip(got, want):
            for name in g._fields:
                a, b = getattr(g, name), getattr(w, name)
                assert torch.equal(a.float(), b.float()), name
            assert g.action_masks.dtype == torch.bool


@pytest.mark.parametrize("legal_share", [0.1, 0.9])
def test_legal_only_minibatches_change_nothing_but_the_cost(legal_share):
    """`get(legal_only=True)` keeps the mask columns of the actions legal in some state of the rollout
    (`legal_columns`) and numbers the actions among them, when they are few: the loss over those logits
    (`legal_logits`) has the same values and gradients as over every action. When many are legal, every column is
    kept and the samples are the same."""
    steps, n_envs, n = 16, 4, 200
    buf = FastMaskableRolloutBuffer(steps, _obs_space(), spaces.Discrete(n), device="cpu", n_envs=n_envs)
    rng = np.random.default_rng(4)
    sometimes = rng.random(n) < legal_share
    sometimes[:2] = True
    for _ in range(steps):
        masks = (rng.random((n_envs, n)) < 0.5) & sometimes
        masks[:, 0] = True
        actions = np.array([[rng.choice(np.flatnonzero(m))] for m in masks])
        buf.add(rng.normal(size=(n_envs, 5)).astype(np.float32), actions, np.zeros(n_envs, np.float32),
                np.zeros(n_envs, bool), torch.zeros(n_envs, 1), torch.zeros(n_envs), action_masks=masks)
    buf.compute_returns_and_advantage(torch.zeros(n_envs, 1), np.zeros(n_envs, bool))
    np.random.seed(2)
    full = list(buf.get(32))
    np.random.seed(2)
    legal = list(buf.get(32, legal_only=True))
    kept = buf.legal_columns()
    if legal_share > SUBSET_SHARE:
        assert kept is None
        assert all(torch.equal(getattr(f, k), getattr(g, k)) for f, g in zip(full, legal) for k in f._fields)
        return
    assert kept.tolist() == np.flatnonzero(buf.action_masks.any(axis=0)).tolist() and len(kept) < SUBSET_SHARE * n
    head = torch.nn.Linear(8, n)
    for f, g in zip(full, legal):
        assert torch.equal(f.observations, g.observations) and torch.equal(f.advantages, g.advantages)
        assert torch.equal(f.action_masks[:, kept], g.action_masks)
        assert torch.equal(kept[g.actions.long().flatten()], f.actions.long().flatten())
        latent = torch.as_tensor(rng.normal(size=(len(f.actions), 8)), dtype=torch.float32)
        w = torch.as_tensor(rng.normal(size=len(f.actions)), dtype=torch.float32)
        results = []
        for sample, cols in ((f, None), (g, kept)):
            head.zero_grad()
            x = latent.clone().requires_grad_(True)
            lp, ent = masked_log_prob_entropy(legal_logits(head, x, cols), sample.action_masks,
                                              sample.actions.long().flatten())
            ((lp * w).sum() + 0.3 * (ent * w).sum()).backward()
            results.append((lp, ent, x.grad, head.weight.grad.clone(), head.bias.grad.clone()))
        for a, b in zip(*results):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def _tiny_env(n_envs=4):
    return MaskedDummyVecEnv([lambda: TacticsEnv("saga", opponent="random",
                                                generator={"sizes": (1, 2), "width": 8, "height": 8})] * n_envs)


def test_collected_masks_are_the_envs_and_every_action_taken_is_legal():
    venv = _tiny_env()
    model = FastMaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0, policy_kwargs={"net_arch": [16]})
    from stable_baselines3.common.callbacks import BaseCallback

    class Check(BaseCallback):
        checked = 0

        def _on_step(self):
            # the vec env's collected masks are each env's own, after auto-resets too
            assert np.array_equal(vec_action_masks(self.training_env), np.stack(self.training_env.env_method("action_masks")))
            Check.checked += 1
            return True

    model.learn(64 * venv.num_envs, callback=Check())  # one rollout, then one update
    buf = model.rollout_buffer
    taken = buf.actions[:, 0].astype(int)  # flattened by the update
    assert buf.action_masks[np.arange(len(taken)), taken].all()
    assert buf.episode_starts[1:].sum() > 0  # episodes ended (and the envs reset) during the rollout
    assert Check.checked == 64


@pytest.mark.parametrize("activation", [torch.nn.ReLU, torch.nn.Tanh])
def test_acting_net_computes_the_policys_logits_and_values(activation):
    venv = _tiny_env(2)
    model = FastMaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=16, seed=0,
                            policy_kwargs={"net_arch": dict(pi=[32, 16], vf=[24]), "activation_fn": activation})
    obs = torch.as_tensor(np.stack([venv.reset()[0], np.random.default_rng(0).random(venv.observation_space.shape)]),
                          dtype=torch.float32)
    with torch.no_grad():
        logits, values = model._acting_net()(obs)
        latent_pi, latent_vf = model.policy.mlp_extractor(model.policy.extract_features(obs))
        torch.testing.assert_close(logits, model.policy.action_net(latent_pi), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(values, model.policy.predict_values(obs), rtol=1e-5, atol=1e-5)


class _TwiceActor(MlpExtractor):
    """Not a plain MLP any more: the actor's latent doubled."""

    def forward_actor(self, features):
        return 2 * super().forward_actor(features)

    def forward(self, features):
        return self.forward_actor(features), self.forward_critic(features)


@pytest.mark.parametrize("custom", [False, True])
def test_rollouts_act_with_the_current_weights(custom):
    """After updates, what a rollout stores (values, log-probabilities) is what the updated policy gives (also
    for a policy whose modules do more than a plain MLP: the rollouts then run through them)."""
    venv = _tiny_env(2)
    model = FastMaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=16, n_epochs=2, seed=0, learning_rate=1e-2,
                            policy_kwargs={"net_arch": [16]})
    if custom:
        model.policy.mlp_extractor.__class__ = _TwiceActor
    model.learn(64)  # two rollouts, two updates
    _, callback = model._setup_learn(32, reset_num_timesteps=False)
    assert model.collect_rollouts(venv, callback, model.rollout_buffer, 16)
    b = model.rollout_buffer
    obs = torch.as_tensor(b.observations.reshape(-1, *b.obs_shape))
    with torch.no_grad():
        values, log_prob, _ = model.policy.evaluate_actions(obs, torch.as_tensor(b.actions.reshape(-1)),
                                                            torch.as_tensor(b.action_masks.reshape(len(obs), -1)))
    torch.testing.assert_close(torch.as_tensor(b.values.reshape(-1)), values.flatten(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(torch.as_tensor(b.log_probs.reshape(-1)), log_prob, rtol=1e-5, atol=1e-5)


def _filled_alike(ref, fast, venv):
    """`fast` given `ref`'s weights and one rollout of 32 steps, and `ref`'s buffer filled with the same samples."""
    fast.policy.load_state_dict(ref.policy.state_dict())
    _, callback = fast._setup_learn(32 * venv.num_envs)
    assert fast.collect_rollouts(venv, callback, fast.rollout_buffer, 32)
    ref.set_logger(fast.logger)
    b, r = fast.rollout_buffer, ref.rollout_buffer
    r.reset()
    for k in range(32):
        r.add(b.observations[k].copy(), b.actions[k].copy(), b.rewards[k].copy(), b.episode_starts[k].copy(),
              torch.as_tensor(b.values[k]), torch.as_tensor(b.log_probs[k]),
              action_masks=b.action_masks[k].astype(np.float32))
    r.advantages[:], r.returns[:] = b.advantages, b.returns
    return ref, fast


def _one_update_alike(ref, fast) -> float:
    """One `train()` of each from the same numpy seed: every weight of `fast` ends as `ref`'s; the largest move."""
    before = {k: v.clone() for k, v in ref.policy.state_dict().items()}
    np.random.seed(5)
    ref.train()
    np.random.seed(5)
    fast.train()
    moved = 0.0
    for (k, a), b in zip(fast.policy.state_dict().items(), ref.policy.state_dict().values()):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=2e-6, msg=k)
        moved = max(moved, (b - before[k]).abs().max().item())
    return moved


def _same_start(seed=0):
    """A MaskablePPO and a FastMaskablePPO with the same weights and optimizer, and one filled buffer."""
    venv = _tiny_env()
    kw = dict(n_steps=32, batch_size=32, n_epochs=3, seed=seed, ent_coef=0.01, clip_range=0.2,
              policy_kwargs={"net_arch": [32, 32]}, device="cpu")
    ref, fast = MaskablePPO("MlpPolicy", venv, **kw), FastMaskablePPO("MlpPolicy", venv, **kw)
    return _filled_alike(ref, fast, venv)


@pytest.mark.parametrize("dense", [pytest.param(False, marks=SPARSE), True])
def test_one_update_moves_the_weights_as_maskable_ppo_does(dense, monkeypatch):
    """The observations of Saga's env are mostly zeros, and the update's first layers run over their non-zeros
    (`SparseFirstLayers`); with `dense`, through torch's Linear layers (as for observations that are not)."""
    if dense:
        monkeypatch.setattr(fast_ppo, "SPARSE_SHARE", 0.0)
    ref, fast = _same_start()
    assert (fast._sparse_first_layers() is None) == dense
    moved = _one_update_alike(ref, fast)
    assert moved > 1e-4  # the update did something
    for key in ("train/entropy_loss", "train/policy_gradient_loss", "train/value_loss", "train/clip_fraction"):
        assert key in fast.logger.name_to_value


def test_saved_model_is_a_plain_maskable_ppo_zip(tmp_path):
    venv = _tiny_env(2)
    model = FastMaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=16, seed=0, policy_kwargs={"net_arch": [16]})
    from agents.fast_ppo import ThreadChooser
    model.update_threads = ThreadChooser((1, 2))
    model.learn(32)
    path = tmp_path / "m.zip"
    model.save(path)
    with zipfile.ZipFile(path) as z:
        data = z.read("data").decode()
    assert "fast_ppo" not in data and "agents" not in data  # no class of ours is needed to load it
    plain = MaskablePPO.load(path, device="cpu")
    again = FastMaskablePPO.load(path, env=venv, device="cpu")
    obs = venv.reset()
    masks = vec_action_masks(venv)
    for m in (plain, again):
        a, _ = m.predict(obs, action_masks=masks, deterministic=True)
        b, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert np.array_equal(a, b)
    assert isinstance(again.rollout_buffer, FastMaskableRolloutBuffer)
    assert again.policy.optimizer.param_groups[0]["fused"]
    again.learn(32, reset_num_timesteps=False)  # and it trains on: one more rollout of 2 x 16 steps
    assert again.num_timesteps == 64


def test_thread_chooser_uses_the_faster_count_and_notices_changes():
    from agents.fast_ppo import ThreadChooser

    ch = ThreadChooser((1, 2), explore_every=3)
    speed = {1: 1.0, 2: 0.6}  # seconds per sample of each count: 2 threads faster
    used = []
    for update in range(24):
        if update == 12:
            speed = {1: 1.0, 2: 6.0}  # another process takes a core: 2 threads now much slower
        ch.start_update()
        for k in range(16):
            n = ch.next()
            used.append(n)
            warm_up = 50.0 if update == 0 and k in (0, 2) else 0.0  # a count's first minibatch is slow
            ch.record(n, speed[n] + warm_up)
    per_update = [used[i:i + 16] for i in range(0, len(used), 16)]
    assert per_update[0][:4] == [1, 1, 2, 2]  # the first update times both (the first minibatch of each unused)
    assert per_update[0][4:] == [2] * 12  # then the faster one
    assert per_update[2] == [2] * 16  # no trial between explorations
    assert per_update[3][0] == 1 and per_update[3][1:] == [2] * 15  # every 3rd update tries the other count
    assert all(n == 1 for n in per_update[-1]) and ch.best == 1  # switched after the change
    assert per_update[12][2:] == [1] * 14  # ...after one slow minibatch
    assert all(u.count(2) <= 1 for u in per_update[13:])  # then only the rare trials
    for _ in range(3):  # and back when the core is free again, at the next trial of 2 threads
        ch.start_update()
        for _ in range(16):
            n = ch.next()
            ch.record(n, {1: 1.0, 2: 0.6}[n])
    assert ch.best == 2


def test_updates_with_a_thread_chooser_restore_the_thread_count():
    from agents.fast_ppo import ThreadChooser

    venv = _tiny_env(2)
    model = FastMaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=16, n_epochs=2, seed=0,
                            policy_kwargs={"net_arch": [16]})
    model.update_threads = ThreadChooser((1, 2))
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        model.learn(64)
        assert torch.get_num_threads() == 1
        assert all(v is not None and v > 0 for v in model.update_threads.cost.values())  # both counts timed
    finally:
        torch.set_num_threads(before)


def test_a_policy_with_its_own_evaluate_actions_runs_sb3_contribs_code():
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    class Own(MaskableActorCriticPolicy):
        calls = 0

        def evaluate_actions(self, *args, **kwargs):
            Own.calls += 1
            return super().evaluate_actions(*args, **kwargs)

    venv = _tiny_env(2)
    model = FastMaskablePPO(Own, venv, n_steps=16, batch_size=16, n_epochs=1, seed=0, policy_kwargs={"net_arch": [8]})
    assert type(model.rollout_buffer) is MaskableRolloutBuffer
    model.learn(32)
    assert Own.calls == 2  # the update went through the policy's own method
    assert type(FastMaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=16).rollout_buffer) is FastMaskableRolloutBuffer


def _sharded_run(pipeline: bool, stop_at: int | None = None, groups: int = 1):
    """Two rollouts of 32 steps x 8 envs over 2 worker processes (one update between), or until a callback stops
    at `stop_at` steps; (the second rollout's buffer and the weights, prefetch calls, the model, the vec env)."""
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.vec_env import ShardedVecEnv

    venv = VecMonitor(ShardedVecEnv([lambda: TacticsEnv("saga", opponent="random",
                                                        generator={"sizes": (1, 2), "width": 8, "height": 8})] * 8,
                                    workers=2, groups=groups))
    venv.seed(3)
    model = FastMaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, seed=0, policy_kwargs={"net_arch": [32]})
    model.pipeline = pipeline
    sharded, calls = venv.unwrapped, []
    real = sharded.set_prefetch

    def counting(fn):
        def sent(k, obs, masks):
            got = fn(k, obs, masks)
            if got is not None:
                calls.append(k)
            return got
        real(None if fn is None else sent)
    sharded.set_prefetch = counting

    class Stop(BaseCallback):
        def _on_step(self):
            return stop_at is None or self.num_timesteps < stop_at
    model.learn(2 * 32 * 8, callback=Stop())
    b = model.rollout_buffer
    got = {k: np.array(getattr(b, k)) for k in ("observations", "actions", "rewards", "log_probs", "values",
                                                 "action_masks", "episode_starts")}
    got["weights"] = torch.cat([p.detach().ravel() for p in model.policy.parameters()]).numpy()
    return got, calls, model, venv


@pytest.mark.parametrize("groups", [1, 2])
def test_pipelined_rollouts_collect_exactly_what_lockstep_ones_do(groups):
    """Acting for each group of envs as soon as it steps changes when the work is done, not what is done: the
    same observations, actions, rewards, masks, log-probabilities and values, and the same weights after, whatever
    order the groups come in (each step's uniforms are drawn for all envs at once). With smaller groups the network
    runs on fewer rows at a time, which rounds its floats differently: those agree to rounding."""
    lock, lock_calls, _, v1 = _sharded_run(False)
    piped, calls, model, v2 = _sharded_run(True, groups=groups)
    v1.close()
    v2.close()
    assert not lock_calls
    # every group once a step (in the order their workers answer), every step of each rollout but its last
    # (nothing is sent past a rollout's end)
    step = [0, 1] if groups == 1 else [0, 1, 2, 3]
    assert len(calls) == len(step) * 2 * 31 and all(sorted(calls[i:i + len(step)]) == step
                                                    for i in range(0, len(calls), len(step)))
    for key in lock:
        if groups == 1 or key in ("observations", "actions", "action_masks", "episode_starts"):
            assert np.array_equal(lock[key], piped[key]), key
        else:
            np.testing.assert_allclose(piped[key], lock[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert len(model.ep_info_buffer) > 0  # episodes ended (and their envs reset) inside the pipelined steps


def test_a_stopped_pipelined_rollout_hands_its_steps_under_way_to_the_next():
    """A callback stopping mid-rollout leaves prefetched steps under way; the workers still answer commands, and
    the next rollout acts with the actions already sent: it collects what a lockstep run stopped there does."""
    runs = []
    for pipeline in (False, True):
        _, _, model, venv = _sharded_run(pipeline, stop_at=80)
        try:
            assert model.num_timesteps == 80 and len(getattr(model, "_prefetched", {})) == (2 if pipeline else 0)
            assert venv.env_method("action_masks")[0].any()  # a command while steps are under way
            model.learn(32 * 8, reset_num_timesteps=False)
            assert not hasattr(model, "_prefetched")
            runs.append({k: np.array(getattr(model.rollout_buffer, k)) for k in ("observations", "actions",
                                                                                "rewards", "log_probs")})
        finally:
            venv.close()
    for key in runs[0]:
        assert np.array_equal(runs[0][key], runs[1][key]), key


def _worker_run(seed: int = 0, stop_at: int | None = None):
    """One rollout of 32 steps x 8 envs played in 2 worker processes (`worker_rollouts`), or until a callback stops at
    `stop_at` steps; (the buffer, the policy's weights when the rollout ended, the model, the vec env)."""
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.vec_env import ShardedVecEnv

    venv = VecMonitor(ShardedVecEnv([lambda: TacticsEnv("saga", opponent="random",
                                                        generator={"sizes": (1, 2), "width": 8, "height": 8})] * 8,
                                    workers=2))
    venv.seed(3)
    model = FastMaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, seed=seed, policy_kwargs={"net_arch": [32]})
    model.worker_rollouts = True
    weights = {}

    class Watch(BaseCallback):
        def _on_step(self):
            return stop_at is None or self.num_timesteps < stop_at

        def _on_rollout_end(self):
            weights.update({k: v.clone() for k, v in self.model.policy.state_dict().items()})
    model.learn(32 * 8, callback=Watch())
    b = model.rollout_buffer
    got = {k: np.array(getattr(b, k)) for k in ("observations", "actions", "rewards", "log_probs", "values",
                                                 "action_masks", "episode_starts")}
    return got, weights, model, venv


def test_rollouts_played_in_the_workers_act_with_the_policy():
    """Each worker plays its envs' rollout with a copy of the policy: every action is legal, and the stored
    log-probabilities and values are the policy's own on the stored observations (to float rounding: other batch
    sizes); the same seed gives the same rollout."""
    got, weights, model, venv = _worker_run()
    again, _, _, venv2 = _worker_run()
    assert model.plays_in_workers(venv)
    venv.close()
    venv2.close()
    # after the update the buffer's arrays are flattened env-major alike (`swap_and_flatten`)
    obs, masks = got["observations"].reshape(-1, got["observations"].shape[-1]), got["action_masks"]
    actions = got["actions"].reshape(-1).astype(int)
    masks = masks.reshape(len(actions), -1)
    assert masks[np.arange(len(actions)), actions].all()
    model.policy.load_state_dict(weights)
    with torch.no_grad():
        values, log_prob, _ = model.policy.evaluate_actions(torch.as_tensor(obs), torch.as_tensor(actions),
                                                            action_masks=masks)
    np.testing.assert_allclose(log_prob.numpy(), got["log_probs"].reshape(-1), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(values.numpy().reshape(-1), got["values"].reshape(-1), rtol=1e-4, atol=1e-5)
    assert len(set(actions.tolist())) > 10  # sampled, not one action over and over
    for key in got:
        assert np.array_equal(got[key], again[key]), key
    assert model.num_timesteps == 32 * 8 and len(model.ep_info_buffer) > 0  # episodes ended inside the rollout


def test_a_stopped_worker_rollout_hands_its_played_steps_to_the_next():
    """A callback stopping mid-rollout leaves steps the workers have played; the workers still answer commands,
    and the next rollout takes those steps first (played by the same policy: no update came between)."""
    got, _, model, venv = _worker_run(stop_at=80)
    try:
        sharded = venv.unwrapped
        assert model.num_timesteps == 80 and sharded.queued_steps() == 32 - 10
        assert venv.env_method("action_masks")[0].any()  # a command while played steps wait
        last = model._last_obs.copy()
        model.learn(32 * 8, reset_num_timesteps=False)
        assert sharded.queued_steps() == 0 and model.num_timesteps == 80 + 32 * 8
        assert np.array_equal(model.rollout_buffer._obs_env_major[:, 0], last)  # it went on where it stopped
    finally:
        venv.close()


def test_a_policy_the_workers_cannot_run_acts_in_the_learner(monkeypatch):
    """The workers play a plain MLP policy and a prior policy without a square head; a prior policy with one (its
    corrections of the square actions read the map) acts in the learner's process, pipelined as before."""
    from agents.config import load_config
    from agents.train import build_model, make_vec_env
    from agents.vec_env import ShardedVecEnv

    cfg = load_config("configs/saga/smoke.yaml", ["env.prior=heuristic", "train.workers=2", "imitation.samples=0",
                                                  "ppo.square_head=4"])
    venv = make_vec_env(cfg)
    try:
        model = build_model(cfg, venv)
        assert model.worker_rollouts and model._fast_ok() and not model.plays_in_workers(venv)
        monkeypatch.setattr(ShardedVecEnv, "start_rollout", lambda *a, **k: pytest.fail("played in the workers"))
        model.learn(model.n_steps * venv.num_envs)
        assert model.num_timesteps == model.n_steps * venv.num_envs
    finally:
        venv.close()


@pytest.mark.parametrize("prior_features", [0, 8])
def test_a_prior_policy_played_in_the_workers_acts_as_in_the_learner(prior_features):
    """A prior policy without a square head is played in the workers (`PriorWorkerActor`, sent pickled): for the
    same observations, masks and uniforms it draws the learner's actions with its values and log-probabilities (to
    float rounding); a rollout played so stores the policy's own log-probabilities and values, legal actions."""
    import pickle

    from agents.config import load_config
    from agents.fast_ppo import PriorWorkerActor
    from agents.train import build_model, make_vec_env

    cfg = load_config("configs/saga/smoke.yaml", ["env.prior=heuristic", "train.workers=2", "imitation.samples=0",
                                                  f"ppo.prior_features={prior_features}"])
    venv = make_vec_env(cfg)
    try:
        model = build_model(cfg, venv)
        with torch.no_grad():  # weights off their start (the action layer starts near zero)
            for p in model.policy.parameters():
                p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())) * 0.05)
        assert model.plays_in_workers(venv)
        actor = pickle.loads(pickle.dumps(model._worker_actor()))
        assert isinstance(actor, PriorWorkerActor)
        obs, masks = venv.reset(), fast_ppo.vec_action_masks(venv)
        u = np.random.default_rng(1).random((len(obs), 1)).astype(np.float32)
        actions, values, log_probs = actor.act(obs, masks, u)
        with torch.no_grad():
            logits, want_values = model._acting_net()(torch.as_tensor(obs))
            want_actions, want_log_probs = fast_ppo.masked_sample(logits, torch.as_tensor(masks), torch.as_tensor(u))
        assert actions.tolist() == want_actions.tolist()
        np.testing.assert_allclose(values, want_values.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(log_probs, want_log_probs.numpy(), rtol=1e-4, atol=1e-5)

        weights = {k: v.clone() for k, v in model.policy.state_dict().items()}
        model.learn(model.n_steps * venv.num_envs)  # one rollout, played in the workers, then one update
        b = model.rollout_buffer
        obs = np.array(b.observations).reshape(-1, b.observations.shape[-1])
        acts = np.array(b.actions).reshape(-1).astype(int)
        masks = np.array(b.action_masks).reshape(len(acts), -1)
        assert masks[np.arange(len(acts)), acts].all()
        model.policy.load_state_dict(weights)
        with torch.no_grad():
            values, log_prob, _ = model.policy.evaluate_actions(torch.as_tensor(obs), torch.as_tensor(acts),
                                                                action_masks=masks)
        np.testing.assert_allclose(log_prob.numpy(), np.array(b.log_probs).reshape(-1), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(values.numpy().reshape(-1), np.array(b.values).reshape(-1), rtol=1e-4, atol=1e-5)
    finally:
        venv.close()


def _same_prior_start(prior_features: int, square_head: int):
    """As `_same_start`, for a PriorPolicy (agents/prior_policy.py) on an env with the heuristic prior block."""
    from agents.prior_policy import PriorPolicy, square_layout

    venv = MaskedDummyVecEnv([lambda: TacticsEnv("saga", opponent="random", prior="heuristic",
                                                 generator={"sizes": (1, 2), "width": 8, "height": 8})] * 4)
    env = venv.envs[0].unwrapped
    kwargs = {"net_arch": [32, 32], "prior_dim": int(venv.action_space.n), "prior_features": prior_features,
              "activation_fn": torch.nn.ReLU}
    if square_head:
        kwargs.update(square_head=square_head, square_layout=tuple(square_layout(env.codec, env.encoder)))
    kw = dict(n_steps=32, batch_size=32, n_epochs=3, seed=0, ent_coef=0.01, clip_range=0.2, policy_kwargs=kwargs,
              device="cpu")
    ref, fast = MaskablePPO(PriorPolicy, venv, **kw), FastMaskablePPO(PriorPolicy, venv, **kw)
    with torch.no_grad():  # weights off their start (the square head's last layer is zero there)
        for p in ref.policy.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())) * 0.05)
    return _filled_alike(ref, fast, venv)


@pytest.mark.parametrize("prior_features,square_head,dense", [pytest.param(0, 0, False, marks=SPARSE),
                                                               pytest.param(8, 0, False, marks=SPARSE),
                                                               pytest.param(8, 4, False, marks=SPARSE),
                                                               (8, 0, True)])
def test_one_update_of_a_prior_policy_moves_the_weights_as_maskable_ppo_does(prior_features, square_head, dense,
                                                                             monkeypatch):
    """A PriorPolicy's observation is mostly zeros and, in its prior block, the prior's floor: its first layers run
    over the rest (`PriorFirstLayers`; with `dense`, through its modules), its logits for the actions legal in the
    rollout only, and the update is sb3-contrib's."""
    from agents.fast_ppo import PriorFirstLayers

    if dense:
        monkeypatch.setattr(fast_ppo, "SPARSE_SHARE", 0.0)
    ref, fast = _same_prior_start(prior_features, square_head)
    first = fast._sparse_first_layers()
    assert isinstance(first, PriorFirstLayers) != dense
    assert fast.rollout_buffer.legal_columns() is not None  # the logits of a subset of the actions
    moved = _one_update_alike(ref, fast)
    assert moved > 1e-4
