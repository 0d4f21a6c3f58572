"""The first-game path as a user walks it: build the wheel, install it into a new virtual
environment in a temporary folder away from the checkout, then `countermix new`, `validate`
and `build` for every map kind, and load each module in VASSAL's own engine.

Nothing here imports the checkout's code into the installed tool: the commands run with the
new environment's own `countermix`, from a folder outside the repository, with no PYTHONPATH.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from compiler.newgame import MAP_KINDS
from tests.conftest import REPO
from tests.vassal_harness.run import run_harness, vassal_available

pytestmark = pytest.mark.slow


BACKEND_WARNING = re.compile(r"[a-z]Warning:|[Dd]eprecat")
"""What setuptools prints when the configuration is off (deprecations, ignored packages);
pip's own `WARNING: Location ... is ignored` about this machine's index is not matched."""


def _run(
    args: list[str], cwd: Path, extra: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra or {})
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    return output


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a new venv holding only the wheel built from this checkout."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    env_python = {"PYTHON": sys.executable}
    built = _ok(_run(["bash", str(REPO / "scripts" / "wheel.sh"), str(dist)], root, env_python))
    assert not BACKEND_WARNING.search(built), built
    (wheel,) = dist.glob("countermix-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "compiler/templates/layouts.yaml" in names
    assert "compiler/locale/ja/LC_MESSAGES/countermix.mo" in names  # the tool's Japanese words
    assert not any(n.startswith(("sources/", "tests/", "templates/")) for n in names)
    venv = root / "venv"
    _ok(_run([sys.executable, "-m", "venv", str(venv)], root))
    installed = _ok(_run([str(venv / "bin" / "python"), "-m", "pip", "install", str(wheel)], root))
    assert not BACKEND_WARNING.search(installed), installed
    return venv / "bin"


def test_the_installed_tool_is_the_wheel_not_the_checkout(installed: Path) -> None:
    where = _ok(
        _run(
            [str(installed / "python"), "-c", "import compiler; print(compiler.__file__)"],
            installed,
        )
    )
    assert str(installed.parent) in where and str(REPO) not in where
    version = _ok(_run([str(installed / "countermix"), "--version"], installed))
    assert version.strip() == "countermix " + _project_version()


def _project_version() -> str:
    import tomllib

    return str(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"])


@pytest.mark.parametrize("kind", MAP_KINDS)
def test_new_validate_build_and_play(installed: Path, tmp_path: Path, kind: str) -> None:
    countermix = str(installed / "countermix")
    work = tmp_path / "games"
    work.mkdir()
    folder = f"my-{kind}-game"
    _ok(_run([countermix, "new", folder, "--map", kind], work))
    checked = _ok(_run([countermix, "validate", folder], work))
    assert checked.strip().startswith(f"{folder}: ok"), checked
    built = _ok(_run([countermix, "build", folder], work))
    assert "warning" not in built and "error" not in built, built
    out = work / "build" / folder
    vmod = out / f"{folder}.vmod"
    assert vmod.is_file() and (out / "charts.pdf").is_file()
    assert any((out / name).is_file() for name in ("counters.pdf", "blocks.pdf", "cards.pdf"))
    again = _run([countermix, "new", folder, "--map", kind], work)
    assert again.returncode == 2 and "already exists" in again.stderr
    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")
    report: dict[str, Any] = run_harness(vmod, props=("UnitId", "MarkerId", "CardId"))
    assert report["ok"] is True and report["warnings"] == [], report["warnings"][:5]
    assert report["decodeErrors"] == [] and report["imageErrors"] == []
    assert [d for d in report["dialogs"] if not d["ignored"]] == []
    assert report["setups"] and all(s["gameStarted"] for s in report["setups"])


def test_the_way_back_from_the_installed_tool(installed: Path, tmp_path: Path) -> None:
    """import-save, import-module and diff from the wheel: a scenario's own save imports, the
    module imports into a folder that builds, and the rebuilt module equals the first."""
    countermix = str(installed / "countermix")
    work = tmp_path / "games"
    work.mkdir()
    _ok(_run([countermix, "new", "g", "--map", "hex"], work))
    _ok(_run([countermix, "build", "g"], work))
    vmod = work / "build" / "g" / "g.vmod"
    with zipfile.ZipFile(vmod) as archive:
        (work / "westford.vsav").write_bytes(archive.read("westford.vsav"))
    args = ["import-save", "g", "westford.vsav", "--scenario", "again", "--like", "westford"]
    assert "wrote " in _ok(_run([countermix, *args], work))
    _ok(_run([countermix, "import-module", str(vmod), "imported"], work))
    _ok(_run([countermix, "build", "imported", "--out", "rebuilt"], work))
    same = _run([countermix, "diff", str(vmod), "rebuilt/imported/imported.vmod"], work)
    assert (same.returncode, same.stdout) == (0, "no differences\n"), same.stdout + same.stderr
