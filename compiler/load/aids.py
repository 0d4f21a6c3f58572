"""Player aids: chart tables derived from a game's data by a Jinja2 template.

`templates/player_aids.yaml.j2` (or a game's own `player_aids.yaml.j2`) lays out the turn
record track (one per series title with its own `turns:`), each scenario's setup card and
reinforcement schedule, an order of battle per side and each deck's card list as chart YAML;
the output is read with the same strict loader as `charts.yaml`, so the aids are ordinary Chart
records in the model (checked by the same rules, drawn by the same back end). The template
decides the layout — titles, columns, which cells — and the table model stays in the data. A
broken template is a finding, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import jinja2
import yaml
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment

from compiler.backends.pergame import PerGame
from compiler.diagnostics import Finding, Location
from compiler.gcpause import no_cyclic_gc
from compiler.i18n import N_, tr, tr_text
from compiler.load.chunks import ODD_BREAKS, compose_item, items_of, lines_of
from compiler.load.convert import Converter
from compiler.load.nodes import MAPPING, SCALAR, ComposeError, YNode, compose
from compiler.load.records import pickled, read_kept, record_key, unpickled, write_kept
from compiler.load.yamlread import ReadResult, read_bytes
from compiler.model.cards import Card
from compiler.model.charts import Chart, Row
from compiler.model.common import Text, is_number
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario
from compiler.model.source import SourceFile
from compiler.model.units import Unit

TEMPLATE_NAME = "player_aids.yaml.j2"
BACK = N_("{name} (back)")
"""A piece set up on its back, in a setup card."""
MAX_OUTPUT = 16 * 1024 * 1024
"""The most a template may write (characters): as much as a data file may hold."""
MAX_COUNT = 1_000_000
"""In a game's own template: the most numbers all its `range()`s may count together, and the
longest text or list one `*` may make."""


@dataclass(frozen=True, slots=True)
class SetupGroup:
    """The pieces a scenario sets up at one location: names for the card, refs for images."""

    at: str
    names: Text
    pieces: tuple[str, ...]


def read_template(folder: Path, templates: Path) -> tuple[tuple[str, str, bool], list[Finding]]:
    """(path, text, own) of the game's own template if it has one, else the shared one. The
    game's own is read as its data files are: a regular file inside the game folder, capped."""
    own = folder / TEMPLATE_NAME
    is_own = os.path.lexists(own)
    path = own if is_own else templates / TEMPLATE_NAME
    if not is_own and not path.is_file():
        return ("", "", False), []
    data = read_bytes(str(path), str(folder) if is_own else None)
    if isinstance(data, ReadResult):
        return ("", "", False), [data.finding] if data.finding is not None else []
    try:
        return (str(path), data.decode("utf-8"), is_own), []
    except UnicodeDecodeError as err:
        where = Location(str(path), data.count(b"\n", 0, err.start) + 1)
        message = f"cannot read the template: byte 0x{data[err.start]:02x} is not valid UTF-8"
        return ("", "", False), [Finding("player-aids", where, message, "save it as UTF-8")]


def with_aids(game: GameData, cache: Path | None = None) -> tuple[GameData, list[Finding]]:
    """The game with its player aids rendered; findings when the template fails. With `cache`
    (a game's cache folder), output read before is not read again (see _read_cached)."""
    aids, findings = player_aids(game, cache)
    return replace(game, aids=aids), findings


def player_aids(
    game: GameData, cache: Path | None = None
) -> tuple[tuple[Chart, ...], list[Finding]]:
    """The derived charts of `game`, and findings for a template that fails. A game's own
    template (read whole, whatever the cache) is rendered once per game: validation asks for
    its findings, then the build for its charts."""
    if not game.aids_template[2]:
        with no_cyclic_gc():  # tens of thousands of small records made and read back
            return _player_aids(game, cache)
    made = _OWN_AIDS.of(game)
    if not made:
        with no_cyclic_gc():
            made.append(_player_aids(game, None))
    charts, findings = made[0]
    return charts, list(findings)


_OWN_AIDS: PerGame[list[tuple[tuple[Chart, ...], list[Finding]]]] = PerGame(list)
"""The player aids of the last game with its own template."""


def _player_aids(game: GameData, cache: Path | None) -> tuple[tuple[Chart, ...], list[Finding]]:
    path_text, source, own = game.aids_template
    if not source:
        return (), []
    path = Path(path_text)
    try:
        template = _sandbox().from_string(source) if own else _shared_template(source)
        rendered = _render(template, _names(game))
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
    if cache is None or own:  # a game's own template may write any shape: read it whole
        return _read(path, rendered)
    return _read_cached(path, rendered, cache / AIDS_CACHE)


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


AIDS_CACHE = "aids.cache"
CHART_ITEM = re.compile(r"^  - ", re.MULTILINE)


def _read_cached(
    path: Path, rendered: str, stored: Path
) -> tuple[tuple[Chart, ...], list[Finding]]:
    """_read, chart by chart, each kept in `stored` under a digest of its output text, its
    first line, the template's path and the loader's code: a chart whose output did not change
    is not read again (at 2,000 counters reading the output is most of what the aids cost). A
    chart that changed is read row by row (see _chart_by_rows): one changed unit changes one
    row of an order of battle. The shared template writes `charts:` and one `  - ` item per
    chart, values on one line; any other shape, and any chart that does not read clean, is
    read whole by _read, so its findings are the same. A stored chart or row is read back only
    as model records (see compiler.load.records)."""
    chunks = _chart_chunks(rendered)
    if chunks is None:
        return _read(path, rendered)
    store = _Store(read_kept(stored))
    charts: list[Chart] = []
    for first_line, text in chunks:
        key = _digest("chart", path, first_line, text)
        chart = unpickled(store.known.get(key, b""))
        if isinstance(chart, Chart):
            store.keep_chart(key)
        else:
            chart = _chart_by_rows(path, first_line, text, store, key)
            chart = chart or _chart_alone(path, first_line, text)
            if chart is None:
                return _read(path, rendered)
            store.kept[key] = pickled(chart)
        charts.append(chart)
    if store.kept != store.known:
        write_kept(stored, store.kept)
    return tuple(charts), []


class _Store:
    """The charts and rows kept by the last build (`known`), and those this one keeps."""

    def __init__(self, known: dict[bytes, bytes]) -> None:
        self.known = known
        self.kept: dict[bytes, bytes] = {}

    def keep_chart(self, key: bytes) -> None:
        """Keep a chart read back, and the rows it was read from (the next build may change
        one of them)."""
        self.kept[key] = self.known[key]
        listed = self.known.get(key + ROW_KEYS, b"")
        if len(listed) % KEY_SIZE:
            return
        self.kept[key + ROW_KEYS] = listed
        for start in range(0, len(listed), KEY_SIZE):
            row_key = listed[start : start + KEY_SIZE]
            if row_key in self.known:
                self.kept[row_key] = self.known[row_key]


ROWS_LINE = "    rows:\n"
ROW_INDENT = 6
ROW_KEYS = b"/rows"
"""After a chart's key: the keys of its rows (after the first), the one after the other."""
KEY_SIZE = 32


def _digest(kind: str, path: Path, first_line: int, text: str) -> bytes:
    """The key of a chart's or a row's output text at its first line of the output."""
    return record_key(kind, str(path), first_line, text)


def _chart_alone(path: Path, first_line: int, text: str) -> Chart | None:
    """One chart's output read alone, at its own lines; None unless it reads clean."""
    # blank lines keep the chart at its own line of the output
    read, findings = _read(path, "charts:\n" + "\n" * (first_line - 2) + text)
    return read[0] if not findings and len(read) == 1 else None


def _chart_by_rows(
    path: Path, first_line: int, text: str, store: _Store, key: bytes
) -> Chart | None:
    """A chart whose `rows:` come last, read as its head with the first row, then row by row
    (each row kept in `store`; see compiler.load.chunks): the chart a read of its whole text
    gives, with the same lines. None for another shape, or a row that does not read clean."""
    lines = lines_of(text)
    if lines is None or ROWS_LINE not in lines:
        return None
    at = lines.index(ROWS_LINE)
    rows = items_of(lines[at + 1 :], first_line + at + 1, ROW_INDENT)
    if rows is None:
        return None
    head = _chart_alone(path, first_line, "".join(lines[: at + 1]) + rows[0][1])
    if head is None or len(head.rows) != 1:
        return None
    found = [head.rows[0]]
    locs = dict(head.locs)
    row_keys: list[bytes] = []
    for index, (line, row_text) in enumerate(rows[1:], 1):
        row_key = _digest("row", path, line, row_text)
        stored = store.known.get(row_key, b"")
        hit = _unpickled_row(stored)
        read = hit or _row_alone(path, line, row_text)
        if read is None:
            return None
        row, where = read
        store.kept[row_key] = stored if hit else pickled(read)
        row_keys.append(row_key)
        found.append(row)
        locs[f"rows.{index}"] = where
    store.kept[key + ROW_KEYS] = b"".join(row_keys)
    return replace(head, rows=tuple(found), locs=MappingProxyType(locs))


def _row_alone(path: Path, line: int, text: str) -> tuple[Row, tuple[int, int]] | None:
    """One row's output (a `      - ` item) read alone, and where it starts; None unless it
    reads clean."""
    item = compose_item(text, line)
    if item is None:
        return None
    converter = Converter(f"{path} (output)")
    row = converter.convert_root(item, Row)
    if converter.findings or not isinstance(row, Row):
        return None
    return row, (item.line, item.column)


def _unpickled_row(data: bytes) -> tuple[Row, tuple[int, int]] | None:
    found = unpickled(data)
    if not isinstance(found, tuple) or len(found) != 2 or not isinstance(found[0], Row):
        return None
    where = found[1]
    if not (isinstance(where, tuple) and len(where) == 2 and all(type(n) is int for n in where)):
        return None
    return found[0], (where[0], where[1])


def _chart_chunks(rendered: str) -> list[tuple[int, str]] | None:
    """(first line, text) of each chart of a `charts:` list, or None for another shape."""
    head = "charts:\n"
    if any(odd in rendered for odd in ODD_BREAKS):
        return None  # YAML breaks lines there too: counted here at LF only
    starts = [m.start() for m in CHART_ITEM.finditer(rendered)]
    if not rendered.startswith(head) or not starts or starts[0] != len(head):
        return None
    chunks = []
    line = 2
    for start, end in zip(starts, [*starts[1:], len(rendered)], strict=True):
        chunks.append((line, rendered[start:end]))
        line += rendered.count("\n", start, end)
    return chunks


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


def _render(template: jinja2.Template, names: dict[str, object]) -> str:
    """The template's output, stopped once it passes MAX_OUTPUT characters."""
    parts: list[str] = []
    size = 0
    for part in template.generate(**names):
        size += len(part)
        if size > MAX_OUTPUT:
            raise SecurityError(f"the output passes {MAX_OUTPUT // 1048576} MiB")
        parts.append(part)
    return "".join(parts)


def _configure(env: jinja2.Environment) -> jinja2.Environment:
    env.filters["t"] = _yaml_value
    env.filters["ids"] = lambda values: _json(list(values))
    env.globals["tr"] = tr_text
    return env


@lru_cache(maxsize=4)
def _shared_template(source: str) -> jinja2.Template:
    """The shared template compiled, once per process (its environment keeps no state; a
    game's own template gets a fresh sandbox each time, which counts its loops)."""
    return _environment().from_string(source)


def _environment() -> jinja2.Environment:
    """The shared template's environment (the template ships with countermix)."""
    return _configure(
        jinja2.Environment(
            undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
        )
    )


class _Sandbox(SandboxedEnvironment):
    """A game's own template comes with the game's data, so it is no more trusted than the
    data: Jinja2's sandbox (no Python internals: `__class__`, `__globals__` ... are refused, so
    no code runs), `range()` counting at most MAX_COUNT numbers in all, and no `*` or `**` that
    makes a huge text, list or number."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self) -> None:
        super().__init__(
            undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
        )
        self.counted = 0
        self.globals["range"] = self.budget_range

    def budget_range(self, *args: int) -> range:
        numbers = range(*args)
        self.counted += len(numbers)
        if self.counted > MAX_COUNT:
            raise SecurityError(f"its loops count more than {MAX_COUNT:,} numbers")
        return numbers

    def call_binop(
        self, context: jinja2.runtime.Context, operator: str, left: object, right: object
    ) -> object:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(times, int):
                    if len(seq) * times > MAX_COUNT:
                        raise SecurityError(f"`*` would make more than {MAX_COUNT:,} items")
        if operator == "**" and isinstance(right, int) and abs(right) > 64:
            raise SecurityError("`**` with an exponent over 64")
        return super().call_binop(context, operator, left, right)


def _sandbox() -> jinja2.Environment:
    return _configure(_Sandbox())


def _yaml_value(value: object) -> str:
    """A text as {en, ja} (JSON is YAML), anything else as a JSON string."""
    if isinstance(value, Text):
        return _json({"en": value.en, "ja": value.ja or value.en})
    return _json("" if value is None else str(value))


_json = json.JSONEncoder(ensure_ascii=False).encode
"""json.dumps(value, ensure_ascii=False), without making an encoder for each value."""


def _names(game: GameData) -> dict[str, object]:
    """What the template may use besides `game`."""
    formations = {f.id: f for f in game.formations}

    def unit_name(unit_id: str) -> Text:
        unit = game.unit(unit_id)
        return unit.name if unit is not None else Text(unit_id)

    def names(unit_ids: Iterable[str], back: bool = False) -> Text:
        found = [unit_name(u) for u in unit_ids]

        def named(name: Text, lang: str) -> str:
            return tr(BACK, lang, name=name.get(lang)) if back else name.get(lang)

        return Text(
            ", ".join(named(n, "en") for n in found),
            "、".join(named(n, "ja") for n in found),
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
        return "-".join(str(v) for v in unit.front.values() if is_number(v))

    def formation(unit: Unit) -> Text:
        found = formations.get(unit.formation)
        return found.name if found is not None else Text("")

    def side_name(side_id: str) -> Text:
        """A side's name (a turn's `side:` is its id), the id itself when no side has it."""
        found = next((s for s in game.game.sides if s.id == side_id), None)
        return found.name if found is not None else Text(side_id)

    def card_values(card: Card) -> str:
        return ", ".join(
            f"{k} {v}"
            for k, v in card.fields.items()
            if not isinstance(v, bool) and len(str(v)) < 12
        )

    return {
        "game": game,
        "turn_tracks": game.game.turn_tracks(),
        "names": names,
        "place": place,
        "setup_groups": setup_groups,
        "values": values,
        "formation": formation,
        "units_of": lambda side: [u for u in game.units if u.side == side],
        "cards_of": lambda deck: [c for c in game.cards if c.deck == deck],
        "card_values": card_values,
        "side_name": side_name,
    }
