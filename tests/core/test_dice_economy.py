"""engine.core.dice and engine.core.economy."""
import pytest

from engine.core.dice import AskedDice, DiceExpr, ScriptedDice, SeededDice, parse_dice
from engine.core.economy import Economy
from engine.core.errors import InputError


# ---- dice ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expr", [
    ("2d8+3", DiceExpr(2, 8, 3)),
    ("d20", DiceExpr(1, 20, 0)),
    ("1d6-1", DiceExpr(1, 6, -1)),
    (" 3 d 4 + 2 ", DiceExpr(3, 4, 2)),
    ("5", DiceExpr(0, 1, 5)),
    ("-2", DiceExpr(0, 1, -2)),
    (7, DiceExpr(0, 1, 7)),
    ("10D6", DiceExpr(10, 6, 0)),
])
def test_parse_dice_forms(text, expr):
    assert parse_dice(text) == expr


@pytest.mark.parametrize("text", ["", "abc", "d", "2d", "2d0", "0d6", "101d6", "2d8+", "2d8*2", "1.5d6", "d20+1d6"])
def test_parse_dice_errors_are_input_errors_with_a_fix(text):
    with pytest.raises(InputError) as e:
        parse_dice(text)
    assert e.value.fix


def test_dice_expr_numbers_and_text():
    e = parse_dice("2d8+3")
    assert (e.minimum, e.maximum, e.mean) == (5, 19, 12.0)
    assert str(e) == "2d8+3" and str(parse_dice("1d6-1")) == "1d6-1" and str(parse_dice("4")) == "4"
    assert e.plus(dice=1, bonus=-3) == DiceExpr(3, 8, 0)


def test_seeded_dice_are_deterministic_and_in_range():
    a, b = SeededDice(42), SeededDice(42)
    ra = [a.face(20, "x") for _ in range(200)]
    assert ra == [b.face(20, "x") for _ in range(200)]
    assert set(ra) <= set(range(1, 21)) and len(set(ra)) > 10
    assert ra != [SeededDice(43).face(20, "x") for _ in range(200)]
    total, faces = SeededDice(1).roll(parse_dice("3d6+2"))
    assert total == sum(faces) + 2 and len(faces) == 3


def test_seeded_faces_are_the_randints_of_the_same_generator():
    import random

    sides = [20, 6, 8, 1, 4, 100, 3, 12, 2, 10, 7] * 40
    d, rng = SeededDice(11), random.Random(11)
    assert [d.face(n, "x") for n in sides] == [rng.randint(1, n) for n in sides]
    assert d.getstate() == rng.getstate()
    with pytest.raises(ValueError):
        d.face(0, "x")


def test_seeded_dice_state_can_be_saved_and_restored():
    d = SeededDice(5)
    d.face(6, "x")
    st = d.getstate()
    first = [d.face(6, "x") for _ in range(10)]
    d.setstate(st)
    assert [d.face(6, "x") for _ in range(10)] == first


def test_scripted_dice_queue_running_out_and_impossible_faces():
    d = ScriptedDice([17, 3]).push(6)
    assert d.d20("hit") == 17
    assert d.roll(parse_dice("2d6+1"), "dmg") == (10, [3, 6])
    assert d.asked == [(20, "hit"), (6, "dmg"), (6, "dmg")]
    with pytest.raises(AssertionError, match="ran out"):
        d.d20("more")
    with pytest.raises(AssertionError, match="impossible"):
        ScriptedDice([7]).face(6, "d6")
    with pytest.raises(AssertionError, match="impossible"):
        ScriptedDice([0]).face(6, "d6")


def test_asked_dice_re_asks_on_impossible_values():
    answers = iter(["", "abc", "21", "0", "-3", " 14 "])
    told: list[str] = []
    prompts: list[str] = []

    def ask(p):
        prompts.append(p)
        return next(answers)

    d = AskedDice(ask, told.append)
    assert d.d20("Kira's attack") == 14
    assert len(told) == 5 and all("1 to 20" in t for t in told)
    assert "d20" in prompts[0] and "Kira's attack" in prompts[0]


def test_asked_dice_gives_up_with_input_error():
    d = AskedDice(lambda p: "x", lambda t: None, tries=3)
    with pytest.raises(InputError):
        d.face(6, "damage")


# ---- economy -------------------------------------------------------------------------------------
SAGA = Economy(slots={"standard": 1, "move": 1, "swift": 1},
               trades={"move": ("move", "standard"), "swift": ("swift", "move", "standard")},
               full_round_needs=("standard", "move", "swift"))


def test_saga_trades_standard_to_move_to_swift():
    b = SAGA.new_budget()
    assert SAGA.can_pay(b, "move", times=2) and not SAGA.can_pay(b, "move", times=3)
    assert SAGA.can_pay(b, "swift", times=3)
    assert SAGA.pay(b, "move") == ["move"]
    assert SAGA.pay(b, "move") == ["standard"]  # second move paid by the standard action
    assert b == {"standard": 0, "move": 0, "swift": 1}
    assert not SAGA.can_pay(b, "standard") and SAGA.can_pay(b, "swift")


def test_saga_three_swifts_cheapest_first():
    b = SAGA.new_budget()
    assert SAGA.pay(b, "swift", times=3) == ["swift", "move", "standard"]
    assert not SAGA.can_pay(b, "swift")


def test_full_round_needs_everything_untouched_and_uses_it_all():
    b = SAGA.new_budget()
    assert SAGA.can_pay(b, "full_round")
    assert SAGA.pay(b, "full_round") == ["full_round"]
    assert all(v == 0 for v in b.values())
    b = SAGA.new_budget()
    SAGA.pay(b, "swift")
    assert not SAGA.can_pay(b, "full_round")


def test_free_costs_nothing_and_pay_refuses_what_it_cannot():
    b = SAGA.new_budget(standard=0, move=0, swift=0)
    assert SAGA.can_pay(b, "free") and SAGA.pay(b, "free") == []
    with pytest.raises(ValueError):
        SAGA.pay(b, "swift")
    assert b == {"standard": 0, "move": 0, "swift": 0}


def test_pool_of_feet():
    e5 = Economy(slots={"action": 1, "bonus": 1, "object": 1, "feet": 30}, trades={"object": ("object", "action")})
    b = e5.new_budget(feet=25)
    assert b["feet"] == 25
    assert e5.can_pay(b, "feet", amount=25) and not e5.can_pay(b, "feet", amount=30)
    e5.pay(b, "feet", amount=10)
    assert e5.can_pay(b, "feet", amount=15) and not e5.can_pay(b, "feet", amount=20)
    assert e5.can_pay(b, "feet", amount=5, times=3) and not e5.can_pay(b, "feet", amount=5, times=4)
    assert e5.pay(b, "object", times=2) == ["object", "action"]


def test_can_pay_does_not_spend_and_describe():
    b = SAGA.new_budget()
    SAGA.can_pay(b, "swift", times=3)
    assert b == SAGA.new_budget()
    assert Economy.describe(b) == "standard, move, swift"
    assert Economy.describe({"feet": 30, "action": 0}) == "30 feet"
    assert Economy.describe({"a": 0}) == "nothing"
