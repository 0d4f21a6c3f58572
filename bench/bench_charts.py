"""Benchmark: build every seed game's charts — charts.pdf and the module's chart PNGs.

Times each game (loading excluded; rendering the player-aids template included) and the total
for all five, in English and in Japanese.
Run: python -m bench.bench_charts
Target on a 2-core machine: all five games' charts in under 5 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from compiler.backends.charts.build import all_charts, render_charts
from compiler.backends.sheets.options import SheetOptions
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData

SOURCES = Path(__file__).parent.parent / "sources"


def build_charts(loaded: GameData, lang: str) -> tuple[float, float, int, int]:
    """(player-aids template s, PDF and PNGs s, pages, PDF bytes) for one game's charts."""
    start = time.perf_counter()
    game, findings = with_aids(loaded)
    assert not findings, findings
    aids = time.perf_counter()
    pdf, _pngs = render_charts(game, SheetOptions(lang="ja" if lang == "ja" else "en"))
    end = time.perf_counter()
    return aids - start, end - aids, len(all_charts(game, lang)), len(pdf)


def main() -> int:
    out = sys.stdout.write
    games: list[GameData] = []
    for folder in sorted(p for p in SOURCES.iterdir() if p.is_dir()):
        game = load_game(folder).game
        assert game is not None, folder
        games.append(game)
    for lang in ("en", "ja"):
        total = 0.0
        for game in games:
            aids_s, charts_s, pages, size = build_charts(game, lang)
            total += aids_s + charts_s
            out(
                f"{lang} {game.game.id:22} {pages:3} charts  aids {aids_s:4.2f} s  "
                f"PDF ({size / 1024:,.0f} KiB) and PNGs {charts_s:5.2f} s\n"
            )
        out(f"{lang} all five games: {total:.2f} s  target < 5 s\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
