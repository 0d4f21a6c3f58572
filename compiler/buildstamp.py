"""Builds that do nothing when nothing changed, as make and ninja do.

Every build of a game folder leaves a stamp, `<out>/.cache/.stamps/<key>.json`, written last,
under the game's lock, once its outputs are committed (the previous stamp goes first, so a
build cut short leaves none). It records:

- every input the build reads, each with its size, mtime and a digest of its content: the data
  files (and the listing of each folder they were found in, so a new file is seen), the game's
  own player-aids template (or that it has none), the board and piece art the data names, the
  shipped templates and layouts, the fonts, the tool's own code and its libraries;
- the settings: the command-line options, the tool's and Python's version, the environment
  variables the build reads, and the folders as they were named;
- the findings the build printed, as printed, and the module it reported;
- each output file with its size, mtime and inode (a file written again, or edited, has
  another mtime or inode: its content need not be hashed, which for a large game's thousands
  of outputs was most of writing the stamp), as the build's commit tells them (the files it
  renamed in and those it kept: listing the folder again was 13,000 stats). They are kept
  beside the stamp, marshalled, in `<out>/.cache/.stamp-outputs/<key>.marshal` (JSON for
  13,000 of them was 8 ms to write and 8 ms to read again on every build), and the stamp
  holds the digest of that record: a record of another build, or damaged, vouches for nothing.

The next build with the same settings takes the stamp when every input is the same (its content
is hashed again only when its size or mtime changed, or when it was written less than
RACY_SECONDS before it was recorded, when an mtime cannot tell two versions apart) and the
output folder holds exactly the files last written, unchanged; it then prints the same lines
without loading anything. Any doubt — no stamp, an unreadable, corrupt or foreign one, an input
that is not a regular file, a changed or missing output — means a full build.

Checking a stamp imports nothing but the standard library.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import stat
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler.regularfile import open_regular

if TYPE_CHECKING:
    from compiler.diagnostics import Finding
    from compiler.model.gamedata import GameData

FORMAT = 2
RACY_SECONDS = 3
STAMPS = ".stamps"
"""The stamps' folder in <out>/.cache/ (a game id never starts with a dot)."""
OUTPUTS = ".stamp-outputs"
"""The folder in <out>/.cache/ of each stamp's record of the outputs."""
LIBRARIES = ("yaml", "lxml", "PIL", "jinja2")
ENVIRONMENT = ("COUNTERMIX_FONTS", "SOURCE_DATE_EPOCH")
"""The environment variables a build reads."""

Entry = list[Any] | None
"""An input: [size, mtime_ns or -1 when it must be hashed, sha256], or None when absent."""


class Doubt(Exception):
    """An input the stamp cannot vouch for: the build is done, and no stamp is written."""


@dataclass(frozen=True)
class Fresh:
    """What the last build of a game said, found still true."""

    game_id: str
    written: str
    findings: tuple[str, ...]


def settings(changes: Mapping[str, object], piece_images: str, combined: bool = False) -> str:
    """Everything besides the files that decides a build's outputs, as one string. The
    tool's version is not in it: no output holds it, and the tool's own files and libraries
    are inputs (_tool_files), so another release is another set of inputs already."""
    return json.dumps(
        {
            "python": sys.version,
            "prefix": sys.prefix,
            "changes": {name: repr(value) for name, value in sorted(changes.items())},
            "piece_images": piece_images,
            "combined": combined,
            "environment": {name: os.environ.get(name) for name in ENVIRONMENT},
        },
        sort_keys=True,
    )


def stamp_path(out_dir: Path, folder: Path) -> Path:
    """The stamp of a game folder's build into out_dir (one per folder, wherever it lies)."""
    return out_dir / ".cache" / STAMPS / f"{_stamp_key(folder)}.json"


def outputs_path(out_dir: Path, folder: Path) -> Path:
    """The record of the outputs of the stamp of `folder`'s build into out_dir."""
    return out_dir / ".cache" / OUTPUTS / f"{_stamp_key(folder)}.marshal"


def _stamp_key(folder: Path) -> str:
    return hashlib.sha256(os.fsencode(os.path.realpath(folder))).hexdigest()[:32]


def _stamp_outputs(stamp: Any, out_dir: Path, folder: Path) -> dict[str, Any]:
    """The outputs a stamp records (name → size, mtime, inode), from its record beside it;
    ValueError when the record is not the one the stamp names (its digest), or not a
    mapping of names."""
    data = outputs_path(out_dir, folder).read_bytes()
    if hashlib.sha256(data).hexdigest() != stamp["outputs"]:
        raise ValueError("not this stamp's outputs")
    outputs = marshal.loads(data)
    if type(outputs) is not dict:
        raise ValueError("not a record of outputs")
    return outputs


# ---- the check -------------------------------------------------------------------------------


_LAST_READ: list[tuple[bytes, Any]] = []
"""The last stamp parsed, with its bytes: a build reads its stamp twice (is it up to date;
which outputs may be linked), and parsing one of a large game takes 15 ms."""


def _read_stamp(path: Path) -> Any:
    """A stamp file parsed (the same object again while its bytes are the same: callers only
    read it)."""
    data = path.read_bytes()
    if _LAST_READ and _LAST_READ[0][0] == data:
        return _LAST_READ[0][1]
    parsed = json.loads(data)
    _LAST_READ[:] = [(data, parsed)]
    return parsed


def fresh(folder: Path, out_dir: Path, build_settings: str) -> Fresh | None:
    """The last build of `folder` into `out_dir` when it is still what a build would write
    now; None at the least doubt."""
    try:
        stamp = _read_stamp(stamp_path(out_dir, folder))
        return _fresh(stamp, folder, out_dir, build_settings)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, EOFError, IndexError):
        return None


def _fresh(stamp: Any, folder: Path, out_dir: Path, build_settings: str) -> Fresh | None:
    expected = (FORMAT, str(folder), str(out_dir), build_settings)
    if (stamp["format"], stamp["folder"], stamp["out"], stamp["settings"]) != expected:
        return None
    inputs: dict[str, Entry] = stamp["inputs"]
    if _digest_of(build_settings, inputs) != stamp["digest"]:
        return None  # not the stamp it claims to be
    if any(_listing(where) != listing for where, listing in stamp["folders"].items()):
        return None
    if not all(_unchanged(path, entry) for path, entry in inputs.items()):
        return None
    if _outputs(stamp["target"]) != _without_digests(_stamp_outputs(stamp, out_dir, folder)):
        return None
    lines = stamp["findings"]
    if not all(isinstance(line, str) for line in lines):
        return None
    game_id, written = stamp["game_id"], stamp["written"]
    if not isinstance(game_id, str) or not isinstance(written, str):
        return None
    return Fresh(game_id, written, tuple(lines))


def _unchanged(path: str, entry: Entry) -> bool:
    """Whether an input is as recorded: absent as it was, or the same content."""
    if entry is None:
        return not os.path.lexists(path)
    size, mtime, digest = entry
    try:
        info = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_size != size:
        return False
    if info.st_mtime_ns == mtime:
        return True
    try:
        return bool(_hash(path)[1] == digest)
    except OSError:
        return False


def _without_digests(outputs: Any) -> dict[str, tuple[int, ...]]:
    """The outputs as recorded: size, mtime, inode, each as a tuple (as the folder is
    listed)."""
    return {name: tuple(recorded[:3]) for name, recorded in outputs.items()}


# ---- the record ------------------------------------------------------------------------------


@dataclass
class Recorder:
    """The inputs of one build, recorded before they are read, then its stamp."""

    folder: Path
    out_dir: Path
    settings: str
    inputs: dict[str, Entry] = field(default_factory=dict)
    folders: dict[str, list[list[str]]] = field(default_factory=dict)
    doubt: bool = False
    trust_outputs: bool = True
    """Whether the previous outputs may be reused where unchanged (not with `--force`)."""
    before: Mapping[str, Entry] = field(default_factory=dict)
    """The inputs the last stamp of this folder recorded: an input with the size and mtime
    recorded there is not hashed again (the test `fresh` trusts too); the tool's code and
    the fonts were 9 MB hashed by every build that was not up to date."""

    @classmethod
    def start(
        cls, folder: Path, out_dir: Path, build_settings: str, trust_outputs: bool = True
    ) -> Recorder:
        """Record the inputs known before the game is loaded (call it before loading)."""
        recorder = cls(folder, out_dir, build_settings, trust_outputs=trust_outputs)
        recorder.before = _recorded_inputs(folder, out_dir)
        try:
            recorder._record_folder()
            recorder._record(_tool_files())
            recorder._record(_font_files())
        except (Doubt, OSError):
            recorder.doubt = True
        return recorder

    def _record_folder(self) -> None:
        from compiler.load.aids import TEMPLATE_NAME
        from compiler.load.game import scan_data_files

        for where in _folders(self.folder):
            self.folders[where] = _listing(where)
        files, problems = scan_data_files(self.folder)
        if problems:
            raise Doubt
        self._record([*map(str, files), str(self.folder / TEMPLATE_NAME)])

    def _record(self, paths: Iterable[str]) -> None:
        for path in paths:
            self.inputs[path] = _entry(path, self.before.get(path))

    def add_art(self, game: GameData) -> None:
        """Record the board and piece art the loaded game names (before the build reads it)."""
        from compiler.load.paths import game_path
        from compiler.rules.paths import piece_art_paths

        names = [m.art.image for m in game.maps if m.art is not None]
        names += [name for _owner, _art, _key, name in piece_art_paths(game)]
        try:
            for name in names:
                path, outside = game_path(game.root, name)
                if outside is not None:
                    raise Doubt
                self._record([str(path)])
        except (Doubt, OSError):
            self.doubt = True

    def previous_outputs(self, target: Path) -> Mapping[str, Sequence[int]]:
        """The files of `target` as the last build's stamp recorded them after writing them
        (name → size, mtime, inode): a file still the same in all three is one that build
        wrote, untouched since (the caller compares: an entry of another shape is no such
        file). Empty without a stamp, with a stamp of another target, when outputs are not to
        be trusted (`build --force`), or at the least doubt. (The record's own mapping: 13,000
        entries copied were a pass for nothing.)"""
        if not self.trust_outputs:
            return {}
        try:
            stamp = _read_stamp(stamp_path(self.out_dir, self.folder))
            if stamp["format"] != FORMAT or stamp["target"] != str(target):
                return {}
            return _stamp_outputs(stamp, self.out_dir, self.folder)
        except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError, EOFError):
            return {}

    def forget(self) -> None:
        """Remove the previous stamp (before the outputs it describes are replaced)."""
        stamp_path(self.out_dir, self.folder).unlink(missing_ok=True)

    def finish(
        self,
        game_id: str,
        target: Path,
        written: str,
        findings: list[Finding],
        outputs: Mapping[str, Sequence[int]] | None = None,
    ) -> None:
        """Write the stamp of a build whose outputs were just committed: `outputs` as the
        commit tells them (size, mtime, inode of each file: compiler.backends.files), else
        as the folder holds them now."""
        from compiler.backends.files import write_atomically
        from compiler.diagnostics import render_text

        if self.doubt:
            return
        if outputs is None:
            try:
                outputs = _outputs(str(target))
            except ValueError:  # something else than files in the folder: never up to date
                return
        try:
            record = marshal.dumps(outputs if type(outputs) is dict else dict(outputs))
        except ValueError:  # not plain values: no stamp
            return
        write_atomically(outputs_path(self.out_dir, self.folder), record)
        stamp = {
            "format": FORMAT,
            "folder": str(self.folder),
            "out": str(self.out_dir),
            "settings": self.settings,
            "digest": _digest_of(self.settings, self.inputs),
            "folders": self.folders,
            "inputs": self.inputs,
            "game_id": game_id,
            "target": str(target),
            "written": str(written),
            "findings": [render_text(finding) for finding in findings],
            "outputs": hashlib.sha256(record).hexdigest(),
        }
        # compact: json's C encoder (an indented dump is encoded in Python)
        text = json.dumps(stamp, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        write_atomically(stamp_path(self.out_dir, self.folder), text.encode("utf-8"))


_known: dict[tuple[str, int, int, int, int], Entry] = {}
"""Entries already recorded in this process (the tool and the fonts serve every game)."""


def _recorded_inputs(folder: Path, out_dir: Path) -> Mapping[str, Entry]:
    """The inputs the last stamp of `folder` in `out_dir` recorded (path → entry); empty when
    there is none, it is not one this version wrote, or its digest does not add up."""
    try:
        stamp = _read_stamp(stamp_path(out_dir, folder))
        if stamp["format"] != FORMAT or stamp["folder"] != str(folder):
            return {}
        inputs = stamp["inputs"]
        if not isinstance(inputs, dict) or _digest_of(stamp["settings"], inputs) != stamp["digest"]:
            return {}
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return {}
    return inputs


def _entry(path: str, recorded: object = None) -> Entry:
    """An input as it is now: absent, or its size, mtime and digest. A `recorded` entry (the
    last stamp's) of the same size and mtime gives the digest without hashing the file."""
    if not os.path.lexists(path):
        return None
    try:
        before = os.stat(path)
        key = (path, before.st_size, before.st_mtime_ns, before.st_ino, before.st_ctime_ns)
        if key in _known:
            return _known[key]
        if _same_file(recorded, before):
            assert isinstance(recorded, list)
            return [before.st_size, before.st_mtime_ns, recorded[2]]
        info, digest = _hash(path)
    except OSError as err:  # a link to nothing, a pipe, a folder: not an input to vouch for
        raise Doubt from err
    racy = info.st_mtime_ns > time.time_ns() - RACY_SECONDS * 1_000_000_000
    entry: Entry = [info.st_size, -1 if racy else info.st_mtime_ns, digest]
    if not racy:
        _known[key] = entry
    return entry


def _same_file(recorded: object, now: os.stat_result) -> bool:
    """Whether a stamp's entry is of a regular file of this size and mtime (-1, a racy one,
    never is) with a digest."""
    return (
        isinstance(recorded, list)
        and len(recorded) == 3
        and stat.S_ISREG(now.st_mode)
        and recorded[0] == now.st_size
        and recorded[1] == now.st_mtime_ns
        and isinstance(recorded[2], str)
        and len(recorded[2]) == 64
    )


def _hash(path: str) -> tuple[os.stat_result, str]:
    """The file's stat and the sha256 of its content (a regular file only, never waited on)."""
    fd, info = open_regular(path)
    with os.fdopen(fd, "rb") as handle:
        return info, hashlib.file_digest(handle, "sha256").hexdigest()


def _digest_of(build_settings: str, inputs: Mapping[str, Entry]) -> str:
    """One digest of the settings and every input's content."""
    contents = {path: None if entry is None else entry[2] for path, entry in inputs.items()}
    text = json.dumps([build_settings, contents], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _folders(folder: Path) -> list[str]:
    """The folder and its subfolders the loader lists (hidden ones and links skipped)."""
    found = [str(folder)]
    for where in found:
        with os.scandir(where) as listing:
            found.extend(
                entry.path
                for entry in listing
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)
            )
    return found


def _listing(where: str) -> list[list[str]]:
    """A folder's visible entries as the loader sees them: name and kind (a link with where it
    leads and what is there)."""
    entries = []
    with os.scandir(where) as listing:
        for entry in listing:
            if entry.name.startswith("."):
                continue
            if entry.is_symlink():
                target = "dir" if os.path.isdir(entry.path) else "other"
                kind = f"link:{os.readlink(entry.path)}:{target}:{os.path.realpath(entry.path)}"
            else:
                kind = "dir" if entry.is_dir(follow_symlinks=False) else "file"
            entries.append([entry.name, kind])
    return sorted(entries)


def _outputs(target: str) -> dict[str, tuple[int, int, int]]:
    """Every file in the output folder: size, mtime, inode (a tuple, as a commit records
    them: see compiler.backends.files); ValueError when the folder is a link or holds
    anything but regular files. Each stat is taken relative to the folder (13,000 of them
    for a large game)."""
    if os.path.islink(target):
        raise ValueError(target)
    found: dict[str, tuple[int, int, int]] = {}
    fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
    try:
        with os.scandir(fd) as listing:
            for entry in listing:
                info = entry.stat(follow_symlinks=False)
                if not stat.S_ISREG(info.st_mode):
                    raise ValueError(entry.name)
                found[entry.name] = (info.st_size, info.st_mtime_ns, info.st_ino)
    finally:
        os.close(fd)
    return found


@cache
def _tool_files() -> tuple[str, ...]:
    """The tool's code, its shipped templates and layouts, and its libraries."""
    import importlib.util

    from compiler.resources import templates_dir

    package = Path(__file__).parent
    files = [str(path) for path in sorted(package.rglob("*.py"))]
    files += [str(path) for path in sorted(package.rglob("*.mo"))]  # the tool's words
    files += [str(path) for path in sorted(templates_dir().iterdir()) if path.is_file()]
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise Doubt(name)
        files.append(spec.origin)
    return tuple(files)


def _font_files() -> list[str]:
    """The font files a build would use, and the places looked at before each."""
    from compiler.backends.art.fonts import ALL_FONTS

    paths: list[str] = []
    for font in ALL_FONTS:
        for candidate in font.candidates():
            paths.append(str(candidate))
            if candidate.is_file():
                break
    return paths
