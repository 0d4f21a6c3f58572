"""Print sheets: counters, block labels and cards as print-ready PDFs (bleed, cut marks, duplex)."""

from compiler.backends.sheets.build import write_sheets
from compiler.backends.sheets.options import (
    SheetOptions,
    back_offset_mm,
    card_size_mm,
    counter_size_mm,
)

__all__ = ["SheetOptions", "back_offset_mm", "card_size_mm", "counter_size_mm", "write_sheets"]
