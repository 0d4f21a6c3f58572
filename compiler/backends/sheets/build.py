"""Build a game's print sheets: counters.pdf, blocks.pdf and cards.pdf, written atomically.

The same sources and options give byte-identical PDFs: pieces keep their order in the sources,
and the PDFs carry no dates or random ids.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from compiler.backends.files import write_parts_atomically
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
from compiler.backends.sheets.pdf import Piece, PieceRun, Pieces, SheetDoc, render_parts
from compiler.backends.sheets.runs import UnitRun, block_types, unit_runs
from compiler.gcpause import no_cyclic_gc
from compiler.i18n import tr
from compiler.model.gamedata import GameData
from compiler.model.units import Unit

SHEET_FILES = ("counters.pdf", "blocks.pdf", "cards.pdf")


def is_block(game: GameData, unit: Unit) -> bool:
    """Whether a unit is a block (its type's shape), not a counter."""
    return unit.type in block_types(game)


_RUNS: PerGameMemo[tuple[str, str], Pieces] = PerGameMemo()
"""The pieces of the last game by kind and language, as runs: the face checks before the
build, the sheets and the preview list the same pieces, each run once at most."""


def counter_runs(game: GameData, lang: str) -> Pieces:
    """Unit counters (not blocks), a run per run of units, then the markers."""
    return _RUNS.get(game, ("counters", lang), partial(_counter_runs, game, lang))


def _counter_runs(game: GameData, lang: str) -> Pieces:
    blocks = block_types(game)
    runs = [
        PieceRun(
            None if run.key is None else f"counters:{lang}:{run.key}",
            sum(u.type not in blocks for u in run.units) if blocks else len(run.units),
            partial(run_counter_pieces, game, run, lang),
        )
        for run in unit_runs(game)
    ]
    markers = PieceRun(None, len(game.markers), partial(marker_pieces, game, lang))
    return Pieces([*runs, markers])


def counter_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    """Unit counters (not blocks), then markers, each with front and back."""
    return counter_runs(game, lang).listed()


def run_counter_pieces(game: GameData, run: UnitRun, lang: str) -> tuple[Piece, ...]:
    """The counters of a run of units (its units that are not blocks), front and back."""
    blocks = block_types(game)
    return tuple(
        Piece(
            u.id,
            u.name.get(lang),
            unit_face(game, u, "front", lang),
            unit_face(game, u, "back", lang),
            u.copies,
        )
        for u in run.units
        if u.type not in blocks
    )


def marker_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    """Every marker, front and back (after the unit counters on the counter sheets)."""
    return tuple(
        Piece(
            m.id,
            _marker_name(m.set.name.get(lang), m.value),
            marker_face(game, m, "front", lang),
            marker_face(game, m, "back", lang),
            m.set.copies,
        )
        for m in game.markers.values()
    )


def _marker_name(name: str, value: object) -> str:
    """A marker's name with its value, if it has one."""
    return name if value is None else f"{name} {value}"


def block_runs(game: GameData, lang: str) -> Pieces:
    """One label per block (blocks have one labelled face), a run per run of units."""
    return _RUNS.get(game, ("blocks", lang), partial(_block_runs, game, lang))


def _block_runs(game: GameData, lang: str) -> Pieces:
    blocks = block_types(game)
    if not blocks:
        return Pieces(())
    return Pieces(
        PieceRun(
            None if run.key is None else f"blocks:{lang}:{run.key}",
            sum(u.type in blocks for u in run.units),
            partial(run_block_pieces, game, run, lang),
        )
        for run in unit_runs(game)
    )


def block_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    """One label per block (blocks have one labelled face)."""
    return block_runs(game, lang).listed()


def run_block_pieces(game: GameData, run: UnitRun, lang: str) -> tuple[Piece, ...]:
    """The block labels of a run of units (its units that are blocks)."""
    blocks = block_types(game)
    return tuple(
        Piece(u.id, u.name.get(lang), block_face(game, u, lang), None, u.copies)
        for u in run.units
        if u.type in blocks
    )


def card_pieces(game: GameData, lang: str) -> tuple[Piece, ...]:
    """Every card with its deck's back."""
    return card_runs(game, lang).listed()


def card_runs(game: GameData, lang: str) -> Pieces:
    """Every card with its deck's back, as one run."""
    return _RUNS.get(game, ("cards", lang), partial(_card_runs, game, lang))


def _card_runs(game: GameData, lang: str) -> Pieces:
    return Pieces([PieceRun(None, len(game.cards), partial(_card_pieces, game, lang))])


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
                counter_runs(game, lang),
                (size, size),
            ),
            options,
        ),
        "blocks.pdf": (
            SheetDoc(
                tr("{title} — block labels", lang, title=title),
                "blocks",
                block_runs(game, lang),
                (options.block_mm, options.block_mm),
            ),
            options.with_duplex("none"),
        ),
        "cards.pdf": (
            SheetDoc(
                tr("{title} — cards", lang, title=title),
                "cards",
                card_runs(game, lang),
                options.card_mm,
            ),
            options,
        ),
    }
    return {name: pair for name, pair in docs.items() if pair[0].runs.total}


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
        parts = render_parts(doc, doc_options, cache)
        written.append(write_parts_atomically(out_dir / f"{prefix}{name}", parts))
    cache.save()
    for name in SHEET_FILES:
        if name not in docs:
            (out_dir / f"{prefix}{name}").unlink(missing_ok=True)
    return written
