"""What a ruleset provides to the core: its catalogue, economy, turn structure, legality and resolution.

A ruleset is the OpenSpiel "Game": pure rules, no RL code. The core's turn loop (`battle.Battle`) asks it
what is legal, applies decisions through it, and never knows a rule itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import yaml

from .decision import END, Decision
from .economy import Economy
from .errors import InputError
from .events import Event
from .reaction import DECLINE, React, Trigger

if TYPE_CHECKING:
    from .dice import Dice
    from .state import Encounter
    from .tactics import Tactics
    from .units import Unit

TARGET_KINDS = ("none", "enemy", "ally", "unit", "square", "intersection")

_SPEC_KEYS = {"key", "name", "cost", "target", "options", "text", "source", "times"}


@dataclass(frozen=True)
class ActionSpec:
    """One entry of a ruleset's action catalogue (data; its resolver lives in the ruleset's code).

    `cost` is a counter of the ruleset's economy ('standard', 'move', 'swift', 'full_round', 'free', ...),
    paid `times` times; `target` is what the decision names: 'none', a unit ('enemy', 'ally', 'unit': its
    `target` id), a 'square' (its `square` (x, y)) or an 'intersection' of grid lines (its `square` (x, y) names
    the top-left corner of square (x, y): x in 0..width, y in 0..height); `options` how many variants the action
    has, in the decision's `option` (which weapon to draw with 'none'; with a target, "this weapon / spell /
    maneuver on that target": the codec gives every option its own target slots, envs/codec.py); `text` the rules
    text it implements and `source` where that text is.
    """

    key: str
    name: str
    cost: str
    target: str = "none"
    options: int = 1
    times: int = 1
    text: str = ""
    source: str = ""

    @staticmethod
    def from_dict(d: dict, where: str) -> "ActionSpec":
        unknown = set(d) - _SPEC_KEYS
        if unknown:
            raise InputError(f"unknown key(s) {sorted(unknown)}", where, f"allowed keys: {sorted(_SPEC_KEYS)}")
        missing = {"key", "name", "cost"} - set(d)
        if missing:
            raise InputError(f"missing key(s) {sorted(missing)}", where, "every action needs key, name and cost")
        if d.get("target", "none") not in TARGET_KINDS:
            raise InputError(f"target '{d['target']}' is not one of {TARGET_KINDS}", where)
        return ActionSpec(**d)


def load_catalogue(path: Path) -> dict[str, ActionSpec]:
    """Read an `actions.yaml` (a list of action entries, strict keys) into an ordered catalogue."""
    raw = yaml.safe_load(path.read_text())
    out: dict[str, ActionSpec] = {}
    for n, d in enumerate(raw):
        spec = ActionSpec.from_dict(d, f"{path.name} entry {n + 1}")
        if spec.key in out:
            raise InputError(f"action '{spec.key}' defined twice", f"{path.name} entry {n + 1}")
        out[spec.key] = spec
    return out


def load_catalogues(path: Path) -> tuple[dict[str, ActionSpec], dict[str, ActionSpec]]:
    """(turn actions, reactions) of an `actions.yaml` whose entries costing `reaction` are reactions (taken on another
    unit's turn, never part of the turn's catalogue); strict keys, each key once."""
    raw = yaml.safe_load(path.read_text())
    turn: dict[str, ActionSpec] = {}
    reactions: dict[str, ActionSpec] = {}
    for n, d in enumerate(raw):
        spec = ActionSpec.from_dict(d, f"{path.name} entry {n + 1}")
        if spec.key in turn or spec.key in reactions:
            raise InputError(f"action '{spec.key}' defined twice", f"{path.name} entry {n + 1}")
        (reactions if spec.cost == "reaction" else turn)[spec.key] = spec
    return turn, reactions


def table_phrase(text: str) -> str:
    """A phrase as the table compares it: lower case, '_' and '-' read as spaces, single spaces."""
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


_WORDS_KEYS = ("aliases", "short", "corrections", "help")


@dataclass(frozen=True)
class TableWords:
    """A ruleset's words at the table (its `words.yaml`, read by `load_words`; read-only): what a GM may type for its
    actions besides their keys and names, and the numbers of its play state a GM may correct.

    `aliases`: a phrase (`table_phrase`) -> the catalogue keys it may mean, the first legal one wins ('attack' says
    what `attack NAME` means); `short`: a catalogue key -> the word the autopilot shows for it; `corrections`: a
    play-state key of `set NAME KEY N` -> what it is; `help`: the decision lines of the autopilot's help.
    """

    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    short: dict[str, str] = field(default_factory=dict)
    corrections: dict[str, str] = field(default_factory=dict)
    help: tuple[str, ...] = ()


def load_words(path: Path, catalogue: dict[str, ActionSpec]) -> TableWords:
    """Read a ruleset's `words.yaml` (keys: aliases, short, corrections, help; the actions it names checked against
    the catalogue, each short word checked to type its action). InputError naming the key and the fix."""
    where = path.name
    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as e:
        raise InputError(f"cannot be read ({e.strerror})", str(path), "give the ruleset a readable words.yaml")
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise InputError(f"not valid YAML: {getattr(e, 'problem', None) or e}",
                         f"{where} line {mark.line + 1}" if mark else where, "check the colons and quotes there")
    raw = {} if raw is None else raw
    if not isinstance(raw, dict):
        raise InputError("must be a mapping", where, f"keys: {', '.join(_WORDS_KEYS)}")
    unknown = sorted(map(str, set(raw) - set(_WORDS_KEYS)))
    if unknown:
        raise InputError(f"unknown key '{unknown[0]}'", where, f"allowed keys: {', '.join(_WORDS_KEYS)}")

    def mapping(key: str, example: str) -> dict:
        m = raw.get(key) or {}
        if not isinstance(m, dict):
            raise InputError(f"'{key}' must be a mapping", where, f"e.g. {key}: {{{example}}}")
        return m

    def word(w: Any, at: str) -> str:
        if not isinstance(w, str) or not table_phrase(w):
            raise InputError(f"{w!r} is not a word", at, "give a word in quotes")
        return w

    def action(k: Any, at: str) -> str:
        if not isinstance(k, str) or k not in catalogue:
            raise InputError(f"'{k}' is not an action", at, f"actions: {', '.join(catalogue)}")
        return k

    aliases: dict[str, tuple[str, ...]] = {}
    for w, keys in mapping("aliases", "shoot: [ranged_attack]").items():
        at = f"{where} aliases.{w}"
        phrase = table_phrase(word(w, at))
        keys = [keys] if isinstance(keys, str) else keys
        if not isinstance(keys, list) or not keys:
            raise InputError("an alias names the list of actions it may mean", at,
                             f"e.g. {w}: [{next(iter(catalogue))}]")
        if phrase in aliases:
            raise InputError(f"'{w}' is given twice", at, "keep one")
        aliases[phrase] = tuple(action(k, at) for k in keys)
    named = {table_phrase(k): k for k in catalogue} | {table_phrase(a.name): k for k, a in catalogue.items()}
    short: dict[str, str] = {}
    for k, w in mapping("short", "ranged_attack: shoot").items():
        at = f"{where} short.{k}"
        action(k, at)
        phrase = table_phrase(word(w, at))
        means = (named[phrase],) if phrase in named else aliases.get(phrase, ())
        if not means or means[0] != k:
            raise InputError(f"'{w}' would not type {k}" + (f" but {means[0]}" if means else ""), at,
                             f"pick another word, or make it an alias: {w}: [{k}]")
        short[k] = w
    corrections = {}
    for k, text in mapping("corrections", "ct: the condition track step").items():
        at = f"{where} corrections.{k}"
        corrections[word(k, at)] = word(text, at)
    lines = raw.get("help") or []
    if not isinstance(lines, list):
        raise InputError("'help' must be a list of lines", where, 'e.g. help: ["move X Y | attack NAME | end"]')
    return TableWords(aliases, short, corrections, tuple(word(x, f"{where} help[{n}]") for n, x in enumerate(lines)))


@lru_cache(maxsize=None)
def _words(path: Path, catalogue: tuple[tuple[str, ActionSpec], ...]) -> TableWords:
    return load_words(path, dict(catalogue))


class Cost(NamedTuple):
    """What one decision spends: `times` payments of `amount` of the economy cost `cost` (`Economy.can_pay`)."""

    cost: str
    amount: int = 1
    times: int = 1


@dataclass
class Estimate:
    """What a decision is likely to do, without rolling."""

    hit_chance: float = 0.0
    expected_damage: float = 0.0
    kill_chance: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"hit_chance": round(self.hit_chance, 3), "expected_damage": round(self.expected_damage, 2),
                "kill_chance": round(self.kill_chance, 3), "notes": list(self.notes)}


class Ruleset:
    """Base class. Subclasses set the class attributes and implement the methods marked abstract."""

    id: str = ""
    name: str = ""
    rules_file: str = ""
    env_name: str = ""          # Gymnasium id stem: tactician/<env_name>-v<N>
    economy: Economy
    catalogue: dict[str, ActionSpec]
    metric: str = "alternating"
    sides: tuple[str, ...] = ("pcs", "npcs")
    # Turn structure: phases of a round, in order. Every active unit takes a (phase) turn in initiative
    # order; in a phase listed in `simultaneous`, decisions are committed hidden and resolve together.
    phases: tuple[str, ...] = ("turn",)
    simultaneous: frozenset[str] = frozenset()
    # Whether a unit can open a closed door ('+'). Where none can, a closed door is a wall for good, and the encounter
    # generator draws its doors open: a map split by a closed door would be a fight neither side can win.
    opens_doors: bool = False

    # ---- units ------------------------------------------------------------------------------------
    def templates(self) -> dict[str, dict]:
        """Stat-block library (`units.yaml` of the ruleset folder)."""
        return {}

    def make_unit(self, uid: int, spec: dict, where: str) -> "Unit":  # abstract
        """Build a unit from an encounter entry (template + overrides); InputError naming the field."""
        raise NotImplementedError

    def check_unit(self, unit: "Unit", where: str) -> None:
        """Raise InputError, naming the field and the fix, when a unit's stats or play state (as read from a saved
        state or set by a GM's correction) cannot be played by this ruleset's rules. Nothing to check by default."""

    def initiative_bonus(self, unit: "Unit") -> int:
        return 0

    def start_wounded(self, unit: "Unit", hp: int) -> None:
        """Begin the battle with `hp` hit points (a wounded start of a generated encounter). Override where part of
        `hp` is a buffer the ruleset tracks in the play state (a starship's shields, Rise's damage resistance): the
        damage already taken comes off it first."""
        unit.hp = hp

    # ---- turns ----------------------------------------------------------------------------------------
    def new_budget(self, enc: "Encounter", unit: "Unit") -> dict[str, int]:
        return self.economy.new_budget()

    def start_round(self, enc: "Encounter", dice: "Dice") -> list[Event]:
        return []

    def start_turn(self, enc: "Encounter", unit: "Unit", dice: "Dice") -> list[Event]:
        return []

    def end_turn(self, enc: "Encounter", unit: "Unit", dice: "Dice") -> list[Event]:
        return []

    def can_act(self, enc: "Encounter", unit: "Unit") -> bool:
        """Whether the unit takes turns (active and not helpless)."""
        return unit.active

    # ---- decisions --------------------------------------------------------------------------------------
    def legal_actions(self, enc: "Encounter", actor: "Unit") -> list[Decision]:  # abstract
        """Every decision the rules allow the actor now; always includes END."""
        raise NotImplementedError

    def why_illegal(self, enc: "Encounter", actor: "Unit", decision: Decision) -> str:
        """A GM-readable reason a decision outside `legal_actions` is refused."""
        spec = self.catalogue.get(decision.action)
        if spec is None:
            return f"'{decision.action}' is not an action of {self.name}"
        return self.action_reason(enc, actor, decision)

    def action_reason(self, enc: "Encounter", actor: "Unit", decision: Decision) -> str:
        """The reason of the decision's own action, once the checks every action shares have passed: the ruleset's
        `_why_<action>(enc, actor, decision)` method if it has one and it names a reason (a string; None: it does not
        know), else the catch-all "X is not possible for Y right now"."""
        why = getattr(self, f"_why_{decision.action}", None)
        got = why(enc, actor, decision) if why is not None else None
        return got or f"{self.catalogue[decision.action].name} is not possible for {actor.name} right now"

    @staticmethod
    def target_of(enc: "Encounter", decision: Decision) -> "Unit | None":
        """The unit a decision names, or None (no target, or a number that is no unit's)."""
        t = decision.target
        return enc.units[t] if t is not None and 0 <= t < len(enc.units) else None

    def apply(self, enc: "Encounter", actor: "Unit", decision: Decision, dice: "Dice",
              react: React | None = None) -> list[Event]:  # abstract
        """Resolve a legal decision in place; returns what happened."""
        raise NotImplementedError

    def commit(self, enc: "Encounter", actor: "Unit", decision: Decision) -> list[Event]:
        """Record a decision of a simultaneous phase unresolved: pay its cost now (so the budget and the
        legal set shrink as in a normal turn) and keep it in `enc.pending` until the phase resolves.
        The event names no action, so other sides learn only that the actor has committed."""
        spec = self.catalogue[decision.action]
        self.economy.pay(enc.budget, spec.cost, times=spec.times)
        enc.pending.setdefault(actor.id, []).append(decision)
        return [Event("committed", actor.id)]

    def resolve_simultaneous(self, enc: "Encounter", phase: str, pending: dict[int, list[Decision]],
                             dice: "Dice", react: React | None = None) -> list[Event]:
        """Resolve a simultaneous phase's committed decisions together (phased rulesets only).

        Default: each unit's decisions are applied in commit order, as on its own turn (fresh budget and
        turn flags), and every committed decision lands, even one whose maker was downed earlier in the
        same resolution: choices were made at the same moment. Override for finer simultaneity.
        """
        events: list[Event] = []
        budget, flags = enc.budget, enc.flags
        try:
            for uid, decisions in pending.items():
                unit = enc.units[uid]
                enc.budget, enc.flags = self.new_budget(enc, unit), {}
                for d in decisions:
                    events += self.apply(enc, unit, d, dice, react)
        finally:
            enc.budget, enc.flags = budget, flags
        return events

    def foresee(self, enc: "Encounter", unit: "Unit", decision: Decision) -> bool:
        """Apply to enc (a copy: a tactician's guess, no dice) what of the unit's decision in the current simultaneous
        phase takes effect before the phase's other choices land (Rise's Swift abilities); True if anything did (enc
        is changed only then). Default: nothing does."""
        return False

    # ---- reactions (out-of-turn decisions; see engine/core/reaction.py) -------------------------------------
    def legal_reactions(self, enc: "Encounter", unit: "Unit", trigger: Trigger) -> list[Decision]:
        """The reactions the rules allow `unit` now in answer to `trigger`, the usual choice first and `DECLINE`
        last; [] when it has none (no reaction left, cannot see the provoker, ...). Resolvers ask through
        `reaction.ask_reaction`, which refuses a choice outside this list."""
        return []

    def describe_reaction(self, decision: Decision, enc: "Encounter") -> str:
        """Short words for a reaction: 'attack of opportunity on Kira', 'no reaction'."""
        if decision == DECLINE:
            return "no reaction"
        name = decision.action.replace("_", " ")
        return f"{name} on {enc.units[decision.target].name}" if decision.target is not None else name

    def estimate(self, enc: "Encounter", actor: "Unit", decision: Decision) -> Estimate:
        return Estimate()

    # ---- what the heuristic policy asks (engine/policies/heuristic.py, engine/core/tactics.py) ------------------
    def effective_cost(self, enc: "Encounter", unit: "Unit", decision: Decision) -> Cost:
        """What the decision costs the unit now. Default: its catalogue entry's `cost`, paid `times` times, amount 1.
        Override where a feat changes a cost (Saga's Quick Draw: drawing a weapon is a swift action) or the amount
        depends on the decision (movement paid in feet)."""
        spec = self.catalogue[decision.action]
        return Cost(spec.cost, 1, spec.times)

    def budget_after(self, enc: "Encounter", unit: "Unit", decision: Decision) -> dict[str, int]:
        """What the unit will have to spend on its next decisions of this round once it takes the decision (the
        heuristic asks whether an attack or a move is still possible after it). Default: ending the turn leaves
        nothing; any other decision leaves `enc.budget` less its `effective_cost`. Override where a decision ends the
        unit's actions whatever it has left (a Saga charge) or a later phase of the round gives the unit a new budget
        (Rise: the action phase after the movement phase)."""
        if decision == END:
            return {}
        left = dict(enc.budget)
        cost = self.effective_cost(enc, unit, decision)
        if self.economy.can_pay(left, *cost):
            self.economy.pay(left, *cost)
        return left

    def tactics(self) -> "Tactics":
        """A new tactics object for the heuristic policy (`engine.core.tactics.Tactics`); the heuristic makes one per
        ruleset and keeps it, caches and all, for every battle. Default: `DefaultTactics`, built on this interface
        alone (legal decisions, `estimate`, `threat_estimate`, the grid and the economy); a ruleset with tactical
        knowledge of its own returns its subclass of `Tactics`."""
        from .tactics import DefaultTactics
        return DefaultTactics(self)

    # ---- narration (engine/core/narration.py) ----------------------------------------------------------
    attack_defense: str = "defense"  # what narration calls the defense an attack roll is against ('Reflex', 'AC')

    def narrate(self, event: Event, enc: "Encounter") -> str | None:
        """Rules-language sentence for an event, or None to use the core's generic narration."""
        return None

    def attack_words(self, event: Event, enc: "Encounter") -> tuple[str, str] | None:
        """(verb, defense name) of an attack event's sentence, '<attacker> <verb> <target>: 17 (11+6) vs <defense>
        15, hit': e.g. ('fires their blaster rifle at', 'Reflex'). None: 'attacks' and `attack_defense`."""
        return None

    def pronoun(self, unit: "Unit") -> str:
        """The possessive narration uses for the unit ('their', 'its', 'her'): the stat block's `pronoun` when it
        has one, else 'their'."""
        p = unit.stats.get("pronoun") if isinstance(unit.stats, dict) else None
        return p if isinstance(p, str) and p else "their"

    def describe(self, decision: Decision, enc: "Encounter") -> str:
        """Short words for a decision: 'melee attack on Trooper 1', 'move to (5, 7)', 'shoot (option 1) on Trooper 1',
        'throw a grenade at the corner (4, 2)' (an intersection: the top-left corner of that square)."""
        if decision == END:
            return "end turn"
        spec = self.catalogue.get(decision.action)
        name = spec.name if spec else decision.action
        if spec and spec.options > 1:
            name = f"{name} ({self.option_label(decision, enc)})"
        if decision.target is not None:
            return f"{name} on {enc.units[decision.target].name}"
        if decision.square is not None:
            if spec and spec.target == "intersection":
                return f"{name} at the corner {decision.square}"
            return f"{name} to {decision.square}"
        return name

    def option_label(self, decision: Decision, enc: "Encounter") -> str:
        return f"option {decision.option}"

    # ---- table words (agents/autopilot/words.py) ---------------------------------------------------------
    words_file: Path | None = None  # the ruleset's words.yaml (`load_words`); None: the core's table words only

    def words(self) -> TableWords:
        """The ruleset's table words: its `words_file`, read once and kept by this ruleset until its `words_file`
        or `catalogue` is replaced (a file that is wrong raises its InputError every time); none without one."""
        kept = self.__dict__.get("_table_words")
        if kept is not None and kept[0] is self.words_file and kept[1] is self.catalogue:
            return kept[2]
        words = TableWords() if self.words_file is None else _words(Path(self.words_file),
                                                                    tuple(self.catalogue.items()))
        self._table_words = (self.words_file, self.catalogue, words)
        return words

    # ---- features for learning agents (numbers only; the envs package turns them into arrays) ----------
    n_unit_features: int = 0
    # The observation's unit rows hold hp / hp_scale beside the HP fraction (how much a unit can still take), clipped
    # to [-5, 5]: set it near a sturdy unit's hit points in this ruleset. A trained model reads it, so changing it
    # means retraining. Default 20 (a d20 game's seasoned character).
    hp_scale: float = 20.0

    def unit_features(self, enc: "Encounter", unit: "Unit") -> list[float]:
        """`n_unit_features` numbers, roughly in [-1, 1], describing a unit's ruleset state."""
        return []

    def threat_estimate(self, enc: "Encounter", attacker: "Unit", target: "Unit") -> tuple[float, float]:
        """(hit chance, expected damage) of the attacker's best single attack on the target from where it
        stands now; (0, 0) if it cannot attack it."""
        return 0.0, 0.0

    def observation_parts(self, enc: "Encounter", actor: "Unit", units: list["Unit"]) -> list:
        """The ruleset's numbers of the observation's unit rows: per unit, (its `unit_features`, and for an active
        enemy of the actor (actor's hit chance, expected damage on it, its hit chance, expected damage on the actor)
        from `threat_estimate` both ways, else None). Override to work them out faster together (Saga's and
        Starfinder's share their work across the rows)."""
        side = actor.side
        return [(self.unit_features(enc, u), self.threat_estimate(enc, actor, u) + self.threat_estimate(enc, u, actor)
                 if u.side != side and u.active else None) for u in units]

    def threat_reach(self, unit: "Unit") -> int:
        """How far around it, in squares by the map's distance, the unit threatens (where leaving a square provokes
        its attack of opportunity); 0: nowhere. The observation marks those squares. Default 0 (no such plane)."""
        return 0

    def unit_summary(self, unit: "Unit") -> dict[str, Any]:
        """Numbers a GM wants on the map legend (defenses, conditions)."""
        return {}
