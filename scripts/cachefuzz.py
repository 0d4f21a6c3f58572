"""Damage each cache file of a built game, rebuild, and compare with a cold build.

The promise checked: a damaged cache never gives wrong output or a traceback. Many cache
formats (render cache packs, indexes and journals, kept records, stamps, set-up saves ...)
change from stop to stop; this sweep checks all of them at once, whatever they are:

1. a game is generated (bench.bench_warm.make_game, seeded) and built cold into a scratch
   folder, then rebuilt warm with another unit changed, and back (so every cache file a warm
   build writes exists: journals, kept entries of what changed): that output folder, set
   aside, is the clean warm copy;
2. for every file under the output's cache folders (any path part starting with "." such as
   `.cache/...`) and every damage kind (`cut`: cut in half, `flip`: a few bytes in the middle
   inverted, `empty`: emptied), the clean warm copy is restored (at the path it was built at,
   its outputs as they were: see restore), that one file damaged, the game's sources set to
   one of a few variants (unchanged, or one unit changed with bench.bench_warm.change_unit)
   and the game rebuilt as a whole process (`python -m compiler build`);
3. every output file (outside the cache folders) must equal, byte for byte, the output of a
   cold build of the same sources (one cold build per variant, made once), the build must exit
   0 and its stderr must hold no "Traceback".

Everything is deterministic: the game's seed, the variant of each case and the flipped bytes'
positions are fixed by the file's rank, the kind and --seed.

    python -m scripts.cachefuzz [--size 500] [--kinds cut,flip,empty] [--limit K] [--twice]
                                [--keep DIR]

It prints one line per failure, then the summary (files x kinds, rebuilds, failures with
the file and kind, run time), and exits 1 when anything failed. tests/test_cache_damage_sweep.py
runs a small sweep of it for CI.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.bench_warm import Game, change_unit, make_game
from compiler.backends.files import TRASH_SUFFIX

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("cut", "flip", "empty")
VARIANTS = 3
"""Variant 0 is the game as built; variants 1 and 2 each change one (different) unit."""


def damage(path: Path, kind: str, rng: random.Random) -> bool:
    """Damage the file at `path` in place the way `kind` says; False when that kind leaves
    this file as it was (an empty file cut, flipped or emptied)."""
    data = path.read_bytes()
    if not data:
        return False
    if kind == "cut":
        damaged = data[: len(data) // 2]
    elif kind == "empty":
        damaged = b""
    elif kind == "flip":
        middle = bytearray(data)
        centre = len(data) // 2
        for _ in range(min(4, len(data))):
            spot = min(len(data) - 1, max(0, centre + rng.randint(-8, 8)))
            middle[spot] ^= 0xFF
        damaged = bytes(middle)
    else:
        raise ValueError(f"unknown damage kind {kind!r}")
    if damaged == data:  # two flips of one byte undid each other
        return False
    path.write_bytes(damaged)
    return True


def is_cache(relative: Path) -> bool:
    """A cache file: any part of its path inside the output folder starts with a dot."""
    return any(part.startswith(".") for part in relative.parts)


def cache_files(out: Path) -> list[Path]:
    """The cache files of an output folder, relative to it, in a fixed order."""
    return sorted(
        path.relative_to(out)
        for path in out.rglob("*")
        if path.is_file() and is_cache(path.relative_to(out))
    )


def is_trash(relative: Path) -> bool:
    """Outputs a build replaced and set aside for the next build to remove (not a cache)."""
    return any(part.endswith(TRASH_SUFFIX) for part in relative.parts)


def restore(clean: Path, work: Path) -> None:
    """Make `work` the clean warm copy again, as the build left it: at the path it was built
    at (a build stamp names its output folder), its output files hard links to the clean
    copy's (a stamp records their inodes; a build replaces outputs, never writes into them:
    checked at the end of the sweep), its cache files copies (with their times), which a
    build may write into."""
    shutil.rmtree(work, ignore_errors=True)
    for path in sorted(clean.rglob("*")):
        relative = path.relative_to(clean)
        target = work / relative
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if is_cache(relative):
            shutil.copy2(path, target)
        else:
            os.link(path, target)


def output_digests(out: Path) -> dict[str, str]:
    """Digest of every output file (the cache folders left out), by its path in `out`."""
    digests: dict[str, str] = {}
    for path in sorted(out.rglob("*")):
        relative = path.relative_to(out)
        if path.is_file() and not is_cache(relative):
            digests[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


@dataclass
class Build:
    """One whole-process build's outcome."""

    code: int
    stdout: str
    stderr: str

    @property
    def problem(self) -> str:
        """Why the build itself failed (exit code, traceback), or ""."""
        if "Traceback" in self.stderr:
            return "traceback: " + self.stderr.strip().splitlines()[-1]
        if self.code != 0:
            tail = (self.stderr.strip() or self.stdout.strip()).splitlines()[-1:]
            return f"exit {self.code}: " + "".join(tail)
        return ""


def build(python: str, tool: Path, game: Game, out: Path) -> Build:
    """`python -m compiler build <game> --out <out>` with the tool at `tool`, as a whole process."""
    command = [python, "-m", "compiler", "build", str(game.folder), "--out", str(out)]
    done = subprocess.run(command, cwd=tool, capture_output=True, text=True, check=False)
    return Build(done.returncode, done.stdout, done.stderr)


def compare(reference: dict[str, str], out: Path) -> str:
    """How the output at `out` differs from the reference digests, or ""."""
    got = output_digests(out)
    missing = sorted(set(reference) - set(got))
    extra = sorted(set(got) - set(reference))
    differ = sorted(name for name in set(reference) & set(got) if reference[name] != got[name])
    parts = []
    for label, names in (("missing", missing), ("extra", extra), ("differ", differ)):
        if names:
            shown = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
            parts.append(f"{len(names)} {label}: {shown}")
    return "; ".join(parts)


@dataclass
class Sweep:
    """A sweep's settings and scratch folders, and its outcome so far."""

    python: str
    tool: Path
    scratch: Path
    size: int
    kinds: Sequence[str]
    seed: int = 0
    limit: int = 0
    per_file: int = 0
    """When > 0, only this many kinds per file, chosen by the file's rank (a small sweep)."""
    variants: int = VARIANTS
    """How many source variants the cases spread over (each costs one cold build)."""
    twice: str = ""
    """"all": rebuild each damaged copy a second time from the next variant's sources (damage
    that the first rebuild left in place must not spoil a later one); "unchanged": only those
    first rebuilt from unchanged sources (a build that may have read no cache at all)."""
    keep: Path | None = None
    log: Callable[[str], None] = field(default=lambda line: print(line, flush=True))  # noqa: T201
    files: list[Path] = field(default_factory=list)
    rebuilds: int = 0
    skipped: int = 0
    failures: list[tuple[str, str, int, str]] = field(default_factory=list)
    """(cache file, kind, variant, what went wrong)."""
    _texts: list[str] = field(default_factory=list)
    _references: dict[int, dict[str, str]] = field(default_factory=dict)

    def prepare(self) -> Game:
        """Generate the game, build it cold, then warm once: the clean warm copy."""
        game = make_game(self.scratch, self.size)
        units = game.folder / "units.yaml"
        self._texts = [units.read_text(encoding="utf-8")]
        for variant in range(1, self.variants + 1):
            change_unit(game, variant)
            self._texts.append(units.read_text(encoding="utf-8"))
            units.write_text(self._texts[0], encoding="utf-8")
        clean, work = self.scratch / "clean", self.scratch / "work"
        # cold, then warm with one more unit changed, then warm back: every cache file a warm
        # build adds (journals, kept entries of what changed) is there to damage
        for step, variant in enumerate((0, self.variants, 0)):
            self.set_variant(game, variant)
            self._must(build(self.python, self.tool, game, work), "clean build")
            if step == 0:  # the cold build: the reference of the unchanged sources
                self._references[0] = output_digests(work)
        difference = compare(self._references[0], work)
        if difference:  # a failure of its own, with no damage
            raise SystemExit(f"the undamaged warm build differs from a cold one: {difference}")
        work.rename(clean)
        self.files = [path for path in cache_files(clean) if not is_trash(path)]
        if self.limit:
            self.files = self.files[: self.limit]
        return game

    def _must(self, done: Build, what: str) -> None:
        if done.problem:
            raise SystemExit(f"{what} failed: {done.problem}\n{done.stdout}\n{done.stderr}")

    def set_variant(self, game: Game, variant: int) -> None:
        (game.folder / "units.yaml").write_text(self._texts[variant], encoding="utf-8")

    def reference(self, game: Game, variant: int) -> dict[str, str]:
        """Digests of a cold build of the variant's sources (built once per variant)."""
        if variant not in self._references:
            self.set_variant(game, variant)
            cold = self.scratch / f"cold-{variant}"
            shutil.rmtree(cold, ignore_errors=True)
            self._must(build(self.python, self.tool, game, cold), f"cold build {variant}")
            self._references[variant] = output_digests(cold)
            shutil.rmtree(cold)
        return self._references[variant]

    def cases(self) -> list[tuple[int, Path, str]]:
        """(rank, cache file, kind) of every case, in order."""
        chosen: list[tuple[int, Path, str]] = []
        for rank, relative in enumerate(self.files):
            kinds = list(self.kinds)
            if self.per_file:
                start = rank % len(kinds)
                kinds = [kinds[(start + i) % len(kinds)] for i in range(self.per_file)]
            chosen.extend((rank, relative, kind) for kind in kinds)
        return chosen

    def run(self) -> None:
        game = self.prepare()
        clean, work = self.scratch / "clean", self.scratch / "work"
        for rank, relative, kind in self.cases():
            variant = (rank + KINDS.index(kind)) % self.variants
            restore(clean, work)
            rng = random.Random(f"{self.seed}:{relative.as_posix()}:{kind}")
            if not damage(work / relative, kind, rng):
                self.skipped += 1
                continue
            again = self.twice == "all" or (self.twice == "unchanged" and variant == 0)
            steps = [variant, (variant + 1) % self.variants] if again else [variant]
            for step, source in enumerate(steps):
                problem = self.rebuild(game, source, work)
                if problem:
                    second = " (second rebuild)" if step else ""
                    self._fail(relative, kind, source, problem + second, work)
                    break
        shutil.rmtree(work, ignore_errors=True)
        if output_digests(clean) != self._references[0]:
            raise SystemExit("the clean copy's outputs changed: a build wrote to a linked file")

    def rebuild(self, game: Game, variant: int, work: Path) -> str:
        """Rebuild `work` from the variant's sources: what went wrong, or ""."""
        reference = self.reference(game, variant)
        self.set_variant(game, variant)
        done = build(self.python, self.tool, game, work)
        self.rebuilds += 1
        return done.problem or compare(reference, work)

    def _fail(self, relative: Path, kind: str, variant: int, problem: str, work: Path) -> None:
        self.failures.append((relative.as_posix(), kind, variant, problem))
        self.log(f"FAIL {relative.as_posix()} {kind} (variant {variant}): {problem}")
        if self.keep is not None:
            kept = self.keep / f"{len(self.failures):03d}-{relative.name}-{kind}"
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(work, kept, symlinks=True)

    def summary(self, seconds: float) -> str:
        lines = [
            f"cache damage sweep: size {self.size}, {len(self.files)} cache files x "
            f"{len(self.kinds)} kinds ({', '.join(self.kinds)})"
            + (f", {self.per_file} kind(s) per file" if self.per_file else "")
            + f": {self.rebuilds} rebuilds, {self.skipped} cases left as they were (empty "
            f"files), {len(self.failures)} failures, {seconds:.1f} s",
        ]
        lines.extend(
            f"  {name} [{kind}, variant {variant}]: {problem}"
            for name, kind, variant, problem in self.failures
        )
        return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=500, help="counters of the generated game")
    parser.add_argument("--kinds", default=",".join(KINDS), help="damage kinds, comma-separated")
    parser.add_argument("--limit", type=int, default=0, help="only the first K cache files")
    parser.add_argument("--seed", type=int, default=0, help="seed of the flipped bytes")
    parser.add_argument(
        "--twice", action="store_true", help="then rebuild again with another unit changed"
    )
    parser.add_argument("--keep", type=Path, help="keep each failing output folder here")
    parser.add_argument("--python", default=sys.executable, help="the Python that builds")
    args = parser.parse_args(argv)
    kinds = [kind for kind in args.kinds.split(",") if kind]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds {unknown}; known: {', '.join(KINDS)}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cachefuzz-") as scratch:
        sweep = Sweep(args.python, ROOT, Path(scratch), args.size, kinds, args.seed, args.limit)
        sweep.twice, sweep.keep = "all" if args.twice else "", args.keep
        sweep.run()
    sys.stdout.write(sweep.summary(time.perf_counter() - started) + "\n")
    return 1 if sweep.failures else 0


if __name__ == "__main__":
    sys.exit(main())
