"""Write docs/reference/: one page per section of a data file, generated from compiler/model/."""

from __future__ import annotations

import sys

from compiler.reference import ROOT, write


def main() -> int:
    for path in write(ROOT):
        sys.stdout.write(f"wrote {path.relative_to(ROOT).as_posix()}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
