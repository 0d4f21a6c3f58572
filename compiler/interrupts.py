"""Whether a Ctrl-C reached this process while a command ran.

The Ctrl-C handler raises KeyboardInterrupt wherever the program happens to be. A library that
catches every exception there turns it into an error of its own (reportlab's font parser, which
builds used before, re-raised it as "Corrupt TTF file"). The handler notes each Ctrl-C here, so
the command line can tell such an error (or a command that went on after the library swallowed
the interrupt) from a real fault, and end the way every interrupted command ends.
"""

from __future__ import annotations

_seen = False


def note() -> None:
    """Record that a Ctrl-C arrived while the command ran."""
    global _seen
    _seen = True


def seen() -> bool:
    """Whether a Ctrl-C arrived while the command ran."""
    return _seen
