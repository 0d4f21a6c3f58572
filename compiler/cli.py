"""The `countermix` command: arguments → pipeline → output and exit code.

Each command imports what it needs when it runs (the loader, the rules, the back ends, the
importers), so `--version` and `--help` answer at once and `validate` never loads a writer."""

from __future__ import annotations

import argparse
import gc
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from compiler import interrupts

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    from compiler.pipeline import GameReport

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _out(text: str = "") -> None:
    try:
        sys.stdout.write(text + "\n")
    except BrokenPipeError:
        raise
    except OSError as err:  # a full disk or a closed file behind a redirection
        from compiler.backends.files import OutputError

        raise OutputError("standard output", err.strerror or str(err)) from err


def _err(text: str) -> None:
    sys.stderr.write(f"countermix: {text}\n")


def _length(text: str) -> float:
    """A length in mm on the command line: a finite number, zero or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of mm") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a finite length of 0 mm or more")
    return value


MAP_KINDS = ("hex", "area", "point", "cards")


class _Version(argparse.Action):
    """`--version`: the installed distribution's version, looked up only when asked for (the
    metadata machinery costs every other command 0.03 s of start-up)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from compiler import __version__

        sys.stdout.write(f"countermix {__version__}\n")
        parser.exit()


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. Given the arguments, only the command they name is set up
    (with none for `--version`): each parser argparse makes looks up its titles' translations
    on disk, and all nine commands cost every start-up about 5 ms."""
    parser = argparse.ArgumentParser(
        prog="countermix",
        description="Check board-wargame data against the game's rules and compile it.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--sources",
        type=Path,
        default=Path("sources"),
        help="folder holding one folder per game (default: ./sources)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in _commands_for(argv):
        COMMANDS[name](commands, common)
    return parser


def _commands_for(argv: Sequence[str] | None) -> list[str]:
    """The commands a parser for `argv` needs: the one named first, none when the first is
    `--version`, all of them otherwise (`--help`, a mistake, or no arguments)."""
    if argv is None:
        argv = sys.argv[1:]
    first = argv[0] if argv else ""
    if first in COMMANDS:
        return [first]
    return [] if first == "--version" else list(COMMANDS)


def _add_validate(commands: Commands, common: argparse.ArgumentParser) -> None:
    check = commands.add_parser(
        "validate",
        help="check game data against the game's rules",
        description="Report every finding in the games' data.",
        parents=[common],
    )
    check.add_argument(
        "games",
        nargs="*",
        metavar="GAME",
        help="game id under sources/ or path of a game folder (default: all)",
    )
    check.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    check.add_argument(
        "--untranslated",
        action="store_true",
        help="also list the texts the module shows that have no Japanese (one warning per game)",
    )
    check.add_argument(
        "--lang",
        choices=("en", "ja"),
        help="language the faces are laid out in to find text that will not fit "
        "(default: the game's print language)",
    )


def _add_build(commands: Commands, common: argparse.ArgumentParser) -> None:
    build = commands.add_parser(
        "build",
        help="validate, then write build/<game>/<game>.vmod (a series: one per title)",
        description="Build a VASSAL module for each game (after validating it).",
        parents=[common],
    )
    build.add_argument("games", nargs="*", metavar="GAME", help="games to build (default: all)")
    build.add_argument("--out", type=Path, default=Path("build"), help="output folder")
    build.add_argument(
        "--force",
        action="store_true",
        help="build every game again, even one whose inputs, options and outputs are those of "
        "its last build (which is otherwise reported `up to date` and not built again)",
    )
    build.add_argument(
        "--combined",
        action="store_true",
        help="a series as one module holding every title (default: one module per title, "
        "build/<game>/<game>-<title>.vmod, each with its own sheets and charts)",
    )
    build.add_argument(
        "--watch",
        action="store_true",
        help="build, then build each game again when its files change, until Ctrl-C "
        "(writes build/<game>/watch.js, which reloads the preview page)",
    )
    shown = build.add_mutually_exclusive_group()
    shown.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings only (no progress)"
    )
    shown.add_argument(
        "-v", "--verbose", action="store_true", help="give each stage's time (on stderr)"
    )
    build.add_argument(
        "--piece-images",
        choices=("svg", "png"),
        default="svg",
        help="piece faces in the module: svg (sharp at every zoom, default) or png",
    )
    sheets = build.add_argument_group("print sheets (override the game's `print:` settings)")
    sheets.add_argument("--lang", choices=("en", "ja"), help="language of printed text")
    sheets.add_argument("--paper", choices=("A4", "Letter"), help="paper size")
    sheets.add_argument("--counter-size", help="1/2in, 9/16in, 5/8in, 3/4in, 1in or e.g. 16mm")
    sheets.add_argument("--card-size", help="card size, e.g. 63x88mm")
    sheets.add_argument("--margin", type=_length, metavar="MM", help="page margin in mm")
    sheets.add_argument("--gutter", type=_length, metavar="MM", help="space between counters")
    sheets.add_argument("--bleed", type=_length, metavar="MM", help="bleed in mm")
    sheets.add_argument("--no-cut-marks", action="store_true", help="leave out cut marks")
    sheets.add_argument("--duplex", choices=("mirror", "gutter-fold", "none"), help="backs")
    sheets.add_argument("--back-offset", metavar="X,Y", help="shift of back pages in mm")


def _add_list(commands: Commands, common: argparse.ArgumentParser) -> None:
    listing = commands.add_parser(
        "list",
        help="list games, titles and scenarios",
        description="List games with their scenarios and turns.",
        parents=[common],
    )
    listing.add_argument("games", nargs="*", metavar="GAME", help="games to list (default: all)")


def _add_rules(commands: Commands, common: argparse.ArgumentParser) -> None:
    rules = commands.add_parser(
        "rules",
        help="print the rule catalogue (Markdown)",
        description="Print built-in rules, constraint kinds and each game's rules as Markdown.",
        parents=[common],
    )
    rules.add_argument("games", nargs="*", metavar="GAME", help="games to include (default: all)")


def _add_new(commands: Commands, common: argparse.ArgumentParser) -> None:
    new = commands.add_parser(
        "new",
        help="start a new game: a small, complete, commented game to edit",
        description=(
            "Write a small, complete game into DIR (a few units, one scenario, rules, a chart) "
            "that validates and builds as it is; edit it into your game."
        ),
    )
    new.add_argument("folder", type=Path, metavar="DIR", help="folder to create (must not exist)")
    new.add_argument(
        "--map",
        required=True,
        choices=MAP_KINDS,  # compiler.newgame.MAP_KINDS (a test keeps them equal)
        help="hex: a hex grid; area: areas and boxes; point: towns and roads; cards: a card game",
    )
    new.add_argument(
        "--series", action="store_true", help="a series: one folder, several titles (boxed games)"
    )
    new.add_argument("--id", default="", help="game id (default: from DIR, e.g. my-game)")
    new.add_argument("--title", default="", help="game title (default: from the id)")


def _add_import_save(commands: Commands, common: argparse.ArgumentParser) -> None:
    imports = commands.add_parser(
        "import-save",
        help="turn a VASSAL save into a scenario of the game",
        description=(
            "Read a set-up saved in VASSAL (.vsav) from the game's module back into the game's "
            "data as scenario ID: pieces on the maps become its setup, pieces in the turn boxes "
            "its reinforcements. Writes scenarios/ID.yaml (or replaces the scenario where it "
            "is written); no other file is touched."
        ),
        parents=[common],
    )
    imports.add_argument("game", metavar="GAME", help="game id under sources/ or game folder")
    imports.add_argument("save", type=Path, metavar="FILE.vsav", help="the saved game")
    imports.add_argument("--scenario", required=True, metavar="ID", help="scenario id to write")
    imports.add_argument(
        "--replace", action="store_true", help="replace an existing scenario or file"
    )
    imports.add_argument(
        "--like",
        default="",
        metavar="SCENARIO",
        help="a new scenario takes its name, turns and rules from this one",
    )
    imports.add_argument("--title", default="", help="series: the title of a new scenario")


def _add_import_module(commands: Commands, common: argparse.ArgumentParser) -> None:
    modules = commands.add_parser(
        "import-module",
        help="turn a VASSAL module made by hand into a countermix game folder",
        description=(
            "Read a module (.vmod) made with VASSAL's editor and write a game folder: units, "
            "markers and cards from the piece palette with their pictures, maps with their "
            "boards and grids, decks, and every predefined set-up as a scenario. What the "
            "format cannot hold is listed at the end."
        ),
    )
    modules.add_argument("module", type=Path, metavar="MODULE.vmod", help="the module")
    modules.add_argument("folder", type=Path, metavar="OUT_DIR", help="folder to create")


def _add_diff(commands: Commands, common: argparse.ArgumentParser) -> None:
    diff = commands.add_parser(
        "diff",
        help="what changed between two modules or game folders",
        description=(
            "Compare two games: two .vmod files or two game folders (one of each works too). "
            "Exit 0 when they are equal, 1 when they differ."
        ),
    )
    diff.add_argument("old", type=Path, metavar="OLD", help=".vmod or game folder")
    diff.add_argument("new", type=Path, metavar="NEW", help=".vmod or game folder")
    diff.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )


def _add_schema(commands: Commands, common: argparse.ArgumentParser) -> None:
    schema = commands.add_parser(
        "schema",
        help="write the JSON Schema of the data files",
        description="Write a JSON Schema for editors' YAML checking.",
    )
    schema.add_argument("-o", "--output", type=Path, help="write to this file (default: stdout)")


COMMANDS: dict[str, Callable[[Commands, argparse.ArgumentParser], None]] = {
    "validate": _add_validate,
    "build": _add_build,
    "list": _add_list,
    "rules": _add_rules,
    "new": _add_new,
    "import-save": _add_import_save,
    "import-module": _add_import_module,
    "diff": _add_diff,
    "schema": _add_schema,
}


def _validate(args: argparse.Namespace) -> int:
    import json

    from compiler.diagnostics import finding_json
    from compiler.pipeline import check_games, resolve_games

    folders = resolve_games(args.games, args.sources)
    reports = check_games(folders, build_lang=args.lang or "", untranslated=args.untranslated)
    if args.format == "json":
        payload = [
            {"game": r.folder.name, "findings": [finding_json(f) for f in r.findings]}
            for r in reports
        ]
        _out(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        for report in reports:
            _print_report(report)
    return EXIT_FINDINGS if any(r.errors for r in reports) else EXIT_OK


def _print_report(report: GameReport) -> None:
    from compiler.diagnostics import render_text, summary

    for finding in report.findings:
        _out(render_text(finding))
        _out()
    game = report.game
    size = (
        f" ({_count(len(game.units), 'unit')}, {_count(len(game.scenarios), 'scenario')}, "
        f"{_count(len(game.constraints), 'rule')})"
        if game
        else ""
    )
    verdict = "ok" if not report.findings else summary(report.findings)
    _out(f"{report.folder.name}: {verdict}{size}")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _sheet_changes(args: argparse.Namespace) -> dict[str, object]:
    """SheetOptions fields the command line sets; bad values are usage errors."""
    from compiler.backends.sheets.options import back_offset_mm, card_size_mm, counter_size_mm
    from compiler.pipeline import UsageError

    changes: dict[str, object] = {}
    try:
        if args.counter_size:
            changes["counter_mm"] = counter_size_mm(args.counter_size)
        if args.card_size:
            changes["card_mm"] = card_size_mm(args.card_size)
        if args.back_offset:
            changes["back_offset_mm"] = back_offset_mm(args.back_offset)
    except ValueError as err:
        raise UsageError(str(err)) from err
    for option, name in (
        ("lang", "lang"),
        ("paper", "paper"),
        ("margin", "margin_mm"),
        ("gutter", "gutter_mm"),
        ("bleed", "bleed_mm"),
        ("duplex", "duplex"),
    ):
        if getattr(args, option) is not None:
            changes[name] = getattr(args, option)
    if args.no_cut_marks:
        changes["cut_marks"] = False
    return changes


def _build(args: argparse.Namespace) -> int:
    from compiler.pipeline import resolve_games

    changes = _sheet_changes(args)
    folders = resolve_games(args.games, args.sources)
    if not args.watch:
        failed = _build_games(args, changes, folders)
        return EXIT_FINDINGS if failed else EXIT_OK
    from compiler.backends.files import OutputError
    from compiler.pipeline import UsageError
    from compiler.watch import watch_games

    def build(chosen: list[Path], generation: int) -> set[Path]:
        try:
            failed = _build_games(args, changes, chosen, generation)
        except (OutputError, UsageError) as err:  # a full disk, a file in the way: said,
            _err(str(err))  # and the watch goes on
            failed = set(chosen)
        finally:
            gc.collect()  # the cycles a build left (it ran without the cyclic collector)
        sys.stdout.flush()
        return failed

    watch_games(folders, args.out, build, _err)
    return EXIT_INTERRUPTED  # never reached: only Ctrl-C ends a watch


def _build_games(
    args: argparse.Namespace, changes: dict[str, object], folders: list[Path], watch: int = 0
) -> set[Path]:
    """Build the games as `countermix build` does, printing what it finds; the folders of
    the games not built. Python's cyclic collector is paused meanwhile: a build makes
    millions of acyclic objects (records, display lists, cache entries) that reference
    counting frees, and the collector walked them again and again for nothing (0.6–0.9 s of
    a 5–7 s rebuild of an 8,000-counter game, 0.15 s at 2,000, timed with gc.callbacks)."""
    from compiler.gcpause import no_cyclic_gc, process_ends
    from compiler.pipeline import build_games, no_progress
    from compiler.progress import reporting

    failed: set[Path] = set()
    # a watch collects after each build (its process goes on); `countermix build` ends
    frozen = not watch and process_ends()
    with no_cyclic_gc(frozen=frozen), reporting(args.quiet, args.verbose) as reporter:
        built_games = build_games(
            folders,
            args.out,
            changes,
            args.piece_images,
            _waiting,
            force=args.force,
            combined=args.combined,
            progress=no_progress if reporter is None else reporter.update,
            watch=watch,
        )
        for folder, built in zip(folders, built_games, strict=True):
            if reporter is not None:
                reporter.finish(built.name)
            for text in built.findings:
                _out(text)
                _out()
            if built.written is None:
                failed.add(folder)
                _out(f"{built.name}: not built ({built.verdict}); previous outputs kept")
            elif not args.quiet:
                done = "up to date" if built.up_to_date else "wrote"
                _out(f"{built.name}: {done} {built.written}")
    return failed


def _waiting(name: str) -> None:
    _err(f"{name}: another build of this game is running; waiting")


def _list(args: argparse.Namespace) -> int:
    from compiler.diagnostics import summary
    from compiler.pipeline import check_game, resolve_games

    failed = False
    for folder in resolve_games(args.games, args.sources):
        report = check_game(folder)
        game = report.game
        if game is None:
            _out(
                f"{folder.name}: cannot be loaded ({summary(report.findings)}); "
                f"run `countermix validate {folder.name}`"
            )
            failed = True
            continue
        title = game.game.title
        _out(f"{game.game.id}  {title.en}" + (f" / {title.ja}" if title.ja else ""))
        for t in game.game.titles:
            _out(f"  title {t.id}  {t.name.en}")
        for s in game.scenarios:
            prefix = f"[{s.title}] " if s.title else ""
            _out(f"  scenario {s.id}  {prefix}{s.name.en}  turns {s.first_turn}–{s.last_turn}")
    return EXIT_USAGE if failed else EXIT_OK


def _rules(args: argparse.Namespace) -> int:
    from compiler.catalogue import catalogue
    from compiler.pipeline import UsageError, check_game, resolve_games

    games = []
    for folder in resolve_games(args.games, args.sources):
        report = check_game(folder)
        if report.game is None:
            raise UsageError(f"{folder.name} cannot be loaded; run `countermix validate`")
        games.append(report.game)
    sys.stdout.write(catalogue(games))
    return EXIT_OK


def _new(args: argparse.Namespace) -> int:
    from compiler.newgame import NewGameError, write_game
    from compiler.pipeline import UsageError

    try:
        made = write_game(args.folder, args.map, args.series, args.id, args.title)
    except NewGameError as err:
        raise UsageError(str(err)) from err
    what = "series" if args.series else "game"
    _out(f"wrote {made.folder}/: {what} `{made.game_id}` on a map of kind {args.map}")
    for name in made.files:
        _out(f"  {name}")
    _out("next:")
    _out(f"  countermix validate {made.folder}")
    _out(f"  countermix build {made.folder}    # build/{made.game_id}/: the module and the PDFs")
    return EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from compiler.pipeline import UsageError
    from compiler.schema import schema_json

    text = schema_json()
    if args.output is None:
        _out(text)
        return EXIT_OK
    try:
        args.output.write_text(text + "\n", encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot write {args.output}: {err.strerror}") from err
    return EXIT_OK


def _import_save(args: argparse.Namespace) -> int:
    from compiler.diagnostics import Severity, render_text, summary
    from compiler.importing.savecmd import import_save
    from compiler.pipeline import UsageError, resolve_games

    folders = resolve_games([args.game], args.sources)
    if len(folders) != 1:
        raise UsageError(f"`{args.game}` is a folder of games: name one game")
    done = import_save(
        folders[0],
        args.save,
        args.scenario,
        replace=args.replace,
        like=args.like,
        title=args.title,
    )
    for finding in [*done.findings, *done.validation]:
        _out(render_text(finding))
        _out()
    if done.written is None:
        _out(f"{args.save}: not imported ({summary(done.findings)}); nothing written")
        return EXIT_FINDINGS
    verb = "replaced" if done.replaced else "wrote"
    _out(
        f"{verb} {done.written}: scenario `{args.scenario}`, "
        f"{_count(done.placed, 'piece')} set up, {_count(done.arriving, 'reinforcement')}"
    )
    errors = [f for f in done.validation if f.severity is Severity.ERROR]
    if done.validation:
        _out(f"{done.written}: {summary(done.validation)}")
    return EXIT_FINDINGS if errors else EXIT_OK


def _import_module(args: argparse.Namespace) -> int:
    from compiler.diagnostics import Severity, render_text
    from compiler.importing.archive import ArchiveError
    from compiler.importing.modulecmd import import_module
    from compiler.pipeline import UsageError

    try:
        done = import_module(args.module, args.folder)
    except ArchiveError as err:
        raise UsageError(f"{err}; nothing written") from err
    for finding in done.findings:
        _out(render_text(finding))
        _out()
    nouns = {"placed": "piece set up"}
    counts = ", ".join(
        _count(n, nouns.get(noun, noun.rstrip("s"))) for noun, n in done.counts.items() if n
    )
    _out(f"wrote {done.folder}/: game `{done.game_id}` ({counts})")
    if done.unsupported:
        _out("not imported (the format has no place for these):")
        for line in done.unsupported:
            _out(f"  {line}")
    _out("next:")
    _out(f"  countermix validate {done.folder}")
    _out(f"  countermix build {done.folder}")
    errors = [f for f in done.findings if f.severity is Severity.ERROR]
    return EXIT_FINDINGS if errors else EXIT_OK


def _diff(args: argparse.Namespace) -> int:
    import json

    from compiler.semdiff import changes_json, diff_games, render_changes
    from compiler.semdiff.sides import loaded

    with loaded(args.old) as old, loaded(args.new) as new:
        changes = diff_games(old, new)
    if args.format == "json":
        _out(json.dumps(changes_json(changes), ensure_ascii=False, indent=2))
    else:
        _out(render_changes(changes))
    return EXIT_FINDINGS if changes else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser(argv).parse_args(argv)
    _keep_dataclass_code()
    handlers = {
        "validate": _validate,
        "build": _build,
        "list": _list,
        "rules": _rules,
        "new": _new,
        "schema": _schema,
        "import-save": _import_save,
        "import-module": _import_module,
        "diff": _diff,
    }
    try:
        code = handlers[args.command](args)
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as err:
        # a library that caught the Ctrl-C turned it into an error of its own
        if interrupts.seen():
            return _interrupted()
        from compiler.backends.files import OutputError
        from compiler.pipeline import UsageError

        if isinstance(err, (UsageError, OutputError)):
            _err(str(err))
            return EXIT_USAGE
        if isinstance(err, BrokenPipeError):
            return EXIT_OK
        raise
    return code


def _keep_dataclass_code() -> None:
    """Every command but `--version` and `--help` imports the tool's 163 dataclasses, whose
    generated methods are compiled again at each start unless their code is kept (about half
    of the import time; compiler.dataclasscode)."""
    from compiler import dataclasscode

    dataclasscode.install()


def _interrupted() -> int:
    _err("interrupted")
    return EXIT_INTERRUPTED
