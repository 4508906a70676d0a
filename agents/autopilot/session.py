"""The GM's session: the battle turn by turn, PCs typed in by the GM, NPCs proposed by the AI.

Everything the session reads comes through `ask(prompt) -> str` and everything it prints through
`say(text)` (and `show(encounter)` for the map), so a test can script a whole session. Any typo gets a
hint, never a traceback; every decision and correction can be undone. A reaction a unit of the GM's side may take
(an attack of opportunity) is asked at a prompt in the middle of the decision that triggers it, as a die's face is
with manual dice. The state and every change to it are `core.SessionCore`'s (the browser's session drives the same
core); this module is the terminal around it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from engine.core.decision import Decision
from engine.core.dice import AskedDice, Dice, DiceStopped, SeededDice
from engine.core.economy import Economy
from engine.core.errors import IllegalAction, InputError
from engine.core.events import Event, damage_by_unit
from engine.core.narration import narrate_events
from engine.core.policy import Policy
from engine.core.reaction import DECLINE, Trigger
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter

from agents.render import map_text, markers

from .chooser import Proposal, estimate_of
from .core import Interrupted, Quit, SavedSession, SessionCore, load_state, read_session  # noqa: F401 (re-exported)
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
Reactions of the PCs (an attack of opportunity an NPC provokes), asked as it happens:
  Enter / y / n     take it, or let it pass; with several reactions, the number of one
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
    indent = "\n                      "
    fixes = "".join(indent + line for line in correction_help(ruleset))
    listed = "(a KEY it does not have lists them)"
    return HELP.format(decisions="\n".join("  " + line for line in decision_help(ruleset)),
                       corrections=f": {ruleset.name}'s corrections{fixes}{indent}or any other number of "
                                   f"the unit's state {listed}" if fixes else f" {listed}")


STOP_WORDS = ("undo", "quit", "exit")  # what a dice or reaction prompt takes besides its answers
YES, NO = ("", "y", "yes", "take", "ok"), ("n", "no", "pass", "decline")


@dataclass
class Result:
    winner: str | None
    rounds: int
    damage: dict[str, int]
    decisions: int
    quit: bool = False
    events: list[Event] = field(default_factory=list)


class Session(SessionCore):
    """One autopilot session at the terminal. `pcs=None` means the GM plays the first side (the PCs) and approves
    NPC decisions; with a `pcs` policy the whole battle plays itself."""

    def __init__(self, enc: Encounter, ruleset: Ruleset, npcs: Policy, pcs: Policy | None = None, *,
                 dice: str = "auto", difficulty: str = "deadly", seed: int | None = 0,
                 ask: Callable[[str], str] | None = None, say: Callable[[str], None] = print,
                 show: Callable[[Encounter], None] | None = None, initiative: dict[str, int] | None = None,
                 max_decisions: int = 20000):
        if dice not in ("auto", "manual"):
            raise InputError(f"dice must be auto or manual, not '{dice}'", "--dice")
        self.say = say
        self._ask_fn = ask or input
        self.show_fn = show
        rolled: Dice = SeededDice(seed) if dice == "auto" else AskedDice(self.ask, self.say, stop=STOP_WORDS,
                                                                         shown=self._preview)
        super().__init__(enc, ruleset, npcs, pcs, dice=rolled, dice_mode=dice, difficulty=difficulty, seed=seed,
                         say=say, initiative=initiative, max_decisions=max_decisions)

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

    def _preview(self, events: list[Event]) -> None:
        """What a decision being resolved has shown so far (an attack's result before its damage is asked);
        its full narration follows once it is resolved."""
        for line in narrate_events(events, self.enc, self.ruleset):
            self.say("  " + line)

    def gm_reaction(self, unit, trigger: Trigger, options: list[Decision]) -> Decision:
        """Ask the GM whether a unit of the GM's side takes its reaction: 'take it? [Y/n]', or the number of one of
        several. `undo` / `quit` / `exit` stop the decision being resolved, as at a dice prompt (DiceStopped)."""
        q = self.reaction_question(unit, trigger, options)
        if q.yes_no:
            prompt, how = f"{q.prompt}: take it? [Y/n] ", "y or n (Enter: y)"
        else:
            self.say(f"{q.prompt}:")
            for n, label in enumerate(q.labels, 1):
                self.say(f"  {n}. {label}")
            prompt, how = f"which? [1-{len(options)}, Enter: 1] ", f"a number from 1 to {len(options)} (Enter: 1)"
        for _ in range(20):
            text = self.ask(prompt).strip().lower()
            if text in STOP_WORDS:
                raise DiceStopped(text)
            if text in YES:
                return options[0]
            if text in NO:
                return DECLINE
            if not q.yes_no and text.isascii() and text.isdigit() and 1 <= int(text) <= len(options):
                return options[int(text) - 1]
            self.say(f"'{text}' is not an answer: type {how}, or {' / '.join(STOP_WORDS)}.")
        raise InputError(f"no answer to '{q.prompt}' after 20 tries")

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
                    self.play_policy()
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
                self._new_battle(before.clone())
                if isinstance(e, Quit):
                    raise
                if isinstance(e, DiceStopped) and e.word != "undo":
                    raise Quit() from None
                if isinstance(self.dice, AskedDice):
                    self.dice.clear()
                self.say("Initiative taken back: every roll again, from the first unit.")
        else:
            raise Quit()
        self._started(events)

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
            word = line.lower()
            if word in ("quit", "exit"):
                raise Quit()
            if word in ("help", "?"):
                self.say("Type each initiative total you rolled at the table as NAME NUMBER, commas between them "
                         "(e.g. Kira 18, Trooper 1 12); units you leave out are rolled. Enter rolls for everyone; "
                         "quit leaves. Units: " + ", ".join(u.name for u in enc.units))
                continue
            try:
                return parse_initiative(line, enc)
            except InputError as e:
                self.say(f"{e}")
        return None

    def _turn_header(self) -> None:
        new_round = self.sync_turn()
        if new_round is None:
            return
        enc = self.enc
        actor = enc.actor
        if new_round and not self.interactive:
            self.say(f"\n== Round {enc.round} ==")
            self.show()
        if self.interactive:
            self.show()
        self.say(f"Round {enc.round}: {actor.name}'s turn ({actor.side}) - left: {Economy.describe(enc.budget)}")

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
            self.accept(prop)
        elif s.lower() in ("no", "n", "veto"):
            if self.veto(prop) is None:
                self.say("Everything else is vetoed: ending the turn is all that is left (Enter to accept).")
                return
            self.say(f"Vetoed {command_for(prop.decision, self.enc, self.ruleset)}; the next best:")
        else:
            self.command(s)

    # ---- PC turns ------------------------------------------------------------------------------------
    def _gm_turn_input(self) -> None:
        actor = self.enc.actor
        line = self.ask(f"{actor.name} [{Economy.describe(self.enc.budget)}]> ")
        if not line.strip():
            examples = {}  # legal decisions in this ruleset's words: one on a unit, one to a square, if any
            for want in ("target", "square"):
                d = next((d for d in self.battle.legal() if getattr(d, want) is not None), None)
                if d is not None:
                    examples[d.action] = command_for(d, self.enc, self.ruleset)
            shown = ", ".join(f"`{c}`" for c in [*examples.values(), "end"])
            self.say(f"Type a decision for {actor.name} (e.g. {shown}), ? for what is legal now, help for every "
                     "command.")
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
        what = command_for(d, self.enc, self.ruleset) if self.enc.actor is not None else ""
        try:
            return super().apply(d)
        except IllegalAction:
            raise
        except (InputError, Quit, DiceStopped, KeyboardInterrupt) as e:
            # at a dice prompt the GM typed undo or quit, pressed Ctrl-C, or gave no valid roll: it never happened
            if isinstance(e, KeyboardInterrupt):
                raise Interrupted() from None
            if isinstance(e, Quit):
                raise
            if isinstance(e, DiceStopped) and e.word != "undo":
                raise Quit() from None
            self.say(f"Taken back: {what} (nothing of it happened)." if isinstance(e, DiceStopped)
                     else f"{e}; the decision was taken back.")
            return []

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

    _COMMANDS = {**SessionCore._COMMANDS, "?": cmd_legal, "legal": cmd_legal, "help": cmd_help, "h": cmd_help,
                 "map": cmd_map, "status": cmd_status, "quit": cmd_quit, "exit": cmd_quit}

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
