"""Shortcuts of the rules' hot paths give the answers of the plain code: a selector entry tells
plain values from collections by type first (the same answers as the ABC check, str subclasses
and collections included), and a stacking cap whose bound reads no piece values works it out
once per series title, not once per location (a cap that reads them still sees each stack)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from enum import StrEnum
from typing import Any

import pytest

from compiler.model.constraints import Stacking
from compiler.model.gamedata import GameData
from compiler.rules import base, stacking
from compiler.rules.engine import validate
from compiler.rules.select import _compile_entry, _norm
from tests.conftest import loaded_seed


class Colour(StrEnum):
    RED = "red"


def plain_norm(value: Any) -> tuple[str, Any]:
    """The comparison key as the rules first wrote it (isinstance only)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", float(value))
    return ("s", str(value))


def plain_ok(accept: frozenset[Any], reject: frozenset[Any], actual: Any) -> bool:
    if isinstance(actual, Collection) and not isinstance(actual, str):
        keys = {plain_norm(a) for a in actual}
        return bool(accept & keys) or bool(reject and not reject & keys)
    key = plain_norm(actual)
    return key in accept or bool(reject and key not in reject)


VALUES: list[Any] = [
    "red",
    "",
    "1",
    Colour.RED,
    1,
    1.0,
    0,
    2.5,
    True,
    False,
    None,
    ("red", "blue"),
    ("1",),
    (),
    frozenset({"red"}),
    frozenset({1, "x"}),
    ["red"],
]
WANTED: list[Any] = ["red", "!red", 1, ("red", 1), ("!red", "!blue"), True, "1", ("!1",)]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_norm_is_the_plain_key(value: Any) -> None:
    if not isinstance(value, list | tuple | frozenset):
        assert _norm(value) == plain_norm(value)
        assert type(_norm(value)[1]) is type(plain_norm(value)[1])


@pytest.mark.parametrize("wanted", WANTED, ids=repr)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_an_entry_answers_as_the_plain_test(wanted: Any, value: Any) -> None:
    test = _compile_entry("key", wanted)
    assert test.ok(value) == plain_ok(test.accept, test.reject, value)


@pytest.fixture
def bounds(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The stacking caps' bounds worked out from now on (their limits)."""
    seen: list[object] = []
    real = base.bound

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(stacking, "bound", spy)
    return seen


def stacking_only(game: GameData, max_value: int | str) -> GameData:
    """The game with its stacking constraints alone, each cap's max set to `max_value`."""
    found = [
        replace(c, caps=tuple(replace(cap, max=max_value) for cap in c.caps))
        for c in game.constraints
        if isinstance(c, Stacking)
    ]
    return replace(game, constraints=tuple(found))


def stackings(game: GameData) -> list[Stacking]:
    return [c for c in game.constraints if isinstance(c, Stacking)]


def locations_checked(game: GameData) -> int:
    """How many (cap, location) pairs the stacking constraints look at."""
    from compiler.rules.context import Context

    ctx = Context(game)
    count = 0
    for c in stackings(game):
        for view in base.views(ctx, c):
            for pieces in view.by_location().values():
                if ctx.place_matches(c.locations, pieces[0].place):
                    count += len(c.caps)
    return count


@pytest.mark.parametrize("name", ["napoleon", "asia_engulfed", "twilight_in_the_east"])
def test_a_constant_cap_is_worked_out_once_per_title(name: str, bounds: list[object]) -> None:
    game = stacking_only(loaded_seed(name), 0)
    assert locations_checked(game) > len(game.constraints) + 1  # more places than caps
    findings = validate(game)
    titles = {s.title for s in game.scenarios}
    caps = sum(len(c.caps) for c in stackings(game))
    assert 0 < len(bounds) <= caps * len(titles)
    assert any(f.rule in {c.id for c in game.constraints} for f in findings)  # still checked


def test_a_cap_that_reads_the_pieces_sees_each_stack(bounds: list[object]) -> None:
    game = stacking_only(loaded_seed("napoleon"), "count() - 1")
    findings = validate(game)
    assert len(bounds) == locations_checked(game)
    over = [f for f in findings if f.rule in {c.id for c in game.constraints}]
    assert over  # every stack of two pieces or more holds more than count() - 1 weighs ... at 1


def test_a_missing_param_in_a_cap_is_one_finding() -> None:
    game = stacking_only(loaded_seed("napoleon"), "$no_such_param")
    findings = validate(game)
    unknown = [f for f in findings if f.rule == "unknown-param"]
    assert len(unknown) == len(game.constraints)
