"""The overlay of a scenario picture (compiler/backends/scenepics.py): every set-up piece on its
board point, stacks fanned with their count, each map's name over its board, then the
reinforcements by turn and the decks with their counts. Laid out in picture pixels and
returned as one display list (height 1.0 = the picture's height)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

from compiler.backends.art.cards import deck_back_drawing
from compiler.backends.art.colours import RGB
from compiler.backends.art.counters import (
    block_drawing,
    marker_drawing,
    step_drawing,
    unit_drawing,
)
from compiler.backends.art.display import Box, Drawing, Inset, Line, Op, Rect, Text, scaled_drawing
from compiler.backends.art.fonts import text_width
from compiler.backends.art.identity import deck_identity, marker_identity, unit_identity
from compiler.backends.pergame import PerGameMemo
from compiler.i18n import tr
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Reinforcement, Scenario
from compiler.model.units import Marker
from compiler.rules.context import scenario_view
from compiler.rules.placed import Placement

PICTURE_WIDTH = 1200
"""Pixels across a scenario picture: a wider board is scaled down to this width."""
MIN_WIDTH = 720
"""Pixels across a picture at least (for the lists under a small board, or no board)."""
MODULE_PIECE = 64
"""A counter's height in the module, in board pixels (vassal.module.PIECE_SIZE)."""
MIN_PIECE = 16.0
"""Pieces are drawn at least this many pixels tall, however small the board is scaled."""
LABEL_ROOM = 28
"""Room above each board for its map's name."""
ROW_PIECE = 36.0
LIST_LEFT = 130.0
CARD_HEIGHT = 60.0
INK: RGB = (20, 20, 20)
GREY: RGB = (90, 90, 90)
WHITE: RGB = (255, 255, 255)
BADGE: RGB = (25, 25, 25)


@dataclass(frozen=True, slots=True)
class PlacedPiece:
    """A set-up piece as the picture places it: `piece` is the module's slot key (`unit:<id>`
    or `marker:<id>`), (x, y) its board point in module pixels on map `map` (the point of its
    VASSAL stack), `level` its place in the stack (0 at the bottom) of `count` pieces, and
    `index` its place in the scenario's set-up placements (`scenario_view(...).setup`)."""

    piece: str
    map: str
    x: int
    y: int
    level: int
    count: int
    index: int


@dataclass(frozen=True, slots=True)
class Panel:
    """One map's board in the picture: its top row in picture pixels, its scale (picture
    pixels per module pixel; the board's left edge is the picture's) and its size."""

    map: str
    top: int
    scale: float
    width: int
    height: int

    def point(self, x: int, y: int) -> tuple[float, float]:
        """A board point (module pixels) in picture pixels."""
        return x * self.scale, self.top + y * self.scale

    def piece_height(self) -> float:
        return max(MIN_PIECE, MODULE_PIECE * self.scale)


@dataclass
class _Layout:
    """Ops in picture pixels while the overlay is laid out."""

    lang: str
    width: int
    ops: list[Op] = field(default_factory=list)
    widths: dict[str, float] | None = None
    """Face widths by look key, known from an earlier build (see KeyedFace)."""

    def text(
        self, x: float, y: float, words: str, size: float, bold: bool = False, colour: RGB = INK
    ) -> float:
        """One line of text, its left end at x and its middle at y; returns where it ends."""
        self.ops.append(Text(x, y, words, size, bold, colour, "lm", self.lang))
        return x + text_width(words, size, bold, self.lang)

    def inset(self, x: float, y: float, height: float, drawing: Drawing) -> Box:
        """A face with its top-left corner at (x, y), `height` tall; returns its box."""
        box = (x, y, x + drawing.width * height, y + height)
        self.ops.append(Inset(box, drawing))
        return box


class KeyedFace(Drawing):
    """A face drawing known by its look key (kind, side, language and the identity of the
    records it is drawn from, art.identity), drawn only when its ops are asked for: a warm
    build lays out a picture with the widths an earlier build found and takes the pixels and
    PDF forms of the faces that did not change from the caches under their keys, without
    drawing them (or spelling them out for a key). Drawn, it is the drawing: the same ops,
    repr, equality and hash."""

    __slots__ = ("_drawn", "_make", "key")
    key: str
    _make: Callable[[], Drawing]
    _drawn: Drawing | None

    def __init__(
        self, key: str, width: float, make: Callable[[], Drawing], drawn: Drawing | None = None
    ) -> None:
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "_make", make)
        object.__setattr__(self, "_drawn", drawn)

    def drawn(self) -> Drawing:
        """The face drawn (once)."""
        found: Drawing | None = self._drawn
        if found is None:
            found = self._make()
            object.__setattr__(self, "_drawn", found)
        return found

    @property
    def ops(self) -> tuple[Op, ...]:
        return self.drawn().ops

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.drawn().warnings

    def __repr__(self) -> str:
        return repr(self.drawn())

    def __eq__(self, other: object) -> bool:
        mine = self.drawn()
        return mine == (other.drawn() if isinstance(other, KeyedFace) else other)

    def __hash__(self) -> int:
        return hash(self.drawn())


_FACES: PerGameMemo[tuple[str, str, str, str], KeyedFace] = PerGameMemo()


def _face(
    game: GameData,
    kind: str,
    ident: str,
    face: str,
    lang: str,
    widths: dict[str, float] | None = None,
) -> KeyedFace:
    """A face, made once per game being built (kind: unit, block, marker, deck, step): drawn
    now unless `widths` knows its width."""
    make = partial(_keyed_face, game, kind, ident, face, lang, widths)
    return _FACES.get(game, (kind, ident, face, lang), make)


def _keyed_face(
    game: GameData, kind: str, ident: str, face: str, lang: str, widths: dict[str, float] | None
) -> KeyedFace:
    draw = partial(_draw_face, game, kind, ident, face, lang)
    key = f"{kind}-{face}:{lang}:{_identity(game, kind, ident)}"
    width = widths.get(key) if widths is not None else None
    if width is not None:
        return KeyedFace(key, width, draw)
    drawing = draw()
    return KeyedFace(key, drawing.width, draw, drawing)


def _identity(game: GameData, kind: str, ident: str) -> str:
    """What decides how the face looks, besides its kind, side and language (the digests the
    module's and the sheets' faces are kept under)."""
    if kind == "step":
        return ident
    if kind == "marker":
        return marker_identity(game, game.markers[ident])
    if kind == "deck":
        deck = game.deck(ident)
        assert deck is not None
        return deck_identity(game, deck)
    unit = game.unit(ident)
    assert unit is not None
    return unit_identity(game, unit)


def _draw_face(game: GameData, kind: str, ident: str, face: str, lang: str) -> Drawing:
    side: Literal["front", "back"] = "back" if face == "back" else "front"
    if kind == "step":
        return step_drawing(int(ident))
    if kind == "marker":
        return marker_drawing(game, game.markers[ident], side, lang)
    if kind == "deck":
        deck = game.deck(ident)
        assert deck is not None
        return deck_back_drawing(game, deck, lang)
    unit = game.unit(ident)
    assert unit is not None
    if kind == "block":
        return block_drawing(game, unit, "label", lang)  # face up in the preview
    return unit_drawing(game, unit, side, lang)


def piece_faces(
    game: GameData, placement: Placement, lang: str, widths: dict[str, float] | None = None
) -> list[Drawing]:
    """What the module shows for a placed piece, bottom layer first: a block face up, a counter
    on the side the placement names (with the step-loss badge of the steps it has lost), a
    marker on its side. (`widths`: see _face.)"""
    if placement.marker is not None:
        return [_face(game, "marker", placement.marker.id, _marker_side(placement), lang, widths)]
    unit = placement.unit
    assert unit is not None
    unit_type = game.unit_type(unit.type)
    if unit_type is not None and unit_type.shape == "block":
        return [_face(game, "block", unit.id, "label", lang, widths)]
    side = "back" if placement.face == "back" and unit.has_back else "front"
    faces: list[Drawing] = [_face(game, "unit", unit.id, side, lang, widths)]
    lost = unit.steps - placement.steps if placement.steps is not None else 0
    if 0 < lost < unit.steps:
        faces.append(_face(game, "step", str(lost), "", lang, widths))
    return faces


def _marker_side(placement: Placement) -> str:
    marker: Marker | None = placement.marker
    has_back = marker is not None and bool(marker.set.back.en)
    return "back" if placement.face == "back" and has_back else "front"


def _stack_step(height: float, count: int) -> float:
    """How far each piece of a stack sits up and right of the one below it."""
    if count < 2:
        return 0.0
    return min(0.14 * height, 0.8 * height / (count - 1))


def _draw_pieces(
    game: GameData,
    layout: _Layout,
    panels: dict[str, Panel],
    pieces: tuple[PlacedPiece, ...],
    setup: list[Placement],
) -> list[tuple[PlacedPiece, Box]]:
    """Every piece, bottom of each stack first, centred on its stack's point and fanned; a
    stack's count on its top piece. Returns where each piece was drawn."""
    drawn: list[tuple[PlacedPiece, Box]] = []
    heights = {name: panel.piece_height() for name, panel in panels.items()}  # once a board
    for piece in pieces:
        panel = panels[piece.map]
        height = heights[piece.map]
        faces = piece_faces(game, setup[piece.index], layout.lang, layout.widths)
        cx, cy = panel.point(piece.x, piece.y)
        step = _stack_step(height, piece.count) * piece.level
        width = faces[0].width * height
        left, top = cx - width / 2 + step, cy - height / 2 - step
        box = layout.inset(left, top, height, faces[0])
        for extra in faces[1:]:
            layout.inset(left, top, height, extra)
        drawn.append((piece, box))
        if piece.count > 1 and piece.level == piece.count - 1:
            _badge(layout, box, piece.count, height)
    return drawn


def _badge(layout: _Layout, box: Box, count: int, height: float) -> None:
    """The stack's count in a dark rounded tab over its top piece's top-right corner: a small
    drawing of its own, placed like a face (the PNG rasterises it once, as it does a face)."""
    size = max(9.0, 0.3 * height)
    width, tab = _badge_face(count, size, layout.lang)
    tall = size * 1.15
    x1, y0 = box[2] + size * 0.3, box[1] - size * 0.45
    layout.inset(x1 - width, y0, tall, tab)


@functools.lru_cache(maxsize=256)
def _badge_face(count: int, size: float, lang: str) -> tuple[float, KeyedFace]:
    """A stack count's tab, `size` its text's height, and its width in pixels (the same tab
    for every stack of that count on a board: made once, kept in the caches under its look
    key)."""
    words = str(count)
    width = text_width(words, size, True, lang) + size * 0.5
    tall = size * 1.15
    tab: list[Op] = [
        Rect((0.0, 0.0, width, tall), BADGE, WHITE, max(1.0, size * 0.08), size * 0.25),
        Text(width / 2, tall / 2, words, size, True, WHITE, "mm", lang),
    ]
    drawing = scaled_drawing(tab, width, tall)
    face = KeyedFace(f"badge:{lang}:{count}:{size!r}", drawing.width, lambda: drawing, drawing)
    return width, face


def _map_labels(game: GameData, layout: _Layout, panels: tuple[Panel, ...]) -> None:
    names = {m.id: m.name.get(layout.lang) or m.id for m in game.maps}
    for panel in panels:
        layout.text(8.0, panel.top - LABEL_ROOM / 2, names[panel.map], 16.0, True)
        y = panel.top + panel.height + 0.5
        layout.ops.append(Line(((0.0, y), (float(panel.width), y)), GREY, 1.0))


def _reinforcements(game: GameData, scenario: Scenario, layout: _Layout, y: float) -> float:
    """A row per turn of arrival: the turn, then each arrival's faces and where they enter,
    side by side (more rows when they do not fit)."""
    lang = layout.lang
    arrivals = sorted(scenario.reinforcements, key=lambda r: r.turn)
    if not arrivals:
        return y
    layout.text(8.0, y + 14, tr("Reinforcements", lang), 18.0, True)
    y += 32
    by_entry: dict[int, list[Placement]] = {}
    for placement in scenario_view(game, scenario).arrivals:
        if placement.unit is not None:
            by_entry.setdefault(id(placement.entry), []).append(placement)
    turns: dict[int, list[Reinforcement]] = {}
    for arrival in arrivals:
        turns.setdefault(arrival.turn, []).append(arrival)
    for turn, entries in turns.items():
        label = tr("Turn {turn}", lang, turn=turn)
        layout.text(16.0, y + ROW_PIECE / 2, label, 14.0, True)
        x, top = LIST_LEFT, y
        for arrival in entries:
            place = game.place(scenario, arrival.at)
            name = place.name.get(lang) if place is not None else ""
            where = tr("at {place}", lang, place=name or arrival.at)
            faces = [
                piece_faces(game, p, lang, layout.widths) for p in by_entry.get(id(arrival), [])
            ]
            needed = sum(f[0].width * ROW_PIECE + 4 for f in faces) + 8
            needed += text_width(where, 13.0, False, lang)
            if x > LIST_LEFT and x + needed > layout.width - 8:
                x, top = LIST_LEFT, top + ROW_PIECE + 8
            x, top = _arrival(layout, faces, where, x, top)
            x += 24
        y = top + ROW_PIECE + 8
    return y


def _arrival(
    layout: _Layout, faces: list[list[Drawing]], where: str, x: float, top: float
) -> tuple[float, float]:
    """One arrival's faces from (x, top), wrapping, then where they enter; where it ends."""
    right = layout.width - 8 - text_width(where, 13.0, False, layout.lang)
    for layers in faces:
        width = layers[0].width * ROW_PIECE
        if x + width > right and x > LIST_LEFT:
            x, top = LIST_LEFT, top + ROW_PIECE + 8
        for face in layers:
            layout.inset(x, top, ROW_PIECE, face)
        x += width + 4
    end = layout.text(x + 4, top + ROW_PIECE / 2, where, 13.0, False, GREY)
    return end, top


def _decks(game: GameData, scenario: Scenario, layout: _Layout, y: float) -> float:
    """Each deck the scenario's sides draw from: its back, name, card count and its users."""
    lang = layout.lang
    order: list[str] = []
    users: dict[str, list[str]] = {}
    sides = {s.id: s.name.get(lang) for s in game.game.sides}
    for player in scenario.decks:
        for deck_id in player.decks:
            if deck_id not in users:
                order.append(deck_id)
            who = sides.get(player.side, player.side)
            if player.hand:
                who += " " + tr("(hand {count})", lang, count=player.hand)
            users.setdefault(deck_id, []).append(who)
    if not order:
        return y
    layout.text(8.0, y + 14, tr("Decks", lang), 18.0, True)
    y += 32
    for deck_id in order:
        deck = game.deck(deck_id)
        if deck is None:
            continue
        count = sum(card.copies for card in game.cards if card.deck == deck_id)
        box = layout.inset(
            16.0, y, CARD_HEIGHT, _face(game, "deck", deck_id, "", lang, layout.widths)
        )
        x = box[2] + 12
        end = layout.text(x, y + CARD_HEIGHT * 0.3, deck.name.get(lang), 15.0, True)
        cards = tr("{count} cards", lang, count=count)
        layout.text(end + 10, y + CARD_HEIGHT * 0.3, cards, 14.0)
        layout.text(x, y + CARD_HEIGHT * 0.7, ", ".join(users[deck_id]), 13.0, False, GREY)
        y += CARD_HEIGHT + 10
    return y


def overlay(
    game: GameData,
    scenario: Scenario,
    lang: str,
    panels: tuple[Panel, ...],
    pieces: tuple[PlacedPiece, ...],
    top: int,
    width: int,
    widths: dict[str, float] | None = None,
) -> tuple[Drawing, int, list[tuple[PlacedPiece, Box]]]:
    """The overlay drawing of a picture whose boards end at row `top`, the picture's height,
    and where each set-up piece was drawn (picture pixels). Its faces are KeyedFaces: those
    whose width `widths` holds (by look key, from an earlier build) are not drawn here."""
    layout = _Layout(lang, width, widths=widths)
    setup = scenario_view(game, scenario).setup
    _map_labels(game, layout, panels)
    drawn = _draw_pieces(game, layout, {p.map: p for p in panels}, pieces, setup)
    y = float(top) + 10
    y = _reinforcements(game, scenario, layout, y)
    y = _decks(game, scenario, layout, y)
    if not panels and y <= top + 10:
        layout.text(16.0, y + 20, tr("Nothing is set up in this scenario.", lang), 15.0)
        y += 40
    height = max(1, round(y + 4))
    return scaled_drawing(layout.ops, width, height), height, drawn
