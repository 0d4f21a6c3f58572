"""The README's rule catalogue is the generated one; every rule id the code emits is catalogued."""

from __future__ import annotations

import re

from compiler.rules.registry import BUILTIN_RULES
from scripts.update_readme import END, START, current_catalogue
from tests.conftest import REPO


def test_readme_catalogue_is_current() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    body = readme.split(START, 1)[1].split(END, 1)[0]
    assert body.strip() == current_catalogue().strip(), (
        "README rule catalogue is stale: run `python -m scripts.update_readme`"
    )


def test_every_builtin_rule_id_in_the_code_is_catalogued() -> None:
    emitted: set[str] = set()
    for path in (REPO / "compiler").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        emitted.update(re.findall(r'(?:Finding\(|report\(|_failure\()\s*"([a-z0-9-]+)"', text))
    assert emitted, "no rule ids found: the pattern is out of date"
    assert emitted <= {r.id for r in BUILTIN_RULES}
