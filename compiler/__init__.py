"""countermix: compile board-wargame data into VASSAL modules, print sheets and charts."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("countermix")
    """The installed distribution's version (pyproject.toml is the one place it is written)."""
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"
