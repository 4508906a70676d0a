"""The rules reproduce their recorded battles (tests/recorded/record.py says what a digest covers), and a replay
fails when a rule's result changes."""
from __future__ import annotations

from collections import Counter

import pytest

from engine.core.decision import END
from engine.core.ruleset import Estimate
from engine.rulesets import get_ruleset

from . import record

RECORDED = sorted(p.name.split(".")[0] for p in record.HERE.glob("*.jsonl.gz"))


@pytest.mark.parametrize("rid", RECORDED)
def test_recorded_battles_replay_exactly(rid):
    recorded = record.load(rid)
    assert [{k: v for k, v in c.items() if k != "steps"} for c in recorded] == list(record.cases(rid)), \
        "the recorded cases are not the cases record.py makes: record again"
    points = 0
    seen = Counter()
    for case in recorded:
        got = [f"{d} {digest}" for d, digest in record.play(rid, case, seen)]
        for k, (want, have) in enumerate(zip(case["steps"], got)):
            assert have == want, (f"{case['encounter']} seed {case['seed']} {case['players']}: decision point {k} "
                                  f"differs (recorded {want}, now {have})")
        assert len(got) == len(case["steps"]), f"{case['encounter']} seed {case['seed']}: the battle's length changed"
        points += len(got)
    assert points > 5000
    if rid == "saga":  # the battles reach the rules the fast paths cut short: charges, attacks of opportunity, ...
        assert min(seen[k] for k in ("charge", "event aoo", "full_attack", "aid_attack", "withdraw", "grab",
                                     "event down", "event condition", "event door")) >= 5, seen
    if rid == "starfinder":  # its full actions, reactions, abilities, grenades (a missed throw's scatter), doors
        assert min(seen[k] for k in ("full_attack_ranged", "event aoo", "use_ability", "explode_attack",
                                     "event scatter", "open_door", "feint", "withdraw", "event down",
                                     "event condition", "covering_fire", "dirty_trick_shaken")) >= 5, seen
    if rid == "rise":  # both phases resolving, strikes of every kind, charges, vital wounds, Swift abilities, overruns
        assert min(seen[k] for k in ("event phase_resolves", "strike", "shoot", "hurl", "charge", "sprint",
                                     "event vital_wound", "event down", "total_defense", "recover", "overrun",
                                     "ready")) >= 5, seen


def _first_points(n: int = 5, decisions: bool = False) -> list:
    """The digests of the first recorded case's first decision points (or (decision, digest) pairs)."""
    got = list(record.play("saga", next(iter(record.cases("saga")))))[:n]
    return got if decisions else [s for _, s in got]


def test_the_digest_sees_an_estimate_change(monkeypatch):
    """Every estimate's expected damage one more: the first decision points' digests change."""
    want = _first_points()
    rs = get_ruleset("saga")
    real = rs.estimate

    def off(enc, actor, d):
        e = real(enc, actor, d)
        return Estimate(e.hit_chance, e.expected_damage + 1, e.kill_chance, e.notes)

    monkeypatch.setattr(rs, "estimate", off)
    assert _first_points() != want


def test_the_digest_sees_another_units_legal_order(monkeypatch):
    """The legal decisions of the units that are not acting, in another order (the actor's, so the battle, kept)."""
    want = _first_points(decisions=True)
    rs = get_ruleset("saga")
    real = rs.legal_actions

    def shuffled(enc, a):
        got = real(enc, a)
        return got if a is enc.actor else [END] + got[:0:-1]

    monkeypatch.setattr(rs, "legal_actions", shuffled)
    got = _first_points(decisions=True)
    assert [d for d, _ in got] == [d for d, _ in want]  # the same decisions taken
    assert got != want


def test_the_digest_sees_an_events_data_and_an_unused_die(monkeypatch):
    """A note added to the events a decision makes, or a die rolled and not used by a move (the first decision point's
    decision: its events and state stay, the dice's state does not): the digests change."""
    want = _first_points()
    rs = get_ruleset("saga")
    real = rs.apply

    def noted(enc, a, d, dice, react=None):
        events = real(enc, a, d, dice, react)
        events[0].data["note"] = "changed"
        return events

    monkeypatch.setattr(rs, "apply", noted)
    assert _first_points() != want

    def rolled(enc, a, d, dice, react=None):
        if d.action == "move":
            dice.face(20, "unused")
        return real(enc, a, d, dice, react)

    monkeypatch.setattr(rs, "apply", rolled)
    assert _first_points(1) != want[:1]
