"""Write compiler/load/aidscode.py: the shared player-aids template compiled ahead of time (run
`ruff format` on it after, as on any code)."""

from __future__ import annotations

import sys
from pathlib import Path

from compiler.load.aids import shared_code_module
from compiler.resources import PLAYER_AIDS, template

MODULE = Path(__file__).resolve().parent.parent / "compiler" / "load" / "aidscode.py"


def main() -> int:
    source = template(PLAYER_AIDS).read_text(encoding="utf-8")
    MODULE.write_text(shared_code_module(source), encoding="utf-8")
    sys.stdout.write(f"wrote {MODULE}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
