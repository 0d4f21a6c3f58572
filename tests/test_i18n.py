"""The tool's own words: `tr` over the gettext catalogues, and the catalogues kept in step with
the code (scripts/update_catalogue.py)."""

from __future__ import annotations

import dataclasses
import fnmatch
import io
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from compiler.backends.art.cards import card_drawing, card_layout
from compiler.backends.art.counters import unit_drawing, unit_layout
from compiler.backends.art.display import Text as DrawnText
from compiler.backends.art.textfit import NO_LINE_END, NO_LINE_START, balanced, wrap
from compiler.i18n import LOCALE_DIR, catalogue_fingerprint, tr, tr_text
from compiler.load.aids import _sandbox, player_aids
from compiler.model.common import Text
from scripts import update_catalogue
from tests.conftest import REPO, seed_game

PO = LOCALE_DIR / "ja" / "LC_MESSAGES" / "countermix.po"
FIELD = re.compile(r"\{([^{}:]*)(?::[^{}]*)?\}|(\$\w+\$)")
"""A `{name}` field (filled in by tr) or a VASSAL `$property$` (filled in by VASSAL)."""


def test_english_is_the_msgid_itself() -> None:
    assert tr("Turn record track", "en") == "Turn record track"
    assert tr("no such message, never", "en") == "no such message, never"


def test_japanese_comes_from_the_compiled_catalogue() -> None:
    assert tr("Turn record track", "ja") == "ターン記録トラック"
    assert tr("Setup: {scenario}", "ja", scenario="自由配置") == "初期配置：自由配置"
    title = "{title} — sheet {sheet} of {sheets}, front"
    assert tr(title, "ja", title="ナポレオン", sheet=1, sheets=3) == "ナポレオン — シート 1/3（表）"
    assert tr(title, "en", title="Napoleon", sheet=1, sheets=3) == (
        "Napoleon — sheet 1 of 3, front"
    )


def test_a_message_without_translation_or_a_language_without_catalogue_is_english() -> None:
    assert tr("no such message, never", "ja") == "no such message, never"
    assert tr("Turn record track", "fr") == "Turn record track"
    assert tr("{title} (continued)", "fr", title="X") == "X (continued)"


def test_tr_text_holds_every_language_and_fills_text_fields_in_their_own() -> None:
    made = tr_text("Order of battle: {side}", side=Text("French", "フランス"))
    assert made == Text("Order of battle: French", "戦闘序列：フランス")
    assert tr_text("Order of battle: {side}", side=Text("Allies")).ja == "戦闘序列：Allies"


def test_catalogues_are_up_to_date() -> None:
    stale = update_catalogue.stale()
    assert not stale, f"run `python -m scripts.update_catalogue`: {stale} out of date"


def test_the_staleness_check_sees_a_new_msgid_and_an_old_mo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = update_catalogue.extract()
    locale = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR, locale)
    monkeypatch.setattr(update_catalogue, "LOCALE", locale)
    po = locale / "ja" / "LC_MESSAGES" / "countermix.po"
    text, compiled = update_catalogue.updated("ja", found)
    po.write_text(text, encoding="utf-8")
    po.with_suffix(".mo").write_bytes(compiled)
    assert update_catalogue.stale(found) == []
    found["A message added to the code but not to the catalogue"] = [("compiler/x.py", 1)]
    assert update_catalogue.stale(found) == [po]
    del found["A message added to the code but not to the catalogue"]
    empty = io.BytesIO()
    write_mo(empty, Catalog(locale="ja"))
    po.with_suffix(".mo").write_bytes(empty.getvalue())
    assert update_catalogue.stale(found) == [po.with_suffix(".mo")]


def test_every_msgid_is_translated_into_japanese() -> None:
    assert update_catalogue.missing("ja") == []


def _catalogue() -> list[tuple[str, str]]:
    with PO.open("rb") as po:
        return [(str(m.id), str(m.string)) for m in read_po(po) if m.id]


def test_translations_keep_the_fields_of_their_msgid() -> None:
    for msgid, msgstr in _catalogue():
        assert sorted(FIELD.findall(msgstr)) == sorted(FIELD.findall(msgid)), msgid


def test_japanese_translations_are_japanese() -> None:
    japanese = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")
    for msgid, msgstr in _catalogue():
        if re.search(r"[A-Za-z]{2}", FIELD.sub("", msgid)) and msgid != "Id":
            assert japanese.search(msgstr), f"{msgid!r} → {msgstr!r}"


def test_extraction_reads_code_and_templates(tmp_path: Path) -> None:
    (tmp_path / "compiler").mkdir()
    (tmp_path / "templates").mkdir()
    (tmp_path / "compiler" / "a.py").write_text(
        "X = N_('Marked')\n"
        "def f(lang, ctx, m):\n"
        "    return tr('Called', lang) + tr_text('Both').en + ctx.tr('Method') + tr(m, lang)\n",
        encoding="utf-8",
    )
    (tmp_path / "templates" / "t.yaml.j2").write_text(
        'a: {{ tr("In template {x}", x=1) | t }}\nb: {{ other("Not a message") }}\n',
        encoding="utf-8",
    )
    found = update_catalogue.extract(tmp_path)
    assert set(found) == {"Marked", "Called", "Both", "Method", "In template {x}"}
    assert found["Called"] == [("compiler/a.py", 3)]
    assert found["In template {x}"] == [("templates/t.yaml.j2", 1)]


def test_the_shipped_template_and_back_ends_are_extracted() -> None:
    found = update_catalogue.extract()
    for message in ("Turn record track", "Counters", "{title} — sheet index ({page}/{pages})"):
        assert message in found


def test_the_compiled_catalogues_ship_in_the_package() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = pyproject["tool"]["setuptools"]
    compiled = sorted(LOCALE_DIR.rglob("*.mo"))
    assert compiled
    for path in compiled:  # each catalogue folder is a data package shipping its .mo
        package = ".".join(path.parent.relative_to(REPO).parts)
        assert package in setuptools["packages"], package
        patterns = setuptools["package-data"].get(package, [])
        assert any(fnmatch.fnmatch(path.name, p) for p in patterns), path
    assert catalogue_fingerprint()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_player_aids_are_titled_in_both_languages(lang: str) -> None:
    charts, findings = player_aids(seed_game("napoleon"))
    assert not findings
    names = {c.id: c.name.get(lang) for c in charts}
    columns = {c.id: [col.label.get(lang) for col in c.columns] for c in charts}
    if lang == "ja":
        assert names["turn-track"] == "ターン記録トラック"
        assert columns["oob-french"][:2] == ["所属", "兵科"]
        assert any(n.startswith("初期配置：") for n in names.values())
    else:
        assert names["turn-track"] == "Turn record track"
        assert columns["oob-french"][:2] == ["Formation", "Type"]
        assert any(n.startswith("Setup: ") for n in names.values())


# ---- Japanese names on counters and cards --------------------------------------------------


def test_a_japanese_line_never_ends_with_an_opening_bracket() -> None:
    text = "あいうえおかきくけ（こさしすせそ）"
    for width in (0.3, 0.5, 0.8, 0.95, 1.05):
        lines = wrap(text, width, 0.1, False, "ja")
        assert "".join(lines) == text
        assert not any(line[-1] in NO_LINE_END for line in lines), lines
        assert not any(line[0] in NO_LINE_START for line in lines), lines


def test_a_two_line_japanese_name_breaks_evenly_and_keeps_katakana_words_whole() -> None:
    assert balanced("第1近衛歩兵師団", 0.45, 0.1, False, "ja") == ["第1近衛", "歩兵師団"]
    name = "ドイツ国防軍第二装甲師団所属ティーガー重戦車"
    lines = balanced(name, 1.5, 0.1, False, "ja")
    assert "".join(lines) == name and len(lines) == 2
    assert "ティーガー" in lines[1]
    assert balanced("シャーマン（ファイアフライ）", 0.9, 0.1, False, "ja")[1][0] == "（"
    assert balanced("第1近衛歩兵師団", 0.2, 0.1, False, "ja") == []


def _counter(name: str) -> tuple[list[str], tuple[str, ...]]:
    data = seed_game("twilight_in_the_east")
    unit = data.units[0]
    drawing = unit_drawing(data, dataclasses.replace(unit, name=Text("x", name)), "front", "ja")
    slot = next(s for s in unit_layout(data, unit).slots if s.show == "name")
    inside = [
        op.text
        for op in drawing.ops
        if isinstance(op, DrawnText) and slot.box[1] <= op.y <= slot.box[3]
    ]
    return inside, drawing.warnings


def test_a_long_japanese_counter_name_shrinks_then_takes_two_lines() -> None:
    assert _counter("第1近衛歩兵師団") == (["第1近衛歩兵師団"], ())
    lines, warnings = _counter("ナポレオン親衛隊擲弾兵第一連隊")
    assert "".join(lines) == "ナポレオン親衛隊擲弾兵第一連隊" and len(lines) == 2
    assert warnings == ()


def test_a_japanese_counter_name_too_long_for_two_lines_is_cut_with_a_warning() -> None:
    lines, warnings = _counter("アメリカ合衆国陸軍第一歩兵師団第二旅団第三大隊（増強）")
    assert len(lines) == 2 and lines[-1].endswith("…")
    assert len(warnings) == 1 and "does not fit the `name` slot" in warnings[0]


def _card(name: str) -> tuple[list[DrawnText], tuple[str, ...]]:
    data = seed_game("tank_killers")
    card = data.cards[0]
    drawing = card_drawing(data, dataclasses.replace(card, name=Text(name, name)), "ja")
    slot = next(s for s in card_layout(data, card.deck).slots if s.show == "name")
    inside = [op for op in drawing.ops if isinstance(op, DrawnText) and op.y <= slot.box[3] + 1e-9]
    return inside, drawing.warnings


def test_a_long_japanese_card_name_takes_two_lines_when_the_slot_allows() -> None:
    short, warnings = _card("M4シャーマン")
    assert [op.text for op in short] == ["M4シャーマン"] and warnings == ()
    name = "ドイツ国防軍第二装甲師団所属ティーガーI重戦車（エース車長搭乗）"
    lines, warnings = _card(name)
    assert "".join(op.text for op in lines) == name and len(lines) == 2
    assert warnings == ()
    assert lines[0].height == lines[1].height < short[0].height


def test_a_japanese_card_name_too_long_for_its_slot_is_cut_with_a_warning() -> None:
    lines, warnings = _card("ドイツ国防軍第二装甲師団所属ティーガーI重戦車" * 3)
    assert lines[-1].text.endswith("…")
    assert len(warnings) == 1 and "does not fit the `name` slot" in warnings[0]


def test_a_games_own_template_may_use_tr_in_the_sandbox() -> None:
    template = _sandbox().from_string('{{ tr("Setup: {scenario}", scenario=s) | t }}')
    assert template.render(s=Text("Free", "自由")) == (
        '{"en": "Setup: Free", "ja": "初期配置：自由"}'
    )
