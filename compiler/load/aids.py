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

import hashlib
import importlib.util
import json
import marshal
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from itertools import chain
from operator import attrgetter, itemgetter
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import yaml

from compiler.backends.pergame import PerGame
from compiler.diagnostics import Finding, Location
from compiler.gcpause import no_cyclic_gc
from compiler.i18n import N_, catalogue_fingerprint, tr, tr_text
from compiler.load.chunks import ODD_BREAKS, compose_item, items_of, lines_of
from compiler.load.convert import Converter
from compiler.load.nodes import MAPPING, SCALAR, ComposeError, YNode, compose
from compiler.load.records import pickled, read_kept, record_key, unpickled, write_kept
from compiler.load.yamlread import ReadResult, read_bytes
from compiler.model.cards import Card
from compiler.model.charts import Chart, Row
from compiler.model.common import ItemLocs, Text, is_number
from compiler.model.digests import (
    are_digests,
    content_digest,
    content_digests,
    digest_of,
    remember,
)
from compiler.model.gamedata import GameData
from compiler.model.rowruns import RowRun, RowRuns, row_pieces, row_terrain
from compiler.model.scenarios import Reinforcement, Scenario
from compiler.model.source import SourceFile
from compiler.model.units import Unit

if TYPE_CHECKING:
    import jinja2

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
    store = None if cache is None or own else _Store(read_kept(cache / AIDS_CACHE))
    framed = store is not None and _is_framed(source)
    if store is not None and cache is not None and framed:
        made = _from_frame(game, path, source, cache / AIDS_CACHE, store)
        if made is not None:
            return made
    import jinja2  # here, not at the top: loading a game, a check, `--version` need none of it

    rows = None if store is None else _KeptRows(store, source)
    marks = _Marks() if framed else None
    try:
        template = _sandbox().from_string(source) if own else _shared_template(source)
        rendered = _render(template, _names(game, rows, marks))
        if marks is not None and store is not None:
            filled = marks.filled(rendered, store, _frame_key(game, source))
            if filled is None:  # the marks were not written as they were given
                rendered = _render(template, _names(game, _KeptRows(store, source)))
            else:
                rendered = filled
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
    if cache is None or store is None:  # a game's own template may write any shape
        return _read(path, rendered)
    return _read_cached(path, rendered, cache / AIDS_CACHE, store)


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
    path: Path, rendered: str, stored: Path, store: _Store | None = None
) -> tuple[tuple[Chart, ...], list[Finding]]:
    """_read, chart by chart, each kept in `stored` under a digest of its output text, its
    first line, the template's path and the loader's code: a chart whose output did not change
    is not read again (at 2,000 counters reading the output is most of what the aids cost). A
    chart whose rows come last is kept as parts (see _chart_by_rows): its head with the first
    row, then its other rows in runs of RUN_ROWS; a chart that changed reads again only the
    parts whose output changed (one changed unit changes one run of an order of battle), and
    no part that did not change is written again. The shared template writes `charts:` and
    one `  - ` item per chart, values on one line; any other shape, and any chart that does
    not read clean, is read whole by _read, so its findings are the same. A stored part is
    read back only as model records (see compiler.load.records). `store`: what was read from
    `stored` before the render (which took its rows from there: see _KeptRows)."""
    chunks = _chart_chunks(rendered)
    if chunks is None:
        return _read(path, rendered)
    store = store or _Store(read_kept(stored))
    charts: list[Chart] = []
    for first_line, text in chunks:
        key = _digest("chart", path, first_line, text)
        chart = store.chart(key, path, first_line, text)
        if chart is None:
            chart = _chart_by_rows(path, first_line, text, store, key)
        if chart is None:
            chart = _chart_alone(path, first_line, text)
            if chart is None:
                return _read(path, rendered)
            store.kept[key] = pickled(chart)
        charts.append(chart)
    if store.kept != store.known:
        write_kept(stored, store.kept, store.known)
    return tuple(charts), []


PARTS = b"/parts"
"""After a chart's key: the keys of its parts (its head, then its runs of rows), the one after
the other, and a check of them (see _listed)."""
KEY_SIZE = 32
RUN_ROWS = 16
"""Rows kept together: a changed row costs reading this many rows again, an unchanged chart
costs reading back one stored part per this many rows."""
Run = tuple[tuple[Row, tuple[int, int], str], ...]
"""Rows of a chart read, each with where it starts (line, column) and its content digest
(compiler.model.digests), told to the model when the run is read back: the charts' keys are
made of their rows' digests (compiler.backends.charts.build.chart_key), so a warm build does
not spell out again the thousands of rows that did not change."""


class _Store:
    """The charts and their parts kept by the last build (`known`), and those this one keeps
    (what this build used: see compiler.load.records.write_kept)."""

    def __init__(self, known: dict[bytes, bytes]) -> None:
        self.known = known
        self.kept: dict[bytes, bytes] = {}

    def chart(self, key: bytes, path: Path, first_line: int, text: str) -> Chart | None:
        """The chart kept under `key`, whole or as parts; None when there is none, or a part
        is missing or damaged. Its rows kept in runs are read back only when asked for
        (compiler.model.rowruns); a run whose rows turn out damaged then is read again from
        the chart's output `text` (at `first_line` of `path`)."""
        data = self.known.get(key)
        if data is not None:
            whole = unpickled(data)
            if isinstance(whole, Chart):
                self.kept[key] = data
                return whole
        listed = self.known.get(key + PARTS, b"")
        keys = _part_keys(key, listed)
        if keys is None:
            return None
        head = self.head(keys[0])
        again = [partial(_rows_of_text, path, first_line, text, n) for n in range(len(keys) - 1)]
        runs = self.runs(keys[1:], again)
        if head is None or any(run is None for run in runs):
            return None
        self.kept[key + PARTS] = listed
        return _assembled(head, cast(list[_KeptRun], runs))

    def head(self, key: bytes) -> Chart | None:
        """A chart's head with its first row, kept under `key`."""
        data = self.known.get(key, b"")
        head = unpickled(data)
        if not isinstance(head, Chart) or len(head.rows) != 1:
            return None
        self.kept[key] = data
        return head

    def runs(self, keys: list[bytes], again: Sequence[ReadAgain]) -> list[_KeptRun | None]:
        """The runs of rows kept under `keys` (None for one missing or not whole), their rows
        not read back yet (see _kept_row_run); `again` reads each one's rows from the output.
        Checked together first (_whole_runs: per run, the checks cost more than reading the
        run's values), then, when that fails, one by one."""
        stored = [self.known.get(key, b"") for key in keys]
        there = [number for number, data in enumerate(stored) if data]  # (a changed run: not)
        whole = _whole_runs([stored[n] for n in there], [again[n] for n in there])
        if whole is None:
            found = list(map(_kept_row_run, stored, again))
        else:
            found = [None] * len(keys)
            for number, run in zip(there, whole, strict=True):
                found[number] = run
        self.kept.update(
            (key, data) for key, data, run in zip(keys, stored, found, strict=True) if run
        )
        return found


RUN_FORMAT = "countermix-aid-rows-2"
"""What a kept run of rows starts with (see _run_entry)."""
ReadAgain = Callable[[], "tuple[Row, ...] | None"]
"""What reads a run's rows from the output again (None when they do not read clean)."""


class _KeptRun(NamedTuple):
    """A run of rows kept: the rows, not read back yet, and where each starts."""

    run: RowRun
    wheres: tuple[tuple[int, int], ...]


def _run_entry(run: Run) -> bytes:
    """A run of rows as kept: each row's content digest, pieces, terrain and place, then the
    rows pickled (read back only when one of them is asked for: see compiler.model.rowruns)."""
    rows = tuple(map(_ROW, run))
    return marshal.dumps(
        (
            RUN_FORMAT,
            tuple(map(_DIGEST, run)),
            tuple(row_pieces(rows)),
            tuple(row_terrain(rows)),
            tuple(map(_WHERE, run)),
            pickled(rows),
        )
    )


def _whole_runs(stored: list[bytes], again: Sequence[ReadAgain]) -> list[_KeptRun | None] | None:
    """The runs `_run_entry` kept as `stored`, their rows not read back yet, when every one
    has that shape (checked in passes over all of them together); None when one has not
    (each is then checked alone: _kept_row_run)."""
    try:
        found = list(map(marshal.loads, stored))
    except (EOFError, ValueError, TypeError):
        return None
    if not found:
        return []
    if set(map(type, found)) != {tuple} or set(map(len, found)) != {6}:
        return None
    formats, digests, pieces, terrain, wheres, rows = zip(*found, strict=True)
    columns = (digests, pieces, terrain, wheres)
    if set(formats) != {RUN_FORMAT} or set(map(type, rows)) != {bytes}:
        return None
    if any(set(map(type, column)) != {tuple} for column in columns):
        return None
    counts = list(map(len, digests))
    if 0 in counts or any(list(map(len, column)) != counts for column in columns[1:]):
        return None
    if _odd_rows(*map(list, map(chain.from_iterable, columns))):
        return None
    runs = zip(digests, pieces, terrain, wheres, rows, again, strict=True)
    return [
        _KeptRun(RowRun(ds, ps, ts, partial(_rows_back, data, len(ds), read)), where)
        for ds, ps, ts, where, data, read in runs
    ]


def _odd_rows(
    digests: list[object], pieces: list[object], terrain: list[object], wheres: list[object]
) -> bool:
    """Whether kept rows' digests, pieces, terrain and places are not what a run keeps."""
    if not are_digests(digests) or not set(map(type, terrain)) <= {str}:
        return True
    if not set(map(type, pieces)) <= {tuple}:
        return True
    if not set(map(type, chain.from_iterable(cast(list[tuple[object, ...]], pieces)))) <= {str}:
        return True
    if not set(map(type, wheres)) <= {tuple}:
        return True
    places = cast(list[tuple[object, ...]], wheres)
    return not set(map(len, places)) <= {2} or not set(map(type, chain(*places))) <= {int}


def _kept_row_run(data: bytes, again: ReadAgain) -> _KeptRun | None:
    """The run `_run_entry` kept as `data`, when it has that shape (the checks of
    _whole_runs); its rows read back when first asked for (or read `again` from the output
    when they are damaged)."""
    found = _whole_runs([data], [again])
    return None if found is None else found[0]


def _rows_back(data: bytes, count: int, again: ReadAgain) -> tuple[Row, ...]:
    """A kept run's `count` rows read back from their pickle, else (damaged) read again from
    the output."""
    found = unpickled(data)
    if type(found) is tuple and len(found) == count and set(map(type, found)) == {Row}:
        return cast(tuple[Row, ...], found)
    rows = again()
    if rows is None:  # the output read clean when it was kept: never, unless the code changed
        raise ValueError("a kept run of a player aid's rows could not be read again")
    return rows


def _rows_of_text(path: Path, first_line: int, text: str, number: int) -> tuple[Row, ...] | None:
    """The rows of run `number` of a chart's output `text` (as _chart_by_rows splits it),
    read again; None when they do not read clean."""
    split = _split_rows(first_line, text)
    if split is None:
        return None
    _lines, _at, rows = split
    return _group_rows(path, rows[1 + number * RUN_ROWS : 1 + (number + 1) * RUN_ROWS])


def _split_rows(first_line: int, text: str) -> tuple[list[str], int, list[tuple[int, str]]] | None:
    """A chart's output (at `first_line`) whose `rows:` come last as its lines, the number of
    the `rows:` line and its rows (each row's first line and text); None for another shape."""
    lines = lines_of(text)
    if lines is None or ROWS_LINE not in lines:
        return None
    at = lines.index(ROWS_LINE)
    rows = items_of(lines[at + 1 :], first_line + at + 1, ROW_INDENT)
    return None if rows is None else (lines, at, rows)


def _group_rows(path: Path, group: list[tuple[int, str]]) -> tuple[Row, ...] | None:
    """The rows of a run read alone; None unless every row reads clean."""
    run = _run_alone(path, group) if group else None
    return None if run is None else tuple(map(_ROW, run))


class _KeptRows:
    """Rows of the shared template's output kept between builds (`unit_rows`), in runs of
    RUN_UNITS units of a side: each run under a key of the template's text, the loader's code
    (aids.py is part of it), the side and the run's number, and checked by the content digests
    of the records its rows show (each unit and the unit's formation: see
    compiler.model.digests, which the loader tells the digests of the units it reads back).
    An unchanged run is one look-up; a run that changed writes again only the rows whose
    records changed (each row is kept in the run with what it shows)."""

    def __init__(self, store: _Store, source: str) -> None:
        self.store = store
        template = hashlib.sha256(source.encode("utf-8")).hexdigest()
        self.seed = record_key("unit-rows", template)
        self.scenario_seed = record_key("scenario-rows", template, _jinja_version())
        self.calls: dict[str, int] = {}
        self.scenario_calls: dict[tuple[str, str], int] = {}

    def rows(
        self, side: str, units: list[Unit], formation_of: Callable[[Unit], object], write: Writer
    ) -> str:
        """What `write(unit)` gives for each unit, one after the other."""
        call = self.calls[side] = self.calls.get(side, 0) + 1
        parts: list[str] = []
        every = _shown(units, formation_of)
        # what json.dumps([side, call, number]) writes, the side's part quoted once
        head = json.dumps([side, call])[:-1]
        for number, start in enumerate(range(0, len(units), RUN_UNITS)):
            group = units[start : start + RUN_UNITS]
            shown = every[start : start + RUN_UNITS]
            where = f"{head}, {number}]".encode()
            key = hashlib.sha256(self.seed + where).digest()
            check = hashlib.sha256(self.seed + where + "\n".join(shown).encode("ascii")).digest()
            parts.append(self.run(key, check, group, shown, formation_of, write))
        return "".join(parts)

    def run(
        self,
        key: bytes,
        check: bytes,
        units: list[Unit],
        shown: list[str],
        formation_of: Callable[[Unit], object],
        write: Writer,
    ) -> str:
        """The rows of a run of units: kept as they are, or written again where what a row
        shows changed."""
        stored = self.store.known.get(key, b"")
        before = _kept_run(stored[KEY_SIZE:])
        if before is not None and stored[:KEY_SIZE] == check and before[0] == shown:
            self.store.kept[key] = stored
            return "".join(before[1])
        known = {} if before is None else dict(zip(*before, strict=True))
        texts = [
            known[what] if what in known else self.row(unit, formation_of(unit), write)
            for unit, what in zip(units, shown, strict=True)
        ]
        data = marshal.dumps((tuple(shown), tuple(texts)))
        self.store.kept[key] = check + _check(data) + data
        return "".join(texts)

    def row(self, unit: Unit, formation: object, write: Writer) -> str:
        """One row written (what it shows, `formation`, is in the run's check)."""
        return str(write(unit))

    def scenario_rows(
        self, kind: str, scenario: str, shown: str, written: Callable[[], str]
    ) -> str:
        """The rows of one of a scenario's charts (`kind`: "setup" or "arrivals"): kept as
        they were when what they show (`shown`: see _scenario_shown) is the same, else
        `written()` (the template's loop over them) and kept for the next build."""
        call = self.scenario_calls[(kind, scenario)] = (
            self.scenario_calls.get((kind, scenario), 0) + 1
        )
        where = json.dumps([kind, scenario, call]).encode("utf-8")
        key = hashlib.sha256(self.scenario_seed + where).digest()
        check = hashlib.sha256(self.scenario_seed + where + shown.encode("utf-8")).digest()
        stored = self.store.known.get(key, b"")
        if stored[:KEY_SIZE] == check:
            text = _kept_text(stored[KEY_SIZE:])
            if text is not None:
                self.store.kept[key] = stored
                return text
        text = written()
        data = text.encode("utf-8")
        self.store.kept[key] = check + _check(data) + data
        return text


FRAMED_TEMPLATE = "3ebaf0c02f04faf1393e5584f94a836104b1c38f345730f18f86d58924c7383a"
"""The SHA-256 of the shipped template (templates/player_aids.yaml.j2) whose frame is kept
(see _Marks): all it writes besides what unit_rows, setup_rows and arrival_rows give reads
only what _frame_key digests, and its `oob_row` macro writes what _oob_writer writes (both
checked by hand, and by tests/test_aids_frame.py, which fails when the template changes).
Any other template is rendered every time."""


def _is_framed(source: str) -> bool:
    return hashlib.sha256(source.encode("utf-8")).hexdigest() == FRAMED_TEMPLATE


class _Marks:
    """While the shared template renders with a cache: each text that unit_rows, setup_rows
    and arrival_rows give is written as a mark (NUL, a number of this render, NUL) and kept
    here with the call it answers. The output with its marks is the template's frame, kept
    under _frame_key: a warm build whose frame is kept fills it with the calls' kept rows
    (_from_frame) without rendering, nor importing Jinja2."""

    def __init__(self) -> None:
        self.nonce = os.urandom(8).hex()
        self.calls: list[tuple[str, str]] = []
        self.texts: list[str] = []

    def mark(self, call: tuple[str, str], text: str) -> str:
        self.calls.append(call)
        self.texts.append(text)
        return f"\0{self.nonce}:{len(self.texts) - 1}\0"

    def filled(self, rendered: str, store: _Store, key: bytes) -> str | None:
        """The output with each mark replaced by its text, its frame kept in `store` under
        `key`; None when the output does not hold the marks, each once and in order (a NUL
        in the data, or a template that changed a mark)."""
        parts = rendered.split("\0")
        marks = [f"{self.nonce}:{number}" for number in range(len(self.texts))]
        if len(parts) != 2 * len(marks) + 1 or parts[1::2] != marks:
            return None
        segments = parts[0::2]
        data = marshal.dumps((tuple(segments), tuple(self.calls)))
        store.kept[key] = _check(data) + data
        return _interleaved(segments, self.texts)


def _interleaved(segments: list[str], texts: list[str]) -> str:
    """The frame's segments with the rows' texts between them."""
    return "".join(chain.from_iterable(zip(segments, [*texts, ""], strict=True)))


def _frame_key(game: GameData, source: str) -> bytes:
    """The key of the shared template's frame: what the frame reads (the game's record with
    its sides and turn tracks, the scenarios, decks and cards, which sides have units, the
    tool's words) and the code that writes it (the template, Jinja2, compiler.i18n; the
    loader's, in record_key)."""
    sides = sorted(set(map(_SIDE, game.units)))
    parts = [
        hashlib.sha256(source.encode("utf-8")).hexdigest(),
        _jinja_version(),
        catalogue_fingerprint(),
        _i18n_code(),
        content_digest(game.game),
        json.dumps(sides),
        *content_digests(game.scenarios),
        "decks",
        *content_digests(game.decks),
        "cards",
        *content_digests(game.cards),
    ]
    return record_key("aids-frame", "\n".join(parts))


_SIDE = attrgetter("side")


@lru_cache(maxsize=1)
def _i18n_code() -> str:
    """A digest of compiler.i18n's code (how the tool's words are filled in)."""
    from compiler import i18n

    return hashlib.sha256(Path(i18n.__file__).read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def _jinja_version() -> str:
    """Jinja2's version, read from its package without importing it (65 ms a process)."""
    loaded = sys.modules.get("jinja2")
    if loaded is not None:
        return str(loaded.__version__)
    spec = importlib.util.find_spec("jinja2")
    origin = None if spec is None else spec.origin
    try:
        text = Path(origin).read_text(encoding="utf-8") if origin else ""
    except (OSError, UnicodeDecodeError):
        text = ""
    found = re.search(r'^__version__ = "([^"\n]+)"$', text, re.MULTILINE)
    if found is not None:
        return found[1]
    import jinja2

    return str(jinja2.__version__)


def _kept_frame(kept: bytes | None) -> tuple[list[str], list[tuple[str, str]]] | None:
    """A frame kept by _Marks.filled (its segments, the calls between them), when whole."""
    found = None if kept is None else _checked_pair(kept)
    if found is None:
        return None
    segments, calls = found
    if len(segments) != len(calls) + 1 or not set(map(type, segments)) <= {str}:
        return None
    if not set(map(type, calls)) <= {tuple} or not set(map(len, calls)) <= {2}:
        return None
    if not all(kind in FRAME_CALLS and type(at) is str for kind, at in calls):
        return None
    return list(segments), list(calls)


FRAME_CALLS = frozenset({"units", "setup", "arrivals"})


class _NeedsRender(Exception):
    """A row that is not kept, which only the template writes."""


def _needs_render(*_args: object) -> str:
    raise _NeedsRender


def _from_frame(
    game: GameData, path: Path, source: str, stored: Path, store: _Store
) -> tuple[tuple[Chart, ...], list[Finding]] | None:
    """The player aids of the shared template from its kept frame and kept rows: what the
    template writes, without rendering it (see _Marks); a unit's row that changed is written
    by _oob_writer. None when the frame is not kept, or a scenario's rows changed (then the
    template is rendered)."""
    key = _frame_key(game, source)
    entry = store.known.get(key)
    frame = _kept_frame(entry)
    scenarios = {scenario.id: scenario for scenario in game.scenarios}
    if frame is None or entry is None or len(scenarios) != len(game.scenarios):
        return None
    segments, calls = frame
    names = _names(game, _KeptRows(store, source))
    unit_rows = cast(Callable[[str, Writer], str], names["unit_rows"])
    setup_rows = cast(Callable[[Scenario, object], str], names["setup_rows"])
    arrival_rows = cast(Callable[[Scenario, object, object], str], names["arrival_rows"])
    write = _oob_writer(names)
    texts: list[str] = []
    try:
        for kind, at in calls:
            if kind == "units":
                texts.append(unit_rows(at, write))
            elif at not in scenarios:
                return None
            elif kind == "setup":
                texts.append(setup_rows(scenarios[at], _needs_render))
            else:
                texts.append(arrival_rows(scenarios[at], (), _needs_render))
    except _NeedsRender:
        return None
    rendered = _interleaved(segments, texts)
    if len(rendered) > MAX_OUTPUT:
        return None  # the render says why
    store.kept[key] = entry
    return _read_cached(path, rendered, stored, store)


def _oob_writer(names: dict[str, object]) -> Writer:
    """What the shipped template's `oob_row` macro writes for a unit (see FRAMED_TEMPLATE),
    written without Jinja2: `t` of its name, formation, type, size, values and copies (as
    Jinja2's `string` filter gives them), `ids` of its id."""
    formation = cast(Callable[[Unit], object], names["formation"])
    values = cast(Callable[[Unit], object], names["values"])

    def write(unit: Unit) -> str:
        copies: object = unit.copies
        return "".join(
            (
                "\n      - label: ",
                _yaml_value(unit.name),
                "\n        cells: [",
                _yaml_value(formation(unit)),
                ", ",
                _yaml_value(unit.type),
                ", ",
                _yaml_value(unit.size),
                ", ",
                _yaml_value(values(unit)),
                ", ",
                _yaml_value(copies if isinstance(copies, str) else str(copies)),
                "]\n        pieces: ",
                _ids([unit.id]),
            )
        )

    return write


RUN_UNITS = 32
"""Units whose rows are kept together: an unchanged run costs one look-up."""
Writer = Callable[[Unit], object]
"""What the template writes for one unit (its `oob_row` macro)."""


def _shown(units: list[Unit], formation_of: Callable[[Unit], object]) -> list[str]:
    """What each unit's row shows, as content digests: the unit's and its formation's (none
    when it has none). `formation_of` gives a unit's formation by the unit's `formation` id,
    so it is asked once per formation id: a few hundred formations, thousands of units (the
    units' digests are told by the loader: one look-up each)."""
    ids = list(map(_FORMATION_ID, units))
    first = dict(zip(reversed(ids), reversed(units), strict=True))  # a unit of each id
    formations = {key: _digest_or_none(formation_of(unit)) for key, unit in first.items()}
    return list(map(_JOINED, content_digests(units), map(formations.__getitem__, ids)))


_FORMATION_ID = attrgetter("formation")
_JOINED = "{}:{}".format
"""A unit's digest and its formation's, as _shown writes them."""


def _digest_or_none(record: object) -> str:
    return "" if record is None else content_digest(record)


def _scenario_shown(game: GameData, scenario: Scenario, unit_name: Callable[[str], Text]) -> str:
    """What a scenario's setup card and reinforcement rows may show besides the template and
    the code (in the key's seed): the scenario, the game and the maps (the places named) as
    content digests, the name of each unit its setup and arrivals name, and the words put
    after a piece set up on its back in each language. Worked out from the records, never
    from the rows, so that a kept scenario costs no template call per row."""
    ids: list[str] = []
    for entry in scenario.setup:
        if entry.unit:
            ids.append(entry.unit)
        ids.extend(entry.units)
    for arrival in scenario.reinforcements:
        ids.extend(arrival.units)
    parts = [
        content_digest(scenario),
        content_digest(game.game),
        *map(content_digest, game.maps),
        tr(BACK, "en", name="\0"),
        tr(BACK, "ja", name="\0"),
        json.dumps([[name.en, name.ja] for name in map(unit_name, ids)], ensure_ascii=False),
    ]
    return "\n".join(parts)


def _checked_pair(kept: bytes) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """The two tuples marshalled in `kept` after their check (_check), when the check holds
    and they read back as two tuples; their items are the caller's to check. Marshal reads
    back what it wrote much faster than JSON (a run per 32 units)."""
    data = kept[CHECK_SIZE:]
    if len(kept) < CHECK_SIZE or _check(data) != kept[:CHECK_SIZE]:
        return None
    try:
        found = marshal.loads(data)
    except (EOFError, ValueError, TypeError, MemoryError, OverflowError):
        return None
    if type(found) is not tuple or len(found) != 2 or set(map(type, found)) != {tuple}:
        return None
    first, second = found
    return first, second


def _kept_run(kept: bytes) -> tuple[list[str], list[str]] | None:
    """The rows of a run kept by _KeptRows.run (what each shows, its text), when whole."""
    found = _checked_pair(kept)
    if found is None:
        return None
    shown, texts = found
    if len(shown) != len(texts) or not set(map(type, chain(shown, texts))) <= {str}:
        return None
    return list(shown), list(texts)


CHECK_SIZE = 4


def _kept_text(kept: bytes) -> str | None:
    """A scenario's rows kept by _KeptRows.scenario_rows (after their check), when whole."""
    data = kept[CHECK_SIZE:]
    if len(kept) < CHECK_SIZE or _check(data) != kept[:CHECK_SIZE]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _check(data: bytes) -> bytes:
    """What a kept run of rows starts with after its check: the CRC-32 of its bytes (a run
    cut short or damaged is no run: see _kept_run)."""
    return zlib.crc32(data).to_bytes(CHECK_SIZE, "big")


ROWS_LINE = "    rows:\n"
ROW_INDENT = 6


def _digest(kind: str, path: Path, first_line: int, text: str) -> bytes:
    """The key of a chart's or a part's output text at its first line of the output."""
    return record_key(kind, str(path), first_line, text)


def _chart_alone(path: Path, first_line: int, text: str) -> Chart | None:
    """One chart's output read alone, at its own lines; None unless it reads clean."""
    # blank lines keep the chart at its own line of the output
    read, findings = _read(path, "charts:\n" + "\n" * (first_line - 2) + text)
    return read[0] if not findings and len(read) == 1 else None


def _chart_by_rows(
    path: Path, first_line: int, text: str, store: _Store, key: bytes
) -> Chart | None:
    """A chart whose `rows:` come last, read as its head with the first row, then its other
    rows in runs of RUN_ROWS (each row read alone; see compiler.load.chunks), each part kept in
    `store` under a digest of its text and lines, and their keys under the chart's: the chart
    a read of its whole text gives, with the same lines. None for another shape, or a row
    that does not read clean."""
    split = _split_rows(first_line, text)
    if split is None:
        return None
    lines, at, rows = split
    head_text = "".join(lines[: at + 1]) + rows[0][1]
    head_key = _digest("head", path, first_line, head_text)
    head = store.head(head_key)
    if head is None:
        head = _chart_alone(path, first_line, head_text)
        if head is None or len(head.rows) != 1:
            return None
        store.kept[head_key] = pickled(head)
    groups = [rows[start : start + RUN_ROWS] for start in range(1, len(rows), RUN_ROWS)]
    run_keys = [_run_key(path, group) for group in groups]
    keys = [head_key]
    again = [partial(_group_rows, path, group) for group in groups]
    found: list[_KeptRun] = []
    for group, run_key, kept in zip(groups, run_keys, store.runs(run_keys, again), strict=True):
        if kept is None:
            run = _run_alone(path, group)
            if run is None:
                return None
            store.kept[run_key] = _run_entry(run)
            rows_read = tuple(map(_ROW, run))
            digests = tuple(map(_DIGEST, run))
            made = RowRun.at_hand(rows_read, digests)
            kept = _KeptRun(made, tuple(map(_WHERE, run)))
        keys.append(run_key)
        found.append(kept)
    store.kept[key + PARTS] = _listed(key, keys)
    return _assembled(head, found)


def _listed(key: bytes, parts: list[bytes]) -> bytes:
    """The keys of a chart's parts as kept: one after the other, then a digest of them and the
    chart's key (a list cut short or damaged is no list: see _part_keys)."""
    joined = b"".join(parts)
    return joined + record_key("parts", key, joined)


def _part_keys(key: bytes, listed: bytes) -> list[bytes] | None:
    """The keys of a chart's parts kept by _listed; None when they are not whole."""
    if len(listed) < 2 * KEY_SIZE or len(listed) % KEY_SIZE:
        return None
    joined, check = listed[:-KEY_SIZE], listed[-KEY_SIZE:]
    if record_key("parts", key, joined) != check:
        return None
    return [joined[start : start + KEY_SIZE] for start in range(0, len(joined), KEY_SIZE)]


def _run_key(path: Path, rows: list[tuple[int, str]]) -> bytes:
    """The key of a run of rows: its first line, each row's length (so no two runs give the
    same text) and the rows' texts (the rows follow one another, so the other rows' lines
    follow from them), joined in passes that stay in C (a changed order of battle keys a few
    hundred runs)."""
    texts = list(map(_TEXT, rows))
    lengths = ",".join(map(str, map(len, texts)))
    return _digest("rows", path, rows[0][0], lengths + "\n" + "".join(texts))


_TEXT = itemgetter(1)


def _run_alone(path: Path, rows: list[tuple[int, str]]) -> Run | None:
    """A run of rows read row by row, each with its content digest (remembered by the model);
    None unless every row reads clean."""
    found = []
    for line, text in rows:
        read = _row_alone(path, line, text)
        if read is None:
            return None
        row, where = read
        digest = digest_of(row)
        remember(row, digest)
        found.append((row, where, digest))
    return tuple(found)


def _assembled(head: Chart, runs: list[_KeptRun]) -> Chart:
    """The chart of a head (with its first row) and its other rows kept in runs, as a whole
    read gives it (its rows read back when asked for: compiler.model.rowruns)."""
    # the rows' positions made a dict only when asked for (see ItemLocs)
    wheres = list(chain.from_iterable(kept.wheres for kept in runs))
    locs = ItemLocs(head.locs, "rows.", 1, wheres)
    rows = RowRuns.of((head.rows[0],), [kept.run for kept in runs])
    return replace(head, rows=cast(tuple[Row, ...], rows), locs=locs)


_ROW, _WHERE, _DIGEST = itemgetter(0), itemgetter(1), itemgetter(2)


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


def _chart_chunks(rendered: str) -> list[tuple[int, str]] | None:
    """(first line, text) of each chart of a `charts:` list, or None for another shape."""
    head = "charts:\n"
    if any(odd in rendered for odd in ODD_BREAKS):
        return None  # YAML breaks lines there too: counted here at LF only
    starts = _item_starts(rendered)
    if not rendered.startswith(head) or not starts or starts[0] != len(head):
        return None
    chunks = []
    line = 2
    for start, end in zip(starts, [*starts[1:], len(rendered)], strict=True):
        chunks.append((line, rendered[start:end]))
        line += rendered.count("\n", start, end)
    return chunks


def _item_starts(rendered: str) -> list[int]:
    """Where each line that starts a chart item (`  - `) starts: what CHART_ITEM finds, found
    by str.find (the regular expression tried every position of a 1.6 MB output)."""
    starts: list[int] = []
    at = rendered.find(ITEM_BREAK)
    while at >= 0:
        starts.append(at + 1)
        at = rendered.find(ITEM_BREAK, at + 1)
    if rendered.startswith(ITEM_BREAK[1:]):
        starts.insert(0, 0)
    return starts


ITEM_BREAK = "\n  - "


def _template_line(err: BaseException) -> int | None:
    """The template line an error was raised at (Jinja2 puts template frames in tracebacks)."""
    import traceback  # only for a broken template (it imports textwrap)

    lines = [
        f.lineno for f in traceback.extract_tb(err.__traceback__) if f.filename == TEMPLATE_FILE
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
    """The template's output, stopped once it passes MAX_OUTPUT characters. The shared
    template is rendered at once and its size checked after (it comes with countermix: the
    check of each of its hundred thousand parts cost more than joining them)."""
    from jinja2.exceptions import SecurityError
    from jinja2.sandbox import SandboxedEnvironment

    if not isinstance(template.environment, SandboxedEnvironment):
        rendered = template.render(**names)
        if len(rendered) > MAX_OUTPUT:
            raise SecurityError(f"the output passes {MAX_OUTPUT // 1048576} MiB")
        return rendered
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
    env.filters["ids"] = _ids
    env.globals["tr"] = tr_text
    return env


@lru_cache(maxsize=4)
def _shared_template(source: str) -> jinja2.Template:
    """The shared template compiled, once per process (its environment keeps no state; a
    game's own template gets a fresh sandbox each time, which counts its loops): what
    `from_string` makes, from the code compiled ahead of time when it is that template's."""
    env = _environment()
    return env.template_class.from_code(env, _shared_code(env, source), env.make_globals(None))


def _shared_code(env: jinja2.Environment, source: str) -> CodeType:
    """The template's code: Jinja2's parse and code generation cost 0.01-0.03 s a process, so
    the shipped template's Python code comes with countermix (compiler.load.aidscode, written by
    scripts/update_aids_code.py), and its compiled code (Python's compile of it cost 0.016 s a
    process) is kept in the user's cache folder as the dataclasses' code is
    (compiler.dataclasscode.kept_code). Neither is kept in the build's cache folder: a kept
    file there must never run code (a planted cache file would). Another template, or another
    Jinja2, is compiled as `from_string` does."""
    import jinja2

    from compiler.load import aidscode

    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    if aidscode.SOURCE == digest and aidscode.JINJA2 == jinja2.__version__:
        from compiler.dataclasscode import kept_code

        return _named(kept_code(aidscode.CODE), TEMPLATE_FILE)
    return env.compile(source)


TEMPLATE_FILE = "<template>"
"""The file name Jinja2 compiles a template's code with (see _template_line)."""


def _named(code: CodeType, filename: str) -> CodeType:
    """`code` and the code of its functions (the template's macros and blocks) as compiled
    with `filename`: Python's own compile gives the name to every code object it makes."""
    consts = tuple(
        _named(const, filename) if isinstance(const, CodeType) else const
        for const in code.co_consts
    )
    return code.replace(co_filename=filename, co_consts=consts)


def shared_code_module(source: str) -> str:
    """The text of compiler.load.aidscode for the shared template `source` (see _shared_code)."""
    import jinja2

    code = _environment().compile(source, raw=True)
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    return (
        f"{AIDSCODE_HEAD}\nJINJA2 = {jinja2.__version__!r}\nSOURCE = {digest!r}\nCODE = {code!r}\n"
    )


AIDSCODE_HEAD = '''# ruff: noqa: E501
"""The shared player-aids template (templates/player_aids.yaml.j2) as Jinja2 compiles it to
Python: CODE, for Jinja2 version JINJA2 and the template whose SHA-256 is SOURCE (see
compiler.load.aids._shared_code). Generated by `python -m scripts.update_aids_code`; do not
edit."""
'''


def _environment() -> jinja2.Environment:
    """The shared template's environment (the template ships with countermix)."""
    import jinja2

    return _configure(
        jinja2.Environment(
            undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
        )
    )


def _sandbox() -> jinja2.Environment:
    """A fresh sandbox for a game's own template (see compiler.load.aidssandbox)."""
    from compiler.load.aidssandbox import Sandbox

    return _configure(Sandbox())


def _yaml_value(value: object) -> str:
    """A text as {en, ja} (JSON is YAML), anything else as a JSON string: what
    `json.dumps(..., ensure_ascii=False)` writes, each string quoted by its own encoder (the
    filter runs for every cell of every row)."""
    if isinstance(value, Text):
        en = _quoted(value.en)
        return f'{{"en": {en}, "ja": {_quoted(value.ja) if value.ja else en}}}'
    return _quoted("" if value is None else value if type(value) is str else str(value))


def _ids(values: Iterable[object]) -> str:
    """A list of ids as a JSON list (what _json writes: each string quoted, ", " between)."""
    found = list(values)
    strings = [value for value in found if isinstance(value, str) and type(value) is str]
    if len(strings) == len(found):
        return "[" + ", ".join(map(_quoted, strings)) + "]"
    return _json(found)


_json = json.JSONEncoder(ensure_ascii=False).encode
"""json.dumps(value, ensure_ascii=False), without making an encoder for each value."""
_quoted: Callable[[str], str] = json.encoder.encode_basestring
"""A string as JSON writes it when not asked to keep to ASCII (what _json does with one)."""


def _names(
    game: GameData, kept: _KeptRows | None = None, marks: _Marks | None = None
) -> dict[str, object]:
    """What the template may use besides `game` (`kept`: the rows of the last build, for the
    shared template; `marks`: where the rows' texts go, told apart from the frame: see
    _Marks)."""
    formations = {f.id: f for f in game.formations}
    shown_of: dict[int, tuple[Scenario, str]] = {}

    def scenario_shown(scenario: Scenario) -> str:
        """_scenario_shown, worked out once per scenario (its setup card and its
        reinforcements show the same: the names of all its units)."""
        found = shown_of.get(id(scenario))
        if found is None or found[0] is not scenario:
            found = shown_of[id(scenario)] = (scenario, _scenario_shown(game, scenario, unit_name))
        return found[1]

    def unit_name(unit_id: str) -> Text:
        unit = game.unit(unit_id)
        return unit.name if unit is not None else Text(unit_id)

    def names(unit_ids: Iterable[str], back: bool = False) -> Text:
        found = [unit_name(u) for u in unit_ids]
        if len(found) == 1 and not back:  # most setup entries: one unit on its front
            return Text(found[0].en, found[0].ja or found[0].en)

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

    def setup_rows(scenario: Scenario, write: Callable[[SetupGroup, Scenario], object]) -> str:
        """What `write(group, scenario)` writes for each setup group of a scenario."""

        def written() -> str:
            return "".join(str(write(group, scenario)) for group in setup_groups(scenario))

        if kept is None:
            return written()
        shown = scenario_shown(scenario)
        text = kept.scenario_rows("setup", scenario.id, shown, written)
        return text if marks is None else marks.mark(("setup", scenario.id), text)

    def arrival_rows(
        scenario: Scenario,
        arrivals: Iterable[Reinforcement],
        write: Callable[[Reinforcement, Scenario], object],
    ) -> str:
        """What `write(arrival, scenario)` writes for each of `arrivals` (the shared template
        gives the scenario's reinforcements sorted by turn)."""

        def written() -> str:
            return "".join(str(write(arrival, scenario)) for arrival in arrivals)

        if kept is None:
            return written()
        shown = scenario_shown(scenario)
        text = kept.scenario_rows("arrivals", scenario.id, shown, written)
        return text if marks is None else marks.mark(("arrivals", scenario.id), text)

    def unit_rows(side_id: str, write: Callable[[Unit], object]) -> str:
        """What `write(unit)` writes for each unit of a side, one after the other."""
        units = [u for u in game.units if u.side == side_id]
        if kept is None:
            return "".join(str(write(unit)) for unit in units)
        text = kept.rows(side_id, units, lambda unit: formations.get(unit.formation), write)
        return text if marks is None else marks.mark(("units", side_id), text)

    return {
        "game": game,
        "turn_tracks": game.game.turn_tracks(),
        "unit_rows": unit_rows,
        "setup_rows": setup_rows,
        "arrival_rows": arrival_rows,
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
