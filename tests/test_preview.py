"""build/<game>/index.html, the preview page (compiler.backends.preview), without a browser:
it lists every piece, card, deck and scenario of every edition with a link to its source
line, every image has alt text and is a file of the build folder, the page's own words go
through i18n.tr, and the same sources give the same bytes, cold or warm."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest

import compiler.backends.preview.build as preview_build
import compiler.backends.preview.html as preview_html
import compiler.backends.preview.sections as preview_sections
from compiler.backends.preview.thumbs import page_sizes
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.model.series import title_game, title_module_name
from compiler.newgame import write_game
from compiler.pipeline import build_game, is_output_name


class Page(HTMLParser):
    """What the tests read off a page: element ids (with the text inside), images, links."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self.images: list[dict[str, str]] = []
        self.links: list[str] = []
        self.html_lang = ""
        self._open: list[tuple[str, str, list[str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "html":
            self.html_lang = found.get("lang", "")
        if tag == "img":
            self.images.append(found)
        if tag == "a" and "href" in found:
            self.links.append(found["href"])
        if tag == "li" and "id" in found:
            self._open.append((tag, found["id"], []))

    def handle_data(self, data: str) -> None:
        for _tag, _ident, texts in self._open:
            texts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "li" and self._open:
            _tag, ident, texts = self._open.pop()
            self.ids[ident] = "".join(texts)


def _new_game(root: Path, kind: str, series: bool = False) -> Path:
    folder = root / f"{kind}{'-series' if series else ''}"
    write_game(folder, kind, series=series)
    return folder


def _build(folder: Path, out: Path, lang: str = "") -> Path:
    report, written = build_game(folder, out, changes={"lang": lang} if lang else {})
    assert written, [str(f) for f in report.findings]
    assert report.game is not None
    return out / report.game.game.id


def _game(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None
    return game


def _editions(game: GameData) -> list[tuple[str, GameData]]:
    if not game.game.titles:
        return [(game.game.id, game)]
    return [(title_module_name(game, t), title_game(game, t)) for t in game.game.titles]


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small new games (cards with markers and decks; a hex series of two titles)."""
    root = tmp_path_factory.mktemp("preview-games")
    _new_game(root, "cards")
    _new_game(root, "hex", series=True)
    return root


@pytest.fixture(scope="module")
def built(games: Path) -> Path:
    out = games / "a" / "out"
    for folder in (games / "cards", games / "hex-series"):
        _build(folder, out)
    return out


@pytest.mark.parametrize("name", ["cards", "hex-series"])
def test_every_piece_card_and_scenario_is_listed_with_its_source_line(
    games: Path, built: Path, name: str
) -> None:
    game = _game(games / name)
    page = Page((built / game.game.id / "index.html").read_text(encoding="utf-8"))
    expected: dict[str, tuple[str, int]] = {}
    for edition, made in _editions(game):
        anchor = f"e-{edition}"
        for unit in made.units:
            expected[f"{anchor}-unit-{unit.id}"] = (unit.loc.path, unit.loc.line)
        for marker in made.markers.values():
            expected[f"{anchor}-marker-{marker.id}"] = (marker.set.loc.path, marker.set.loc.line)
        for card in made.cards:
            expected[f"{anchor}-card-{card.id}"] = (card.loc.path, card.loc.line)
        for deck in made.decks:
            expected[f"{anchor}-deck-{deck.id}"] = (deck.loc.path, deck.loc.line)
        for scenario in made.scenarios:
            expected[f"{anchor}-scenario-{scenario.id}"] = (scenario.loc.path, scenario.loc.line)
    assert len(expected) > 10
    missing = sorted(set(expected) - set(page.ids))
    assert not missing
    for ident, (path, line) in expected.items():
        assert f"{Path(path).name}:{line}" in page.ids[ident], ident
    if game.game.titles:
        assert len(_editions(game)) == 2
        assert sum(
            ident.endswith("-scenario-" + s.id) for s in game.scenarios for ident in expected
        )


@pytest.mark.parametrize("name", ["cards", "hex-series"])
def test_every_image_has_alt_text_and_is_a_flat_file_of_the_build(
    games: Path, built: Path, name: str
) -> None:
    game_id = _game(games / name).game.id
    folder = built / game_id
    page = Page((folder / "index.html").read_text(encoding="utf-8"))
    assert len(page.images) > 10
    for image in page.images:
        assert image.get("alt", "").strip(), image
        source = image["src"]
        assert "/" not in source and (folder / source).is_file(), source
    shown = {image["src"] for image in page.images}
    for path in folder.iterdir():
        assert path.is_file() and not path.is_symlink(), path
        assert is_output_name(game_id, path.name), path.name
        if path.name.startswith("preview-"):
            assert path.name in shown, f"{path.name} is written but not shown"
    for link in page.links:
        if link.startswith("#") or ".yaml" in link:
            continue
        target = link.split("#")[0]
        assert (folder / target).is_file(), link
    sources = [link for link in page.links if link.endswith((".yaml", ".yml"))]
    assert sources
    for link in sources:
        assert (folder / link).resolve().is_file(), link


def test_the_page_links_every_page_of_every_pdf(games: Path, built: Path) -> None:
    folder = built / _game(games / "cards").game.id
    page = Page((folder / "index.html").read_text(encoding="utf-8"))
    for pdf in sorted(folder.glob("*.pdf")):
        pages = len(page_sizes(pdf.read_bytes()))
        assert pages > 0
        for number in range(1, pages + 1):
            assert f"{pdf.name}#page={number}" in page.links, (pdf.name, number)
        assert f"{pdf.name}#page={pages + 1}" not in page.links


def test_same_sources_same_bytes_and_a_warm_build_rewrites_them_identically(
    games: Path, built: Path
) -> None:
    folder = games / "cards"
    first = _files(built / "cards")
    other = _build(folder, games / "b" / "out")  # cold, in another output folder
    assert _files(other) == first
    cache = games / "b" / "out" / ".cache" / "cards"
    packs = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in cache.glob("*.pack")}
    assert {"preview.pack", "scenes.pack", "faces.pack"} <= set(packs)
    again = _build(folder, games / "b" / "out")  # warm: everything from the caches
    assert _files(again) == first
    after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in cache.glob("*.pack")}
    for name in ("preview.pack", "scenes.pack", "faces.pack"):
        assert after[name] == packs[name], f"{name}: the warm build drew again"


def test_a_japanese_build_shows_the_data_in_japanese(games: Path, tmp_path: Path) -> None:
    folder = _build(games / "cards", tmp_path / "out", lang="ja")
    text = (folder / "index.html").read_text(encoding="utf-8")
    assert Page(text).html_lang == "ja"
    assert "戦術デッキ" in text  # the deck's name: {en: Tactics deck, ja: 戦術デッキ}
    assert "Tactics deck" not in text


def test_every_word_of_the_page_goes_through_tr(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def marked(message: str, lang: str) -> str:
        return f"«{message}»"

    translate: Callable[[str, str], str] = marked
    for module in (preview_build, preview_html, preview_sections):
        monkeypatch.setattr(module, "tr", translate)
    folder = _build(games / "cards", tmp_path / "out")
    text = (folder / "index.html").read_text(encoding="utf-8")
    for words in ("Findings", "Markers", "Cards", "Scenarios", "Print files", "Charts", "Back"):
        assert f"«{words}»" in text
        if words != "Cards":  # also the new game's title
            assert f">{words}<" not in text


@pytest.mark.parametrize(
    ("name", "owned"),
    [
        ("index.html", True),
        (".index.html.x1y2", True),
        ("preview-unit-0123456789abcdef.svg", True),
        ("preview-page-0123456789abcdef.png", True),
        ("preview-art-0123456789abcdef.jpg", True),
        ("preview-unit-0123456789abcdeg.svg", False),
        ("preview-unit-0123.svg", False),
        ("preview-unit-0123456789abcdef.html", False),
        ("index.htm", False),
        ("notes.html", False),
    ],
)
def test_the_preview_files_are_owned_outputs(name: str, owned: bool) -> None:
    assert is_output_name("g", name) is owned


def test_the_build_findings_are_listed_with_their_places(games: Path, built: Path) -> None:
    from compiler.backends.preview.html import Sources
    from compiler.diagnostics import Finding, Location, Severity

    game = _game(games / "cards")
    place = Location(str(games / "cards" / "cards.yaml"), 7, 3)
    finding = Finding(
        "text-overflow", place, "card `x`: text cut", "shorten it", severity=Severity.WARNING
    )
    text = preview_build.findings_section([finding], Sources(game.root, built / "cards"), "en")
    page = Page(text)
    assert "(1)" in text and "text-overflow" in text and "card `x`: text cut" in text
    assert "shorten it" in text and 'class="warning"' in text
    assert page.links == ["../../../cards/cards.yaml"]
    assert "cards/cards.yaml:7" in text


def test_only_a_watched_page_loads_watch_js() -> None:
    """`build --watch` writes watch.js beside the page and the page loads it (to reload itself
    when a new build lands); a plain build's page names no file it does not have."""
    from compiler.backends.preview.html import page

    plain = page("T", "en", [("a", "A")], ["<p>body</p>"])
    watched = page("T", "en", [("a", "A")], ["<p>body</p>"], watched=True)
    assert "watch.js" not in plain
    assert '<script src="watch.js"></script>' in watched.split("</head>")[0]


@pytest.mark.parametrize("watched", [False, True])
def test_the_page_written_in_parts_is_the_page_encoded(watched: bool) -> None:
    """The page's bytes, its parts encoded one by one (html.page_bytes), are those of the
    whole page encoded: with a title beyond ASCII, and sections that are and are not."""
    from compiler.backends.preview.html import page, page_bytes

    body = ["<p>body</p>\n", "<p>Ü — 戦</p>\n", "", "<p>end</p>\n"]
    nav = [("a", "Ä"), ("b", "B")]
    whole = page("Krieg — 戦", "de", nav, body, watched).encode("utf-8")
    assert page_bytes("Krieg — 戦", "de", nav, body, watched) == whole
