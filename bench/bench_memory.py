"""Benchmark: peak memory of a cold build of the seed games, and of drawing their largest board.

Whole process: `countermix build --out <tmp>` of every game under sources/ (render cache empty,
so every board, face and chart is drawn) runs as a child process; its peak resident set
(`ru_maxrss` of the waited-for children, read when it has exited) is printed. It is the first
and only child this process waits for before reading the figure, so no other process is
counted in it.
Board alone: a second child loads the game holding the largest board (by pixels), lays its map
out and asks the module's own board step (`module._board_png`, an empty render cache) for its
PNG; it prints its resident set before drawing, its peak after (the difference is what drawing
and encoding that one board costs) and the PNG's size.
Floor: a child that only imports the module back end and loads the same game (interpreter,
libraries, YAML) — the memory no build can go below.
Leaves out: the build's page cache and files on disk; memory of threads is counted (one
process). The tool and the seed games are a copy taken when the bench starts (bench.tool).
Run: python -m bench.bench_memory [--sources FOLDER] [--skip-build]
Target (issue 13): cold build of all five seed games <= 400 MB peak.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.tool import environment, snapshot

TARGET_MB = 400.0


def _mb(kib: float) -> float:
    return kib / 1024


def _rss_kib() -> int:
    """The current resident set of this process, KiB (Linux /proc; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _largest_board(sources: Path) -> tuple[str, str, int, int]:
    """(game folder, map id, width, height) of the board with the most pixels."""
    from compiler.backends.vassal.boardart import load_board_art
    from compiler.backends.vassal.geometry import layout_map
    from compiler.load.game import load_game

    best: tuple[str, str, int, int] = ("", "", 0, 0)
    for folder in sorted(p for p in sources.iterdir() if p.is_dir()):
        game = load_game(folder).game
        if game is None:
            continue
        for game_map in game.maps:
            board_art = load_board_art(game, game_map)
            layout = layout_map(game_map, board_art.size if board_art is not None else None)
            if layout.width * layout.height > best[2] * best[3]:
                best = (str(folder), game_map.id, layout.width, layout.height)
    return best


def board_child(folder: str, map_id: str, draw: bool) -> None:
    """In a fresh process: load the game, then (if `draw`) draw and encode one board the way
    the module step does; print JSON with the resident sets."""
    from compiler.backends.rendercache import RenderCache
    from compiler.backends.vassal import module
    from compiler.backends.vassal.boardart import load_board_art
    from compiler.backends.vassal.geometry import layout_map
    from compiler.load.game import load_game

    game = load_game(Path(folder)).game
    assert game is not None
    game_map = next(m for m in game.maps if m.id == map_id)
    board_art = load_board_art(game, game_map)
    layout = layout_map(game_map, board_art.size if board_art is not None else None)
    before = _rss_kib()
    size, seconds = 0, 0.0
    if draw:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            key = module._board_key(game, layout, board_art)
            cache = RenderCache(Path(tmp) / "b.pack")
            data = module._board_png(game, layout, board_art, cache, key)
            seconds = time.perf_counter() - start
            size = len(data)
            del data
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sys.stdout.write(
        json.dumps({"before": before, "peak": peak, "png": size, "seconds": seconds}) + "\n"
    )


def _child_json(tool: Path, args: list[str]) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_memory", *args],
        cwd=tool,
        env=environment(),
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def cold_build(tool: Path, sources: Path) -> tuple[float, float]:
    """(peak resident set in KiB, seconds) of a cold `countermix build` of every game."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "compiler",
                "build",
                "--sources",
                str(sources),
                "--out",
                str(Path(tmp) / "out"),
            ],
            cwd=tool,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - start
        return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, seconds


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path, help="games folder (default: the seed games)")
    parser.add_argument("--skip-build", action="store_true", help="only the board figures")
    parser.add_argument("--board-child", nargs=3, metavar=("FOLDER", "MAP", "DRAW"))
    args = parser.parse_args()
    if args.board_child:
        folder, map_id, draw = args.board_child
        board_child(folder, map_id, draw == "1")
        return
    with snapshot() as tool:
        measure(tool, args.sources.resolve() if args.sources else tool / "sources", args.skip_build)


def measure(tool: Path, sources: Path, skip_build: bool) -> None:
    if not skip_build:
        # First child this process waits for: RUSAGE_CHILDREN is then this build's peak alone.
        peak, seconds = cold_build(tool, sources)
        verdict = "met" if _mb(peak) <= TARGET_MB else "NOT met"
        say(
            f"cold build, {sources.name}/ (all games): peak RSS {_mb(peak):.0f} MB in "
            f"{seconds:.1f} s; target <= {TARGET_MB:.0f} MB: {verdict} "
            f"({_mb(peak) / TARGET_MB:.2f}x the target)"
        )
    folder, map_id, width, height = _largest_board(sources)
    floor = _child_json(tool, ["--board-child", folder, map_id, "0"])
    board = _child_json(tool, ["--board-child", folder, map_id, "1"])
    say(
        f"largest board: {Path(folder).name}/{map_id} {width}x{height} px "
        f"({width * height * 3 / 2**20:.0f} MB as RGB), PNG {board['png'] / 2**20:.1f} MB "
        f"in {board['seconds']:.2f} s"
    )
    say(
        f"board alone, in process: peak RSS {_mb(board['peak']):.0f} MB, "
        f"{_mb(board['peak'] - board['before']):.0f} MB above the "
        f"{_mb(board['before']):.0f} MB before drawing"
    )
    say(
        f"floor (interpreter, imports, that game loaded, nothing drawn): peak RSS "
        f"{_mb(floor['peak']):.0f} MB"
    )


if __name__ == "__main__":
    main()
