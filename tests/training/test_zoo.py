"""The shipped policy (agents/zoo/saga/) loads as `zoo:saga` and beats random in a short seeded evaluation."""
import pytest

from agents.evaluate import encounter_source, evaluate
from agents.policies import load_policy, zoo_model
from engine.core.policy import RandomPolicy
from engine.rulesets import get_ruleset

pytestmark = pytest.mark.skipif(not zoo_model("saga").exists(), reason="no shipped saga policy yet")


def test_zoo_saga_loads_and_beats_random():
    rs = get_ruleset("saga")
    pol = load_policy("zoo:saga", rs)
    assert zoo_model("saga").stat().st_size < 5_000_000
    te = pol.meta.get("train_env") or {}
    gen = {k: (tuple(v) if k == "sizes" else v) for k, v in (te.get("generator") or {}).items()}
    summary, stats = evaluate(pol, RandomPolicy(7), rs, episodes=20, seed=123,
                              source=encounter_source(rs, generator=gen, round_limit=te.get("round_limit", 20)))
    assert {s.side for s in stats} == set(rs.sides[:2])
    assert summary["tactics"]["illegal_rate"] == 0.0
    assert summary["win_rate"] >= 0.8, summary
