"""The drawings a chart part shows (its counters) made forms through the charts' cache: a part
drawn again in a warm build (one row of a long order of battle changed) reads back the forms
of the counters it shows instead of drawing each again (most of the cost of a page-high part
of counters), the same forms (pdf.content.KeptForms keeps a scenario picture's so)."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable

from compiler.backends.art.display import Drawing
from compiler.backends.charts.table import charts_fingerprint, piece_drawing, row_looks
from compiler.backends.pdf.content import Form, drawing_form, pdf_fingerprint, read_form
from compiler.backends.pdf.document import encode_content
from compiler.backends.rendercache import digest_key
from compiler.model.gamedata import GameData

Lookup = Callable[[str], bytes | None]


class PartForms:
    """Drawings made forms, each kept under a digest of the drawing (its repr: plain frozen
    records, the same in every build) and of the code that draws it: read through `known`
    (the cache's entries), else made (as a build without a cache makes them) and added to
    `made` (what a chart's entry puts in the cache, from a worker too). `keys` lists the
    entries used, each once (kept as long as the chart's entry), and `shown` those used since
    it was last set empty (a part's, named by the part's entry). A row's counter is made a
    form by its content instead (`piece`), without its drawing."""

    def __init__(self, known: Lookup, made: dict[str, bytes]) -> None:
        self.known = known
        self.made = made
        self.keys: list[str] = []
        self._by_id: dict[int, tuple[Drawing, Form]] = {}
        self._listed: set[str] = set()
        self._pieces: dict[tuple[str, str], Drawing | None] = {}
        self._keys: dict[int, str] = {}
        self.shown: dict[str, None] = {}
        """The entries used since it was last set empty (those of one part: see
        printed.part_entry), each once."""

    def piece(self, game: GameData, ref: str, lang: str) -> Drawing | None:
        """A chart row's counter image (table.PieceSource) for a part drawn as a form: its
        form kept under a digest of what decides how it looks (its reference, the language,
        its unit's content digest and the game's `kin`: table.RowLooks, as the part's own key
        has them, and the code), read back with the face's width and shown through a stand-in
        drawing of that width (this object gives the form for it). A part drawn again in a
        warm build draws no counter it showed before (drawing a face was most of the cost
        of a page-high part of counters, and hashing its repr much of the rest); an entry
        missing or damaged, the face is drawn and made a form as before: the same form."""
        if (ref, lang) in self._pieces:
            shown = self._pieces[(ref, lang)]
            if shown is not None:
                self._list(self._keys[id(shown)])
            return shown
        unit = game.unit(ref.partition(":")[0])
        if unit is None:
            self._pieces[(ref, lang)] = None
            return None
        looks = row_looks(game)
        what = repr((ref, lang, looks.piece(ref), looks.kin(), charts_fingerprint()))
        digest = hashlib.sha1(what.encode("utf-8")).hexdigest()
        key = digest_key("chart-piece", pdf_fingerprint()[:32], digest)
        data = self.made.get(key)
        kept = _read_piece(data if data is not None else self.known(key))
        if kept is None:
            drawing = piece_drawing(game, ref, lang)
            if drawing is None:
                self._pieces[(ref, lang)] = None
                return None
            form = drawing_form(drawing)
            self.made[key] = WIDTH.pack(drawing.width) + encode_content(form[1], form[0], form[2])
            shown = drawing
        else:
            width, form = kept
            shown = Drawing(width, ())
        self._list(key)
        self._by_id[id(shown)] = (shown, form)
        self._keys[id(shown)] = key
        self._pieces[(ref, lang)] = shown
        return shown

    def _list(self, key: str) -> None:
        self.shown[key] = None
        if key not in self._listed:
            self._listed.add(key)
            self.keys.append(key)

    def __call__(self, drawing: Drawing) -> Form:
        same = self._by_id.get(id(drawing))
        if same is not None and same[0] is drawing:
            self._list(self._keys[id(drawing)])
            return same[1]
        digest = hashlib.sha1(repr(drawing).encode("utf-8")).hexdigest()
        key = digest_key("chart-piece-form", pdf_fingerprint()[:32], digest)
        data = self.made.get(key)
        form = read_form(data if data is not None else self.known(key))
        if form is None:
            form = drawing_form(drawing)
            self.made[key] = encode_content(form[1], form[0], form[2])
        self._list(key)
        self._by_id[id(drawing)] = (drawing, form)
        self._keys[id(drawing)] = key
        return form


WIDTH = struct.Struct("<d")
"""A kept counter's entry (PartForms.piece) starts with its face's width."""


def _read_piece(data: bytes | None) -> tuple[float, Form] | None:
    """A kept counter's width and form; None when there is no entry or it is damaged."""
    if data is None or len(data) <= WIDTH.size:
        return None
    form = read_form(data[WIDTH.size :])
    if form is None:
        return None
    (width,) = WIDTH.unpack_from(data)
    return width, form
