"""A build's outputs committed into build/<game>/ file by file (compiler.backends.files): only
what changed is written, the page goes in after its images and stale images go after it, a
commit cut short at any step is finished by the next build, and nothing countermix did not
write is ever touched."""

from __future__ import annotations

import gc
import json
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compiler.backends import files
from compiler.backends.files import JOURNAL, OutputFolder, recover
from compiler.backends.preview import sections
from compiler.cli import main
from compiler.pipeline import is_output_name
from tests.conftest import replace_in

IMAGE = "preview-face-{:016x}.svg"
OUTPUT = re.compile(r"[a-z.]+\.(vmod|pdf|html|js)|preview-face-[0-9a-f]{16}\.svg")


def owned(name: str) -> bool:
    return OUTPUT.fullmatch(name) is not None


class Killed(BaseException):
    """A build stopped dead (kill -9, a power cut): no handler runs, nothing is cleaned up."""


def image(number: int) -> str:
    return IMAGE.format(number)


def page(*numbers: int) -> bytes:
    return "".join(f'<img src="{image(n)}">' for n in numbers).encode()


def write(folder: Path, name: str, data: bytes) -> None:
    (folder / name).write_bytes(data)
    os.chmod(folder / name, files.FILE_MODE)


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def stamp_of(folder: Path) -> dict[str, tuple[int, int, int]]:
    """The folder's files as a build stamp records them."""
    found = {}
    for path in folder.iterdir():
        info = path.lstat()
        found[path.name] = (info.st_size, info.st_mtime_ns, info.st_ino)
    return found


@pytest.fixture
def previous(tmp_path: Path) -> Path:
    """A previous set: a module, a page showing images 1-10, and those images."""
    target = tmp_path / "game"
    target.mkdir()
    write(target, "game.vmod", b"module 1")
    write(target, "index.html", page(*BEFORE))
    for number in BEFORE:
        write(target, image(number), b"image %d" % number)
    return target


BEFORE = range(1, 11)
KEPT = [1, 2, *range(4, 11)]
NEW_SET = {
    "game.vmod": b"module 2",
    "index.html": page(*KEPT, 11),
    **{image(n): b"image %d" % n for n in [*KEPT, 11]},
}
"""The next set: image 3 gone, image 11 new, the other images kept."""


def fill_next(folder: Path) -> None:
    """What a warm build writes: only the new and the changed files."""
    for name in ("game.vmod", "index.html", image(11)):
        write(folder, name, NEW_SET[name])


def commit_next(target: Path) -> dict[str, files.Recorded] | None:
    outputs = OutputFolder.open(target, owned, last=("index.html",))
    vouched = outputs.unchanged(stamp_of(target))
    assert set(vouched) == {"game.vmod", "index.html", *map(image, BEFORE)}
    return outputs.replace(fill_next, set(map(image, KEPT)))


def stage_folders(target: Path) -> list[Path]:
    return [p for p in target.parent.iterdir() if p.name.startswith(f".{target.name}.")]


def test_a_commit_writes_what_changed_and_removes_what_went(previous: Path) -> None:
    kept = {name: (previous / name).stat().st_ino for name in map(image, KEPT)}
    outputs = commit_next(previous)
    assert contents(previous) == NEW_SET
    assert {name: (previous / name).stat().st_ino for name in kept} == kept  # not rewritten
    assert outputs is not None
    assert {name: tuple(v[:3]) for name, v in outputs.items()} == stamp_of(previous)
    assert stage_folders(previous) == []


def steps() -> list[tuple[str, int]]:
    """Each step of the commit of NEW_SET: its 3 renames, its 1 deletion, the journal's end."""
    return [("rename", n) for n in range(3)] + [("delete", 0), ("journal", 0)]


def images_shown_are_there(target: Path) -> bool:
    shown = re.findall(r'src="([^"]+)"', (target / "index.html").read_text())
    return all((target / name).is_file() for name in shown)


@pytest.mark.parametrize(("step", "number"), steps())
def test_a_commit_cut_short_at_any_step_is_finished_by_the_next_build(
    previous: Path, monkeypatch: pytest.MonkeyPatch, step: str, number: int
) -> None:
    calls = {"rename": 0, "delete": 0, "journal": 0}
    real_rename, real_unlink = files._rename, Path.unlink

    def rename(source: Path, target: Path) -> None:
        kill_at("rename")
        real_rename(source, target)

    def unlink(path: Path, missing_ok: bool = False) -> None:
        kill_at("journal" if path.name == JOURNAL else "delete")
        real_unlink(path, missing_ok=missing_ok)

    def kill_at(what: str) -> None:
        if what == step and calls[what] == number:
            raise Killed
        calls[what] += 1

    monkeypatch.setattr(files, "_rename", rename)
    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(Killed):
        commit_next(previous)
    monkeypatch.undo()
    # at every instant the page shows only images that are there
    assert images_shown_are_there(previous)
    (stage,) = stage_folders(previous)
    assert (stage / JOURNAL).is_file()
    recover(previous, owned)
    assert contents(previous) == NEW_SET
    assert stage_folders(previous) == []


def test_the_page_goes_in_after_its_images_and_stale_images_after_the_page(
    previous: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    real_rename, real_unlink = files._rename, Path.unlink

    def rename(source: Path, target: Path) -> None:
        real_rename(source, target)
        seen.append(images_shown_are_there(previous))

    def unlink(path: Path, missing_ok: bool = False) -> None:
        real_unlink(path, missing_ok=missing_ok)
        seen.append(images_shown_are_there(previous))

    monkeypatch.setattr(files, "_rename", rename)
    monkeypatch.setattr(Path, "unlink", unlink)
    commit_next(previous)
    assert len(seen) >= 4 and all(seen)


def test_a_commit_refused_at_its_first_rename_keeps_the_previous_set(
    previous: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = contents(previous)

    def refuse(source: Path, target: Path) -> None:
        raise PermissionError(13, "Permission denied", str(target))

    monkeypatch.setattr(files, "_rename", refuse)
    with pytest.raises(PermissionError):
        commit_next(previous)
    assert contents(previous) == before
    assert stage_folders(previous) == []  # no journal left to roll forward


def test_a_failed_fill_leaves_the_previous_set_and_no_stage(previous: Path) -> None:
    before = contents(previous)

    def fail(folder: Path) -> None:
        fill_next(folder)
        raise ValueError("a back end failed")

    outputs = OutputFolder.open(previous, owned, last=("index.html",))
    outputs.unchanged(stamp_of(previous))
    with pytest.raises(ValueError):
        outputs.replace(fail, set(map(image, KEPT)))
    assert contents(previous) == before
    assert stage_folders(previous) == []


@pytest.fixture
def ctrl_c_at_each_rename(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A Ctrl-C sent at each rename of a commit, to Python's own handler, set for the test: a
    process started with SIGINT ignored (a script's background job, as some CI runners start
    their steps) keeps it ignored, and the Ctrl-C would never arrive (these tests failed so
    in a run started in the background)."""
    real_rename = files._rename

    def rename(source: Path, target: Path) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C: held back until the commit is done
        real_rename(source, target)

    monkeypatch.setattr(files, "_rename", rename)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("ctrl_c_at_each_rename")
def test_ctrl_c_during_a_commit_waits_for_its_end(previous: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        commit_next(previous)
    assert contents(previous) == NEW_SET
    assert stage_folders(previous) == []


def test_only_the_files_as_the_last_build_left_them_are_vouched_for(previous: Path) -> None:
    recorded = stamp_of(previous)
    with (previous / image(1)).open("ab") as edited:  # edited in place: the same inode
        edited.write(b"!")
    os.chmod(previous / image(2), 0o600)  # not the mode a build gives its files
    vouched = OutputFolder.open(previous, owned).unchanged(recorded)
    assert set(vouched) == {"game.vmod", "index.html", *map(image, BEFORE)} - {image(1), image(2)}
    assert OutputFolder.open(previous, owned).unchanged({image(3): [1]}) == {}  # damaged


@pytest.mark.parametrize("odd", [5, "abc", None, [1, 2, 3, 4], b"xyz"])
def test_a_record_of_another_shape_vouches_for_none_of_its_files(
    previous: Path, odd: object
) -> None:
    """An entry of another shape (a damaged stamp) vouches for nothing, and is no error; the
    other entries vouch as before."""
    recorded: dict[str, object] = {**stamp_of(previous), image(3): odd}
    vouched = OutputFolder.open(previous, owned).unchanged(recorded)  # type: ignore[arg-type]
    assert image(3) not in vouched
    if not isinstance(odd, int | None):  # an entry that is no sequence spoils the record
        assert set(vouched) == {"game.vmod", "index.html", *map(image, BEFORE)} - {image(3)}


@pytest.mark.parametrize("as_lists", [False, True])
def test_the_record_given_at_opening_vouches_as_unchanged_does(
    previous: Path, as_lists: bool
) -> None:
    """The record given to `open` vouches for the same files as `unchanged` (a record of
    lists, not the tuples a stamp keeps, too): a file edited in place, one of another mode,
    one replaced, one deleted are not among them."""
    recorded: dict[str, object] = dict(stamp_of(previous))
    if as_lists:
        recorded = {name: list(value) for name, value in stamp_of(previous).items()}
    with (previous / image(1)).open("ab") as edited:
        edited.write(b"!")
    os.chmod(previous / image(2), 0o600)
    (previous / image(3)).unlink()
    write(previous, image(3), b"image 3")  # the same bytes, another file
    (previous / image(4)).unlink()
    outputs = OutputFolder.open(previous, owned, recorded=recorded)  # type: ignore[arg-type]
    lost = {image(n) for n in (1, 2, 3, 4)}
    assert set(outputs.vouched) == {"game.vmod", "index.html", *map(image, BEFORE)} - lost
    assert outputs.unchanged(recorded) == outputs.vouched  # type: ignore[arg-type]
    assert OutputFolder.open(previous, owned).unchanged(recorded) == outputs.vouched  # type: ignore[arg-type]


def test_a_foreign_file_is_refused_whatever_the_record_says(previous: Path) -> None:
    """Only the files still as the record has them are not asked about: a foreign file is
    refused even when the record names it (it is not the file recorded)."""
    recorded = stamp_of(previous)
    write(previous, "notes.txt", b"mine")
    with pytest.raises(FileExistsError):
        OutputFolder.open(previous, owned, recorded=recorded)
    recorded["notes.txt"] = (4, 0, 0)
    with pytest.raises(FileExistsError):
        OutputFolder.open(previous, owned, recorded=recorded)
    assert (previous / "notes.txt").read_bytes() == b"mine"


def test_keeping_a_file_not_vouched_for_is_refused(previous: Path) -> None:
    outputs = OutputFolder.open(previous, owned)
    outputs.unchanged({})
    with pytest.raises(ValueError):
        outputs.replace(fill_next, {image(1)})
    assert contents(previous)["game.vmod"] == b"module 1"


def test_a_set_that_mostly_changed_is_swapped_in_whole(previous: Path) -> None:
    folder = previous.stat().st_ino
    outputs = OutputFolder.open(previous, owned, last=("index.html",))
    outputs.unchanged(stamp_of(previous))
    kept = {image(1): (previous / image(1)).stat().st_ino}

    def fill(stage: Path) -> None:
        write(stage, "index.html", page(1, 12))
        for number in range(12, 30):
            write(stage, image(number), b"new %d" % number)

    assert outputs.replace(fill, set(kept)) is None  # the stamp lists the folder
    assert (previous / image(1)).stat().st_ino == kept[image(1)]  # linked, not written
    assert sorted(contents(previous)) == sorted(["index.html", *map(image, [1, *range(12, 30)])])
    assert previous.stat().st_ino != folder
    assert stage_folders(previous) == []


# ---- what is never touched --------------------------------------------------------------------


def test_a_foreign_file_is_refused_before_anything_is_written(previous: Path) -> None:
    write(previous, "notes.txt", b"mine")
    with pytest.raises(FileExistsError):
        OutputFolder.open(previous, owned)
    assert (previous / "notes.txt").read_bytes() == b"mine"


def test_a_file_that_comes_during_the_build_is_left_alone(previous: Path) -> None:
    outputs = OutputFolder.open(previous, owned, last=("index.html",))
    outputs.unchanged(stamp_of(previous))

    def fill(folder: Path) -> None:
        write(previous, "notes.txt", b"mine")  # the user saves a file meanwhile
        write(previous, image(99), b"image 99")  # or one with an output's name
        fill_next(folder)

    outputs.replace(fill, set(map(image, KEPT)))
    assert contents(previous) == {**NEW_SET, "notes.txt": b"mine", image(99): b"image 99"}


@pytest.mark.parametrize(
    "journal",
    [
        '{"format": "countermix-commit-1", "target": "game", "rename": [], "delete": ["notes.txt"]}',
        '{"format": "countermix-commit-1", "target": "game", "rename": [], "delete": ["../x.vmod"]}',
        '{"format": "countermix-commit-1", "target": "other", "rename": [], "delete": ["game.vmod"]}',
        '{"format": "countermix-commit-1", "target": "game", "rename": [], "delete": [',
        "",
    ],
)
def test_a_journal_that_is_not_a_whole_commit_of_ours_does_nothing(
    previous: Path, journal: str
) -> None:
    write(previous, "notes.txt", b"mine")
    (previous.parent / "x.vmod").write_bytes(b"outside")
    stage = previous.parent / ".game.abcd1234.new"
    stage.mkdir()
    (stage / JOURNAL).write_text(journal)
    write(stage, "game.vmod", b"module 2")
    before = contents(previous)
    recover(previous, owned)
    assert contents(previous) == before
    assert (previous.parent / "x.vmod").read_bytes() == b"outside"
    assert stage_folders(previous) == []


def test_a_journal_whose_stage_lost_a_file_is_finished_without_it(previous: Path) -> None:
    stage = previous.parent / ".game.abcd1234.new"
    stage.mkdir()
    write(stage, image(11), b"image 11")
    inode = (stage / image(11)).stat().st_ino
    journal = {
        "format": files.JOURNAL_FORMAT,
        "target": "game",
        "rename": [["game.vmod", inode + 1], [image(11), inode]],  # the module's file is gone
        "delete": [image(3)],
    }
    (stage / JOURNAL).write_text(json.dumps(journal))
    recover(previous, owned)
    assert (previous / image(11)).read_bytes() == b"image 11"
    assert (previous / "game.vmod").read_bytes() == b"module 1"
    assert not (previous / image(3)).exists()
    assert stage_folders(previous) == []


def test_a_folder_with_more_than_files_is_swapped_whole(previous: Path) -> None:
    (previous / "index.html").unlink()
    (previous / "index.html").mkdir()  # not a file: committed by a swap of the folders
    outputs = OutputFolder.open(previous, owned, last=("index.html",))
    assert outputs.unchanged(stamp_of(previous)) == {}
    assert outputs.replace(fill_next, set()) is None
    assert contents(previous) == {
        name: NEW_SET[name] for name in ("game.vmod", "index.html", image(11))
    }


# ---- whole builds -----------------------------------------------------------------------------


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["build", str(folder), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    return text


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _delete_image(target: Path) -> None:
    next(target.glob("preview-*")).unlink()


def _edit_image(target: Path) -> None:
    with next(target.glob("preview-*")).open("ab") as edited:
        edited.write(b" ")


def _same_image_again(target: Path) -> None:
    """The same bytes written again (another inode, another mtime)."""
    path = next(target.glob("preview-*"))
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)


def _nothing(target: Path) -> None:
    pass


@pytest.mark.parametrize("damage", [_nothing, _delete_image, _edit_image, _same_image_again])
def test_a_warm_build_writes_what_a_cold_build_writes(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: Callable[[Path], None],
) -> None:
    warm = tmp_path / "warm"
    build(mini, warm, capsys)
    damage(warm / "mini")
    replace_in(mini / "units.yaml", "name: Infantry,", "name: Foot,")  # new faces, new images
    assert "mini: wrote" in build(mini, warm, capsys)
    assert "mini: up to date" in build(mini, warm, capsys)
    cold = tmp_path / "cold"
    build(mini, cold, capsys)
    assert snapshot(warm / "mini") == snapshot(cold / "mini")
    assert not [p for p in warm.iterdir() if p.name.startswith(".mini.")]


def _overwrite(path: Path) -> None:
    """A file edited in place, its size kept (its mtime moves on)."""
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    with path.open("r+b") as edited:
        edited.write(data)


@pytest.mark.parametrize("damage", ["delete", "edit", "again"])
def test_an_image_damaged_after_a_warm_build_is_written_again(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    damage: str,
) -> None:
    """The record a warm build's commit leaves (not a listing of the folder) vouches only
    for the files as they were committed: a sprite of units' faces the next build shows
    again, deleted, edited in place (its size kept) or written again, is not kept (in runs
    of one unit: a sprite each)."""
    monkeypatch.setattr(sections, "RUN_UNITS", 1)
    warm = tmp_path / "warm"
    build(mini, warm, capsys)
    first = {p.name for p in (warm / "mini").glob("preview-units-*")}
    replace_in(mini / "units.yaml", "name: Infantry,", "name: Foot,")
    assert "mini: wrote" in build(mini, warm, capsys)
    both = {p.name for p in (warm / "mini").glob("preview-units-*")} & first
    path = warm / "mini" / sorted(both)[0]
    if damage == "delete":
        path.unlink()
    elif damage == "edit":
        _overwrite(path)
    else:
        data = path.read_bytes()
        path.unlink()
        path.write_bytes(data)
    replace_in(mini / "units.yaml", "name: Foot,", "name: Infantry,")
    assert "mini: wrote" in build(mini, warm, capsys)
    cold = tmp_path / "cold"
    build(mini, cold, capsys)
    assert snapshot(warm / "mini") == snapshot(cold / "mini")


def test_a_build_whose_commit_is_refused_keeps_the_previous_set(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    build(mini, out, capsys)
    before = snapshot(out / "mini")
    replace_in(mini / "units.yaml", "name: Infantry,", "name: Foot,")

    def refuse(source: Path, target: Path) -> None:
        raise PermissionError(13, "Permission denied", str(target))

    monkeypatch.setattr(files, "_rename", refuse)
    code = main(["build", str(mini), "--out", str(out), "--quiet"])
    assert code == 2 and "Permission denied" in capsys.readouterr().err
    assert snapshot(out / "mini") == before
    assert not [p for p in out.iterdir() if p.name.startswith(".mini.")]


def test_a_build_killed_during_its_commit_is_finished_by_the_next(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    build(mini, out, capsys)
    replace_in(mini / "units.yaml", "name: Infantry,", "name: Foot,")
    renames = 0
    real_rename = files._rename

    def rename(source: Path, target: Path) -> None:
        nonlocal renames
        renames += 1
        if renames == 2:
            raise Killed
        real_rename(source, target)

    monkeypatch.setattr(files, "_rename", rename)
    with pytest.raises(Killed):
        main(["build", str(mini), "--out", str(out), "--quiet"])
    monkeypatch.undo()
    capsys.readouterr()
    assert images_shown_are_there(out / "mini")
    assert all(is_output_name("mini", p.name) for p in (out / "mini").iterdir())
    assert "mini: wrote" in build(mini, out, capsys)  # no stamp: built, after the roll forward
    cold = tmp_path / "cold"
    build(mini, cold, capsys)
    assert snapshot(out / "mini") == snapshot(cold / "mini")
    assert not [p for p in out.iterdir() if p.name.startswith(".mini.")]


def test_a_look_taken_before_is_used_when_the_folder_holds_the_same_files(
    previous: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OutputFolder.open takes the stats of a FolderLook (taken while the build did other
    work) when the folder holds the same files under the same names: no stat again."""
    look = files.FolderLook(previous)
    assert look.files() is not None
    stats: list[int] = []
    real = files._stats

    def counted(fd: int) -> dict[str, files.FileStat]:
        stats.append(fd)
        return real(fd)

    monkeypatch.setattr(files, "_stats", counted)
    recorded = stamp_of(previous)
    outputs = OutputFolder.open(previous, owned, recorded=recorded, look=look)
    assert stats == []
    assert set(outputs.vouched) == {"game.vmod", "index.html", *map(image, BEFORE)}


@pytest.mark.parametrize("change", ["added", "deleted", "replaced", "renamed"])
def test_a_look_taken_before_the_folder_changed_is_not_used(previous: Path, change: str) -> None:
    """A file added, deleted, written again beside and renamed over, or renamed after the look:
    the opening looks again, and vouches for what it finds (as without a look)."""
    recorded = stamp_of(previous)
    look = files.FolderLook(previous)
    look.files()
    if change == "added":
        write(previous, "notes.txt", b"mine")
    elif change == "deleted":
        (previous / image(3)).unlink()
    elif change == "replaced":
        write(previous, "new.part", b"image 3")
        os.replace(previous / "new.part", previous / image(3))
    else:
        os.rename(previous / image(3), previous / image(12))
    if change == "added":
        with pytest.raises(FileExistsError):
            OutputFolder.open(previous, owned, recorded=recorded, look=look)
        return
    outputs = OutputFolder.open(previous, owned, recorded=recorded, look=look)
    assert set(outputs.before) == {p.name for p in previous.iterdir()}
    assert image(3) not in outputs.vouched
    assert outputs.vouched == OutputFolder.open(previous, owned, recorded=recorded).vouched


def test_a_look_of_no_folder_or_a_file_is_not_used(tmp_path: Path) -> None:
    """A look that found no folder (a first build) or a file in its place gives nothing: the
    opening makes or refuses as without it."""
    look = files.FolderLook(tmp_path / "none")
    assert look.files() is None
    assert OutputFolder.open(tmp_path / "none", owned, look=look).before == {}
    (tmp_path / "file").write_bytes(b"x")
    look = files.FolderLook(tmp_path / "file")
    assert look.files() is None
    with pytest.raises(NotADirectoryError):
        OutputFolder.open(tmp_path / "file", owned, look=look)


def test_the_look_is_taken_by_its_own_process_and_says_what_a_stat_here_says(
    previous: Path,
) -> None:
    """The look runs in a process of its own (not a thread, which got the interpreter's lock
    only when the build let it go), and what it answers is what an lstat here gives, field
    for field, for files, a folder and a link (not followed) alike."""
    (previous / "folder").mkdir()
    os.symlink("game.vmod", previous / "link")
    look = files.FolderLook(previous)
    assert look._child is not None and look._thread is None
    found = look.files()
    assert found is not None
    here = {p.name: p.lstat() for p in previous.iterdir()}
    assert found == {
        name: (info.st_mode, info.st_ino, info.st_size, info.st_mtime_ns)
        for name, info in here.items()
    }
    assert look.files() is found  # asked again: the same answer, no process waited for twice


DUMP = "import marshal, sys; sys.stdout.buffer.write(marshal.dumps"


@pytest.mark.parametrize(
    "answer",
    [
        "import sys; sys.exit(3)",
        "import sys; sys.stdout.buffer.write(b'not marshal')",
        f"{DUMP}((['a'], [1], [2], [3]))",
        f"{DUMP}((['a'], [1], [2], [3], []))",
        f"{DUMP}(([1], [1], [2], [3], [4]))",
        f"{DUMP}((['a'], ['1'], [2], [3], [4]))",
        f"{DUMP}((['a'], [1], [2], [3], (4,)))",
    ],
    ids=[
        "fails",
        "garbage",
        "a field short",
        "lengths differ",
        "a name not text",
        "a mode not a number",
        "not lists",
    ],
)
def test_a_look_that_fails_or_answers_otherwise_is_looked_again_by_the_opening(
    previous: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    """A look's process that fails or answers something else gives nothing: the opening
    stats the folder itself and vouches for what it finds, as without a look."""
    monkeypatch.setattr(files, "_LOOK_SCRIPT", answer)
    look = files.FolderLook(previous)
    assert look.files() is None
    recorded = stamp_of(previous)
    outputs = OutputFolder.open(previous, owned, recorded=recorded, look=look)
    assert outputs.vouched == OutputFolder.open(previous, owned, recorded=recorded).vouched
    assert set(outputs.vouched) == {"game.vmod", "index.html", *map(image, BEFORE)}


def test_without_a_process_to_start_the_look_is_taken_by_a_thread(
    previous: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no Python can be started (no sys.executable, as in an embedded interpreter, one
    that is gone, or a frozen program's, which is no Python), a thread takes the look: the
    same files."""
    python_ = sys.executable
    for python, frozen in [("", False), (str(previous / "no-python"), False), (python_, True)]:
        monkeypatch.setattr(sys, "executable", python)
        monkeypatch.setattr(sys, "frozen", frozen, raising=False)
        look = files.FolderLook(previous)
        assert look._child is None and look._thread is not None
        found = look.files()
        assert found is not None and set(found) == {p.name for p in previous.iterdir()}


def test_a_look_never_asked_for_leaves_no_process_behind(previous: Path) -> None:
    """A build that stops before it opens its folder (its data had errors) drops its look:
    the look's process is waited for then, not left a zombie for the life of a watch."""
    for number in range(200, 3000):  # more than a pipe holds: the process waits to write
        write(previous, image(number), b"")
    look = files.FolderLook(previous)
    assert look._child is not None
    pid = look._child.pid
    del look
    gc.collect()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def trash_folders(target: Path) -> list[Path]:
    return [p for p in target.parent.iterdir() if p.name.startswith(f".{target.name}~")]


def test_the_files_a_commit_replaced_are_removed_by_the_next_look(previous: Path) -> None:
    """A build that looked at its folder while it loaded sets the files its commit replaced
    aside (one rename), whole: the new set is in place, the module and page it replaced are
    in the folder set aside; the next build's look removes it (and recover, a
    folder left when a process ended first)."""
    look = files.FolderLook(previous)
    outputs = OutputFolder.open(previous, owned, ("index.html",), stamp_of(previous), look)
    outputs.replace(fill_next, set(map(image, KEPT)))
    assert contents(previous) == NEW_SET
    assert stage_folders(previous) == []
    (aside,) = trash_folders(previous)
    assert contents(aside) == {"game.vmod": b"module 1", "index.html": page(*BEFORE)}
    look = files.FolderLook(previous)
    look._removal.join()
    assert trash_folders(previous) == []
    assert look.files() is not None and set(look.files() or ()) == set(NEW_SET)
    left = previous.parent / f".{previous.name}~abcd1234.gone"
    left.mkdir()
    (left / "game.vmod").write_bytes(b"module 0")
    (previous.parent / ".other~abcd1234.gone").mkdir()  # another game's: not this one's
    recover(previous, owned)
    assert [p.name for p in trash_folders(previous)] == []
    assert (previous.parent / ".other~abcd1234.gone").is_dir()
    assert contents(previous) == NEW_SET


def test_a_commit_without_a_look_removes_the_replaced_files_at_once(previous: Path) -> None:
    commit_next(previous)
    assert stage_folders(previous) == [] and trash_folders(previous) == []


@pytest.mark.usefixtures("ctrl_c_at_each_rename")
def test_ctrl_c_during_a_commit_waits_while_the_builds_threads_run(
    previous: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build's own threads (the folder's look, the removal of what the last build
    replaced) block Ctrl-C: the kernel would give it to one of them, and Python would then
    raise it in the main thread inside the commit (CI saw the commit's Ctrl-C lost so)."""
    busy, done = threading.Event(), threading.Event()

    def slow_removal(target: Path, skip: object = ()) -> None:
        busy.set()
        done.wait(10)

    monkeypatch.setattr(files, "remove_trash", slow_removal)
    files.FolderLook(previous)  # its removal thread runs through the commit below
    assert busy.wait(10)
    try:
        with pytest.raises(KeyboardInterrupt):
            commit_next(previous)
    finally:
        done.set()
    assert contents(previous) == NEW_SET
    assert stage_folders(previous) == []


@pytest.mark.usefixtures("ctrl_c_at_each_rename")
def test_ctrl_c_during_a_commit_waits_while_a_foreign_thread_runs(previous: Path) -> None:
    """A thread that is not the build's (a library's, a test runner's) does not block Ctrl-C:
    the kernel may give it the signal, and the commit still ends before it is raised."""
    busy, done = threading.Event(), threading.Event()

    def foreign() -> None:
        busy.set()
        done.wait(10)

    thread = threading.Thread(target=foreign, daemon=True)
    thread.start()
    assert busy.wait(10)
    try:
        with pytest.raises(KeyboardInterrupt):
            commit_next(previous)
    finally:
        done.set()
        thread.join(10)
    assert contents(previous) == NEW_SET
    assert stage_folders(previous) == []
