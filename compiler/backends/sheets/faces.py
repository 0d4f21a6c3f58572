"""The seam between the sheets and the art package: piece faces as cached PDF forms.

A piece's side is a `FaceRef`: the digest of what decides its look (the same records that key
the module's PNGs) and how to build its display list. `render_forms` turns refs into PDF form
content at a printed height, from the render cache when the face has been drawn at that height
before, else drawn on every core; the content stream of a face does not depend on the document
(see compiler.backends.pdf), so cached forms are reused byte for byte. A side the data gives a
picture for (`art:`) carries how to read it: the sheet prints the image instead of the drawing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Literal

from compiler.backends.art.drawing import (
    Drawing,
    block_drawing,
    card_drawing,
    deck_back_drawing,
    marker_drawing,
    unit_drawing,
)
from compiler.backends.art.identity import (
    card_identity,
    deck_identity,
    marker_identity,
    unit_identity,
)
from compiler.backends.pdf.content import drawing_content
from compiler.backends.pdf.document import Content, decode_content, encode_content
from compiler.backends.pieceart import Picture, picture
from compiler.backends.rendercache import RenderCache, digest_key
from compiler.model.cards import Card, Deck
from compiler.model.gamedata import GameData
from compiler.model.units import Marker, PieceArt, Unit

Side = Literal["front", "back"]


@dataclass(frozen=True, slots=True)
class FaceRef:
    """One face to print: a digest of its look, and how to draw it when it is not cached."""

    identity: str
    """The kind of face, the language and the digest of its records (art.identity)."""
    make: Callable[[], Drawing]
    picture: Picture | None = None
    """The image file printed instead of the drawing (piece art), if any."""

    def key(self, height: float) -> str:
        """The cache key of this face printed `height` points tall."""
        return face_keys([self], height)[0]


@dataclass(frozen=True, slots=True)
class Form:
    """A face ready to place: its content, its width in points and its text-overflow notes."""

    content: Content
    width: float
    warnings: tuple[str, ...]


def _ref(kind: str, lang: str, make: Callable[[], Drawing], identity: str) -> FaceRef:
    return FaceRef(f"{kind}:{lang}:{identity}", make)


def _pictured(
    ref: FaceRef, game: GameData, art: PieceArt | None, side: Side, owner: str
) -> FaceRef:
    """`ref`, printed from the picture `art` gives for `side` when it gives one (`owner`
    names whose art it is)."""
    if art is None:
        return ref
    found = picture(game, art, side, owner)
    return ref if found is None else replace(ref, picture=found)


def unit_face(game: GameData, unit: Unit, side: Side, lang: str) -> FaceRef:
    """A unit counter's front or back (made for every counter of the game on every build:
    without art, no more than its identity and how to draw it)."""
    draw = partial(unit_drawing, game, unit, side, lang=lang)
    ref = FaceRef(f"unit-{side}:{lang}:{unit_identity(game, unit)}", draw)
    return ref if unit.art is None else _pictured(ref, game, unit.art, side, f"unit `{unit.id}`")


def block_face(game: GameData, unit: Unit, lang: str) -> FaceRef:
    """A block's label (blocks have no printed back)."""
    draw = partial(block_drawing, game, unit, "label", lang=lang)
    ref = _ref("block-label", lang, draw, unit_identity(game, unit))
    return _pictured(ref, game, unit.art, "front", f"unit `{unit.id}`")


def marker_face(game: GameData, marker: Marker, side: Side, lang: str) -> FaceRef:
    """A marker's front or back."""
    draw = partial(marker_drawing, game, marker, side, lang=lang)
    ref = _ref(f"marker-{side}", lang, draw, marker_identity(game, marker))
    return _pictured(ref, game, marker.set.art, side, f"marker set `{marker.set.id}`")


def card_face(game: GameData, card: Card, lang: str) -> FaceRef:
    """A card's face."""
    draw = partial(card_drawing, game, card, lang=lang)
    ref = _ref("card", lang, draw, card_identity(game, card))
    return _pictured(ref, game, card.art, "front", f"card `{card.id}`")


def deck_back_face(game: GameData, deck: Deck, lang: str) -> FaceRef:
    """The back of every card of a deck."""
    draw = partial(deck_back_drawing, game, deck, lang=lang)
    ref = _ref("deck-back", lang, draw, deck_identity(game, deck))
    return _pictured(ref, game, deck.art, "back", f"deck `{deck.id}`")


# ---- forms ------------------------------------------------------------------------------------


def face_keys(faces: Sequence[FaceRef], height: float) -> list[str]:
    """The cache keys of faces printed `height` points tall (FaceRef.key of each)."""
    head = digest_key("pdf-form", "")
    tail = f":{height:.4f}"
    return [head + face.identity + tail for face in faces]


def encode_form(form: Form) -> bytes:
    """A form as cache bytes: its content with its width and notes."""
    return encode_content(form.content, form.width, form.warnings)


def decode_form(data: bytes) -> Form:
    """The inverse of encode_form."""
    content, (width, warnings) = decode_content(data)
    assert isinstance(width, float) and isinstance(warnings, tuple)
    return Form(content, width, warnings)


def _draw_form(make: Callable[[], Drawing], height: float) -> bytes:
    drawing = make()
    content = drawing_content(drawing, height)
    return encode_form(Form(content, drawing.width * height, drawing.warnings))


def render_forms(faces: Sequence[FaceRef], height: float, cache: RenderCache) -> dict[str, Form]:
    """Identity → form for every face, `height` points tall: cached, else drawn on every core."""
    keys = face_keys(faces, height)
    made = cache.render_keys(keys, lambda index: partial(_draw_form, faces[index].make, height))
    return {face.identity: decode_form(made[key]) for face, key in zip(faces, keys, strict=True)}
