"""Load one game folder: every YAML file below it, merged into one GameData."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from compiler.diagnostics import FILE_RULES, Finding, Location, Related
from compiler.gcpause import no_cyclic_gc
from compiler.load.aids import read_template
from compiler.load.convert import INVALID, Converter
from compiler.load.keptread import KeptRecords, read_source
from compiler.load.paths import inside, real_root
from compiler.load.places import build_places
from compiler.load.yamlread import read_yaml
from compiler.model.common import Node
from compiler.model.game import Game
from compiler.model.gamedata import GameData
from compiler.model.layouts import Layout
from compiler.model.source import SourceFile
from compiler.model.units import Marker, MarkerSet
from compiler.resources import shipped_layout_files, templates_dir

YAML_SUFFIXES = (".yaml", ".yml")
LIST_SECTIONS = (
    "layouts",
    "unit_types",
    "formations",
    "units",
    "markers",
    "maps",
    "scenarios",
    "decks",
    "cards",
    "charts",
    "aid_cards",
    "constraints",
)


@dataclass
class LoadResult:
    game: GameData | None
    findings: list[Finding] = field(default_factory=list)


def data_files(folder: Path) -> list[Path]:
    """Every YAML file below a game folder, in a stable order; hidden entries skipped."""
    return scan_data_files(folder)[0]


def scan_data_files(folder: Path) -> tuple[list[Path], list[Finding]]:
    """Every YAML file below a game folder (a folder's files, then its subfolders, each in name
    order; hidden entries skipped), and a finding for each folder that cannot be listed and
    each link to a folder outside the game folder (neither is ever skipped in silence).
    Linked folders are not followed: one inside the game folder is read where it lies."""
    found: list[Path] = []
    problems: list[Finding] = []
    root_real = real_root(str(folder))

    def visit(where: Path) -> None:
        try:
            with os.scandir(where) as listing:
                entries = sorted((e for e in listing if not e.name.startswith(".")), key=_name)
        except OSError as err:
            problems.append(_folder_unreadable(where, err))
            return
        subfolders: list[Path] = []
        for entry in entries:
            path = Path(where, entry.name)
            if _is_folder(entry, follow=False):
                subfolders.append(path)
            elif entry.is_symlink() and _is_folder(entry, follow=True):
                if not inside(os.path.realpath(path), root_real):
                    problems.append(_linked_out(path))
            elif entry.name.endswith(YAML_SUFFIXES):
                found.append(path)  # read_yaml refuses what is not a regular file
        for sub in subfolders:
            visit(sub)

    visit(folder)
    return found, problems


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _is_folder(entry: os.DirEntry[str], follow: bool) -> bool:
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False


def _folder_unreadable(where: Path, err: OSError) -> Finding:
    reason = err.strerror or str(err)
    return Finding(
        "file-unreadable",
        Location(str(where)),
        f"cannot list this folder: {reason}; its data files are not read",
        "make the folder readable (and listable) by the user who runs countermix",
    )


def _linked_out(path: Path) -> Finding:
    return Finding(
        "file-unreadable",
        Location(str(path)),
        f"this is a symbolic link to {os.path.realpath(path)}, a folder outside the game "
        "folder; it is not followed",
        "keep the game's data inside its folder (copy the files in)",
    )


def read_file(
    path: Path, root: Path | None = None, kept: KeptRecords | None = None
) -> tuple[SourceFile | None, list[Finding]]:
    """One data file, typed; None when the file could not be read or holds no usable data.
    With `root` (the game folder), a symbolic link is followed only inside it. With `kept`,
    the records the last build kept are read back where the file's text did not change (the
    same result; see compiler.load.keptread)."""
    if kept is not None:
        return read_source(path, root, kept)
    result = read_yaml(str(path), None if root is None else str(root))
    if result.finding is not None:
        return None, [result.finding]
    assert result.node is not None
    converter = Converter(str(path))
    value = converter.convert_root(result.node, SourceFile, result.aliased)
    return (None if value is INVALID else value), converter.findings


def load_game(folder: Path, cache: Path | None = None) -> LoadResult:
    """Read, convert and merge a game folder; never raises for bad data. With `cache` (a file:
    see compiler.load.keptread.kept_path), records read before are read back from it where
    their text did not change, and what this load read is kept there for the next."""
    kept = None if cache is None else KeptRecords(cache)
    with no_cyclic_gc():
        loaded = _load_game(folder, kept)
    if kept is not None:
        kept.save()
    return loaded


def _load_game(folder: Path, kept: KeptRecords | None = None) -> LoadResult:
    files, findings = scan_data_files(folder)
    if not files and not findings:
        loc = Location(str(folder))
        return LoadResult(
            None,
            [
                Finding(
                    "file-unreadable",
                    loc,
                    "no .yaml data files here",
                    "a game folder holds game.yaml and other data files",
                )
            ],
        )
    failed = bool(findings)  # a folder that could not be listed: its files are missing
    sources: list[SourceFile] = []
    for path in files:
        source, found = read_file(path, folder, kept)
        findings.extend(found)
        if source is None:
            failed = True
        else:
            sources.append(source)
    template, template_findings = read_template(folder, templates_dir())
    findings.extend(template_findings)
    if failed or any(f.rule in FILE_RULES for f in template_findings):
        # Root causes only: with a file missing, the checks of the whole game would report
        # what that file held as absent ("0 French blocks", unknown units ...).
        return LoadResult(None, findings)
    game = _single_game(sources, files, findings)
    if game is None:
        return LoadResult(None, findings)
    merged: dict[str, Any] = {
        name: tuple(r for s in sources for r in getattr(s, name)) for name in LIST_SECTIONS
    }
    findings.extend(_duplicate_ids(merged))
    template_layouts, template_findings = _template_layouts(kept)
    findings.extend(template_findings)
    own = {layout.id for layout in merged["layouts"]}
    merged["layouts"] = merged["layouts"] + tuple(t for t in template_layouts if t.id not in own)
    marker_sets: tuple[MarkerSet, ...] = merged.pop("markers")
    places, place_findings = build_places(merged["maps"])
    findings.extend(place_findings)
    data = GameData(
        root=str(folder),
        files=tuple(str(p) for p in files),
        game=game,
        marker_sets=marker_sets,
        markers=expand_markers(marker_sets),
        places=places,
        sources=MappingProxyType(dict(kept.files)) if kept is not None else {},
        kept="" if kept is None or kept.stored is None else str(kept.stored),
        **merged,
    )
    return LoadResult(dataclasses.replace(data, aids_template=template), findings)


def _single_game(
    sources: list[SourceFile], files: list[Path], findings: list[Finding]
) -> Game | None:
    games = [s.game for s in sources if s.game is not None]
    if not games:
        if not any(f.rule in ("yaml-syntax", "wrong-type", "missing-key") for f in findings):
            findings.append(
                Finding(
                    "missing-section",
                    Location(str(files[0])),
                    "no file of this game has a `game:` section",
                    "put the game's id, title and sides in game.yaml",
                )
            )
        return None
    for extra in games[1:]:
        findings.append(
            Finding(
                "duplicate-id",
                extra.loc,
                "a second `game:` section",
                "a game has one `game:` section, in game.yaml",
                related=(Related(games[0].loc, "the first one is here"),),
            )
        )
    return games[0]


def _template_layouts(kept: KeptRecords | None = None) -> tuple[tuple[Layout, ...], list[Finding]]:
    """Reusable layouts from the shipped templates' top-level *.yaml (a game's own layout of the
    same id wins); the games `countermix new` writes, in templates/new-game/, are not layouts."""
    layouts: list[Layout] = []
    findings: list[Finding] = []
    for path in shipped_layout_files():
        source, found = read_file(path, None, kept)
        findings.extend(found)
        if source is not None:
            layouts.extend(source.layouts)
    return tuple(layouts), findings


def expand_markers(sets: Iterable[MarkerSet]) -> dict[str, Marker]:
    markers: dict[str, Marker] = {}
    for marker_set in sets:
        if not marker_set.values:
            markers.setdefault(marker_set.id, Marker(id=marker_set.id, set=marker_set, value=None))
            continue
        for value in marker_set.values:
            text = f"{value:g}" if isinstance(value, float) else str(value)
            marker_id = f"{marker_set.id}-{text}"
            markers.setdefault(marker_id, Marker(id=marker_id, set=marker_set, value=value))
    return markers


def _duplicate_ids(merged: dict[str, Any]) -> list[Finding]:
    findings: list[Finding] = []
    groups = {
        "unit": merged["units"],
        "unit type": merged["unit_types"],
        "formation": merged["formations"],
        "marker": merged["markers"],
        "map": merged["maps"],
        "scenario": merged["scenarios"],
        "deck": merged["decks"],
        "card": merged["cards"],
        "chart": merged["charts"],
        "aid card": merged["aid_cards"],
        "layout": merged["layouts"],
        "constraint": merged["constraints"],
    }
    for what, records in groups.items():
        seen: dict[str, Node] = {}
        for record in records:
            ident = record.id
            first = seen.setdefault(ident, record)
            if first is not record:
                findings.append(
                    Finding(
                        "duplicate-id",
                        record.locate("id"),
                        f"{what} id `{ident}` is already used",
                        "ids must be unique within a game; rename one of them",
                        related=(Related(first.locate("id"), f"`{ident}` is first defined here"),),
                    )
                )
    return findings
