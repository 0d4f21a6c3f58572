"""`countermix new`: a small, complete, commented game to start from, one per map kind.

The games are Jinja2 templates shipped in the package, `templates/new-game/<kind>/**/*.j2` (a
folder name that is not a Python identifier, so setuptools does not take its subfolders for
packages). Each file is rendered with the game's id, its title and whether it is a series, and
written without its `.j2` suffix. Everything is rendered in memory first and written into a
hidden sibling folder that is renamed into place at the end, so the destination is either the
whole game or untouched; an existing folder with anything in it is never written into.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jinja2

from compiler.resources import NEW_GAMES, template

MAP_KINDS = ("hex", "area", "point", "cards")
"""The map kinds `new` has a game for: a hex grid, areas, towns and roads, a card table."""
GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SUFFIX = ".j2"


class NewGameError(Exception):
    """The game cannot be written (the folder exists, a bad id): a usage error."""


@dataclass(frozen=True, slots=True)
class NewGame:
    """What `new` wrote: the game's folder, its id and its files (relative to the folder)."""

    folder: Path
    game_id: str
    files: tuple[str, ...]


def game_id_for(folder: Path) -> str:
    """A game id from a folder name: lower case, runs of other characters as one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")


def title_for(game_id: str) -> str:
    """A readable default title from an id: `my-game` → `My Game`."""
    return " ".join(word.capitalize() for word in game_id.split("-"))


def yaml_text(value: str) -> str:
    """A string as a YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(value, ensure_ascii=False)


def _environment(kind: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template(NEW_GAMES) / kind)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["yaml"] = yaml_text
    return env


def template_files(kind: str) -> list[str]:
    """The template files of one map kind, relative to its folder, sorted."""
    root = template(NEW_GAMES) / kind
    return sorted(
        path.relative_to(root).as_posix() for path in root.rglob(f"*{SUFFIX}") if path.is_file()
    )


def render_game(kind: str, game_id: str, title: str, series: bool) -> dict[str, str]:
    """Output path (relative, no `.j2`) → text, for every file of the kind's game; a file
    that renders to nothing but white space (a series-only file in a plain game) is left out."""
    if kind not in MAP_KINDS:
        raise NewGameError(f"unknown map kind `{kind}`; kinds: {', '.join(MAP_KINDS)}")
    if not GAME_ID.match(game_id):
        raise NewGameError(
            f"`{game_id}` is not a game id: use lower-case letters, digits and hyphens "
            "(give one with --id)"
        )
    env = _environment(kind)
    values = {"game_id": game_id, "title": title, "series": series}
    rendered = {
        name.removesuffix(SUFFIX): env.get_template(name).render(values)
        for name in template_files(kind)
    }
    return {name: text for name, text in rendered.items() if text.strip()}


def _check_free(folder: Path) -> None:
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise NewGameError(f"{folder} exists and is not a folder; nothing was written")
    if folder.is_dir() and any(folder.iterdir()):
        raise NewGameError(
            f"{folder} already exists and is not empty; nothing was written "
            "(choose a new folder name)"
        )
    if not folder.parent.is_dir():
        raise NewGameError(f"no folder {folder.parent} to create {folder.name} in")


def write_game(
    folder: Path, kind: str, series: bool = False, game_id: str = "", title: str = ""
) -> NewGame:
    """Write a new game of map `kind` into `folder` (which must not exist, or be empty)."""
    game_id = game_id or game_id_for(folder)
    files = render_game(kind, game_id, title or title_for(game_id), series)
    _check_free(folder)
    staging: Path | None = None
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        for name, text in files.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        staging.chmod(0o777 & ~_umask())
        os.rename(staging, folder)  # replaces an empty folder; fails if one appeared meanwhile
        staging = None
    except OSError as err:
        raise NewGameError(f"cannot write {folder}: {err.strerror or err}") from err
    finally:  # on an error or a Ctrl-C, nothing is left behind
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return NewGame(folder, game_id, tuple(sorted(files)))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
