"""The products over the observations' non-zeros in C (agents/_kernels.c) compute what torch computes: the env
workers' acting (`WorkerActor`: the same actions drawn from the same uniforms, the same log-probabilities and
values to float rounding) and the updates' first layers (`SparseFirstLayers`: the same outputs and gradients)."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

import agents.fast_ppo as fast_ppo
from agents.fast_ppo import SparseFirstLayers, WorkerActor, _plain_layers
from tests.compiler import needs_c

pytestmark = needs_c(fast_ppo._kernels is not None, "agents/_kernels.c")



def test_the_c_actor_is_built():
    assert fast_ppo._kernels is not None, \
        "agents._kernels is not built: `python3 bootstrap.py setup` compiles it (needs a C compiler)"


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
    saved, fast_ppo._kernels = fast_ppo._kernels, None
    try:
        return actor.act(obs, masks, u)
    finally:
        fast_ppo._kernels = saved


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


@pytest.mark.parametrize("n_in, widths, threads", [
    (2247, [128, 128], 2),  # the skirmish's actor and critic
    (300, [70, 33], 1),  # widths that are not multiples of the C code's blocks of 64
    (300, [70, 33], 3),  # more threads than blocks: some get the rest
    (50, [16], 2),  # one net
])
def test_sparse_first_layers_compute_what_linear_computes_with_its_gradients(n_in, widths, threads):
    rng = np.random.default_rng(3)
    torch.manual_seed(0)
    layers = [torch.nn.Linear(n_in, w) for w in widths]
    x = torch.as_tensor(np.where(rng.random((257, n_in)) < 0.1, rng.normal(0, 1, (257, n_in)), 0), dtype=torch.float32)
    x[5] = 0.0  # a row of zeros
    x[7] = 1.0  # a row without zeros
    g = torch.randn(257, sum(widths))

    def grads(y):
        for layer in layers:
            layer.zero_grad()
        (y * g).sum().backward()
        return [p.grad.clone() for layer in layers for p in (layer.weight, layer.bias)]

    want_y = torch.cat([layer(x) for layer in layers], dim=1)
    want = grads(want_y)
    params = [p for layer in layers for p in (layer.weight, layer.bias)]
    got_y = SparseFirstLayers.apply(x, threads, *params)
    got = grads(got_y)
    torch.testing.assert_close(got_y, want_y, rtol=1e-5, atol=1e-5)
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.is_contiguous()
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-4)


def test_sparse_first_layers_of_zeros_are_the_biases_and_have_no_weight_gradient():
    layer = torch.nn.Linear(40, 10)
    y = SparseFirstLayers.apply(torch.zeros(6, 40), 2, layer.weight, layer.bias)
    torch.testing.assert_close(y, layer.bias.detach().expand(6, 10))
    y.sum().backward()
    assert not layer.weight.grad.any() and torch.equal(layer.bias.grad, torch.full((10,), 6.0))


def test_the_c_products_refuse_arrays_that_do_not_fit():
    from agents import _kernels

    x = np.eye(4, 6, dtype=np.float32)
    indptr, indices, values = (np.frombuffer(b, t) for b, t in zip(_kernels.csr(x), (np.int32, np.int32, np.float32)))
    assert indptr.tolist() == [0, 1, 2, 3, 4] and indices.tolist() == [0, 1, 2, 3] and values.tolist() == [1] * 4
    nnz = len(indices)
    rng = np.random.default_rng(0)
    for _ in range(50):  # rows split over threads: the same result (a row writes a scratch entry where the next
        # entry goes, which after empty rows is another thread's)
        big = np.where(rng.random((37, 50)) < 0.2, 1.5, 0).astype(np.float32)
        big[rng.random(37) < 0.5] = 0
        assert all(_kernels.csr(big, threads) == _kernels.csr(big) for threads in (2, 3, 5, 40))
    empty = _kernels.csr(np.zeros((2, 9), np.float32))
    assert np.frombuffer(empty[0], np.int32).tolist() == [0, 0, 0] and empty[1] == empty[2] == b""
    w, b, y = np.ones((6, 3), np.float32), np.zeros(3, np.float32), np.empty((4, 3), np.float32)
    csr = indptr, indices[:nnz], values[:nnz]
    with pytest.raises(ValueError, match="indices beyond w's columns"):
        _kernels.linear_forward(*csr, None, w[:2].copy(), b, y, 1)
    with pytest.raises(ValueError, match="w must be"):
        _kernels.linear_forward(*csr, None, w, b, np.empty((3, 3), np.float32), 1)
    with pytest.raises(TypeError, match="float32"):
        _kernels.linear_forward(*csr, None, w.astype(np.float64), b, y, 1)
    with pytest.raises(IndexError, match="row 4 of a csr of 4 rows"):
        _kernels.linear_forward(*csr, np.array([0, 4]), w, b, y[:2].copy(), 1)
    with pytest.raises(ValueError, match="g must be"):
        _kernels.linear_backward(*csr, None, y, np.empty((6, 3), np.float32), 1)
    _kernels.linear_forward(*csr, None, w, b, y, 1)
    np.testing.assert_array_equal(y, x @ w)
    picked = np.empty((3, 3), np.float32)
    _kernels.linear_forward(*csr, np.array([3, 0, 3]), w, b, picked, 1)  # rows taken in any order, again
    np.testing.assert_array_equal(picked, (x @ w)[[3, 0, 3]])
    g = np.arange(9, dtype=np.float32).reshape(3, 3)
    dw = np.empty((3, 6), np.float32)
    _kernels.linear_backward(*csr, np.array([3, 0, 3]), g, dw, 2)
    np.testing.assert_array_equal(dw, g.T @ x[[3, 0, 3]])


def test_masked_stats_refuse_an_action_out_of_range():
    from agents import _kernels

    z, m = np.zeros((2, 3), np.float32), np.ones((2, 3), bool)
    out = [np.empty(2, np.float32), np.empty(2, np.float32), np.empty((2, 3), np.float32), np.empty((2, 3), np.float32)]
    with pytest.raises(IndexError, match="the action of row 1 is not one of the 3"):
        _kernels.masked_stats(z, m, np.array([0, 3]), *out)
    with pytest.raises(ValueError, match="shapes of the arrays do not agree"):
        _kernels.masked_stats(z, m[:1].copy(), np.array([0, 1]), *out)


def test_integer_arrays_of_another_type_or_a_broken_indptr_are_refused():
    """(From an ASan / UBSan run over fuzzed calls: these read or wrote out of bounds, or misaligned, before.)"""
    from agents import _kernels

    z, m = np.zeros((2, 3), np.float32), np.ones((2, 3), bool)
    out = [np.empty(2, np.float32), np.empty(2, np.float32), np.empty((2, 3), np.float32), np.empty((2, 3), np.float32)]
    with pytest.raises(TypeError, match="actions must be a C-contiguous, aligned int64 array"):
        _kernels.masked_stats(z, m, np.array([0.0, 1.0]), *out)  # float64: 8 bytes too, but not integers
    unaligned = np.frombuffer(bytes(17), np.int64, count=2, offset=1)
    with pytest.raises(TypeError, match="aligned int64"):
        _kernels.masked_stats(z, m, unaligned, *out)
    with pytest.raises(IndexError, match="masked_stats_backward: the action of row 0 is not one of the 3"):
        _kernels.masked_stats_backward(out[2], out[3], out[1], np.array([3, 0]), out[0], out[0],
                                       np.empty((2, 3), np.float32))
    indices, values = np.zeros(3, np.int32), np.ones(3, np.float32)
    w, y = np.ones((4, 2), np.float32), np.empty((2, 2), np.float32)
    for indptr in ([-100000, 0, 3], [0, 100000, 3], [0, 4, 3]):
        with pytest.raises(ValueError, match="must be a `csr` call's"):
            _kernels.linear_forward(np.array(indptr, np.int32), indices, values, None, w, None, y, 1)
    with pytest.raises(ValueError, match="w must be"):
        _kernels.linear_forward(np.array([0, 1, 3], np.int32), indices, values, None, np.float32(1).reshape(()),
                                None, y, 1)
