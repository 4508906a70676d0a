"""The GM autopilot: an interactive session at the table (`session`), how NPC decisions are proposed
(`chooser`), the GM's short words (`words`), turn planning for `tactician suggest` (`planner`), and the
Markdown battle log (`log`)."""
from .chooser import DIFFICULTY, Chooser, Proposal
from .policies import resolve_policy
from .session import HELP, Result, SavedSession, Session, load_state, read_session

__all__ = ["DIFFICULTY", "Chooser", "Proposal", "resolve_policy", "HELP", "Result", "SavedSession", "Session",
           "load_state", "read_session"]
