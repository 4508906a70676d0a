"""The generic env (envs.TacticsEnv) over each toy ruleset: gymnasium's check_env, and masks that follow
each turn structure (feet left, a shift only when unmoved, no moving in Rise's action phase)."""
import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import envs  # noqa: E402
from envs.tactics_env import TacticsEnv  # noqa: E402

from .common import build  # noqa: E402
from .toy_fifth import RULESET as FIFTH  # noqa: E402
from .toy_rise import RULESET as RISE  # noqa: E402
from .toy_starship import RULESET as SHIP  # noqa: E402

ROWS = ["#########", "#.......#", "#...c...#", "#.......#", "#########"]


def encounter(rs, a, b):
    return build(rs, ROWS, [{"name": "P", "side": "pcs", "template": a, "at": [1, 2]},
                            {"name": "N", "side": "npcs", "template": b, "at": [7, 2]}])


CASES = {"toy_5e": (FIFTH, "fighter", "goblin"), "toy_starship": (SHIP, "fighter", "corvette"),
         "toy_rise": (RISE, "warrior", "archer")}


def env_for(rid, **kw):
    rs, a, b = CASES[rid]
    return TacticsEnv(ruleset=rid, encounters=[encounter(rs, a, b)], opponent="random", max_per_side=2,
                      map_size=(9, 5), learner_side="pcs", **kw)


@pytest.mark.parametrize("rid", sorted(CASES))
def test_check_env_and_registered_id(rid):
    check_env(env_for(rid), skip_render_check=True)
    assert envs.env_id(rid) == f"tactician/{CASES[rid][0].env_name}-v{envs.tactics_env.ENCODING_VERSION}"


@pytest.mark.parametrize("rid", sorted(CASES))
def test_mask_matches_legal_through_whole_episodes(rid):
    env = env_for(rid)
    rng = np.random.default_rng(0)
    for ep in range(3):
        env.reset(seed=ep)
        done = False
        while not done:
            b = env.battle
            mask = env.action_masks()
            decoded = {env.codec.decode(int(i), b.enc, b.enc.actor) for i in np.flatnonzero(mask)}
            assert decoded == set(b.legal())
            _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not info.get("illegal")
            done = term or trunc


def _moves(env):
    b = env.battle
    return {env.codec.decode(int(i), b.enc, b.enc.actor) for i in np.flatnonzero(env.action_masks())
            if env.codec.decode(int(i), b.enc, b.enc.actor).action in ("move", "shift")}


def test_fifth_mask_follows_the_feet_left():
    env = env_for("toy_5e")
    env.reset(seed=0)
    b = env.battle
    a = b.enc.actor

    def expected():
        g = b.enc.grid
        r = g.reachable(a.pos, b.enc.budget["feet"] // 5, [g.index(*e.pos) for e in b.enc.enemies(a)])
        return {g.xy(i) for i in r} - {a.pos}

    assert a.side == "pcs" and b.enc.budget["feet"] == 30
    far = {d.square for d in _moves(env)}
    assert far == expected()
    env.step(env.codec.encode(next(d for d in b.legal() if d.action == "move" and d.square == (3, 2)),
                              b.enc, a))
    near = {d.square for d in _moves(env)}
    assert b.enc.budget["feet"] == 20 and near == expected()


def test_starship_mask_drops_the_shift_after_moving():
    env = env_for("toy_starship")
    env.reset(seed=0)
    b = env.battle
    assert any(d.action == "shift" for d in _moves(env))
    mv = next(d for d in b.legal() if d.action == "move")
    env.step(env.codec.encode(mv, b.enc, b.enc.actor))
    if b.enc.actor is not None and b.enc.actor.side == "pcs":
        assert not any(d.action == "shift" for d in _moves(env))


def test_rise_mask_has_no_moves_in_the_action_phase_and_commits_resolve():
    env = env_for("toy_rise")
    env.reset(seed=1)
    b = env.battle
    phases_seen = set()
    for _ in range(40):
        if b.over:
            break
        phases_seen.add(b.phase)
        if b.phase == "action":
            assert not _moves(env)
        env.step(int(np.flatnonzero(env.action_masks())[-1]))  # the last slot: an attack when there is one
    assert phases_seen == {"movement", "action"}
    assert b.enc.pending == {} or b.phase == "action"
