"""Hostile input (issue 10): links out of the game folder, devices, pipes, unreadable files and
folders, binary bytes, board-art paths that leave the game. Each is one finding, first, naming
the broken file; nothing hangs, nothing eats memory, no raw byte reaches the terminal.

Tests run as root in CI, where chmod 000 does not stop a read: "unreadable" is simulated by
making the open or the listing call fail, and the chmod variants run only for other users.
"""

from __future__ import annotations

import io
import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compiler.cli import main
from compiler.diagnostics import Finding, Location, printable, render_text
from compiler.load import yamlread
from compiler.load.game import load_game, scan_data_files
from compiler.load.yamlread import read_yaml
from compiler.pipeline import check_game
from tests.conftest import REPO, SOURCES, line_of

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def napoleon(tmp_path: Path) -> Path:
    """A fresh copy of the seed game napoleon (clean: `validate` says ok)."""
    target = tmp_path / "napoleon"
    shutil.copytree(SOURCES / "napoleon", target)
    return target


def only_finding(folder: Path, path: Path, rule: str) -> Finding:
    """The game's findings are exactly one, of `rule`, naming `path`."""
    findings = check_game(folder).findings
    assert [(f.rule, f.location.path) for f in findings] == [(rule, str(path))], [
        render_text(f) for f in findings
    ]
    return findings[0]


def _limits() -> None:  # pragma: no cover - runs in the child
    cap = 3 * 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def validate_in_child(folder: Path) -> subprocess.CompletedProcess[str]:
    """`countermix validate folder` in a child with 3 GiB of address space and a minute: a
    read of /dev/zero or a wait on a pipe fails the test instead of the machine."""
    return subprocess.run(
        [sys.executable, "-m", "compiler", "validate", str(folder)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
        preexec_fn=_limits,
    )


# -- the table of issue 10, one test per input ---------------------------------------------------
def test_symlink_to_dev_zero_is_a_finding_not_followed(napoleon: Path) -> None:
    units = napoleon / "units.yaml"
    units.unlink()
    units.symlink_to("/dev/zero")
    child = validate_in_child(napoleon)
    assert child.returncode == 1, child.stdout + child.stderr
    assert "Traceback" not in child.stdout + child.stderr
    assert child.stdout.count("error[") == 1
    assert "error[file-unreadable]" in child.stdout and "/dev/zero" in child.stdout
    finding = only_finding(napoleon, units, "file-unreadable")
    assert "outside the game folder" in finding.message


def test_symlink_out_of_the_game_is_not_read(napoleon: Path, tmp_path: Path) -> None:
    """A link to a readable YAML file elsewhere is refused too (not only devices)."""
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("units: []\n", encoding="utf-8")
    link = napoleon / "extra.yaml"
    link.symlink_to(outside)
    finding = only_finding(napoleon, link, "file-unreadable")
    assert str(outside) in finding.message
    assert "units: []" not in render_text(finding)


def test_symlink_inside_the_game_is_followed(napoleon: Path) -> None:
    store = napoleon / ".store"
    store.mkdir()
    (napoleon / "units.yaml").rename(store / "units.txt")
    (napoleon / "units.yaml").symlink_to(Path(".store") / "units.txt")
    assert check_game(napoleon).findings == []


def test_device_is_refused_by_its_type() -> None:
    result = read_yaml("/dev/zero")
    assert result.finding is not None and result.finding.rule == "file-unreadable"
    assert "character device" in result.finding.message


def test_fifo_is_refused_without_opening_it(napoleon: Path) -> None:
    pipe = napoleon / "pipe.yaml"
    os.mkfifo(pipe)
    child = validate_in_child(napoleon)  # opening the pipe would wait for ever
    assert child.returncode == 1, child.stdout + child.stderr
    assert child.stdout.count("error[") == 1 and "named pipe" in child.stdout
    finding = only_finding(napoleon, pipe, "file-unreadable")
    assert "named pipe (FIFO)" in finding.message


def test_socket_is_refused(napoleon: Path) -> None:
    import socket

    path = napoleon / "s.yaml"
    with socket.socket(socket.AF_UNIX) as server:
        try:
            server.bind(str(path))
        except OSError as err:  # pragma: no cover - a path too long for AF_UNIX
            pytest.skip(f"cannot bind a socket here: {err}")
        finding = only_finding(napoleon, path, "file-unreadable")
    assert "socket" in finding.message


BROKEN: list[tuple[str, bytes, str]] = [
    # (case, new content of units.yaml, rule)
    ("malformed", b"units:\n  - {id: fr-guard, name: [unclosed\n", "yaml-syntax"),
    ("empty", b"", "empty-file"),
    ("comments only", b"# units to come\n", "empty-file"),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x1b[2J", "binary-file"),
    ("not utf-8", "units:\n  - name: 歩兵\n".encode("shift_jis"), "not-utf8"),
    (
        "alias bomb",
        b"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + b"".join(
            f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n".encode()
            for p, n in zip("abcdefg", "bcdefgh", strict=True)
        )
        + b"units: [*h, *h]\n",
        "alias-bomb",
    ),
    ("a list, not sections", b"- fr-guard\n- fr-1st\n", "wrong-type"),
]


@pytest.mark.parametrize(("case", "content", "rule"), BROKEN, ids=[c[0] for c in BROKEN])
def test_one_broken_file_is_one_finding_and_no_cascade(
    napoleon: Path, case: str, content: bytes, rule: str
) -> None:
    """Without units.yaml the rules would say "holds 0 French blocks" and every setup names
    an unknown unit (255 findings, the cause last); now the cause is the only finding."""
    units = napoleon / "units.yaml"
    units.write_bytes(content)
    only_finding(napoleon, units, rule)


def test_too_large_file_is_one_finding(napoleon: Path) -> None:
    units = napoleon / "units.yaml"
    with open(units, "r+b") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse
    finding = only_finding(napoleon, units, "file-too-large")
    assert "\\x00" not in render_text(finding)  # the file is never quoted


def test_size_cap_holds_while_reading(napoleon: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that says it is empty (/proc, a device behind a link) is still read only up to
    the cap: the read itself stops at cap + 1 bytes."""
    units = napoleon / "units.yaml"
    monkeypatch.setattr(yamlread, "MAX_FILE_BYTES", 1000)
    real_stat, real_fstat = os.stat, os.fstat

    def zero_size(result: os.stat_result) -> os.stat_result:
        fields = list(result)
        fields[6] = 0  # st_size
        return os.stat_result(fields)

    def fake_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        result = real_stat(path, *args, **kwargs)
        return zero_size(result) if str(path) == str(units) else result

    def fake_fstat(fd: int) -> os.stat_result:
        result = real_fstat(fd)
        return zero_size(result) if result.st_ino == real_stat(units).st_ino else result

    monkeypatch.setattr(os, "stat", fake_stat)
    monkeypatch.setattr(os, "fstat", fake_fstat)
    reads: list[int] = []
    real_read = os.read

    def counting_read(fd: int, size: int) -> bytes:
        data = real_read(fd, size)
        reads.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting_read)
    result = read_yaml(str(units), str(napoleon))
    assert result.finding is not None and result.finding.rule == "file-too-large"
    assert sum(reads) == 1001


def _fail_open_of(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    real_open = os.open

    def fake_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(target):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)


def test_unreadable_file_is_one_finding(napoleon: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    units = napoleon / "units.yaml"
    _fail_open_of(monkeypatch, units)
    finding = only_finding(napoleon, units, "file-unreadable")
    assert "Permission denied" in finding.message


@pytest.mark.skipif(AS_ROOT, reason="root reads a chmod 000 file; the monkeypatched test runs")
def test_unreadable_file_by_mode_is_one_finding(napoleon: Path) -> None:  # pragma: no cover
    units = napoleon / "units.yaml"
    units.chmod(0)
    try:
        only_finding(napoleon, units, "file-unreadable")
    finally:
        units.chmod(0o644)


def _fail_listing_of(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    real_scandir = os.scandir

    def fake_scandir(path: Any = ".") -> Any:
        if os.fspath(path) == str(target):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", fake_scandir)


def test_unreadable_scenarios_folder_is_a_finding_not_skipped(
    napoleon: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It used to be skipped in silence: exit 0 and a module without scenarios."""
    folder = napoleon / "scenarios"
    _fail_listing_of(monkeypatch, folder)
    finding = only_finding(napoleon, folder, "file-unreadable")
    assert "cannot list this folder" in finding.message
    assert main(["validate", str(napoleon)]) == 1
    assert "scenarios:1:1: error[file-unreadable]" in capsys.readouterr().out


@pytest.mark.skipif(AS_ROOT, reason="root lists a chmod 000 folder; the monkeypatched test runs")
def test_unreadable_folder_by_mode_is_a_finding(napoleon: Path) -> None:  # pragma: no cover
    folder = napoleon / "scenarios"
    folder.chmod(0)
    try:
        only_finding(napoleon, folder, "file-unreadable")
    finally:
        folder.chmod(0o755)


def test_folder_link_out_of_the_game_is_a_finding(napoleon: Path, tmp_path: Path) -> None:
    outside = tmp_path / "more-scenarios"
    outside.mkdir()
    link = napoleon / "extra"
    link.symlink_to(outside)
    files, problems = scan_data_files(napoleon)
    assert [(f.rule, f.location.path) for f in problems] == [("file-unreadable", str(link))]
    assert all(str(path).startswith(str(napoleon)) for path in files)
    only_finding(napoleon, link, "file-unreadable")


# -- no raw byte on the terminal ------------------------------------------------------------------
def test_binary_file_is_shown_escaped(napoleon: Path, capsys: pytest.CaptureFixture[str]) -> None:
    units = napoleon / "units.yaml"
    units.write_bytes(b"units:\n\x1b]0;pwned\x07\x00\x1b[2J\x9b31m\n")
    assert main(["validate", str(napoleon)]) == 1
    out = capsys.readouterr().out
    assert not CONTROL.search(out.replace("\n", "")), out
    first = out.splitlines()[0]
    assert first.startswith(f"{units}:2:") or "units.yaml:2:" in first
    assert "error[binary-file]" in first and "\\x1b]0;pwned\\x07\\x00" in out


def test_control_bytes_in_a_text_file_are_shown_escaped(
    napoleon: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Valid UTF-8 with a terminal escape in it: not YAML, and quoted only escaped."""
    units = napoleon / "units.yaml"
    units.write_bytes(b"units:\n  - id: \x1b[31mred\n")
    assert main(["validate", str(napoleon)]) == 1
    out = capsys.readouterr().out
    assert not CONTROL.search(out.replace("\n", "")), out
    assert "error[yaml-syntax]" in out.splitlines()[0]


def test_render_text_escapes_and_keeps_the_caret_on_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(b"key: \x1b[1m  \xe2\x80\xaebad\n")
    text = render_text(Finding("yaml-syntax", Location(str(path), 1, 13), "a \x1b[2J b"))
    lines = text.splitlines()
    assert "a \\x1b[2J b" in lines[0]
    assert lines[1] == "    key: \\x1b[1m  \\u202ebad"
    assert lines[2].index("^") == lines[1].index("bad")
    assert printable("歩兵\u3000ナポレオン\ttab") == "歩兵\u3000ナポレオン\ttab"


def test_file_name_that_is_not_utf8_is_printed_escaped(
    napoleon: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name's undecodable bytes (surrogates in Python) cannot even be printed raw."""
    bad = os.fsdecode(b"bad\xff\x1b.yaml")
    (napoleon / bad).write_bytes(b"")
    assert main(["validate", str(napoleon)]) == 1
    out = capsys.readouterr().out
    assert "bad\\xff\\x1b.yaml:1:1: error[empty-file]" in out
    out.encode("utf-8")  # no lone surrogate left
    assert main(["validate", "--format", "json", str(napoleon)]) == 1
    assert "bad\\\\xff\\\\x1b.yaml" in capsys.readouterr().out


def test_source_line_of_a_pipe_or_device_is_not_read(tmp_path: Path) -> None:
    pipe = tmp_path / "p.yaml"
    os.mkfifo(pipe)
    for path in (str(pipe), "/dev/zero"):
        text = render_text(Finding("yaml-syntax", Location(path, 1, 1), "m"))
        assert text.splitlines() == [f"{path}:1:1: error[yaml-syntax]: m"]


# -- paths in the data ----------------------------------------------------------------------------
def _image(path: Path) -> None:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 0, 0)).save(buffer, "PNG")
    path.write_bytes(buffer.getvalue())


def _art(napoleon: Path, image: str) -> tuple[int, int]:
    """Board art for napoleon's map; the line and column of the image path."""
    map_file = napoleon / "map.yaml"
    text = map_file.read_text(encoding="utf-8")
    assert text.count("    height: 1700\n") == 1
    line = f"    art: {{image: '{image}'}}\n"
    map_file.write_text(text.replace("    height: 1700\n", "    height: 1700\n" + line))
    number = line_of(map_file, "    art: {image:")
    return number, line.index("'") + 1


OUTSIDE: list[tuple[str, Callable[[Path, Path], str], str]] = [
    ("dotdot", lambda game, img: os.path.relpath(img, game), "through `..`"),
    ("deep dotdot", lambda game, img: "../" * 12 + str(img).lstrip("/"), "through `..`"),
    ("absolute", lambda game, img: str(img), "absolute path"),
    ("symlink", lambda game, img: "art/board.png", "symbolic link"),
]


@pytest.mark.parametrize(("case", "name", "says"), OUTSIDE, ids=[c[0] for c in OUTSIDE])
def test_board_art_outside_the_game_is_a_validate_error(
    napoleon: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    name: Callable[[Path, Path], str],
    says: str,
) -> None:
    """Any readable image on the disk used to be embedded in the module; now `validate` says
    where the path is, and the build writes nothing."""
    from compiler.backends.vassal.boardart import art_path, check_board_art, load_board_art
    from compiler.backends.vassal.module import ArtError
    from compiler.pipeline import build_game

    image = tmp_path / "secret" / "board.png"
    image.parent.mkdir()
    _image(image)
    if case == "symlink":
        (napoleon / "art").mkdir()
        (napoleon / "art" / "board.png").symlink_to(image)
    line, column = _art(napoleon, name(napoleon, image))
    finding = only_finding(napoleon, napoleon / "map.yaml", "path-outside-game")
    assert (finding.location.line, finding.location.column) == (line, column)
    assert says in finding.message and "belgium-1815" in finding.message
    assert main(["validate", str(napoleon)]) == 1
    assert "error[path-outside-game]" in capsys.readouterr().out
    out = tmp_path / "out"
    report, written = build_game(napoleon, out)
    assert written == [] and [f.rule for f in report.findings] == ["path-outside-game"]
    assert not (out / "napoleon").exists()
    # The back end refuses it on its own too.
    game = load_game(napoleon).game
    assert game is not None
    (board,) = game.maps
    assert art_path(game, board) is None
    assert [f.rule for f in check_board_art(game)] == ["path-outside-game"]
    with pytest.raises(ArtError):
        load_board_art(game, board)


def test_board_art_inside_the_game_is_fine(napoleon: Path) -> None:
    (napoleon / "art" / "sub").mkdir(parents=True)
    _image(napoleon / "art" / "board.png")
    (napoleon / "art" / "link.png").symlink_to("board.png")
    _art(napoleon, "art/sub/../link.png")
    assert check_game(napoleon, build_lang="").findings == []


def test_board_art_pipe_is_not_opened(napoleon: Path) -> None:
    (napoleon / "art").mkdir()
    os.mkfifo(napoleon / "art" / "board.png")
    _art(napoleon, "art/board.png")
    (finding,) = check_game(napoleon, build_lang="").findings
    assert finding.rule == "board-image" and "named pipe" in finding.message


@pytest.mark.parametrize("game_id", ["../../escape", "/tmp/escape", ".cache", ".."])
def test_game_id_must_be_a_plain_folder_name(napoleon: Path, game_id: str) -> None:
    """The id names build/<id>/: one that climbs out would write outside the build folder."""
    game_file = napoleon / "game.yaml"
    text = game_file.read_text(encoding="utf-8")
    assert text.count("  id: napoleon\n") == 1
    game_file.write_text(text.replace("  id: napoleon\n", f"  id: '{game_id}'\n"))
    finding = only_finding(napoleon, game_file, "path-outside-game")
    assert finding.location.line == line_of(game_file, f"  id: '{game_id}'")


# -- root causes first ----------------------------------------------------------------------------
def _misspell_a_charts_key(napoleon: Path) -> None:
    """An unknown key (`chartz:`) before charts.yaml's `charts:`: an unknown-key finding."""
    charts = napoleon / "charts.yaml"
    text = charts.read_text(encoding="utf-8")
    charts.write_text(text.replace("charts:\n", "chartz: []\ncharts:\n", 1), encoding="utf-8")


def _rules_and_files(napoleon: Path) -> list[tuple[str, str]]:
    """The game's findings in the order they are printed: (rule, file name) each."""
    return [(f.rule, Path(f.location.path).name) for f in check_game(napoleon).findings]


def test_the_broken_file_comes_first(napoleon: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A broken file's finding precedes every other file's, even one whose path sorts first."""
    broken = napoleon / "scenarios" / "historical.yaml"
    broken.write_bytes(b"scenarios: [\n")
    _misspell_a_charts_key(napoleon)
    assert _rules_and_files(napoleon) == [
        ("yaml-syntax", "historical.yaml"),
        ("unknown-key", "charts.yaml"),
    ]
    main(["validate", str(napoleon)])
    assert "historical.yaml" in capsys.readouterr().out.splitlines()[0]


def _misspell_napoleons_command(napoleon: Path) -> None:
    """Napoleon's `commands: fr-army` misspelt, and his cv given as a word: one unknown
    reference (the cause) and the two of the game's rules that then fail on the same line."""
    units = napoleon / "units.yaml"
    text = units.read_text(encoding="utf-8")
    line = next(row for row in text.splitlines() if row.startswith("  - {id: napoleon,"))
    broken = line.replace("commands: fr-army}", "commands: fr-armyy}").replace(
        "front: {cv: 1}", 'front: {cv: "one"}'
    )
    assert broken.count("fr-armyy") == 1 and '"one"' in broken
    units.write_text(text.replace(line, broken), encoding="utf-8")


def test_an_unknown_reference_precedes_the_rules_it_breaks(
    napoleon: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The unknown formation is further right on the line than the rule findings it causes,
    yet it is printed first: the user mends the cause, and the rules' findings go with it."""
    _misspell_napoleons_command(napoleon)
    findings = check_game(napoleon).findings
    assert [f.rule for f in findings] == [
        "unresolved-reference",
        "leader-one-step",
        "napoleon-commands-french",
    ]
    assert len({f.location.line for f in findings}) == 1
    assert findings[0].location.column > findings[2].location.column > findings[1].location.column
    main(["validate", str(napoleon)])
    first = capsys.readouterr().out.splitlines()[0]
    assert "error[unresolved-reference]: unknown formation `fr-armyy`" in first


def test_a_fault_in_another_file_precedes_the_rules(napoleon: Path) -> None:
    """The data's own faults come before every rule finding, whatever file and line each is
    on: here a misspelt key in charts.yaml, which sorts after units.yaml by place."""
    _misspell_napoleons_command(napoleon)
    _misspell_a_charts_key(napoleon)
    assert _rules_and_files(napoleon) == [
        ("unknown-key", "charts.yaml"),
        ("unresolved-reference", "units.yaml"),
        ("leader-one-step", "units.yaml"),
        ("napoleon-commands-french", "units.yaml"),
    ]


def test_two_broken_files_are_two_findings(napoleon: Path) -> None:
    (napoleon / "units.yaml").write_bytes(b"")
    (napoleon / "map.yaml").write_bytes(b"\x00")
    assert _rules_and_files(napoleon) == [
        ("binary-file", "map.yaml"),
        ("empty-file", "units.yaml"),
    ]


# -- a game's own player-aids template ------------------------------------------------------------
def _own_template(napoleon: Path, inserted: str) -> Path:
    """The shared template as the game's own, with `inserted` as its first line."""
    own = napoleon / "player_aids.yaml.j2"
    shared = (REPO / "templates" / "player_aids.yaml.j2").read_text(encoding="utf-8")
    own.write_text(inserted + "\n" + shared, encoding="utf-8")
    return own


def test_own_template_as_the_shared_one_is_clean(napoleon: Path) -> None:
    _own_template(napoleon, "{# the shared template, as the game's own #}")
    assert check_game(napoleon).findings == []


@pytest.mark.parametrize(
    "inserted",
    [
        "{{ cycler.__init__.__globals__.os.system('touch pwned') }}",
        "{{ game.__class__.__init__.__globals__ }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    ],
    ids=["cycler globals", "model globals", "subclasses"],
)
def test_own_template_runs_no_code(napoleon: Path, inserted: str) -> None:
    """The template comes with the data: validating a game never runs code it names."""
    own = _own_template(napoleon, inserted)
    cwd = Path.cwd()
    os.chdir(napoleon)
    try:
        finding = only_finding(napoleon, own, "player-aids")
    finally:
        os.chdir(cwd)
    assert not (napoleon / "pwned").exists()
    assert finding.location.line == 1


@pytest.mark.parametrize(
    "inserted",
    [
        "{% for i in range(10 ** 8) %}{% endfor %}",
        "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
        "{{ 'x' * 10 ** 9 }}",
        "{{ [0] * 10 ** 9 }}",
        "{{ 10 ** (10 ** 9) }}",
        "{% for i in range(99999) %}{{ 'x' * 999999 }}{% endfor %}",
    ],
    ids=["long loop", "nested loops", "long text", "long list", "huge number", "long output"],
)
def test_own_template_cannot_exhaust_time_or_memory(napoleon: Path, inserted: str) -> None:
    own = _own_template(napoleon, inserted)
    finding = only_finding(napoleon, own, "player-aids")
    assert "rendering" in finding.message


@pytest.mark.parametrize("kind", ["fifo", "link out"])
def test_own_template_is_read_as_a_data_file(napoleon: Path, tmp_path: Path, kind: str) -> None:
    own = napoleon / "player_aids.yaml.j2"
    if kind == "fifo":
        os.mkfifo(own)
    else:
        outside = tmp_path / "elsewhere.j2"
        outside.write_text("charts: []\n", encoding="utf-8")
        own.symlink_to(outside)
    only_finding(napoleon, own, "file-unreadable")


# -- positions in files with other line breaks ----------------------------------------------------
@pytest.mark.parametrize(
    "newline", ["\r", "\x85", "\u2028", "\u2029"], ids=["CR", "NEL", "LS", "PS"]
)
def test_positions_are_the_files_lines_whatever_yaml_breaks_at(
    napoleon: Path, newline: str
) -> None:
    """YAML also breaks lines at CR, NEL, LS and PS; editors (and the line shown under a
    finding) break at LF only. A finding names the file's own line and column."""
    units = napoleon / "units.yaml"
    text = units.read_text(encoding="utf-8")
    assert text.count("steps: 4") > 1
    text = text.replace("steps: 4", "steps: 4, stepz: 4", 1)
    lines = text.split("\n")
    number = next(n for n, line in enumerate(lines) if "stepz" in line)
    lines[number - 1 : number + 1] = [newline.join(lines[number - 1 : number + 1])]
    units.write_text("\n".join(lines), encoding="utf-8")
    finding = only_finding(napoleon, units, "unknown-key")
    line = lines[finding.location.line - 1]
    assert finding.location.line == number
    assert line[finding.location.column - 1 :].startswith("stepz")


# -- numbers that would make the loader work for ever ---------------------------------------------
@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("rows: [1, 8]}", "rows: [1, 9223372036854775808]}", "hexes"),
        ('"{sheet}{col:02d}{row:02d}"', '"{sheet}{col:0999999999d}{row:02d}"', "100 characters"),
    ],
    ids=["huge sheet", "huge id width"],
)
def test_hex_grid_too_large_to_list_is_a_finding(mini: Path, old: str, new: str, says: str) -> None:
    """Hexes are listed from the sheets' ranges and the id format: a range of 2**63 rows or a
    field padded to a billion characters would take for ever or all memory."""
    map_file = mini / "map.yaml"
    text = map_file.read_text(encoding="utf-8")
    assert text.count(old) == 1
    map_file.write_text(text.replace(old, new), encoding="utf-8")
    findings = check_game(mini).findings
    grid = [f for f in findings if f.location.path == str(map_file)]
    assert [f.rule for f in grid][:1] == ["wrong-type"] and says in grid[0].message


@pytest.mark.parametrize(
    ("file", "old", "new", "rule"),
    [
        ("rules.yaml", "max: 3, exact: true}", "max: -3, exact: true}", "three-leaders"),
        ("game.yaml", "free_stack_british: 5", "free_stack_british: -5", "free-stacking-british"),
    ],
    ids=["counter-mix", "stacking"],
)
def test_negative_limits_are_findings_not_tracebacks(
    napoleon: Path, file: str, old: str, new: str, rule: str
) -> None:
    path = napoleon / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    assert rule in {f.rule for f in check_game(napoleon).findings}
