"""Errors a GM or a config author can read: what is wrong, where, and how to fix it."""
from __future__ import annotations


class IllegalAction(Exception):
    """A decision the rules do not allow right now. `reason` is written for a GM."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class InputError(ValueError):
    """Bad input (encounter file, JSON state, typed command): names where, what is wrong and the fix."""

    def __init__(self, what: str, where: str = "", fix: str = ""):
        self.what, self.where, self.fix = what, where, fix
        text = f"{where}: {what}" if where else what
        if fix:
            text += f" (fix: {fix})"
        super().__init__(text)
