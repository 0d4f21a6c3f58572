"""The shared template's frame is kept: a warm build whose frame and scenario rows are kept
fills the frame with the kept rows (a changed unit's row written without Jinja2) and gets what
a render gives, without rendering; a frame that is damaged or does not apply is rendered."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from compiler.load import aids
from compiler.load.aids import AIDS_CACHE, FRAMED_TEMPLATE, player_aids
from compiler.load.records import kept_chunk, read_kept
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.resources import templates_dir
from tests.conftest import SOURCES, every_field, loaded_seed

WITH_UNITS = sorted(p.name for p in SOURCES.iterdir() if p.is_dir() and p.name != "tank_killers")


def test_the_framed_template_is_the_shipped_one() -> None:
    """FRAMED_TEMPLATE names the shipped template: when it changes, check again by hand that
    its frame reads only what _frame_key digests and that _oob_writer writes its `oob_row`,
    then update the digest."""
    source = (templates_dir() / aids.TEMPLATE_NAME).read_bytes()
    assert hashlib.sha256(source).hexdigest() == FRAMED_TEMPLATE


def _odd_units(game: GameData) -> GameData:
    """The game with units whose rows quote, escape, lack a size or a Japanese name."""
    first, second, *rest = game.units
    odd = replace(first, name=Text('Quote "this" \\ there', ""), size="", copies=3)
    other = replace(second, name=Text("Ünïcode", "日本"), formation="no-such-formation")
    return replace(game, units=(odd, other, *rest))


@pytest.mark.parametrize("name", WITH_UNITS)
def test_the_native_row_is_the_macros(name: str) -> None:
    """_oob_writer writes for every unit what the template's `oob_row` macro writes."""
    game = _odd_units(loaded_seed(name))
    names = aids._names(game)
    template = aids._shared_template(game.aids_template[1])
    macro = template.make_module(vars=names).oob_row  # type: ignore[attr-defined]
    write = aids._oob_writer(names)
    for unit in game.units:
        assert write(unit) == str(macro(unit))


def _moved(game: GameData, index: int) -> GameData:
    """The game with one unit's front movement changed (what the warm benchmark changes)."""
    unit = game.units[index]
    front = dict(unit.front)
    before = front.get("moved")
    front["moved"] = before % 9 + 1 if isinstance(before, int) else 1
    changed = replace(unit, front=MappingProxyType(front))
    return replace(game, units=(*game.units[:index], changed, *game.units[index + 1 :]))


@pytest.mark.parametrize("name", WITH_UNITS)
def test_a_changed_unit_is_not_rendered(name: str, tmp_path: Path, renders: list[int]) -> None:
    game = loaded_seed(name)
    player_aids(game, tmp_path)
    assert renders == [1]
    changed = _moved(game, len(game.units) // 2)
    charts, findings = player_aids(changed, tmp_path)
    assert renders == [1] and not findings  # filled from the frame
    assert every_field(charts) == every_field(player_aids(changed)[0])
    again, _ = player_aids(_moved(changed, 0), tmp_path)
    assert every_field(again) == every_field(player_aids(_moved(changed, 0))[0])


def _renders_once(tmp_path: Path, renders: list[int], changed: GameData) -> None:
    """The aids of `changed` after Napoleon's were kept in `tmp_path`: the template rendered
    once, the aids those of `changed` made without a cache."""
    player_aids(loaded_seed("napoleon"), tmp_path)
    renders.clear()
    charts, _ = player_aids(changed, tmp_path)
    assert renders == [1]
    assert every_field(charts) == every_field(player_aids(changed)[0])


def test_a_renamed_unit_renders_its_scenarios(tmp_path: Path, renders: list[int]) -> None:
    """A unit's name shows in the setup cards: those are written by the template."""
    game = loaded_seed("napoleon")
    unit = replace(game.units[0], name=Text("Renamed", "改名"))
    _renders_once(tmp_path, renders, replace(game, units=(unit, *game.units[1:])))


def test_a_changed_scenario_renders_a_new_frame(tmp_path: Path, renders: list[int]) -> None:
    game = loaded_seed("napoleon")
    scenario = replace(game.scenarios[0], name=Text("Another", "別"))
    _renders_once(tmp_path, renders, replace(game, scenarios=(scenario, *game.scenarios[1:])))


@pytest.mark.parametrize("damage", ["flip", "cut", "calls"])
def test_a_damaged_frame_is_rendered(damage: str, tmp_path: Path, renders: list[int]) -> None:
    game = loaded_seed("napoleon")
    player_aids(game, tmp_path)
    stored = tmp_path / AIDS_CACHE
    kept = read_kept(stored)
    key = aids._frame_key(game, game.aids_template[1])
    entry = kept[key]
    if damage == "flip":
        kept[key] = entry[:-3] + bytes([entry[-3] ^ 1]) + entry[-2:]
    elif damage == "cut":
        kept[key] = entry[: len(entry) // 2]
    else:  # whole, but its calls name a scenario that is not there
        import marshal

        segments, calls = marshal.loads(entry[aids.CHECK_SIZE :])
        data = marshal.dumps((segments, tuple(("setup", "nowhere") for _ in calls)))
        kept[key] = aids._check(data) + data
    stored.write_bytes(kept_chunk(kept))
    renders.clear()
    changed = _moved(game, 1)
    charts, _ = player_aids(changed, tmp_path)
    assert renders == [1]
    assert every_field(charts) == every_field(player_aids(changed)[0])


def test_a_nul_in_the_data_is_rendered_without_a_frame(tmp_path: Path) -> None:
    """A NUL the template writes as it is (a scenario's id) is no mark: the output is the
    render's, and no frame is kept."""
    game = loaded_seed("napoleon")
    scenario = replace(game.scenarios[0], id="odd\0id")
    odd = replace(game, scenarios=(scenario, *game.scenarios[1:]))
    charts, findings = player_aids(odd, tmp_path)
    assert (charts, findings) == player_aids(odd)
    key = aids._frame_key(odd, odd.aids_template[1])
    assert key not in read_kept(tmp_path / AIDS_CACHE)
