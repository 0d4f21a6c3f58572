"""countermix: compile board-wargame data into VASSAL modules, print sheets and charts."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed distribution's metadata when first asked for
    (pyproject.toml is the one place it is written; importing the package stays instant)."""
    if name != "__version__":
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("countermix")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"
