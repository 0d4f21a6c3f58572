"""What a piece shows, independent of drawing: its colours, symbol, size mark and value line."""

from __future__ import annotations

from collections.abc import Mapping

from compiler.backends.art.colours import RGB, lighter, mix
from compiler.model.common import Scalar, is_number
from compiler.model.gamedata import GameData
from compiler.model.units import Unit

MAX_VALUES = 3
MOVEMENT_KEYS = ("movement", "move", "ma", "mp", "mf")
EXHAUSTED_BAND: RGB = (255, 255, 255)
DISORGANISED_TINT: RGB = (214, 64, 52)
EXTENDED_TINT: RGB = (255, 220, 120)


def unit_symbol(game: GameData, unit: Unit) -> str:
    """The unit type's symbol name; a leader without a symbol gets the leader star."""
    unit_type = game.unit_type(unit.type)
    symbol = unit_type.symbol if unit_type is not None else "none"
    if unit.leader is not None and symbol == "none":
        return "leader"
    return str(symbol)


def figure(value: Scalar) -> str:
    """A value as printed: whole numbers without a decimal point, halves as ½."""
    if isinstance(value, float):
        whole = int(value)
        if value == whole:
            return str(whole)
        if abs(value - whole) == 0.5:
            return f"{whole}½" if whole else "½"
        return f"{value:g}"
    return str(value)


def pick_values(values: Mapping[str, Scalar]) -> list[Scalar]:
    """Up to three numbers in insertion order; with more, the movement value takes the last slot."""
    numbers: list[tuple[str, Scalar]] = [(k, v) for k, v in values.items() if is_number(v)]
    if len(numbers) <= MAX_VALUES:
        return [value for _, value in numbers]
    movement = next((pair for pair in numbers if pair[0].lower() in MOVEMENT_KEYS), None)
    if movement is None or movement in numbers[:MAX_VALUES]:
        return [value for _, value in numbers[:MAX_VALUES]]
    return [value for _, value in numbers[: MAX_VALUES - 1]] + [movement[1]]


def value_line(values: Mapping[str, Scalar]) -> str:
    """The printed value line, e.g. "4-3" or "8-8-7"; empty when there are no numbers."""
    return "-".join(figure(value) for value in pick_values(values))


def unit_values(unit: Unit, values: Mapping[str, Scalar]) -> str:
    """Value line of one face: a leader's ratings, else the face's values."""
    if unit.leader is not None and unit.leader.ratings:
        ratings = value_line(unit.leader.ratings)
        if ratings:
            return ratings
    return value_line(values)


def top_mark(unit: Unit) -> str:
    """The size mark above the symbol; for a leader without one, its level (ARMY, CORPS)."""
    if unit.size:
        return unit.size
    if unit.leader is not None and unit.leader.kind != "other":
        return unit.leader.kind.upper()
    return ""


def band_colour(kind: str, background: RGB) -> RGB:
    """Colour of the stripe across a back side: white when exhausted, lighter when reduced."""
    if kind == "exhausted":
        return EXHAUSTED_BAND
    if kind == "disorganised":
        return mix(lighter(background, 0.45), DISORGANISED_TINT, 0.45)
    if kind == "extended":
        return mix(background, EXTENDED_TINT, 0.65)
    return lighter(background, 0.55)


def strength_pips(unit: Unit) -> int:
    """A block's full strength: its cv value, else its steps."""
    cv = unit.front.get("cv")
    if cv is not None and is_number(cv):
        return max(0, int(cv))
    return max(0, unit.steps)
