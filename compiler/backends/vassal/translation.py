"""The module's translations, the VASSAL way: one module, English as its base text, and a
`VASSAL.i18n.Translation` per other language under the build file's `VASSAL.i18n.Language`,
its texts in a `Module_<lang>.properties` bundle inside the module.

How VASSAL 3.6 finds a translated text (vassalengine/vassal, vassal-app/src/main/java/VASSAL/):

* while the build file is read, every attribute of a translatable component is recorded
  (`build/AbstractBuildable.build`, `build/Widget.build`,
  `i18n/Localization.saveTranslatableAttribute`); once the module is built,
  `Localization.translate` merges the bundles of the Translations whose language is the
  player's (`i18n/Resources.getLocale`: the "Locale" preference) and applies, for each
  recorded attribute VASSAL marks translatable (`String` or a `TranslatableConfigurerFactory`
  type, `i18n/ComponentI18nData.init`, or forced by `setAttributeTranslatable`), the bundle's
  text under its key; a key the bundle lacks keeps the base text;
* the key is `ComponentI18nData.getFullPrefix() + attribute`: each component's prefix is its
  class's simple name, then `.` and its configure name when it has one, then `.`
  (`build/AbstractConfigurable.getI18nPrefix`); a component's full prefix is its owner's full
  prefix, `.`, and its own (the module's prefix is empty), e.g.
  `PieceWindow.Counters..TabWidget.Counters..ListWidget.French.entryName`. A Board's owner is
  its Map (the BoardPicker between them is no translatable owner): `Map.M..Board.B.name`;
* a piece's texts (BasicPiece name, trait menu commands) are keyed by the text itself:
  `Piece.<text>` (`i18n/TranslatablePiece.PREFIX`, `i18n/PieceI18nData.translate`,
  `counters/BasicPiece.getRealLocalizedName`), one key for every piece that says it;
* renaming through a translation changes only what is shown: a component's configure name
  stays the base text (`AbstractConfigurable.setConfigureName` while translating sets the
  localized name), so saves, decks (`counters/Deck.setDeckName`), boards and filters go on
  naming things in English.

What VASSAL 3.6 cannot translate, and this module therefore shows in English everywhere: a
PieceSlot's entry name (`build/widget/PieceSlot` has no translatable attributes; its piece's
name is, under `Piece.`), the player roster's side names (typed `String[]`, not translatable in
3.6), location names inside the pieces' saved state, and images (piece faces, boards and charts
are drawn in the build's language; VASSAL would read `images_<lang>/` first, which this module
does not carry).

Only texts the data gives in a language (or the tool's catalogue has, `compiler.i18n.tr`) are
written: where a text has no translation its key is left out, and VASSAL shows the base text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import repeat
from operator import attrgetter

from lxml import etree

from compiler.backends.vassal.piececache import PieceTexts
from compiler.i18n import tr
from compiler.model.common import Text

LANGUAGES: tuple[str, ...] = ("ja",)
"""The languages every module carries beside its English base text."""
PIECE_PREFIX = "Piece."
NAME_ATTRIBUTE = {
    "Map": "mapName",
    "PlayerHand": "mapName",
    "PrivateMap": "mapName",
    "TabWidget": "entryName",
    "ListWidget": "entryName",
    "PanelWidget": "entryName",
    "BoxWidget": "entryName",
    "Chart": "chartName",
}
"""The attribute that holds a component's configure name, where it is not `name`."""
NOT_OWNERS = frozenset({"BoardPicker"})
"""Components that are not translatable owners of their children (no part of their keys)."""

Localized = Callable[[str], str]
"""A text in a language: "" (or the base text) when it has none there."""


def data_text(text: Text) -> Localized:
    """The data's own text in a language, never another language's."""
    return partial(_own_text, text)


def _own_text(text: Text, lang: str) -> str:
    """`data_text`'s text (no mapping made per call: a module asks it of every unit)."""
    if lang == "ja":
        return text.ja
    return text.en if lang == "en" else ""


def tool_text(english: str) -> Localized:
    """One of the tool's own words, through its catalogue (`compiler.i18n.tr`)."""
    return lambda lang: tr(english, lang)


@dataclass
class Translations:
    """The translatable texts `build_file` wrote: attributes of elements, and pieces' texts."""

    attributes: list[tuple[etree._Element, str, Localized]] = field(default_factory=list)
    pieces: list[tuple[str, Localized]] = field(default_factory=list)
    data_pieces: list[Text] = field(default_factory=list)
    """Texts of the data inside pieces (the units' names), keyed by their English: put
    before `pieces` in a bundle (`pieces_of`)."""

    def attribute(self, element: etree._Element, attribute: str, text: Localized) -> None:
        """`element`'s `attribute` (its base text already set) reads `text(lang)` in `lang`."""
        self.attributes.append((element, attribute, text))

    def piece(self, base: str, text: Localized) -> None:
        """A text inside pieces (a BasicPiece name, a menu command), keyed by its base text."""
        if base:
            self.pieces.append((base, text))

    def pieces_of(self, texts: Sequence[Text]) -> None:
        """`piece(text.en, data_text(text))` of each text, given before any `piece` (a
        bundle puts them first): kept as the texts, read in passes that stay in C (a module
        of 8,000 counters names 8,000 units)."""
        self.data_pieces.extend(texts)

    def bundle(self, lang: str) -> dict[str, str]:
        """Key -> text of every translatable text that has its own text in `lang`."""
        out: dict[str, str] = {}
        for element, attribute, text in self.attributes:
            base = element.get(attribute) or ""
            shown = text(lang)
            if base and shown and shown != base:
                out.setdefault(component_key(element, attribute), shown)
        bases = list(map(_ENGLISH, self.data_pieces))
        own = map(attrgetter(lang), self.data_pieces) if lang in ("en", "ja") else repeat("")
        for base, shown in zip(bases, own, strict=False):
            if base and shown and shown != base:
                out.setdefault(PIECE_PREFIX + base, shown)
        for base, text in self.pieces:
            shown = text(lang)
            if shown and shown != base:
                out.setdefault(PIECE_PREFIX + base, shown)
        return out


_ENGLISH = attrgetter("en")


def _simple_name(tag: str) -> str:
    return tag.rsplit(".", 1)[-1]


def _prefix(element: etree._Element) -> str:
    simple = _simple_name(element.tag)
    name = element.get(NAME_ATTRIBUTE.get(simple, "name")) or ""
    return f"{simple}.{name}." if name else f"{simple}."


def component_key(element: etree._Element, attribute: str) -> str:
    """The key VASSAL looks `element`'s `attribute` up by (see the module's doc)."""
    prefixes: list[str] = []
    current: etree._Element | None = element
    while current is not None and current.getparent() is not None:  # the module: no prefix
        if _simple_name(current.tag) not in NOT_OWNERS:
            prefixes.append(_prefix(current))
        current = current.getparent()
    return ".".join(reversed(prefixes)) + attribute


def bundle_name(lang: str) -> str:
    """The bundle VASSAL reads a Translation of `lang` from (Translation.getBundleFileName)."""
    return f"Module_{lang}.properties"


def add_translations(
    root: etree._Element, texts: Translations, kept: PieceTexts | None = None
) -> dict[str, bytes]:
    """A Translation under the build file's Language for every language with texts; the
    bundle files (name -> bytes) the module must carry for them. A Translation whose bundle
    is missing would fail the module's load, so one without texts is not written. With
    `kept` (the pack of piece texts), a bundle is kept there by its entries
    (`kept_properties`)."""
    language = root.find("VASSAL.i18n.Language")
    files: dict[str, bytes] = {}
    if language is None:
        return files
    for lang in LANGUAGES:
        entries = texts.bundle(lang)
        if not entries:
            continue
        etree.SubElement(language, "VASSAL.i18n.Translation").set("locale", lang)
        files[bundle_name(lang)] = kept_properties(entries, kept or PieceTexts())
    return files


def kept_properties(entries: dict[str, str], kept: PieceTexts) -> bytes:
    """`properties(entries)`, kept between builds by the entries themselves (their repr, with
    the code's fingerprint: see PieceTexts): a warm build whose texts did not change reads
    the file (escaping 14,000 texts of a module of 8,000 counters took longer than keying
    them). A damaged entry is a miss (made again)."""
    return kept.data(partial(properties, entries), "properties-1", entries)


def properties(entries: dict[str, str]) -> bytes:
    """A Java .properties file (ISO-8859-1 with \\uXXXX escapes, as `Properties.store`
    writes), keys sorted: Properties.load and PropertyResourceBundle read it alike."""
    found = sorted(entries.items())
    keys = _escaped_all([key for key, _ in found], True)
    values = _escaped_all([value for _, value in found], False)
    lines = ["# countermix: the module's translation (VASSAL.i18n.Translation)"]
    lines += [f"{key}={value}" for key, value in zip(keys, values, strict=True)]
    return ("\n".join(lines) + "\n").encode("ascii")


def _escaped_all(texts: list[str], is_key: bool) -> list[str]:
    """`_escape` of each text, in one `translate` of them all (a module of 8,000 counters
    has 14,000 texts to escape): joined by NUL, escaped as `\\u0000`, which nothing else
    escapes to when no text holds a backslash (every backslash then starts an escape) or a
    NUL; else each text on its own."""
    joined = "\x00".join(texts)
    if "\\" in joined or joined.count("\x00") != max(len(texts) - 1, 0):
        return [_escape(text, is_key) for text in texts]
    out = joined.translate(_ESCAPED).split(_ESCAPED_NUL) if texts else []
    if is_key:
        return [text.replace(" ", "\\ ") for text in out]
    return ["\\" + text if text.startswith(" ") else text for text in out]


_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}


class _Escaped(dict[int, str]):
    """A `str.translate` table of the Properties escapes, each character's found once: the
    backslash and line breaks by name, `=:#!` after a backslash, printable ASCII as it is,
    anything else as its UTF-16 `\\uXXXX` escapes (a space is the caller's: escaped in a key
    and at the start of a value)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        if ch in _ESCAPES:
            value = _ESCAPES[ch]
        elif ch in "=:#!":
            value = "\\" + ch
        elif " " <= ch <= "~":
            value = ch
        else:
            value = "".join(_unicode_escapes(ch))
        self[code] = value
        return value


_ESCAPED = _Escaped()
_ESCAPED_NUL = "\\u0000"
_PLAIN = re.compile(r"[!-~]+(?: [!-~]+)*")
"""Printable ASCII words with single spaces between them: with none of `\\=:#!` in it and
(in a key) no space, a text no character of which is escaped."""
_NEEDS_ESCAPE = re.compile(r"[\\=:#!]")


def _escape(text: str, is_key: bool) -> str:
    if _PLAIN.fullmatch(text) and not _NEEDS_ESCAPE.search(text):
        if not (is_key and " " in text):
            return text
    out = text.translate(_ESCAPED)
    if is_key:
        return out.replace(" ", "\\ ")
    return "\\" + out if out.startswith(" ") else out


def _unicode_escapes(ch: str) -> Iterable[str]:
    data = ch.encode("utf-16-be")
    for at in range(0, len(data), 2):
        yield f"\\u{int.from_bytes(data[at : at + 2], 'big'):04X}"
