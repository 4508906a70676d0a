"""The autopilot session's core: the battle, its proposals, vetoes, GM corrections, undo and save / load, with no
terminal in it. The terminal session (`session.Session`) and the browser's (`agents.serve`) both drive it.

Input comes in as method calls (a decision, `accept`, `veto`, a typed command line through `execute`); what the
GM should be told goes out through `say(text)`; the narrated battle is `log` (Markdown, taken back by `undo`).
Everything that changes the state is undoable and refused whole, with the rule's reason or the field and the fix,
when it cannot be done.

Something the rules ask a person in the middle of resolving a decision (a die's face with `--dice manual`; the
reaction a unit of the GM's side takes to a trigger, `engine/core/reaction.py`) is a `Question`. A front end that
cannot wait for the answer in the middle of a call (the browser's) resolves the decision with the answers it has
so far (`ReplayDice` for the faces, `ReplayReactions` for the reactions): the first missing one raises
`Unanswered`, the core takes the decision back whole, and the front end plays it again once the question is
answered. The terminal simply waits at its prompt (`gm_reaction`). The reactions of a side a policy plays are its
policy's (`Policy.choose_reaction`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import AskedDice, Dice, DiceStopped, SeededDice
from engine.core.economy import Economy
from engine.core.errors import IllegalAction, InputError
from engine.core.events import Event
from engine.core.narration import narrate_events
from engine.core.policy import Policy, side_reactor
from engine.core.reaction import DECLINE, React, Trigger
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.rulesets import get_ruleset

from agents.render import map_text, markers

from .chooser import Chooser, Proposal
from .log import BattleLog
from .planner import decision_json
from .words import command_for, find_unit, parse_decision, tokens


class Quit(Exception):
    """The GM ended the session (quit, or the input ran out)."""


class Interrupted(Quit):
    """The GM pressed Ctrl-C: the session offers to save before it ends."""


@dataclass
class _Snapshot:
    enc: Encounter
    dice_state: object
    n_events: int
    n_log: int
    vetoed: set
    what: str


def _touched(enc: Encounter) -> None:
    """A GM edited the state outside the rules: drop derived caches."""
    enc.version += 1
    for k in [k for k in enc.__dict__ if k.startswith("_") and "cache" in k]:
        enc.__dict__.pop(k, None)


# ---- questions the rules ask a person mid-resolution -----------------------------------------------------
@dataclass
class Question:
    """What the rules need from a person before a decision can be resolved.

    `kind` is 'die' (a face of a `sides`-sided die; `prompt` says whose and what for) or 'reaction' (the choice
    of a unit's reaction among `options`, the legal reactions, the usual one first and `DECLINE` last, `labels`
    their words; `prompt` says who may react to what); `shown` is the narration of what the decision has done so
    far (an attack's result before its damage is asked); `refused` an answer given for it that could not be
    (with why)."""

    kind: str
    prompt: str
    sides: int | None = None
    options: list[Decision] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    refused: str = ""
    labels: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "prompt": self.prompt, "sides": self.sides,
                "options": [decision_json(d) for d in self.options], "labels": list(self.labels),
                "shown": list(self.shown), "refused": self.refused}

    @property
    def yes_no(self) -> bool:
        """A reaction question of one reaction or none: answered yes (take it) or no."""
        return self.kind == "reaction" and len(self.options) == 2 and self.options[-1] == DECLINE

    def choices(self) -> str:
        """The answers a reaction question takes, for an error: '0 (attack of opportunity on Trooper 1), 1 (no
        reaction)'."""
        return ", ".join(f"{n} ({label})" for n, label in enumerate(self.labels))


class Unanswered(Exception):
    """A question arose that the answers given so far do not answer: the decision is taken back whole."""

    def __init__(self, question: Question):
        super().__init__(question.prompt)
        self.question = question


class ReplayDice(Dice):
    """The faces given so far for the decision being resolved (`answers`, in the order the dice are rolled); the
    first die past them raises `Unanswered` with its question. A face that cannot be on its die is dropped with the
    faces after it, and its die asked again. `shown` narrates what `show(events)` is handed (the resolution so far).
    """

    def __init__(self, shown: Callable[[list], list[str]] | None = None):
        self.answers: list[int] = []
        self.used = 0
        self.shown_fn = shown
        self.shown: list[str] = []

    def replay(self, answers: list[int]) -> None:
        """Resolve again from the first face: these are the faces known."""
        self.answers, self.used, self.shown = list(answers), 0, []

    def show(self, events: list) -> None:
        if self.shown_fn is not None and events:
            self.shown += self.shown_fn(list(events))

    def face(self, sides: int, why: str) -> int:
        refused = ""
        if self.used < len(self.answers):
            value = self.answers[self.used]
            if 1 <= value <= sides:
                self.used += 1
                return value
            refused = (f"{value} is not a possible d{sides} roll for {why}" +
                       ("; the faces given after it are dropped too" if self.used + 1 < len(self.answers) else ""))
            del self.answers[self.used:]
        raise Unanswered(Question("die", f"d{sides} for {why}", sides=sides, shown=list(self.shown),
                                  refused=refused))


class ReplayReactions:
    """The GM's answers so far to the reaction questions of the decision being resolved (for each, the index of the
    chosen one of its options), in the order the questions arise; the first question past them raises `Unanswered`.
    An answer that is not one of its question's options is dropped with the answers after it, and asked again."""

    def __init__(self):
        self.answers: list[int] = []
        self.used = 0

    def replay(self, answers: list[int]) -> None:
        """Resolve again from the first reaction: these are the answers known."""
        self.answers, self.used = list(answers), 0

    def choice(self, question: Question) -> int:
        """The index of the option answered for `question` (the next answer), or Unanswered."""
        refused = ""
        if self.used < len(self.answers):
            n = self.answers[self.used]
            if 0 <= n < len(question.options):
                self.used += 1
                return n
            refused = f"{n} is not one of the answers ({question.choices()})"
            del self.answers[self.used:]
        raise Unanswered(replace(question, refused=refused))


def _article(words: str) -> str:
    return "an" if words[:1].lower() in "aeiou" else "a"


class SessionCore:
    """The state of an autopilot session and every change a GM can make to it.

    `pcs=None` means the GM plays the first side (the PCs) and approves NPC decisions; with a `pcs` policy both
    sides are proposed by policies. `dice` is the Dice the battle rolls with (`dice_mode` 'auto' or 'manual' is
    recorded in saves). The battle asks the GM for the reactions of the side the GM plays (`gm_reaction`) and each
    other side's policy for its units' (`react`, given, replaces both)."""

    def __init__(self, enc: Encounter, ruleset: Ruleset, npcs: Policy, pcs: Policy | None = None, *,
                 dice: Dice, dice_mode: str = "auto", difficulty: str = "deadly", seed: int | None = 0,
                 say: Callable[[str], None] = print, initiative: dict[str, int] | None = None,
                 max_decisions: int = 20000, react: React | None = None):
        self.ruleset, self.seed = ruleset, seed
        self.say = say
        self.gm_side = ruleset.sides[0] if pcs is None else None
        self.interactive = pcs is None
        self.dice_mode = dice_mode
        self.dice = dice
        self.reactions = ReplayReactions()
        self._policy_react = side_reactor({side: pcs if pcs is not None and side == ruleset.sides[0] else npcs
                                           for side in ruleset.sides})
        self.react = react or self._react
        self.battle = Battle(enc, ruleset, self.dice, self.react)
        self.npc_chooser = Chooser(npcs, difficulty, seed)
        self.pc_chooser = Chooser(pcs, "deadly", None if seed is None else seed + 1) if pcs else None
        self.initiative = initiative
        self.max_decisions = max_decisions
        self.events: list[Event] = []
        self.log = BattleLog(enc.name or "Battle")
        self.undo_stack: list[_Snapshot] = []
        self.vetoed: set[Decision] = set()
        self.decisions = 0
        self._turn_key = None
        self._round_logged = 0
        self._proposal: tuple | None = None
        self._kept_vetoes: tuple[tuple, set[Decision]] | None = None  # (turn key, vetoes) a load brought back

    @property
    def enc(self) -> Encounter:
        return self.battle.enc

    def _new_battle(self, enc: Encounter) -> None:
        self.battle = Battle(enc, self.ruleset, self.dice, self.react)

    def narrate(self, events: list[Event]) -> list[str]:
        lines = narrate_events(events, self.enc, self.ruleset)
        for line in lines:
            self.say(("  " if not line.startswith("--") else "") + line)
            if line.startswith("-- Round"):
                continue
            self.log.item(line)
        return lines

    # ---- the start and the turns ----------------------------------------------------------------------
    def start(self, initiative: dict[int, int] | None = None) -> list[Event]:
        """Roll initiative (or take the totals given, by unit id) and begin round 1; taken back whole if a roll
        cannot be made."""
        before, n_log = self.enc.clone(), len(self.log)
        self.log.block(map_text(self.enc, self.ruleset, legend=True))
        try:
            events = self.battle.start(initiative)
        except BaseException:
            self._new_battle(before)
            self.log.truncate(n_log)
            raise
        self._started(events)
        return events

    def _started(self, events: list[Event]) -> None:
        """Log the initiative the battle's start rolled and narrate the rest."""
        enc = self.enc
        self.log.heading("Initiative")
        for uid in enc.order:
            u = enc.units[uid]
            self.log.item(f"{u.name} ({u.side}): {enc.initiative[uid]}")
        self.say("Initiative: " + ", ".join(f"{enc.units[i].name} {enc.initiative[i]}" for i in enc.order))
        self._after(events, narrate_initiative=False)

    def sync_turn(self) -> bool | None:
        """Note a turn that has begun since the last call: its vetoes (those a load kept for it, else none), the
        log's round heading and turn line. None when it is the same turn; else whether a round began too."""
        enc = self.enc
        key = (enc.round, enc.turn, enc.phase_index, enc.actor_id)
        if key == self._turn_key or enc.actor is None:
            return None
        self._turn_key = key
        kept = self._kept_vetoes
        self.vetoed = set(kept[1]) if kept is not None and kept[0] == key else set()
        self._kept_vetoes = None
        self._proposal = None
        actor = enc.actor
        new_round = enc.round != self._round_logged
        if new_round:
            self._round_logged = enc.round
            self.log.heading(f"Round {enc.round}")
        self.log.lines.append(f"\n**{actor.name}'s turn** ({actor.side}, {max(0, actor.hp)}/{actor.max_hp} HP)\n")
        return new_round

    def chooser_for(self, actor) -> Chooser:
        """Who proposes the acting unit's decisions: the PCs' policy for the first side when there is one, else
        the NPCs'."""
        return self.pc_chooser if (self.pc_chooser and actor.side == self.ruleset.sides[0]) else self.npc_chooser

    def gm_plays(self, actor) -> bool:
        """Whether the GM decides for this unit (no proposal): the PCs when no PC policy was given."""
        return self.interactive and actor is not None and actor.side == self.gm_side

    def play_policy(self) -> list[Event]:
        """The acting unit's policy decides and the decision is played (a battle that plays itself)."""
        prop = self.chooser_for(self.battle.actor).propose(self.battle)
        for n in prop.notes:
            self.log.note(n)
        return self.apply(prop.decision)

    # ---- reactions ---------------------------------------------------------------------------------------
    def _react(self, enc: Encounter, unit, trigger: Trigger, options: list[Decision]) -> Decision:
        """The battle's React: the GM answers for the units the GM plays, each other side's policy for its own."""
        if self.gm_plays(unit):
            return self.gm_reaction(unit, trigger, options)
        return self._policy_react(enc, unit, trigger, options)

    def reaction_question(self, unit, trigger: Trigger, options: list[Decision]) -> Question:
        """The question put to the GM: 'Kira may take an attack of opportunity on Trooper 1 (moving out of a
        threatened square)', or with several reactions 'Kira may react to Trooper 1 (...)', and their words."""
        enc = self.enc
        labels = [self.ruleset.describe_reaction(d, enc) for d in options]
        why = trigger.why or trigger.kind.replace("_", " ")
        if len(options) == 2 and options[-1] == DECLINE:
            prompt = f"{unit.name} may take {_article(labels[0])} {labels[0]} ({why})"
        else:
            prompt = f"{unit.name} may react to {enc.units[trigger.provoker].name} ({why})"
        shown = list(self.dice.shown) if isinstance(self.dice, ReplayDice) else []
        return Question("reaction", prompt, options=list(options), labels=labels, shown=shown)

    def gm_reaction(self, unit, trigger: Trigger, options: list[Decision]) -> Decision:
        """The reaction the GM chooses for a unit of the GM's side: the next of the answers given so far
        (`reactions`), or Unanswered. The terminal asks at a prompt instead."""
        return options[self.reactions.choice(self.reaction_question(unit, trigger, options))]

    # ---- proposals -----------------------------------------------------------------------------------
    def proposal(self) -> Proposal:
        """The acting unit's proposed decision, none vetoed this turn (the same until the state changes)."""
        key = (self.enc.version, frozenset(self.vetoed), id(self.enc))
        if self._proposal is None or self._proposal[0] != key:
            self._proposal = (key, self.chooser_for(self.enc.actor).propose(self.battle, self.vetoed))
        return self._proposal[1]

    _current_proposal = proposal

    def accept(self, prop: Proposal | None = None) -> list[Event]:
        """Play the proposal (the current one unless given), its tactics noted in the log."""
        prop = prop or self.proposal()
        for n in prop.notes:
            self.log.note(n)
        return self.apply(prop.decision)

    def veto(self, prop: Proposal | None = None) -> Decision | None:
        """Veto the proposal: it is not proposed again this turn. None (nothing vetoed) when ending the turn is all
        that is left."""
        prop = prop or self.proposal()
        if prop.decision == END and all(d in self.vetoed or d == END for d in self.battle.legal()):
            return None
        self.vetoed.add(prop.decision)
        self.log.note(f"GM vetoed: {command_for(prop.decision, self.enc, self.ruleset)}")
        return prop.decision

    # ---- decisions and commands ----------------------------------------------------------------------
    def execute(self, line: str) -> None:
        """A typed command of the core (undo, save, load, hp, place, add, remove, set) or a decision for the acting
        unit in the GM's words. Raises InputError / IllegalAction (nothing changed) when it cannot be done."""
        words = tokens(line)
        if not words:
            raise InputError("nothing typed", "", "type a decision such as `move 5 7`, or a command")
        handler = self._COMMANDS.get(words[0].lower())
        if handler is not None:
            handler(self, words[1:])
            return
        self.apply(parse_decision(line, self.battle, markers(self.enc)))

    def apply(self, d: Decision) -> list[Event]:
        """Play a decision of the acting unit (undoable). Refused with the rule's reason when illegal; taken back
        whole when its resolution stops (a dice prompt's undo, a question unanswered)."""
        enc = self.enc
        actor = enc.actor
        if actor is None:
            raise IllegalAction("nobody is acting: the battle is over" if enc.over else "nobody is acting")
        what = command_for(d, enc, self.ruleset)
        self._push(f"{actor.name}: {what}")
        try:
            events = self.battle.step(d)
        except IllegalAction:
            self.undo_stack.pop()
            raise
        except BaseException:
            self._restore(self.undo_stack.pop())
            raise
        self.decisions += 1
        self._after(events)
        return events

    def _after(self, events: list[Event], narrate_initiative: bool = True) -> None:
        self.events += events
        for e in events:
            if e.kind == "damage" and e.actor is not None:
                for ch in (self.npc_chooser, self.pc_chooser):
                    if ch is not None:
                        ch.dealt[e.actor] = ch.dealt.get(e.actor, 0) + int(e.get("amount", 0))
        shown = [e for e in events if narrate_initiative or e.kind != "initiative"]
        self.narrate([e for e in shown if e.kind not in ("turn_start", "round_start")])

    # -- undo / save / load --
    def _push(self, what: str) -> None:
        ds = self.dice.getstate() if isinstance(self.dice, SeededDice) else None
        self.undo_stack.append(_Snapshot(self.enc.clone(), ds, len(self.events), len(self.log), set(self.vetoed),
                                         what))
        if len(self.undo_stack) > 500:
            del self.undo_stack[0]

    def _restore(self, snap: _Snapshot) -> None:
        enc = snap.enc.clone()
        _touched(enc)
        self._new_battle(enc)
        if snap.dice_state is not None and isinstance(self.dice, SeededDice):
            self.dice.setstate(snap.dice_state)
        if isinstance(self.dice, AskedDice):
            self.dice.clear()
        del self.events[snap.n_events:]
        self.log.truncate(snap.n_log)
        self.vetoed = set(snap.vetoed)
        self._proposal = None
        self._turn_key = (enc.round, enc.turn, enc.phase_index, enc.actor_id)

    def undo(self) -> str | None:
        """Take back the last decision or correction; what it was, or None when there is nothing to undo."""
        if not self.undo_stack:
            return None
        snap = self.undo_stack.pop()
        self._restore(snap)
        self.decisions = max(0, self.decisions - 1)
        return snap.what

    def cmd_undo(self, args) -> None:
        what = self.undo()
        if what is None:
            self.say("Nothing to undo.")
            return
        self.say(f"Undone: {what}. Round {self.enc.round}, {self.enc.actor.name if self.enc.actor else '-'} "
                 f"to act (left: {Economy.describe(self.enc.budget)}).")

    def save_data(self) -> dict:
        """The session as the JSON `save` writes (`read_session` / `parse_session` read it back)."""
        data = self.enc.to_dict()
        seeded = isinstance(self.dice, SeededDice)
        data["autopilot"] = {"seed": self.seed, "dice": self.dice_mode,
                             "dice_state": _jsonable(self.dice.getstate()) if seeded else None,
                             "turn": list(self._turn_key) if self._turn_key else None,
                             "vetoed": [d.to_dict() for d in sorted(self.vetoed, key=repr)]}
        return data

    def cmd_save(self, args) -> None:
        if not args or not args[0].strip():
            raise InputError("save needs a file name", "save", "save FILE.json")
        data = self.save_data()
        p = Path(args[0])
        try:
            p.write_text(json.dumps(data, indent=1))
        except OSError as e:
            raise InputError(f"could not write {p}: {e.strerror or e}", "save",
                             "save to a file in a folder that exists, e.g. save battle.json") from None
        self.say(f"Saved to {p}.")

    def cmd_load(self, args) -> None:
        if not args or not args[0].strip():
            raise InputError("load needs a file name", "load", "load FILE.json")
        saved = read_session(args[0], self.ruleset)
        self.load(saved, args[0])
        self.say(f"Loaded {args[0]}: round {saved.enc.round}.")

    def load(self, saved: "SavedSession", name: str) -> None:
        """Replace the battle by a saved one (undoable), noted in the log as loaded from `name`."""
        self._push(f"load {name}")
        self.resume(saved)
        self.log.note(f"GM loaded {name}")

    def resume(self, saved: "SavedSession") -> None:
        """Carry on from a saved session: its battle, its dice (when rolled here) and the vetoes of its turn."""
        self._new_battle(saved.enc)
        if saved.dice_state is not None and isinstance(self.dice, SeededDice):
            self.dice.setstate(saved.dice_state)
        self._kept_vetoes = (saved.turn, set(saved.vetoed)) if saved.vetoed and saved.turn else None
        self._proposal = None
        self._turn_key = None

    # -- corrections --
    def _unit(self, words: list[str], what: str):
        if not words:
            raise InputError(f"{what} needs a unit name", what)
        u = find_unit(self.enc, " ".join(words), markers(self.enc))
        if u is None:
            raise InputError(f"no unit called '{' '.join(words)}'", what,
                             "units: " + ", ".join(x.name for x in self.enc.units))
        return u

    def _split_tail(self, args: list[str], n: int, what: str, form: str) -> tuple[list[str], list[str]]:
        if len(args) < n + 1:
            raise InputError(f"{what} needs {form}", what, f"type {what} {form}")
        return args[:-n], args[-n:]

    def _corrected(self, text: str) -> None:
        enc = self.enc
        _touched(enc)
        self.log.note(f"GM: {text}")
        self.say(f"GM: {text}")
        events = self.battle._check_victory()
        actor = enc.actor
        if not enc.over and actor is not None and not self.ruleset.can_act(enc, actor):
            try:
                events += self.battle.step(END)
            except DiceStopped as e:  # a roll as the next turn starts: the correction is taken back whole
                self._restore(self.undo_stack.pop())
                if e.word != "undo":
                    raise Quit()
                self.say(f"Taken back: {text}.")
                return
            except BaseException:
                self._restore(self.undo_stack.pop())
                raise
        if events:
            self._after(events)

    def cmd_hp(self, args) -> None:
        name, (n,) = self._split_tail(args, 1, "hp", "NAME N")
        u = self._unit(name, "hp")
        try:
            hp = int(n)
        except ValueError:
            raise InputError(f"'{n}' is not a number of hit points", "hp", "hp NAME N")
        self._push(f"hp {u.name} {hp}")
        u.hp = min(hp, u.max_hp) if hp > 0 else hp
        if u.hp <= 0:
            u.down = True
        elif u.down and not u.dead:
            u.down = False
        self._corrected(f"{u.name} at {u.hp}/{u.max_hp} HP" + (" (down)" if u.down else ""))

    def cmd_place(self, args) -> None:
        name, (xs, ys) = self._split_tail(args, 2, "place", "NAME X Y")
        u = self._unit(name, "place")
        try:
            x, y = int(xs), int(ys)
        except ValueError:
            raise InputError("the square must be two numbers", "place", "place NAME X Y")
        g = self.enc.grid
        if not g.inside(x, y):
            raise InputError(f"({x}, {y}) is outside the {g.width}x{g.height} map", "place")
        if not g.passable(g.index(x, y)):
            raise InputError(f"({x}, {y}) is {g.kind(g.index(x, y)).replace('_', ' ')}", "place",
                             "pick an open square")
        other = self.enc.occupant((x, y))
        if other is not None and other.id != u.id:
            raise InputError(f"{other.name} stands at ({x}, {y})", "place")
        self._push(f"place {u.name} {x} {y}")
        u.pos = (x, y)
        self._corrected(f"{u.name} placed at ({x}, {y})")

    def conditions(self, u) -> list[str]:
        """The conditions `add` / `remove` take for a unit: down, dead and its play state's yes / no flags."""
        return ["down", "dead"] + sorted(k for k, v in u.state.items() if isinstance(v, bool))

    _conditions = conditions

    def numbers(self, u) -> list[str]:
        """The numbers of a unit's play state `set NAME KEY N` corrects: those the ruleset's words declare as its
        corrections first (in their order), then the unit's other whole-number state keys (sorted)."""
        found = {k for k, v in u.state.items() if isinstance(v, int) and not isinstance(v, bool)}
        declared = [k for k in self.ruleset.words().corrections if k in found]
        return declared + sorted(found - set(declared))

    def _set_condition(self, args, on: bool) -> None:
        what = "add" if on else "remove"
        name, (cond,) = self._split_tail(args, 1, what, "NAME CONDITION")
        u = self._unit(name, what)
        cond = cond.lower()
        if cond not in self.conditions(u):
            raise InputError(f"'{cond}' is not a condition of {u.name}", what,
                             "one of: " + ", ".join(self.conditions(u)) + " (numbers: set NAME KEY N)")
        self._push(f"{what} {u.name} {cond}")
        if cond == "down":
            u.down = on
            if not on:
                u.dead = False
                u.hp = max(1, u.hp)
        elif cond == "dead":
            u.dead = on
            u.down = on or u.down
        else:
            u.state[cond] = on
        self._corrected(f"{u.name} {'is now' if on else 'is no longer'} {cond}")

    def cmd_add(self, args) -> None:
        self._set_condition(args, True)

    def cmd_remove(self, args) -> None:
        self._set_condition(args, False)

    def cmd_set(self, args) -> None:
        name, (key, n) = self._split_tail(args, 2, "set", "NAME KEY N")
        u = self._unit(name, "set")
        numbers = self.numbers(u)
        if key not in numbers:
            raise InputError(f"'{key}' is not a number on {u.name}", "set", self._numbers_fix(u, numbers))
        try:
            val = int(n)
        except ValueError:
            raise InputError(f"'{n}' is not a whole number", "set")
        trial = u.clone()
        trial.state[key] = val
        self.ruleset.check_unit(trial, u.name)  # InputError, before anything changes
        self._push(f"set {u.name} {key} {val}")
        u.state[key] = val
        self._corrected(f"{u.name}'s {key} set to {val}")

    def _numbers_fix(self, u, numbers: list[str]) -> str:
        """What `set` takes for a unit: the ruleset's declared corrections it has, then its other numbers."""
        declared = [k for k in self.ruleset.words().corrections if k in numbers]
        others = [k for k in numbers if k not in declared]
        if not declared:
            return "one of: " + ", ".join(numbers) if numbers else f"{u.name}'s state has no numbers to set"
        return (f"one of {self.ruleset.name}'s corrections: {', '.join(declared)} (help says what they are)"
                + (f"; or another number of {u.name}'s state: {', '.join(others)}" if others else ""))

    _COMMANDS = {"undo": cmd_undo, "save": cmd_save, "load": cmd_load, "hp": cmd_hp, "place": cmd_place,
                 "add": cmd_add, "remove": cmd_remove, "set": cmd_set}


# ---- saved sessions ------------------------------------------------------------------------------------
def _jsonable(state):
    if isinstance(state, tuple):
        return [_jsonable(x) for x in state]
    return state


def _tupled(state):
    if isinstance(state, list):
        return tuple(_tupled(x) for x in state)
    return state


@dataclass
class SavedSession:
    """A file written by `save` (or a bare `to_dict` state): the battle, the seeded dice's state, and the
    decisions vetoed in the turn it was saved in (`turn`: round, turn, phase, actor id)."""

    enc: Encounter
    dice_state: object = None
    turn: tuple | None = None
    vetoed: list[Decision] = field(default_factory=list)


def load_state(path: str | Path, ruleset: Ruleset | None = None) -> tuple[Encounter, object]:
    """A saved session or `to_dict` state -> (encounter, dice state or None). InputError when wrong."""
    saved = read_session(path, ruleset)
    return saved.enc, saved.dice_state


def read_session(path: str | Path, ruleset: Ruleset | None = None) -> SavedSession:
    """A saved session or `to_dict` state, checked (the ruleset, every unit, the vetoes). InputError when wrong."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {p}", str(p), "check the path")
    try:
        data = json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"not valid JSON ({e})", str(p), "give a file written by `save` or `tactician suggest`")
    except OSError as e:
        raise InputError(f"could not read it: {e.strerror or e}", str(p), "give a state file written by `save`")
    return parse_session(data, str(p), ruleset)


def parse_session(data, where: str, ruleset: Ruleset | None = None) -> SavedSession:
    """A saved session or `to_dict` state already read from JSON, checked as `read_session` does; `where` names
    it in errors."""
    p = where
    enc = Encounter.from_dict(data)
    if ruleset is not None and enc.ruleset != ruleset.id:
        raise InputError(f"the state is for ruleset '{enc.ruleset}', not '{ruleset.id}'", str(p))
    try:
        rs = ruleset or get_ruleset(enc.ruleset)
    except KeyError as e:
        raise InputError(str(e.args[0]), f"{p}: ruleset")
    for n, u in enumerate(enc.units):
        rs.check_unit(u, f"{p}: units[{n}] ({u.name})")
    ap = data.get("autopilot") if isinstance(data, dict) else None
    if not isinstance(ap, dict):
        return SavedSession(enc)
    ds = _tupled(ap.get("dice_state")) if ap.get("dice_state") else None
    turn = ap.get("turn")
    if turn is not None and not (isinstance(turn, list) and len(turn) == 4
                                 and all(isinstance(v, int) or v is None for v in turn)):
        raise InputError(f"turn is {turn!r}", f"{p}: autopilot.turn", "[round, turn, phase, actor id], or null")
    vetoed = ap.get("vetoed") or []
    if not isinstance(vetoed, list):
        raise InputError(f"vetoed is {vetoed!r}", f"{p}: autopilot.vetoed", "a list of decisions, or []")
    decisions = [_decision(v, f"{p}: autopilot.vetoed[{n}]") for n, v in enumerate(vetoed)]
    return SavedSession(enc, ds, tuple(turn) if turn else None, decisions)


def _decision(obj, where: str) -> Decision:
    """A decision's `to_dict` form -> the Decision; InputError naming what is malformed."""
    fix = 'a decision like {"action": "ranged_attack", "target": 2} or {"action": "move", "square": [3, 4]}'
    if not isinstance(obj, dict) or not isinstance(obj.get("action"), str):
        raise InputError(f"{obj!r} is not a decision", where, fix)
    target, square, option = obj.get("target"), obj.get("square"), obj.get("option", 0)
    if (target is not None and type(target) is not int) or type(option) is not int or (
            square is not None and not (isinstance(square, list) and len(square) == 2
                                        and all(type(v) is int for v in square))):
        raise InputError(f"{obj!r} is not a decision", where, fix)
    return Decision.from_dict(obj)


decision_from_json = _decision
