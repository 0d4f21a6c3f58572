"""Modules a build does not need stay unimported: the sheets' sizes are parsed without
fractions (and decimal), the preview escapes its text without html (and html.entities), and
both give what the library functions gave."""

from __future__ import annotations

import html
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.backends.preview.html import e
from compiler.backends.sheets.options import INCH_PRESETS, _ratio, counter_size_mm
from tests.conftest import modules_imported_by

LEFT_OUT = ("fractions", "decimal", "html", "html.entities")


def test_the_sheet_options_and_the_preview_page_import_none_of_them() -> None:
    code = (
        "import sys\n"
        "import compiler.backends.sheets.options, compiler.backends.preview.html\n"
        f"print(sorted(set({LEFT_OUT!r}) & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "number", ["5", "0", "16.5", "0.0625", "5/8", "9/16", "10/16", "123456.789", "1/3", "007"]
)
def test_a_size_is_the_exact_ratio_fraction_read(number: str) -> None:
    numerator, denominator = _ratio(number, number)
    assert Fraction(numerator, denominator) == Fraction(number)
    assert numerator / denominator == float(Fraction(number))


@pytest.mark.parametrize("text", ["5/8in", "0.625in", "10/16in", '5/8"', " 5/8 in "])
def test_a_preset_is_found_whatever_way_its_size_is_written(text: str) -> None:
    assert counter_size_mm(text) == INCH_PRESETS["5/8in"]


@pytest.mark.parametrize("text", ["1/0in", "1.5/2in", "0/4mm"])
def test_a_size_that_is_no_number_of_mm_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError, match=repr(text)):
        counter_size_mm(text)


@pytest.mark.parametrize("text", ["a & b", "<i>\"x\" 'y'</i>", "&amp;", "×と", "", "\x00>"])
def test_escaping_is_what_html_escape_gives(text: str) -> None:
    assert e(text) == html.escape(text, quote=True)


def test_the_templates_are_where_importlib_resources_finds_them() -> None:
    from importlib.resources import files

    from compiler.resources import templates_dir

    assert templates_dir() == Path(str(files("compiler.templates")))


def test_finding_the_templates_imports_no_resource_readers() -> None:
    code = "from compiler.resources import templates_dir\ntemplates_dir()\n"
    assert modules_imported_by(code, "m.startswith('importlib.re')") == "[]"


def test_an_up_to_date_build_imports_no_loader(mini: Path, tmp_path: Path) -> None:
    """Nothing changed: the stamp says so before any data is read, and neither PyYAML nor the
    loader and the model are imported (60-90 ms of the process)."""
    out = tmp_path / "out"
    build = [sys.executable, "-m", "compiler", "build", str(mini), "--out", str(out)]
    subprocess.run(build, capture_output=True, text=True, check=True)
    code = (
        "import sys\n"
        "from compiler.cli import main\n"
        f"code = main({build[3:]!r})\n"
        "print(code, sorted({'yaml', 'compiler.load.keptread', 'compiler.model.game'}"
        " & set(sys.modules)))\n"
    )
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "up to date" in again.stdout
    assert again.stdout.strip().splitlines()[-1] == "0 []"
