"""A game's units in runs of RUN_UNITS, each keyed by what decides everything the faces'
checks and the print sheets make of its units: their content digests (compiler.model.digests)
and the records every unit face is drawn with (unit types, nationalities, sides, layouts).

The faces' checks (pipeline.face_findings) and the sheets (sheets.pdf) keep what they made of
a run under its key, so a warm build after one unit changed works out again the one run that
holds it: the other runs cost a look-up each, not a pass over their units' faces. A run with
a unit that has piece art has no key (its pictures are files, read on every build).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache, partial
from operator import attrgetter
from pathlib import Path

from compiler.backends.pergame import PerGame, PerGameMemo
from compiler.model.digests import content_digest
from compiler.model.gamedata import GameData
from compiler.model.units import Unit

RUN_UNITS = 32
"""Units per run: a changed unit makes its run's faces and forms again."""


@dataclass(frozen=True, slots=True)
class UnitRun:
    """Some units of a game, back to back in the order of the sources."""

    units: tuple[Unit, ...]
    key: str | None
    """The digest of the run's units and of what their faces are drawn with (the renderers'
    and the sheets' code too); None when a unit has piece art."""


@cache
def sheets_fingerprint() -> str:
    """The digest of the sheets' own code (how pieces are listed and named), part of every
    run's key beside the renderers' fingerprint."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _context(game: GameData) -> str:
    """What every unit face may be drawn with, besides the unit itself (a superset of the
    parts of art.identity.unit_identity), and the code that draws and lists them."""
    from compiler.backends.rendercache import renderer_fingerprint

    shared = (game.unit_types, game.game.nationalities, game.game.sides, game.layouts)
    text = f"{renderer_fingerprint()}:{sheets_fingerprint()}:{shared!r}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _runs(game: GameData) -> tuple[UnitRun, ...]:
    context = _context(game)
    units = game.units
    digests = list(map(content_digest, units))  # (each pass over the units stays in C)
    arts = list(map(attrgetter("art"), units))
    runs: list[UnitRun] = []
    for start in range(0, len(units), RUN_UNITS):
        end = start + RUN_UNITS
        part = units[start:end]
        key = None
        if arts[start:end].count(None) == len(part):
            text = ":".join([context, *digests[start:end]])
            key = hashlib.sha256(text.encode("ascii")).hexdigest()
        runs.append(UnitRun(part, key))
    return tuple(runs)


_MADE: PerGame[list[tuple[UnitRun, ...]]] = PerGame(list)


def unit_runs(game: GameData) -> tuple[UnitRun, ...]:
    """The game's units in runs (worked out once per game: the faces' checks and the sheets
    ask for them)."""
    made = _MADE.of(game)
    if not made:
        made.append(_runs(game))
    return made[0]


_BLOCKS: PerGameMemo[str, frozenset[str]] = PerGameMemo()


def block_types(game: GameData) -> frozenset[str]:
    """The ids of the unit types whose units are blocks (a unit is one when its type, the
    first of that id, is: GameData.unit_type)."""
    return _BLOCKS.get(game, "", partial(_block_types, game))


def _block_types(game: GameData) -> frozenset[str]:
    return frozenset(
        t.id for t in game.unit_types if t.shape == "block" and game.unit_type(t.id) is t
    )
