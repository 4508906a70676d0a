"""A session served over HTTP: the autopilot's `SessionCore`, with its questions answered by later requests and
the whole session written to a file after every change.

A change is an operation (`op`): start, a decision, a typed command (a correction, undo, load, a decision in
the GM's words). A decision that needs what only the GM can say stops at the question (`Unanswered`): a die with
`--dice manual`, or whether a unit of the GM's side takes a reaction it triggers (an attack of opportunity). The
core takes it back whole and the operation waits as `pending` with the answers given so far, until `answer` (faces)
or `answer_reaction` (a choice) brings the next one and it is played again from the start. Operations are JSON,
so a pending one survives a restart of the server.
"""
from __future__ import annotations

import json
import os
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine.core.decision import Decision
from engine.core.dice import SeededDice
from engine.core.errors import IllegalAction, InputError
from engine.core.narration import narrate_events
from engine.core.policy import Policy
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.rulesets import get_ruleset

from agents.autopilot.chooser import DIFFICULTY
from agents.autopilot.core import (Question, ReplayDice, SessionCore, Unanswered, _jsonable, _Snapshot, _tupled,
                                   decision_from_json, parse_session)

FORMAT, VERSION = "tactician-serve-session", 1
DICE_MODES = {"seeded": "auto", "manual": "manual"}  # `tactician serve --dice` -> the core's dice mode
KEPT_UNDO = 40  # undo steps written to the session's file (the rest live in memory only)


class Busy(Exception):
    """The session waits for the answer to `question` (a die's face, a reaction): only the answer, undo or reading
    the state can be done."""

    def __init__(self, question: Question):
        super().__init__(question.prompt)
        self.question = question


@dataclass
class Config:
    """How a session was made: its policies, dice, difficulty and seed (what `tactician serve` was given)."""

    npcs: str = "heuristic"
    pcs: str = "gm"
    dice: str = "seeded"
    difficulty: str = "deadly"
    seed: int = 0
    source: str = ""

    def check(self) -> None:
        if self.dice not in DICE_MODES:
            raise InputError(f"dice '{self.dice}' is not a dice mode", "dice", "seeded or manual")
        if self.difficulty not in DIFFICULTY:
            raise InputError(f"difficulty '{self.difficulty}' is not a difficulty", "difficulty",
                             "one of " + ", ".join(DIFFICULTY))


@dataclass
class Pending:
    """An operation waiting for the answer to `question`, with the faces (`answers`) and the reaction choices
    (`reactions`, indices into their questions' options) given so far."""

    op: dict
    answers: list[int]
    question: Question
    what: str = ""
    reactions: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"op": self.op, "answers": list(self.answers), "reactions": list(self.reactions),
                "question": self.question.to_dict(), "what": self.what}


class LiveSession(SessionCore):
    """One browser / API session: the core plus its id, its configuration, the answers it waits for, and its file.

    Every public method is one request's work: the registry holds the session's lock around it."""

    def __init__(self, sid: str, enc: Encounter, ruleset: Ruleset, config: Config,
                 policy: Callable[[str, Ruleset, int, Encounter], Policy], folder: Path | None = None):
        config.check()
        self.id, self.config, self.folder = sid, config, folder
        self.policy_fn = policy
        self.messages: list[str] = []  # what the last operation told the GM
        npcs = policy(config.npcs, ruleset, config.seed, enc)
        pcs = None if config.pcs == "gm" else policy(config.pcs, ruleset, config.seed + 1, enc)
        mode = DICE_MODES[config.dice]
        dice = SeededDice(config.seed) if mode == "auto" else ReplayDice(self._narrated)
        super().__init__(enc, ruleset, npcs, pcs, dice=dice, dice_mode=mode, difficulty=config.difficulty,
                         seed=config.seed, say=self._told)
        self.pending: Pending | None = None
        self._snapshots: dict[int, tuple[_Snapshot, str]] = {}  # undo steps as JSON, by id
        self.version = 0  # counts the changes, for the page to know it is up to date

    def _told(self, text: str) -> None:
        self.messages.append(text.strip())

    def _narrated(self, events: list) -> list[str]:
        return narrate_events(events, self.enc, self.ruleset)

    # ---- operations ----------------------------------------------------------------------------------
    def run(self, op: dict) -> None:
        """Do one operation (InputError / IllegalAction when it cannot be: nothing changed). It may stop at a
        question (a die with manual dice, a reaction of the GM's side): then it is `pending` until `answer` /
        `answer_reaction`."""
        if self.pending is not None:
            raise Busy(self.pending.question)
        self._attempt(op, [], [], self._describe(op))

    def answer(self, faces: list[int]) -> None:
        """Faces for the die the pending operation waits at (and the dice after it, in order)."""
        p = self.pending
        if p is None or p.question.kind != "die":
            raise InputError("no die is waiting to be rolled", "faces",
                             "send faces only when the state's question is a die" if p is None else
                             f"the question is a reaction: {p.question.prompt}; answer it with POST "
                             f"/api/sessions/{self.id}/reaction")
        sides = p.question.sides or 0
        if not 1 <= faces[0] <= sides:
            raise InputError(f"{faces[0]} is not a possible d{sides} roll", "faces[0]",
                             f"a whole number from 1 to {sides}")
        self._resume(p, p.answers + list(faces), p.reactions)

    def answer_reaction(self, choice: int) -> None:
        """The GM's choice (an index of the question's options) for the reaction the pending operation waits at."""
        p = self.pending
        if p is None or p.question.kind != "reaction":
            raise InputError("no reaction is waiting to be chosen", "choice",
                             "send a choice only when the state's question is a reaction" if p is None else
                             f"the question is a die: {p.question.prompt}; roll it with POST "
                             f"/api/sessions/{self.id}/dice")
        if not 0 <= choice < len(p.question.options):
            raise InputError(f"{choice} is not one of the answers", "choice", f"one of {p.question.choices()}")
        self._resume(p, p.answers, p.reactions + [choice])

    def _resume(self, p: Pending, answers: list[int], reactions: list[int]) -> None:
        self.pending = None
        try:
            self._attempt(p.op, answers, reactions, p.what)
        except BaseException:
            self.pending = p
            raise

    def take_back(self) -> str | None:
        """Undo: the pending operation (it never happened) when there is one, else the last change."""
        self.messages.clear()
        if self.pending is not None:
            what, self.pending = self.pending.what, None
            self.messages.append(f"Taken back: {what} (nothing of it happened).")
            self._changed()
            return what
        what = self.undo()
        enc = self.enc
        self.messages.append("Nothing to undo." if what is None else
                             f"Undone: {what}. Round {enc.round}, {enc.actor.name if enc.actor else '-'} to act.")
        self.sync_turn()
        self._changed()
        return what

    def veto_proposal(self) -> Decision | None:
        """Veto the proposal of the acting unit's policy; None when ending the turn is all that is left."""
        self._ready()
        if self.gm_plays(self.enc.actor):
            raise InputError(f"{self.enc.actor.name} is the GM's to play: nothing is proposed", "veto",
                             "play a decision instead")
        self.messages.clear()
        d = self.veto()
        self.messages.append("Everything else is vetoed: ending the turn is all that is left." if d is None else
                             f"Vetoed {self._words(d)}.")
        self._changed()
        return d

    def _ready(self) -> None:
        if self.pending is not None:
            raise Busy(self.pending.question)
        if self.enc.actor is None or self.enc.over:
            raise IllegalAction(f"the battle is over ({self.enc.winner})" if self.enc.over else "nobody is acting")

    def _attempt(self, op: dict, answers: list[int], reactions: list[int], what: str) -> None:
        self.messages.clear()
        n_log, decisions = len(self.log), self.decisions
        if isinstance(self.dice, ReplayDice):
            self.dice.replay(answers)
        self.reactions.replay(reactions)
        try:
            self._do(op)
        except Unanswered as e:
            self.log.truncate(n_log)
            self.decisions = decisions
            kept = self.dice.answers if isinstance(self.dice, ReplayDice) else answers
            self.pending = Pending(op, list(kept), e.question, what, list(self.reactions.answers))
        except BaseException:  # refused (the core took its part back): the log's notes of it go too
            self.log.truncate(n_log)
            self.decisions = decisions
            raise
        self.sync_turn()
        self._changed()

    def _do(self, op: dict) -> None:
        kind = op.get("op")
        if kind == "start":
            if self.enc.order:
                raise InputError("the battle has started already", "op", "undo to before the start instead")
            init = op.get("initiative")
            self.start({int(k): int(v) for k, v in init.items()} if init else None)
        elif kind == "decide":
            d = decision_from_json(op["decision"], "decision")
            for n in op.get("notes", []):
                self.log.note(n)
            self.apply(d)
        elif kind == "command":
            self.execute(op["line"])
        else:
            raise InputError(f"unknown operation {kind!r}", "op", "start, decide or command")

    def _describe(self, op: dict) -> str:
        if op.get("op") == "decide":
            try:
                return f"{self.enc.actor.name}: {self._words(decision_from_json(op['decision'], 'decision'))}"
            except (InputError, AttributeError, IndexError):
                return "the decision"
        if op.get("op") == "command":
            return str(op.get("line", ""))
        return "the start of the battle"

    def _words(self, d: Decision) -> str:
        from agents.autopilot.words import command_for
        return command_for(d, self.enc, self.ruleset)

    def decide_op(self, d: Decision, notes: list[str] | None = None) -> dict:
        """The operation that plays decision `d` (with tactics notes for the log)."""
        return {"op": "decide", "decision": d.to_dict(), "notes": list(notes or [])}

    def _changed(self) -> None:
        self.version += 1
        self.write()

    # ---- the file ------------------------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        return None if self.folder is None else self.folder / f"{self.id}.json"

    def to_dict(self) -> dict:
        """Everything needed to carry on after a restart: the autopilot's save, the log, the recent undo steps,
        the choosers' generators and the pending operation."""
        undo = [json.loads(self._snapshot_json(s)) for s in self.undo_stack[-KEPT_UNDO:]]
        choosers = [c for c in (self.npc_chooser, self.pc_chooser) if c is not None]
        return {"format": FORMAT, "version": VERSION, "id": self.id, "config": self.config.__dict__,
                "save": self.save_data(), "log": list(self.log.lines), "decisions": self.decisions,
                "changes": self.version,
                "round_logged": self._round_logged, "undo": undo,
                "choosers": [{"rng": _jsonable(c.rng.getstate()),
                              "dealt": {str(k): v for k, v in c.dealt.items()}} for c in choosers],
                "pending": self.pending.to_dict() if self.pending else None}

    def _snapshot_json(self, snap: _Snapshot) -> str:
        """An undo step as JSON, made once (a step never changes once taken)."""
        key = id(snap)
        hit = self._snapshots.get(key)
        if hit is None or hit[0] is not snap:
            text = json.dumps({"enc": snap.enc.to_dict(), "dice_state": _jsonable(snap.dice_state),
                               "n_log": snap.n_log, "vetoed": [d.to_dict() for d in sorted(snap.vetoed, key=repr)],
                               "what": snap.what}, separators=(",", ":"))
            hit = self._snapshots[key] = (snap, text)
        return hit[1]

    def file_text(self) -> str:
        """`to_dict` as JSON text, its undo steps from their cache (writing the file after a change stays cheap)."""
        kept = self.undo_stack[-KEPT_UNDO:]
        steps = [self._snapshot_json(s) for s in kept]
        alive = {id(s) for s in kept}
        for key in [k for k in self._snapshots if k not in alive]:
            del self._snapshots[key]
        undo, self.undo_stack = self.undo_stack, []
        try:
            head = json.dumps(self.to_dict(), separators=(",", ":"))
        finally:
            self.undo_stack = undo
        return head.replace('"undo":[]', '"undo":[' + ",".join(steps) + "]", 1)

    def write(self) -> None:
        """Write the session's file (atomically: a crash leaves the last one whole)."""
        p = self.path
        if p is None:
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.id}.", dir=p.parent)
        with os.fdopen(fd, "w") as f:
            f.write(self.file_text())
        os.replace(tmp, p)

    @classmethod
    def from_dict(cls, data: dict, policy, folder: Path | None, where: str) -> "LiveSession":
        """A session back from its file; InputError naming what is wrong with it."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"not a {FORMAT} file", where)
        cfg = data.get("config") or {}
        config = Config(**{k: cfg[k] for k in Config.__dataclass_fields__ if k in cfg})
        saved = parse_session(data["save"], f"{where}: save")
        rs = get_ruleset(saved.enc.ruleset)
        live = cls(str(data["id"]), saved.enc, rs, config, policy, folder)
        live.resume(saved)
        live.log.lines = [str(x) for x in data.get("log", [])]
        live.decisions = int(data.get("decisions", 0))
        live.version = int(data.get("changes", 0))
        live._round_logged = int(data.get("round_logged", 0))
        enc = live.enc
        live._turn_key = saved.turn
        live._kept_vetoes = None
        if saved.turn == (enc.round, enc.turn, enc.phase_index, enc.actor_id):
            live.vetoed = set(saved.vetoed)
        for s in data.get("undo", []):
            live.undo_stack.append(_Snapshot(Encounter.from_dict(s["enc"]), _tupled(s["dice_state"]), 0,
                                             int(s["n_log"]), {decision_from_json(v, where) for v in s["vetoed"]},
                                             str(s["what"])))
        choosers = [c for c in (live.npc_chooser, live.pc_chooser) if c is not None]
        for c, st in zip(choosers, data.get("choosers", [])):
            c.rng.setstate(_tupled(st["rng"]))
            c.dealt = {int(k): int(v) for k, v in st.get("dealt", {}).items()}
        p = data.get("pending")
        if p:
            q = p["question"]
            options = [decision_from_json(d, f"{where}: pending.question.options[{n}]")
                       for n, d in enumerate(q.get("options") or [])]
            question = Question(q["kind"], q["prompt"], q.get("sides"), options, list(q.get("shown", [])),
                                q.get("refused", ""), [str(x) for x in q.get("labels") or []])
            live.pending = Pending(dict(p["op"]), [int(x) for x in p["answers"]], question, str(p.get("what", "")),
                                   [int(x) for x in p.get("reactions") or []])
        return live


def new_id() -> str:
    """A session id: 10 hex digits, from the system's generator (ids are not part of any battle's randomness)."""
    return "%010x" % random.SystemRandom().getrandbits(40)
