"""The fonts a build needs are checked before anything is drawn: the Japanese font only for a
Japanese build or a game with CJK text (the texts are read only when that font is missing)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from compiler.backends.art import fonts
from compiler.load.game import load_game
from compiler.pipeline import font_problems
from tests.conftest import replace_in


@pytest.mark.parametrize(
    ("lang", "japanese_name", "missing"),
    [
        ("en", False, []),
        ("en", True, ["missing-font"]),
        ("ja", False, ["missing-font"]),
    ],
)
def test_the_japanese_font_is_needed_by_japanese_text_only(
    mini: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lang: str,
    japanese_name: bool,
    missing: list[str],
) -> None:
    if japanese_name:
        replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 第二歩兵,")
    game = load_game(mini).game
    assert game is not None
    assert font_problems(game, lang) == []  # every font installed
    gone = dataclasses.replace(fonts.JAPANESE, file="no-such-font.ttf")
    monkeypatch.setattr(fonts, "JAPANESE", gone)
    monkeypatch.setenv("COUNTERMIX_FONTS", str(tmp_path))
    assert [finding.rule for finding in font_problems(game, lang)] == missing
