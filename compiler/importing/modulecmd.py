"""`countermix import-module MODULE.vmod OUT_DIR`: a module made with VASSAL's editor migrated
into a countermix game folder.

Order of work: refuse an OUT_DIR that holds anything; read the module whole as untrusted data
(compiler.importing.archive) and turn it into game data in memory (togame); write the game's
files into a hidden sibling folder and load the game from there; read each predefined set-up
into a scenario of that game with import-save's reader (togame.scenario_files) and write it
too; validate the folder and rename it into place. A failure at any step leaves nothing
behind.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.diagnostics import Finding
from compiler.importing.archive import Archive
from compiler.importing.module import read_module
from compiler.importing.togame import convert, scenario_files, slug
from compiler.load.game import load_game
from compiler.pipeline import UsageError, check_game


@dataclass
class ModuleImport:
    """What an import wrote: the game folder, its id, how many of each record, what the
    format could not hold (one line each) and the findings of validating the result."""

    folder: Path
    game_id: str
    counts: dict[str, int] = field(default_factory=dict)
    unsupported: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def import_module(vmod: Path, out_dir: Path) -> ModuleImport:
    """Import `vmod` into the new game folder `out_dir` (see the module doc). ArchiveError
    when `vmod` is not a readable module, UsageError when `out_dir` is in use."""
    _check_free(out_dir)
    game_id = slug(out_dir.name, "game")
    with Archive(vmod) as archive:
        tree = read_module(archive)
        result = convert(tree, archive, game_id)
    staging: Path | None = None
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
        _write_files(staging, result.files)
        for name, data in result.art.items():
            _write(staging / name, data)
        if result.setups:
            game = load_game(staging).game
            if game is None:
                result.unsupported["set-ups (the game without them does not load)"] += 1
            else:
                before = set(result.files)
                scenario_files(result, game)
                _write_files(staging, {k: result.files[k] for k in set(result.files) - before})
        findings = check_game(staging).findings
        staging.chmod(0o777 & ~_umask())
        os.rename(staging, out_dir)
        staging = None
    except OSError as err:
        raise UsageError(f"cannot write {out_dir}: {err.strerror or err}") from err
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    findings = check_game(out_dir).findings if findings else findings
    unsupported = [
        f"{what} on {count} pieces" if what.startswith("trait ") else
        (f"{what} ({count} times)" if count > 1 else what)
        for what, count in sorted(result.unsupported.items())
    ]  # fmt: skip
    return ModuleImport(out_dir, game_id, dict(result.counts), unsupported, list(findings))


def _write_files(folder: Path, files: dict[str, dict[str, Any]]) -> None:
    for name, data in files.items():
        if any(value is not None for value in data.values()):
            _write(folder / name, yaml_document(data).encode("utf-8"))


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _check_free(folder: Path) -> None:
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise UsageError(f"{folder} exists and is not a folder; nothing was written")
    if folder.is_dir() and any(folder.iterdir()):
        raise UsageError(f"{folder} already exists and is not empty; nothing was written")
    if not folder.parent.is_dir():
        raise UsageError(f"no folder {folder.parent} to create {folder.name} in")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def yaml_document(data: dict[str, Any]) -> str:
    """Block YAML with JSON scalars (valid YAML 1.2 and what the loader reads); None
    values are left out."""
    lines = ["# Imported from a VASSAL module by countermix import-module."]
    _emit(data, 0, lines)
    return "\n".join(lines) + "\n"


def _scalar(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def _flat(value: Any) -> bool:
    if isinstance(value, dict):
        return all(not isinstance(v, dict | list) or _flat(v) for v in value.values())
    if isinstance(value, list):
        return all(not isinstance(v, dict | list) for v in value)
    return True


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        items = (f"{k}: {_inline(v)}" for k, v in value.items() if v is not None)
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return _scalar(value)


def _emit(data: dict[str, Any], indent: int, lines: list[str]) -> None:
    pad = " " * indent
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, dict) and not (_flat(value) and len(_inline(value)) < 90):
            lines.append(f"{pad}{key}:")
            _emit(value, indent + 2, lines)
        elif isinstance(value, list) and value and not _flat(value):
            lines.append(f"{pad}{key}:")
            for item in value:
                if isinstance(item, dict) and not (_flat(item) and len(_inline(item)) < 90):
                    lines.append(f"{pad}  -")
                    _emit(item, indent + 4, lines)
                else:
                    lines.append(f"{pad}  - {_inline(item)}")
        else:
            lines.append(f"{pad}{key}: {_inline(value)}")
