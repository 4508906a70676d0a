"""Star Wars Saga Edition: the first ruleset. See RULES.md for what is implemented and how."""
from .ruleset import RULESET, SagaRuleset

__all__ = ["RULESET", "SagaRuleset"]
