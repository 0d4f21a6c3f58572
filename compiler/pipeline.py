"""The pipeline in one place: find games → load → validate → back ends.

Importing this module is cheap (the loader, the rules and the back ends are imported by the
functions that use them), so the commands that need none of them start at once."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeGuard

from compiler.diagnostics import (
    Finding,
    Location,
    Related,
    Severity,
    render_text,
    sort_findings,
    summary,
)

if TYPE_CHECKING:
    from compiler.backends.files import Recorded
    from compiler.backends.sheets.options import SheetOptions
    from compiler.backends.sheets.pdf import Piece
    from compiler.buildstamp import Recorder
    from compiler.model.gamedata import GameData

YAML_SUFFIXES = (".yaml", ".yml")
"""The names of data files (compiler.load.game.YAML_SUFFIXES, which a test keeps equal)."""

Progress = Callable[[str, str, int, int], None]
"""progress(game, stage, done, total): stage `stage` of the game in folder `game` (load,
validate, faces, module, sheets, charts) has `done` of its `total` items done (total 0: not
known yet); compiler.progress shows it."""


def no_progress(game: str, stage: str, done: int, total: int) -> None:
    """The progress of a build nobody watches."""


class UsageError(Exception):
    """A command-line mistake (an unknown game, a missing folder): exit code 2."""


@dataclass
class GameReport:
    folder: Path
    game: GameData | None
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)


def game_folders(sources: Path) -> list[Path]:
    if not sources.is_dir():
        raise UsageError(f"no sources folder at {sources}")
    try:
        return sorted(p for p in sources.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError as err:
        raise UsageError(f"cannot list {sources}: {err.strerror or err}") from err


def is_games_folder(folder: Path) -> bool:
    """A folder of games rather than one game: no data file at its top, and each subfolder
    with data files at its top declares a game there (a game whose data is split into
    subfolders has one that declares the game and others that do not)."""
    visible = _visible(folder)
    if any(p.name.endswith(YAML_SUFFIXES) and not p.is_dir() for p in visible):
        return False
    subfolders = [p for p in visible if p.is_dir()]
    with_data = [sub for sub in subfolders if _top_data_files(sub)]
    return bool(subfolders) and all(_declares_game(sub) for sub in with_data)


def _visible(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if not p.name.startswith(".")]
    except OSError:
        return []


def _top_data_files(folder: Path) -> list[Path]:
    return [p for p in _visible(folder) if p.name.endswith(YAML_SUFFIXES) and not p.is_dir()]


GAME_SECTION = re.compile(rb"^game[ \t]*:", re.MULTILINE)


def _declares_game(folder: Path) -> bool:
    """Whether a data file at the folder's top has a `game:` section (a file that cannot be
    read counts as one: the game's own validation will say what is wrong with it)."""
    from compiler.load.yamlread import read_bytes

    for path in _top_data_files(folder):
        data = read_bytes(str(path), str(folder))
        if not isinstance(data, bytes) or GAME_SECTION.search(data):
            return True
    return False


def resolve_games(names: list[str], sources: Path) -> list[Path]:
    """Game ids under sources/, paths of game folders, or paths of folders of games (a
    folder with no data file at its top, like sources/ itself); none means every game."""
    if not names:
        folders = game_folders(sources)
        if not folders:
            raise UsageError(f"no game folders under {sources}")
        return folders
    resolved: list[Path] = []
    for name in names:
        as_path = Path(name)
        if as_path.is_dir():
            resolved.extend(game_folders(as_path) if is_games_folder(as_path) else [as_path])
        elif (sources / name).is_dir():
            resolved.append(sources / name)
        else:
            known = ", ".join(p.name for p in game_folders(sources)) if sources.is_dir() else ""
            raise UsageError(
                f"no game `{name}` (neither a folder nor a game under {sources})"
                + (f"; games: {known}" if known else "")
            )
    return list(dict.fromkeys(resolved))


def check_game(
    folder: Path,
    build_lang: str | None = None,
    progress: Progress = no_progress,
    untranslated: bool = False,
    kept: Path | None = None,
) -> GameReport:
    """Load and validate one game folder; the findings of both stages, sorted. With
    `build_lang` ("" for the game's own print language), also what the build checks before it
    writes anything: board art, print settings, fonts, and every face laid out as the build
    lays it out (text that will not fit), so a clean `validate` means a clean build."""
    from compiler.load.aids import player_aids
    from compiler.load.game import load_game
    from compiler.rules.engine import rule_ids, validate

    progress(folder.name, "load", 0, 0)
    loaded = load_game(folder, kept)
    findings = list(loaded.findings)
    game = loaded.game
    if game is not None:
        progress(folder.name, "load", len(game.files), len(game.files))
        progress(folder.name, "validate", 0, len(game.constraints))
        findings.extend(validate(game, untranslated))
        if game.aids_template[2]:  # the game's own template; the shared one is tested
            findings.extend(player_aids(game)[1])
        progress(folder.name, "validate", len(game.constraints), len(game.constraints))
        if build_lang is not None and not any(f.severity is Severity.ERROR for f in findings):
            changes = {"lang": build_lang} if build_lang else {}
            findings.extend(build_checks(game, None, changes)[1])
    return GameReport(folder, game, sort_findings(findings, () if game is None else rule_ids(game)))


def build_checks(
    game: GameData,
    sheets: SheetOptions | None,
    changes: Mapping[str, object],
    cache: Path | None = None,
    faces: Callable[[int], None] = lambda done: None,
) -> tuple[SheetOptions | None, list[Finding]]:
    """What the build checks before it draws: board and piece art, print settings and fonts
    (errors), then every face laid out in the print language (text-overflow warnings; an SVG
    picture, which the sheets cannot print, too). The sheet options are `sheets`, else the
    game's `print:` settings with `changes`; None when they are bad. With `cache` (a game's
    cache folder), the layout notes of faces laid out before are read from it."""
    from compiler.backends.pieceart import check_piece_art
    from compiler.backends.sheets.options import SheetOptions
    from compiler.backends.vassal.boardart import check_board_art

    pictures = check_piece_art(game)
    problems = check_board_art(game) + [f for f in pictures if f.severity is Severity.ERROR]
    notes = [f for f in pictures if f.severity is not Severity.ERROR]
    options: SheetOptions | None = None
    try:
        options = _with_changes(sheets or SheetOptions.from_settings(game.game.print), changes)
    except ValueError as err:
        where = game.game.print.loc if game.game.print else game.game.loc
        hint = "counter sizes are 1/2in, 9/16in, 5/8in, 3/4in, 1in or NNmm"
        problems.append(Finding("print-settings", where, str(err), hint))
    if options is not None:
        problems.extend(font_problems(game, options.lang))
    if problems or options is None:
        return options, problems + notes
    return options, notes + face_findings(game, options.lang, cache, faces)


def build_game(
    folder: Path,
    out_dir: Path,
    sheets: SheetOptions | None = None,
    changes: Mapping[str, object] | None = None,
    piece_images: Literal["svg", "png"] = "svg",
    combined: bool = False,
) -> tuple[GameReport, list[Path]]:
    """Validate one game folder, then build it (see build_checked)."""
    return build_checked(
        check_game(folder), out_dir, sheets, changes, piece_images, combined=combined
    )


@dataclass(frozen=True)
class Edition:
    """One module of a game and the files printed with it: the whole game (`title` None), or
    one title of a series. `name` is the module file's name without `.vmod`; the sheets and
    charts of a title carry it as a prefix (`gcacw-rtg-counters.pdf`)."""

    name: str
    game: GameData
    cache: Path
    title: str | None = None

    @property
    def prefix(self) -> str:
        return "" if self.title is None else f"{self.name}-"


def editions(
    base: GameData, game: GameData, cache: Path, combined: bool
) -> tuple[list[Edition], list[Finding]]:
    """The modules a build writes: one per title of a series (unless `combined`), else one
    for the whole game (`game`, with its player aids). A title's game is made from `base` (the
    game as loaded) and gets its own player aids and its own render caches."""
    from compiler.load.aids import with_aids
    from compiler.model.series import title_game, title_module_name, title_slug

    if combined or not base.game.titles:
        return [Edition(base.game.id, game, cache)], []
    found: list[Edition] = []
    problems: list[Finding] = []
    for title in base.game.titles:
        folder = cache / "titles" / title_slug(title)
        made, failed = with_aids(title_game(base, title), folder)
        problems.extend(f for f in failed if f not in problems)
        found.append(Edition(title_module_name(base, title), made, folder, title.id))
    return found, problems


def shown_modules(modules: list[Path]) -> str:
    """Modules as the build reports them: one path, or a folder and the names in braces."""
    if len(modules) == 1:
        return str(modules[0])
    names = ",".join(path.stem for path in modules)
    return str(modules[0].parent / f"{{{names}}}.vmod")


def build_checked(
    report: GameReport,
    out_dir: Path,
    sheets: SheetOptions | None = None,
    changes: Mapping[str, object] | None = None,
    piece_images: Literal["svg", "png"] = "svg",
    waiting: Callable[[], None] = lambda: None,
    stamp: Recorder | None = None,
    combined: bool = False,
    progress: Progress = no_progress,
    watch: int = 0,
) -> tuple[GameReport, list[Path]]:
    """Write the modules, the print sheets and the charts of a validated game into
    out_dir/<game>/ as one set (the previous set stays whole until the new one is complete);
    nothing is written when the data has errors. A series gets one module (with its own
    sheets and charts) per title, unless `combined`. Sheet options are `sheets`, else the
    game's `print:` settings with the command line's `changes`; text that had to be shortened
    is a warning; piece faces are SVG (sharp at every zoom) or PNG (`piece_images`). One build of
    a game at a time: `waiting()` is called when another holds its lock. With `stamp`, the
    build's inputs are recorded (before the back ends read the art) and, under the lock, its
    stamp goes before the outputs are committed and is written after (see compiler.buildstamp).
    Returns the modules written (none when nothing was). An output that cannot be written
    raises OutputError. `progress` hears of each stage; with `watch` (`build --watch`), the
    set also holds watch.js, build number `watch` (compiler.watch), for the preview page."""
    if report.game is None or report.errors:
        return report, []
    from compiler.backends.files import FolderLook, OutputFolder, build_lock, output_error, recover
    from compiler.backends.preview.build import PAGE_NAME
    from compiler.backends.vassal.module import ArtError
    from compiler.load.aids import with_aids
    from compiler.watch import WATCH_NAME

    if stamp is not None:
        stamp.add_art(report.game)
    cache = out_dir / ".cache" / report.game.game.id
    look = FolderLook(out_dir / report.game.game.id)  # stats the outputs while the aids load
    game, problems = with_aids(report.game, cache)
    stage = partial(progress, report.folder.name)
    stage("faces", 0, 0)

    def counted(done: int) -> None:
        stage("faces", done, 0)

    options, checked = build_checks(game, sheets, changes or {}, cache, counted)
    report.findings.extend(problems + checked)
    if options is None or report.errors:
        return report, []
    made, failed = editions(report.game, game, cache, combined)
    report.findings.extend(f for f in failed if f not in report.findings)
    if report.errors:
        return report, []
    game_id = game.game.id
    target = out_dir / game_id
    modules = [target / f"{edition.name}.vmod" for edition in made]
    try:
        with build_lock(out_dir / ".cache" / game_id, waiting):
            owned = partial(is_output_name, game_id)
            recover(target, owned)
            # the page goes in after its images; watch.js, which reloads it, after the page
            recorded = None if stamp is None else stamp.previous_outputs(target)
            last = (PAGE_NAME, WATCH_NAME)
            outputs = OutputFolder.open(target, owned, last, recorded, look)
            kept = {} if recorded is None else outputs.unchanged(recorded)
            reused: set[str] = set()
            fill = partial(
                _write_outputs,
                made,
                options,
                out_dir,
                piece_images,
                stage=stage,
                report=report,
                watched=bool(watch),
                kept=kept,
                reused=reused,
            )
            if watch:
                fill = partial(_with_watch_script, fill, watch)
            if stamp is not None:
                stamp.forget()
            written = outputs.replace(fill, reused)
            if stamp is not None:
                stamp.finish(game_id, target, shown_modules(modules), report.findings, written)
    except ArtError as err:
        report.findings.append(err.finding)
        return report, []
    except OSError as err:
        raise output_error(err, target) from err
    return report, modules


@dataclass(frozen=True)
class Built:
    """What `countermix build` says about one game: the findings (rendered), then the module
    written, or found up to date, or None (not built; `verdict` says why)."""

    name: str
    findings: tuple[str, ...]
    written: str | None
    up_to_date: bool = False
    verdict: str = ""


def build_games(
    folders: list[Path],
    out_dir: Path,
    changes: Mapping[str, object],
    piece_images: Literal["svg", "png"] = "svg",
    waiting: Callable[[str], None] = lambda name: None,
    force: bool = False,
    combined: bool = False,
    progress: Progress = no_progress,
    watch: int = 0,
) -> Iterator[Built]:
    """Validate and build each game, in order, as `countermix build` does; a game whose
    inputs, options and outputs are those of its last build is not loaded again: its stamp
    (compiler.buildstamp) gives the same findings and module. Two folders that declare the
    same game id are both an error, found before anything is written. With `force`, every
    game is built. `progress` hears of each game's stages; `watch` is the build number of a
    `build --watch` (see build_checked)."""
    from compiler import buildstamp

    # a watched build's set also holds watch.js: it is not the set of a plain build
    marked = {**changes, "watch.js": True} if watch else changes
    settings = buildstamp.settings(marked, piece_images, combined)
    fresh = {
        folder: None if force else buildstamp.fresh(folder, out_dir, settings) for folder in folders
    }
    start = partial(
        buildstamp.Recorder.start, out_dir=out_dir, build_settings=settings, trust_outputs=not force
    )
    stale = [folder for folder in folders if fresh[folder] is None]
    stamps = {folder: start(folder) for folder in stale}  # before the loader reads a file
    checked = partial(check_games, progress=progress, out_dir=out_dir)
    reports = dict(zip(stale, checked(stale), strict=True))
    loaded = {r.game.game.id for r in reports.values() if r.game is not None}
    kept = [stamp.game_id for stamp in fresh.values() if stamp is not None]
    if len(kept) != len(set(kept)) or loaded.intersection(kept):
        # a game up to date has the id of another: every game is loaded, checked and reported
        stamps = {folder: start(folder) for folder in folders}
        reports = dict(zip(folders, checked(folders), strict=True))
        fresh = dict.fromkeys(folders)
    for folder in folders:
        done = fresh[folder]
        if done is not None:
            yield Built(folder.name, done.findings, done.written, up_to_date=True)
            continue
        report, written = build_checked(
            reports[folder],
            out_dir,
            changes=changes,
            piece_images=piece_images,
            waiting=partial(waiting, folder.name),
            stamp=stamps[folder],
            combined=combined,
            progress=progress,
            watch=watch,
        )
        lines = tuple(render_text(finding) for finding in report.findings)
        if not written:
            yield Built(folder.name, lines, None, verdict=summary(report.findings))
        else:
            yield Built(folder.name, lines, shown_modules(written))


def is_output_name(game_id: str, name: str) -> bool:
    """Whether a file in build/<game>/ is one a build writes (or its leftover temporary
    file, `.<name>.<random>`): the folder is replaced whole only when it holds nothing else.
    A series' files carry a title's module name: `<game>-<title>.vmod`,
    `<game>-<title>-counters.pdf` ..."""
    return bool(_output_names(game_id).fullmatch(name))


@lru_cache(maxsize=8)
def _output_names(game_id: str) -> re.Pattern[str]:
    """One pattern of every name is_output_name owns, made once per game (a game's folder
    holds a file per preview image: 13,000 of them at 8,000 counters)."""
    from compiler.backends.sheets.build import SHEET_FILES

    game = re.escape(game_id)
    printed = "|".join(re.escape(n) for n in ("charts.pdf", *SHEET_FILES))
    output = rf"{game}\.vmod|{game}-[a-z0-9-]+\.vmod|({game}-[a-z0-9-]+-)?({printed})"
    output = rf"{output}|watch\.js"  # build --watch's (compiler.watch)
    preview = r"index\.html|preview-[a-z]+-[0-9a-f]{16}\.(svg|png|jpe?g|gif|webp)"  # its images
    output = rf"{output}|{preview}"  # the preview page (backends.preview)
    return re.compile(rf"{output}|\.({output})\..+")  # or the leftover of a write


def _write_outputs(
    made: list[Edition],
    options: SheetOptions,
    out_dir: Path,
    piece_images: Literal["svg", "png"],
    folder: Path,
    stage: Callable[[str, int, int], None] = partial(no_progress, "-"),  # noqa: B008
    report: GameReport | None = None,
    watched: bool = False,
    kept: Mapping[str, Recorded] | None = None,
    reused: set[str] | None = None,
) -> None:
    """Every output of one game into `folder`, edition by edition; the caches stay in
    out_dir/.cache/<game>/ (a title's in titles/<title>/ there). With the `report` (the game
    and the build's findings), the preview page of them all, index.html, each edition's
    section made after its outputs, the page written after the last (`watched`:
    it loads the watch.js of `build --watch`; `kept`: the previous set's files its build
    stamp vouches for: the preview's unchanged images among them are not written again but
    named in `reused`, and stay in the folder: see files.OutputFolder)."""
    from compiler.backends.art.identity import keep_identities
    from compiler.backends.charts.build import render_charts, write_charts
    from compiler.backends.files import deferred_copies
    from compiler.backends.rendercache import RenderCache
    from compiler.backends.sheets.build import write_sheets
    from compiler.backends.vassal.module import build_module

    with deferred_copies():  # the module's copied bytes beside the other outputs
        page = None
        if report is not None and report.game is not None:
            from compiler.backends.preview.build import PreviewPage

            page = PreviewPage(options, out_dir, piece_images, folder, made[0].game)
        total = len(made)
        for done, edition in enumerate(made):
            game, cache, prefix = edition.game, edition.cache, edition.prefix
            keep_identities(game, cache)  # every back end asks for the units' identities
            stage("charts", done, total)
            render_charts(game, options, RenderCache(cache / "charts.pack"))  # PDF and PNGs at once
            stage("module", done, total)
            build_module(game, out_dir, options.lang, piece_images, folder, edition.name, cache)
            stage("module", done + 1, total)
            stage("sheets", done, total)
            write_sheets(game, folder, options, cache, prefix)
            stage("sheets", done + 1, total)
            stage("charts", done, total)
            write_charts(game, folder, options, f"{prefix}charts.pdf")
            stage("charts", done + 1, total)
            if page is not None:  # the edition's section while its plan and charts are at hand
                stage("preview", done, total)
                page.add(edition)
        if page is not None and report is not None and report.game is not None:
            page.write(report.game.game.title, report.findings, watched, kept or {}, reused)
            stage("preview", total, total)


def _with_watch_script(fill: Callable[[Path], None], generation: int, folder: Path) -> None:
    """The outputs, then watch.js, which tells a preview page open in a browser that this is
    build `generation` (compiler.watch)."""
    from compiler.backends.files import write_atomically
    from compiler.watch import WATCH_NAME, watch_script

    fill(folder)
    write_atomically(folder / WATCH_NAME, watch_script(generation))


def check_games(
    folders: list[Path],
    build_lang: str | None = None,
    progress: Progress = no_progress,
    untranslated: bool = False,
    out_dir: Path | None = None,
) -> list[GameReport]:
    """check_game for each folder; two folders that declare the same game id are an error in
    both (they would write the same build/<id>/), found before anything is written. With
    `untranslated`, a translator's to-do list too (one warning per game). With `out_dir` (a
    build's), the loader reads back what it kept there from the last build of each folder
    and reads again only what changed (compiler.load.keptread)."""
    if not folders:  # an up-to-date build: the loader (yaml, the model) is not imported
        return []
    from compiler.load.keptread import kept_path

    reports = [
        check_game(
            folder,
            build_lang,
            progress,
            untranslated,
            None if out_dir is None else kept_path(out_dir, folder),
        )
        for folder in folders
    ]
    by_id: dict[str, list[GameReport]] = {}
    for report in reports:
        if report.game is not None:
            by_id.setdefault(report.game.game.id, []).append(report)
    for clash in by_id.values():
        for report in clash if len(clash) > 1 else ():
            others = [r for r in clash if r is not report]
            report.findings.insert(0, _same_id(report, others))
    return reports


def _same_id(report: GameReport, others: list[GameReport]) -> Finding:
    assert report.game is not None
    game = report.game.game
    where = ", ".join(str(other.folder) for other in others)
    return Finding(
        "duplicate-id",
        game.locate("id"),
        f"game id `{game.id}` is also the id of the game in {where}",
        "each game needs its own id: its outputs go to build/<id>/",
        related=tuple(
            Related(other.game.game.locate("id"), "that game's id")
            for other in others
            if other.game is not None
        ),
    )


def _with_changes(options: SheetOptions, changes: Mapping[str, object]) -> SheetOptions:
    """Command-line overrides over the game's settings; a bad value is a usage error."""
    if not changes:
        return options
    try:
        return dataclasses.replace(options, **changes)  # type: ignore[arg-type]
    except ValueError as err:
        raise UsageError(str(err)) from err


def _texts(game: GameData, lang: str) -> Iterator[str]:
    for unit in game.units:
        yield unit.name.get(lang)
    for marker_set in game.marker_sets:
        yield marker_set.name.get(lang)
        yield marker_set.back.get(lang)
    for card in game.cards:
        yield card.name.get(lang)
        yield card.text.get(lang)
        yield from (ability.get(lang) for ability in card.abilities)
    for deck in game.decks:
        yield deck.name.get(lang)
        yield deck.back.get(lang)


def font_problems(game: GameData, lang: str) -> list[Finding]:
    """Fonts the faces will need, checked before anything is drawn or written. The Japanese
    font is needed for a Japanese build or any CJK text: the texts are looked at only when it
    is missing (every unit's name at every build was 12 ms at 8,000 counters)."""
    from compiler.backends.art.fonts import BOLD, JAPANESE, REGULAR, MissingFont, font_path, has_cjk

    problems = []
    for font in (REGULAR, BOLD, JAPANESE):
        try:
            font_path(font)
        except MissingFont as err:
            if font == JAPANESE and lang != "ja" and not has_cjk("".join(_texts(game, lang))):
                continue
            problems.append(
                Finding(
                    "missing-font",
                    game.game.loc,
                    str(err),
                    "run scripts/setup.sh, which installs the fonts",
                )
            )
    return problems


def face_findings(
    game: GameData,
    lang: str,
    cache: Path | None = None,
    counted: Callable[[int], None] = lambda done: None,
) -> list[Finding]:
    """Every face of the game laid out in `lang` (not drawn): text that had to be shortened
    to fit its layout slot, as warnings at the record whose text it is. The faces are the ones
    the print sheets hold, and the module's faces are the same display lists. With `cache` (a
    game's cache folder), the notes are kept there in one record: each run of units' by the
    run's key (sheets.runs) with the identities of its faces, and each other face's by its
    identity (the digest of what decides its look), under the renderer's fingerprint: a run
    whose units did not change is one look-up, a face laid out before is not again, and the
    record is written only when a face was laid out or a run moved. `counted` hears how many
    faces are done, now and then.

    A run's record holds how many faces it has and their notes (all a run that did not change
    reads), and apart its faces' identities and each one's notes; the record also says
    which run each place of the sheets last held, so a run that changed lays out only its
    faces that changed (the others' notes are its last record's), and the record holds no
    entry per face of a run (tens of thousands of entries read and written on every build)."""
    from compiler.backends.sheets.build import block_runs, card_pieces, counter_runs
    from compiler.backends.sheets.runs import unit_runs

    record = None if cache is None else cache / LAYOUT_NOTES
    known, added = _read_layout_notes(record)
    notes = _FaceNotes(known, counted)
    runs = unit_runs(game)
    counters, blocks = counter_runs(game, lang), block_runs(game, lang)  # (the sheets' runs:
    try:  # a run listed here is not listed again)
        for number, run in enumerate(runs):
            place = f"counters:{lang}:{number}"
            notes.of_run(place, f"counters:{lang}", run.key, partial(counters.of_run, number))
        notes.of_pieces(counters.of_run(len(runs)))  # the markers
        for number, run in enumerate(runs if blocks.runs else ()):
            place = f"blocks:{lang}:{number}"
            notes.of_run(place, f"blocks:{lang}", run.key, partial(blocks.of_run, number))
        notes.of_pieces(card_pieces(game, lang))
    except _Undrawable as err:
        return [_art_error(game, err.piece_id, err.error)]
    if record is not None and notes.made:
        _write_layout_notes(record, notes.kept(), known, added)
    counted(notes.faces)
    return overflow_findings(game, notes.notes)


class _Undrawable(Exception):
    """A face that cannot be drawn at all (its piece, and why)."""

    def __init__(self, piece_id: str, error: ValueError) -> None:
        super().__init__(piece_id)
        self.piece_id = piece_id
        self.error = error


class _FaceNotes:
    """The layout notes of a build's faces, in the order of the sheets: from the record
    (`known`) where it has them, else laid out (`made`); `used` is what of the record this
    build had."""

    def __init__(self, known: dict[str, tuple[str, ...]], counted: Callable[[int], None]):
        self.known = known
        self.made: dict[str, tuple[str, ...]] = {}
        self.used: set[str] = set()
        self.notes: list[tuple[str, str]] = []
        self.faces = 0
        self.counted = counted
        self.before: dict[str, tuple[str, ...]] = {}
        """The notes of the faces of the run a changed run's place held before (by identity)."""

    def of_run(
        self, place: str, kind: str, key: str | None, pieces: Callable[[], Sequence[Piece]]
    ) -> None:
        """The notes of a run's pieces of one kind (`kind`: what they are and the language),
        at a place of the sheets (`place`): the run's, when the record has them (its faces
        are then this build's too), else each face's (from the run the place held before
        where that had the face)."""
        if key is None:
            self.of_pieces(pieces())
            return
        run, at = f"run-{kind}:{key}", f"at-{place}"
        found = self.known.get(run)
        if found is None or not found or not found[0].isdigit() or len(found) % 2 != 1:
            self.before = _faces_of(self.known, self.known.get(at), kind)
            start, before = len(self.notes), len(self.used)
            listed = pieces()
            laid = self.of_pieces(listed, keep=False)
            self.before = {}
            laid_out = list(_face_identities(listed))
            if len(self.used) - before != len(laid_out):  # a face another piece had too
                self.made.update(laid)
                return
            noted = chain.from_iterable(self.notes[start:])
            self.made[run] = (str(len(laid_out)), *noted)
            self.made[run + ":faces"] = _run_faces(laid_out, laid)
        else:
            self.notes.extend(zip(found[1::2], found[2::2], strict=True))
            self.faces += int(found[0])
        if self.known.get(at) != (key,):
            self.made[at] = (key,)
        self.used.update((run, run + ":faces", at))
        self.counted(self.faces)

    def kept(self) -> dict[str, tuple[str, ...]]:
        """What the record keeps (see _kept_notes)."""
        return _kept_notes(self.known, self.made, self.used)

    def of_pieces(self, pieces: Iterable[Piece], keep: bool = True) -> dict[str, tuple[str, ...]]:
        """The notes of each face of some pieces (a face another piece had already is not
        noted again; a picture is printed as it is); those of the faces laid out (or read
        from the run a place held before), by identity, kept in the record face by face
        when `keep`."""
        laid: dict[str, tuple[str, ...]] = {}
        for piece in pieces:
            for face in (piece.front, piece.back):
                if face is None or face.picture is not None or face.identity in self.used:
                    continue
                self.used.add(face.identity)
                self.faces += 1
                if self.faces % 256 == 0:
                    self.counted(self.faces)
                found = self.known.get(face.identity)
                if found is None:
                    found = self.before.get(face.identity)
                    if found is None:
                        try:
                            found = tuple(face.make().warnings)
                        except ValueError as err:  # a face that cannot be drawn at all
                            raise _Undrawable(piece.id, err) from err
                    laid[face.identity] = found
                self.notes.extend((piece.id, note) for note in found)
        if keep:
            self.made.update(laid)
        return laid


def _run_faces(faces: Sequence[str], notes: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """A run's record of its faces: their identities (one a line), then each note of a
    face as "<its line>\t<note>"."""
    noted = [f"{line}\t{note}" for line, face in enumerate(faces) for note in notes.get(face, ())]
    return ("\n".join(faces), *noted)


def _faces_of(
    known: Mapping[str, tuple[str, ...]], at: tuple[str, ...] | None, kind: str
) -> dict[str, tuple[str, ...]]:
    """Identity → notes of the faces of the run the record says a place held (none when it
    holds no such run, or a damaged one)."""
    if not at or len(at) != 1:
        return {}
    record = known.get(f"run-{kind}:{at[0]}:faces")
    if not record:
        return {}
    faces = record[0].split("\n") if record[0] else []
    notes: dict[str, tuple[str, ...]] = dict.fromkeys(faces, ())
    for noted in record[1:]:
        line, _tab, note = noted.partition("\t")
        if not line.isdigit() or int(line) >= len(faces):
            return {}
        face = faces[int(line)]
        notes[face] = (*notes[face], note)
    return notes


def _face_identities(pieces: Iterable[Piece]) -> Iterator[str]:
    """The identities of the faces of some pieces that are laid out (not pictures)."""
    for piece in pieces:
        for face in (piece.front, piece.back):
            if face is not None and face.picture is None:
                yield face.identity


LAYOUT_NOTES = "layout.notes"
"""The record of the faces' layout notes in a game's cache folder (face_findings)."""
LAYOUT_NOTES_FORMAT = "countermix-layout-notes-3"
_OLD_LAYOUT_NOTES = ("layout.pack", "layout.pack.index")
"""Where the notes were kept face by face before: removed when the record is written."""


def read_layout_notes(record: Path | None) -> dict[str, tuple[str, ...]]:
    """Face identity → its layout notes, as the last build that laid out a face kept them:
    empty when there is no record, or it is damaged, of another shape, or written by another
    renderer (its fingerprint differs: every face may lay out differently now)."""
    return _read_layout_notes(record)[0]


def _read_layout_notes(record: Path | None) -> tuple[dict[str, tuple[str, ...]], int]:
    """read_layout_notes, and how many bytes of the record were added to it since it was
    last written whole (see _write_layout_notes)."""
    from compiler.backends.keptrecord import read_appended
    from compiler.backends.rendercache import renderer_fingerprint

    notes, added = read_appended(record, (LAYOUT_NOTES_FORMAT, renderer_fingerprint()))
    return (notes, added) if _is_notes(notes) else ({}, 0)


def _is_notes(notes: object) -> TypeGuard[dict[str, tuple[str, ...]]]:
    """Whether a record read back has the shape `_write_layout_notes` writes: str keys, each
    value a tuple of str (checked in passes that stay in C: tens of thousands of faces)."""
    from compiler.backends.keptrecord import all_of_type

    if type(notes) is not dict:
        return False
    values = notes.values()
    return (
        all_of_type(notes, str)
        and all_of_type(values, tuple)
        and all_of_type(chain.from_iterable(values), str)
    )


def _kept_notes(
    known: dict[str, tuple[str, ...]], made: dict[str, tuple[str, ...]], seen: set[str]
) -> dict[str, tuple[str, ...]]:
    """What the record keeps: the notes of this build's faces, and those of faces it did not
    have (a unit changed back, another language) while they are no more than these; past
    that, only this build's."""
    kept = {**known, **made}
    if len(kept) > 2 * len(seen):
        kept = {identity: kept[identity] for identity in seen if identity in kept}
    return kept


MOST_ADDED = 1 << 16
"""Bytes added to the layout notes' record at most before it is written whole again, unless
the record itself is larger (see _write_layout_notes)."""


def _write_layout_notes(
    record: Path,
    notes: dict[str, tuple[str, ...]],
    known: dict[str, tuple[str, ...]] | None = None,
    added: int = 0,
) -> None:
    """The record as `notes` say (compiler.backends.keptrecord). With `known` (what the
    record held) and `added` (the bytes added to it since it was written whole), when `notes`
    keep all it held: only the notes that are new or changed, added at its end (a warm build
    that changed one unit wrote the 1.3 MB record of 8,000 counters again), while what was
    added stays below the record's own size (and MOST_ADDED); else written whole, and the
    per-face pack an older build kept the notes in is removed."""
    from compiler.backends.keptrecord import append_record, write_record
    from compiler.backends.rendercache import renderer_fingerprint

    tag = (LAYOUT_NOTES_FORMAT, renderer_fingerprint())
    if known and known.keys() <= notes.keys():
        changed = {key: value for key, value in notes.items() if known.get(key) != value}
        if not changed:
            return
        try:
            size = record.stat().st_size
        except OSError:
            size = 0
        if added < max(size - added, MOST_ADDED) and append_record(record, tag, changed):
            return
    if write_record(record, tag, notes):
        for name in _OLD_LAYOUT_NOTES:
            (record.parent / name).unlink(missing_ok=True)


def _art_error(game: GameData, piece_id: str, err: ValueError) -> Finding:
    place = next((u.loc for u in game.units if u.id == piece_id), Location(game.root))
    return Finding("art-error", place, f"`{piece_id}` cannot be drawn: {err}", "")


def overflow_findings(game: GameData, notes: list[tuple[str, str]]) -> list[Finding]:
    """Shortened text, reported at the record whose text it is (warnings; the build goes on)."""
    if not notes:
        return []  # (the places of every piece are a pass over thousands of units)
    places: dict[str, Location] = {u.id: u.loc for u in game.units}
    places.update({m.id: m.set.loc for m in game.markers.values()})
    places.update({c.id: c.loc for c in game.cards})
    return [
        Finding(
            "text-overflow",
            places.get(piece, Location(game.root)),
            note,
            "shorten the text, or give the layout slot more room or a smaller min_size",
            severity=Severity.WARNING,
        )
        for piece, note in dict.fromkeys(notes)
    ]
