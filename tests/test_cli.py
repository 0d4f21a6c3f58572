"""The command line: exit codes, text and JSON output, list, schema, help."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from compiler.cli import main
from compiler.load.game import data_files
from compiler.schema import schema
from tests.conftest import DATA, SOURCES, replace_in


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_clean_game_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["validate", str(DATA / "mini")], capsys)
    assert code == 0
    assert out.strip().startswith("mini: ok")


def test_findings_exit_one_with_compiler_style_text(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_in(mini / "scenarios" / "first.yaml", "fatigue: 0", "fatigue: 7")
    code, out, _ = run(["validate", str(mini)], capsys)
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(str(mini / "scenarios" / "first.yaml").lstrip("/")) or ":8:" in first
    assert "error[fatigue-range]" in first and "(rules §2.2)" in first
    assert "  hint: " in out and "^" in out
    assert "mini: 1 error(s)" in out


def test_duplicate_names_both_places(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_in(mini / "units.yaml", "id: r-inf-2,", "id: r-inf-1,")
    _, out, _ = run(["validate", str(mini)], capsys)
    assert "error[duplicate-id]" in out
    assert "note: `r-inf-1` is first defined here" in out


def test_json_format(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_in(mini / "scenarios" / "first.yaml", "fatigue: 0", "fatigue: 7")
    code, out, _ = run(["validate", "--format", "json", str(mini)], capsys)
    assert code == 1
    payload = json.loads(out)
    assert payload[0]["game"] == "mini"
    (finding,) = payload[0]["findings"]
    assert finding["rule"] == "fatigue-range" and finding["line"] == 8
    assert finding["file"].endswith("scenarios/first.yaml") and finding["reference"] == "2.2"


def test_usage_errors_exit_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["validate", "--sources", "/nonexistent"], capsys)[0] == 2
    with pytest.raises(SystemExit) as raised:
        main(["frobnicate"])
    assert raised.value.code == 2


def test_list_shows_scenarios_and_turns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["list", "--sources", str(DATA)], capsys)
    assert code == 0
    assert "mini  Mini War / ミニ戦争" in out
    assert "scenario first  [AAA] First Clash  turns 1–3" in out


@pytest.mark.parametrize("command", [[], ["validate"], ["list"], ["schema"]])
def test_help_everywhere(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main([*command, "--help"])
    assert raised.value.code == 0
    assert "usage: countermix" in capsys.readouterr().out


def test_schema_written_to_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "schema.json"
    assert run(["schema", "-o", str(target)], capsys)[0] == 0
    assert json.loads(target.read_text(encoding="utf-8")) == schema()


def _all_data_files() -> list[Path]:
    games = [DATA / "mini", *sorted(p for p in SOURCES.iterdir() if p.is_dir())]
    return [path for game in games for path in data_files(game)]


@pytest.mark.parametrize("path", _all_data_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_schema_accepts_every_data_file(path: Path) -> None:
    """The JSON Schema an editor uses agrees with the loader on every real data file."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.validate(document, schema())


def test_schema_rejects_an_unknown_key() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"units": [{"id": "a", "nme": "x"}]}, schema())


@pytest.mark.parametrize("images", ["svg", "png"])
def test_build_puts_piece_faces_in_the_chosen_format(
    images: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import zipfile

    code, out, _ = run(
        ["build", str(DATA / "mini"), "--out", str(tmp_path), "--piece-images", images], capsys
    )
    assert code == 0, out
    modules = sorted(tmp_path.glob("*/*.vmod"))  # a series: one module per title
    assert [m.name for m in modules] == ["mini-aaa.vmod", "mini-bbb.vmod"]
    names = [name for vmod in modules for name in zipfile.ZipFile(vmod).namelist()]
    units = [n for n in names if n.startswith("images/unit-")]
    assert units and all(n.endswith(f".{images}") for n in units)
    assert any(n.startswith("images/board-") and n.endswith(".png") for n in names)


def test_a_folder_of_games_is_read_as_games_not_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "my-games"
    for name in ("alpha", "beta"):
        shutil.copytree(DATA / "mini", games / name)
        replace_in(games / name / "game.yaml", "id: mini", f"id: {name}")
    code, out, _ = run(["validate", str(games)], capsys)
    assert code == 0, out
    assert out.splitlines() == [
        line for line in out.splitlines() if line.startswith(("alpha: ok", "beta: ok"))
    ]
    assert len(out.splitlines()) == 2


def test_undeclared_values_are_errors_even_when_the_game_declares_none(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game_file = mini / "game.yaml"
    text = game_file.read_text(encoding="utf-8")
    start = text.index("  values:\n")
    end = text.index("  terrain:\n")
    game_file.write_text(text[:start] + text[end:], encoding="utf-8")
    code, out, _ = run(["validate", str(mini)], capsys)
    assert code == 1
    assert "error[unknown-value]: value `strength` is not declared" in out


def test_validate_reports_the_text_that_the_build_will_shorten(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "Extraordinarily Overlong Provisional Division of the Line " * 3
    replace_in(mini / "units.yaml", "2nd Infantry,", f"{long.strip()},")
    code, out, _ = run(["validate", str(mini)], capsys)
    assert code == 0  # a warning, not an error
    warned = [line for line in out.splitlines() if "warning[text-overflow]" in line]
    assert len(warned) == 1 and "unit `b-inf-2`" in warned[0]
    assert warned[0].startswith(f"{mini / 'units.yaml'}:".lstrip("/")) or "units.yaml:" in warned[0]
    code, out, _ = run(["build", str(mini), "--out", str(tmp_path / "out")], capsys)
    assert code == 0
    assert [line for line in out.splitlines() if "warning[text-overflow]" in line] == warned


@pytest.mark.parametrize(
    ("file", "old", "new", "rule"),
    [
        (
            "game.yaml",
            "    max_manpower: 18\n",
            "    max_manpower: 18\n  print: {counter_size: 7/8in}\n",
            "print-settings",
        ),
        (
            "map.yaml",
            "    kind: hex\n",
            "    kind: hex\n    art: {image: board.png}\n",
            "board-image",
        ),
    ],
)
def test_validate_reports_what_the_build_would_refuse(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    file: str,
    old: str,
    new: str,
    rule: str,
) -> None:
    replace_in(mini / file, old, new)
    code, out, _ = run(["validate", str(mini)], capsys)
    assert code == 1 and f"error[{rule}]" in out
    code, built, _ = run(["build", str(mini), "--out", str(tmp_path / "out")], capsys)
    assert code == 1 and f"error[{rule}]" in built
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("slot", "key"),
    [
        ("{show: name, box: [0.05, 0.48, 0.95, 0.7], size: 0.15, min_size: 0}", "min_size"),
        ("{show: name, box: [0.05, 0.48, 0.95, 0.7], size: 1e308}", "size"),
        ("{show: name, box: [0.05, 0.48, 0.95, 0.7], size: -1}", "size"),
        ("{show: name, box: [0.9, 0.48, 0.1, 0.7], size: 0.15}", "box"),
    ],
)
def test_a_layout_slot_that_cannot_be_laid_out_is_an_error_at_once(
    mini: Path, capsys: pytest.CaptureFixture[str], slot: str, key: str
) -> None:
    own = f"layouts:\n  - id: standard-counter\n    name: Mine\n    kind: counter\n    slots:\n      - {slot}\n"
    (mini / "layouts.yaml").write_text(own, encoding="utf-8")
    code, out, _ = run(["validate", str(mini)], capsys)
    assert code == 1 and out.count("error[layout-slot]") == 1, out
    assert "layouts.yaml:6:" in out and "in the `name` slot" in out


def test_a_game_with_its_data_in_subfolders_is_one_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "split"
    shutil.copytree(DATA / "mini", game / "data")
    (game / "data" / "units.yaml").rename(tmp_path / "units.yaml")
    (game / "units").mkdir()
    (tmp_path / "units.yaml").rename(game / "units" / "units.yaml")
    code, out, _ = run(["validate", str(game)], capsys)
    assert code == 0, out
    assert out.strip().splitlines() == [
        line for line in out.strip().splitlines() if line.startswith("split: ok")
    ]


def test_validate_untranslated_lists_a_translators_work_on_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Texts the module shows without Japanese: one warning per game with `--untranslated`
    (napoleon's formation and unit names), none without (the seed games build clean)."""
    code, out, _ = run(["validate", str(SOURCES / "napoleon"), "--untranslated"], capsys)
    assert code == 0 and out.count("warning[untranslated-text]") == 1, out
    assert "have no Japanese" in out and "napoleon/units.yaml:" in out
    code, out, _ = run(["validate", str(SOURCES / "napoleon")], capsys)
    assert code == 0 and "untranslated-text" not in out
    code, out, _ = run(["validate", str(SOURCES / "tank_killers"), "--untranslated"], capsys)
    assert code == 0 and "untranslated-text" not in out  # every text has its Japanese


def test_a_build_runs_without_the_cyclic_collector_and_gives_it_back(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`build` pauses Python's cyclic garbage collector while it builds (reference counting
    frees what it makes) and leaves it as it found it."""
    import gc

    from compiler import pipeline

    seen: list[bool] = []
    real = pipeline.build_games

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        yield from real(*args, **kwargs)
        seen.append(gc.isenabled())

    monkeypatch.setattr(pipeline, "build_games", spy)
    assert gc.isenabled()
    assert main(["build", str(mini), "--out", str(tmp_path / "out"), "-q"]) == 0
    capsys.readouterr()
    assert seen == [False, False]
    assert gc.isenabled()
