"""SWURPG, the 5e-style Star Wars combat system (`tactician/SWURPG-v0`)."""
from .ruleset import SwurpgRuleset

RULESET = SwurpgRuleset()

__all__ = ["RULESET", "SwurpgRuleset"]
