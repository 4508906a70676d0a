"""ppo.square_head: one network shared by every square of the actions' window adds a correction to each square
action; it reads the map there, and a model trained without it continues with it, playing as before at the start."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.checkpoints import save_model
from agents.config import ConfigError, load_config
from agents.policies import MaskablePolicy
from agents.train import build_model, init_weights
from envs.observation import PLANES

from .test_prior_features import _actor_logits, _config, setting  # noqa: F401 (setting: a fixture)

def test_a_model_without_a_square_head_continues_with_it_playing_as_before(setting):
    path, source, venv, obs = setting
    cfg = _config("ppo.square_head=8")
    model = build_model(cfg, venv)
    head = model.policy.action_net.square
    assert head is not None and not head.out.weight.any() and not head.out.bias.any()
    init_weights(cfg, model, path)
    assert torch.equal(_actor_logits(model, obs), _actor_logits(source, obs))
    with torch.no_grad():  # the head is live once its last layer has weights, and only on square actions
        head.out.weight.fill_(0.5)
        head.out.bias.fill_(0.25)
    moved = (_actor_logits(model, obs) != _actor_logits(source, obs)).any(dim=0).numpy()
    square = np.zeros(moved.shape, dtype=bool)
    square[head.index.numpy()] = True
    assert moved[square].all() and not moved[~square].any()


def test_the_head_reads_the_map_at_the_square_each_action_names(setting):
    """A head that outputs the off-map plane of its square plus 2 x its beyond-the-observation input, for the 'move'
    action: its correction is 1 exactly at the move indices whose square lies off the map (by the codec's decoding
    of the index) within the observation's window, and 2 on the action window's rim beyond it."""
    _, _, venv, obs = setting
    model = build_model(_config("ppo.square_head=4"), venv)
    head = model.policy.action_net.square
    lay = head.layout
    env = venv.unwrapped.envs[0].unwrapped if hasattr(venv.unwrapped, "envs") else None
    codec, encoder = env.codec, env.encoder
    move = list(lay.blocks).index(codec.blocks["move"][0])
    with torch.no_grad():
        for p in head.parameters():
            p.zero_()
        head.local.weight[0, PLANES.index("off_map")] = 1.0
        head.local.weight[0, len(PLANES)] = 2.0
        head.out.weight[move, 0] = 1.0
        prior = model.policy.prior_dim
        got = head(torch.zeros(len(obs), 16), torch.as_tensor(obs[:, -prior:]), torch.as_tensor(obs[:, :-prior]))
    got = got.reshape(len(obs), len(lay.blocks), lay.side ** 2)[:, move].numpy()
    w, h = codec.map_w, codec.map_h
    actor = encoder.n_global + 4  # the actor's row: present, active, hp fraction, hp / scale, x / W, y / H, ...
    off = 0
    for o, row in zip(obs, got):
        ax, ay = round(float(o[actor]) * w), round(float(o[actor + 1]) * h)
        for slot in range(lay.side ** 2):
            x, y = _square(codec, codec.blocks["move"][0] + slot, (ax, ay))
            r = encoder.radius
            if abs(x - ax) > r or abs(y - ay) > r:
                assert row[slot] == 2.0, (slot, (x, y))
                continue
            outside = not (0 <= x < w and 0 <= y < h)
            off += outside
            assert row[slot] == float(outside), (slot, (x, y))
    assert off > 0


def _square(codec, index: int, pos: tuple[int, int]) -> tuple[int, int]:
    """The square the codec decodes `index` to for an actor standing on `pos`."""
    class Actor:
        pass
    a = Actor()
    a.pos = pos
    return codec.decode(index, None, a).square


def test_the_table_policy_plays_a_square_head_model_through_torch(setting, tmp_path):
    _, _, venv, obs = setting
    cfg = _config("ppo.square_head=4")
    model = build_model(cfg, venv)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel() + 1)) * 0.3)
    pol = MaskablePolicy(save_model(model, tmp_path / "model.zip", cfg, light=True))
    assert not pol._numpy_path()  # the numpy copy knows plain layers only
    for o, want in zip(obs, _actor_logits(model, obs).numpy()):
        assert np.allclose(pol.logits(o), want, atol=1e-5)


def test_a_square_head_needs_the_prior_block():
    with pytest.raises(ConfigError, match="ppo.square_head"):
        load_config("configs/saga/smoke.yaml", ["ppo.square_head=8"])
