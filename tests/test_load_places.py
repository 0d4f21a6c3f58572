"""The hexes of a map made by the records' makers (compiler.load.places._hex_maker) are the
places the dataclasses make: the same type, fields, name and position."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.load import places
from compiler.model.common import Text
from compiler.model.gamedata import Place
from tests.conftest import every_field


def test_a_hex_made_by_the_maker_is_the_dataclass_one() -> None:
    where = Location("map.yaml", 4, 5)
    made = places._hex_maker()("01.02", "main", "clear", where)
    plain = Place("01.02", "main", "hex", Text("01.02"), "clear", loc=where)
    assert places._hex_maker() is not places._hex_place  # the makers are there
    assert type(made) is Place and type(made.name) is Text
    assert made == plain and repr(made) == repr(plain) and hash(made) == hash(plain)
    assert every_field(made) == every_field(plain)
    assert every_field(places._hex_place("01.02", "main", "clear", where)) == every_field(plain)
