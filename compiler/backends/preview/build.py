"""build/<game>/index.html: the preview page of a build, and the images it shows.

The images are flat files beside the page (`preview-<kind>-<digest>.<ext>`, named by their
content like the module's images, so an image shown in several editions is stored once): the
piece faces and charts are the module's own, taken from the render plan (its faces come from
the render cache the module was just built from: nothing is drawn twice), the units' faces in
one sprite per run of units (preview.sprites); sheet thumbnails are
drawn from the faces' display lists into their own cache (preview.pack); scenario pictures are
compiler.backends.scenepics' PNGs, kept in their own cache (scenes.pack). The units section is
kept in runs of units (preview.kept: preview-units.pack). The page holds no date and no
random id: the same sources give the same bytes."""

from __future__ import annotations

import hashlib
import marshal
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Literal, Protocol

from compiler.backends.charts.build import charts_rendered, render_charts
from compiler.backends.files import FILE_MODE, Recorded, write_atomically
from compiler.backends.keptrecord import unmarshalled
from compiler.backends.preview.html import Sources, e, page_bytes
from compiler.backends.preview.kept import RUNS, KeptRuns, shared_part
from compiler.backends.preview.pdfpages import pdf_pages
from compiler.backends.preview.sections import (
    Context,
    cards_section,
    charts_section,
    markers_section,
    scenarios_section,
    thumbs_section,
    unit_words,
    units_section,
)
from compiler.backends.preview.sprites import (
    Cell,
    ReadFace,
    cells,
    cells_record,
    kept_cells,
    reader,
    sprite_bytes,
    sprite_name,
)
from compiler.backends.preview.thumbs import Thumb, page_thumbs
from compiler.backends.rendercache import RenderCache, digest_key
from compiler.backends.sheets.build import sheet_docs
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.vassal.module import IMAGES, LazyFiles, Read, render_plan
from compiler.diagnostics import Finding, Severity
from compiler.i18n import tr
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario

PAGE_NAME = "index.html"
PREFIX = "preview-"


class EditionLike(Protocol):
    """What the page needs of a pipeline.Edition."""

    @property
    def name(self) -> str: ...
    @property
    def game(self) -> GameData: ...
    @property
    def cache(self) -> Path: ...
    @property
    def prefix(self) -> str: ...


class Files:
    """The preview's image files by content: name → bytes (a module image the module did
    not read is read only when it is written, not linked: see `_write_images`)."""

    def __init__(self) -> None:
        self.files = LazyFiles()
        self.named: list[tuple[Mapping[str, bytes], set[str]]] = []
        """Images of modules named at once (`add_all_from`): each module's images, and the
        names of those the page shows."""
        self.later: dict[str, Callable[[], bytes]] = {}
        """Files made only when they are written (the units' sprites), by a name that is a
        digest of what makes them."""

    def add(self, name: str, data: bytes) -> str:
        self.files.put(PREFIX + name, data)
        return PREFIX + name

    def add_from(self, name: str, images: Mapping[str, bytes], key: str) -> str:
        """The image `key` of `images` (the module's), read when `images` would read it."""
        self.files.put_from(PREFIX + name, images, key)
        return PREFIX + name

    def add_all_from(self, images: Mapping[str, bytes], names: Iterable[str]) -> None:
        """The images of `images` (the module's) named `images/<name>` for each of `names`,
        each as `preview-<name>` (as `add_from` names it), in passes that stay in C: a large
        game shows hundreds of charts."""
        if self.named and self.named[-1][0] is images:
            self.named[-1][1].update(names)
        else:
            self.named.append((images, set(names)))

    def add_later(self, name: str, make: Callable[[], bytes]) -> None:
        """A file `make` gives, made only if it is written (`name` is a digest of what makes
        it: a file of that name the last build wrote is kept as it is)."""
        self.later[name] = make

    def add_digest(self, kind: str, data: bytes, ext: str) -> str:
        name = digest_name(kind, data, ext)
        self.files.put(name, data)
        return name


class SpriteFiles:
    """The sprites of an edition's units (preview.sprites), each among the page's files, and
    their cells' widths kept in `cache` (the units' runs': see kept) under the sprite's name."""

    def __init__(self, files: Files, images: Mapping[str, bytes], cache: RenderCache) -> None:
        self.files, self.cache = files, cache
        self.read: ReadFace = reader(images, IMAGES)

    def name(self, faces: Sequence[str]) -> str:
        name = sprite_name(faces, PREFIX)
        self.files.add_later(name, partial(sprite_bytes, tuple(faces), self.read))
        self.cache.keep([_cells_key(name)])  # while the page shows the sprite
        return name

    def cells(self, faces: Sequence[str]) -> Mapping[str, Cell]:
        key = _cells_key(sprite_name(faces, PREFIX))
        found = kept_cells(self.cache.get(key), faces)
        if found is None:
            found = cells(faces, self.read)
            self.cache.put(key, cells_record(found))
        return found


def _cells_key(sprite: str) -> str:
    return digest_key("preview-sprite-cells", sprite)


def digest_name(kind: str, data: bytes, ext: str) -> str:
    """The preview file of `data` (`Files.add_digest`): named by a digest of its bytes."""
    return f"{PREFIX}{kind}-{hashlib.sha1(data).hexdigest()[:16]}.{ext}"


class PreviewPage:
    """index.html, made edition by edition, then written into `folder` (the build's new set
    of outputs, which will become out_dir/<game>/) with its images. A section is made right
    after its edition's module, sheets and charts (`add`), while what the build worked out for
    that edition (its render plan, its charts: compiler.backends.pergame keeps one edition's)
    is still there to be taken: made after the last edition, each section of a series but the
    last worked them out again (at a GCACW title's warm rebuild, 0.09 s of 0.6)."""

    def __init__(
        self,
        options: SheetOptions,
        out_dir: Path,
        piece_images: Literal["svg", "png"],
        folder: Path,
        first: GameData,
    ) -> None:
        self.options, self.piece_images, self.folder = options, piece_images, folder
        self.sources = Sources(first.root, out_dir / first.game.id)
        self.files = Files()
        self.nav: list[tuple[str, str]] = []
        self.body: list[str | bytes] = []

    def add(self, edition: EditionLike) -> None:
        """The edition's section (after its module, sheets and charts are in `folder`)."""
        lang = self.options.lang
        self.nav.append((f"e-{edition.name}", edition.game.game.title.get(lang)))
        files, sources = self.files, self.sources
        self.body.extend(
            _edition(edition, self.options, self.piece_images, self.folder, sources, files)
        )

    def write(
        self,
        title: Text,
        findings: Sequence[Finding] = (),
        watched: bool = False,
        kept: Mapping[str, Recorded] | None = None,
        reused: set[str] | None = None,
    ) -> Path:
        """The page (the build's findings first, then the sections) and its images. An image
        whose file the previous set holds as `kept` records it (size, mtime, inode: the files
        of that set the last build wrote, untouched since: see files.OutputFolder) is not
        written but named in `reused`: the new set keeps that file."""
        lang = self.options.lang
        nav = [("findings", tr("Findings", lang)), *self.nav]
        body = [findings_section(findings, self.sources, lang), *self.body]
        html = page_bytes(title.get(lang), lang, nav, body, watched)
        _write_images(self.files, self.folder, kept or {}, reused)
        return write_atomically(self.folder / PAGE_NAME, html)


def _write_images(
    files: Files,
    folder: Path,
    kept: Mapping[str, Recorded],
    reused: set[str] | None,
) -> None:
    """Every image of the page into `folder`, but those the previous set holds as `kept`
    records them, which go in `reused` (when it is given): a name is a digest of the bytes,
    and a file of that name and size the last build wrote, untouched since, is the image
    (writing, then linking, thousands of files again was the slowest step of a warm
    rebuild). An image is read only to be written. The module images named at once are
    taken by name alone, in passes that stay in C (a module names an image by the digest of
    its bytes too: vassal.module.ImageStore); so is a sprite (its name is a digest of the
    names of its faces and of the code that makes it: see sprites), made only to be
    written."""
    added = files.files
    for name in sorted(added):
        recorded = kept.get(name)
        if reused is not None and recorded is not None and recorded[0] == added.size(name):
            reused.add(name)
        else:
            _write_new(folder / name, added[name])
    done = set(added)
    for number, (images, names) in enumerate(files.named, start=1):
        wanted = set(map(PREFIX.__add__, names))
        wanted.difference_update(done)  # by the few written above (a pass over them)
        if number < len(files.named):
            done.update(wanted)
        new = wanted
        if reused is not None:
            new = wanted.difference(kept)  # one pass over the names, looked up in `kept`
            reused.update(wanted.intersection(kept) if new else wanted)
        for name in sorted(new):
            _write_new(folder / name, images[IMAGES + name.removeprefix(PREFIX)])
    for name in sorted(files.later):
        if reused is not None and name in kept:
            reused.add(name)
        else:
            _write_new(folder / name, files.later[name]())


def _write_new(target: Path, data: bytes) -> None:
    """An image of the page, written straight into the build's new set of outputs: that
    folder is the build's own until it is committed, so a file needs no temporary name of
    its own (hundreds of them made the preview the slowest step of a warm rebuild). A file
    already there (an image two sections share) is the same bytes: its name is a digest of
    them."""
    try:
        with open(target, "xb") as out:
            out.write(data)
    except FileExistsError:
        return
    os.chmod(target, FILE_MODE)


def _edition(
    edition: EditionLike,
    options: SheetOptions,
    piece_images: Literal["svg", "png"],
    folder: Path,
    sources: Sources,
    files: Files,
) -> list[str | bytes]:
    """The edition's section of the page, in parts (its sections, ASCII but for the
    names the game gives, are not joined into one string: see html.page_bytes; those read
    back from the kept runs are UTF-8 bytes)."""
    game, lang = edition.game, options.lang
    # the charts as the module shows them, from their cache (what render_charts remembers is
    # the last edition's only): render_plan takes them from there instead of drawing them;
    # the cache's index (megabytes for a large game) opened only when they are not made yet
    if not charts_rendered(game, options):
        render_charts(game, options, RenderCache(edition.cache / "charts.pack"))
    plan, images = render_plan(game, edition.cache / "faces.pack", lang, piece_images)

    def module_image(name: str) -> str:
        return files.add_from(name, images, IMAGES + name)

    anchor = f"e-{edition.name}"
    kept = _kept_runs(edition.cache, lang, anchor, sources)
    pictures = partial(files.add_all_from, images)
    sprites = SpriteFiles(files, images, kept.cache)
    ctx = Context(game, plan, lang, anchor, sources, module_image, pictures, kept, sprites)
    pdfs, thumbs = _thumbs(edition, options, folder)
    scenes = _scenes(game, lang, files, RenderCache(edition.cache / "scenes.pack"))
    links = [
        (f"{anchor}-units", tr("Counters and blocks", lang)),
        (f"{anchor}-markers", tr("Markers", lang)),
        (f"{anchor}-cards", tr("Cards", lang)),
        (f"{anchor}-scenarios", tr("Scenarios", lang)),
        (f"{anchor}-pdfs", tr("Print files", lang)),
        (f"{anchor}-charts", tr("Charts", lang)),
    ]
    sections: list[str | bytes] = [
        units_section(ctx),
        markers_section(ctx),
        cards_section(ctx),
        scenarios_section(ctx, scenes),
        thumbs_section(ctx, pdfs, lambda key: files.add_digest("page", thumbs[key], "png")),
        charts_section(ctx),
    ]
    kept.save()
    shown = [(ident, label) for (ident, label), text in zip(links, sections, strict=True) if text]
    items = "".join(f'<li><a href="#{e(i)}">{e(label)}</a></li>' for i, label in shown)
    module = f"{edition.name}.vmod"
    heading = e(game.game.title.get(lang))
    opening = (
        f'<section id="{e(anchor)}" class="edition">\n<h2>{heading}</h2>\n'
        f'<p>{e(tr("Module", lang))}: <a href="{e(module)}">{e(module)}</a></p>\n'
        f'<nav aria-label="{heading}"><ul>{items}</ul></nav>\n'
    )
    return [opening, *sections, "</section>\n"]


def _kept_runs(cache: Path, lang: str, anchor: str, sources: Sources) -> KeptRuns:
    """The runs of the units section the edition's last builds wrote, for those made of the
    same things; what they all depend on is the language with its words, the anchor and the
    folders the links are made from."""
    folders = (str(sources.base), str(sources.page_folder))
    shared = shared_part(lang, *unit_words(lang), anchor, *folders)
    return KeptRuns(cache / RUNS, shared)


def _thumbs(
    edition: EditionLike, options: SheetOptions, folder: Path
) -> tuple[list[tuple[str, list[Thumb]]], dict[str, bytes]]:
    """Each PDF of the edition written in `folder` with its pages' thumbnails, and the
    thumbnails' PNGs by "<file>:<page>"."""
    cache = RenderCache(edition.cache / "preview.pack")
    pdfs: list[tuple[str, list[Thumb]]] = []
    for name, (doc, doc_options) in sheet_docs(edition.game, options).items():
        path = folder / f"{edition.prefix}{name}"
        sizes = pdf_pages(path)
        if sizes is not None:
            pdfs.append((path.name, page_thumbs(sizes, doc, doc_options, cache)))
    charts = folder / f"{edition.prefix}charts.pdf"
    sizes = pdf_pages(charts)
    cache.save()
    if sizes is not None:
        pdfs.append((charts.name, [Thumb(n, s, None) for n, s in enumerate(sizes, start=1)]))
    pngs = {
        f"{name}:{t.number}": t.png for name, thumbs in pdfs for t in thumbs if t.png is not None
    }
    return pdfs, pngs


def _scenes(game: GameData, lang: str, files: Files, cache: RenderCache) -> dict[str, str]:
    """Scenario id → its picture's file: compiler.backends.scenepics' PNG, kept in `cache`
    under the picture's own key (what decides its look), so a warm build draws only the
    pictures whose key changed, and of those only the faces that changed (the faces' pixels
    are kept in `cache` too, and stay while the picture is read back: keep_scene_png). A
    picture kept with its file's name and size is not read at all (see `_kept_scene`)."""
    from compiler.backends.scenepics import keep_scene_png, picture_key, scenario_scene, scene_png

    found: dict[str, str] = {}
    for scenario in game.scenarios:
        key = digest_key("preview-scene", picture_key(game, scenario, lang))
        redraw = partial(_scene_drawn, game, scenario, lang, cache.pack)
        named = _kept_scene(cache, key, files, redraw)
        if named is not None:
            keep_scene_png(cache, scenario, lang)
            found[scenario.id] = named
            continue
        png = cache.get(key)
        if png is None:
            png = scene_png(scenario_scene(game, scenario, lang, cache), cache)
            cache.put(key, png)
        else:
            keep_scene_png(cache, scenario, lang)
        found[scenario.id] = files.add_digest("scenario", png, "png")
        cache.put(_file_key(key), marshal.dumps((SCENE_FILE, found[scenario.id], len(png))))
    cache.save()
    return found


SCENE_FILE = "countermix-preview-scene-file-1"
"""The shape of the record of a scenario picture's file (its name and size)."""
SCENE_NAME = re.compile(r"preview-scenario-[0-9a-f]{16}\.png")


def _file_key(key: str) -> str:
    """The key of the record of the file of the picture kept under `key`."""
    return digest_key("preview-scene-file", key)


def _kept_scene(cache: RenderCache, key: str, files: Files, redraw: Read) -> str | None:
    """The file of the picture kept under `key`, named from its record (name and size: the
    name is a digest of the bytes, see Files.add_digest) without reading the picture, a
    megabyte for a large map: it is read only when the file is written (the last set of
    outputs does not hold it), and drawn again when it turns out damaged (`redraw`). None:
    no picture or record kept, or a record of another shape."""
    record = unmarshalled(cache.get(_file_key(key)))
    if type(record) is not tuple or len(record) != 3 or record[0] != SCENE_FILE:
        return None
    _shape, name, size = record
    if type(name) is not str or not SCENE_NAME.fullmatch(name) or type(size) is not int:
        return None
    if not cache.holds(key):
        return None
    cache.keep([key])
    files.files.put_later(name, size, partial(_scene_bytes, cache.pack, key, name, redraw))
    return name


def _scene_bytes(pack: Path | None, key: str, name: str, redraw: Read) -> bytes:
    """A kept picture's bytes, read when its file is written: from the cache, when they are
    the file's (the digest its name gives), else drawn again."""
    png = RenderCache(pack).get(key)
    if png is not None and name == digest_name("scenario", png, "png"):
        return png
    return redraw()


def _scene_drawn(game: GameData, scenario: Scenario, lang: str, pack: Path | None) -> bytes:
    """A scenario's picture drawn again (its cache read afresh, not written: the build that
    reads it has saved its own)."""
    from compiler.backends.scenepics import scenario_scene, scene_png

    cache = RenderCache(pack)
    return scene_png(scenario_scene(game, scenario, lang, cache), cache)


def findings_section(findings: Sequence[Finding], sources: Sources, lang: str) -> str:
    """The build's findings (warnings and notes: a build with errors writes nothing)."""
    out = [f'<section id="findings"><h2>{e(tr("Findings", lang))} ({len(findings)})</h2>\n']
    if not findings:
        out.append(f"<p>{e(tr('The build found nothing to report.', lang))}</p>\n")
    else:
        out.append('<ol class="findings">\n')
        for finding in findings:
            warning = finding.severity is Severity.WARNING
            severity, shown = (
                ("warning", tr("warning", lang)) if warning else ("error", tr("error", lang))
            )
            hint = f"<br><small>{e(finding.hint)}</small>" if finding.hint else ""
            out.append(
                f'<li><span class="{severity}">{e(shown)}</span> '
                f"<code>{e(finding.rule)}</code> {sources.link(finding.location)}<br>"
                f"{e(finding.message)}{hint}</li>\n"
            )
        out.append("</ol>\n")
    out.append("</section>\n")
    return "".join(out)
