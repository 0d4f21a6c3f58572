"""Card text on the face: abilities (bold) and rules text wrapped into the `text` slot, shrunk
down to its min_size, cut and reported as `text-overflow` past that; Japanese wraps between
characters. The drawing is the one the module's faces and the print sheets are made from."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from PIL import Image

from compiler.backends.art.cards import card_drawing, card_face, card_layout
from compiler.backends.art.display import Rect, Text
from compiler.backends.art.fonts import text_width
from compiler.backends.art.raster import rasterize
from compiler.backends.art.textfit import NO_LINE_START, wrap
from compiler.model.cards import Card
from compiler.model.common import NO_TEXT
from compiler.model.common import Text as Words
from compiler.model.gamedata import GameData
from compiler.pipeline import check_game
from tests.conftest import seed_game
from tests.goldens import check_golden

SOURCES = Path(__file__).parent.parent / "sources"
GOLDEN = Path(__file__).parent / "golden" / "art"
PANEL_TOP = 0.47
"""Where the standard card's text slot starts (the lower half of the face)."""


def game() -> GameData:
    return seed_game("tank_killers")


def card(card_id: str) -> Card:
    return next(c for c in game().cards if c.id == card_id)


def text_slot(data: GameData, of: Card) -> tuple[float, float]:
    """The standard card's text slot: its size and min_size."""
    slot = next(s for s in card_layout(data, of.deck).slots if s.show == "text")
    return slot.size, slot.min_size


def body(of: Card, lang: str = "en") -> list[Text]:
    """The text items drawn in the card's text area (below its value boxes), top to bottom."""
    drawing = card_drawing(game(), of, lang)
    boxes = [op.box[3] for op in drawing.ops if isinstance(op, Rect) and op.box[3] < 0.5]
    top = max(boxes, default=0.19)  # under the category line
    return sorted(
        (op for op in drawing.ops if isinstance(op, Text) and op.y > top), key=lambda op: op.y
    )


def joined(lines: list[Text]) -> str:
    return " ".join(" ".join(op.text for op in lines).split())


# -- a card with text shows its text ----------------------------------------------------------


@pytest.mark.parametrize(
    ("card_id", "abilities", "phrase"),
    [
        ("t48-fast-turret-traverse", ["Same unit", "Anglos only"], "another attack phase"),
        ("t07-underside-hit", ["Not usable by support"], "One Hit card per attack"),
        ("de-panther", [], "modified Pen (or Inf) is at least its Def"),
        ("us-b-25-mitchells", ["Support"], "goes to the Reserve pile"),
        ("t65-counter-attack", [], "the active player's turn ends"),
    ],
)
def test_a_card_shows_its_abilities_in_bold_then_its_text(
    card_id: str, abilities: list[str], phrase: str
) -> None:
    lines = body(card(card_id))
    bold = [op.text for op in lines if op.bold]
    assert bold == abilities
    assert all(op.bold for op in lines[: len(abilities)])  # abilities come first
    text = card(card_id).text.en
    assert joined([op for op in lines if not op.bold]) == " ".join(text.split())
    assert phrase in joined(lines)
    assert len(lines) > 2  # wrapped, not one long line


def test_every_seed_card_prints_its_words_whole_in_both_languages() -> None:
    data = game()
    for lang in ("en", "ja"):
        for each in data.cards:
            drawing = card_drawing(data, each, lang)
            assert drawing.warnings == (), (each.id, lang, drawing.warnings)
    assert all(each.text.en and each.text.ja for each in data.cards)
    assert sum(1 for each in data.cards if each.abilities) == 45


def ink_below(image: Image.Image, top: float) -> int:
    """Dark pixels of the panel below `top` (a share of the height), inside the frame."""
    grey = image.convert("L")
    width, height = grey.size
    box = (round(width * 0.1), round(height * top), round(width * 0.9), round(height * 0.95))
    return sum(grey.crop(box).point(lambda v: 255 if v < 128 else 0).histogram()[255:])


@pytest.mark.parametrize("card_id", ["de-pzivh", "t22-commander-killed", "us-m10"])
def test_the_lower_half_of_the_face_has_ink_only_with_text(card_id: str) -> None:
    with_text = card(card_id)
    bare = dataclasses.replace(with_text, text=NO_TEXT, abilities=())
    inked = ink_below(card_face(game(), with_text, 300, 420), 0.55)
    empty = ink_below(card_face(game(), bare, 300, 420), 0.55)
    assert empty == 0
    assert inked > 400  # a few lines of text at least


# -- long text shrinks, then is cut and reported ------------------------------------------------

SENTENCE = "Attack again with the same unit after any attack phase. "


@pytest.mark.parametrize(
    ("repeats", "shrunk", "warned"),
    [(1, False, False), (8, True, False), (40, True, True)],
)
def test_long_text_shrinks_to_the_minimum_then_warns(
    repeats: int, shrunk: bool, warned: bool
) -> None:
    data = game()
    base = card("de-panther")
    long = dataclasses.replace(base, text=Words((SENTENCE * repeats).strip()), abilities=())
    drawing = card_drawing(data, long)
    lines = body(long)
    size, min_size = text_slot(data, long)
    height = lines[0].height
    assert (height < size) == shrunk
    assert height >= min_size - 1e-9
    assert bool(drawing.warnings) == warned
    if warned:
        assert height == pytest.approx(min_size)
        assert lines[-1].text.endswith("…")
        assert "text of card `de-panther` does not fit the `text` slot" in drawing.warnings[0]
        assert lines[-1].y + height / 2 <= 0.95 + 1e-6  # cut inside the panel, not below it
    else:
        assert joined(lines) == " ".join(long.text.en.split())


def test_a_card_whose_text_does_not_fit_is_a_text_overflow_warning(tmp_path: Path) -> None:
    folder = tmp_path / "tank_killers"
    shutil.copytree(SOURCES / "tank_killers", folder)
    path = folder / "cards-german.yaml"
    source = path.read_text(encoding="utf-8")
    old = 'text: {en: "Medium tank (MT)\\n'
    assert old in source
    path.write_text(source.replace(old, f'text: {{en: "{SENTENCE * 40}\\n', 1), encoding="utf-8")
    report = check_game(folder, build_lang="en")
    found = [f for f in report.findings if f.rule == "text-overflow"]
    assert len(found) == 1, [f.message for f in found]
    assert "card `de-pzivh`" in found[0].message
    assert found[0].location.path.endswith("cards-german.yaml")


# -- Japanese ---------------------------------------------------------------------------------


def test_japanese_text_wraps_between_characters_and_keeps_every_character() -> None:
    each = card("us-b-25-mitchells")
    lines = body(each, "ja")
    text = [op for op in lines if not op.bold]
    assert len(text) >= 6
    assert "".join(op.text for op in text) == each.text.ja.replace("\n", "")
    width = card_layout(game(), each.deck).width * (0.92 - 0.08)
    for op in text:
        assert " " not in op.text
        assert text_width(op.text, op.height, False, "ja") <= width + 1e-9
        assert op.text[0] not in NO_LINE_START, op.text


@pytest.mark.parametrize(
    ("text", "width", "lines"),
    [
        ("攻撃側の修正後の貫徹値が防御値以上なら破壊される。", 0.3, None),
        ("あいうえおかきくけ。さしすせそ", 0.46, ["あいうえおかきく", "け。さしすせそ"]),
    ],
)
def test_japanese_wrap_breaks_anywhere_but_before_closing_punctuation(
    text: str, width: float, lines: list[str] | None
) -> None:
    wrapped = wrap(text, width, 0.05, False, "ja")
    assert "".join(wrapped) == text
    assert len(wrapped) > 1
    assert all(line[0] not in NO_LINE_START for line in wrapped)
    if lines is not None:
        assert wrapped == lines


# -- golden ---------------------------------------------------------------------------------


def test_japanese_tactics_card_matches_its_golden() -> None:
    image = rasterize(card_drawing(game(), card("t48-fast-turret-traverse"), "ja"), 256)
    check_golden(GOLDEN, "tank-killers-card-text-ja", image)
