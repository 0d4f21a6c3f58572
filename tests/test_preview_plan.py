"""The plan of the sheet pages the preview's thumbnails are drawn from (preview.thumbs): kept
in the preview's cache, it gives the pages, faces and keys the imposition gives, and a plan
entry of another shape, or naming faces or slots there are not, is a miss."""

from __future__ import annotations

import hashlib
import marshal
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.backends.preview import thumbs
from compiler.backends.rendercache import RenderCache, digest_key
from compiler.backends.sheets.build import sheet_docs
from compiler.backends.sheets.impose import Rect, impose
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.sheets.pdf import SheetDoc
from compiler.load.game import load_game
from tests.conftest import SOURCES


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
    identities = thumbs._identities(doc)
    assert thumbs._all_face_keys(identities, plan, height) == {
        thumbs._face_key(ref, slot, height) for faces in pages for ref, slot in faces
    }
    fronts, backs = thumbs._looks(doc)
    if len(layout.heights) == 1:
        assert thumbs._face_keys_kept(fronts, backs, layout, None, height) >= {
            thumbs._face_key(ref, slot, height) for faces in pages for ref, slot in faces
        }
    keys = thumbs._page_keys(options.page_pt, "plan", fronts, backs, layout.ranges)
    assert len(set(keys)) == len(keys)
    assert thumbs._page_keys(options.page_pt, "other plan", fronts, backs, layout.ranges) != keys


@pytest.mark.parametrize("piece", [0, 7, -1])
def test_a_changed_face_changes_the_keys_of_the_pages_it_is_on(piece: int) -> None:
    doc, options = counters("mirror")
    plan = thumbs.sheet_plan(doc, options)
    layout = thumbs._layout_of(plan, options.page_pt[1])
    fronts, backs = thumbs._looks(doc)
    keys = thumbs._page_keys(options.page_pt, "plan", fronts, backs, layout.ranges)
    number = piece % len(doc.pieces)
    changed = [*fronts]
    changed[number] = "unit:en:changed"
    again = thumbs._page_keys(options.page_pt, "plan", changed, backs, layout.ranges)
    on = {n for n, spots in enumerate(plan.pages) if (number, 0) in {s[:2] for s in spots}}
    differ = {n for n, (a, b) in enumerate(zip(keys, again, strict=True)) if a != b}
    assert on and on <= differ
    assert len(differ) < len(keys)


def test_a_plan_is_kept_and_read_back(tmp_path: Path) -> None:
    doc, options = counters("mirror")
    cache = RenderCache(tmp_path / "preview.pack")
    key, layout, plan = thumbs._known_layout(doc, options, cache)
    assert plan == thumbs.sheet_plan(doc, options)
    cache.save()
    again = RenderCache(tmp_path / "preview.pack")
    assert thumbs._known_layout(doc, options, again) == (key, layout, None)
    assert again.hits == 1 and again.misses == 0
    for number, spots in enumerate(plan.pages):
        found = again.get(key + thumbs.PAGE_SPOTS + str(number))
        assert thumbs._read_page(found, doc, len(layout.slots), layout.ranges[number]) == spots


def test_a_plan_for_other_copies_is_not_this_documents() -> None:
    doc, options = counters("mirror")
    more = replace(doc, pieces=(replace(doc.pieces[0], copies=9), *doc.pieces[1:]))
    fewer = replace(doc, pieces=(replace(doc.pieces[0], back=None), *doc.pieces[1:]))
    keys = {thumbs._plan_key(d, options) for d in (doc, more, fewer)}
    keys.add(thumbs._plan_key(doc, SheetOptions(duplex="none")))
    assert len(keys) == 4


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
    cache.put(thumbs._plan_key(doc, options) + thumbs.LAYOUT, entry_bytes)
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
    assert thumbs._read_page(spots((0, 0, 0)), doc, 1, (0, 5, 1)) == ((0, 0, 0),)
    assert thumbs._read_page(entry_bytes, doc, 1, (0, 5, 1)) is None


def test_a_back_the_piece_does_not_have_is_a_miss() -> None:
    doc, _options = counters("mirror")
    doc = replace(doc, pieces=(replace(doc.pieces[0], back=None), *doc.pieces[1:]))
    assert thumbs._read_page(spots((0, 1, 0)), doc, 1, (0, 1, 3)) is None
    assert thumbs._read_page(spots((0, 0, 0)), doc, 1, (0, 1, 3)) is not None


def test_a_page_drawn_again_without_its_spots_is_the_same(tmp_path: Path) -> None:
    """A page's spots missing from the cache: the plan is made again and the page is drawn
    as it was."""
    doc, options = counters("mirror")
    pages = thumbs.sheet_faces(doc, options)
    pdf = b"".join(b"/MediaBox [0 0 595 842]" for _ in pages)
    pack = tmp_path / "preview.pack"
    cold = RenderCache(pack)
    first = [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, cold)]
    cold.save()
    warm = RenderCache(pack)
    key, layout, _plan = thumbs._known_layout(doc, options, warm)
    fronts, backs = thumbs._looks(doc)
    for page in thumbs._page_keys(options.page_pt, key, fronts, backs, layout.ranges):
        warm.index.pop(page, None)  # every page drawn again
    warm.index.pop(key + thumbs.PAGE_SPOTS + "0")
    assert [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, warm)] == first


def test_page_keys_change_with_the_code_that_draws_a_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thumbnail drawn by other code is not served from the cache: the page keys hold a
    digest of the preview's page code."""
    doc, options = counters("mirror")
    layout = thumbs._layout_of(thumbs.sheet_plan(doc, options), options.page_pt[1])
    fronts, backs = thumbs._looks(doc)
    before = thumbs._page_keys(options.page_pt, "plan", fronts, backs, layout.ranges)
    monkeypatch.setattr(thumbs, "_plan_code", lambda: "other code")
    after = thumbs._page_keys(options.page_pt, "plan", fronts, backs, layout.ranges)
    assert not set(after) & set(before)


def test_the_faces_of_the_pages_found_stay_in_the_cache(tmp_path: Path) -> None:
    """Builds that find every page keep the faces' pixels (a page drawn again later finds
    them) past the age at which unused entries leave the cache."""
    from compiler.backends.rendercache import AGE_LIMIT

    doc, options = counters("mirror")
    pages = thumbs.sheet_faces(doc, options)
    pdf = b"".join(b"/MediaBox [0 0 595 842]" for _ in pages)
    pack = tmp_path / "preview.pack"
    cold = RenderCache(pack)
    thumbs.sheet_thumbs(pdf, doc, options, cold)
    cold.save()
    height = options.page_pt[1]
    faces = {thumbs._face_key(ref, slot, height) for p in pages for ref, slot in p}
    drawn = faces & RenderCache(pack).index.keys()  # the faces not printed from pictures
    assert drawn
    for _ in range(AGE_LIMIT + 2):
        warm = RenderCache(pack)
        thumbs.sheet_thumbs(pdf, doc, options, warm)
        warm.save()
    assert drawn <= RenderCache(pack).index.keys()
