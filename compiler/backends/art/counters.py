"""Display lists of unit counters, block labels, markers and the step-loss badge, from layouts.

Each face is the piece's background, then its layout's slots in order (see templates/layouts.yaml
for the standard ones), then a thin cut line. A unit without a back gets a plain back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from compiler.backends.art.colours import RGB, WHITE, contrast, darker, lighter, readable
from compiler.backends.art.display import Box, Drawing, Ellipse, Rect, Sketch, Text
from compiler.backends.art.faces import (
    band_colour,
    figure,
    strength_pips,
    top_mark,
    unit_symbol,
    unit_values,
    value_line,
)
from compiler.backends.art.slots import (
    Owner,
    TextStyle,
    colour,
    face_slots,
    find_layout,
    place_text,
    slot_ink,
    text_slot,
    unused,
)
from compiler.backends.art.symbols import symbol_ops
from compiler.backends.art.textfit import Room, fit
from compiler.model.common import Scalar
from compiler.model.gamedata import GameData
from compiler.model.layouts import Layout, Slot
from compiler.model.units import Marker, Unit

CUT_LINE = 1 / 64
LABEL_CREAM: RGB = (246, 240, 222)
BADGE_RED: RGB = (200, 30, 30)
BLOCK_LABEL: Box = (0.05, 0.05, 0.95, 0.95)
LABEL_CENTRE: Box = (0.2, 0.2, 0.8, 0.8)
"""The centre panel of a two-colour block label, inside the ring of strength pips."""
PIP_INSET = 0.1
PIP_RADIUS = 0.03
PIP_SPACING = 0.1
MAX_PIPS = 10
"""Pips a block edge holds at the most (real blocks print up to 4 or 6)."""


def unit_layout(game: GameData, unit: Unit) -> Layout:
    """The unit type's layout, else the standard one for blocks, leaders or counters."""
    unit_type = game.unit_type(unit.type)
    if unit_type is not None and unit_type.layout:
        return find_layout(game, unit_type.layout)
    if unit_type is not None and unit_type.shape == "block":
        return find_layout(game, "standard-block")
    if unit.leader is not None:
        return find_layout(game, "standard-leader")
    return find_layout(game, "standard-counter")


def unit_colours(game: GameData, unit: Unit, sketch: Sketch | None = None) -> tuple[RGB, RGB]:
    """Background and text colour: the nationality's, else the side's with black or white."""
    background, text, _centre = unit_palette(game, unit, sketch)
    return background, text


def unit_palette(
    game: GameData, unit: Unit, sketch: Sketch | None = None
) -> tuple[RGB, RGB, RGB | None]:
    """Background, text and block-label centre colour (None: no centre panel): the
    nationality's (its variant for the unit's tags), else the side's with black or white."""
    probe = sketch if sketch is not None else Sketch(1.0, WHITE)
    for nationality in game.game.nationalities:
        if nationality.id == unit.nationality:
            colours = nationality.colours_for(unit.tags)
            what = f"colour of nationality `{nationality.id}`"
            background = colour(probe, colours.colour, what)
            text = colour(probe, colours.text_colour, f"text_{what}")
            centre = None
            if colours.centre_colour:
                centre = colour(probe, colours.centre_colour, f"centre_{what}")
            return background, text, centre
    for side in game.game.sides:
        if side.id == unit.side:
            background = colour(probe, side.colour, f"colour of side `{side.id}`")
            return background, readable(background, (0, 0, 0)), None
    return (128, 128, 128), WHITE, None


# -- unit counters --------------------------------------------------------------------------


def unit_drawing(
    game: GameData, unit: Unit, face: Literal["front", "back"], lang: str = "en"
) -> Drawing:
    """One face of a unit counter laid out by its layout; ValueError for an unknown symbol."""
    layout = unit_layout(game, unit)
    sketch = Sketch(layout.width, (128, 128, 128))
    background, text = unit_colours(game, unit, sketch)
    sketch.background = background
    sketch.add(Rect((0, 0, layout.width, 1), fill=background))
    if face == "back" and unit.back is None:
        return _cut_line(sketch).finish()
    values = unit.back if face == "back" and unit.back is not None else unit.front
    owner = Owner(f"unit `{unit.id}`", layout)
    for slot in face_slots(layout, face):
        _unit_slot(sketch, slot, game, unit, _UnitFace(values, face, text, lang), owner)
    return _cut_line(sketch).finish()


class _UnitFace:
    """What one face of a unit shows: its values, side, text colour and language."""

    def __init__(self, values: Mapping[str, Scalar], face: str, text: RGB, lang: str) -> None:
        self.values = values
        self.face = face
        self.text = text
        self.lang = lang


def _unit_slot(
    sketch: Sketch, slot: Slot, game: GameData, unit: Unit, face: _UnitFace, owner: Owner
) -> None:
    """Fill one slot of a unit face."""
    box = sketch.box(slot.box)
    ink = slot_ink(sketch, slot, box, face.text, owner)
    style = TextStyle(ink, face.lang)
    if slot.show == "symbol":
        sketch.add(*symbol_ops(box, unit_symbol(game, unit), ink))
    elif slot.show == "band":
        if face.face == "back" and unit.back_kind != "none":
            sketch.add(Rect(box, fill=band_colour(unit.back_kind, sketch.background)))
    elif slot.show == "pips":
        _pips(sketch, box, strength_pips(unit), ink)
    else:
        text, lines = _unit_text(slot, unit, face)
        if text is None:
            unused(sketch, slot, owner)
            return
        field = "name" if slot.show == "name" else slot.show
        style = TextStyle(ink, face.lang, lines, field)
        text_slot(sketch, slot, text, owner, style)


def _unit_text(slot: Slot, unit: Unit, face: _UnitFace) -> tuple[str | None, int]:
    """The text of a text slot on a unit and its line limit; None for a slot units lack."""
    if slot.show == "label":
        return (unit.label if unit.label != unit.name.en else ""), 1
    if slot.show == "size":
        return top_mark(unit), 1
    if slot.show == "name":
        return printed_name(unit, face.lang), 2
    if slot.show == "values":
        return value_line(face.values), 1
    if slot.show == "ratings":
        return unit_values(unit, face.values), 1
    return None, 1


def printed_name(unit: Unit, lang: str) -> str:
    """The name on the face: the short name when given (in `lang` where it has that language;
    a Japanese full name beats an English-only short name), else the full name."""
    if lang == "ja" and unit.name.ja and not unit.short_name.ja:
        return unit.name.ja
    return unit.short_name.get(lang) or unit.name.get(lang)


def _cut_line(sketch: Sketch) -> Sketch:
    """A thin darker cut line around the face."""
    sketch.ops.append(
        Rect(
            (0, 0, sketch.width, 1),
            outline=darker(sketch.background, 0.45),
            line_width=CUT_LINE,
        )
    )
    return sketch


# -- blocks ---------------------------------------------------------------------------------


def block_drawing(
    game: GameData, unit: Unit, face: Literal["label", "back"], lang: str = "en"
) -> Drawing:
    """A block's label (strength pips along each edge) or its plain wooden back."""
    unit_type = game.unit_type(unit.type)
    layout_id = unit_type.layout if unit_type is not None and unit_type.layout else ""
    layout = find_layout(game, layout_id or "standard-block")
    sketch = Sketch(layout.width, (128, 128, 128))
    background, text, centre = unit_palette(game, unit, sketch)
    sketch.background = background
    _block_body(sketch, background)
    if face == "back":
        return sketch.finish()
    if centre is None:
        label = background if contrast(background, text) >= 2.6 else LABEL_CREAM
    else:
        label = background
    sketch.add(
        Rect(
            sketch.box(BLOCK_LABEL),
            fill=label,
            outline=darker(label, 0.25),
            line_width=CUT_LINE,
            radius=0.04,
        )
    )
    if centre is not None:
        sketch.add(Rect(sketch.box(LABEL_CENTRE), fill=centre, radius=0.03))
    owner = Owner(f"unit `{unit.id}`", layout)
    for slot in face_slots(layout, "front"):
        _unit_slot(sketch, slot, game, unit, _UnitFace(unit.front, "front", text, lang), owner)
    return sketch.finish()


def _block_body(sketch: Sketch, colour: RGB) -> None:
    """The wooden block seen from the front: rounded, with a lighter top-left bevel."""
    w = sketch.width
    sketch.add(
        Rect((0, 0, w, 1), fill=darker(colour, 0.3), radius=0.08),
        Rect((0, 0, w * 0.975, 0.975), fill=lighter(colour, 0.2), radius=0.08),
        Rect((w * 0.02, 0.02, w * 0.975, 0.975), fill=colour, radius=0.07),
    )


def _pips(sketch: Sketch, box: Box, strength: int, ink: RGB) -> None:
    """Pips: full strength on the top edge, one fewer on each edge clockwise (at most MAX_PIPS
    on an edge; more is a warning, never a face that takes for ever to lay out)."""
    if strength > MAX_PIPS:
        sketch.warnings.append(
            f"strength {strength} needs more pips than a block edge holds: {MAX_PIPS} drawn"
        )
        strength = MAX_PIPS
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    for edge in range(4):
        count = strength - edge
        if count <= 0:
            break
        spacing = min(PIP_SPACING, 0.62 / count)
        for index in range(count):
            along = 0.5 + (index - (count - 1) / 2) * spacing
            u, v = {
                0: (along, PIP_INSET),
                1: (1 - PIP_INSET, along),
                2: (1 - along, 1 - PIP_INSET),
                3: (PIP_INSET, 1 - along),
            }[edge]
            cx, cy = x0 + u * w, y0 + v * h
            r = PIP_RADIUS
            sketch.add(Ellipse((cx - r, cy - r, cx + r, cy + r), fill=ink))


# -- markers --------------------------------------------------------------------------------


def marker_drawing(
    game: GameData, marker: Marker, face: Literal["front", "back"], lang: str = "en"
) -> Drawing:
    """A marker face: its name and value, or on the back its back text (and value).

    Rules beyond the slots: without a value, the name also takes the value slot's room; on the
    back the back text replaces the name, and with a value it goes where the name went.
    """
    marker_set = marker.set
    layout = find_layout(game, marker_set.layout or "standard-marker")
    sketch = Sketch(layout.width, (128, 128, 128))
    background = colour(sketch, marker_set.colour, f"colour of marker set `{marker_set.id}`")
    sketch.background = background
    sketch.add(Rect((0, 0, layout.width, 1), fill=background))
    back_text = marker_set.back.get(lang)
    if face == "back" and back_text:
        inner = (0.07 * layout.width, 0.07, 0.93 * layout.width, 0.93)
        frame = readable(background, darker(background, 0.5))
        sketch.add(Rect(inner, outline=frame, line_width=CUT_LINE))
    owner = Owner(f"marker `{marker.id}`", layout)
    slots = face_slots(layout, face)
    for slot in slots:
        _marker_slot(sketch, slot, marker, slots, face == "back" and bool(back_text), owner, lang)
    return _cut_line(sketch).finish()


def _marker_slot(
    sketch: Sketch,
    slot: Slot,
    marker: Marker,
    slots: list[Slot],
    on_back: bool,
    owner: Owner,
    lang: str,
) -> None:
    """Fill one slot of a marker face."""
    box = sketch.box(slot.box)
    ink = slot_ink(sketch, slot, box, (0, 0, 0), owner)
    name = marker.set.name.get(lang) or marker.set.kind
    value_slot = next((s for s in slots if s.show == "value"), None)
    kind_slot = next((s for s in slots if s.show == "kind"), None)
    if slot.show == "kind" and not on_back:
        if marker.value is None and value_slot is not None:
            box = _union(box, sketch.box(value_slot.box))
        style = TextStyle(ink, lang, 3 if marker.value is None else 2, "name")
        place_text(sketch, slot, box, name, owner, style)
    elif slot.show == "value" and marker.value is not None:
        place_text(sketch, slot, box, figure(marker.value), owner, TextStyle(ink, lang))
    elif slot.show == "back-text" and on_back:
        if marker.value is not None and kind_slot is not None:
            box = sketch.box(kind_slot.box)
        style = TextStyle(ink, lang, 3, "back text")
        place_text(sketch, slot, box, marker.set.back.get(lang), owner, style)
    elif slot.show not in ("kind", "value", "back-text"):
        unused(sketch, slot, owner)


def _union(first: Box, second: Box) -> Box:
    """The smallest box holding both."""
    return (
        min(first[0], second[0]),
        min(first[1], second[1]),
        max(first[2], second[2]),
        max(first[3], second[3]),
    )


# -- step-loss badge ------------------------------------------------------------------------


def step_drawing(lost: int) -> Drawing:
    """A transparent face with a red "−n" step-loss badge in the top right corner."""
    badge: Box = (0.63, 0.025, 0.975, 0.235)
    sketch = Sketch(1.0, BADGE_RED)
    sketch.add(Rect(badge, fill=BADGE_RED, outline=WHITE, line_width=1.5 / 64, radius=0.07))
    room = Room(badge[2] - badge[0] - 0.06, badge[3] - badge[1], 0.19, 0.09, bold=True)
    fitted = fit(f"\u2212{lost}", room)
    centre = ((badge[0] + badge[2]) / 2, (badge[1] + badge[3]) / 2)
    text = fitted.lines[0] if fitted.lines else ""
    sketch.add(Text(centre[0], centre[1], text, fitted.height, True, WHITE, "mm"))
    return sketch.finish()
