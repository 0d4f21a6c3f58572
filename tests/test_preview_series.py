"""A series' preview page takes each title's render plan and charts as that title's module
step left them: each section is made right after its title's outputs, while the build still
holds what it worked out for that title (compiler.backends.pergame keeps one title's), so a
build works out neither twice (made after the last title, every section but the last worked
them out again: at a GCACW title's warm rebuild, 0.09 s of 0.6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compiler.backends.charts import build as charts
from compiler.backends.vassal import module
from compiler.cli import main
from tests.conftest import replace_in


def counted(counts: Counter[str], name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        counts[name] += 1
        return real(*args, **kwargs)

    return call


def test_each_titles_plan_and_charts_are_worked_out_once_a_build(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts: Counter[str] = Counter()
    monkeypatch.setattr(module, "_render_plan", counted(counts, "plan", module._render_plan))
    monkeypatch.setattr(charts, "_render", counted(counts, "charts", charts._render))
    out = tmp_path / "out"
    assert main(["build", str(mini), "--out", str(out)]) == 0  # cold: two titles
    assert counts == {"plan": 2, "charts": 2}
    assert (out / "mini" / "index.html").read_text().count('class="edition"') == 2
    counts.clear()
    replace_in(mini / "units.yaml", "2nd Infantry", "2nd Infantry Regiment")
    assert main(["build", str(mini), "--out", str(out)]) == 0  # warm
    assert counts == {"plan": 2, "charts": 2}
    assert "2nd Infantry Regiment" in (out / "mini" / "index.html").read_text()
