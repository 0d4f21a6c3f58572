"""`countermix import-save GAME FILE.vsav --scenario ID`: a set-up arranged in VASSAL, back as
the game's data.

Order of work: load the game, read the save (refused whole when it is not a save of this
game's module), read every piece back (what cannot be read back is a finding and nothing is
written), write the scenario where it belongs (see writeback), then validate the game and
report the findings in the written file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from compiler.backends.files import write_atomically
from compiler.backends.vassal.buildfile import module_name
from compiler.backends.vassal.module import ArtError, map_layouts
from compiler.diagnostics import Finding
from compiler.importing.archive import ArchiveError
from compiler.importing.saves import read_save
from compiler.importing.scenario import scenario_from_save
from compiler.importing.writeback import (
    Target,
    WriteBackError,
    find_target,
    own_file_text,
    spliced,
)
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario
from compiler.pipeline import UsageError, check_game


@dataclass
class SaveImport:
    """What an import did: the file written (None when nothing was), the findings that kept
    it from being written, and the findings of the game in the written file."""

    written: Path | None = None
    findings: list[Finding] = field(default_factory=list)
    validation: list[Finding] = field(default_factory=list)
    placed: int = 0
    arriving: int = 0
    replaced: bool = False


def import_save(
    folder: Path,
    save_path: Path,
    scenario_id: str,
    *,
    replace: bool = False,
    like: str = "",
    title: str = "",
) -> SaveImport:
    """Import `save_path` into the game at `folder` as scenario `scenario_id`.
    UsageError (exit 2) when the save or the target is refused; findings otherwise."""
    report = check_game(folder)
    game = report.game
    if game is None:
        return SaveImport(findings=report.findings)
    try:
        save = read_save(save_path)
    except ArchiveError as err:
        raise UsageError(str(err)) from err
    expected = module_name(game)
    if save.module_name and save.module_name != expected:
        raise UsageError(
            f"{save_path} is a save of the module `{save.module_name}`, not of "
            f"`{expected}` (game `{game.game.id}`); nothing written"
        )
    existing = _scenario(game, scenario_id)
    base = existing if existing is not None else _like(game, like)
    series_title = title or (base.title if base is not None else "")
    if game.game.titles and not series_title:
        raise UsageError(
            f"`{game.game.id}` is a series: say which title the scenario belongs to "
            "(--title, or --like a scenario of that title)"
        )
    target = find_target(game, folder, scenario_id, series_title, existing)
    if target.exists and not replace:
        what = f"scenario `{scenario_id}`" if existing is not None else "the file"
        raise UsageError(
            f"{what} exists in {target.path}; add --replace to replace it, or import under "
            "another --scenario id; nothing written"
        )
    try:
        layouts = map_layouts(game)
    except ArtError as err:
        raise UsageError(str(err)) from err
    imported = scenario_from_save(game, layouts, save, scenario_id, base, series_title)
    result = SaveImport(placed=imported.placed, arriving=imported.arriving)
    if imported.findings:
        result.findings = imported.findings
        return result
    _write(target, scenario_id, imported.data, save_path.name)
    result.written = target.path
    result.replaced = target.exists
    after = check_game(folder)
    result.validation = [f for f in after.findings if _in_file(f, target.path)]
    return result


def _scenario(game: GameData, scenario_id: str) -> Scenario | None:
    return next((s for s in game.scenarios if s.id == scenario_id), None)


def _like(game: GameData, like: str) -> Scenario | None:
    if not like:
        return None
    found = _scenario(game, like)
    if found is None:
        known = ", ".join(s.id for s in game.scenarios)
        raise UsageError(f"--like: no scenario `{like}` in `{game.game.id}`; scenarios: {known}")
    return found


def _write(target: Target, scenario_id: str, data: dict[str, object], source: str) -> None:
    try:
        if target.shared:
            text = target.path.read_text(encoding="utf-8")
            new = spliced(text, scenario_id, dict(data))
        else:
            new = own_file_text(dict(data), source)
        write_atomically(target.path, new.encode("utf-8"))
    except WriteBackError as err:
        raise UsageError(
            f"cannot replace scenario `{scenario_id}` in {target.path}: {err}"
        ) from err
    except OSError as err:
        raise UsageError(f"cannot write {target.path}: {err.strerror or err}") from err


def _in_file(finding: Finding, path: Path) -> bool:
    try:
        return Path(finding.location.path).resolve() == path.resolve()
    except OSError:
        return False
