"""The tool a bench runs: a copy of `compiler/` (with `templates/` inside it, as the installed
package has it) and of the seed games, taken when the bench starts, byte-compiled as pip
compiles a package it installs.

Others may be editing the working tree while a bench runs; their edits would change the
renderer's fingerprint (every face drawn again) or break an import half-way through a run.
So a bench copies the tool once, imports `compiler` from that copy in process (`use`) and runs
`python -m compiler` with the copy as its working folder (`command`, `CWD`).
"""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parent.parent
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


@contextmanager
def snapshot() -> Iterator[Path]:
    """A temporary copy of the tool (compiler/ with templates/ as compiler/templates, and
    sources/ beside it), put first on sys.path so that `compiler` is imported from it; the
    copy's folder while the context lasts."""
    if "compiler" in sys.modules and not _from_copy():
        raise RuntimeError("compiler was imported from the working tree before the copy")
    with TemporaryDirectory(prefix="countermix-tool-") as tmp:
        tool = Path(tmp)
        shutil.copytree(ROOT / "compiler", tool / "compiler", ignore=IGNORE)
        shutil.copytree(ROOT / "templates", tool / "compiler" / "templates", ignore=IGNORE)
        shutil.copytree(ROOT / "sources", tool / "sources", ignore=IGNORE)
        byte_compile(tool / "compiler")
        sys.path.insert(0, str(tool))
        try:
            yield tool
        finally:
            sys.path.remove(str(tool))


def byte_compile(package: Path) -> None:
    """Write the .pyc of every module of a copied package, as `pip install` does for the
    wheel (a user's process reads them and compiles nothing). Without them a process run
    with PYTHONDONTWRITEBYTECODE set, or from a folder it cannot write, compiles every module
    it imports again (importing what a build imports: 0.50 s against 0.31 s with the .pyc,
    2 cores, 2026-12-02)."""
    if not compileall.compile_dir(str(package), quiet=2, workers=0):
        raise SystemExit(f"could not byte-compile {package}")


def _from_copy() -> bool:
    module = sys.modules.get("compiler")
    return module is not None and "countermix-tool-" in str(getattr(module, "__file__", ""))


def environment() -> dict[str, str]:
    """The environment of a child run from the copy: the bench package importable after it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def countermix(*args: str) -> list[str]:
    """The command line of `countermix ARGS` (`python -m compiler`; run it with `run_timed`,
    from the copy)."""
    return [sys.executable, "-m", "compiler", *args]


def run_timed(command: list[str], tool: Path, expect: str = "") -> float:
    """Seconds a child process takes, run with the copy as its working folder (so `-m`
    imports from it); exits with its output when it fails or `expect` is not in its stdout."""
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=tool, env=environment(), capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or expect not in done.stdout:
        raise SystemExit(f"{' '.join(command[:5])} failed:\n{done.stdout}\n{done.stderr}")
    return elapsed


def parse_sizes(sizes: str, quick: bool, quick_sizes: str = "500") -> list[int]:
    """The --sizes list (comma-separated counters), or the --quick one."""
    return [int(part) for part in (quick_sizes if quick else sizes).split(",") if part.strip()]
