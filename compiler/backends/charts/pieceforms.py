"""The drawings a chart part shows (its counters) made forms through the charts' cache: a part
drawn again in a warm build (one row of a long order of battle changed) reads back the forms
of the counters it shows instead of drawing each again (most of the cost of a page-high part
of counters), the same forms (pdf.content.KeptForms keeps a scenario picture's so)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from compiler.backends.art.display import Drawing
from compiler.backends.pdf.content import Form, drawing_form, pdf_fingerprint, read_form
from compiler.backends.pdf.document import encode_content
from compiler.backends.rendercache import digest_key

Lookup = Callable[[str], bytes | None]


class PartForms:
    """Drawings made forms, each kept under a digest of the drawing (its repr: plain frozen
    records, the same in every build) and of the code that draws it: read through `known`
    (the cache's entries), else made (as a build without a cache makes them) and added to
    `made` (what a chart's entry puts in the cache, from a worker too). `keys` lists the
    entries used, each once (kept as long as the chart's entry)."""

    def __init__(self, known: Lookup, made: dict[str, bytes]) -> None:
        self.known = known
        self.made = made
        self.keys: list[str] = []
        self._by_id: dict[int, tuple[Drawing, Form]] = {}
        self._listed: set[str] = set()

    def __call__(self, drawing: Drawing) -> Form:
        same = self._by_id.get(id(drawing))
        if same is not None and same[0] is drawing:
            return same[1]
        digest = hashlib.sha1(repr(drawing).encode("utf-8")).hexdigest()
        key = digest_key("chart-piece-form", pdf_fingerprint()[:32], digest)
        data = self.made.get(key)
        form = read_form(data if data is not None else self.known(key))
        if form is None:
            form = drawing_form(drawing)
            self.made[key] = encode_content(form[1], form[0], form[2])
        if key not in self._listed:
            self._listed.add(key)
            self.keys.append(key)
        self._by_id[id(drawing)] = (drawing, form)
        return form
