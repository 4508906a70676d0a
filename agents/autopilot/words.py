"""Short words for decisions, both ways: what a GM types (`move 5 7`, `attack "Trooper 1"`, `aim`,
`charge Kira`, `end`) -> a Decision, and a Decision -> the words that would type it.

Any catalogue key or action name works (`ranged_attack`, `ranged attack`), then the ruleset's table words (its
`words.yaml`: `Ruleset.words()`, e.g. Saga's `shoot`, `defend`, `cdg`), then the words every ruleset shares: `end`,
`pass`, `done` end the turn, `go` and `walk` move, and `attack` means what the ruleset's words say (else the first
legal of its actions on an enemy).
"""
from __future__ import annotations

import re
import shlex

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.errors import IllegalAction, InputError
from engine.core.ruleset import Ruleset, table_phrase as _norm
from engine.core.state import Encounter

# the words of every ruleset: word -> catalogue keys it may mean (keys a ruleset lacks are ignored)
CORE_WORDS: dict[str, tuple[str, ...]] = {"end": (END.action,), "pass": (END.action,), "done": (END.action,),
                                          "end turn": (END.action,), "go": ("move",), "walk": ("move",)}
CORE_SHORT = {END.action: "end"}  # catalogue key -> the short word `?` shows for it
_NUM = re.compile(r"-?\d+")


def attack_keys(ruleset: Ruleset) -> tuple[str, ...]:
    """What `attack NAME` means: the ruleset's word 'attack', else its action 'attack', else its actions on an
    enemy, in catalogue order (the first legal one wins)."""
    cat = ruleset.catalogue
    own = ruleset.words().aliases.get("attack")
    if own:
        return own
    if "attack" in cat:
        return ("attack",)
    return tuple(k for k, spec in cat.items() if spec.target == "enemy")


def short_word(ruleset: Ruleset, action: str) -> str:
    """The word the autopilot shows for an action: the ruleset's short word, else its key."""
    return ruleset.words().short.get(action) or CORE_SHORT.get(action, action)


def action_table(ruleset: Ruleset) -> dict[str, tuple[str, ...]]:
    """Every phrase a GM may use for an action -> the catalogue keys it means."""
    cat = ruleset.catalogue
    table: dict[str, tuple[str, ...]] = {}
    for key, spec in cat.items():
        table.setdefault(_norm(key), (key,))
        table.setdefault(_norm(spec.name), (key,))
    shared = {**CORE_WORDS, "attack": attack_keys(ruleset)}
    for words in (ruleset.words().aliases, shared):
        for word, keys in words.items():
            ks = tuple(k for k in keys if k in cat or k == END.action)
            if ks and _norm(word) not in table:
                table[_norm(word)] = ks
    return table


def decision_help(ruleset: Ruleset) -> list[str]:
    """The decision lines of the autopilot's help: the ruleset's (its words' `help`), else built from its actions."""
    own = ruleset.words().help
    if own:
        return list(own)
    cat = ruleset.catalogue
    parts = (["move X Y"] if "move" in cat else []) + (["attack NAME"] if attack_keys(ruleset) else []) + ["end"]
    return [" | ".join(parts) + "     -- or any action of `tactician rules`, by its key or name"]


def correction_help(ruleset: Ruleset) -> list[str]:
    """One line per number of a unit's play state the ruleset's words say `set NAME KEY N` corrects."""
    return [f"{key}: {text}" for key, text in ruleset.words().corrections.items()]


def tokens(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # an unmatched quote: read it as plain words
        return text.replace('"', " ").replace("'", " ").split()


def find_unit(enc: Encounter, text: str, markers: dict[int, str] | None = None):
    """A unit by name (any case), by unique name prefix, by map marker or by id (#3)."""
    t = _norm(text)
    if not t:
        return None
    for u in enc.units:
        if _norm(u.name) == t:
            return u
    if markers:
        for uid, m in markers.items():
            if m == text.strip():
                return enc.units[uid]
    if t.startswith("#") and t[1:].isdigit() and int(t[1:]) < len(enc.units):
        return enc.units[int(t[1:])]
    hits = [u for u in enc.units if _norm(u.name).startswith(t)]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        active = [u for u in hits if u.active]
        if len(active) == 1:
            return active[0]
        raise InputError(f"'{text}' could mean {', '.join(u.name for u in hits)}", "", "type the whole name")
    return None


def split_action(words: list[str], ruleset: Ruleset) -> tuple[tuple[str, ...], list[str]]:
    """The longest leading phrase that names an action -> (candidate keys, remaining words)."""
    table = action_table(ruleset)
    for n in range(min(4, len(words)), 0, -1):
        phrase = _norm(" ".join(words[:n]))
        if phrase in table:
            return table[phrase], words[n:]
    return (), words


def _square(rest: list[str]) -> tuple[int, int] | None:
    nums = _NUM.findall(" ".join(rest))
    if len(nums) == 2:
        return int(nums[0]), int(nums[1])
    return None


def parse_decision(text: str, battle: Battle, markers: dict[int, str] | None = None) -> Decision:
    """The decision a GM typed for the acting unit. Raises InputError (what to type instead) for words
    that are not a decision, IllegalAction (the rule's reason) for a decision the rules refuse now."""
    enc, rs = battle.enc, battle.ruleset
    words = tokens(text)
    if not words:
        raise InputError("nothing typed", "", "type a decision such as `move 5 7`, or ? for the legal ones")
    if len(words) == 2 and all(_NUM.fullmatch(w) for w in words) and "move" in rs.catalogue:
        keys, rest = ("move",), words
    else:
        keys, rest = split_action(words, rs)
    if not keys:
        raise InputError(f"'{words[0]}' is not an action", "",
                         "type ? for what is legal now, or help for every command")
    legal = battle.legal()
    candidates: list[Decision] = []
    for key in keys:
        if key == END.action:
            return END
        spec = rs.catalogue[key]
        same = [d for d in legal if d.action == key]
        if spec.target in ("enemy", "ally", "unit"):
            option = None
            if spec.options > 1 and len(rest) > 1 and rest[0].isdigit():  # `fire 1 NAME`: this weapon on that unit
                option, rest = int(rest[0]), rest[1:]
            if rest:
                u = find_unit(enc, " ".join(rest), markers)
                if u is None:
                    raise InputError(f"no unit called '{' '.join(rest)}'", "",
                                     "units: " + ", ".join(u.name for u in enc.units))
                if spec.options > 1:  # the option named, else the first legal one on that unit
                    on = [d for d in same if d.target == u.id and (option is None or d.option == option)]
                    candidates.append(on[0] if on else Decision(key, u.id, None, option or 0))
                else:
                    candidates.append(Decision(key, u.id))
            elif len({d.target for d in same}) == 1:
                candidates.append(same[0])
            elif same:
                raise InputError(f"{spec.name} whom?", "",
                                 "one of: " + ", ".join(sorted({enc.units[d.target].name for d in same})))
            else:
                candidates.append(Decision(key, -1))
        elif spec.target == "square":
            sq = _square(rest)
            if sq is None:
                if len(same) == 1:
                    candidates.append(same[0])
                    continue
                raise InputError(f"{spec.name} where?", "", f"type the square as two numbers: {words[0]} X Y")
            candidates.append(Decision(key, square=sq))
        else:
            if rest:
                opt = _option(rest, same, battle)
                candidates.append(opt if opt is not None else Decision(key, option=-1))
            elif len(same) >= 1 and len({d.option for d in same}) > 1:
                raise InputError(f"{spec.name}: which one?", "",
                                 "one of: " + ", ".join(f"{d.option} ({rs.option_label(d, enc)})" for d in same))
            else:
                candidates.append(same[0] if same else Decision(key))
    for d in candidates:
        if battle.is_legal(d):
            return d
    d = candidates[0]
    if d.target == -1:
        d = Decision(d.action)
    raise IllegalAction(rs.why_illegal(enc, enc.actor, d) if enc.actor is not None else "nobody is acting")


def _option(rest: list[str], same: list[Decision], battle: Battle) -> Decision | None:
    text = " ".join(rest)
    if text.strip().isdigit():
        n = int(text)
        return next((d for d in same if d.option == n), None)
    t = _norm(text)
    for d in same:
        if _norm(battle.ruleset.option_label(d, battle.enc)).startswith(t):
            return d
    return None


def command_for(d: Decision, enc: Encounter, ruleset: Ruleset) -> str:
    """The short words that type decision `d`: `move 5 7`, `shoot "Trooper 1"`, `draw 1`, `end`."""
    word = short_word(ruleset, d.action)
    if d.target is not None:
        name = enc.units[d.target].name
        name = f'"{name}"' if " " in name else name
        spec = ruleset.catalogue.get(d.action)
        return f"{word} {d.option} {name}" if spec is not None and spec.options > 1 else f"{word} {name}"
    if d.square is not None:
        return f"{word} {d.square[0]} {d.square[1]}"
    spec = ruleset.catalogue.get(d.action)
    if spec is not None and (spec.options > 1 or d.option):
        return f"{word} {d.option}"
    return word


def legal_listing(battle: Battle, max_squares: int = 6) -> list[str]:
    """What is legal now, in short words, one line per action (squares summarised)."""
    enc, rs = battle.enc, battle.ruleset
    by_action: dict[str, list[Decision]] = {}
    for d in battle.legal():
        by_action.setdefault(d.action, []).append(d)
    lines = []
    for action, ds in by_action.items():
        spec = rs.catalogue.get(action)
        name = spec.name if spec else action
        cost = f" [{spec.cost}{' x' + str(spec.times) if spec and spec.times > 1 else ''}]" if spec else ""
        if ds[0].square is not None:
            word = short_word(rs, action)
            sample = ", ".join(f"{d.square[0]} {d.square[1]}" for d in ds[:max_squares])
            more = f", ... ({len(ds)} squares)" if len(ds) > max_squares else ""
            lines.append(f"{word} X Y{cost}: {name} to one of {sample}{more}")
        else:
            cmds = ", ".join(command_for(d, enc, rs) for d in ds)
            lines.append(f"{cmds}{cost}: {name}" + (f" ({', '.join(rs.option_label(d, enc) for d in ds)})"
                                                    if spec and spec.options > 1 else ""))
    attacks = [k for k in attack_keys(rs) if k in rs.catalogue]
    if len(attacks) > 1 and any(a in by_action for a in attacks):
        names = [rs.catalogue[k].name.lower() for k in attacks]
        lines.append(f"attack NAME: {' or '.join(names)}, whichever is legal ({names[0]} first)")
    return lines
