"""The GM's session: the battle turn by turn, PCs typed in by the GM, NPCs proposed by the AI.

Everything the session reads comes through `ask(prompt) -> str` and everything it prints through
`say(text)` (and `show(encounter)` for the map), so a test can script a whole session. Any typo gets a
hint, never a traceback; every decision and correction can be undone.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import AskedDice, Dice, DiceStopped, SeededDice
from engine.core.economy import Economy
from engine.core.errors import IllegalAction, InputError
from engine.core.events import Event, damage_by_unit
from engine.core.narration import narrate_events
from engine.core.policy import Policy
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.rulesets import get_ruleset

from agents.render import map_text, markers

from .chooser import Chooser, Proposal, estimate_of
from .log import BattleLog
from .words import command_for, correction_help, decision_help, find_unit, legal_listing, parse_decision, tokens

# the commands; {decisions} and {corrections} are the ruleset's words (help_text)
HELP = """\
Decisions (for the acting unit):
{decisions}
  ?                 what is legal now, in these words
NPC turns:
  Enter             accept the proposed decision
  no                veto it (it is not proposed again this turn); the next best is proposed
  (a decision)      play your own choice for the NPC instead
GM corrections (any time):
  hp NAME N         set hit points (0 or less: down)
  place NAME X Y    put a unit on a square
  add NAME COND     add a condition (prone, down, dead, ... see `add NAME ?`)
  remove NAME COND  remove it
  set NAME KEY N    set a number of the unit's state{corrections}
  undo              take back the last decision or correction
  save FILE | load FILE   the session as JSON (`tactician suggest FILE` reads it too)
  map | status | help | quit"""


def help_text(ruleset) -> str:
    """HELP in the ruleset's words: its decision lines and the numbers `set NAME KEY N` corrects."""
    fixes = "".join("\n                      " + line for line in correction_help(ruleset))
    return HELP.format(decisions="\n".join("  " + line for line in decision_help(ruleset)),
                       corrections=", such as" + fixes if fixes else "")


class Quit(Exception):
    """The GM ended the session (quit, or the input ran out)."""


class Interrupted(Quit):
    """The GM pressed Ctrl-C: the session offers to save before it ends."""


STOP_WORDS = ("undo", "quit", "exit")  # what a dice prompt takes besides faces


@dataclass
class Result:
    winner: str | None
    rounds: int
    damage: dict[str, int]
    decisions: int
    quit: bool = False
    events: list[Event] = field(default_factory=list)


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


class Session:
    """One autopilot session. `pcs=None` means the GM plays the first side (the PCs) and approves NPC
    decisions; with a `pcs` policy the whole battle plays itself."""

    def __init__(self, enc: Encounter, ruleset: Ruleset, npcs: Policy, pcs: Policy | None = None, *,
                 dice: str = "auto", difficulty: str = "deadly", seed: int | None = 0,
                 ask: Callable[[str], str] | None = None, say: Callable[[str], None] = print,
                 show: Callable[[Encounter], None] | None = None, initiative: dict[str, int] | None = None,
                 max_decisions: int = 20000):
        if dice not in ("auto", "manual"):
            raise InputError(f"dice must be auto or manual, not '{dice}'", "--dice")
        self.ruleset, self.seed = ruleset, seed
        self.say = say
        self._ask_fn = ask or input
        self.show_fn = show
        self.gm_side = ruleset.sides[0] if pcs is None else None
        self.interactive = pcs is None
        self.dice_mode = dice
        self.dice: Dice = SeededDice(seed) if dice == "auto" else AskedDice(self.ask, self.say, stop=STOP_WORDS,
                                                                            shown=self._preview)
        self.battle = Battle(enc, ruleset, self.dice)
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

    # ---- I/O ---------------------------------------------------------------------------------------
    def ask(self, prompt: str) -> str:
        try:
            line = self._ask_fn(prompt)
        except EOFError:
            raise Quit()
        except KeyboardInterrupt:
            raise Interrupted()
        if line is None:
            raise Quit()
        return str(line)

    def show(self) -> None:
        if self.show_fn is not None:
            self.show_fn(self.enc)
        else:
            self.say(map_text(self.enc, self.ruleset))

    @property
    def enc(self) -> Encounter:
        return self.battle.enc

    def narrate(self, events: list[Event]) -> list[str]:
        lines = narrate_events(events, self.enc, self.ruleset)
        for line in lines:
            self.say(("  " if not line.startswith("--") else "") + line)
            if line.startswith("-- Round"):
                continue
            self.log.item(line)
        return lines

    def _preview(self, events: list[Event]) -> None:
        """What a decision being resolved has shown so far (an attack's result before its damage is asked);
        its full narration follows once it is resolved."""
        for line in narrate_events(events, self.enc, self.ruleset):
            self.say("  " + line)

    # ---- the loop ------------------------------------------------------------------------------------
    def run(self) -> Result:
        quit_ = False
        try:
            if not self.enc.order:
                self._start()
            else:
                self.say(f"Resuming {self.enc.name or 'the battle'} at round {self.enc.round}.")
                self.log.block(map_text(self.enc, self.ruleset))
            while not self.battle.over and self.decisions < self.max_decisions:
                actor = self.battle.actor
                if actor is None:
                    break
                self._turn_header()
                if self.interactive and actor.side == self.gm_side:
                    self._gm_turn_input()
                elif self.interactive:
                    self._npc_interactive()
                else:
                    self._auto()
        except (Quit, KeyboardInterrupt) as e:
            quit_ = True
            if not isinstance(e, Quit) or isinstance(e, Interrupted):
                self._offer_save()
            self.say("Session ended.")
        return self._finish(quit_)

    def _offer_save(self) -> None:
        """After Ctrl-C: save to a file the GM names, or leave without saving (Enter, Ctrl-C or no input)."""
        for _ in range(5):
            try:
                name = self._ask_fn("\nSave the session before leaving? A file name, or Enter to leave without "
                                    "saving: ")
            except (EOFError, KeyboardInterrupt):
                return
            if name is None or not str(name).strip():
                return
            try:
                self.cmd_save([str(name).strip()])
                return
            except InputError as e:
                self.say(f"{e}")

    def _start(self) -> None:
        enc = self.enc
        self.say(f"{enc.name}: {', '.join(u.name for u in enc.units)}")
        init = self._initiative()
        self.log.block(map_text(enc, self.ruleset, legend=True))
        before = enc.clone()
        for _ in range(10):
            try:
                events = self.battle.start(init)
                break
            except (DiceStopped, InputError, Quit) as e:  # undo (or no valid roll) at an initiative roll: again
                self.battle = Battle(before.clone(), self.ruleset, self.dice)
                if isinstance(e, Quit):
                    raise
                if isinstance(e, DiceStopped) and e.word != "undo":
                    raise Quit() from None
                if isinstance(self.dice, AskedDice):
                    self.dice.clear()
                self.say("Initiative taken back: every roll again, from the first unit.")
        else:
            raise Quit()
        enc = self.enc
        self.log.heading("Initiative")
        for uid in enc.order:
            u = enc.units[uid]
            self.log.item(f"{u.name} ({u.side}): {enc.initiative[uid]}")
        self.say("Initiative: " + ", ".join(f"{enc.units[i].name} {enc.initiative[i]}" for i in enc.order))
        self._after(events, narrate_initiative=False)

    def _initiative(self) -> dict[int, int] | None:
        enc = self.enc
        if self.initiative:
            return {find_unit(enc, k).id: int(v) for k, v in self.initiative.items()}
        if not self.interactive or self.dice_mode == "manual":
            return None
        for _ in range(10):
            line = self.ask("Initiative: Enter rolls for everyone, or type totals like 'Kira 18, Trooper 1 12' "
                            "(the rest are rolled): ").strip()
            if not line:
                return None
            try:
                return parse_initiative(line, enc)
            except InputError as e:
                self.say(f"{e}")
        return None

    def _turn_header(self) -> None:
        enc = self.enc
        key = (enc.round, enc.turn, enc.phase_index, enc.actor_id)
        if key == self._turn_key:
            return
        self._turn_key = key
        kept = self._kept_vetoes
        self.vetoed = set(kept[1]) if kept is not None and kept[0] == key else set()
        self._kept_vetoes = None
        self._proposal = None
        actor = enc.actor
        if enc.round != self._round_logged:
            self._round_logged = enc.round
            self.log.heading(f"Round {enc.round}")
            if not self.interactive:
                self.say(f"\n== Round {enc.round} ==")
                self.show()
        if self.interactive:
            self.show()
        self.log.lines.append(f"\n**{actor.name}'s turn** ({actor.side}, {max(0, actor.hp)}/{actor.max_hp} HP)\n")
        self.say(f"Round {enc.round}: {actor.name}'s turn ({actor.side}) - left: {Economy.describe(enc.budget)}")

    def _auto(self) -> None:
        actor = self.battle.actor
        chooser = self.pc_chooser if (self.pc_chooser and actor.side == self.ruleset.sides[0]) else self.npc_chooser
        prop = chooser.propose(self.battle)
        for n in prop.notes:
            self.log.note(n)
        self.apply(prop.decision)

    # ---- NPC turns ---------------------------------------------------------------------------------
    def _current_proposal(self) -> Proposal:
        key = (self.enc.version, frozenset(self.vetoed), id(self.enc))
        if self._proposal is None or self._proposal[0] != key:
            self._proposal = (key, self.npc_chooser.propose(self.battle, self.vetoed))
        return self._proposal[1]

    def explain(self, prop: Proposal) -> str:
        enc, rs = self.enc, self.ruleset
        d = prop.decision
        lines = [f"{enc.actor.name} proposes: {command_for(d, enc, rs)}  ({rs.describe(d, enc)}, p={prop.prob:.2f})"]
        est = prop.estimate
        if est is not None and (est.hit_chance or est.expected_damage):
            notes = f" [{', '.join(est.notes)}]" if est.notes else ""
            lines.append(f"  hit {est.hit_chance:.0%}, expected damage {est.expected_damage:.1f}, "
                         f"kill {est.kill_chance:.0%}{notes}")
        for n in prop.notes:
            lines.append(f"  tactics: {n}")
        alts = prop.alternatives(3)
        if alts:
            lines.append("  also considered:")
            words = [command_for(a, enc, rs) for a, _ in alts]
            width = max(len(w) for w in words)
            for w, (a, p) in zip(words, alts):
                lines.append(f"    {w:<{width}}  p={p:.2f}{_odds(estimate_of(self.battle, a))}")
        if self.vetoed:
            lines.append("  vetoed: " + ", ".join(command_for(v, enc, rs) for v in self.vetoed))
        return "\n".join(lines)

    def _npc_interactive(self) -> None:
        prop = self._current_proposal()
        self.say(self.explain(prop))
        line = self.ask("Enter = accept, no = veto, or type a decision or command: ")
        s = line.strip()
        if s.lower() in ("", "y", "yes", "ok", "accept"):
            for n in prop.notes:
                self.log.note(n)
            self.apply(prop.decision)
        elif s.lower() in ("no", "n", "veto"):
            if prop.decision == END and all(d in self.vetoed or d == END for d in self.battle.legal()):
                self.say("Everything else is vetoed: ending the turn is all that is left (Enter to accept).")
                return
            self.vetoed.add(prop.decision)
            self.log.note(f"GM vetoed: {command_for(prop.decision, self.enc, self.ruleset)}")
            self.say(f"Vetoed {command_for(prop.decision, self.enc, self.ruleset)}; the next best:")
        else:
            self.command(s)

    # ---- PC turns ------------------------------------------------------------------------------------
    def _gm_turn_input(self) -> None:
        actor = self.enc.actor
        line = self.ask(f"{actor.name} [{Economy.describe(self.enc.budget)}]> ")
        if not line.strip():
            self.say("Type a decision for the PC (e.g. `move 5 7`, `attack \"Trooper 1\"`, `end`), "
                     "? for what is legal now, help for every command.")
            return
        self.command(line)

    # ---- commands ------------------------------------------------------------------------------------
    def command(self, line: str) -> None:
        """A GM command or a decision for the acting unit. Never raises (except Quit)."""
        words = tokens(line)
        if not words:
            return
        head = words[0].lower()
        try:
            handler = self._COMMANDS.get(head)
            if handler is not None:
                handler(self, words[1:])
                return
            d = parse_decision(line, self.battle, markers(self.enc))
            self.apply(d)
        except Quit:
            raise
        except IllegalAction as e:
            self.say(f"Not legal: {e.reason}. (? lists what is legal now)")
        except InputError as e:
            self.say(f"{e}" + ("" if e.fix else ". Type ? for the legal decisions, help for the commands."))
        except Exception as e:  # a session survives anything a GM types
            self.say(f"Could not do that ({type(e).__name__}: {e}). Type help for the commands.")

    def apply(self, d: Decision) -> list[Event]:
        """Play a decision of the acting unit (undoable); illegal ones are refused with the reason."""
        enc = self.enc
        actor = enc.actor
        what = command_for(d, enc, self.ruleset)
        self._push(f"{actor.name}: {what}")
        try:
            events = self.battle.step(d)
        except IllegalAction:
            self.undo_stack.pop()
            raise
        except (InputError, Quit, DiceStopped, KeyboardInterrupt) as e:
            # at a dice prompt the GM typed undo or quit, pressed Ctrl-C, or gave no valid roll: it never happened
            self._restore(self.undo_stack.pop())
            if isinstance(e, KeyboardInterrupt):
                raise Interrupted() from None
            if isinstance(e, Quit):
                raise
            if isinstance(e, DiceStopped) and e.word != "undo":
                raise Quit() from None
            self.say(f"Taken back: {what} (nothing of it happened)." if isinstance(e, DiceStopped)
                     else f"{e}; the decision was taken back.")
            return []
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
        self.battle = Battle(enc, self.ruleset, self.dice)
        if snap.dice_state is not None and isinstance(self.dice, SeededDice):
            self.dice.setstate(snap.dice_state)
        if isinstance(self.dice, AskedDice):
            self.dice.clear()
        del self.events[snap.n_events:]
        self.log.truncate(snap.n_log)
        self.vetoed = set(snap.vetoed)
        self._proposal = None
        self._turn_key = (enc.round, enc.turn, enc.phase_index, enc.actor_id)

    def cmd_undo(self, args) -> None:
        if not self.undo_stack:
            self.say("Nothing to undo.")
            return
        snap = self.undo_stack.pop()
        self._restore(snap)
        self.decisions = max(0, self.decisions - 1)
        self.say(f"Undone: {snap.what}. Round {self.enc.round}, {self.enc.actor.name if self.enc.actor else '-'} "
                 f"to act (left: {Economy.describe(self.enc.budget)}).")

    def cmd_save(self, args) -> None:
        if not args or not args[0].strip():
            raise InputError("save needs a file name", "save", "save FILE.json")
        data = self.enc.to_dict()
        seeded = isinstance(self.dice, SeededDice)
        data["autopilot"] = {"seed": self.seed, "dice": self.dice_mode,
                             "dice_state": _jsonable(self.dice.getstate()) if seeded else None,
                             "turn": list(self._turn_key) if self._turn_key else None,
                             "vetoed": [d.to_dict() for d in sorted(self.vetoed, key=repr)]}
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
        self._push(f"load {args[0]}")
        self.resume(saved)
        self.log.note(f"GM loaded {args[0]}")
        self.say(f"Loaded {args[0]}: round {saved.enc.round}.")

    def resume(self, saved: "SavedSession") -> None:
        """Carry on from a saved session: its battle, its dice (when rolled here) and the vetoes of its turn."""
        self.battle = Battle(saved.enc, self.ruleset, self.dice)
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

    def _conditions(self, u) -> list[str]:
        return ["down", "dead"] + sorted(k for k, v in u.state.items() if isinstance(v, bool))

    def _set_condition(self, args, on: bool) -> None:
        what = "add" if on else "remove"
        name, (cond,) = self._split_tail(args, 1, what, "NAME CONDITION")
        u = self._unit(name, what)
        cond = cond.lower()
        if cond not in self._conditions(u):
            raise InputError(f"'{cond}' is not a condition of {u.name}", what,
                             "one of: " + ", ".join(self._conditions(u)) + " (numbers: set NAME KEY N)")
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
        numbers = sorted(k for k, v in u.state.items() if isinstance(v, int) and not isinstance(v, bool))
        if key not in numbers:
            raise InputError(f"'{key}' is not a number on {u.name}", "set", "one of: " + ", ".join(numbers))
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

    def cmd_help(self, args) -> None:
        self.say(help_text(self.ruleset))

    def cmd_legal(self, args) -> None:
        actor = self.enc.actor
        self.say(f"Legal now for {actor.name} (left: {Economy.describe(self.enc.budget)}):")
        for line in legal_listing(self.battle):
            self.say("  " + line)

    def cmd_map(self, args) -> None:
        self.show()

    def cmd_status(self, args) -> None:
        enc = self.enc
        self.say(f"Round {enc.round}; {enc.actor.name if enc.actor else '-'} acting; "
                 f"left: {Economy.describe(enc.budget)}; decisions so far: {self.decisions}")
        for u in enc.units:
            self.say(f"  {u.name}: {max(0, u.hp)}/{u.max_hp} HP at {u.pos}" + (" (down)" if u.down else ""))

    def cmd_quit(self, args) -> None:
        raise Quit()

    _COMMANDS = {"?": cmd_legal, "legal": cmd_legal, "help": cmd_help, "h": cmd_help, "map": cmd_map,
                 "status": cmd_status, "undo": cmd_undo, "save": cmd_save, "load": cmd_load, "hp": cmd_hp,
                 "place": cmd_place, "add": cmd_add, "remove": cmd_remove, "set": cmd_set, "quit": cmd_quit,
                 "exit": cmd_quit}

    # ---- the end ---------------------------------------------------------------------------------------
    def _finish(self, quit_: bool) -> Result:
        enc = self.enc
        dmg_ids = damage_by_unit(self.events)
        damage = {u.name: dmg_ids.get(u.id, 0) for u in enc.units}
        taken: dict[str, int] = {u.name: 0 for u in enc.units}
        for e in self.events:
            if e.kind == "damage" and e.target is not None:
                taken[enc.units[e.target].name] += int(e.get("amount", 0))
        winner = enc.winner
        rounds = enc.round
        self.say("")
        self.show()
        head = ("Session ended before the battle was decided" if winner is None
                else ("A draw" if winner == "draw" else f"Winner: {winner}"))
        self.say(f"{head} after {rounds} round(s), {self.decisions} decisions.")
        self.log.heading("Result")
        self.log.item(f"{head}; rounds: {rounds}; decisions: {self.decisions}")
        rows = [[u.name, u.side, dmg_ids.get(u.id, 0), taken[u.name], f"{max(0, u.hp)}/{u.max_hp}",
                 "dead" if u.dead else ("down" if u.down else "up")] for u in enc.units]
        self.log.table(["unit", "side", "damage dealt", "damage taken", "HP", "state"], rows)
        self.say("Damage dealt / taken:")
        for r in rows:
            self.say(f"  {r[0]:<14} {r[1]:<5} dealt {r[2]:>3}  taken {r[3]:>3}  {r[4]:>7} {r[5]}")
        self.log.block(map_text(enc, self.ruleset))
        return Result(winner, rounds, damage, self.decisions, quit_, list(self.events))


def _odds(est) -> str:
    """', hit 55%, expected damage 4.2' for an estimate with a chance or damage; '' for none."""
    if est is None or not (est.hit_chance or est.expected_damage):
        return ""
    return f", hit {est.hit_chance:.0%}, expected damage {est.expected_damage:.1f}"


def parse_initiative(line: str, enc: Encounter) -> dict[int, int]:
    """'Kira 18, Trooper 1 12' -> {unit id: total}."""
    out: dict[int, int] = {}
    for part in line.split(","):
        words = part.split()
        if not words:
            continue
        if len(words) < 2 or not words[-1].lstrip("-").isdigit():
            raise InputError(f"'{part.strip()}' is not NAME NUMBER", "initiative", "e.g. Kira 18, Trooper 1 12")
        u = find_unit(enc, " ".join(words[:-1]))
        if u is None:
            raise InputError(f"no unit called '{' '.join(words[:-1])}'", "initiative",
                             "units: " + ", ".join(x.name for x in enc.units))
        out[u.id] = int(words[-1])
    return out


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
