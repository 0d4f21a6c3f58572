"""Splice the output of `countermix rules` into README.md between the rules markers."""

from __future__ import annotations

import sys
from pathlib import Path

from compiler.catalogue import catalogue
from compiler.pipeline import check_game, game_folders

START, END = "<!-- rules:start -->", "<!-- rules:end -->"
ROOT = Path(__file__).resolve().parent.parent


def current_catalogue() -> str:
    games = [check_game(folder).game for folder in game_folders(ROOT / "sources")]
    return catalogue(g for g in games if g is not None)


def spliced(readme: str, body: str) -> str:
    head, _, rest = readme.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{body}{END}{tail}"


def main() -> int:
    path = ROOT / "README.md"
    path.write_text(
        spliced(path.read_text(encoding="utf-8"), current_catalogue()), encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
