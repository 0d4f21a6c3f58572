"""Where a warm rebuild's cost grows with the game: the growth between two sizes, by function.

`bench_warm` says how much a rebuild after one unit changed grows from a small game to a
large one, stage by stage; this says where inside the stages it goes. For two sizes (default
500 and 8,000 counters) a game is generated and built cold as `bench_warm` makes and builds
them, then `--rounds` warm rebuilds are run in this process, one unit changed before each (as
`countermix build` runs a build: `build_games`, the cyclic collector frozen, in the tool's
working folder), under cProfile, after one round run unprofiled (a process's first build pays
once for what any build needs). Each function's own time a round at the small size is taken
from the large size's (a built-in's, such as `marshal.loads`, by the function that called
it); the functions that grow most are printed with their share of the growth of all
functions, and how few functions hold half and four fifths of it.

cProfile makes every Python call slower (C calls less so), so the figures rank the functions
and show how the growth is spread; the time a user waits for is `bench_warm`'s. Rounds in one
process also let go of the round before's remembered values when the next build asks for
its own (`backends.pergame`: their freeing is counted in `PerGame.of`), which a whole
process, ending at once after its one build, never does.

Run: python -m bench.bench_growth [--sizes 500,8000] [--rounds 3] [--top 30]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from bench.bench_warm import Game, build_process, change_unit, make_game, rebuild_in_process
from bench.tool import snapshot

Function = tuple[str, int, str]
"""A function as pstats names it: its file, first line and name."""


class Own(NamedTuple):
    """A function's own time a round (s) and its calls a round."""

    seconds: float
    calls: float


def profiled_rounds(game: Game, out: Path, rounds: int, tool: Path) -> dict[Function, Own]:
    """Each function's own time and calls a round over `rounds` warm rebuilds of `game` in
    this process, one unit changed before each, after one round run unprofiled."""
    profile = cProfile.Profile()
    for number in range(rounds + 1):
        change_unit(game, 1000 + number)
        if number:
            profile.enable()
        try:
            rebuild_in_process(game, out, tool)
        finally:
            profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    owns: dict[Function, Own] = {}
    for (file, line, name), (_primitive, calls, own, _whole, callers) in stats.items():
        if file != "~":
            owns[(_short(file, tool), line, name)] = Own(own / rounds, calls / rounds)
            continue
        # a built-in (marshal.loads, dict.update) by the function that called it: summed over
        # all its callers it looks like one cost when it is a hundred small ones
        for (at, at_line, caller), (_cc, by_calls, by_own, _ct) in callers.items():
            owns[(_short(at, tool), at_line, f"{caller} > {name}")] = Own(
                by_own / rounds, by_calls / rounds
            )
    return owns


def _short(file: str, tool: Path) -> str:
    """A function's file relative to the tool's copy (or as pstats names it: `~` for C)."""
    return file[len(str(tool)) + 1 :] if file.startswith(str(tool)) else file


class Growth(NamedTuple):
    """A function's own time a round: how much it grows from the small size to the large
    one (s), and what it is at each."""

    function: Function
    grown: float
    small: Own
    large: Own


def growth(small: dict[Function, Own], large: dict[Function, Own]) -> list[Growth]:
    """Each function's own time a round at the large size less at the small one, most first."""
    none = Own(0.0, 0.0)
    rows = [
        Growth(
            key,
            large.get(key, none).seconds - small.get(key, none).seconds,
            small.get(key, none),
            large.get(key, none),
        )
        for key in small.keys() | large.keys()
    ]
    rows.sort(key=lambda row: (-row.grown, row.function))
    return rows


def held_by(rows: Iterable[Growth], share: float) -> int:
    """How many of the functions that grow most (`rows`, most first) hold `share` of the
    growth of those that grow."""
    grown = [row.grown for row in rows if row.grown > 0]
    total, running = sum(grown), 0.0
    for count, value in enumerate(grown, start=1):
        running += value
        if running >= share * total:
            return count
    return len(grown)


def _name(function: Function) -> str:
    file, line, name = function
    return name if file == "~" else f"{file}:{line}({name})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,8000", help="two sizes, smaller first")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    try:
        small_size, large_size = (int(size) for size in args.sizes.split(","))
    except ValueError:
        parser.error("--sizes takes two sizes, such as 500,8000")
    if not 0 < small_size < large_size:
        parser.error("--sizes takes two sizes, the smaller first, such as 500,8000")
    out = sys.stdout.write
    with snapshot() as tool, tempfile.TemporaryDirectory() as tmp:
        owns: list[dict[Function, Own]] = []
        for size in (small_size, large_size):
            game = make_game(Path(tmp), size)
            built = Path(tmp) / f"out-{size}"
            build_process(tool, game, built)  # cold, as a whole process
            owns.append(profiled_rounds(game, built, args.rounds, tool))
    rows = growth(*owns)
    totals = [sum(own.seconds for own in by.values()) for by in owns]
    grown = sum(row.grown for row in rows if row.grown > 0)
    counters = large_size - small_size
    out(
        f"warm rebuild, one unit changed, in process under cProfile, a round (mean of "
        f"{args.rounds}): {small_size:,} counters {totals[0]:.3f} s, {large_size:,} counters "
        f"{totals[1]:.3f} s; {(totals[1] - totals[0]) / counters * 1e6:.1f} us a counter more\n"
    )
    out(
        f"functions whose own time grows: {sum(1 for row in rows if row.grown > 0)}; half "
        f"of the growth is in {held_by(rows, 0.5)} of them, four fifths in "
        f"{held_by(rows, 0.8)}; the one that grows most holds "
        f"{rows[0].grown / grown:.1%}\n\n"
        if grown > 0
        else "nothing grows\n\n"
    )
    out(f"{'grows ms':>9}{'share':>7}{'small ms':>10}{'large ms':>10}{'calls':>9}  function\n")
    for row in rows[: args.top]:
        share = row.grown / grown if grown > 0 else 0.0
        out(
            f"{row.grown * 1e3:>9.1f}{share:>7.1%}{row.small.seconds * 1e3:>10.1f}"
            f"{row.large.seconds * 1e3:>10.1f}{row.large.calls:>9.0f}  {_name(row.function)}\n"
        )
    out("(own time: a function's calls of others are theirs; `calls` at the large size)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
