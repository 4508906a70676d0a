"""Starfinder (Core Rulebook ch. 8, "Actions in Combat"). See RULES.md for what is implemented and how."""
from .ruleset import StarfinderRuleset

RULESET = StarfinderRuleset()

__all__ = ["RULESET", "StarfinderRuleset"]
