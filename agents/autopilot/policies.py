"""Resolving a POLICY string for the autopilot, with a fallback while optional policies are missing."""
from __future__ import annotations

from engine.core.errors import InputError
from engine.core.policy import Policy, RandomPolicy
from engine.core.ruleset import Ruleset


def resolve_policy(spec: str, ruleset: Ruleset, seed: int | None = 0, warn=None, enc=None) -> Policy:
    """`random`, `heuristic`, a checkpoint path or `zoo:<ruleset>` -> a Policy.

    Uses `agents.policies.load_policy`; bad specs raise InputError, and so does a model that cannot see the
    encounter `enc` when one is given (a larger map, more units a side than its encoding). If the heuristic is not
    installed in this tree yet, random play stands in for it and `warn` is told so.
    """
    try:
        from agents.policies import load_policy, refuse_unfit
    except ImportError:  # the Gymnasium side is missing: rule policies still work
        load_policy = None
    try:
        if load_policy is not None:
            policy = load_policy(spec, ruleset, seed)
            if enc is not None:
                refuse_unfit(policy, enc)
            return policy
        from engine.policies import rule_policy
        return rule_policy(spec, seed)
    except ModuleNotFoundError as e:
        if spec == "heuristic" and "heuristic" in str(e):
            if warn:
                warn("note: the heuristic policy is not available in this build; playing random instead")
            return RandomPolicy(seed)
        raise
    except KeyError as e:
        raise InputError(str(e.args[0]) if e.args else f"unknown policy '{spec}'", "POLICY",
                         "use random, heuristic, zoo:<ruleset> or a model .zip")


def honours_tactics(policy: Policy) -> bool:
    """Whether the policy applies units' `tactics` itself (the heuristic does); else the autopilot does."""
    flag = getattr(policy, "honours_tactics", None)
    if flag is not None:
        return bool(flag)
    return getattr(policy, "name", "") == "heuristic"
