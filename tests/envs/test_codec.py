"""The action codec (envs/codec.py): every target kind (none, enemy / unit, ally, square, intersection) with and
without options, the option-major layout of options x targets, decode and encode inverse to each other, the C loop
(envs/_native.c action_indices) equal to the Python loop, unencodable decisions None, Saga's encoding unchanged,
and MaskablePPO learning over the action space of a ruleset that uses them all."""
import json
import random
from pathlib import Path

import numpy as np
import pytest

import envs.codec as codec_module
from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.rulesets import get_ruleset
from envs.codec import ActionCodec
from tests.compiler import needs_c
from tests.toys.common import build

from .toy_targets import RULESET as TOY
from .toy_targets import registered

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("none", "enemy", "ally", "unit", "square", "intersection")


def _states(rs, n_battles: int, seed: int):
    """Battles of random encounters at every decision of a random play."""
    rng = random.Random(seed)
    for k in range(n_battles):
        enc = random_encounter(rs, rng, rng.randint(8, 16), rng.randint(8, 16), sizes=(1, 4))
        b = Battle(enc, rs, SeededDice(k))
        b.start()
        while not b.over:
            yield b
            b.step(rng.choice(b.legal()))


def test_the_toy_uses_every_target_kind_and_options_with_targets():
    specs = TOY.catalogue.values()
    assert {s.target for s in specs} == set(KINDS)
    assert {s.target for s in specs if s.options > 1} == {"none", "enemy", "ally", "square"}


@pytest.mark.parametrize("rid, radius", [("toy_targets", 8), ("toy_targets", 3), ("saga", 8), ("starfinder", 5)])
def test_every_index_decodes_to_a_decision_that_encodes_back(rid, radius):
    rs = TOY if rid == "toy_targets" else get_ruleset(rid)
    codec = ActionCodec(rs, 4, 16, 16, radius=radius)
    n = 0
    for b in _states(rs, 3, seed=radius):
        enc, actor = b.enc, b.enc.actor
        mine, other = codec.side_lists(enc, actor)
        decoded = [codec.decode(i, enc, actor) for i in range(codec.n)]
        assert [codec.encode(d, enc, actor) for d in decoded if d is not None] == \
            [i for i, d in enumerate(decoded) if d is not None]
        empty = sum(options * (slots - min(slots, len(mine if kind == "ally" else other)))
                    for _, kind, options, slots in codec.blocks.values()
                    if kind not in ("none", "square", "intersection"))
        assert sum(d is None for d in decoded) == empty  # only slots of units that are not there name nothing
        assert codec.decode(codec.n, enc, actor) is None and codec.decode(-1, enc, actor) is None
        n += 1
        if n == 60:
            break
    assert n == 60


def _toy_battle():
    rows = ["#" * 14] + ["#" + "." * 12 + "#" for _ in range(12)] + ["#" * 14]
    units = [{"name": "A", "side": "pcs", "template": "scout", "at": [5, 6]},
             {"name": "B", "side": "npcs", "template": "brute", "at": [7, 6]},
             {"name": "C", "side": "pcs", "template": "brute", "at": [5, 7]},
             {"name": "D", "side": "npcs", "template": "scout", "at": [9, 9]},
             {"name": "E", "side": "npcs", "template": "scout", "at": [2, 2]}]
    enc = build(TOY, rows, units)
    return enc, enc.units[0]


def test_the_layout_is_option_major_with_the_windows_the_docstring_gives():
    enc, actor = _toy_battle()
    codec = ActionCodec(TOY, 4, 16, 16, radius=2)  # square window 5 x 5, intersection window 6 x 6
    start = {key: block[0] for key, block in codec.blocks.items()}
    assert codec.blocks["move"][1:] == ("square", 1, 25)
    assert codec.blocks["shoot"][1:] == ("enemy", 3, 4)
    assert codec.blocks["grenade"][1:] == ("intersection", 1, 36)
    assert codec.blocks["bolt"][1:] == ("square", 2, 25)
    assert codec.blocks["mend"][1:] == ("ally", 2, 4)
    assert codec.blocks["shove"][1:] == ("unit", 1, 4)
    assert codec.blocks["wait"][1:] == ("none", 2, 1)
    assert codec.n == 1 + 25 + 12 + 36 + 50 + 8 + 4 + 2
    ax, ay = actor.pos  # (5, 6); foes by id: B (1) slot 0, D (3) slot 1, E (4) slot 2; allies: A (0) 0, C (2) 1
    table = [
        (END, 0),
        (Decision("move", square=(ax - 2, ay - 2)), start["move"]),
        (Decision("move", square=(ax + 2, ay + 2)), start["move"] + 24),
        (Decision("shoot", 1), start["shoot"]),
        (Decision("shoot", 4, None, 0), start["shoot"] + 2),
        (Decision("shoot", 3, None, 1), start["shoot"] + 4 + 1),
        (Decision("shoot", 4, None, 2), start["shoot"] + 8 + 2),
        (Decision("grenade", square=(ax - 2, ay - 2)), start["grenade"]),
        (Decision("grenade", square=(ax, ay)), start["grenade"] + 2 + 2 * 6),
        (Decision("grenade", square=(ax + 3, ay + 3)), start["grenade"] + 35),
        (Decision("grenade", square=(ax + 3, ay - 2)), start["grenade"] + 5),
        (Decision("bolt", None, (ax + 1, ay - 2), 0), start["bolt"] + 3),
        (Decision("bolt", None, (ax + 1, ay - 2), 1), start["bolt"] + 25 + 3),
        (Decision("bolt", None, (ax - 2, ay + 2), 1), start["bolt"] + 25 + 20),
        (Decision("mend", 0, None, 0), start["mend"]),
        (Decision("mend", 2, None, 1), start["mend"] + 4 + 1),
        (Decision("shove", 3), start["shove"] + 1),
        (Decision("wait", option=1), start["wait"] + 1),
    ]
    for d, index in table:
        assert codec.encode(d, enc, actor) == index, d
        assert codec.decode(index, enc, actor) == d, index
        assert codec.label(index) == d.action
    decisions = [d for d, _ in table]
    assert codec.indices(decisions, enc, actor) == [i for _, i in table]
    assert np.flatnonzero(codec.mask(decisions, enc, actor)).tolist() == sorted(i for _, i in table)


UNENCODABLE = [
    Decision("fly"),                                  # not in the catalogue
    Decision("wait", option=2),                       # beyond the options
    Decision("wait", option=-1),                      # (not the other block's last slot)
    Decision("wait", option=2**70),
    Decision("shoot", 1, None, 3),
    Decision("shoot", 1, None, -1),
    Decision("shoot", 0),                             # the actor's own side
    Decision("shoot", 2),
    Decision("shoot", 99),                            # no such unit
    Decision("shoot", None),
    Decision("shoot", -3),
    Decision("mend", 1),                              # a foe
    Decision("mend", 0, None, 2),
    Decision("shove", 0),
    Decision("shove", 1, None, 1),                    # an option on a one-option action
    Decision("move", square=(5 + 3, 6)),              # beyond the square window
    Decision("move", square=(5, 6 - 3)),
    Decision("move", None, (5, 6), 1),
    Decision("bolt", None, (5 + 3, 6), 0),
    Decision("bolt", None, (5, 6), 2),
    Decision("grenade", square=(5 + 4, 6)),           # beyond the intersection window
    Decision("grenade", square=(5 - 3, 6)),
    Decision("grenade", square=(5, 6 + 4)),
    Decision("grenade", None, (5, 6), 1),
]


@pytest.mark.parametrize("native", [True, False])
def test_unencodable_decisions_are_none(monkeypatch, native):
    if not native:
        monkeypatch.setattr(codec_module, "_native", None)
    enc, actor = _toy_battle()
    codec = ActionCodec(TOY, 4, 16, 16, radius=2)
    assert codec.indices(UNENCODABLE, enc, actor) == [None] * len(UNENCODABLE)
    assert not codec.mask(UNENCODABLE, enc, actor).any()
    assert [codec.encode(d, enc, actor) for d in UNENCODABLE] == [None] * len(UNENCODABLE)
    for d in (Decision("move"), Decision("grenade"), Decision("bolt")):  # a square kind without its square
        assert codec.encode(d, enc, actor) is None


def _random_decision(rng: random.Random, codec: ActionCodec, enc, actor) -> Decision:
    key = rng.choice(list(codec.blocks) + ["end_turn", "fly"])
    block = codec.blocks.get(key)
    options = block[2] if block else 1
    option = rng.choice([0, 0, rng.randrange(options), options, -1, rng.randrange(-5, 9), 2**65])
    R = codec.radius
    square = (actor.pos[0] + rng.randint(-R - 2, R + 2), actor.pos[1] + rng.randint(-R - 2, R + 2))
    target = rng.choice([u.id for u in enc.units] + [None, -1, len(enc.units), 2**70])
    return Decision(key, target, square, option)


@needs_c(codec_module._native is not None, "envs/_native.c")
@pytest.mark.parametrize("rid, radius", [("toy_targets", 8), ("toy_targets", 2), ("saga", 8), ("saga", 3)])
def test_the_c_loop_equals_the_python_loop_on_random_decisions(monkeypatch, rid, radius):
    rs = TOY if rid == "toy_targets" else get_ruleset(rid)
    codec = ActionCodec(rs, 4, 16, 16, radius=radius)
    native = codec_module._native
    assert native is not None
    rng = random.Random(radius)
    seen = set()
    for k, b in enumerate(_states(rs, 4, seed=radius + 7)):
        if k == 80:
            break
        enc, actor = b.enc, b.enc.actor
        for decisions in (b.legal(), [_random_decision(rng, codec, enc, actor) for _ in range(300)]):
            got, got_mask = codec.indices(decisions, enc, actor), codec.mask(decisions, enc, actor)
            with monkeypatch.context() as m:
                m.setattr(codec_module, "_native", None)
                want, want_mask = codec.indices(decisions, enc, actor), codec.mask(decisions, enc, actor)
            assert got == want
            assert (got_mask == want_mask).all()
            assert got == [codec.encode(d, enc, actor) for d in decisions]
            seen |= {codec.blocks[d.action][1] for d, i in zip(decisions, got) if i is not None and i > 0}
    assert seen == {s.target for s in rs.catalogue.values() if s.key != "end_turn"}


def test_the_mask_of_the_toy_is_its_legal_decisions_of_every_kind():
    codec = ActionCodec(TOY, 4, 16, 16)
    kinds = set()
    for k, b in enumerate(_states(TOY, 6, seed=1)):
        enc, actor = b.enc, b.enc.actor
        legal = b.legal()
        decoded = {codec.decode(int(i), enc, actor) for i in np.flatnonzero(codec.mask(legal, enc, actor))}
        assert decoded == set(legal)  # every toy decision fits the radius-8 windows
        kinds |= {(TOY.catalogue[d.action].target, d.option > 0) for d in legal if d.action != "end_turn"}
    assert kinds >= {("none", True), ("enemy", True), ("ally", True), ("square", True), ("intersection", False),
                     ("unit", False), ("square", False)}


def test_saga_keeps_its_encoding_and_new_features_change_the_signature():
    meta = json.loads((ROOT / "agents" / "zoo" / "saga" / "model.meta.json").read_text())
    saga = ActionCodec(get_ruleset("saga"), meta["max_per_side"], *meta["map_size"])
    assert meta["encoding_signature"].split("-")[1] == saga.signature == "c42d6648e5cb"
    assert all(options == 1 for _, kind, options, _ in saga.blocks.values() if kind != "none")

    from engine.core.ruleset import ActionSpec

    class Variant(type(TOY)):
        pass

    base = ActionCodec(TOY, 4, 16, 16).signature
    for key, change in (("shoot", {"options": 1}), ("grenade", {"target": "square"}), ("bolt", {"options": 3})):
        v = Variant()
        spec = TOY.catalogue[key]
        v.catalogue = {**TOY.catalogue, key: ActionSpec(**{**spec.__dict__, **change})}
        assert ActionCodec(v, 4, 16, 16).signature != base, key


def test_maskable_ppo_learns_over_the_toys_whole_action_space():
    """The toy's real action count on a 16 x 16 encoding (1,218 actions, options x targets and intersections
    included): MaskablePPO trains, every action it takes is a legal decision, options on targets and
    intersections among them."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from envs.tactics_env import TacticsEnv

    taken: list[Decision] = []

    class Recording(TacticsEnv):
        def step(self, action):
            b = self.battle
            d = self.codec.decode(int(action), b.enc, b.enc.actor)
            assert self.action_masks()[int(action)] and d in b.legal()
            taken.append(d)
            return super().step(action)

    with registered():
        env = Recording(ruleset="toy_targets", opponent="random", max_per_side=4, map_size=(16, 16),
                        generator={"sizes": (2, 4)})
        assert env.action_space.n == 1 + 289 + 3 * 4 + 324 + 2 * 289 + 2 * 4 + 4 + 2
        model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0,
                            policy_kwargs={"net_arch": [32]})
        model.learn(256)
    assert model.num_timesteps >= 256 and len(taken) >= 256
    kinds = {(TOY.catalogue[d.action].target, d.option > 0) for d in taken if d.action != "end_turn"}
    assert kinds >= {("none", True), ("enemy", True), ("square", True), ("square", False), ("intersection", False)}


def test_decisions_of_the_new_kinds_in_words():
    """Ruleset.describe names the option of an option-on-a-target decision and an intersection as a corner; the
    other kinds read as before."""
    enc, _ = _toy_battle()
    words = [TOY.describe(d, enc) for d in (Decision("shoot", 1, None, 2), Decision("grenade", square=(4, 2)),
                                             Decision("bolt", None, (3, 3), 1), Decision("move", square=(3, 3)),
                                             Decision("shove", 1), Decision("wait", option=1))]
    assert words == ["Shoot (option 2) on B", "Throw a grenade at the corner (4, 2)", "Cast a bolt (option 1) to (3, 3)",
                     "Move to (3, 3)", "Shove on B", "Wait (option 1)"]
