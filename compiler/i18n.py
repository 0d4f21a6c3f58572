"""The tool's own words (headings, labels, "sheet N of M" ...) in the build's language.

Every string countermix itself puts on a sheet, chart, player aid, preview or module goes
through `tr`, keyed by its English text (gettext's msgid); the data's own texts are `{en, ja}`
records and never pass here.

The catalogues are gettext message catalogues, one per language:
`compiler/locale/<lang>/LC_MESSAGES/countermix.po` is the source (msgid = the English text),
`countermix.mo` beside it is what is read here, with the standard library's `gettext`, and ships
in the package. `python -m scripts.update_catalogue` extracts the msgids from the code (every
`tr("...")`, `tr_text("...")` and `N_("...")` with a literal first argument, and `tr("...")` in
the shipped templates), updates each `.po` keeping its translations, and compiles the `.mo`.
A message may hold `{name}` fields, filled in after translation (`tr(msg, lang, n=3)`), so a
translation may put them in its own order.
"""

from __future__ import annotations

import gettext
import hashlib
from functools import cache
from pathlib import Path

from compiler.model.common import Text

DOMAIN = "countermix"
LOCALE_DIR = Path(__file__).parent / "locale"
SOURCE_LANG = "en"
LANGS = ("en", "ja")
"""The languages a build may be made in: English (the msgids) and those with a catalogue."""


def N_(message: str) -> str:  # noqa: N802 (gettext's conventional name)
    """Marks `message` as a msgid for the catalogue without translating it (for constants
    translated later, where the language is known, by `tr`)."""
    return message


def tr(message: str, lang: str, **fields: object) -> str:
    """`message` (the English text) in `lang`; English when no translation is known. With
    `fields`, the `{name}` fields of the (translated) message are filled in."""
    found = message if lang == SOURCE_LANG else _catalogue(lang).gettext(message)
    return found.format(**fields) if fields else found


def tr_text(message: str, **fields: object) -> Text:
    """`message` in every language as one text record (for what is built once for both, such
    as the player aids); a Text field value is filled in with its own form in each language."""

    def one(lang: str) -> str:
        values = {k: v.get(lang) if isinstance(v, Text) else v for k, v in fields.items()}
        return tr(message, lang, **values)

    return Text(one("en"), one("ja"))


@cache
def _catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of `lang` (read once); none (English) when it has no catalogue."""
    return gettext.translation(DOMAIN, str(LOCALE_DIR), languages=[lang], fallback=True)


@cache
def catalogue_fingerprint() -> str:
    """A digest of every compiled catalogue: part of the cache keys of what shows tool words."""
    digest = hashlib.sha256()
    for path in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")):
        digest.update(str(path.relative_to(LOCALE_DIR)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
