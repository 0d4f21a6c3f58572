"""`countermix import-save`: saves back into scenarios.

The round trip without the engine: every scenario of every seed game, saved by the module
countermix builds, imports to an equal scenario (same placements and states; entry order and
formatting may differ). The saves VASSAL itself writes are imported in
tests/test_vassal_roundtrip.py. Here also: the three forms of a command stream, refusals
(exit 2, nothing written) and findings (exit 1, nothing written)."""

from __future__ import annotations

import html
import io
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from compiler.backends.vassal.module import build_module
from compiler.cli import main
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.rules.context import scenario_view
from compiler.sequence import ESC, join, split
from tests.conftest import DATA, SOURCES

GAMES = [DATA / "mini", *sorted(p for p in SOURCES.iterdir() if p.is_dir())]
Placed = tuple[str, str, str, int | None, tuple[tuple[str, str], ...], int, str, str]


def placements(game: GameData, scenario_id: str) -> Counter[Placed]:
    """A scenario as the multiset of its placements: piece, place, face, steps, state, turn,
    note, attachment (entry order and grouping do not count)."""
    scenario = next(s for s in game.scenarios if s.id == scenario_id)
    view = scenario_view(game, scenario)
    out: Counter[Placed] = Counter()
    for p in [*view.setup, *view.arrivals]:
        state = tuple(sorted((k, repr(v)) for k, v in p.state.items()))
        attached = str(getattr(p.entry, "attached_to", ""))
        out[(p.piece_id, p.at, p.face, p.steps, state, p.turn, p.entry.note, attached)] += 1
    return out


def load(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None
    return game


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every game's module, built once."""
    out = tmp_path_factory.mktemp("modules")
    return {
        folder.name: build_module(with_aids(load(folder))[0], out / folder.name) for folder in GAMES
    }


def embedded_save(vmod: Path, scenario_id: str, target: Path) -> Path:
    with zipfile.ZipFile(vmod) as archive:
        target.write_bytes(archive.read(f"{scenario_id}.vsav"))
    return target


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


CASES = [
    (folder, scenario.id)
    for folder in GAMES
    for scenario in load(folder).scenarios
    if scenario.setup or scenario.reinforcements
]


@pytest.mark.parametrize(("folder", "scenario_id"), CASES, ids=[f"{f.name}-{s}" for f, s in CASES])
def test_every_scenario_comes_back_equal_from_its_save(
    folder: Path,
    scenario_id: str,
    built: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    game_folder = shutil.copytree(folder, tmp_path / folder.name)
    save = embedded_save(built[folder.name], scenario_id, tmp_path / "set-up.vsav")
    new_id = f"{scenario_id}-imported"
    code, out, _ = run(
        ["import-save", str(game_folder), str(save), "--scenario", new_id, "--like", scenario_id],
        capsys,
    )
    assert code == 0, out
    game = load(game_folder)
    assert placements(game, new_id) == placements(game, scenario_id)


def _rewrite_saved_game(save: Path, change: object) -> Path:
    """The save with its savedGame entry replaced by change(text) (bytes)."""
    with zipfile.ZipFile(save) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    assert callable(change)
    entries["savedGame"] = change(entries["savedGame"].decode("utf-8"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    out = save.with_name(f"changed-{save.name}")
    out.write_bytes(buffer.getvalue())
    return out


def obfuscated(text: str, key: int = 0x5D) -> bytes:
    """VASSAL's `!VCSK` form (tools/io/ObfuscatingOutputStream), with an upper-case key."""
    data = text.encode("utf-8")
    return b"!VCSK" + f"{key:02X}".encode() + "".join(f"{b ^ key:02x}" for b in data).encode()


def nested(text: str) -> bytes:
    """As VASSAL 3.6/3.7 write it: begin_save, an empty command, then the rest as one nested
    list (each command escaped once more), then end_save."""
    commands = text.split(ESC)
    inner = join(commands[1:-1], ESC)
    return join(["begin_save", "", inner, "end_save"], ESC).encode("utf-8")


@pytest.mark.parametrize(
    "form",
    [
        lambda text: text.encode("utf-8"),
        obfuscated,
        lambda text: b"!VCSK" + obfuscated(text)[5:].upper(),
        nested,
        lambda text: obfuscated(nested(text).decode("utf-8")),
    ],
    ids=["plain", "obfuscated", "obfuscated-upper-case", "nested", "nested-obfuscated"],
)
def test_each_form_of_the_command_stream_reads_the_same(
    form: object, built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shutil.copytree(SOURCES / "napoleon", tmp_path / "napoleon")
    save = _rewrite_saved_game(
        embedded_save(built["napoleon"], "historical", tmp_path / "s.vsav"), form
    )
    code, out, err = run(
        ["import-save", str(folder), str(save), "--scenario", "again", "--like", "historical"],
        capsys,
    )
    assert code == 0, out + err
    game = load(folder)
    assert placements(game, "again") == placements(game, "historical")


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


REFUSED = {
    "not-a-zip": (b"hello, this is text", "is not a zip archive"),
    "empty": (b"", "is not a zip archive"),
    "no-saved-game": (_zip({"moduledata": b"<data/>"}), "has no `savedGame` entry"),
    "foreign-stream": (_zip({"savedGame": b"hello"}), "does not run from begin_save"),
    "bad-obfuscation": (_zip({"savedGame": b"!VCSKzz0102"}), "obfuscated command stream"),
    "not-utf8": (_zip({"savedGame": b"\xff\xfe\x00"}), "not UTF-8"),
    "other-module": (
        _zip(
            {
                "savedGame": f"begin_save{ESC}end_save".encode(),
                "moduledata": b"<data><name>Another Game</name></data>",
            }
        ),
        "is a save of the module `Another Game`",
    ),
    "entity-bomb": (
        _zip(
            {
                "savedGame": f"begin_save{ESC}end_save".encode(),
                "moduledata": b'<!DOCTYPE d [<!ENTITY a "aaaa">]><data><name>&a;</name></data>',
            }
        ),
        "declares XML entities",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_file_that_is_not_a_save_of_this_game_is_refused(
    case: str, built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, says = REFUSED[case]
    folder = shutil.copytree(SOURCES / "napoleon", tmp_path / "napoleon")
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    save = tmp_path / "bad.vsav"
    save.write_bytes(data)
    code, out, err = run(["import-save", str(folder), str(save), "--scenario", "x"], capsys)
    assert code == 2 and says in err and "Traceback" not in err, err
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before


def test_a_truncated_save_is_refused(
    built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shutil.copytree(SOURCES / "napoleon", tmp_path / "napoleon")
    whole = embedded_save(built["napoleon"], "historical", tmp_path / "whole.vsav").read_bytes()
    for cut in (len(whole) // 3, len(whole) - 30):
        save = tmp_path / "cut.vsav"
        save.write_bytes(whole[:cut])
        code, _, err = run(["import-save", str(folder), str(save), "--scenario", "x"], capsys)
        assert code == 2 and err.startswith("countermix: ") and len(err.splitlines()) == 1
    assert not (folder / "scenarios" / "x.yaml").exists()


def test_pieces_the_game_cannot_hold_are_findings_and_nothing_is_written(
    built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shutil.copytree(SOURCES / "napoleon", tmp_path / "napoleon")
    save = embedded_save(built["napoleon"], "historical", tmp_path / "s.vsav")

    def break_two_pieces(text: str) -> bytes:
        # the first piece known neither by its properties, nor its gpid, nor its name
        text = text.replace("br-picton,british", "nobody,british", 1).replace(
            ";446227976;", ";1;", 1
        )
        text = text.replace("5th Division - Picton", "A Stranger", 1)
        # the stack of the seventh piece on a map the game does not have
        text = text.replace("Southern Belgium and Northern France 1815;910;", "Elsewhere;910;")
        return text.encode()

    code, out, _ = run(
        [
            "import-save",
            str(folder),
            str(_rewrite_saved_game(save, break_two_pieces)),
            "--scenario",
            "x",
            "--like",
            "historical",
        ],
        capsys,
    )
    assert code == 1
    assert "error[import-unknown-piece]: piece `A Stranger` (gpid 1)" in out
    assert "error[import-off-location]: `" in out and "lies on `Elsewhere`" in out, out
    assert "not imported" in out and "nothing written" in out
    assert not (folder / "scenarios" / "x.yaml").exists()


def test_an_existing_scenario_is_replaced_only_when_asked_and_the_rest_of_its_file_is_kept(
    built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shutil.copytree(SOURCES / "gcacw", tmp_path / "gcacw")
    data_file = folder / "rtg" / "scenarios.yaml"
    before = data_file.read_text(encoding="utf-8")
    other = load(folder)
    save = embedded_save(built["gcacw"], "rtg-gettysburg", tmp_path / "s.vsav")
    args = ["import-save", str(folder), str(save), "--scenario", "rtg-gettysburg"]
    code, _, err = run(args, capsys)
    assert code == 2 and "add --replace" in err
    assert data_file.read_text(encoding="utf-8") == before
    code, out, _ = run([*args, "--replace"], capsys)
    assert code == 0 and f"replaced {data_file}" in out, out
    after = data_file.read_text(encoding="utf-8")
    assert after.splitlines()[:3] == before.splitlines()[:3]  # the file's header comment
    game = load(folder)
    for scenario in other.scenarios:
        assert placements(game, scenario.id) == placements(other, scenario.id)
    assert [s.id for s in game.scenarios] == [s.id for s in other.scenarios]


def test_a_series_needs_the_title_of_a_new_scenario(
    built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shutil.copytree(SOURCES / "gcacw", tmp_path / "gcacw")
    save = embedded_save(built["gcacw"], "otr-gaines-mill", tmp_path / "s.vsav")
    code, _, err = run(["import-save", str(folder), str(save), "--scenario", "mine"], capsys)
    assert code == 2 and "--title" in err
    code, out, _ = run(
        ["import-save", str(folder), str(save), "--scenario", "mine", "--title", "OTR"], capsys
    )
    assert code == 0, out
    assert (folder / "otr" / "scenarios" / "mine.yaml").is_file()


def test_a_marker_put_on_a_unit_in_vassal_is_its_state_where_the_data_says_so(
    built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GCACW: a fatigue marker (marker kind `fatigue`, a declared value) dragged from the
    palette onto a unit reads back as `state: {fatigue: 3}` of the unit beneath it."""
    folder = shutil.copytree(SOURCES / "gcacw", tmp_path / "gcacw")
    save = embedded_save(built["gcacw"], "otr-gaines-mill", tmp_path / "s.vsav")
    with zipfile.ZipFile(built["gcacw"]) as archive:
        build_file = archive.read("buildFile.xml").decode("utf-8")
    slot = next(
        line for line in build_file.split("<VASSAL.build.widget.PieceSlot")[1:]
        if "fatigue-3," in line
    )  # fmt: skip
    slot_text = html.unescape(slot.split(">", 1)[1].split("</VASSAL.build.widget.PieceSlot", 1)[0])
    marker_type, marker_state = split(slot_text[len("+/null/") :], "/")[:2]

    def fatigue_on_morell(text: str) -> bytes:
        commands = text.split(ESC)
        stack = next(i for i, c in enumerate(commands) if "/stack/" in c)
        fields = split(commands[stack], ";")
        commands.insert(stack, "+/" + join(["3000001", marker_type, marker_state], "/"))
        commands[stack + 1] = join([*fields[:-1], "3000001", fields[-1]], ";")
        return ESC.join(commands).encode("utf-8")

    changed = _rewrite_saved_game(save, fatigue_on_morell)
    code, out, _ = run(
        [
            "import-save",
            str(folder),
            str(changed),
            "--scenario",
            "tired",
            "--like",
            "otr-gaines-mill",
        ],
        capsys,
    )
    assert code in (0, 1) and "wrote" in out, out
    game = load(folder)
    tired, before = placements(game, "tired"), placements(game, "otr-gaines-mill")
    changed_pieces = {p[0] for p in (tired - before) + (before - tired)}
    assert len(changed_pieces) == 1
    (piece,) = changed_pieces
    state = dict(next(p for p in tired if p[0] == piece)[4])
    assert state["fatigue"] == "3"
    assert not any(p[0].startswith("fatigue") for p in tired)
