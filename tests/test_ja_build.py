"""Every seed game built in Japanese: no warning, and no tool word left in English on any sheet,
chart or player aid (text read back from the PDFs with poppler's pdftotext) or in the preview
page. A tool word is a msgid of the catalogue whose Japanese differs from it."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from compiler.i18n import LOCALE_DIR
from tests.conftest import REPO

pytestmark = pytest.mark.slow

NUMBER = r"[\d.,/–-]+"
SHAPES = {
    **dict.fromkeys(("sheet", "sheets", "page", "pages", "row", "columns", "count"), NUMBER),
    **dict.fromkeys(("turn", "x", "y", "n"), NUMBER),
    "dice": r"\d*[dD]\d+(?:[+-]\d+)?",
}
"""What a field stands for where a message is used, when not any short text."""
FIELD = re.compile(r"\{([^{}:]*)(?::[^{}]*)?\}")


@cache
def tool_words() -> list[tuple[str, re.Pattern[str]]]:
    """Each translated msgid with enough English in it to be told apart from the data, as a
    pattern: its fields match a number (numeric ones) or a short run of text; a one-word msgid
    (a heading, a label) matches a whole line, so a place named `Front Royal` is not `Front`."""
    with (LOCALE_DIR / "ja" / "LC_MESSAGES" / "countermix.po").open("rb") as po:
        messages = [(str(m.id), str(m.string)) for m in read_po(po) if m.id]
    out = []
    for msgid, msgstr in messages:
        literal = FIELD.sub("", msgid)
        if not msgstr or msgstr == msgid or len(re.findall(r"[A-Za-z]", literal)) < 3:
            continue
        pattern, at = "", 0
        for field in FIELD.finditer(msgid):
            pattern += re.escape(msgid[at : field.start()])
            pattern += SHAPES.get(field.group(1), r"[^\n]{1,80}?")
            at = field.end()
        pattern += re.escape(msgid[at:])
        if re.fullmatch(r"[A-Za-z]+", msgid):  # one word: a heading or label, on its own line
            out.append((msgid, re.compile(r"^[ \t]*" + pattern + r"[ \t]*$", re.MULTILINE)))
        else:
            out.append((msgid, re.compile(r"(?<![A-Za-z])" + pattern + r"(?![A-Za-z])")))
    return out


def english_tool_words(text: str) -> list[str]:
    return [msgid for msgid, pattern in tool_words() if pattern.search(text)]


def test_the_check_sees_english_tool_words() -> None:
    assert english_tool_words("ナポレオン — block labels — sheet 1 of 1, front") == [
        "{title} — block labels",
        "{title} — sheet {sheet} of {sheets}, front",
    ]
    assert english_tool_words("Turn record track\n") == ["Turn record track"]
    assert english_tool_words("ナポレオン — ブロックラベル — シート 1/1（表）") == []
    assert english_tool_words("Turner, Robinson V Corps") == []
    assert english_tool_words("Roll a die before the attack") == []
    assert english_tool_words("Front Royal (N2922)\nnight\n") == ["night"]
    assert english_tool_words("Roll 2d6") == ["Roll {dice}"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("ja")
    result = subprocess.run(
        [sys.executable, "-m", "compiler", "build", "sources", "--lang", "ja", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out, result.stdout + result.stderr


def test_every_seed_game_builds_in_japanese_without_a_warning(built: tuple[Path, str]) -> None:
    out, output = built
    assert not re.search(r"\b(warning|error)\b", output), output
    assert {p.name for p in out.iterdir() if p.is_dir()} >= {
        p.name for p in (REPO / "sources").iterdir() if (p / "game.yaml").is_file()
    }


def test_no_tool_word_is_left_in_english(built: tuple[Path, str]) -> None:
    assert shutil.which("pdftotext"), "install poppler-utils (scripts/setup.sh test does)"
    out, _ = built
    pdfs = sorted(out.rglob("*.pdf"))
    assert pdfs
    left: dict[str, list[str]] = {}
    for pdf in pdfs:
        text = subprocess.run(
            ["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        found = english_tool_words(text)
        if found:
            left[str(pdf.relative_to(out))] = found
    for page in sorted(out.rglob("index.html")):
        text = html.unescape(re.sub(r"<[^>]*>", "\n", page.read_text(encoding="utf-8")))
        found = english_tool_words(text)
        if found:
            left[str(page.relative_to(out))] = found
    assert not left, left
