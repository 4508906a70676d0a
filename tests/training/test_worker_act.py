"""The env workers' acting in C (agents/_act.c, `WorkerActor`) computes what the torch version computes: the same
actions drawn from the same uniforms, the same log-probabilities and values to float rounding."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

import agents.fast_ppo as fast_ppo
from agents.fast_ppo import WorkerActor, _plain_layers



def test_the_c_actor_is_built():
    assert fast_ppo._act is not None, "agents._act is not built: `pip install -e .` compiles it (needs a C compiler)"


def _nets(sizes: list[int], n_actions: int, activation=torch.nn.ReLU, seed: int = 0):
    torch.manual_seed(seed)
    layers, width = [], sizes[0]
    for out in sizes[1:]:
        layers += [torch.nn.Linear(width, out), activation()]
        width = out
    actor = _plain_layers([*layers, torch.nn.Linear(width, n_actions)])
    critic_layers, width = [], sizes[0]
    for out in sizes[1:]:
        critic_layers += [torch.nn.Linear(width, out), activation()]
        width = out
    critic = _plain_layers([*critic_layers, torch.nn.Linear(width, 1)])
    return actor, critic


def _inputs(rng, rows: int, n_in: int, n_actions: int, density: float = 0.1):
    obs = np.where(rng.random((rows, n_in)) < density, rng.normal(0, 1, (rows, n_in)), 0).astype(np.float32)
    obs[0] = 0.0  # a row of zeros: only the biases
    obs[1, :5] = -0.0
    masks = rng.random((rows, n_actions)) < rng.uniform(0.01, 0.2, (rows, 1))
    masks[np.arange(rows), rng.integers(0, n_actions, rows)] = True
    masks[2] = False
    masks[2, n_actions - 1] = True  # one legal action, the last
    masks[3] = True  # every action legal
    u = rng.random((rows, 1)).astype(np.float32)
    u[4] = 0.0
    u[5] = np.nextafter(np.float32(1), np.float32(0))
    return obs, masks, u


def _torch_act(actor: WorkerActor, obs, masks, u):
    saved, fast_ppo._act = fast_ppo._act, None
    try:
        return actor.act(obs, masks, u)
    finally:
        fast_ppo._act = saved


@pytest.mark.parametrize("sizes, n_actions, activation", [
    ([2247, 128, 128], 1519, torch.nn.ReLU),  # the skirmish network
    ([37, 20], 50, torch.nn.Tanh),  # widths that are not multiples of the C code's blocks of 32
    ([64], 9, torch.nn.ReLU),  # no hidden layer: the logits straight from the observation
])
def test_the_c_actor_acts_as_the_torch_actor(sizes, n_actions, activation):
    rng = np.random.default_rng(1)
    actor, critic = _nets(sizes, n_actions, activation)
    for _ in range(3):
        obs, masks, u = _inputs(rng, 32, sizes[0], n_actions)
        want = _torch_act(WorkerActor(actor, critic), obs, masks, u)
        got = WorkerActor(actor, critic).act(obs, masks, u)
        assert [a.dtype for a in got] == [a.dtype for a in want]
        assert [a.shape for a in got] == [a.shape for a in want]
        assert masks[np.arange(32), got[0]].all()
        # an action whose cumulative probability is within rounding of u may differ; none is, with these draws
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-5)


def test_the_c_actor_draws_by_the_masked_probabilities():
    """Over many uniforms, each legal action comes out in proportion to its masked softmax probability; a masked
    one never."""
    rng = np.random.default_rng(2)
    actor, critic = _nets([16, 8], 6)
    obs = rng.normal(0, 1, (1, 16)).astype(np.float32)
    masks = np.array([[True, False, True, True, False, True]])
    n = 20000
    wa = WorkerActor(actor, critic)
    counts = np.bincount([wa.act(obs, masks, np.array([[x]], np.float32))[0][0]
                          for x in rng.random(n).astype(np.float32)], minlength=6)
    with torch.no_grad():
        logits = fast_ppo._run_layers(actor, torch.as_tensor(obs))[0].numpy()
    want = np.where(masks[0], np.exp(logits - logits.max()), 0.0)
    assert counts[1] == counts[4] == 0
    np.testing.assert_allclose(counts / n, want / want.sum(), atol=0.015)


def test_a_row_with_no_legal_action_is_refused():
    actor, critic = _nets([8, 4], 3)
    masks = np.ones((2, 3), dtype=bool)
    masks[1] = False
    with pytest.raises(ValueError, match="row 1 of the masks allows no action"):
        WorkerActor(actor, critic).act(np.zeros((2, 8), np.float32), masks, np.zeros((2, 1), np.float32))


def test_the_actor_travels_without_its_prepared_weights():
    actor, critic = _nets([8, 4], 3)
    wa = WorkerActor(actor, critic)
    wa.act(np.zeros((1, 8), np.float32), np.ones((1, 3), bool), np.zeros((1, 1), np.float32))
    assert wa._native is not None
    again = pickle.loads(pickle.dumps(wa))
    assert again._native is None and again._torch is None
    np.testing.assert_array_equal(again.layers[0][0][1], wa.layers[0][0][1])
