"""The autopilot's table words come from the ruleset: Saga's from its words.yaml (every word the autopilot read before
the words left the core), the toys' from their catalogues and the words every ruleset shares; a bad words file is
refused naming the key."""
from __future__ import annotations

import random

import pytest

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import SeededDice
from engine.core.errors import InputError
from engine.core.ruleset import TableWords, load_words
from engine.rulesets import get_ruleset

from agents.autopilot.session import help_text
from agents.autopilot.words import command_for, legal_listing, parse_decision, split_action, tokens
from tests.toys.common import build
from tests.toys.toy_fifth import RULESET as FIFTH
from tests.toys.toy_rise import RULESET as RISE
from tests.toys.toy_rise import ToyRise
from tests.toys.toy_starship import RULESET as SHIP

RS = get_ruleset("saga")

# every table word of the autopilot before Saga's moved to engine/rulesets/saga/words.yaml -> what it meant for Saga
SAGA_WORDS = {
    "attack": ("melee_attack", "ranged_attack"), "melee": ("melee_attack",), "hit": ("melee_attack",),
    "strike": ("melee_attack",), "shoot": ("ranged_attack",), "fire": ("ranged_attack",),
    "ranged": ("ranged_attack",), "end": ("end_turn",), "pass": ("end_turn",), "done": ("end_turn",),
    "end turn": ("end_turn",), "full": ("full_attack",), "full attack": ("full_attack",),
    "defend": ("fight_defensively",), "defensive": ("fight_defensively",), "total defense": ("total_defense",),
    "total defence": ("total_defense",), "prone": ("fall_prone",), "drop prone": ("fall_prone",),
    "stand": ("stand_up", "stand_up_acrobatics"), "wind": ("second_wind",), "cdg": ("coup_de_grace",),
    "aid": ("aid_attack",), "open": ("manipulate",), "close": ("manipulate",), "pick up": ("manipulate",),
    "go": ("move",), "walk": ("move",), "drop": ("drop_item",), "mode": ("switch_mode",),
    "activate": ("activate_item",), "break": ("break_grab",), "break grab": ("break_grab",),
    "ranged_attack": ("ranged_attack",), "Coup de grace": ("coup_de_grace",), "second-wind": ("second_wind",),
}
SAGA_SHORT = {"melee_attack": "melee", "ranged_attack": "shoot", "end_turn": "end", "full_attack": "full",
              "fight_defensively": "defend", "fall_prone": "prone", "stand_up": "stand", "coup_de_grace": "cdg",
              "aim": "aim", "second_wind": "second_wind"}


@pytest.mark.parametrize("word", sorted(SAGA_WORDS))
def test_saga_words_mean_what_they_did(word):
    keys, rest = split_action(tokens(word) + ["Kira"], RS)
    assert keys == SAGA_WORDS[word] and rest == ["Kira"]


def test_saga_short_words_and_listing(yard):
    b = Battle(yard, RS, SeededDice(0))
    b.start({0: 20, 1: 10, 2: 5, 3: 1})
    for key, word in SAGA_SHORT.items():
        assert command_for(Decision(key), yard, RS) == word
    assert command_for(Decision("ranged_attack", 2), yard, RS) == 'shoot "Trooper 1"'
    listing = legal_listing(b)
    assert 'shoot "Trooper 1" [standard]: Ranged attack' in listing
    assert "defend [standard]: Fight defensively" in listing
    assert "attack NAME: melee attack or ranged attack, whichever is legal (melee attack first)" in listing
    assert parse_decision('attack "Trooper 1"', b) == Decision("ranged_attack", 2)  # no melee in reach: ranged


def _walk_states(b: Battle, seed: int, steps: int):
    rng = random.Random(seed)
    for _ in range(steps):
        if b.over:
            return
        yield
        legal = b.legal()
        d = rng.choice(legal)
        if d == END and len(legal) > 1 and rng.random() < 0.7:
            d = rng.choice(legal)
        b.step(d)


ROWS = ["##########", "#........#", "#...c....#", "#........#", "##########"]
TOYS = {"toy_5e": (FIFTH, "fighter", "goblin", "attack"), "toy_rise": (RISE, "warrior", "archer", "strike"),
        "toy_starship": (SHIP, "fighter", "corvette", "fire")}


def _toy_battle(rs, a, b):
    enc = build(rs, ROWS, [{"name": "Ash", "side": "pcs", "template": a, "at": [1, 1]},
                           {"name": "Bo", "side": "pcs", "template": a, "at": [1, 3]},
                           {"name": "Orc", "side": "npcs", "template": b, "at": [8, 2]}])
    battle = Battle(enc, rs, SeededDice(3))
    battle.start({0: 20, 1: 10, 2: 1})
    return battle


@pytest.mark.parametrize("rid", ["saga", *TOYS])
def test_every_legal_decision_is_typed_back_by_its_command(rid, yard):
    """command_for's words parse back to the same decision, in states along random play."""
    if rid == "saga":
        rs, b = RS, Battle(yard, RS, SeededDice(1))
        b.start({0: 20, 1: 10, 2: 5, 3: 1})
    else:
        rs, a, e, _ = TOYS[rid]
        b = _toy_battle(rs, a, e)
    seen = set()
    for _ in _walk_states(b, 7, 60):
        for d in b.legal():
            assert parse_decision(command_for(d, b.enc, rs), b) == d
            seen.add(d.action)
    assert len(seen) >= 3


def _next_to_orc(b: Battle, attack: str) -> None:
    """The orc steps next to Ash (in reach of every toy's strike); turns end until Ash may attack it."""
    b.enc.units[2].pos = (2, 1)
    b.enc.version += 1
    for _ in range(8):
        if b.enc.actor.name == "Ash" and Decision(attack, 2) in b.legal():
            return
        b.step(END)
    raise AssertionError("Ash never got to attack")


@pytest.mark.parametrize("rid", sorted(TOYS))
def test_commands_typed_on_a_toy_ruleset(rid):
    """The shared words (end, pass, done, go, walk, attack) and the toy's own keys and names work on a ruleset
    without a words file; `attack` means its actions on an enemy; help and `?` speak none of Saga's words."""
    rs, a, e, attack = TOYS[rid]
    b = _toy_battle(rs, a, e)
    for word in ("end", "pass", "done", "end turn"):
        assert parse_decision(word, b) == END
    moves = [d for d in b.legal() if d.action == "move"]
    x, y = moves[0].square
    for text in (f"move {x} {y}", f"go {x} {y}", f"walk {x} {y}", f"{x} {y}", f"Move {x},{y}"):
        assert parse_decision(text, b) == moves[0]
    _next_to_orc(b, attack)
    assert parse_decision("attack Orc", b).action == attack and parse_decision("attack orc", b).target == 2
    assert parse_decision(f"{attack} Orc", b) == Decision(attack, 2)
    assert parse_decision(rs.catalogue[attack].name + " Orc", b) == Decision(attack, 2)
    with pytest.raises(InputError, match="'wind' is not an action"):
        parse_decision("wind", b)
    text = help_text(rs) + "\n".join(legal_listing(b))
    for saga in ("shoot NAME", "condition track", " ct", "second wind", "cdg", "defend", "melee NAME", "Reflex"):
        assert saga not in text
    assert "move X Y | attack NAME | end" in help_text(rs)


def test_saga_help_comes_from_its_words():
    text = help_text(RS)
    assert "move X Y | shoot NAME | melee NAME | attack NAME (melee or ranged, whichever is legal)" in text
    assert "ct: the condition track step" in text and "{" not in text
    assert RS.words().corrections["ct"].startswith("the condition track")


class _RiseWithWords(ToyRise):
    """Toy Rise with a words file of its own (set by the test)."""


def test_a_toy_ruleset_with_a_words_file(tmp_path):
    path = tmp_path / "words.yaml"
    path.write_text("aliases:\n  hit: [strike]\n  attack: [shoot, strike]\nshort:\n  strike: hit\n"
                    "corrections:\n  focus: focus points left\nhelp: ['hit NAME | shoot NAME | end']\n")
    rs = _RiseWithWords()
    rs.words_file = path
    assert rs.words() == TableWords({"hit": ("strike",), "attack": ("shoot", "strike")}, {"strike": "hit"},
                                    {"focus": "focus points left"}, ("hit NAME | shoot NAME | end",))
    b = _toy_battle(rs, "archer", "warrior")
    _next_to_orc(b, "strike")
    assert parse_decision("hit Orc", b) == Decision("strike", 2)
    assert parse_decision("attack Orc", b) == Decision("shoot", 2)  # the words' order: shoot first
    assert command_for(Decision("strike", 2), b.enc, rs) == "hit Orc"
    text = help_text(rs)
    assert "  hit NAME | shoot NAME | end\n" in text and "focus: focus points left" in text


BAD_WORDS = [
    ("[1, 2]\n", "words.yaml", "must be a mapping"),
    ("aliases: {}\nshortcuts: {}\n", "words.yaml", "unknown key 'shortcuts'"),
    ("aliases: [shoot]\n", "words.yaml", "'aliases' must be a mapping"),
    ("aliases:\n  shoot: [ranged_atack]\n", "words.yaml aliases.shoot", "'ranged_atack' is not an action"),
    ("aliases:\n  shoot: []\n", "words.yaml aliases.shoot", "names the list of actions"),
    ("aliases:\n  shoot: ranged_attack\n  Shoot: [melee_attack]\n", "words.yaml aliases.Shoot", "given twice"),
    ("short:\n  flail: melee\n", "words.yaml short.flail", "'flail' is not an action"),
    ("short:\n  aim: shoot\n", "words.yaml short.aim", "'shoot' would not type aim"),
    ("aliases:\n  shoot: [ranged_attack]\nshort:\n  aim: shoot\n", "words.yaml short.aim",
     "would not type aim but ranged_attack"),
    ("short:\n  aim: ''\n", "words.yaml short.aim", "is not a word"),
    ("corrections:\n  ct: 3\n", "words.yaml corrections.ct", "3 is not a word"),
    ("help: move X Y\n", "words.yaml", "'help' must be a list"),
    ("help: [ok, 7]\n", "words.yaml help[1]", "7 is not a word"),
    ("aliases:\n  shoot: [ranged_attack\n", "words.yaml line", "not valid YAML"),
]


@pytest.mark.parametrize("text,where,what", BAD_WORDS, ids=[w[2] for w in BAD_WORDS])
def test_a_bad_words_file_is_refused_naming_the_key(tmp_path, text, where, what):
    path = tmp_path / "words.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_words(path, RS.catalogue)
    assert err.value.where.startswith(where) and what in err.value.what and err.value.fix


def test_saga_words_file_is_valid_and_read_once():
    assert load_words(RS.words_file, RS.catalogue) == RS.words()
    assert RS.words() is RS.words()
    assert FIFTH.words() == TableWords() and FIFTH.words_file is None


def test_a_rulesets_words_are_kept_by_it_after_the_first_call(monkeypatch, tmp_path):
    import engine.core.ruleset as core_ruleset
    rs = get_ruleset("saga").__class__()  # a fresh instance: nothing kept yet
    first = rs.words()
    read = []
    monkeypatch.setattr(core_ruleset, "_words", lambda *a: read.append(a) or TableWords())
    assert rs.words() is first and read == []  # neither read again nor the catalogue hashed again
    bad = tmp_path / "words.yaml"
    bad.write_text("shorts: {}\n")
    monkeypatch.undo()
    rs.words_file = bad  # another file: read (and refused) every time it is asked
    for _ in range(2):
        with pytest.raises(InputError, match="unknown key 'shorts'"):
            rs.words()
