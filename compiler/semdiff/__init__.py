"""The semantic diff of two games (`countermix diff OLD NEW`): what a module maker calls a
change — a unit renamed, a value changed, a piece set up elsewhere, a picture redrawn — and
nothing that only reflects how the data is written (YAML layout, the order of records and of
setup entries, how units are grouped in an entry, source positions, an image's file name).

Records are compared generically, field by field and keyed by id (compiler/semdiff/walk.py),
so a field added to the model is compared without a change here; the sections and the
per-piece view of scenarios are in compiler/semdiff/sections.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from compiler.model.gamedata import GameData
from compiler.semdiff.sections import (
    ORDER,
    SECTIONS,
    Found,
    aids_template,
    diff_placements,
    diff_section,
    natural,
)
from compiler.semdiff.walk import Digests, clean

__all__ = ["KINDS", "Change", "changes_json", "diff_games", "render_changes"]

KINDS = ("added", "removed", "renamed", "changed", "moved")


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between two games, in printable form."""

    kind: str
    """added, removed, renamed, changed or moved."""
    section: str
    """game, title, side, nationality, die, turn, value, terrain, unit-type, formation, unit,
    marker, map, location, deck, card, chart, layout, rule, scenario; per scenario and piece:
    placement (the setup), reinforcement, withdrawal."""
    id: str
    """The record (a location is `map/location`; a placement, reinforcement or withdrawal
    is the piece's id)."""
    field: str = ""
    """Dotted path of the field ("front.cv", "columns.odds.label"); "" for a record added or
    removed."""
    old: str = ""
    new: str = ""
    scenario: str = ""


def diff_games(old: GameData, new: GameData) -> list[Change]:
    """Every difference from `old` to `new`: by section, then scenario and id (numbers inside
    ids by value), then the fields in the order the model declares them."""
    digests = Digests((old.root, new.root))
    found: list[Found] = []
    for section in SECTIONS:
        found.extend(diff_section(section, old, new, digests))
    found.extend(aids_template(old, new))
    found.extend(diff_placements(old, new, digests))
    rank = {name: index for index, name in enumerate(ORDER)}
    found.sort(key=lambda f: (rank[f[0]], natural(f[2]), natural(f[1])))
    return [
        Change(kind, section, clean(ident, 200), clean(path, 200), was, now, clean(sid, 200))
        for section, ident, sid, (kind, path, was, now) in found
    ]


_HEADINGS = {
    "game": "Game",
    "title": "Titles",
    "side": "Sides",
    "nationality": "Nationalities",
    "die": "Dice",
    "turn": "Turns",
    "value": "Values",
    "terrain": "Terrain",
    "unit-type": "Unit types",
    "formation": "Formations",
    "unit": "Units",
    "marker": "Markers",
    "map": "Maps",
    "location": "Locations",
    "deck": "Decks",
    "card": "Cards",
    "chart": "Charts",
    "layout": "Layouts",
    "rule": "Rules",
    "scenario": "Scenarios",
    "placement": "Setups",
    "reinforcement": "Reinforcements",
    "withdrawal": "Withdrawals",
}


def _line(change: Change) -> str:
    what = f"{change.section.replace('-', ' ')} {change.id}"
    if change.scenario:
        what = f"scenario {change.scenario}, {what}"
    if change.section == "placement":
        what = what.replace("placement ", "setup ", 1)
    if change.kind in ("added", "removed"):
        value = change.new if change.kind == "added" else change.old
        where = f": {change.field}" if change.field else ""
        return f"{what}{where} {change.kind}" + (f" ({value})" if value else "")
    if change.kind == "renamed":
        return f"{what}: renamed {change.old} → {change.new}"
    if change.kind == "moved":
        return f"{what}: moved {change.old} → {change.new}"
    return f"{what}: {change.field} {change.old or '(none)'} → {change.new or '(none)'}"


def summary(changes: Sequence[Change]) -> str:
    """`3 changes: 1 added, 2 changed`; `no differences`."""
    if not changes:
        return "no differences"
    counts = Counter(c.kind for c in changes)
    parts = ", ".join(f"{counts[k]} {k}" for k in KINDS if counts[k])
    noun = "change" if len(changes) == 1 else "changes"
    return f"{len(changes)} {noun}: {parts}"


def render_changes(changes: Sequence[Change]) -> str:
    """Text for people: a heading per section, one line per change, then the summary line."""
    lines: list[str] = []
    heading = ""
    for change in changes:
        title = _HEADINGS.get(change.section, change.section)
        if title != heading:
            if lines:
                lines.append("")
            lines.append(clean(title))
            heading = title
        lines.append("  " + _line(change))
    if lines:
        lines.append("")
    lines.append(summary(changes))
    return "\n".join(lines)


def changes_json(changes: Sequence[Change]) -> list[dict[str, str]]:
    """The changes as JSON objects: kind, section, id, field, old, new, scenario."""
    return [asdict(change) for change in changes]
