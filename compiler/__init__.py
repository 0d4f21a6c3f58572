"""countermix: compile board-wargame data into VASSAL modules, print sheets and charts."""

from __future__ import annotations

import os
import sys

DISTRIBUTION = "countermix"


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed distribution's metadata when first asked for
    (pyproject.toml is the one place it is written; importing the package stays instant), and
    kept: `from compiler import __version__` asks twice (hasattr, then getattr)."""
    if name != "__version__":
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    found = _version_beside_the_path() or _version_from_metadata()
    globals()["__version__"] = found
    return found


def _version_from_metadata() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


def _version_beside_the_path() -> str | None:
    """The Version of the first `countermix-*.dist-info` (or `.egg-info`) folder on sys.path,
    read as importlib.metadata finds it (the first sys.path folder holding the distribution's
    metadata) without importing it, which costs `--version` 0.03-0.05 s; None (ask
    importlib.metadata) for anything but one metadata folder in the first sys.path folder
    that has any: eggs, zip files on the path, several candidates, odd or unreadable metadata."""
    for entry in sys.path:
        if entry.lower().endswith(".egg"):  # an egg's own metadata: importlib.metadata knows
            return None
        try:
            names = os.listdir(entry or ".")
        except FileNotFoundError:
            continue
        except OSError:  # a zip file or an unreadable folder: importlib.metadata knows
            return None
        ours = [name for name in names if _names_the_distribution(name)]
        if ours:
            folder = os.path.join(entry or ".", ours[0])
            if len(ours) != 1 or not os.path.isdir(folder):
                return None
            return _metadata_version(_metadata_file(folder))
    return None


def _names_the_distribution(name: str) -> bool:
    """Whether a folder entry is metadata of this distribution in a form importlib.metadata
    reads (`countermix-VERSION.dist-info` / `.egg-info`, any case, or a bare `.egg-info`)."""
    low = name.lower()
    if not low.endswith((".dist-info", ".egg-info")):
        return False
    stem = low.rsplit(".", 1)[0]
    return stem == DISTRIBUTION or stem.startswith(DISTRIBUTION + "-")


def _metadata_file(folder: str) -> str:
    """The file importlib.metadata reads a metadata folder's headers from: METADATA (a
    dist-info), else PKG-INFO (an egg-info, such as a checkout's `pip install -e` leaves)."""
    metadata = os.path.join(folder, "METADATA")
    return metadata if os.path.exists(metadata) else os.path.join(folder, "PKG-INFO")


def _metadata_version(path: str) -> str | None:
    """The `Version:` header of a METADATA file, as the email parser importlib.metadata uses
    reads it (the headers end at the first blank line); None for anything unusual."""
    try:
        with open(path, encoding="utf-8") as stream:
            for line in stream:
                if line[:1] in (" ", "\t"):  # a folded header's next line
                    continue
                key, colon, value = line.partition(":")
                if not colon:  # a blank line or a line that is no header: the headers end
                    return None
                if key.lower() == "version":
                    return value.lstrip(" \t").rstrip("\r\n") or None
    except (OSError, UnicodeDecodeError):
        return None
    return None
