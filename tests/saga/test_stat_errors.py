"""Stat-block errors in an encounter file name the file line, the unit and the field, and say how to fix it, never a
traceback (issue 24: bad dice in a weapon named no unit or line; `speed` and `hp_now` type errors gave no fix)."""
import pytest

from engine.core.encounter_file import parse_encounter
from engine.core.errors import InputError

ENCOUNTER = """\
ruleset: saga
name: Test
map: |
  ########
  #......#
  #......#
  ########
units:
  - {name: Kira, side: pcs, template: jedi_knight, at: [1, 1]}
  - {name: Trooper 1, side: npcs, template: trooper, at: [6, 2], FIELD}
"""


@pytest.mark.parametrize("field,what,fix", [
    ("weapons: [{name: rifle, kind: ranged, damage: 3x8, group: rifle}]",
     "the damage of the rifle: '3x8' is not a dice expression", "2d8+3"),
    ("weapons: [{name: rifle, kind: ranged, damage: 0d8, group: rifle}]", "'0d8' is not a usable dice expression",
     "1-100 dice"),
    ("weapons: [{name: rifle, kind: ranged, damage: 5}]", "weapon field 'damage' must be text, got 5", "quotes"),
    ("weapons: [knife]", "a weapon must be a mapping, got 'knife'", "{name: knife, kind: melee, damage: 1d4}"),
    ("weapons: [{name: k, kind: melee, damage: 1d4, size: big}]", "weapon size 'big' unknown", "medium"),
    ("weapons: [{name: k, kind: melee, damage: 1d4, attack: true}]", "weapon field 'attack' must be a whole number",
     "{name: knife"),
    ("speed: fast", "'speed' must be a whole number, got 'fast'", "speed: 6"),
    ("speed: 6.5", "'speed' must be a whole number, got 6.5", "speed: 6"),
    ("speed: -1", "'speed' is -1, less than 0", "speed: 6"),
    ("hp: 0", "'hp' is 0, less than 1", "hp: 30"),
    ("reach: 0", "'reach' is 0, less than 1", "Large"),
    ("feats: pin", "'feats' must be a list, got 'pin'", "feats: [careful_shot"),
    ("heroic: maybe", "'heroic' must be true or false", "heroic:"),
    ("items: [{name: shield, reflex: x}]", "an item is {name, reflex?, fortitude?, will?}", "reflex: 2"),
    ("hp_now: ten", "'hp_now' of Trooper 1 is 'ten', not a whole number from 1 to its hp 18", "hp_now: 1 to 18"),
    ("hp_now: 30", "'hp_now' of Trooper 1 is 30", "leave it out for full hit points"),
    ("hp_now: true", "'hp_now' of Trooper 1 is True", "hp_now: 1 to 18"),
])
def test_stat_block_errors_name_the_line_the_unit_the_field_and_the_fix(field, what, fix):
    with pytest.raises(InputError) as e:
        parse_encounter(ENCOUNTER.replace("FIELD", field), "enc.yaml")
    err = e.value
    assert err.where.startswith("enc.yaml line 10 (units[1])"), str(err)
    assert "Trooper 1" in str(err), str(err)
    assert what in err.what, str(err)
    assert fix in err.fix, str(err)
