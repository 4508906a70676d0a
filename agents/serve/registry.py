"""The sessions a server holds: each with its lock (requests to one session are served one at a time), the pages
listening to it (server-sent events), and its file in the sessions folder, read back when the server starts."""
from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Callable, TypeVar

from engine.core.errors import InputError
from engine.core.policy import Policy
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter

from .live import Config, LiveSession, new_id
from .views import state_view

T = TypeVar("T")


def resolve(spec: str, ruleset: Ruleset, seed: int, enc: Encounter) -> Policy:
    """A POLICY string as `tactician autopilot` reads it (random, heuristic, anticipating, zoo:<ruleset>, a model .zip)."""
    from agents.autopilot.policies import resolve_policy
    return resolve_policy(spec, ruleset, seed, None, enc)


class UnknownSession(KeyError):
    """No session has this id."""


class Entry:
    """One session and who listens to it."""

    def __init__(self, live: LiveSession):
        self.live = live
        self.lock = threading.Lock()
        self.listeners: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = set()
        self._view: tuple[int, str] | None = None  # (version, state JSON) last published

    def view_json(self) -> str:
        """The state as JSON (the lock held), kept until the next change."""
        if self._view is None or self._view[0] != self.live.version:
            self._view = (self.live.version, json.dumps(state_view(self.live), separators=(",", ":")))
        return self._view[1]

    def publish(self) -> str:
        """Send the state to every listening page; returns it."""
        text = self.view_json()
        for loop, queue in list(self.listeners):
            try:
                loop.call_soon_threadsafe(queue.put_nowait, text)
            except RuntimeError:  # its loop has closed: the page is gone
                self.listeners.discard((loop, queue))
        return text


class Registry:
    """Sessions by id. `folder` (None: nothing written) holds one file per session; `policy` resolves POLICY
    strings (tests pass their own)."""

    def __init__(self, folder: Path | None = None,
                 policy: Callable[[str, Ruleset, int, Encounter], Policy] = resolve):
        self.folder = Path(folder) if folder is not None else None
        self.policy = policy
        self.entries: dict[str, Entry] = {}
        self._lock = threading.Lock()

    def load_all(self) -> list[str]:
        """Read every session file of the folder; returns what could not be read (file: why)."""
        problems: list[str] = []
        if self.folder is None or not self.folder.is_dir():
            return problems
        for p in sorted(self.folder.glob("*.json")):
            try:
                live = LiveSession.from_dict(json.loads(p.read_text()), self.policy, self.folder, str(p))
            except (InputError, KeyError, TypeError, ValueError, OSError) as e:
                problems.append(f"{p}: {e}")
                continue
            self.entries[live.id] = Entry(live)
        return problems

    def create(self, enc: Encounter, ruleset: Ruleset, config: Config) -> Entry:
        with self._lock:
            sid = new_id()
            while sid in self.entries:
                sid = new_id()
            entry = Entry(LiveSession(sid, enc, ruleset, config, self.policy, self.folder))
            self.entries[sid] = entry
        return entry

    def get(self, sid: str) -> Entry:
        entry = self.entries.get(sid)
        if entry is None:
            raise UnknownSession(sid)
        return entry

    def delete(self, sid: str) -> None:
        entry = self.get(sid)
        with entry.lock:
            self.entries.pop(sid, None)
            p = entry.live.path
            if p is not None and p.exists():
                p.unlink()

    def work(self, sid: str, fn: Callable[[LiveSession], T]) -> tuple[T, str]:
        """Run `fn` on the session, alone; then send its state to the listening pages. (fn's result, state JSON)."""
        entry = self.get(sid)
        with entry.lock:
            version = entry.live.version
            result = fn(entry.live)
            text = entry.publish() if entry.live.version != version else entry.view_json()
        return result, text

    def read(self, sid: str, fn: Callable[[LiveSession], T]) -> T:
        """Read the session (no change), alone."""
        entry = self.get(sid)
        with entry.lock:
            return fn(entry.live)
