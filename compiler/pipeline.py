"""The pipeline in one place: find games → load → validate (→ back ends, later)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from compiler.diagnostics import Finding, Severity, sort_findings
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.rules.engine import validate


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
    return sorted(p for p in sources.iterdir() if p.is_dir() and not p.name.startswith("."))


def resolve_games(names: list[str], sources: Path) -> list[Path]:
    """Game ids under sources/, or paths of game folders; none means every game."""
    if not names:
        folders = game_folders(sources)
        if not folders:
            raise UsageError(f"no game folders under {sources}")
        return folders
    resolved = []
    for name in names:
        as_path = Path(name)
        if as_path.is_dir():
            resolved.append(as_path)
        elif (sources / name).is_dir():
            resolved.append(sources / name)
        else:
            known = ", ".join(p.name for p in game_folders(sources)) if sources.is_dir() else ""
            raise UsageError(
                f"no game `{name}` (neither a folder nor a game under {sources})"
                + (f"; games: {known}" if known else "")
            )
    return resolved


def check_game(folder: Path) -> GameReport:
    """Load and validate one game folder; the findings of both stages, sorted."""
    loaded = load_game(folder)
    findings = list(loaded.findings)
    if loaded.game is not None:
        findings.extend(validate(loaded.game))
    return GameReport(folder, loaded.game, sort_findings(findings))


def build_game(folder: Path, out_dir: Path) -> tuple[GameReport, Path | None]:
    """Validate, then write the module; nothing is written when the data has errors."""
    report = check_game(folder)
    if report.game is None or report.errors:
        return report, None
    from compiler.backends.vassal.boardart import check_board_art
    from compiler.backends.vassal.module import ArtError, build_module

    problems = check_board_art(report.game)
    if problems:
        report.findings.extend(problems)
        return report, None
    try:
        return report, build_module(report.game, out_dir)
    except ArtError as err:
        report.findings.append(err.finding)
        return report, None
