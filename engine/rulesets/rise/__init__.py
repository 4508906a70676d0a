"""Rise, "Universal Abilities" (`tactician/Rise-v0`): rounds of a movement phase and an action phase in which every
creature chooses at the same time. See RULES.md for what is implemented and how."""
from .ruleset import RiseRuleset

RULESET = RiseRuleset()

__all__ = ["RULESET", "RiseRuleset"]
