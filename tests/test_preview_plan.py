"""The plan of the sheet pages the preview's thumbnails are drawn from (preview.thumbs): kept
in the preview's cache, it gives the pages, faces and keys the imposition gives, and a plan
entry of another shape, or naming faces or slots there are not, is a miss."""

from __future__ import annotations

import hashlib
import marshal
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.backends.preview import thumbs
from compiler.backends.rendercache import RenderCache, digest_key
from compiler.backends.sheets.build import sheet_docs
from compiler.backends.sheets.impose import Rect, impose
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.sheets.pdf import Piece, PieceRun, Pieces, SheetDoc
from compiler.load.game import load_game
from tests.conftest import SOURCES, spy_on_thumbnail_rasterize


def counters(duplex: str) -> tuple[SheetDoc, SheetOptions]:
    game = load_game(SOURCES / "asia_engulfed").game
    assert game is not None
    options = SheetOptions(duplex=duplex)  # type: ignore[arg-type]
    return sheet_docs(game, options)["counters.pdf"]


def imposed(doc: SheetDoc, options: SheetOptions) -> list[list[tuple[str, Rect]]]:
    """The faces of each sheet page as the imposition places them, sheet by sheet."""
    imposition = impose([p.copies for p in doc.pieces], options, doc.slot_mm)
    pages = []
    for sheet in range(imposition.sheets):
        placed = imposition.on_sheet(sheet)
        fronts = [(doc.pieces[p.item].front.identity, p.front) for p in placed]
        backs = [
            (back.identity, p.back)
            for p in placed
            if (back := doc.pieces[p.item].back) is not None and p.back is not None
        ]
        if options.duplex == "gutter-fold":
            pages.append(fronts + backs)
            continue
        pages.append(fronts)
        if options.duplex == "mirror" and backs:
            pages.append(backs)
    return pages


def page_key(page: tuple[float, float], faces: list[thumbs.Face]) -> str:
    """A page's thumbnail key worked out from its faces alone, as the plan's must be."""
    digest = hashlib.sha256(thumbs._page_head(page))
    for ref, slot in faces:
        digest.update(
            f"\n{ref.identity}@{slot.x:.3f},{slot.y:.3f},{slot.w:.3f},{slot.h:.3f}".encode()
        )
    return digest_key("preview-page", digest.hexdigest())


@pytest.mark.parametrize("duplex", ["mirror", "gutter-fold", "none"])
def test_the_plan_gives_the_imposed_pages_and_their_keys(duplex: str) -> None:
    doc, options = counters(duplex)
    pages = thumbs.sheet_faces(doc, options)
    assert [[(ref.identity, slot) for ref, slot in page] for page in pages] == imposed(doc, options)
    plan = thumbs.sheet_plan(doc, options)
    height = options.page_pt[1]
    layout = thumbs._layout_of(plan, height)
    for (first, end, sides), spots in zip(layout.ranges, plan.pages, strict=True):
        assert all(first <= item < end for item, _side, _slot in spots)
        assert {side for _item, side, _slot in spots} == {s for s in (0, 1) if sides >> s & 1}
    looks = thumbs.Looks(doc.runs)
    keys = thumbs._page_keys(options.page_pt, "plan", looks, layout.ranges)
    assert len(set(keys)) == len(keys)
    assert thumbs._page_keys(options.page_pt, "other plan", looks, layout.ranges) != keys


@pytest.mark.parametrize("piece", [0, 7, -1])
def test_a_changed_face_changes_the_keys_of_the_pages_it_is_on(piece: int) -> None:
    """Pieces listed (runs without a key): a piece's changed front changes the keys of the
    pages it is on, not of every page."""
    doc, options = counters("mirror")
    listed = SheetDoc(doc.title, doc.kind, doc.pieces, doc.slot_mm)
    plan = thumbs.sheet_plan(listed, options)
    layout = thumbs._layout_of(plan, options.page_pt[1])
    keys = thumbs._page_keys(options.page_pt, "plan", thumbs.Looks(listed.runs), layout.ranges)
    number = piece % len(doc.pieces)
    front = replace(doc.pieces[number].front, identity="unit:en:changed")
    pieces = [*doc.pieces]
    pieces[number] = replace(pieces[number], front=front)
    changed = thumbs.Looks(SheetDoc(doc.title, doc.kind, pieces, doc.slot_mm).runs)
    again = thumbs._page_keys(options.page_pt, "plan", changed, layout.ranges)
    on = {n for n, spots in enumerate(plan.pages) if (number, 0) in {s[:2] for s in spots}}
    differ = {n for n, (a, b) in enumerate(zip(keys, again, strict=True)) if a != b}
    assert on and on <= differ
    assert len(differ) < len(keys)


def keyed(doc: SheetDoc, changed: int) -> SheetDoc:
    """The document with the key of its run `changed` changed (its pieces the same)."""
    runs = [
        replace(run, key=f"{run.key}:changed") if number == changed else run
        for number, run in enumerate(doc.runs.runs)
    ]
    return SheetDoc(doc.title, doc.kind, Pieces(runs), doc.slot_mm)


def test_a_runs_changed_key_changes_the_keys_of_the_pages_its_pieces_are_on() -> None:
    """Runs with keys: the pages of a run whose key changed get other keys, the others keep
    theirs, and no run is listed to key the pages."""
    doc, options = counters("mirror")
    runs = doc.runs.runs
    assert len(runs) > 2 and runs[1].key is not None
    plan = thumbs.sheet_plan(doc, options)
    layout = thumbs._layout_of(plan, options.page_pt[1])
    unlisted = SheetDoc(doc.title, doc.kind, Pieces(map(never_listed, runs)), doc.slot_mm)
    keys = thumbs._page_keys(options.page_pt, "plan", thumbs.Looks(unlisted.runs), layout.ranges)
    changed = thumbs.Looks(keyed(unlisted, 1).runs)
    again = thumbs._page_keys(options.page_pt, "plan", changed, layout.ranges)
    first, end = runs[0].count, runs[0].count + runs[1].count
    on = {n for n, spots in enumerate(plan.pages) if {s[0] for s in spots} & set(range(first, end))}
    differ = {n for n, (a, b) in enumerate(zip(keys, again, strict=True)) if a != b}
    assert on and on == differ


def never_listed(run: PieceRun) -> PieceRun:
    """A keyed run that fails when listed; the others as they are."""

    def fail() -> tuple[Piece, ...]:
        raise AssertionError("a keyed run was listed")

    return replace(run, make=fail) if run.key is not None else run


def test_a_plan_is_kept_and_read_back(tmp_path: Path) -> None:
    doc, options = counters("mirror")
    cache = RenderCache(tmp_path / "preview.pack")
    key, layout, plan = thumbs._known_layout(doc, options, cache)
    assert plan == thumbs.sheet_plan(doc, options)
    cache.save()
    again = RenderCache(tmp_path / "preview.pack")
    unlisted = SheetDoc(doc.title, doc.kind, Pieces(map(never_listed, doc.runs.runs)), doc.slot_mm)
    assert thumbs._known_layout(unlisted, options, again) == (key, layout, None)
    assert again.hits == 2 and again.misses == 0  # the runs' shapes, the layout
    for number, spots in enumerate(plan.pages):
        found = again.get(key + thumbs.PAGE_SPOTS + str(number))
        looks = thumbs.Looks(doc.runs)
        assert thumbs._read_page(found, looks, len(layout.slots), layout.ranges[number]) == spots


def test_a_plan_for_other_copies_is_not_this_documents() -> None:
    doc, options = counters("mirror")
    more = replace(doc, pieces=(replace(doc.pieces[0], copies=9), *doc.pieces[1:]))
    fewer = replace(doc, pieces=(replace(doc.pieces[0], back=None), *doc.pieces[1:]))
    keys = {plan_key(d, options) for d in (doc, more, fewer)}
    keys.add(plan_key(doc, SheetOptions(duplex="none")))
    assert len(keys) == 4


def plan_key(doc: SheetDoc, options: SheetOptions) -> str:
    return thumbs._plan_key(doc, options, thumbs._shapes(doc, RenderCache(None)))


SLOT = (1.0, 2.0, 3.0, 4.0)


@pytest.mark.parametrize(
    "entry_bytes",
    [
        b"",
        b"garbage",
        marshal.dumps(["a list"]),
        marshal.dumps(((SLOT,), ((0, 10**6, 1),), (3,))),  # a piece there is not
        marshal.dumps(((SLOT,), ((-1, 1, 1),), (3,))),
        marshal.dumps(((SLOT,), ((2, 1, 1),), (3,))),  # a range backwards
        marshal.dumps(((SLOT,), ((0, 1),), (3,))),  # a range of two
        marshal.dumps(((SLOT,), ((0, 1, 4),), (3,))),  # a fourth side
        marshal.dumps(((SLOT,), ((0, 1.0, 1),), (3,))),
        marshal.dumps(((SLOT,), ((0, 1, 1),), (3.0,))),  # a height not in pixels
        marshal.dumps((((1.0, 2.0, 3.0),), ((0, 1, 1),), (3,))),  # a slot of three numbers
        marshal.dumps((((1, 2, 3, 4),), ((0, 1, 1),), (3,))),  # ints, not floats
        marshal.dumps(((SLOT,), [(0, 1, 1)], (3,))),  # a list, not a tuple
        marshal.dumps(((SLOT,), ((0, 1, 1),))),
    ],
)
def test_a_layout_entry_of_another_shape_is_a_miss(tmp_path: Path, entry_bytes: bytes) -> None:
    doc, options = counters("mirror")
    assert thumbs._read_layout(marshal.dumps(((SLOT,), ((0, 1, 1),), (3,))), len(doc.pieces))
    assert thumbs._read_layout(entry_bytes, len(doc.pieces)) is None
    cache = RenderCache(tmp_path / "preview.pack")
    cache.put(plan_key(doc, options) + thumbs.LAYOUT, entry_bytes)
    assert thumbs._known_layout(doc, options, cache)[2] == thumbs.sheet_plan(doc, options)


def spots(*found: tuple[int, ...] | tuple[float, ...]) -> bytes:
    return marshal.dumps(found)


@pytest.mark.parametrize(
    "entry_bytes",
    [
        None,
        b"",
        b"garbage",
        marshal.dumps(["a list"]),
        spots((0, 0, 1)),  # a slot there is not
        spots((5, 0, 0)),  # a piece out of the page's range
        spots((-1, 0, 0)),
        spots((0, 2, 0)),  # a third side
        spots((0, 0, 0), (1, 1, 0)),  # a back on a page of fronts
        spots((0, 0)),  # a spot of two
        spots((0.0, 0, 0)),
        marshal.dumps([(0, 0, 0)]),  # a list, not a tuple
    ],
)
def test_a_page_entry_of_another_shape_is_a_miss(entry_bytes: bytes | None) -> None:
    doc, _options = counters("mirror")
    looks = thumbs.Looks(doc.runs)
    assert thumbs._read_page(spots((0, 0, 0)), looks, 1, (0, 5, 1)) == ((0, 0, 0),)
    assert thumbs._read_page(entry_bytes, looks, 1, (0, 5, 1)) is None


def test_a_back_the_piece_does_not_have_is_a_miss() -> None:
    doc, _options = counters("mirror")
    doc = replace(doc, pieces=(replace(doc.pieces[0], back=None), *doc.pieces[1:]))
    looks = thumbs.Looks(doc.runs)
    assert thumbs._read_page(spots((0, 1, 0)), looks, 1, (0, 1, 3)) is None
    assert thumbs._read_page(spots((0, 0, 0)), looks, 1, (0, 1, 3)) is not None


def test_a_page_drawn_again_without_its_spots_is_the_same(tmp_path: Path) -> None:
    """A page's spots missing from the cache: the plan is made again and the page is drawn
    as it was."""
    doc, options = counters("mirror")
    pages, pdf, pack, first = _cold_thumbs(tmp_path, doc, options)
    warm = RenderCache(pack)
    key, layout, _plan = thumbs._known_layout(doc, options, warm)
    for page in thumbs._page_keys(options.page_pt, key, thumbs.Looks(doc.runs), layout.ranges):
        warm.index.pop(page, None)  # every page drawn again
    warm.index.pop(key + thumbs.PAGE_SPOTS + "0")
    assert [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, warm)] == first


def test_page_keys_change_with_the_code_that_draws_a_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thumbnail drawn by other code is not served from the cache: the page keys hold a
    digest of the preview's page code."""
    doc, options = counters("mirror")
    layout = thumbs._layout_of(thumbs.sheet_plan(doc, options), options.page_pt[1])
    looks = thumbs.Looks(doc.runs)
    before = thumbs._page_keys(options.page_pt, "plan", looks, layout.ranges)
    monkeypatch.setattr(thumbs, "_plan_code", lambda: "other code")
    after = thumbs._page_keys(options.page_pt, "plan", looks, layout.ranges)
    assert not set(after) & set(before)


def test_the_faces_of_the_pages_found_stay_in_the_cache(tmp_path: Path) -> None:
    """Builds that find every page keep the faces' pixels (a page drawn again later finds
    them) past the age at which unused entries leave the cache."""
    from compiler.backends.rendercache import AGE_LIMIT

    doc, options = counters("mirror")
    pages, pdf, pack, _first = _cold_thumbs(tmp_path, doc, options)
    height = options.page_pt[1]
    faces = [thumbs._faces_key(doc.kind, number) for number in range(len(pages))]
    kept = RenderCache(pack)
    assert set(faces) <= kept.index.keys()
    for number, page in enumerate(pages):  # each page's faces not printed from pictures
        drawn = {thumbs._face_key(ref, slot, height) for ref, slot in page if not ref.picture}
        assert thumbs._read_faces(kept.get(faces[number])).keys() == drawn
    for _ in range(AGE_LIMIT + 2):
        warm = RenderCache(pack)
        thumbs.sheet_thumbs(pdf, doc, options, warm)
        warm.save()
    assert set(faces) <= RenderCache(pack).index.keys()


def test_a_warm_build_draws_and_lists_only_the_pages_of_a_changed_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of pieces whose key changed: the pages its pieces are on are drawn again (the
    same thumbnails: its pieces are the same), the others are read back, and no run with a
    key is listed but those of the pieces on the pages drawn."""
    doc, options = counters("mirror")
    pages, pdf, pack, first = _cold_thumbs(tmp_path, doc, options)
    runs = doc.runs.runs
    plan = thumbs.sheet_plan(doc, options)
    starts = [sum(run.count for run in runs[:number]) for number in range(len(runs) + 1)]
    items = {*range(starts[1], starts[2])}
    on = [n for n, spots in enumerate(plan.pages) if {s[0] for s in spots} & items]
    shown = {s[0] for n in on for s in plan.pages[n]}
    near = {n for n in range(len(runs)) if shown & {*range(starts[n], starts[n + 1])}}
    assert len(near) < len(runs)
    listed = [run if n in near else never_listed(run) for n, run in enumerate(runs)]
    changed = keyed(SheetDoc(doc.title, doc.kind, Pieces(listed), doc.slot_mm), 1)
    drawn: list[int] = []
    real = thumbs._draw_page

    def spy(page: tuple[float, float], faces: list[thumbs.Face], *rest: object) -> bytes:
        drawn.append(len(faces))
        return real(page, faces, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(thumbs, "_draw_page", spy)
    warm = RenderCache(pack)
    assert [t.png for t in thumbs.sheet_thumbs(pdf, changed, options, warm)] == first
    assert drawn == [len(plan.pages[n]) for n in on]


def garbled_faces(page: list[thumbs.Face], height: float) -> bytes:
    """A page's faces entry whose every face's pixels are not pixels."""
    return marshal.dumps({thumbs._face_key(ref, slot, height): b"garbage" for ref, slot in page})


@pytest.mark.parametrize(
    "entry_bytes",
    [
        b"garbage",
        marshal.dumps(["a list"]),
        marshal.dumps({1: b"a key not a string"}),
        marshal.dumps({"key": "pixels not bytes"}),
        None,  # each face's pixels garbled
    ],
)
def test_a_pages_faces_of_another_shape_are_drawn_again(
    tmp_path: Path, entry_bytes: bytes | None
) -> None:
    """The faces kept at a page's place damaged or of another shape (or a face's pixels
    that are not pixels): the page is drawn again as it was."""
    doc, options = counters("mirror")
    pages, pdf, pack, first = _cold_thumbs(tmp_path, doc, options)
    if entry_bytes is not None:
        assert thumbs._read_faces(entry_bytes) == {}
    warm = RenderCache(pack)
    key, layout, _plan = thumbs._known_layout(doc, options, warm)
    for page in thumbs._page_keys(options.page_pt, key, thumbs.Looks(doc.runs), layout.ranges):
        warm.index.pop(page, None)  # every page drawn again
    for number, page_faces in enumerate(pages):
        garbled = garbled_faces(page_faces, options.page_pt[1])
        warm.memory[thumbs._faces_key(doc.kind, number)] = entry_bytes or garbled
    assert [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, warm)] == first


def with_front_of(doc: SheetDoc, number: int, other: int) -> SheetDoc:
    """The document with piece `number`'s front looking as piece `other`'s does."""
    pieces = [*doc.pieces]
    pieces[number] = replace(pieces[number], front=doc.pieces[other].front)
    return SheetDoc(doc.title, doc.kind, pieces, doc.slot_mm)


@pytest.mark.parametrize("changed", [[3], [0, 7], [5, 6, 9]])
def test_a_page_with_changed_faces_is_patched_to_the_thumbnail_drawn_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: list[int]
) -> None:
    """Faces changed on a page: the page is drawn over its kept pixels (no paper
    rasterised, only the faces not kept), and is the thumbnail drawn whole without a cache."""
    doc, options = counters("mirror")
    pages, pdf, pack, _first = _cold_thumbs(tmp_path, doc, options)
    edited = doc
    for number in changed:
        other = (number + len(doc.pieces) // 2) % len(doc.pieces)
        edited = with_front_of(edited, number, other)
    whole = [t.png for t in thumbs.sheet_thumbs(pdf, edited, options, RenderCache(None))]
    assert whole != [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, RenderCache(None))]

    heights = spy_on_thumbnail_rasterize(monkeypatch)
    warm = RenderCache(pack)
    assert [t.png for t in thumbs.sheet_thumbs(pdf, edited, options, warm)] == whole
    assert thumbs.THUMB_HEIGHT not in heights
    warm.save()
    first = [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, RenderCache(None))]
    heights.clear()
    again = RenderCache(pack)  # and back: patched again, to the first thumbnails
    assert [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, again)] == first
    assert thumbs.THUMB_HEIGHT not in heights


def garbled_pixels(data: bytes | None, how: str) -> bytes:
    """A page's pixels record damaged as `how` says."""
    record = marshal.loads(data) if data is not None else None
    assert type(record) is tuple
    if how == "garbage":
        return b"garbage"
    if how == "shape":
        return marshal.dumps(record[:4])
    if how == "pixels":
        return marshal.dumps((*record[:4], b"RGB 10 10\n" + b"x" * 40))
    if how == "size":
        paper = b"RGB 1 220\n" + zlib.compress(b"\0" * 660)
        return marshal.dumps((*record[:3], paper, paper))
    assert how == "laid"
    return marshal.dumps((*record[:2], ((1, 2, 3),), *record[3:]))


@pytest.mark.parametrize("how", ["garbage", "shape", "pixels", "size", "laid"])
def test_a_pages_damaged_pixels_are_not_patched(tmp_path: Path, how: str) -> None:
    """The pixels kept at a page's place damaged or of another shape: the page with a
    changed face is drawn whole, the thumbnail drawn without a cache."""
    doc, options = counters("mirror")
    pages, pdf, pack, _first = _cold_thumbs(tmp_path, doc, options)
    edited = with_front_of(doc, 3, len(doc.pieces) // 2)
    warm = RenderCache(pack)
    for number in range(len(pages)):
        key = thumbs._pixels_key(doc.kind, number)
        warm.memory[key] = garbled_pixels(warm.get(key), how)
    whole = [t.png for t in thumbs.sheet_thumbs(pdf, edited, options, RenderCache(None))]
    assert [t.png for t in thumbs.sheet_thumbs(pdf, edited, options, warm)] == whole


def test_a_page_of_another_size_of_the_same_shape_is_not_patched() -> None:
    """Pixels kept of a page of another size but the same shape (the same paper in pixels):
    the faces are at other places, so the page is drawn whole."""
    doc, options = counters("mirror")
    faces = thumbs.sheet_faces(doc, options)[0]
    big, small = (595.0, 842.0), (595.0 * 1.015625, 842.0 * 1.015625)  # faces as tall

    known: dict[str, bytes] = {}

    def drawn(page: tuple[float, float], last: bytes | None) -> tuple[bytes, bytes]:
        result = thumbs._draw_page(page, faces, {}, known.get, last)
        png, used, record = marshal.loads(result)
        known.update(used)
        return png, record

    _png, kept = drawn(big, None)
    assert drawn(small, kept)[0] == drawn(small, None)[0] != drawn(big, None)[0]
    assert drawn(big, kept)[0] == drawn(big, None)[0]


def _cold_thumbs(
    tmp_path: Path, doc: SheetDoc, options: SheetOptions
) -> tuple[list[list[thumbs.Face]], bytes, Path, list[bytes | None]]:
    """The sheet's thumbnails made with a new cache in `tmp_path`, saved: the pages' faces,
    the PDF the thumbnails are of (a page size per page), the cache's pack and the PNGs."""
    pages = thumbs.sheet_faces(doc, options)
    pdf = b"".join(b"/MediaBox [0 0 595 842]" for _ in pages)
    pack = tmp_path / "preview.pack"
    cold = RenderCache(pack)
    first = [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, cold)]
    cold.save()
    return pages, pdf, pack, first
