"""Findings kept between builds: a warm build that changed a unit checks again only what read
it.

A constraint over the pieces a scenario places (stacking, mixed-sides, setup-zone, stack-with,
marker-supply, and value-range or field-compare over `setup`) is checked run by run
(compiler.rules.runs: whole location groups of a scenario's setup, or arrivals, some 32
pieces each). Whether a run has a finding is decided by what the run holds (the scenario's
entries, the units it places) and what the check reads besides: the constraint, the game's
own settings (params, titles, values), unit types, formations, marker sets and maps, and the
code of the rules and of the loader; not by where any of it is written. So a run found clean
is kept clean under a digest of exactly that (KeptFindings.run_findings), and not checked
again, while a run with a finding is always checked again (its findings then point where its
pieces are written now). One unit changed checks again the runs that place it; a scenario
file changed, that scenario's runs. marker-supply, which counts over a scenario and reads no
unit, takes each scenario as one run keyed without the units. The integrity checks of the
scenarios' entries (the pieces they name, their state names, their location, face and steps)
go the same way (KeptFindings.run_checks).

When such a constraint must be checked whole (a malformed bound, an unknown $param: a
finding of the constraint), its findings are kept whole under a key of its file (its bytes:
GameData.sources) and place in it, the file of each scenario, the content digests
(compiler.model.digests) of the game's records above and of the unit each placement names,
and the code. Any other constraint, or one whose file the loader did not key (a load without
the kept records), is checked as before. A kept entry that does not read back whole is
checked again; the file is written only when what the build used changed.

Checks of each unit on its own (value-range and field-compare over `units`, and the integrity
checks of a unit's references and value names: Context.units_checked) go through the units
in groups of UNIT_GROUP, each keyed by a digest of its units' contents. Whether a unit has a
finding is decided by what it is (and by the records the check reads besides it: the game's
record, unit types, formations, under the key with the constraint and the code), not by where
it is written; so a group found clean is kept clean, and not checked again, while a group
with a finding is always checked again (its findings then point where its units are now).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path

from compiler.diagnostics import Finding, Location, Related, Severity
from compiler.load.records import loader_fingerprint
from compiler.model.constraints import Constraint
from compiler.model.digests import content_digest
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from compiler.rules.base import views
from compiler.rules.context import Context, ScenarioView
from compiler.rules.runs import Run, RunCheck, scenario_runs, whole

SUFFIX = ".rules"
"""The kept findings' file: the loader's kept records' file with this suffix."""
SCENARIO_KINDS = frozenset({"stacking", "mixed-sides", "setup-zone", "stack-with", "marker-supply"})
"""Constraint kinds whose findings depend only on what the module docstring lists."""
SETUP_KINDS = frozenset({"value-range", "field-compare"})
"""Kinds that are scenario constraints when their target is `setup`."""


def kept_here(c: Constraint) -> bool:
    """Whether the findings of `c` may be kept (see the module's docstring)."""
    return c.kind in SCENARIO_KINDS or (
        c.kind in SETUP_KINDS and getattr(c, "target", "") == "setup"
    )


class KeptFindings:
    """The findings the last validation kept (`known`), and those this one keeps."""

    def __init__(self, game: GameData, ctx: Context) -> None:
        self.game = game
        self.ctx = ctx
        self.stored = Path(game.kept + SUFFIX)
        self.known = _read(self.stored)
        self.kept: dict[bytes, bytes] = {}
        self._scenarios: bytes | None = None
        self._groups: list[bytes] | None = None
        self._records: bytes | None = None
        self._runs: dict[tuple[str, bool], tuple[ScenarioView, list[tuple[Run, bytes]]]] = {}

    @classmethod
    def open(cls, game: GameData, ctx: Context) -> KeptFindings | None:
        """The kept findings of a game loaded with its kept records; None otherwise."""
        if not game.kept or not game.sources:
            return None
        return cls(game, ctx)

    def key(self, c: Constraint) -> bytes | None:
        """The key of a constraint's findings; None when they are not kept."""
        if not kept_here(c):
            return None
        source = self.game.sources.get(c.loc.path)
        scenarios = self.scenarios()
        if source is None or scenarios is None:
            return None
        digest = hashlib.sha256(_code())
        for part in (c.kind, c.loc.path, str(c.loc.line), str(c.loc.column), content_digest(c)):
            digest.update(part.encode("utf-8") + b"\0")
        digest.update(source + scenarios)
        return digest.digest()

    def unit_findings(
        self, c: Constraint, check: Callable[[Sequence[Unit]], list[Finding] | None]
    ) -> list[Finding] | None:
        """The findings of a value-range or field-compare over units, the units checked in
        groups of UNIT_GROUP (`check(units)`: their findings, None when the constraint must be
        checked whole): a group whose units' contents were clean under the same constraint and
        context is not checked again (its units can have no finding: what a unit is decides
        whether it has one, where it is written only where the finding points). None when
        the constraint is not kept so, or `check` says to check it whole."""
        key = self.unit_key(c)
        return None if key is None else self._by_groups(key, check)

    def unit_checks(
        self, name: str, reads: Sequence[object], check: Callable[[Sequence[Unit]], list[Finding]]
    ) -> list[Finding]:
        """`check` over the game's units (Context.units_checked), in groups of UNIT_GROUP: a
        group found clean by the check `name` before, when the records it `reads` besides a
        unit were the same, is not checked again."""
        digest = hashlib.sha256(_code() + name.encode("utf-8") + b"\0")
        digest.update("".join(map(content_digest, reads)).encode("ascii"))
        found = self._by_groups(digest.digest(), check)
        assert found is not None  # `check` always checks
        return found

    def _by_groups(
        self, key: bytes, check: Callable[[Sequence[Unit]], list[Finding] | None]
    ) -> list[Finding] | None:
        """The findings of `check` over the game's units, group by group, skipping the groups
        kept clean under `key`; None when `check` says so."""
        clean = _groups(self.known.get(key, b""))
        units = self.game.units
        groups = self.groups()
        found: list[Finding] = []
        still: list[bytes] = []
        for number, group_key in enumerate(groups):
            if group_key not in clean:
                start = number * UNIT_GROUP
                checked = check(units[start : start + UNIT_GROUP])
                if checked is None:
                    return None
                found.extend(checked)
                if checked:
                    continue
            still.append(group_key)
        self.kept[key] = b"".join(still)
        return found

    def run_findings(self, c: Constraint, check: RunCheck) -> list[Finding] | None:
        """The findings of a scenario constraint (kept_here), its scenarios' pieces checked run
        by run (compiler.rules.runs; `check(view, run)`: a run's findings, None when the
        constraint must be checked whole): a run found clean under the same constraint, game
        records and code, when its scenario and the units it places are the same, is not
        checked again; a run with a finding always is (its findings then point where its
        pieces are written now). None when `check` says to check the constraint whole."""
        return self._by_runs(self._runs_key(c), views(self.ctx, c), c.kind in WHOLE_KINDS, check)

    def run_checks(self, name: str, check: RunCheck) -> list[Finding]:
        """`check` over every scenario's pieces, run by run (Context.kept_runs): a run found
        clean by the check `name` before, under the same game records and code, when its
        scenario and the units it places are the same, is not checked again."""
        digest = hashlib.sha256(_code() + b"scenario-checks\0" + name.encode("utf-8") + b"\0")
        digest.update(self._records_key())
        found = self._by_runs(digest.digest(), self.ctx.views(), False, check)
        assert found is not None  # `check` always checks
        return found

    def _by_runs(
        self, key: bytes, chosen: Iterable[ScenarioView], one: bool, check: RunCheck
    ) -> list[Finding] | None:
        """The findings of `check` over the runs of the `chosen` scenarios (each scenario
        `one` run), skipping the runs kept clean under `key`; None when `check` says so."""
        clean = _groups(self.known.get(key, b""))
        found: list[Finding] = []
        still: list[bytes] = []
        for view in chosen:
            for run, digest in self._scenario_runs(view, one):
                run_key = hashlib.sha256(key + digest).digest()[:GROUP_KEY]
                if run_key not in clean:
                    checked = check(view, run)
                    if checked is None:
                        return None
                    found.extend(checked)
                    if checked:
                        continue
                still.append(run_key)
        self.kept[key] = b"".join(still)
        return found

    def _runs_key(self, c: Constraint) -> bytes:
        """What a scenario constraint's check of any run reads besides the run: the rules'
        code, the constraint (what it is, not where it is written: only clean runs are kept)
        and the game's records (_records)."""
        digest = hashlib.sha256(_code() + b"runs\0" + c.kind.encode("utf-8") + b"\0")
        digest.update(content_digest(c).encode("ascii") + self._records_key())
        return digest.digest()

    def _records_key(self) -> bytes:
        """A digest of the game's records a check of a scenario's pieces reads besides the
        scenario and the units it places (worked out once): the game's own settings (params,
        titles, values, terrain), unit types, formations, marker sets (the markers) and maps
        (the places)."""
        if self._records is None:
            self._records = _records_digest(self.game)
        return self._records

    def _scenario_runs(self, view: ScenarioView, one: bool) -> list[tuple[Run, bytes]]:
        """A scenario's runs (compiler.rules.runs; all its pieces as `one` run for a check
        that counts over the scenario), each with a digest of what it holds: the scenario
        (its entries: where each piece is put, how it starts) and the run's place in it, and
        (unless `one`: such a check reads no unit) the content digest of each unit it places
        (worked out once per scenario)."""
        known = self._runs.get((view.scenario.id, one))
        if known is not None and known[0] is view:
            return known[1]
        scenario = content_digest(view.scenario).encode("ascii")
        if one:
            made = [(whole(view), hashlib.sha256(b"whole\0" + scenario).digest())]
        else:
            made = [
                (run, _run_digest(scenario, number, run))
                for number, run in enumerate(scenario_runs(view))
            ]
        self._runs[view.scenario.id, one] = (view, made)
        return made

    def groups(self) -> list[bytes]:
        """The key of each group of UNIT_GROUP units, one after the other: a digest of their
        contents (worked out once)."""
        if self._groups is None:
            units = self.game.units
            self._groups = [
                hashlib.sha256(
                    "".join(map(content_digest, units[start : start + UNIT_GROUP])).encode("ascii")
                ).digest()[:GROUP_KEY]
                for start in range(0, len(units), UNIT_GROUP)
            ]
        return self._groups

    def unit_key(self, c: Constraint) -> bytes | None:
        """The key of the clean groups of units of a constraint over units: the constraint
        (its file, place and content), the game's record and unit types (what a unit's values
        and selectors read besides the unit), the rules' code; None for another constraint."""
        if c.kind not in SETUP_KINDS or getattr(c, "target", "") != "units":
            return None
        source = self.game.sources.get(c.loc.path)
        if source is None:
            return None
        digest = hashlib.sha256(_code() + b"units\0" + source)
        parts = (c.kind, c.loc.path, str(c.loc.line), str(c.loc.column), content_digest(c))
        digest.update("\0".join(parts).encode("utf-8"))
        digest.update(content_digest(self.game.game).encode("ascii"))
        digest.update("".join(map(content_digest, self.game.unit_types)).encode("ascii"))
        return digest.digest()

    def scenarios(self) -> bytes | None:
        """A digest of all a scenario constraint reads besides the constraint (worked out once);
        None when a scenario's file has no key."""
        if self._scenarios is None:
            self._scenarios = _scenarios_key(self.game, self.ctx) or b""
        return self._scenarios or None

    def findings(self, key: bytes) -> list[Finding] | None:
        """The findings kept under `key`, when they read back whole."""
        data = self.known.get(key)
        found = None if data is None else _decoded(data)
        if found is not None and data is not None:
            self.kept[key] = data
        return found

    def keep(self, key: bytes, findings: list[Finding]) -> None:
        self.kept[key] = _encoded(findings)

    def save(self) -> None:
        """Write the findings this validation used, when they changed (a build made the
        loader's folder; a failure to write is not an error)."""
        if self.kept == self.known or not self.stored.parent.is_dir():
            return
        try:
            part = self.stored.with_name(self.stored.name + f".{os.getpid()}.part")
            part.write_bytes(marshal.dumps(self.kept))
            os.replace(part, self.stored)
        except OSError:
            pass


WHOLE_KINDS = frozenset({"marker-supply"})
"""Scenario constraints that count over all of a scenario's pieces (one run per scenario)."""


def _records_digest(game: GameData) -> bytes:
    digest = hashlib.sha256()
    digest.update(content_digest(game.game).encode("ascii"))
    for name, records in (
        ("unit_types", game.unit_types),
        ("formations", game.formations),
        ("marker_sets", game.marker_sets),
        ("maps", game.maps),
    ):
        digest.update(f"\0{name}:{len(records)}:".encode())
        digest.update("".join(map(content_digest, records)).encode("ascii"))
    return digest.digest()


def _run_digest(scenario: bytes, number: int, run: Run) -> bytes:
    """A digest of a run: its scenario's, its number in it, and the unit each of its pieces
    names ('-' for none: a marker, or a unit not defined)."""
    units = "\0".join("-" if p.unit is None else content_digest(p.unit) for p in run.placements())
    return hashlib.sha256(b"%s\0%d\0%s" % (scenario, number, units.encode("ascii"))).digest()


def _scenarios_key(game: GameData, ctx: Context) -> bytes | None:
    digest = hashlib.sha256(_records_digest(game))
    for view in ctx.views():
        scenario = view.scenario
        source = game.sources.get(scenario.loc.path)
        if source is None:
            return None
        where = f"\0scenario:{scenario.loc.path}:{scenario.loc.line}:{scenario.loc.column}:"
        digest.update(where.encode("utf-8") + source + content_digest(scenario).encode("ascii"))
        digest.update(_placed((p.piece_id, p.unit) for p in (*view.setup, *view.arrivals)))
    return digest.digest()


UNIT_GROUP = 32
"""Units checked together by a constraint over units (see KeptFindings.unit_findings)."""
GROUP_KEY = 16
"""Bytes of a group's key: a digest of its units' contents."""


def _groups(data: bytes) -> set[bytes]:
    """The keys of the clean groups kept (none when the entry is cut short)."""
    if len(data) % GROUP_KEY:
        return set()
    return {data[start : start + GROUP_KEY] for start in range(0, len(data), GROUP_KEY)}


def _placed(pieces: Iterable[tuple[str, object]]) -> bytes:
    """The pieces a scenario places, each by id and the digest of the unit it names."""
    return "\0".join(
        f"{piece}:{'-' if unit is None else content_digest(unit)}" for piece, unit in pieces
    ).encode("utf-8")


@cache
def _code() -> bytes:
    """The code that makes the findings: the rules, and what they import of the loader, the
    model and compiler.diagnostics (the loader's fingerprint)."""
    digest = hashlib.sha256(loader_fingerprint())
    folder = Path(__file__).parent
    for source in sorted(folder.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.digest()


def _encoded(findings: list[Finding]) -> bytes:
    return json.dumps([_finding_data(f) for f in findings], ensure_ascii=False).encode("utf-8")


def _finding_data(f: Finding) -> list[object]:
    related = [[*r.location, r.message] for r in f.related]
    return [f.rule, *f.location, f.message, f.hint, f.reference, f.severity.value, related]


def _decoded(data: bytes) -> list[Finding] | None:
    """Findings kept by _encoded; None when they do not read back whole."""
    try:
        return [_finding(item) for item in json.loads(data.decode("utf-8"))]
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None


def _finding(item: list[object]) -> Finding:
    rule, path, line, column, message, hint, reference, severity, related = item
    texts = (rule, path, message, hint, reference, severity)
    if not all(type(t) is str for t in texts) or not _numbers(line, column):
        raise ValueError("not a finding")
    if not isinstance(related, list):
        raise ValueError("not a finding")
    return Finding(
        str(rule),
        Location(str(path), int(line), int(column)),  # type: ignore[call-overload]
        str(message),
        str(hint),
        str(reference),
        Severity(str(severity)),
        tuple(_related(r) for r in related),
    )


def _related(item: object) -> Related:
    if not isinstance(item, list) or len(item) != 4:
        raise ValueError("not a related place")
    path, line, column, message = item
    if type(path) is not str or type(message) is not str or not _numbers(line, column):
        raise ValueError("not a related place")
    return Related(Location(path, line, column), message)


def _numbers(*values: object) -> bool:
    return all(type(v) is int for v in values)


def _read(stored: Path) -> dict[bytes, bytes]:
    try:
        found = marshal.loads(stored.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if type(k) is bytes and type(v) is bytes}
