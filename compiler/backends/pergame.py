"""Values remembered for the game being built, and forgotten when another game comes.

The back ends ask for the same derived things several times in one build (a unit's identity
digest, a chart's drawing, a counter drawn on several charts); they are kept for one game at a
time, recognised by object identity, so a long-lived process does not keep old games alive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from compiler.model.gamedata import GameData

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


class PerGame(Generic[T]):
    """A value made by `factory` for the last game asked about."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self.factory = factory
        self.game: GameData | None = None
        self.value: T | None = None

    def of(self, game: GameData) -> T:
        """The value for `game`, made afresh when the game is not the last one."""
        if self.game is not game or self.value is None:
            self.game, self.value = game, self.factory()
        return self.value

    def peek(self, game: GameData) -> T | None:
        """The value for `game` if it is the last game asked about, without making one."""
        return self.value if self.game is game else None


class PerGameMemo(PerGame[dict[K, V]]):
    """Values by key, each made once for the last game asked about."""

    def __init__(self) -> None:
        super().__init__(dict)

    def get(self, game: GameData, key: K, make: Callable[[], V]) -> V:
        """The value under `key` for `game`: made by `make` the first time it is asked for."""
        memo = self.of(game)
        if key not in memo:
            memo[key] = make()
        return memo[key]
