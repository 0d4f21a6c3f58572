"""The files countermix reads at run time, found through the installed package.

They live in the repository's top-level `templates/` folder, which is installed as the
`compiler.templates` package (pyproject.toml maps it); a wheel installed anywhere finds them the
same way as a checkout installed in editable mode. Nothing here looks at the working directory.
"""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec
from pathlib import Path

LAYOUTS = "layouts.yaml"
PLAYER_AIDS = "player_aids.yaml.j2"
NEW_GAMES = "new-game"


@cache
def templates_dir() -> Path:
    """The folder of the installed `compiler.templates` package: where the import system finds
    its `__init__.py` (what importlib.resources.files gives for a package of plain files,
    without importing importlib.resources and its readers: 2-5 ms of every build's start)."""
    spec = find_spec("compiler.templates")
    if spec is not None and spec.origin is not None:
        return Path(spec.origin).parent
    from importlib.resources import files

    return Path(str(files("compiler.templates")))


def template(name: str) -> Path:
    """One file (or folder) of the shipped templates."""
    return templates_dir() / name


def shipped_layout_files() -> list[Path]:
    """The shipped layout files: the templates' top-level *.yaml, sorted."""
    return sorted(templates_dir().glob("*.yaml"))
