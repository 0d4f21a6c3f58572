"""`countermix build --watch`: build, then build again each game whose sources change.

The game folders are watched with watchfiles (inotify on Linux, no polling loop of ours);
changes are gathered until the files have been quiet for a moment (an editor's save is often
several writes), then only the games they touch are built again, through the same pipeline as
`countermix build` (the render caches make one edited unit a matter of a second). A change
touches a game when it is to a file the build reads: a data file, the game's own player-aids
template, or a file the game's last build read (its art, from the build's stamp); after a
failed build, whose stamp is not there to say, any visible file of the game counts. Hidden
files (which the loader skips), editor leftovers and the output folder are never a change.

Each watched build also writes `watch.js` into build/<game>/ with the build's number, for the
preview page: the page loads it with `<script src="watch.js"></script>` and asks for it again
every second (a new <script> tag: a browser refuses fetch() of file://), and reloads itself when
the number is not the one it started with. Plain builds never write it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

WATCH_NAME = "watch.js"
QUIET_MS = 100
"""A change is acted on once the files have been quiet this long."""
GATHER_MS = 1600
"""Changes are gathered at most this long before a build starts."""
READY_MS = 500
"""How soon the watch says it is watching (the files are watched from its start)."""

WATCH_JS = """\
// countermix build --watch: this is build %(generation)d of this folder. The preview page
// includes <script src="watch.js"></script>, asks for this file again every second and
// reloads itself when the build number is not the one it was opened with.
(function (build) {
  var seen = window.countermixBuild;
  if (seen === undefined) {
    window.countermixBuild = build;
    setInterval(function () {
      var last = document.getElementById("countermix-watch");
      if (last) last.remove();
      var again = document.createElement("script");
      again.id = "countermix-watch";
      again.src = "%(name)s?" + Date.now();
      document.head.appendChild(again);
    }, 1000);
  } else if (seen !== build) {
    location.reload();
  }
})(%(generation)d);
"""


def watch_script(generation: int) -> bytes:
    """watch.js of build number `generation` (the same bytes for the same number)."""
    return (WATCH_JS % {"generation": generation, "name": WATCH_NAME}).encode("ascii")


def first_generation() -> int:
    """The number of a watch's first build: the milliseconds since 1970, so that a page opened
    in an earlier watch never sees its own number again when a new watch counts on."""
    return time.time_ns() // 1_000_000


Build = Callable[[list[Path], int], set[Path]]
"""build(folders, generation): build these games as build number `generation`; the folders
whose game was not built (findings, or an output that could not be written)."""


class Sources:
    """The game folders watched, and which of their files a build reads."""

    def __init__(self, folders: list[Path], out_dir: Path) -> None:
        self.folders = folders
        self.roots = {folder: os.path.realpath(folder) for folder in folders}
        self.out_dir = os.path.realpath(out_dir)
        self.read: dict[Path, frozenset[str] | None] = dict.fromkeys(folders)

    def built(self, folders: Iterable[Path], failed: set[Path]) -> None:
        """Learn what each game's build read, from its stamp (None: not known, any file)."""
        for folder in folders:
            self.read[folder] = None if folder in failed else self._stamped(folder)

    def _stamped(self, folder: Path) -> frozenset[str] | None:
        import json

        from compiler.buildstamp import stamp_path

        try:
            stamp = json.loads(stamp_path(Path(self.out_dir), folder).read_bytes())
            inputs = stamp["inputs"]
            if not isinstance(inputs, dict):
                return None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return frozenset(os.path.realpath(path) for path in inputs)

    def touched(self, paths: Iterable[str]) -> list[Path]:
        """The game folders (in the order given) that the changed `paths` touch."""
        paths = [os.path.realpath(path) for path in paths]
        return [folder for folder in self.folders if any(self._reads(folder, p) for p in paths)]

    def _reads(self, folder: Path, path: str) -> bool:
        from compiler.load.aids import TEMPLATE_NAME
        from compiler.pipeline import YAML_SUFFIXES

        root = self.roots[folder]
        if not _under(path, root) or _under(path, self.out_dir):
            return False
        parts = Path(os.path.relpath(path, root)).parts
        if any(part.startswith(".") for part in parts):
            return False  # the loader skips hidden files and folders
        known = self.read[folder]
        if known is None or path.endswith(YAML_SUFFIXES) or parts[-1] == TEMPLATE_NAME:
            return True
        if path in known or os.path.isdir(path):
            return True
        return any(_under(name, path) for name in known)  # a folder of inputs went away


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def watch_games(
    folders: list[Path],
    out_dir: Path,
    build: Build,
    say: Callable[[str], None],
) -> None:
    """Build the games, then each game again when its sources change, until Ctrl-C (a
    KeyboardInterrupt, raised out of here). A build with findings keeps its previous outputs
    and the watch goes on."""
    import watchfiles

    sources = Sources(folders, out_dir)
    generation = first_generation()
    sources.built(folders, build(folders, generation))
    plural = "" if len(folders) == 1 else "s"
    ready = False
    roots = sorted(set(sources.roots.values()))
    for changes in watchfiles.watch(
        *roots,
        debounce=GATHER_MS,
        step=QUIET_MS,
        rust_timeout=READY_MS,
        yield_on_timeout=True,  # an empty set: nothing changed; the first says it is watching
        raise_interrupt=True,
    ):
        if not ready:
            ready = True
            say(f"watching {len(folders)} game{plural} for changes (Ctrl-C to stop)")
        touched = sources.touched(path for _change, path in changes)
        if not touched:
            continue
        generation += 1
        say(f"changed: {', '.join(folder.name for folder in touched)}; building")
        sources.built(touched, build(touched, generation))
