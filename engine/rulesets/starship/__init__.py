"""d20 starship combat, "Starship Actions" (`tactician/Starship-v0`). See RULES.md for what is implemented and how."""
from .ruleset import StarshipRuleset

RULESET = StarshipRuleset()

__all__ = ["RULESET", "StarshipRuleset"]
