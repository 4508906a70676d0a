"""Short words for decisions, both ways: what a GM types (`move 5 7`, `attack "Trooper 1"`, `aim`,
`charge Kira`, `end`) -> a Decision, and a Decision -> the words that would type it.

Any catalogue key or action name works (`ranged_attack`, `ranged attack`), plus a few table words
(`attack` takes melee or ranged, whichever is legal; `shoot`, `hit`, `full`, `defend`, `stand`, ...).
"""
from __future__ import annotations

import re
import shlex

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.errors import IllegalAction, InputError
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter

# table word -> catalogue keys it may mean, in order of preference (keys a ruleset lacks are ignored)
ALIASES: dict[str, tuple[str, ...]] = {
    "attack": ("melee_attack", "ranged_attack", "attack"),
    "melee": ("melee_attack",), "hit": ("melee_attack",), "strike": ("melee_attack",),
    "shoot": ("ranged_attack",), "fire": ("ranged_attack",), "ranged": ("ranged_attack",),
    "end": ("end_turn",), "pass": ("end_turn",), "done": ("end_turn",), "end turn": ("end_turn",),
    "full": ("full_attack",), "full attack": ("full_attack",),
    "defend": ("fight_defensively",), "defensive": ("fight_defensively",),
    "total defense": ("total_defense",), "total defence": ("total_defense",),
    "prone": ("fall_prone",), "drop prone": ("fall_prone",), "stand": ("stand_up", "stand_up_acrobatics"),
    "wind": ("second_wind",), "cdg": ("coup_de_grace",), "aid": ("aid_attack",),
    "open": ("manipulate",), "close": ("manipulate",), "pick up": ("manipulate",),
    "go": ("move",), "walk": ("move",), "drop": ("drop_item",), "mode": ("switch_mode",),
    "activate": ("activate_item",), "break": ("break_grab",), "break grab": ("break_grab",),
}
# catalogue key -> the short word `?` shows for it
SHORT = {"melee_attack": "melee", "ranged_attack": "shoot", "end_turn": "end", "full_attack": "full",
         "fight_defensively": "defend", "fall_prone": "prone", "stand_up": "stand", "coup_de_grace": "cdg"}
_NUM = re.compile(r"-?\d+")


def _norm(s: str) -> str:
    return " ".join(s.lower().replace("_", " ").replace("-", " ").split())


def action_table(ruleset: Ruleset) -> dict[str, tuple[str, ...]]:
    """Every phrase a GM may use for an action -> the catalogue keys it means."""
    cat = ruleset.catalogue
    table: dict[str, tuple[str, ...]] = {}
    for key, spec in cat.items():
        table.setdefault(_norm(key), (key,))
        table.setdefault(_norm(spec.name), (key,))
    for word, keys in ALIASES.items():
        ks = tuple(k for k in keys if k in cat)
        if ks and _norm(word) not in table:
            table[_norm(word)] = ks
    if "end_turn" not in cat:
        table.setdefault("end", (END.action,))
    return table


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
            if rest:
                u = find_unit(enc, " ".join(rest), markers)
                if u is None:
                    raise InputError(f"no unit called '{' '.join(rest)}'", "",
                                     "units: " + ", ".join(u.name for u in enc.units))
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
    word = SHORT.get(d.action, d.action)
    if d.target is not None:
        name = enc.units[d.target].name
        return f'{word} "{name}"' if " " in name else f"{word} {name}"
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
            word = SHORT.get(action, action)
            sample = ", ".join(f"{d.square[0]} {d.square[1]}" for d in ds[:max_squares])
            more = f", ... ({len(ds)} squares)" if len(ds) > max_squares else ""
            lines.append(f"{word} X Y{cost}: {name} to one of {sample}{more}")
        else:
            cmds = ", ".join(command_for(d, enc, rs) for d in ds)
            lines.append(f"{cmds}{cost}: {name}" + (f" ({', '.join(rs.option_label(d, enc) for d in ds)})"
                                                    if spec and spec.options > 1 else ""))
    if any(a in by_action for a in ("melee_attack", "ranged_attack")):
        lines.append('attack NAME: melee or ranged attack, whichever is legal (melee first)')
    return lines
