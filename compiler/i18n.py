"""The tool's own words (headings, labels, "sheet N of M" ...) in the build's language.

Every string countermix itself puts on a sheet, chart, player aid, preview or module goes
through `tr`, keyed by its English text (gettext's msgid); the data's own texts are `{en, ja}`
records and never pass here.
"""

from __future__ import annotations


def tr(message: str, lang: str) -> str:
    """`message` (the English text) in `lang`; English when no translation is known."""
    del lang
    return message
