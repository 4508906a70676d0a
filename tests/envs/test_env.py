"""TacticsEnv behaviour beyond the conformance suite: rewards, seats, opponents, encodings."""
from __future__ import annotations

import json

import numpy as np
import pytest

from engine.core.errors import InputError
from engine.core.policy import Policy
from envs import TacticsEnv

CANTINA = "configs/encounters/saga/cantina_ambush.yaml"


def test_learner_plays_both_seats_and_only_acts_for_its_side():
    env = TacticsEnv("saga", opponent="random", encounters=[CANTINA])
    seen = set()
    for seed in range(12):
        env.reset(seed=seed)
        seen.add(env.side)
        if not env.battle.over:
            assert env.battle.enc.actor.side == env.side
    assert seen == {"pcs", "npcs"}
    env.reset(seed=0, options={"learner_side": "npcs"})
    assert env.side == "npcs" and env.battle.enc.actor.side == "npcs"


def test_final_reward_is_the_outcome_when_shaping_is_off():
    env = TacticsEnv("saga", opponent="random", encounters=[CANTINA], rewards={"damage_dealt": 0, "damage_taken": 0,
                                                                        "downed": 0, "lost": 0, "draw": -0.3})
    from agents.imitation import teacher_action
    from engine.policies import rule_policy

    rng = np.random.default_rng(0)
    teacher = rule_policy("heuristic", 0)
    outcomes = set()
    for seed in range(8):
        env.reset(seed=seed)
        side = env.side
        done, r = False, 0.0
        while not done:  # odd seeds: the heuristic plays the learner's side, so some episodes are won
            a = teacher_action(env, teacher) if seed % 2 else int(rng.choice(np.flatnonzero(env.action_masks())))
            _, r, term, trunc, info = env.step(a)
            done = term or trunc
        winner = info["winner"]
        expected = -0.3 if winner == "draw" else (1.0 if winner == side else -1.0)
        assert r == pytest.approx(expected), (seed, winner, side, r)
        assert trunc == (winner == "draw" and info["rounds"] > env.battle.enc.round_limit)
        outcomes.add(winner == side)
    assert outcomes == {True, False}, "both a won and a not-won episode were checked"


def test_damage_shaping_signs():
    env = TacticsEnv("saga", opponent="random", encounters=[CANTINA], rewards={"win": 0, "loss": 0})
    env.reset(seed=3)
    b = env.battle
    from engine.core.events import Event
    me = next(u for u in b.enc.units if u.side == env.side)
    foe = next(u for u in b.enc.units if u.side != env.side)
    assert env._reward_from([Event("damage", me.id, foe.id, amount=10)]) > 0
    assert env._reward_from([Event("damage", foe.id, me.id, amount=10)]) < 0
    assert env._reward_from([Event("down", me.id, foe.id)]) > 0


def test_a_ship_that_gets_away_is_worth_its_share_of_the_side_and_only_to_its_side():
    """Starship: a jump to cruising speed (an `escaped` event) pays `rewards.escaped` times the share of the side's
    hit points that left the battle; a foe that gets away pays nothing (its side loses the field, not us)."""
    env = TacticsEnv("starship", opponent="random", max_per_side=2, map_size=(12, 12), generator={"sizes": (2, 2)},
                     rewards={"escaped": 0.6})
    env.reset(seed=0)
    from engine.core.events import Event
    units = env.battle.enc.units
    me = next(u for u in units if u.side == env.side)
    foe = next(u for u in units if u.side != env.side)
    total = sum(u.hp for u in units if u.side == env.side)
    assert env._reward_from([Event("escaped", me.id, None)]) == pytest.approx(0.6 * me.hp / total)
    assert env._reward_from([Event("escaped", foe.id, None)]) == 0.0


def test_opponent_can_be_swapped_and_is_used():
    calls = []

    class Spy(Policy):
        name = "spy"

        def choose(self, battle):
            calls.append(battle.enc.actor.side)
            return battle.legal()[0]

    env = TacticsEnv("saga", opponent="random", encounters=[CANTINA], learner_side="pcs")
    env.set_opponent(Spy())
    env.reset(seed=1)
    for _ in range(10):  # end the learner's turns until the other side has acted
        if calls:
            break
        env.step(0)
    assert calls and set(calls) == {"npcs"}


def test_map_or_side_too_big_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="map_size"):
        TacticsEnv("saga", encounters=[CANTINA], map_size=(10, 10))
    with pytest.raises(ValueError, match="max_per_side"):
        TacticsEnv("saga", encounters=[CANTINA], max_per_side=2)


def test_there_is_no_default_ruleset():
    """An env without a ruleset, or with an unknown one, is refused naming the registered ids; the registered
    Gymnasium ids bring their own."""
    import gymnasium as gym

    from engine.rulesets import available
    from envs import env_id

    for bad in ({}, {"ruleset": "nowhere"}):
        with pytest.raises(ValueError) as err:
            TacticsEnv(**bad)
        assert ("needs a ruleset" if not bad else "unknown ruleset 'nowhere'") in str(err.value)
        assert all(rid in str(err.value) for rid in available())
    assert gym.make(env_id("saga")).unwrapped.rs.id == "saga"


def test_model_trained_on_another_encoding_is_refused(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.policies import MaskablePolicy, meta_path, write_meta
    from engine.rulesets import get_ruleset

    env = TacticsEnv("saga", opponent="random", generator={"sizes": (1, 2)})
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, policy_kwargs={"net_arch": [8]})
    path = tmp_path / "m.zip"
    model.save(path)
    write_meta(path, get_ruleset("saga"), 4, (16, 16))
    pol = MaskablePolicy(path)  # loads fine with the right encoding
    env.reset(seed=0)
    assert env.battle.is_legal(pol.choose(env.battle))
    meta = json.loads(meta_path(path).read_text())
    meta["encoding_signature"] = "v9-deadbeef-1"
    meta_path(path).write_text(json.dumps(meta))
    with pytest.raises(InputError, match="retrain"):
        MaskablePolicy(path)


def test_rgb_array_frames_are_the_map_picture_of_one_size():
    """`render_mode="rgb_array"`: every frame an H x W x 3 uint8 picture of the map, one size for the env (its
    map_size and max_per_side) whatever the encounter, through Gymnasium's own render checks (`gym.make` wraps the
    env in the passive checker, which checks the first render) and RenderCollection (what RecordVideo films)."""
    import gymnasium as gym
    from gymnasium.utils.passive_env_checker import env_render_passive_checker
    from gymnasium.wrappers import RenderCollection

    from envs import env_id
    from envs.render import KEY, SIDE_RGB, TERRAIN_RGB, picture_shape

    assert TacticsEnv.metadata["render_modes"] == ["ansi", "rgb_array"] and TacticsEnv.metadata["render_fps"] > 0
    shape = picture_shape((16, 16), 8)
    env = RenderCollection(gym.make(env_id("saga"), render_mode="rgb_array", opponent="random"))
    rng = np.random.default_rng(0)
    frames = []
    for seed in range(3):
        env.reset(seed=seed)
        for _ in range(200):
            mask = env.unwrapped.action_masks()
            _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            if term or trunc:
                break
        frames += env.render()
    assert len(frames) > 6
    assert all(f.shape == shape and f.dtype == np.uint8 for f in frames), {f.shape for f in frames}
    assert shape[0] % 16 == 0 and shape[1] % 16 == 0
    assert any(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))  # the battle moves
    bare = TacticsEnv("saga", opponent="random", encounters=[CANTINA], render_mode="rgb_array")
    assert env_render_passive_checker(bare).shape == shape   # before reset: a blank frame of the same size
    bare.reset(seed=1)
    frame = env_render_passive_checker(bare)
    assert frame.shape == shape
    enc = bare.battle.enc
    cell, left, top = TacticsEnv.CELL, TacticsEnv.CELL, TacticsEnv.CELL
    g = enc.grid
    wall = next((x, y) for y in range(g.height) for x in range(g.width) if g.kind(g.index(x, y)) == "wall")
    assert tuple(frame[top + wall[1] * cell + 2, left + wall[0] * cell + 2]) == TERRAIN_RGB["wall"]
    u = next(u for u in enc.units if not u.down and u.side == enc.sides()[0])
    assert tuple(frame[top + u.pos[1] * cell + 6, left + u.pos[0] * cell + 6]) == SIDE_RGB[0]
    bright = frame.max(axis=2) > 200
    assert bright[:top, left + 10 * cell:left + 11 * cell].any()     # column 10 is numbered above the map
    assert bright[top + 3 * cell:top + 4 * cell, :left].any()        # row 3 to its left
    below = top + g.height * cell + 6
    lines = np.flatnonzero(bright[below:, 30:].any(axis=1))   # text rows right of the markers: a line per unit
    blocks = np.split(lines, np.flatnonzero(np.diff(lines) > 3) + 1)
    assert len(blocks) > len(enc.units) and all(len(b) < 16 for b in blocks[:len(enc.units)])
    key = frame[below + blocks[len(enc.units) - 1][-1]:].reshape(-1, 3)   # under the units: the terrain key
    assert all((key == TERRAIN_RGB[k]).all(axis=1).any() for k in KEY), "every terrain colour is in the key"
    assert isinstance(TacticsEnv("saga", encounters=[CANTINA]).render(), str)
    with pytest.raises(ValueError, match="rgb_array"):
        TacticsEnv("saga", encounters=[CANTINA], render_mode="human")


def test_envs_import_nothing_of_agents():
    """Dependencies point engine <- envs <- agents: no envs module imports agents (the picture is envs/render.py's,
    agents/render.py uses it)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "envs"
    offenders = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            offenders += [f"{path.name}:{node.lineno} {n}" for n in names if n.split(".")[0] == "agents"]
    assert not offenders and (root / "render.py").exists(), offenders
