"""Interrupt builds at random moments and check that a game's outputs are always one whole set.

Each round switches a small game (from `countermix new`) between two versions of its data,
starts `countermix build` as its own process, and stops it after a random delay with SIGINT
(Ctrl-C) or SIGKILL. A Ctrl-C may come at any moment: the build starts with Ctrl-C ignored, as
the interpreter's own start-up (site, the editable-install finder) is not countermix's to
handle (Python reports a Ctrl-C there itself), and countermix's first line takes Ctrl-C over;
a start-up time measured once in advance left that window to chance on a machine whose load
changed during the run. Afterwards
`build/<game>/`, once the next build's first step has finished a commit a kill cut short
(compiler.backends.files.recover), must hold exactly the set built before the round or exactly
the set of the new version (compared byte for byte with reference builds), and before that its
page must show only images that are there; a Ctrl-C must end with exit code 130, one line on
stderr and no traceback.

Run: python -m scripts.killtest [--rounds 300] [--seed 1]   (exit 1 when a round failed)
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from compiler.newgame import write_game

GAME = "kill-test"
UNIT_LINE = "name: {en: 1st Infantry, ja: 第1歩兵}"
CHANGED_LINE = "name: {en: 1st Infantry (changed), ja: 第1歩兵 (改)}"
Snapshot = dict[str, bytes]


def snapshot(folder: Path) -> Snapshot:
    """Every file below a folder, by relative path."""
    if not folder.is_dir():
        return {}
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def settled(folder: Path) -> tuple[Snapshot, str | None]:
    """The folder as the next build finds it once `recover` (its first step) has finished a
    commit a kill cut short (compiler.backends.files), and what was wrong before that: the
    page showing an image that is not there."""
    from compiler.backends.files import recover
    from compiler.pipeline import is_output_name

    problem = None
    page = folder / "index.html"
    if page.is_file():
        shown = re.findall(r'src="(preview-[^"]+)"', page.read_text(encoding="utf-8"))
        missing = [name for name in shown if not (folder / name).is_file()]
        if missing:
            problem = f"the page shows images that are not there: {missing[:3]}"
    if folder.parent.is_dir():
        recover(folder, partial(is_output_name, GAME))
    return snapshot(folder), problem


def command(out: Path) -> list[str]:
    # --quiet: no progress lines on stderr, which must hold the one line of a Ctrl-C
    return [sys.executable, "-m", "compiler", "build", GAME, "--out", str(out), "--quiet"]


def set_version(folder: Path, changed: bool) -> None:
    units = folder / "units.yaml"
    text = units.read_text(encoding="utf-8")
    old, new = (UNIT_LINE, CHANGED_LINE) if changed else (CHANGED_LINE, UNIT_LINE)
    assert old in text or new in text, f"{units} has neither version of the unit's name"
    units.write_text(text.replace(old, new), encoding="utf-8")


@dataclass
class Bench:
    """A work folder with the game, the reference sets of both versions and the time one
    build takes."""

    work: Path
    references: tuple[Snapshot, Snapshot]
    seconds: float

    @classmethod
    def make(cls, work: Path) -> Bench:
        write_game(work / GAME, "hex")
        references = []
        seconds = 0.0
        for changed in (False, True):
            set_version(work / GAME, changed)
            out = work / f"reference-{int(changed)}"
            start = time.perf_counter()
            subprocess.run(command(out), cwd=work, check=True, capture_output=True)
            seconds = max(seconds, time.perf_counter() - start)
            references.append(snapshot(out / GAME))
        assert references[0] != references[1], "the two versions must build differently"
        return cls(work, (references[0], references[1]), seconds)


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def one_round(bench: Bench, rng: random.Random, changed: bool) -> str | None:
    """Build the `changed` version into work/build, interrupted at a random moment; a message
    when the outputs afterwards are not one whole set."""
    out = bench.work / "build"
    before = snapshot(out / GAME)
    set_version(bench.work / GAME, changed)
    how = rng.choice((signal.SIGINT, signal.SIGKILL))
    delay = rng.uniform(0.0, bench.seconds * 1.2)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        command(out),
        cwd=bench.work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=_ignore_ctrl_c,  # until countermix's first line (compiler/__main__.py)
    )
    time.sleep(delay)
    process.send_signal(how)
    _, err = process.communicate(timeout=120)
    after, problem = settled(out / GAME)
    if problem is not None:
        return f"{how.name} after {delay:.3f} s: {problem}"
    if after not in (before, bench.references[int(changed)]):
        return f"{how.name} after {delay:.3f} s: build/{GAME}/ is neither the old nor the new set"
    stderr = err.decode("utf-8", "replace")
    if "Traceback" in stderr:
        return f"{how.name} after {delay:.3f} s: a traceback\n{stderr}"
    if how is signal.SIGINT and process.returncode not in (0, 130):
        return f"SIGINT after {delay:.3f} s: exit code {process.returncode}\n{stderr}"
    if how is signal.SIGINT and process.returncode == 130 and len(stderr.splitlines()) != 1:
        return f"SIGINT after {delay:.3f} s: stderr is not one line\n{stderr}"
    return None


def run(rounds: int, seed: int, work: Path) -> list[str]:
    """The failures of `rounds` interrupted builds."""
    bench = Bench.make(work)
    rng = random.Random(seed)
    failures = []
    for number in range(rounds):
        failure = one_round(bench, rng, changed=number % 2 == 0)
        if failure:
            failures.append(f"round {number}: {failure}")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        failures = run(args.rounds, args.seed, Path(tmp))
        took = time.perf_counter() - start
    for failure in failures:
        sys.stdout.write(failure + "\n")
    sys.stdout.write(f"{args.rounds} rounds in {took:.0f} s: {len(failures)} failed\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
