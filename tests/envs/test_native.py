"""The C loops of the codec and the observation encoder (envs/_native.c) give exactly what their Python
versions give; both are checked on states from random battles, so the fallback stays correct too."""
import random
from pathlib import Path

import numpy as np
import pytest

import envs.codec as codec_module
import envs.observation as obs_module
from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.rulesets import get_ruleset
from envs.codec import ActionCodec
from envs.observation import ObservationEncoder
from tests.battle_walk import random_walk
from tests.compiler import needs_c

pytestmark = needs_c(codec_module._native is not None and obs_module._native is not None, "envs/_native.c")


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
        odd = [Decision("melee_attack", t) for t in (None, -1, len(enc.units), 2**70)] + \
            [Decision("melee_attack", u.id) for u in enc.units]  # no unit, and the actor's own side
        assert codec.indices(odd, enc, actor) == codec._indices_py(odd, enc, actor)
        n += 1
        unencodable += None in got_idx
    assert n > 200 and unencodable > 0  # runs beyond a radius-3 window are left out


def _observation_states(n_battles: int, seed: int):
    """States of random battles, one in three on a shipped encounter (doors, windows), some on clones with doors
    opened or closed and objects broken; the end of each battle as each unit sees it (an episode's last
    observation)."""
    rs = get_ruleset("saga")
    rng = random.Random(seed)
    files = sorted((Path(__file__).resolve().parents[2] / "configs" / "encounters" / "saga").glob("*.yaml"))
    for k in range(n_battles):
        if k % 3 == 0:
            enc = load_encounter(files[(k // 3) % len(files)], rs)
        else:
            enc = random_encounter(rs, rng, rng.randint(8, 16), rng.randint(8, 16), sizes=(1, 4))
        b = Battle(enc, rs, SeededDice(k))
        b.start()
        for _ in random_walk(b, rng):
            yield b.enc, b.enc.actor
            if rng.random() < 0.1:
                twin = b.enc.clone()
                g = twin.grid
                for i in range(g.width * g.height):
                    if g.terrain[i] == "door" and rng.random() < 0.5:
                        g.open_doors.symmetric_difference_update({i})
                    elif g.terrain[i] in ("low_cover", "heavy_cover", "window") and rng.random() < 0.2:
                        g.broken.add(i)
                yield twin, twin.actor
        for u in b.enc.units:
            yield b.enc, u


def _python_encode(monkeypatch, oe, enc, actor):
    """The encoder's Python version."""
    with monkeypatch.context() as m:
        m.setattr(obs_module, "_native", None)
        return oe.encode(enc, actor, np.full(oe.size, -9.0, dtype=np.float32))


@pytest.mark.parametrize("per_side, radius", [(4, 7), (4, 3), (2, 5)])  # 2: units beyond the rows
def test_observation_matches_python(monkeypatch, per_side, radius):
    rs = get_ruleset("saga")
    oe = ObservationEncoder(rs, per_side, 16, 16, radius=radius)
    n = doors = over = 0
    for enc, actor in _observation_states(9, seed=10 + radius):
        got = oe.encode(enc, actor, np.full(oe.size, 9.0, dtype=np.float32))
        assert got.dtype == np.float32
        assert np.array_equal(got, _python_encode(monkeypatch, oe, enc, actor))
        assert np.array_equal(oe.encode(enc, actor), got)  # a new array when no `out` is given
        n += 1
        doors += bool(enc.grid.open_doors or enc.grid.broken)
        over += enc.over
    assert n > 1000 and doors > 50 and over > 10


def test_observation_of_rulesets_without_the_fast_parts_matches_python(monkeypatch):
    """The generic path: a ruleset keeping the default `observation_parts` (features and threat estimates one unit
    at a time, `threat_reach` called per unit): Saga so reduced, and a toy ruleset without either."""
    from engine.core.ruleset import Ruleset
    from engine.rulesets import get_ruleset
    from tests.toys.toy_fifth import RULESET as FIFTH

    class GenericSaga(type(get_ruleset("saga"))):
        observation_parts = Ruleset.observation_parts

    REF = GenericSaga()
    encoders = [ObservationEncoder(REF, 4, 16, 16), ObservationEncoder(REF, 2, 12, 12, radius=3)]
    n = 0
    for k, (enc, actor) in enumerate(_observation_states(6, seed=21)):
        if k % 3:
            continue
        for oe in encoders:
            got = oe.encode(enc, actor, np.full(oe.size, 9.0, dtype=np.float32))
            assert np.array_equal(got, _python_encode(monkeypatch, oe, enc, actor))
        n += 1
    assert n > 200
    from tests.toys.common import build

    enc = build(FIFTH, ["#########", "#.......#", "#...c...#", "#.......#", "#########"],
                [{"name": "P", "side": "pcs", "template": "fighter", "at": [1, 2]},
                 {"name": "N", "side": "npcs", "template": "goblin", "at": [7, 2]}])
    b = Battle(enc, FIFTH, SeededDice(0))
    b.start()
    oe = ObservationEncoder(FIFTH, 2, 9, 5, radius=3)
    for _ in range(40):
        if b.over:
            break
        got = oe.encode(b.enc, b.enc.actor, np.full(oe.size, 9.0, dtype=np.float32))
        assert np.array_equal(got, _python_encode(monkeypatch, oe, b.enc, b.enc.actor))
        b.step(b.legal()[-1])


def test_bad_arguments_are_refused_not_crashed():
    native = codec_module._native
    with pytest.raises(TypeError):
        native.action_indices([("move",)], {}, [], "pcs", 0, 0, 17, "end_turn", None)
    with pytest.raises(ValueError):
        native.action_indices([], {}, [], "pcs", 0, 0, 17, "end_turn", np.zeros(3, dtype=np.float32))
    with pytest.raises(AttributeError):
        native.action_indices([], {}, [object()], "pcs", 0, 0, 17, "end_turn", None)
    with pytest.raises(IndexError):
        native.action_indices([("end_turn", None, None, 0), ("a", None, None, 5)], {"a": (1, 0, 9, 1)}, [], "pcs",
                              0, 0, 17, "end_turn", np.zeros(3, dtype=bool))
    rs = get_ruleset("saga")
    b = next(_states(1, seed=3))
    enc, actor = b.enc, b.enc.actor
    oe = ObservationEncoder(rs, 4, 16, 16)
    kinds = enc.grid.kind_codes()
    out = np.zeros(oe.size, dtype=np.float32)

    def encode(out=out, kinds=kinds, parts=rs.observation_parts, spec=oe._spec, actor=actor):
        obs_module._native.encode(out, enc, actor, spec, kinds, parts, rs.threatens)

    encode()
    with pytest.raises(ValueError):
        encode(out=np.zeros(oe.size, dtype=np.float64))
    with pytest.raises(ValueError):
        encode(out=np.zeros(oe.size - 1, dtype=np.float32))
    with pytest.raises(ValueError):
        encode(kinds=kinds[1:])
    with pytest.raises(TypeError):
        encode(kinds=bytearray(kinds))
    with pytest.raises(ValueError):
        encode(spec=oe._spec[:-1] + (oe._spec[-1][1:],))
    with pytest.raises(IndexError):
        encode(parts=lambda e, a, units: [])
    with pytest.raises(TypeError):
        encode(parts=lambda e, a, units: [(0.5, None)] * len(units))
    with pytest.raises(TypeError):  # an array of figures is not a sequence of (features, threat) parts
        encode(parts=lambda e, a, units: np.zeros((len(units), 3)))
    with pytest.raises(TypeError):
        encode(parts=lambda e, a, units: np.zeros((len(units) + 1, 19)))
    with pytest.raises(ValueError):  # more features than the rows hold
        encode(parts=lambda e, a, units: [([0.0] * 40, None)] * len(units))
    with pytest.raises(ZeroDivisionError):
        encode(parts=lambda e, a, units: 1 / 0)
    with pytest.raises(TypeError):
        encode(spec=oe._spec[:-1])
    ghost = actor.clone()
    ghost.pos = (enc.grid.width, 0)
    with pytest.raises(ValueError):
        encode(actor=ghost)


@pytest.mark.parametrize("native", [True, False])
def test_the_hp_column_is_hp_over_the_rulesets_scale(monkeypatch, native):
    """The unit rows' fourth value is hp / `Ruleset.hp_scale`, in C and in Python: Saga's 50 (what zoo:saga was
    trained on), a toy ruleset's own scale, and the base class's documented default for a ruleset that sets none."""
    from engine.core.ruleset import Ruleset
    from tests.toys.common import build
    from tests.toys.toy_fifth import Toy5e

    if not native:
        monkeypatch.setattr(obs_module, "_native", None)
    assert get_ruleset("saga").hp_scale == 50.0 and Ruleset.hp_scale == 20.0

    class Scaled(Toy5e):
        hp_scale = 8.0

    def hp_column(rs, enc, actor, per_side=2):
        oe = ObservationEncoder(rs, per_side, enc.grid.width, enc.grid.height, radius=3)
        obs = oe.encode(enc, actor)
        rows = obs[oe.n_global:oe.n_global + oe.n_rows * oe.unit_width].reshape(oe.n_rows, oe.unit_width)
        return [float(v) for v in rows[:, 3]], oe

    units = [{"name": "P", "side": "pcs", "template": "fighter", "at": [1, 2]},
             {"name": "N", "side": "npcs", "template": "goblin", "at": [7, 2]}]
    rows = ["#########", "#.......#", "#.......#", "#.......#", "#########"]
    for rs, scale in ((Scaled(), 8.0), (Toy5e(), 20.0)):
        enc = build(rs, rows, units)
        got, _ = hp_column(rs, enc, enc.units[0])
        assert got == [np.float32(12 / scale), 0.0, np.float32(7 / scale), 0.0]
    for enc, actor in _observation_states(2, seed=5):
        got, oe = hp_column(get_ruleset("saga"), enc, actor, per_side=4)
        want = [actor.hp] + [u.hp for u in enc.units if u.side == actor.side and u.id != actor.id]
        assert got[:len(want)] == [np.float32(min(5.0, max(-5.0, h / 50))) for h in want]

    class Zero(Toy5e):
        hp_scale = 0

    with pytest.raises(ValueError, match="hp_scale"):
        ObservationEncoder(Zero(), 2, 9, 5)
