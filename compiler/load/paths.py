"""Paths inside a game folder: data files, and files the data names (board art).

Everything a game reads lies inside its folder. A path named in the data is relative to the
folder; an absolute path, one that climbs out with `..`, or one that leaves through a symbolic
link is refused with the reason, before anything opens it.
"""

from __future__ import annotations

import os
from pathlib import Path


def real_root(root: str) -> str:
    """The game folder with every symbolic link resolved."""
    return os.path.realpath(root)


def inside(real: str, root_real: str) -> bool:
    """Whether the resolved path `real` is `root_real` or lies below it."""
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def game_path(root: str, name: str) -> tuple[Path, str | None]:
    """The file that `name`, a path in the data of the game in folder `root`, means, and None;
    or that path and why it may not be used (it is absolute, or leads outside the folder)."""
    path = Path(root) / name
    if "\x00" in name:
        return path, "holds a NUL character"
    if Path(name).anchor:
        return path, "is an absolute path; paths in the data are relative to the game folder"
    if not inside(os.path.realpath(path), real_root(root)):
        if ".." in Path(name).parts:
            return path, "leads outside the game folder (through `..`)"
        return path, "leads outside the game folder (through a symbolic link)"
    return path, None
