"""The shared player-aids template comes compiled ahead of time (compiler.load.aidscode): a
process does not parse and generate it with Jinja2 again, the compiled code is the one Jinja2
makes of the shipped template now, it renders what `from_string` renders, and another template
(or another Jinja2) is compiled as before."""

from __future__ import annotations

import hashlib
import os
import types
from pathlib import Path

import jinja2
import pytest

from compiler.load import aids, aidscode
from compiler.resources import PLAYER_AIDS, template
from tests.conftest import loaded_seed

SHIPPED = template(PLAYER_AIDS).read_text(encoding="utf-8")


@pytest.fixture
def generated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources Jinja2 parses and generates code for, from now on."""
    seen: list[str] = []
    real = jinja2.Environment._parse

    def spy(self: jinja2.Environment, source: str, *args: object, **kwargs: object) -> object:
        seen.append(source)
        return real(self, source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(jinja2.Environment, "_parse", spy)
    return seen


def test_the_shipped_code_is_the_shipped_templates() -> None:
    assert aidscode.SOURCE == hashlib.sha256(SHIPPED.encode("utf-8")).hexdigest(), (
        "compiler/load/aidscode.py is stale: run `python -m scripts.update_aids_code`"
    )
    if aidscode.JINJA2 != jinja2.__version__:
        pytest.skip(f"compiled with Jinja2 {aidscode.JINJA2}, this is {jinja2.__version__}")
    assert aidscode.CODE == aids._environment().compile(SHIPPED, raw=True), (
        "compiler/load/aidscode.py is stale: run `python -m scripts.update_aids_code`"
    )


def test_the_shipped_template_is_not_compiled_again(generated: list[str]) -> None:
    if aidscode.JINJA2 != jinja2.__version__:  # another Jinja2 compiles it, as it should
        pytest.skip(f"compiled with Jinja2 {aidscode.JINJA2}, this is {jinja2.__version__}")
    aids._shared_template.__wrapped__(SHIPPED)
    assert generated == []


@pytest.mark.parametrize("name", ["napoleon", "gcacw"])
def test_the_shipped_code_renders_what_from_string_renders(name: str) -> None:
    game = loaded_seed(name)
    names = aids._names(game)
    compiled = aids._render(aids._shared_template.__wrapped__(SHIPPED), names)
    assert compiled == aids._render(aids._environment().from_string(SHIPPED), names)


def test_another_template_is_compiled(generated: list[str]) -> None:
    changed = SHIPPED.replace("\ncharts:\n", "\ncharts:  # changed\n", 1)
    assert changed != SHIPPED
    made = aids._shared_template.__wrapped__(changed)
    assert generated == [changed]
    game = loaded_seed("napoleon")
    rendered = aids._render(made, aids._names(game))
    assert "charts:  # changed" in rendered


def test_another_jinja2_compiles_the_template(
    generated: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aidscode, "JINJA2", "0.0.0")
    aids._shared_template.__wrapped__(SHIPPED)
    assert generated == [SHIPPED]


def test_a_syntax_error_is_found_in_another_template() -> None:
    broken = SHIPPED + "{% if %}"
    with pytest.raises(jinja2.TemplateSyntaxError):
        aids._shared_template.__wrapped__(broken)


def test_loading_a_game_imports_no_jinja2() -> None:
    """Jinja2 is imported when a template is rendered, not when the loader (or the build's
    nothing-changed check, which asks aids for TEMPLATE_NAME) is imported: 0.05 s or more of
    start-up for every command."""
    import subprocess
    import sys

    code = "import sys, compiler.load.game, compiler.load.aids; print('jinja2' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_shipped_code_kept_between_processes_is_the_one_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped template's code comes from the user's cache file (compiler.dataclasscode)
    once a process kept it there: the same code as compiling it, every code object named
    `<template>` (how an error's template line is found: aids._template_line)."""
    if aidscode.JINJA2 != jinja2.__version__:
        pytest.skip(f"compiled with Jinja2 {aidscode.JINJA2}, this is {jinja2.__version__}")
    from compiler import dataclasscode

    path = tmp_path / "code.marshal"
    monkeypatch.setattr(dataclasscode, "_cache", dataclasscode.CodeCache(path))
    monkeypatch.setattr(dataclasscode, "_installed_by", os.getpid())
    env = aids._environment()
    first = aids._shared_code(env, SHIPPED)
    dataclasscode.save()
    assert aidscode.CODE in dataclasscode.read_texts(path)
    cache = dataclasscode.CodeCache(path)
    monkeypatch.setattr(dataclasscode, "_cache", cache)
    kept = aids._shared_code(env, SHIPPED)
    assert not cache.has_additions()  # read back, not compiled
    expected = compile(aidscode.CODE, "<template>", "exec", dont_inherit=True)
    assert first == kept == expected
    stack = [kept]
    while stack:
        code = stack.pop()
        assert code.co_filename == "<template>"
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
