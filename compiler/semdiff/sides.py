"""The two sides of `countermix diff`: a game folder is loaded as it is; a module (.vmod) is
first imported into a temporary game folder (compiler.importing), so modules countermix did
not build compare the same way."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from compiler.importing.archive import ArchiveError
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.pipeline import UsageError

MODULE_SUFFIXES = (".vmod", ".vmdx", ".zip")
IMPORTED_ID = "game"
"""Every imported module gets this game id, so two modules compare by content, not name."""


@contextmanager
def loaded(path: Path) -> Iterator[GameData]:
    """The game at `path` (a game folder or a module); UsageError when it cannot be read."""
    if path.is_dir():
        yield _folder(path, path)
        return
    if not path.exists():
        raise UsageError(f"no such file or folder: {path}")
    if path.suffix.lower() not in MODULE_SUFFIXES:
        raise UsageError(f"{path} is neither a game folder nor a VASSAL module (.vmod)")
    from compiler.importing.modulecmd import import_module

    with tempfile.TemporaryDirectory(prefix="countermix-diff-") as work:
        folder = Path(work) / IMPORTED_ID
        try:
            import_module(path, folder)
        except ArchiveError as err:
            raise UsageError(str(err)) from err
        yield _folder(folder, path)


def _folder(folder: Path, named: Path) -> GameData:
    loaded = load_game(folder)
    if loaded.game is None:
        first = loaded.findings[0].message if loaded.findings else "no game data"
        raise UsageError(f"cannot read the game in {named}: {first}")
    return loaded.game
