"""Golden PNG snapshots compared with a tolerance (faces and charts).

On a mismatch `<name>.actual.png` and `<name>.diff.png` (differences amplified) are written next
to the golden. Regenerate the goldens with UPDATE_GOLDENS=1.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

MAX_MEAN_DIFF = 2.0
MAX_BAD_SHARE = 0.005
BAD_DIFF = 40


def compare(actual: Image.Image, golden: Image.Image) -> tuple[float, float]:
    """Mean absolute difference per channel and the share of pixels differing by > BAD_DIFF."""
    diff = ImageChops.difference(actual.convert("RGBA"), golden.convert("RGBA"))
    bands = diff.split()
    pixels = actual.width * actual.height
    mean = sum(sum(i * n for i, n in enumerate(band.histogram())) for band in bands) / (
        pixels * len(bands)
    )
    worst = bands[0]
    for band in bands[1:]:
        worst = ImageChops.lighter(worst, band)
    bad = sum(worst.histogram()[BAD_DIFF + 1 :])
    return mean, bad / pixels


def write_failure(folder: Path, name: str, actual: Image.Image, golden: Image.Image) -> Path:
    """The actual image and an amplified diff next to the golden."""
    actual.save(folder / f"{name}.actual.png")
    if actual.size == golden.size:
        diff = ImageChops.difference(actual.convert("RGB"), golden.convert("RGB"))
        diff.point(lambda value: min(255, value * 4)).save(folder / f"{name}.diff.png")
    return folder / f"{name}.diff.png"


def check_golden(folder: Path, name: str, actual: Image.Image) -> None:
    """Fail unless `actual` matches `<folder>/<name>.png` within the tolerance."""
    path = folder / f"{name}.png"
    if os.environ.get("UPDATE_GOLDENS") == "1" or not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        actual.save(path)
        if os.environ.get("UPDATE_GOLDENS") != "1":
            pytest.fail(f"golden {path.name} was missing and has been written; check it in")
        return
    golden = Image.open(path)
    golden.load()
    assert actual.size == golden.size, (name, actual.size, golden.size)
    mean, bad = compare(actual, golden)
    if mean >= MAX_MEAN_DIFF or bad > MAX_BAD_SHARE:
        diff = write_failure(folder, name, actual, golden)
        pytest.fail(f"{name}: mean diff {mean:.2f}, {bad:.2%} pixels off; see {diff}")
    for stale in (folder / f"{name}.actual.png", folder / f"{name}.diff.png"):
        stale.unlink(missing_ok=True)
