"""Print sheets: counters, block labels and cards as print-ready PDFs (bleed, cut marks, duplex)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compiler.backends.sheets.build import write_sheets
    from compiler.backends.sheets.options import (
        SheetOptions,
        back_offset_mm,
        card_size_mm,
        counter_size_mm,
    )

__all__ = ["SheetOptions", "back_offset_mm", "card_size_mm", "counter_size_mm", "write_sheets"]


def __getattr__(name: str) -> Any:
    """The names above, imported when first used (the options need none of the drawing)."""
    if name == "write_sheets":
        from compiler.backends.sheets import build

        return build.write_sheets
    if name in __all__:
        from compiler.backends.sheets import options

        return getattr(options, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
