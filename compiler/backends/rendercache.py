"""A content-addressed cache of rendered images, and rendering on every core.

A face's cache key is a hash of everything that decides how it looks — the record and what it
refers to (unit type, nationality, layout), the size, the language — plus a fingerprint of the
renderer's own source, so changing the art code invalidates the cache by itself. Cached files
live under build/.cache/; an unchanged counter is never drawn again, and since PNG encoding is
deterministic the output stays byte-identical.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

ART_SOURCES = Path(__file__).parent / "art"
TEMPLATES = Path(__file__).parents[2] / "templates"


@cache
def renderer_fingerprint() -> str:
    """Hash of the renderer's code and the shared layout templates."""
    digest = hashlib.sha256()
    for folder, pattern in ((ART_SOURCES, "*.py"), (TEMPLATES, "*.yaml")):
        for path in sorted(folder.glob(pattern)) if folder.is_dir() else []:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(*parts: object) -> str:
    """A stable key: repr of frozen records (positions excluded) and plain values."""
    digest = hashlib.sha256(renderer_fingerprint().encode())
    digest.update(repr(parts).encode("utf-8"))
    return digest.hexdigest()


class RenderCache:
    """PNG bytes by key, in memory and (when given a folder) on disk."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.memory: dict[str, bytes] = {}
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path | None:
        return self.folder / key[:2] / f"{key}.png" if self.folder is not None else None

    def get(self, key: str) -> bytes | None:
        found = self.memory.get(key)
        path = self._path(key)
        if found is None and path is not None and path.is_file():
            found = path.read_bytes()
        if found is not None:
            self.memory[key] = found
            self.hits += 1
        return found

    def put(self, key: str, data: bytes) -> None:
        self.memory[key] = data
        self.misses += 1
        path = self._path(key)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_bytes(data)
            os.replace(temporary, path)

    def render_all(self, jobs: Sequence[tuple[str, Callable[[], bytes]]]) -> dict[str, bytes]:
        """Bytes for every (key, make) job: from the cache, else made — on every core when
        there are many misses."""
        out: dict[str, bytes] = {}
        todo: dict[str, Callable[[], bytes]] = {}
        for key, make in jobs:
            if key in out or key in todo:
                continue
            found = self.get(key)
            if found is None:
                todo[key] = make
            else:
                out[key] = found
        for key, data in zip(list(todo), parallel_map(list(todo.values())), strict=True):
            self.put(key, data)
            out[key] = data
        return out


_JOBS: list[Callable[[], bytes]] = []


def _run(index: int) -> bytes:
    return _JOBS[index]()


def parallel_map(jobs: Sequence[Callable[[], bytes]], minimum: int = 64) -> list[bytes]:
    """Run zero-argument jobs on every core (forked workers inherit them), in order."""
    cores = os.cpu_count() or 1
    if len(jobs) < minimum or cores < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [job() for job in jobs]
    global _JOBS
    _JOBS = list(jobs)
    try:
        with multiprocessing.get_context("fork").Pool(cores) as pool:
            return pool.map(_run, range(len(jobs)), chunksize=max(1, len(jobs) // (cores * 8)))
    finally:
        _JOBS = []
