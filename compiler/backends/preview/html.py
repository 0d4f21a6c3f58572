"""Small HTML helpers for the preview page: escaping, links to the data, the page's frame."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from compiler.diagnostics import Location
from compiler.i18n import tr

STYLE = """
:root{--ink:#1d1d1f;--muted:#5b5b63;--line:#d5d5da;--paper:#fff;--band:#f4f4f6;--link:#0b57d0}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,"DejaVu Sans","IPAexGothic",sans-serif;color:var(--ink);
background:var(--paper)}
a{color:var(--link)}
a:focus-visible,summary:focus-visible,[tabindex]:focus-visible{outline:3px solid #f0a000;
outline-offset:2px}
.skip{position:absolute;left:-999px}
.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:2}
header,main{max-width:1200px;margin:0 auto;padding:0 12px}
header{padding-top:12px}
h1{font-size:1.6rem;margin:.4em 0}
h2{font-size:1.3rem;border-bottom:2px solid var(--line);padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1.1rem;margin-top:1.4em}
h4,h5{font-size:1rem;margin:1em 0 .4em}
h5{color:var(--muted)}
nav ul{list-style:none;padding:0;margin:.4em 0;display:flex;flex-wrap:wrap;gap:.3em .9em}
ul.grid{list-style:none;padding:0;margin:0;display:grid;gap:8px;
grid-template-columns:repeat(auto-fill,minmax(150px,1fr))}
ul.grid.wide{grid-template-columns:repeat(auto-fill,minmax(220px,1fr))}
ul.grid.scenes{grid-template-columns:repeat(auto-fill,minmax(320px,1fr))}
ul.grid>li{border:1px solid var(--line);border-radius:6px;padding:6px;background:var(--band);
overflow-wrap:anywhere}
.faces{display:flex;gap:4px;align-items:flex-start;flex-wrap:wrap}
.faces img{height:64px;width:auto;max-width:100%}
.faces img.sp{object-fit:none;object-position:0 0;max-width:none}
.card .faces img,.deck .faces img{height:150px}
.meta{font-size:.85rem;margin:.3em 0 0}
.meta code{font-size:.85em}
.src{font-size:.8rem;color:var(--muted)}
.scenario img,.chart img{width:100%;height:auto;border:1px solid var(--line);background:#fff}
ul.thumbs{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:8px}
ul.thumbs img{height:160px;width:auto;border:1px solid var(--line);background:#fff}
.outline{display:flex;align-items:center;justify-content:center;height:160px;
border:1px solid var(--line);background:#fff;color:var(--muted);font-size:.8rem;padding:4px;
text-align:center}
.missing{border:2px dashed #c33;padding:1em;color:#a11;background:#fff6f6}
ol.findings{padding-left:1.2em}
.warning{color:#8a5a00}.error{color:#b00020}.note{color:var(--muted)}
@media (max-width:600px){body{font-size:14px}ul.grid{grid-template-columns:repeat(2,1fr)}
ul.grid.wide,ul.grid.scenes{grid-template-columns:1fr}ul.thumbs img,.outline{height:120px}}
"""


def e(text: object) -> str:
    """Text escaped for HTML (attribute values included): what `html.escape(text, quote=True)`
    gives, the same replacements in the same order, without importing `html`, whose table of
    entities (html.entities) cost every build 2-4 ms of start-up for a function of five lines."""
    text = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;").replace("'", "&#x27;")


class Sources:
    """Links from the page to the data: `game/file.yaml:line`, the href relative to the
    folder the page is read in (so it opens from a checkout or a copy of both folders)."""

    def __init__(self, root: str, page_folder: Path) -> None:
        self.base = Path(root).resolve().parent
        self.page_folder = page_folder.resolve()
        self._files: dict[str, tuple[str, str]] = {}

    def link(self, loc: Location) -> str:
        if loc.line <= 0:
            return ""
        shown, href = self.file(loc.path)
        text = f"{shown}:{loc.line}"
        return f'<a class="src" href="{href}" title="{e(text)}">{e(text)}</a>'

    def file(self, name: str) -> tuple[str, str]:
        """A data file's name as shown and its href (escaped), worked out once per file: a
        page links thousands of pieces to a few files."""
        found = self._files.get(name)
        if found is None:
            path = Path(name).resolve()
            try:
                shown = path.relative_to(self.base).as_posix()
            except ValueError:
                shown = path.name
            href = Path(os.path.relpath(path, self.page_folder)).as_posix()
            found = self._files[name] = (shown, e(href))
        return found


def page(
    title: str,
    lang: str,
    nav: Iterable[tuple[str, str]],
    body: Iterable[str],
    watched: bool = False,
) -> str:
    """The whole document: head, the title and contents, then the sections. A `watched` page
    (`build --watch`) loads watch.js, which reloads it when a new build lands
    (compiler.watch)."""
    start, end = _frame(title, lang, nav, watched)
    return "".join([start, *body, end])


def page_bytes(
    title: str,
    lang: str,
    nav: Iterable[tuple[str, str]],
    body: Iterable[str | bytes],
    watched: bool = False,
) -> bytes:
    """`page` encoded (UTF-8), each part on its own: one character beyond ASCII (the dash of
    the title) made the whole page, 4 MB for a large game, a wide string joined and encoded
    character by character; its sections are ASCII, each copied as it is. A part given as
    bytes is UTF-8 already (the units section read back: megabytes not decoded again)."""
    start, end = _frame(title, lang, nav, watched)
    return b"".join([_utf8(part) for part in (start, *body, end)])


def _utf8(part: str | bytes) -> bytes:
    return part if isinstance(part, bytes) else part.encode("utf-8")


def _frame(title: str, lang: str, nav: Iterable[tuple[str, str]], watched: bool) -> tuple[str, str]:
    """The document before the sections, and after them."""
    items = "".join(f'<li><a href="#{e(ident)}">{e(label)}</a></li>' for ident, label in nav)
    heading = f"{title} — {tr('preview', lang)}"
    start = "".join(
        [
            f'<!DOCTYPE html>\n<html lang="{e(lang)}">\n<head>\n<meta charset="utf-8">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            f"<title>{e(heading)}</title>\n<style>{STYLE}</style>\n",
            '<script src="watch.js"></script>\n' if watched else "",
            "</head>\n<body>\n",
            f'<a class="skip" href="#main">{e(tr("Skip to the content", lang))}</a>\n',
            f"<header>\n<h1>{e(heading)}</h1>\n",
            f'<nav aria-label="{e(tr("Contents", lang))}"><ul>{items}</ul></nav>\n</header>\n',
            '<main id="main">\n',
        ]
    )
    return start, "</main>\n</body>\n</html>\n"
