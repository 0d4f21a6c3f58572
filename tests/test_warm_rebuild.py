"""Warm rebuilds (every cache of out/.cache/ in use) write what a cold build writes: a change
and its revert give back the cold build's bytes, and a changed unit changes its face and what
shows it, nothing else."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from compiler.cli import main
from tests.conftest import replace_in

OLD = "front: {strength: 2, movement: 3}, back: {strength: 1, movement: 3}"
NEW = "front: {strength: 2, movement: 4}, back: {strength: 1, movement: 3}"


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    code = main(["build", str(folder), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "wrote" in text, text
    built = next(p for p in out.iterdir() if not p.name.startswith("."))
    return {p.name: p.read_bytes() for p in sorted(built.iterdir())}


def entries(module: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(module)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_change_and_revert_give_the_cold_bytes(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cold = build(mini, tmp_path / "cold", capsys)
    warm_out = tmp_path / "warm"
    assert build(mini, warm_out, capsys) == cold  # the caches filled by a first build
    replace_in(mini / "units.yaml", OLD, NEW)
    changed = build(mini, warm_out, capsys)
    assert changed != cold
    assert build(mini, tmp_path / "cold-changed", capsys) == changed  # warm = cold, changed
    replace_in(mini / "units.yaml", NEW, OLD)
    assert build(mini, warm_out, capsys) == cold
    shutil.rmtree(warm_out / ".cache")
    replace_in(mini / "units.yaml", OLD, NEW)
    assert build(mini, warm_out, capsys) == changed  # no cache at all


def test_a_changed_unit_changes_its_face_and_dependents(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    before = build(mini, out, capsys)
    replace_in(mini / "units.yaml", OLD, NEW)
    after = build(mini, out, capsys)
    module = "mini-aaa.vmod"  # the changed unit is of title AAA; BBB's module is untouched
    assert before["mini-bbb.vmod"] == after["mini-bbb.vmod"]
    old, new = entries(before[module]), entries(after[module])
    gone = sorted(set(old) - set(new))
    added = sorted(set(new) - set(old))
    faces_gone = [name for name in gone if name.startswith("images/unit-")]
    faces_added = [name for name in added if name.startswith("images/unit-")]
    assert len(faces_gone) == len(faces_added) == 1, (gone, added)  # the front, nothing else
    faces = {*faces_gone, *faces_added}
    others = [n for n in gone + added if n.startswith("images/") and n not in faces]
    assert all(n.startswith("images/chart-") for n in others), others  # a chart shows the unit
    changed = {name for name in set(old) & set(new) if old[name] != new[name]}
    assert changed <= {"buildFile.xml", *(n for n in old if n.endswith(".vsav"))}, changed
    assert "buildFile.xml" in changed  # the tray's piece shows the new face
    assert before["mini-aaa-counters.pdf"] != after["mini-aaa-counters.pdf"]
    assert before["mini-bbb-counters.pdf"] == after["mini-bbb-counters.pdf"]
