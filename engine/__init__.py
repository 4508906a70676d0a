"""The rules engine: the ruleset-neutral core (`engine.core`), the rulesets (`engine.rulesets`) and the rule-based
policies (`engine.policies`). No gymnasium, torch or stable-baselines3 here.

Importing it first installs the finder that keeps a stale compiled build from shadowing its source
(`engine.compiled`)."""
from engine.compiled import install as _install

_install()
