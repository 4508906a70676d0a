"""The C loops of the codec and the observation encoder (envs/_native.c) give exactly what their Python
versions give; both are checked on states from random battles, so the fallback stays correct too."""
import random

import numpy as np
import pytest

import envs.codec as codec_module
import envs.observation as obs_module
from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.rulesets import get_ruleset
from envs.codec import ActionCodec
from envs.observation import ObservationEncoder


def test_the_c_module_is_built_and_used():
    assert codec_module._native is not None and obs_module._native is not None, \
        "envs/_native.c was not built: reinstall with `python3 bootstrap.py setup`"


def _states(n_battles: int, seed: int):
    rs = get_ruleset("saga")
    rng = random.Random(seed)
    for k in range(n_battles):
        enc = random_encounter(rs, rng, rng.randint(8, 16), rng.randint(8, 16), sizes=(1, 4))
        b = Battle(enc, rs, SeededDice(k))
        b.start()
        while not b.over:
            yield b
            b.step(rng.choice(b.legal()))


@pytest.mark.parametrize("radius", [8, 3])
def test_indices_and_mask_match_python(monkeypatch, radius):
    rs = get_ruleset("saga")
    codec = ActionCodec(rs, 4, 16, 16, radius=radius)
    native = codec_module._native
    n = unencodable = 0
    for b in _states(6, seed=radius):
        enc, actor, legal = b.enc, b.enc.actor, b.legal()
        got_idx, got_mask = codec.indices(legal, enc, actor), codec.mask(legal, enc, actor)
        monkeypatch.setattr(codec_module, "_native", None)
        want_idx, want_mask = codec.indices(legal, enc, actor), codec.mask(legal, enc, actor)
        monkeypatch.setattr(codec_module, "_native", native)
        assert got_idx == want_idx
        assert (got_mask == want_mask).all()
        assert [codec.encode(d, enc, actor) for d in legal] == got_idx
        n += 1
        unencodable += None in got_idx
    assert n > 200 and unencodable > 0  # runs beyond a radius-3 window are left out


@pytest.mark.parametrize("radius", [7, 3])
def test_observation_matches_python(monkeypatch, radius):
    rs = get_ruleset("saga")
    oe = ObservationEncoder(rs, 4, 16, 16, radius=radius)
    native = obs_module._native
    n = 0
    for b in _states(6, seed=10 + radius):
        got = oe.encode(b.enc, b.enc.actor, np.full(oe.size, 9.0, dtype=np.float32))
        monkeypatch.setattr(obs_module, "_native", None)
        want = oe.encode(b.enc, b.enc.actor, np.full(oe.size, -9.0, dtype=np.float32))
        monkeypatch.setattr(obs_module, "_native", native)
        np.testing.assert_array_equal(got, want)
        n += 1
    assert n > 200


def test_bad_arguments_are_refused_not_crashed():
    native = codec_module._native
    with pytest.raises(TypeError):
        native.action_indices([("move",)], {}, {}, {}, 0, 0, 17, "end_turn", None)
    with pytest.raises(ValueError):
        native.action_indices([], {}, {}, {}, 0, 0, 17, "end_turn", np.zeros(3, dtype=np.float32))
    with pytest.raises(IndexError):
        native.action_indices([("end_turn", None, None, 0), ("a", None, None, 5)], {"a": (1, 0, 9)}, {}, {},
                              0, 0, 17, "end_turn", np.zeros(3, dtype=bool))
    with pytest.raises(IndexError):
        native.unit_rows(np.zeros(10, dtype=np.float32), 0, [None, None], [], None, 16, 16, 27, 13, 0)
