"""The rule catalogue in Markdown: built-in rules, constraint kinds, and each game's rules."""

from __future__ import annotations

from collections.abc import Iterable

from compiler.diagnostics import section
from compiler.model.gamedata import GameData
from compiler.rules.registry import BUILTIN_RULES, KIND_TITLES


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def catalogue(games: Iterable[GameData]) -> str:
    lines = ["### Built-in rules (every game)", ""]
    lines += _table(
        ("id", "checks", "group"), ((f"`{r.id}`", r.title, r.group) for r in BUILTIN_RULES)
    )
    lines += ["", "### Constraint kinds (configured per game in YAML)", ""]
    lines += _table(("kind", "checks"), ((f"`{k}`", t) for k, t in KIND_TITLES.items()))
    for game in games:
        lines += ["", f"### {game.game.title.en} (`{game.game.id}`)", ""]
        lines += _table(
            ("id", "kind", "rule", "rules §"),
            (
                (f"`{c.id}`", c.kind, c.title.en, section(c.ref) if c.ref else "")
                for c in game.constraints
            ),
        )
    return "\n".join(lines) + "\n"
