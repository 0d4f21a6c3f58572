"""Player aids: chart tables derived from a game's data by a Jinja2 template.

`templates/player_aids.yaml.j2` (or a game's own `player_aids.yaml.j2`) lays out the turn
record track, each scenario's setup card and reinforcement schedule, an order of battle per
side and each deck's card list as chart YAML; the output is read with the same strict loader as
`charts.yaml`, so the aids are ordinary Chart records in the model (checked by the same rules,
drawn by the same back end). The template decides the layout — titles, columns, which cells —
and the table model stays in the data. A broken template is a finding, never a traceback.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import jinja2
import yaml

from compiler.diagnostics import Finding, Location
from compiler.load.convert import Converter
from compiler.load.nodes import MAPPING, SCALAR, ComposeError, YNode, compose
from compiler.model.cards import Card
from compiler.model.charts import Chart
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario
from compiler.model.source import SourceFile
from compiler.model.units import Unit

TEMPLATE_NAME = "player_aids.yaml.j2"
BACK = Text(" (back)", "（裏）")


@dataclass(frozen=True, slots=True)
class SetupGroup:
    """The pieces a scenario sets up at one location: names for the card, refs for images."""

    at: str
    names: Text
    pieces: tuple[str, ...]


def read_template(folder: Path, templates: Path) -> tuple[tuple[str, str, bool], list[Finding]]:
    """(path, text, own) of the game's own template if it has one, else the shared one."""
    own = folder / TEMPLATE_NAME
    path = own if own.is_file() else templates / TEMPLATE_NAME
    if not path.is_file():
        return ("", "", False), []
    try:
        return (str(path), path.read_text(encoding="utf-8"), path == own), []
    except (OSError, UnicodeDecodeError) as err:
        return ("", "", False), [
            Finding("player-aids", Location(str(path)), f"cannot read the template: {err}", "")
        ]


def with_aids(game: GameData) -> tuple[GameData, list[Finding]]:
    """The game with its player aids rendered; findings when the template fails."""
    aids, findings = player_aids(game)
    return replace(game, aids=aids), findings


def player_aids(game: GameData) -> tuple[tuple[Chart, ...], list[Finding]]:
    """The derived charts of `game`, and findings for a template that fails."""
    path_text, source, _own = game.aids_template
    if not source:
        return (), []
    path = Path(path_text)
    try:
        rendered = _environment().from_string(source).render(**_names(game))
    except jinja2.TemplateSyntaxError as err:
        where = Location(str(path), err.lineno)
        return (), [Finding("player-aids", where, f"template syntax: {err.message}", "")]
    except (
        jinja2.TemplateError,
        ArithmeticError,
        LookupError,
        TypeError,
        ValueError,
        AttributeError,
        RecursionError,
    ) as err:
        finding = _failed(path, f"the template failed while rendering: {err}")
        line = _template_line(err)
        if line is not None:
            finding = replace(finding, location=Location(str(path), line))
        return (), [finding]
    return _read(path, rendered)


def _read(path: Path, rendered: str) -> tuple[tuple[Chart, ...], list[Finding]]:
    """The rendered output read as chart data."""
    try:
        composed = compose(rendered)
    except (ComposeError, yaml.YAMLError) as err:
        return (), [_failed(path, f"its output is not valid YAML: {err}")]
    if composed.root is None or _empty_charts(composed.root):
        return (), []
    converter = Converter(f"{path} (output)")
    result = converter.convert_root(composed.root, SourceFile, composed.aliased)
    if converter.findings or not isinstance(result, SourceFile):
        first = converter.findings[0] if converter.findings else None
        detail = f"{first.message} (output line {first.location.line})" if first else "invalid"
        return (), [_failed(path, f"its output is not chart data: {detail}")]
    return result.charts, []


def _template_line(err: BaseException) -> int | None:
    """The template line an error was raised at (Jinja2 puts template frames in tracebacks)."""
    lines = [
        f.lineno for f in traceback.extract_tb(err.__traceback__) if f.filename == "<template>"
    ]
    return lines[-1] if lines else None


def _empty_charts(root: YNode) -> bool:
    """Whether the output is `charts:` with nothing under it (a game without aids)."""
    if root.kind != MAPPING or not isinstance(root.value, list):
        return False
    pairs = [(k, v) for k, v in root.value if isinstance(k, YNode) and isinstance(v, YNode)]
    return all(
        v.kind == SCALAR and v.plain and str(v.value) in ("", "~", "null") for _k, v in pairs
    )


def _failed(path: Path, message: str) -> Finding:
    return Finding(
        "player-aids",
        Location(str(path)),
        message,
        f"fix {TEMPLATE_NAME}, or delete it to use the shared one in templates/",
    )


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    env.filters["t"] = _yaml_value
    env.filters["ids"] = lambda values: json.dumps(list(values), ensure_ascii=False)
    return env


def _yaml_value(value: object) -> str:
    """A text as {en, ja} (JSON is YAML), anything else as a JSON string."""
    if isinstance(value, Text):
        return json.dumps({"en": value.en, "ja": value.ja or value.en}, ensure_ascii=False)
    return json.dumps("" if value is None else str(value), ensure_ascii=False)


def _names(game: GameData) -> dict[str, object]:
    """What the template may use besides `game`."""
    formations = {f.id: f for f in game.formations}

    def unit_name(unit_id: str) -> Text:
        unit = game.unit(unit_id)
        return unit.name if unit is not None else Text(unit_id)

    def names(unit_ids: Iterable[str], back: bool = False) -> Text:
        found = [unit_name(u) for u in unit_ids]
        suffix = BACK if back else Text("")
        return Text(
            ", ".join(n.en + suffix.en for n in found),
            "、".join((n.ja or n.en) + suffix.ja for n in found),
        )

    def place(scenario: Scenario, at: str) -> Text:
        found = game.place(scenario, at)
        if found is None or not found.name.en or found.name.en == at:
            return Text(at)
        return Text(f"{found.name.en} ({at})", f"{found.name.ja or found.name.en} ({at})")

    def setup_groups(scenario: Scenario) -> list[SetupGroup]:
        order: list[str] = []
        named: dict[str, list[Text]] = {}
        refs: dict[str, list[str]] = {}
        for entry in scenario.setup:
            ids = ([entry.unit] if entry.unit else []) + list(entry.units)
            back = entry.face == "back"
            if entry.at not in named:
                order.append(entry.at)
            group = named.setdefault(entry.at, [])
            if ids:
                group.append(names(ids, back))
            if entry.marker:
                group.append(Text(entry.marker))
            refs.setdefault(entry.at, []).extend(f"{u}:back" if back else u for u in ids)
        return [
            SetupGroup(
                at,
                Text(
                    ", ".join(t.en for t in named[at]), "、".join(t.ja or t.en for t in named[at])
                ),
                tuple(refs[at]),
            )
            for at in order
        ]

    def values(unit: Unit) -> str:
        return "-".join(
            str(v)
            for v in unit.front.values()
            if isinstance(v, int | float) and not isinstance(v, bool)
        )

    def formation(unit: Unit) -> Text:
        found = formations.get(unit.formation)
        return found.name if found is not None else Text("")

    def card_values(card: Card) -> str:
        return ", ".join(
            f"{k} {v}"
            for k, v in card.fields.items()
            if not isinstance(v, bool) and len(str(v)) < 12
        )

    return {
        "game": game,
        "names": names,
        "place": place,
        "setup_groups": setup_groups,
        "values": values,
        "formation": formation,
        "units_of": lambda side: [u for u in game.units if u.side == side],
        "cards_of": lambda deck: [c for c in game.cards if c.deck == deck],
        "card_values": card_values,
    }
