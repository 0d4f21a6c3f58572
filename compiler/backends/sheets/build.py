"""Build a game's print sheets: counters.pdf, blocks.pdf and cards.pdf, written atomically.

The same sources and options give byte-identical PDFs: pieces keep their order in the sources,
and the PDFs carry no dates or random ids.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from compiler.backends.files import write_atomically
from compiler.backends.pergame import PerGameMemo
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.faces import (
    block_face,
    card_face,
    deck_back_face,
    marker_face,
    unit_face,
)
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.sheets.pdf import Piece, SheetDoc, render
from compiler.gcpause import no_cyclic_gc
from compiler.i18n import tr
from compiler.model.gamedata import GameData
from compiler.model.units import Unit

SHEET_FILES = ("counters.pdf", "blocks.pdf", "cards.pdf")


def is_block(game: GameData, unit: Unit) -> bool:
    """Whether a unit is a block (its type's shape), not a counter."""
    unit_type = game.unit_type(unit.type)
    return unit_type is not None and unit_type.shape == "block"


_PIECES: PerGameMemo[tuple[str, str], tuple[Piece, ...]] = PerGameMemo()
"""The pieces of the last game by kind and language: the face checks before the build and the
sheets print the same pieces, listed once."""


def _listed(
    kind: str, game: GameData, lang: str, make: Callable[[], tuple[Piece, ...]]
) -> tuple[Piece, ...]:
    return _PIECES.get(game, (kind, lang), make)


def counter_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    """Unit counters (not blocks), then markers, each with front and back."""
    return _listed("counters", game, lang, partial(_counter_pieces, game, lang))


def _counter_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    units = tuple(
        Piece(
            u.id,
            u.name.get(lang),
            unit_face(game, u, "front", lang),
            unit_face(game, u, "back", lang),
            u.copies,
        )
        for u in game.units
        if not is_block(game, u)
    )
    markers = tuple(
        Piece(
            m.id,
            _marker_name(m.set.name.get(lang), m.value),
            marker_face(game, m, "front", lang),
            marker_face(game, m, "back", lang),
            m.set.copies,
        )
        for m in game.markers.values()
    )
    return units + markers


def _marker_name(name: str, value: object) -> str:
    """A marker's name with its value, if it has one."""
    return name if value is None else f"{name} {value}"


def block_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    """One label per block (blocks have one labelled face)."""
    return _listed("blocks", game, lang, partial(_block_pieces, game, lang))


def _block_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    return tuple(
        Piece(u.id, u.name.get(lang), block_face(game, u, lang), None, u.copies)
        for u in game.units
        if is_block(game, u)
    )


def card_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    """Every card with its deck's back."""
    return _listed("cards", game, lang, partial(_card_pieces, game, lang))


def _card_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    pieces = []
    for card in game.cards:
        deck = game.deck(card.deck)
        back = None if deck is None else deck_back_face(game, deck, lang)
        face = card_face(game, card, lang)
        pieces.append(Piece(card.id, card.name.get(lang), face, back, card.copies))
    return tuple(pieces)


def sheet_docs(game: GameData, options: SheetOptions) -> dict[str, tuple[SheetDoc, SheetOptions]]:
    """File name → the document and the options it is printed with (only non-empty ones)."""
    lang = options.lang
    title = game.game.title.get(lang)
    size = options.counter_mm
    docs = {
        "counters.pdf": (
            SheetDoc(
                tr("{title} — counters", lang, title=title),
                "counters",
                counter_pieces(game, lang),
                (size, size),
            ),
            options,
        ),
        "blocks.pdf": (
            SheetDoc(
                tr("{title} — block labels", lang, title=title),
                "blocks",
                block_pieces(game, lang),
                (options.block_mm, options.block_mm),
            ),
            options.with_duplex("none"),
        ),
        "cards.pdf": (
            SheetDoc(
                tr("{title} — cards", lang, title=title),
                "cards",
                card_pieces(game, lang),
                options.card_mm,
            ),
            options,
        ),
    }
    return {name: pair for name, pair in docs.items() if pair[0].pieces}


def write_sheets(
    game: GameData,
    out_dir: Path,
    options: SheetOptions | None = None,
    cache_dir: Path | None = None,
    prefix: str = "",
) -> list[Path]:
    """Write the game's sheet PDFs into `out_dir` (named `prefix` + counters.pdf ...); returns
    their paths.

    `options` default to the game's `print:` settings. Sheet files the game no longer has are
    removed. Drawn faces and font subsets are cached in `cache_dir` (default out_dir/.cache).
    """
    with no_cyclic_gc():
        return _write_sheets(game, out_dir, options, cache_dir, prefix)


def _write_sheets(
    game: GameData,
    out_dir: Path,
    options: SheetOptions | None,
    cache_dir: Path | None,
    prefix: str,
) -> list[Path]:
    options = options or SheetOptions.from_settings(game.game.print)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = RenderCache((cache_dir or out_dir / ".cache") / "forms.pack")
    written: list[Path] = []
    docs = sheet_docs(game, options)
    for name, (doc, doc_options) in docs.items():
        data = render(doc, doc_options, cache)
        written.append(write_atomically(out_dir / f"{prefix}{name}", data))
    cache.save()
    for name in SHEET_FILES:
        if name not in docs:
            (out_dir / f"{prefix}{name}").unlink(missing_ok=True)
    return written
