"""The rules reproduce their recorded battles (tests/recorded/record.py says what a digest covers)."""
from __future__ import annotations

import pytest

from . import record

RECORDED = sorted(p.name.split(".")[0] for p in record.HERE.glob("*.jsonl.gz"))


@pytest.mark.parametrize("rid", RECORDED)
def test_recorded_battles_replay_exactly(rid):
    recorded = record.load(rid)
    assert [{k: c[k] for k in ("encounter", "seed", "players")} for c in recorded] == list(record.cases(rid)), \
        "the recorded cases are not the cases record.py makes: record again"
    points = 0
    for case in recorded:
        got = [f"{d} {digest}" for d, digest in record.play(rid, case)]
        for k, (want, have) in enumerate(zip(case["steps"], got)):
            assert have == want, (f"{case['encounter']} seed {case['seed']} {case['players']}: decision point {k} "
                                  f"differs (recorded {want}, now {have})")
        assert len(got) == len(case["steps"]), f"{case['encounter']} seed {case['seed']}: the battle's length changed"
        points += len(got)
    assert points > 5000


def test_the_digest_sees_a_rule_change(monkeypatch):
    """A recorded case stops replaying when a rule's result changes (here: every estimate's expected damage)."""
    from engine.core.ruleset import Estimate
    from engine.rulesets import get_ruleset

    case = next(iter(record.cases("saga")))
    want = [s for _, s in record.play("saga", case)][:5]
    rs = get_ruleset("saga")
    real = rs.estimate

    def off(enc, actor, d):
        e = real(enc, actor, d)
        return Estimate(e.hit_chance, e.expected_damage + 1, e.kill_chance, e.notes)

    monkeypatch.setattr(rs, "estimate", off)
    assert [s for _, s in record.play("saga", case)][:5] != want
